// A finished game round by round as an SVG line chart: every player's score, gold or units on
// the board (GET /api/games/{id}/rounds, worked out by the server; docs/api.md "Replays and
// round figures"). Each player has a colour and a marker shape, so the lines read without
// colour too.

import {h, s} from "./dom.js";
import {seatColor} from "./board.js";
import {playerLabel} from "./panels.js";
import {t} from "./i18n.js";

export const METRICS = ["score", "gold", "units"];
const WIDTH = 320;
const HEIGHT = 150;
const PAD = {left: 28, right: 16, top: 8, bottom: 22};  // right: half the last round label ("Ende")
const SHAPES = ["circle", "square", "triangle", "diamond", "down", "cross"];

/** A marker of the seat's shape at (x, y). */
function marker(shape, x, y, color) {
  const r = 3.2;
  const path = {
    square: `M${x - r} ${y - r}h${2 * r}v${2 * r}h${-2 * r}z`,
    triangle: `M${x} ${y - r - 0.8}L${x + r + 0.6} ${y + r}H${x - r - 0.6}z`,
    diamond: `M${x} ${y - r - 1}L${x + r + 1} ${y}L${x} ${y + r + 1}L${x - r - 1} ${y}z`,
    down: `M${x} ${y + r + 0.8}L${x + r + 0.6} ${y - r}H${x - r - 0.6}z`,
    cross: `M${x - r} ${y - r}L${x + r} ${y + r}M${x + r} ${y - r}L${x - r} ${y + r}`,
  }[shape];
  return path ? s("path", {d: path, fill: shape === "cross" ? "none" : color, stroke: color, "stroke-width": shape === "cross" ? 2 : 1})
    : s("circle", {cx: x, cy: y, r, fill: color});
}

/** A round's label on the x axis: its number, or "end". */
const roundLabel = (item) => (item.round === null ? t("chart.end") : String(item.round));

/** The chart of one metric as an SVG element. */
export function lineChart(rounds, observation, metric) {
  const seats = observation.players.map((p) => p.seat);
  const values = rounds.flatMap((item) => item[metric]).filter((v) => v !== null);
  const top = Math.max(1, ...values);
  const step = Math.max(1, Math.ceil(top / 4));
  const yMax = step * Math.ceil(top / step);
  const x = (i) => PAD.left + (rounds.length < 2 ? 0 : i * (WIDTH - PAD.left - PAD.right) / (rounds.length - 1));
  const y = (v) => HEIGHT - PAD.bottom - v * (HEIGHT - PAD.top - PAD.bottom) / yMax;
  const grid = [];
  for (let v = 0; v <= yMax; v += step) {
    grid.push(s("line", {x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v), class: "chart-grid"}),
      s("text", {x: PAD.left - 4, y: y(v) + 3.5, "text-anchor": "end", class: "chart-tick"}, v));
  }
  const every = Math.ceil(rounds.length / 8);  // at most about eight round labels
  const ticks = rounds.map((item, i) => (i % every === 0 || i === rounds.length - 1
    ? s("text", {x: x(i), y: HEIGHT - 6, "text-anchor": "middle", class: "chart-tick"}, roundLabel(item)) : null));
  const lines = seats.map((seat, n) => {
    const color = seatColor(observation, seat);
    const runs = [[]];  // a seat's line breaks where it has no value (eliminated, R22.2)
    rounds.forEach((item, i) => {
      const v = item[metric][seat];
      if (v === null || v === undefined) { if (runs[runs.length - 1].length) runs.push([]); return; }
      runs[runs.length - 1].push([x(i), y(v)]);
    });
    return s("g", {class: "chart-seat", "data-seat": seat},
      runs.filter((run) => run.length).map((run) => s("polyline", {points: run.map((p) => p.join(",")).join(" "),
        fill: "none", stroke: color, "stroke-width": 2})),
      runs.flat().map(([px, py]) => marker(SHAPES[n % SHAPES.length], px, py, color)));
  });
  const described = seats.map((seat) => `${playerLabel(observation, seat)}: ${rounds.map((item) => item[metric][seat] ?? "—").join(", ")}`);
  return s("svg", {class: "chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": `${t(`chart.${metric}`)} (${t("chart.per_round")}). ${described.join("; ")}`, "data-metric": metric},
    grid, ticks, lines);
}

/** The legend: each player's colour and marker shape. */
function legend(observation) {
  return h("ul", {class: "chart-legend"}, observation.players.map((p, n) => h("li", {},
    s("svg", {viewBox: "0 0 12 12", class: "chart-key", "aria-hidden": "true"},
      marker(SHAPES[n % SHAPES.length], 6, 6, seatColor(observation, p.seat))),
    playerLabel(observation, p.seat))));
}

/**
 * The chart with a choice of metric (score, gold, units on the board): state.metric is the
 * one shown, kept by the caller across redraws; onPick(metric) redraws.
 */
export function renderChart(rounds, observation, state, onPick) {
  const metric = METRICS.includes(state.metric) ? state.metric : "score";
  return h("div", {class: "chart-box", id: "chart"},
    h("div", {class: "chart-metrics", role: "group", "aria-label": t("chart.per_round")},
      METRICS.map((m) => h("button", {type: "button", class: "chart-metric", "aria-pressed": m === metric ? "true" : "false",
        "data-metric": m, onclick: () => onPick(m)}, t(`chart.${m}`)))),
    lineChart(rounds, observation, metric),
    legend(observation));
}
