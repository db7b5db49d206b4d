// A game page: one seat (/play/{game}/{seat}) or a spectator (/watch/{game}). Every change
// arrives as a view over the WebSocket with the log entries made since the view before
// (docs/api.md); the page keeps the log and re-renders from the latest view and the log.

import {api, ApiError, GameSocket, seatToken} from "./api.js";
import {byId, h, mount, s, toast} from "./dom.js";
import {actionLabel, confirmAttack, renderActions, renderGift, tilesOfAction} from "./actions.js";
import {lastBattleStart, renderBattle} from "./battle.js";
import {renderBoard} from "./board.js";
import {renderEnd} from "./end.js";
import {setSeatRealms, t, term} from "./i18n.js";
import {renderLog} from "./logpanel.js";
import {chime} from "./sound.js";
import {renderCards, renderEvent, renderPhases, renderPlayers} from "./panels.js";

const game = {id: null, seat: null, token: null, view: null, summary: null, socket: null,
  autoTimer: null,  // the pending answer of a forced decision (maybeAutoAnswer)
  ui: {selected: null, selected2: null}, sending: false,
  gift: {ally: null, amount: 1},  // the "Give gold" control's choice, kept from view to view
  log: [],  // every log entry received, oldest first, by their index
  battle: null};  // the index of the battle_started entry picked in the log, or null: the latest

/** The game page's sections (the replay page shows the same board, panels and log). */
export function layout(root) {
  const legend = ["field", "forest", "mountain", "castle"].map((terrain) =>
    h("span", {class: "legend-item"},
      s("svg", {class: "legend-swatch", viewBox: "0 0 14 14", "aria-hidden": "true"},
        s("rect", {width: 14, height: 14, fill: `url(#pat-${terrain})`})),
      term(terrain)));
  mount(root, h("div", {class: "game", id: "game"},
    h("section", {class: "board-wrap"},
      h("div", {class: "game-title", id: "game-title"}),
      s("svg", {id: "board", role: "group", "aria-label": t("panel.board")}),
      h("div", {class: "legend"}, legend, h("span", {class: "legend-item"}, "★ ", t("board.upgraded_castle")),
        h("span", {class: "legend-item"}, "+ ", t("board.upgraded_unit")),
        h("span", {class: "legend-item"}, "● ○ ", t("board.capacity")))),
    h("div", {class: "column column-main"},
      h("section", {class: "panel", id: "actions"}),
      h("section", {class: "panel gift", id: "gift", hidden: true}),
      h("section", {class: "panel", id: "battle", hidden: true})),
    h("div", {class: "column column-info"},
      h("section", {class: "panel", id: "phases"}),
      h("section", {class: "panel", id: "players"}),
      h("section", {class: "panel", id: "event"}),
      h("section", {class: "panel", id: "cards", hidden: true}),
      h("section", {class: "panel", id: "log"}))));
}

function onTile(name) {
  const ui = game.ui;
  const legal = game.view?.legal || [];
  if (ui.selected === name) { ui.selected = null; ui.selected2 = null; }
  else if (ui.selected && legal.some((e) => tilesOfAction(e).includes(ui.selected) && tilesOfAction(e).includes(name))) {
    ui.selected2 = ui.selected2 === name ? null : name;
  } else { ui.selected = name; ui.selected2 = null; }
  render();
  const panel = byId("tile-actions");
  if (panel && window.matchMedia("(max-width: 760px)").matches) panel.scrollIntoView({block: "nearest"});
}

async function onAction(entry) {
  if (game.sending) return;
  if (entry.kind === "attack" || entry.kind === "volley") {
    const ok = await confirmAttack(entry, (game.view.odds || {})[entry.text]);
    if (!ok) return;
  }
  await sendAction(entry.text);
}

/** Send an action by its text: over the WebSocket, or over HTTP while the socket is down. A
 * gift ("gift <ally> <amount>") goes the same way, in anyone's turn (R23.11). */
async function sendAction(text) {
  if (game.sending) return;
  game.sending = true;
  byId("game")?.classList.add("sending");
  const message = {type: "action", action: text};
  if (!game.socket.send(message)) {
    try {
      const view = await api("POST", `/api/games/${encodeURIComponent(game.id)}/actions`,
        {token: game.token, body: {action: text, version: game.view.version}});
      onView(view);
    } catch (err) {
      onError({message: err.message, rule: err.rule});
    }
  }
}

/** What this seat decides now: a view with another key asks a new decision. Gifts (made by
 * anyone at any moment) change the version but not the decision. */
