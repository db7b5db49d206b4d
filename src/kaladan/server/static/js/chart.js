// A finished game round by round as an SVG line chart: every player's score, gold or units on
// the board (GET /api/games/{id}/rounds, worked out by the server; docs/api.md "Replays and
// round figures"). Each player has a colour and a marker shape, so the lines read without
// colour too. In a team game allies score alike (R23.34): the score is one line per team,
// and the per-player lines (gold, units) of allies differ by their dash pattern; the legend
// names each team's members.

import {h, s} from "./dom.js";
import {seatColor} from "./board.js";
import {playerLabel} from "./panels.js";
import {t} from "./i18n.js";
import {teamGroups, teamLine} from "./teams.js";

export const METRICS = ["score", "gold", "units"];
const WIDTH = 320;
const HEIGHT = 150;
const PAD = {left: 28, right: 16, top: 8, bottom: 22};  // right: half the last round label ("Ende")
export const SHAPES = ["circle", "square", "triangle", "diamond", "down", "cross"];
const DASHES = [null, "6 3", "2 2"];  // a team's first, second and third member

/** A team game's teams ([] in a free-for-all), from the view's `teams`. */
const teamsOf = (observation) => (observation.mode === "free_for_all" ? []
  : teamGroups(observation.players.map((p) => observation.teams[p.seat])));

/** The dash pattern of a seat's line: by its place in its team (none without teams). */
function dashOf(teams, seat) {
  const group = teams.find((g) => g.seats.includes(seat));
  return group ? DASHES[group.seats.indexOf(seat) % DASHES.length] : null;
}

/** A marker of the seat's shape at (x, y). */
export function marker(shape, x, y, color) {
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
  const teams = teamsOf(observation);
  const polylines = (runs, color, attrs) => runs.filter((run) => run.length).map((run) =>
    s("polyline", {points: run.map((p) => p.join(",")).join(" "), fill: "none", stroke: color, ...attrs}));
  /** The points of a line (breaking where `value` is null: eliminated, R22.2). */
  const runsOf = (value) => {
    const runs = [[]];
    rounds.forEach((item, i) => {
      const v = value(item);
      if (v === null || v === undefined) { if (runs[runs.length - 1].length) runs.push([]); return; }
      runs[runs.length - 1].push([x(i), y(v)]);
    });
    return runs;
  };
  let lines;
  let described;
  if (teams.length && metric === "score") {  // allies' scores are one: a line per team
    const teamValue = (item, group) => group.seats.map((seat) => item[metric][seat]).find((v) => v !== null && v !== undefined) ?? null;
    lines = teams.map((group, n) => {
      const color = seatColor(observation, group.seats[0]);
      const runs = runsOf((item) => teamValue(item, group));
      return s("g", {class: "chart-team", "data-team": group.team},
        polylines(runs, color, {"stroke-width": 3}),
        runs.flat().map(([px, py]) => marker(SHAPES[n % SHAPES.length], px, py, color)));
    });
    described = teams.map((group) => `${teamLine(group, (seat) => playerLabel(observation, seat))}: ${rounds.map((item) => teamValue(item, group) ?? "—").join(", ")}`);
  } else {
    lines = seats.map((seat, n) => {
      const color = seatColor(observation, seat);
      const runs = runsOf((item) => item[metric][seat]);
      return s("g", {class: "chart-seat", "data-seat": seat},
        polylines(runs, color, {"stroke-width": 2, "stroke-dasharray": dashOf(teams, seat)}),
        runs.flat().map(([px, py]) => marker(SHAPES[n % SHAPES.length], px, py, color)));
    });
    described = seats.map((seat) => `${playerLabel(observation, seat)}: ${rounds.map((item) => item[metric][seat] ?? "—").join(", ")}`);
  }
  return s("svg", {class: "chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": `${t(`chart.${metric}`)} (${t("chart.per_round")}). ${described.join("; ")}`, "data-metric": metric},
    grid, ticks, lines);
}

/** A legend's key: a short line (with its dash pattern) and the marker on it. */
export function key(shape, color, dash = null) {
  return s("svg", {viewBox: "0 0 24 12", class: "chart-key", "aria-hidden": "true"},
    s("line", {x1: 1, x2: 23, y1: 6, y2: 6, stroke: color, "stroke-width": 2, "stroke-dasharray": dash}),
    marker(shape, 12, 6, color));
}

/** The legend: each player's colour, marker shape and (allies) dash pattern; in a team game
 * grouped by team, naming its members ("Team 1: P1 …, P3 …"). */
function legend(observation, metric) {
  const teams = teamsOf(observation);
  const shapeOf = (seat) => SHAPES[observation.players.findIndex((p) => p.seat === seat) % SHAPES.length];
  const player = (seat) => h("span", {class: "chart-member"},
    key(shapeOf(seat), seatColor(observation, seat), dashOf(teams, seat)), playerLabel(observation, seat));
  if (!teams.length) {
    return h("ul", {class: "chart-legend"}, observation.players.map((p) => h("li", {}, player(p.seat))));
  }
  return h("ul", {class: "chart-legend chart-teams"}, teams.map((group, n) => h("li", {"data-team": group.team},
    metric === "score" ? key(SHAPES[n % SHAPES.length], seatColor(observation, group.seats[0])) : null,
    h("b", {}, t("glance.team_score", {n: group.team + 1})), ": ",
    group.seats.map((seat, i) => [i ? ", " : null, metric === "score" ? playerLabel(observation, seat) : player(seat)]))));
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
    legend(observation, metric));
}
