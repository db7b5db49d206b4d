// The end screen: how the game ended, scores with their parts (R22.1, from the log's game_over
// entry), tie-break rolls (R22.4), a chart of the game round by round, every seat's chance to
// win decision by decision with its costliest decisions (winchart.js), the way to its replay,
// and for a seat the rematch (docs/ui.md "Rematch").

import {api, storeToken} from "./api.js";
import {byId, h, mount} from "./dom.js";
import {seatColor} from "./board.js";
import {renderChart} from "./chart.js";
import {analysisBody} from "./winchart.js";
import {scoreFormula, sixGatesRule} from "./howto.js";
import {playerLabel} from "./panels.js";
import {t} from "./i18n.js";

let shownFor = null;
// The round figures of the game shown (GET .../rounds, asked once per game) and the metric
// picked in its chart.
const chart = {gameId: null, rounds: null, failed: false, metric: "score"};

/** The chart's part of the end screen: drawn once the figures are there, asked for once. */
function chartBody(view) {
  if (chart.gameId !== view.game_id) {
    Object.assign(chart, {gameId: view.game_id, rounds: null, failed: false});
    api("GET", `/api/games/${encodeURIComponent(view.game_id)}/rounds`)
      .then((body) => { chart.rounds = body.rounds; })
      .catch(() => { chart.failed = true; })
      .finally(() => redrawChart(view));
  }
  if (chart.failed) return h("p", {class: "muted"}, t("chart.unavailable"));
  if (!chart.rounds) return h("p", {class: "muted"}, t("chart.loading"));
  return renderChart(chart.rounds, view.observation, chart,
    (metric) => { chart.metric = metric; redrawChart(view); byId("chart")?.querySelector(`[data-metric="${metric}"]`)?.focus(); });
}

function redrawChart(view) {
  const el = byId("end-chart-body");
  if (el && chart.gameId === view.game_id) mount(el, chartBody(view));
}

/** The analysis part of the end screen (asked for once per game, drawn when it has come). */
function analysisPart(view) {
  return analysisBody(view.game_id, view.observation, {redraw: () => {
    const el = byId("end-analysis-body");
    if (el && shownFor === view.game_id) mount(el, analysisPart(view));
  }});
}

const PARTS = ["trophies", "castles", "scalps", "tiles", "gold", "six_gates"];

/** The score parts of R22.1 per seat, in points, from the log's game_over entry (null when
 * the log does not hold it). */
function scoreParts(log) {
  for (let i = log.length - 1; i >= 0; i--) if (log[i].kind === "game_over") return log[i].scores;
  return null;
}

// The rematch of the game shown (GET/POST .../rematch): asked again every few seconds while
// the end screen is open, until it starts; then this seat's page of the new game opens.
const REMATCH_POLL_MS = 2500;
const rematch = {gameId: null, token: null, seat: null, state: null, timer: null, busy: false};

function rematchPath() {
  return `/api/games/${encodeURIComponent(rematch.gameId)}/rematch`;
}

async function askRematch(method) {
  if (method === "POST") rematch.busy = true;
  try {
    rematch.state = await api(method, rematchPath(), {token: rematch.token});
  } catch (err) {
    if (method === "POST") { rematch.busy = false; mountRematch(err.message); }
    return;
  }
  rematch.busy = false;
  const started = rematch.state;
  if (started.status === "started" && started.seat !== null) {
    // as after a join (api.js); a signed-in player's session stands for the new seat
    if (started.token) storeToken(started.game_id, started.seat, started.token);
    location.assign(`/play/${encodeURIComponent(started.game_id)}/${started.seat}`);
    return;
  }
  mountRematch();
}

function pollRematch() {
  clearTimeout(rematch.timer);
  rematch.timer = setTimeout(async () => {
    if (!byId("end")?.open || rematch.state?.status === "started") return;
    await askRematch("GET");
    pollRematch();
  }, REMATCH_POLL_MS);
}

/** The rematch part of the end screen: who accepted, and the button to offer or accept. */
function rematchBody(error = null) {
  const state = rematch.state;
  const accepted = state?.accepted || [];
  const mine = accepted.includes(rematch.seat);
  const seatName = (seat) => t("game.seat", {n: seat + 1});
  const label = !state || state.status === "none" ? t("chat.rematch_offer")
    : mine ? t("chat.rematch_waiting") : t("chat.rematch_accept");
  return [
    h("button", {type: "button", id: "rematch-button", class: "primary", disabled: mine || rematch.busy,
      onclick: () => askRematch("POST")}, label),
    state && state.status !== "none"
      ? h("span", {class: "muted", id: "rematch-state"}, " ", state.status === "started"
        ? t("chat.rematch_started") : t("chat.rematch_accepted", {
          seats: accepted.map(seatName).join(", "), count: accepted.length, of: state.humans.length}))
      : null,
    error ? h("span", {class: "error"}, " ", error) : null,
    h("p", {class: "muted"}, t("chat.rematch_rules"))];
}

