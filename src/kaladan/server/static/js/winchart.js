// A finished game's analysis (GET /api/games/{id}/analysis, docs/analysis.md): every seat's
// chance to win before each decision, by the value network, as an SVG line chart (the last
// point is the result), and under it each seat's costliest decisions in words with the expert
// bot's choice there. The end screen and the replay page show it. The server works an analysis
// out once per game (seconds, the first time): a page asks for it once.

import {api} from "./api.js";
import {h, s} from "./dom.js";
import {seatColor} from "./board.js";
import {SHAPES, key, marker} from "./chart.js";
import {playerLabel} from "./panels.js";
import {actionWords, t} from "./i18n.js";

const WIDTH = 320;
const HEIGHT = 150;
const PAD = {left: 30, right: 10, top: 8, bottom: 22};
const loaded = {gameId: null, data: null, error: null};

const pct = (p) => `${Math.round(100 * p)}%`;
const shapeOf = (seat) => SHAPES[seat % SHAPES.length];

/** Ask for the analysis of `gameId` once; `redraw()` when it (or its refusal) has come. */
function load(gameId, redraw) {
  if (loaded.gameId === gameId) return;
  Object.assign(loaded, {gameId, data: null, error: null});
  api("GET", `/api/games/${encodeURIComponent(gameId)}/analysis`)
    .then((body) => { if (loaded.gameId === gameId) loaded.data = body; })
    .catch((err) => { if (loaded.gameId === gameId) loaded.error = err; })
    .finally(() => { if (loaded.gameId === gameId) redraw(); });
}

/** One line per seat in words: its chance at the start, at its lowest and at the end. */
function summary(data, observation, seat) {
  const values = data.curve.map((point) => point[seat]);
  const low = values.indexOf(Math.min(...values));
  return t("analysis.summary", {who: playerLabel(observation, seat), start: pct(values[0]),
    low: pct(values[low]), at: low, end: pct(values[values.length - 1])});
}

/** The chart: x the decisions made (0 to the end), y the chance to win (0 to 100%); each
 * seat's costly decisions marked on its line with its shape; `current` (a replay's version)
 * as a vertical line. */
export function winChart(data, observation, current = null) {
  const last = data.curve.length - 1;
  const x = (v) => PAD.left + (last ? v * (WIDTH - PAD.left - PAD.right) / last : 0);
  const y = (p) => HEIGHT - PAD.bottom - p * (HEIGHT - PAD.top - PAD.bottom);
  const grid = [0, 0.25, 0.5, 0.75, 1].map((p) => [
    s("line", {x1: PAD.left, x2: WIDTH - PAD.right, y1: y(p), y2: y(p), class: "chart-grid"}),
    p * 2 % 1 === 0 ? s("text", {x: PAD.left - 4, y: y(p) + 3.5, "text-anchor": "end", class: "chart-tick"}, pct(p)) : null]);
  const step = Math.max(1, Math.ceil(last / 5 / 10) * 10);  // about six round numbers
  const ticks = [];
  for (let v = 0; v <= last; v += step) if (last - v >= step / 2 || v === 0) ticks.push(v);
  if (last) ticks.push(last);
  const labels = ticks.map((v) => s("text", {x: x(v), y: HEIGHT - 6, "text-anchor": "middle", class: "chart-tick"}, v));
  const seats = observation.players.map((p) => p.seat);
  const lines = seats.map((seat) => {
    const color = seatColor(observation, seat);
    const marks = (data.costly[seat] || []).map((item) => [x(item.version), y(item.before)]);
    marks.push([x(last), y(data.curve[last][seat])]);
    return s("g", {class: "win-seat", "data-seat": seat},
      s("polyline", {points: data.curve.map((point, v) => `${x(v)},${y(point[seat])}`).join(" "),
        fill: "none", stroke: color, "stroke-width": 2}),
      marks.map(([mx, my]) => marker(shapeOf(seat), mx, my, color)));
  });
  const now = current === null ? null
    : s("line", {x1: x(current), x2: x(current), y1: PAD.top, y2: HEIGHT - PAD.bottom, class: "win-now"});
  return s("svg", {class: "win-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": `${t("analysis.title")}. ${seats.map((seat) => summary(data, observation, seat)).join("; ")}`},
  grid, labels, now, lines);
}

function legend(observation) {
  return h("ul", {class: "win-legend"}, observation.players.map((p) => h("li", {},
    key(shapeOf(p.seat), seatColor(observation, p.seat)), playerLabel(observation, p.seat))));
}

/** A costly decision in words: what was played, the chance before and after, and the expert
 * bot's choice with what it keeps (percentage points). */
function costlyItem(item, onJump) {
  const move = actionWords(item.better_action);
  const verdict = item.same ? t("analysis.same")
    : item.kept > 0 ? t("analysis.better", {move, kept: (100 * item.kept).toFixed(1)})
    : t("analysis.no_better", {move});
  const judged = !item.same && (item.better_source === "network" || item.played_source === "network");
  return h("li", {class: "win-costly-item", "data-version": item.version},
    t("analysis.item", {n: item.version + 1, move: actionWords(item.played_action),
      before: pct(item.before), after: pct(item.after)}), " ", verdict,
    judged ? h("span", {class: "muted"}, " ", t("analysis.by_network")) : null,
    onJump ? [" ", h("button", {type: "button", class: "win-jump", onclick: () => onJump(item.version)},
      t("analysis.show"))] : null);
}

function costlyList(data, observation, onJump) {
  return h("div", {class: "win-costly"},
    h("p", {class: "win-costly-title"}, h("b", {}, t("analysis.costly_title"))),
    observation.players.map(({seat}) => h("div", {class: "win-costly-seat", "data-seat": seat},
      h("p", {class: "win-costly-who"}, key(shapeOf(seat), seatColor(observation, seat)), playerLabel(observation, seat)),
      (data.costly[seat] || []).length
        ? h("ol", {}, data.costly[seat].map((item) => costlyItem(item, onJump)))
        : h("p", {class: "muted"}, t("analysis.none")))));
}

/**
 * The analysis part of a page: loading, the refusal in words, or the chart with its legend
 * and the costly decisions. `redraw()` mounts it again (when the answer has come); on the
 * replay page `current` is the version shown and `onJump(version)` goes to a decision.
 */
export function analysisBody(gameId, observation, {redraw, current = null, onJump = null}) {
  load(gameId, redraw);
  if (loaded.error) {
    return h("p", {class: "muted"}, loaded.error.code === "no_network" ? t("analysis.no_network") : t("analysis.unavailable"));
  }
  const data = loaded.data;
  if (!data) return h("p", {class: "muted"}, t("analysis.loading"));
  return h("div", {class: "win-box", id: "win-analysis"},
    winChart(data, observation, current), legend(observation),
    h("p", {class: "muted win-about"}, t("analysis.about", {n: data.iterations})),
    costlyList(data, observation, onJump));
}