const decisionKey = (view) => (view ? [view.to_move, ...(view.legal || [])
  .filter((e) => e.kind !== "gift").map((e) => e.text)].join("\n") : null);

/**
 * Add a view's log entries: the whole log when log_since is -1, else the entries made after
 * version log_since, appended by index (an index already known is replaced). False when the
 * view's entries do not follow on from the log held (entries would be missing).
 */
function mergeLog(view) {
  const entries = view.log || [];
  if (view.log_since < 0) { game.log = entries.slice(); return true; }
  if (!game.view || view.log_since > game.view.version) return false;
  const last = game.log.length ? game.log[game.log.length - 1].index : -1;
  for (const entry of entries) {
    if (entry.index > last) { game.log.push(entry); continue; }
    const at = game.log.findIndex((e) => e.index === entry.index);
    if (at >= 0) game.log[at] = entry;
  }
  return true;
}

async function reload() {
  try { onView(await api("GET", `/api/games/${encodeURIComponent(game.id)}/view`, {token: game.token})); }
  catch (err) { onError({message: err.message}); }
}

function onView(view) {
  if (game.view && view.version < game.view.version) return;  // a late message
  const latestIndex = () => { const at = lastBattleStart(game.log); return at < 0 ? -1 : game.log[at].index; };
  const before = latestIndex();
  if (!mergeLog(view)) { reload(); return; }  // a gap: fetch the whole log again
  if (latestIndex() !== before) game.battle = null;  // a new battle shows itself at once
  // A new decision starts with a clear selection (a gift, by anyone, leaves it as it is).
  const newDecision = decisionKey(view) !== decisionKey(game.view);
  if (newDecision) game.ui = {selected: null, selected2: null};
  game.view = view;
  if (newDecision) announceTurn(view);
  game.sending = false;
  byId("game")?.classList.remove("sending");
  render();
  maybeAutoAnswer();
}

/** Whether this seat holds a decision now (gifts aside: they are open at any moment). */
const decides = (view) => Boolean(view?.your_turn && (view.legal || []).some((e) => e.kind !== "gift"));

/** A decision that becomes this seat's is announced: in the page title (seen from another
 * tab), to screen readers through the aria-live region, and by a chime if the seat wants one. */
const turnTitle = (view) => (decides(view) ? t("game.title_turn") : t("app.title"));

function announceTurn(view) {
  const mine = decides(view);
  document.title = turnTitle(view);
  if (mine) chime();
  const live = byId("announce");
  if (live) live.textContent = mine ? `${t("game.your_turn")}: ${t(`decision.${view.observation.pending.kind}`)}` : "";
}

function onError(error) {
  game.sending = false;
  byId("game")?.classList.remove("sending");
  toast(error.rule ? `${error.message} (${error.rule})` : error.message || t("game.error"), "error");
}

/** Re-rendering replaces elements; put keyboard focus back on the same tile, action or gift
 * control. */
function keepFocus(draw) {
  const focused = document.activeElement;
  const tile = focused?.dataset?.tile;
  const action = focused?.dataset?.action;
  const control = focused?.id && focused.closest("#gift") ? focused.id : null;
  draw();
  const again = tile ? document.querySelector(`#board [data-tile="${CSS.escape(tile)}"]`)
    : action ? document.querySelector(`#actions [data-action="${CSS.escape(action)}"]`)
      : control ? byId(control) : null;
  if (again) again.focus();
}

function render() {
  keepFocus(draw);
}

function draw() {
  const view = game.view;
  if (!view || !byId("board")) return;
  const obs = view.observation;
  setSeatRealms(obs.players.map((p) => p.realm));
  const legal = (view.legal || []).filter((e) => e.kind !== "gift");  // gifts: the gift control
  const actionable = new Set(legal.flatMap(tilesOfAction));
  const targets = new Set(game.ui.selected
    ? legal.filter((e) => tilesOfAction(e).includes(game.ui.selected)).flatMap(tilesOfAction)
      .filter((tile) => tile !== game.ui.selected) : []);
  // The version and whose turn it is, as attributes: handy for tests and for debugging.
  const root = byId("game");
  root.dataset.version = view.version;
  root.dataset.yourTurn = view.your_turn && legal.length > 0 ? "true" : "false";
  root.dataset.over = obs.result || view.result ? "true" : "false";
  mount(byId("game-title"),
    h("b", {}, game.summary?.name || game.id), " ",
    h("span", {class: "muted"}, view.seat === null ? t("game.spectator") : t("game.seat", {n: view.seat + 1})));
  renderBoard(byId("board"), obs, {selected: game.ui.selected, actionable, targets,
    battle: obs.battle ? [obs.battle.attacking_tile, obs.battle.defended_tile] : [], onTile});
  renderActions(byId("actions"), view, game.ui, {onAction, autoAnswer: {on: autoAnswerOn, set: setAutoAnswer}, clearSelection: () => {
    game.ui.selected = null; game.ui.selected2 = null; render(); }});
  renderGift(byId("gift"), view, game.gift, sendAction);
  renderBattle(byId("battle"), view, game.log, game.battle, () => { game.battle = null; render(); });
  renderPhases(byId("phases"), view, game.summary?.options?.phase_order);
  renderPlayers(byId("players"), view);
  renderEvent(byId("event"), view);
  renderCards(byId("cards"), view);
  renderLog(byId("log"), view, game.log, {onFilter: render, onBattle: (index) => {
    game.battle = index;
    render();
    byId("battle")?.scrollIntoView({block: "nearest"});
  }});
  renderEnd(view, game.log);
}