function mountRematch(error = null) {
  const el = byId("rematch");
  if (el) mount(el, rematchBody(error));
}

/** The end screen; `token` is the seat's, if it has one (a signed-in player's seat may play
 * by the session). A seat may offer or accept a rematch. */
export function renderEnd(view, log, {token = null} = {}) {
  const result = view.result || view.observation.result;
  const dialog = byId("end");
  if (!result) { if (dialog.open) dialog.close(); shownFor = null; return; }
  const seated = view.seat !== null;
  if (seated && rematch.gameId !== view.game_id) {
    Object.assign(rematch, {gameId: view.game_id, token, seat: view.seat, state: null, busy: false});
    askRematch("GET").then(pollRematch);
  }
  const obs = view.observation;
  const winners = obs.players.filter((p) => (result.team !== null && result.team !== undefined
    ? obs.teams[p.seat] === result.team : p.seat === result.winner)).map((p) => p.seat);
  const order = obs.players.map((p) => p.seat)
    .sort((a, b) => (result.scores[b] ?? -1) - (result.scores[a] ?? -1));
  const headline = result.end === "draw" ? t("end.draw")
    : result.team !== null && result.team !== undefined ? t("end.team_wins", {team: result.team + 1})
    : winners.includes(view.seat) ? t("end.you_win") : t("end.wins", {who: playerLabel(obs, result.winner)});
  const tieBreak = result.tie_break;
  const parts = scoreParts(log);
  const shown = parts ? PARTS.filter((part) => part !== "six_gates" || parts.some((p) => p && p.six_gates)) : [];
  const heads = shown.map((part) => `glance.${part}`);  // "Scalps (points)": the parts are points
  mount(dialog.querySelector(".dialog-body"),
    h("h2", {id: "end-title"}, headline),
    h("p", {class: "muted"}, t(`end.reason_${result.end}`)),
    h("div", {class: "table-scroll"}, h("table", {class: "scores"},
      h("thead", {}, h("tr", {}, h("th", {}, t("end.player")), heads.map((key) => h("th", {class: "num"}, t(key))),
        h("th", {class: "num"}, t("glance.total")))),
      h("tbody", {}, order.map((seat) => h("tr", {class: winners.includes(seat) ? "winner" : ""},
        h("td", {}, h("span", {class: "swatch", style: `background:${seatColor(obs, seat)}`}),
          playerLabel(obs, seat),  // a word, not ★: that is the board's upgraded castle
          winners.includes(seat) ? h("span", {class: "badge winner-mark"}, t("end.winner_mark")) : null),
        shown.map((part) => h("td", {class: "num"}, parts[seat] ? parts[seat][part] : "—")),
        h("td", {class: "num"}, h("b", {}, result.scores[seat] === null ? t("game.eliminated") : result.scores[seat]))))))),
    parts ? h("p", {class: "muted"}, scoreFormula(), obs.six_gates ? ` ${sixGatesRule()}` : "") : null,
    Array.isArray(tieBreak) && tieBreak.length
      ? h("div", {class: "tie-break"}, h("h3", {}, t("end.tie_break")),
        h("ol", {}, tieBreak.map((sums) => h("li", {}, sums.join(" : ")))))
      : tieBreak && !Array.isArray(tieBreak) ? h("p", {class: "tie-break"}, t("end.tie_break"), ": ", JSON.stringify(tieBreak)) : null,
    h("p", {class: "muted"}, t("end.tie_rules")),
    h("section", {class: "end-chart", "aria-labelledby": "end-chart-title"},
      h("h3", {id: "end-chart-title"}, t("chart.title")), h("div", {id: "end-chart-body"}, chartBody(view))),
    h("section", {class: "end-analysis", "aria-labelledby": "end-analysis-title"},
      h("h3", {id: "end-analysis-title"}, t("analysis.title")), h("div", {id: "end-analysis-body"}, analysisPart(view))),
    h("p", {class: "end-links"}, h("a", {href: `/replay/${encodeURIComponent(view.game_id)}`, id: "end-replay"}, t("end.replay")),
      " · ", h("a", {href: `/api/games/${encodeURIComponent(view.game_id)}/record`, download: `${view.game_id}.json`},
        t("end.record")), " · ", h("a", {href: "/"}, t("nav.lobby"))),
    seated ? h("section", {class: "rematch", id: "rematch", "aria-live": "polite"}, rematchBody()) : null);
  byId("end-close").textContent = t("end.close");
  if (shownFor !== view.game_id) { shownFor = view.game_id; dialog.showModal(); }
}
