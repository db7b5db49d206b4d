// The replay page (/replay/{game_id}): a finished game told again decision by decision, as a
// spectator saw it (GET /api/games/{id}/replay/{version}, docs/api.md "Replays and round
// figures"), on the game page's board, panels, battle view and log. Step forward and back,
// jump to a round's start or to any decision. Under the controls the game round by round
// (chart.js) and, once opened, every seat's chance to win with its costliest decisions
// (winchart.js), each a way to jump there.

import {api} from "./api.js";
import {byId, h, mount, toast} from "./dom.js";
import {renderBoard} from "./board.js";
import {renderChart} from "./chart.js";
import {analysisBody} from "./winchart.js";
import {layout} from "./game.js";
import {renderStory} from "./story.js";
import {setSeatRealms, t} from "./i18n.js";

const replay = {id: null, summary: null, rounds: [], shown: null, log: [], battle: null,
  target: 0,  // the version asked for; shown.version follows once it has arrived
  loading: false, chart: {metric: "score"},
  analysis: false};  // the analysis asked for (when its part is first opened: seconds of work)

const path = (version, since) => `/api/games/${encodeURIComponent(replay.id)}/replay/${version}`
  + (since === null ? "" : `?since=${since}`);

/** Show version `version` (clamped to the game): one step forward appends the entries of that
 * decision; any other move fetches the log up to there. */
async function go(version) {
  replay.target = Math.max(0, Math.min(version, replay.shown ? replay.shown.last : version));
  if (replay.loading) return;  // the loop below goes on to the newest target
  replay.loading = true;
  try {
    while (!replay.shown || replay.shown.version !== replay.target) {
      const from = replay.shown?.version;
      const forward = from !== undefined && replay.target === from + 1;
      const shown = await api("GET", path(replay.target, forward ? from : null));
      replay.log = forward ? replay.log.concat(shown.log) : shown.log;
      replay.shown = shown;
      replay.battle = null;
    }
  } catch (err) {
    toast(err.message, "error");
    if (replay.shown) replay.target = replay.shown.version;
  } finally {
    replay.loading = false;
  }
  render();
}

/** The round being played at `version`: the last round whose start is at or before it. */
function roundAt(version) {
  let round = null;
  for (const item of replay.rounds) if (item.round !== null && item.version <= version) round = item.round;
  return round;
}

function controls(shown) {
  const {version, last} = shown;
  const button = (id, label, text, to, disabled) => h("button", {type: "button", id, "aria-label": label,
    title: label, disabled: disabled || null, onclick: () => go(to)}, text);
  const round = roundAt(version);
  return [
    h("h2", {}, t("replay.title")),
    h("p", {class: "replay-where", id: "replay-where"},
      t("replay.decision", {n: version, last}), round === null ? "" : ` · ${t("replay.round", {n: round})}`),
    h("div", {class: "buttons replay-steps"},
      button("replay-first", t("replay.first"), "|◀", 0, version === 0),
      button("replay-back", t("replay.back"), "◀", version - 1, version === 0),
      button("replay-forward", t("replay.forward"), "▶", version + 1, version === last),
      button("replay-last", t("replay.last"), "▶|", last, version === last)),
    h("label", {class: "replay-jump", for: "replay-round"}, h("span", {}, t("replay.jump")),
      h("select", {id: "replay-round", onchange: (e) => go(Number(e.target.value))},
        h("option", {value: "", selected: true, disabled: true}, "—"),
        replay.rounds.map((item) => h("option", {value: item.version},
          item.round === null ? t("chart.end") : t("replay.round", {n: item.round}))))),
    h("label", {class: "replay-slider", for: "replay-version"}, h("span", {class: "visually-hidden"}, t("replay.decision_label")),
      h("input", {id: "replay-version", type: "range", min: 0, max: last, value: version,
        onchange: (e) => go(Number(e.target.value))})),
    replay.rounds.length ? h("details", {class: "replay-chart"}, h("summary", {}, t("chart.title")),
      renderChart(replay.rounds, shown.observation, replay.chart, (metric) => { replay.chart.metric = metric; render(); })) : null,
    h("details", {class: "replay-analysis", ontoggle: (e) => {
      if (e.target.open && !replay.analysis) { replay.analysis = true; render(); }
    }}, h("summary", {}, t("analysis.title")),
    replay.analysis ? analysisBody(replay.id, shown.observation, {redraw: render, current: version, onJump: go}) : null),
    h("p", {}, h("a", {href: "/"}, t("nav.lobby")))];
}

/** Re-rendering replaces the controls: keep keyboard focus on the same one. */
function render() {
  const focused = document.activeElement?.id;
  const open = [".replay-chart", ".replay-analysis"].filter((part) => document.querySelector(part)?.open);
  draw();
  for (const part of open) document.querySelector(part).open = true;
  const again = focused && byId(focused);
  if (again) again.focus();
}

function draw() {
  const shown = replay.shown;
  if (!shown || !byId("board")) return;
  const obs = shown.observation;
  setSeatRealms(obs.players.map((p) => p.realm));
  // The panels take a view: this is a spectator's, with nobody's decision to make.
  const view = {game_id: replay.id, seat: null, version: shown.version, observation: obs, your_turn: false,
    legal: [], to_move: obs.phase === "over" ? null : obs.pending.seat, result: null, score: shown.score};
  const root = byId("game");
  root.classList.add("replay");
  root.dataset.version = shown.version;
  root.dataset.last = shown.last;
  mount(byId("game-title"), h("b", {}, replay.summary.name || replay.id), " ",
    h("span", {class: "muted"}, t("replay.title")));
  // A replay composes nothing: no unit is pickable and clicks and presses do nothing.
  renderBoard(byId("board"), obs, {selected: null, actionable: new Set(), targets: new Set(),
    battle: obs.battle ? [obs.battle.attacking_tile, obs.battle.defended_tile] : [],
    onTile: () => {}, onUnit: () => {}, onUnitDown: () => {}});
  mount(byId("actions"), controls(shown));
  renderStory(view, replay, render);
}

/** Step with the arrow keys, unless a control that uses them has the focus. */
function onKey(event) {
  if (!replay.shown || event.target.closest?.("select, input, textarea")) return;
  if (event.key === "ArrowRight") go(replay.target + 1);
  else if (event.key === "ArrowLeft") go(replay.target - 1);
}

function fatal(message) {
  mount(byId("app"), h("section", {class: "panel fatal", id: "fatal"}, h("h2", {}, t("game.cannot_open")),
    h("p", {}, message), h("p", {}, h("a", {href: "/"}, t("nav.lobby")))));
}

/** Open the replay page of a finished game, at its start. */
export async function showReplay(root, gameId) {
  Object.assign(replay, {id: gameId, shown: null, log: [], battle: null, target: 0, analysis: false});
  try {
    replay.summary = await api("GET", `/api/games/${encodeURIComponent(gameId)}`);
    replay.rounds = (await api("GET", `/api/games/${encodeURIComponent(gameId)}/rounds`)).rounds;
  } catch (err) {
    fatal(err.status === 404 ? t("game.unknown") : err.status === 409 ? t("replay.not_over") : err.message);
    return;
  }
  layout(root);
  byId("gift").hidden = true;
  document.addEventListener("keydown", onKey);
  await go(0);
}

/** Re-render after a language switch. */
export function rerenderReplay(root) {
  if (!replay.shown) return;
  layout(root);
  byId("gift").hidden = true;
  render();
}