// A decision whose only answer is the seat's own "no magic card" or "pass" is answered by the
// page after a short, visible moment (issue 15; a setting, on by default). The engine still
// asks, so being asked tells the others nothing (R16.5).
const AUTO_KINDS = new Set(["nomagic", "pass"]);
const AUTO_DELAY_MS = 700;
const AUTO_KEY = "kaladan.autoAnswer";
const autoAnswerOn = () => localStorage.getItem(AUTO_KEY) !== "off";
const setAutoAnswer = (on) => localStorage.setItem(AUTO_KEY, on ? "on" : "off");

/** The view's only legal answer when it is a forced "no card" or "pass" of this seat. */
function forcedAnswer(view) {
  const legal = (view?.legal || []).filter((e) => e.kind !== "gift");
  return decides(view) && legal.length === 1 && AUTO_KINDS.has(legal[0].kind) ? legal[0] : null;
}

/** Answer a forced decision after the moment; checked again then, against the latest view (a
 * gift may have changed the version meanwhile, a click may have answered it already). */
function maybeAutoAnswer() {
  const only = forcedAnswer(game.view);
  if (game.autoTimer || !only || !autoAnswerOn()) return;
  toast(t("actions.auto", {what: actionLabel(only)}));  // the visible moment
  game.autoTimer = setTimeout(() => {
    game.autoTimer = null;
    const still = forcedAnswer(game.view);
    if (!still || game.sending || !autoAnswerOn()) return;
    const root = byId("game");
    if (root) root.dataset.autoAnswered = String(Number(root.dataset.autoAnswered || 0) + 1);
    sendAction(still.text);
  }, AUTO_DELAY_MS);
}

function setStatus(status) {
  const el = byId("conn");
  el.dataset.status = status;
  el.textContent = t(`conn.${status}`);
}

function fatal(message) {
  mount(byId("app"), h("section", {class: "panel fatal", id: "fatal"}, h("h2", {}, t("game.cannot_open")),
    h("p", {}, message), h("p", {}, h("a", {href: "/"}, t("nav.lobby")))));
}

/** Open a game page; seat is null for a spectator. */
export async function showGame(root, gameId, seat, code) {
  Object.assign(game, {id: gameId, seat, view: null, ui: {selected: null, selected2: null}, log: [], battle: null,
    gift: {ally: null, amount: 1}});
  // The game first: an unknown game says so, not that this browser holds no token for it.
  try { game.summary = await api("GET", `/api/games/${encodeURIComponent(gameId)}`); }
  catch (err) { fatal(err.status === 404 ? t("game.unknown") : err.message); return; }
  if (seat !== null && seat >= game.summary.players) { fatal(t("game.unknown")); return; }
  if (seat !== null) {
    try { game.token = await seatToken(gameId, seat, code); }
    catch (err) { fatal(err instanceof ApiError && err.status === 404 ? t("game.unknown") : err.message); return; }
    if (code) history.replaceState(null, "", `/play/${encodeURIComponent(gameId)}/${seat}`);
    if (!game.token) { fatal(t("game.no_token")); return; }
  }
  layout(root);
  try { onView(await api("GET", `/api/games/${encodeURIComponent(gameId)}/view`, {token: game.token})); }
  catch (err) { if (err.status === 403) { fatal(t("game.bad_token")); return; } }
  game.socket = new GameSocket(gameId, game.token, {onView, onError, onStatus: setStatus,
    onFatal: (codeNo) => fatal(codeNo === 4403 ? t("game.bad_token") : t("game.unknown"))});
}

/** Re-render after a language switch. */
export function rerenderGame(root) {
  if (!game.view) return;
  document.title = turnTitle(game.view);
  layout(root);
  render();
}
