// A game page: one seat (/play/{game}/{seat}) or a spectator (/watch/{game}). Every change
// arrives as a view over the WebSocket with the log entries made since the view before
// (docs/api.md); the page keeps the log and re-renders from the latest view and the log.

import {api, ApiError, currentSession, GameSocket, seatToken} from "./api.js";
import {byId, h, mount, s, toast} from "./dom.js";
import {actionLabel, confirmAttack, renderActions, renderGift, shortcutOf} from "./actions.js";
import {diceRolling, followBattle, lastBattleStart, noticeRolls, onDiceSettled} from "./battle.js";
import {renderBoard} from "./board.js";
import {loadChat, onChat, renderChat, setChatSocket, startChat} from "./chat.js";
import {moveTargets, options, pickAll, pickableSlots, pickedOn, swapAction, togglePick} from "./compose.js";
import {dragging, pressUnit} from "./drag.js";
import {renderEnd} from "./end.js";
import {renderHandOver, resetHandOver} from "./handover.js";
import {actionText, setSeatRealms, setViewer, t, term, unitName} from "./i18n.js";
import {chime} from "./sound.js";
import {playerLabel, renderCards} from "./panels.js";
import {needsConfirm, proposalFor, renderSafeBar, safeFirstButton, safeKeys} from "./safe.js";
import {resetSince, renderSince, sinceLegend, sinceLog, sinceNow, sinceSent} from "./since.js";
import {renderStory} from "./story.js";
import {fullView} from "./viewform.js";

const noSelection = () => ({selected: null, selected2: null, picked: []});
const game = {id: null, seat: null, token: null, view: null, world: null, summary: null, socket: null,
  autoTimer: null,  // the pending answer of a forced decision (maybeAutoAnswer)
  // selected, selected2: tiles; picked: [{tile, slot}] units picked on them (compose.js)
  ui: noSelection(), sending: false,
  all: {open: false, version: null, legal: null},  // the "All actions" list, fetched when opened
  odds: null,  // {version, odds}: the attacks' odds, fetched when an attack is considered
  hint: null,  // {version, action, odds}: the advice asked for (games with hints only)
  gift: {ally: null, amount: 1},  // the "Give gold" control's choice, kept from view to view
  log: [],  // every log entry received, oldest first, by their index
  battle: null,  // the index of the battle_started entry picked in the log, or null: the latest
  // The action waiting in the confirm bar (safe.js): null, {kind: "confirm", action, back} or
  // {kind: "choose", move, swap, back}; back: the element focused before the bar opened.
  proposal: null,
  landing: null};  // the version an action was sent from: its answer moves focus on (focusNext)

// Functions called after every drawing of the page with (view, log): the tutorial's guide
// (tutorial.js) follows the game through them.
const watchers = [];
export const watchGame = (watch) => { watchers.push(watch); };

/** The game page's sections (the replay page shows the same board, panels and log; the
 * chat and the marks of what others did, js/since.js, only on a game page). */
export function layout(root, {chat = false, since = false} = {}) {
  const legend = ["field", "forest", "mountain", "castle"].map((terrain) =>
    h("span", {class: "legend-item"},
      s("svg", {class: "legend-swatch", viewBox: "0 0 14 14", "aria-hidden": "true"},
        s("rect", {width: 14, height: 14, fill: `url(#pat-${terrain})`})),
      term(terrain)));
  // The log stands under the board, in the board's column: at desktop width it fills the
  // height the board leaves free, beside the actions rather than below the fold.
  mount(root, h("div", {class: "game", id: "game"},
    h("div", {class: "board-column"},
    h("section", {class: "board-wrap"},
      h("div", {class: "game-title", id: "game-title"}),
      s("svg", {id: "board", role: "group", "aria-label": t("panel.board")}),
      h("div", {class: "legend"}, legend, h("span", {class: "legend-item"}, "★ ", t("board.upgraded_castle")),
        h("span", {class: "legend-item"}, "+ ", t("board.upgraded_unit")),
        h("span", {class: "legend-item"}, "● ○ ", t("board.capacity")),
        h("span", {class: "legend-item"}, s("svg", {class: "legend-swatch", viewBox: "-8 -8 16 16", "aria-hidden": "true"},
          s("circle", {r: 6, class: "act-mark"})), t("board.can_act")), since ? sinceLegend() : null)),
    h("section", {class: "panel", id: "log"})),
    h("div", {class: "column column-main"},
      since ? h("div", {class: "since-bar", id: "since", hidden: true}) : null,
      h("section", {class: "panel safe-bar", id: "safe-bar", hidden: true, role: "region",
        "aria-labelledby": "safe-title"}),
      h("section", {class: "panel", id: "actions"}),
      h("section", {class: "panel gift", id: "gift", hidden: true}),
      h("section", {class: "panel", id: "battle", hidden: true})),
    h("div", {class: "column column-info"},
      h("section", {class: "panel", id: "phases"}),
      h("section", {class: "panel", id: "players"}),
      h("section", {class: "panel", id: "event"}),
      h("section", {class: "panel", id: "cards", hidden: true}),
      chat ? h("section", {class: "panel chat", id: "chat", "aria-label": t("chat.title")}) : null,
      chat ? h("section", {class: "panel handover", id: "handover", hidden: true}) : null)));
  if (chat) renderChat(byId("chat"));
}

/** A click on a tile: where the picked units go, the second tile of a swap, or the tile whose
 * actions to show (a second tile narrows them to actions naming both, e.g. an attack). */
function onTile(name) {
  const ui = game.ui;
  const view = game.view;
  if (!view) return;
  const picked = ui.selected ? pickedOn(view.observation, ui.picked, ui.selected) : [];
  const target = moveTargets(view, ui.selected, picked).find((m) => m.tile === name);
  if (target && !ui.selected2) { propose(target.action); return; }
  game.proposal = null;  // another pick: what the bar held is dropped, unsent
  const current = options(view, view.observation, ui);
  const legal = view.legal || [];
  if (current.partners.includes(name) && !ui.selected2) ui.selected2 = name;
  else if (ui.selected === name) game.ui = noSelection();
  else if (ui.selected && legal.some((e) => e.tiles.includes(ui.selected) && e.tiles.includes(name))) {
    ui.selected2 = ui.selected2 === name ? null : name;
  } else game.ui = {selected: name, selected2: null, picked: []};
  render();
  const panel = byId("compose") || byId("tile-actions");
  if (panel && window.matchMedia("(max-width: 760px)").matches) panel.scrollIntoView({block: "nearest"});
}

/** A click on a unit: pick or unpick it when it may be picked; units standing on a tile the
 * picked units may move to count as that tile. */
function onUnit(tile, slot) {
  const view = game.view;
  if (!view) return;
  const ui = game.ui;
  const picked = ui.selected ? pickedOn(view.observation, ui.picked, ui.selected) : [];
  const goes = tile !== ui.selected && tile !== ui.selected2 && moveTargets(view, ui.selected, picked).some((m) => m.tile === tile);
  if (!goes && pickableSlots(view, view.observation, tile).includes(slot)) {
    togglePick(view, ui, tile, slot);
    game.proposal = null;
    render();
  } else onTile(tile);
}

/** A press on a pickable unit may become a drag: the picked units of its tile (this one
 * included) go where they are dropped: onto a tile they may move to, or onto a unit of a
 * tile they may swap with (that unit and the units picked there come back). */
function onUnitDown(event, tile, slot) {
  const view = game.view;
  if (!view || game.sending) return;
  pressUnit(event, {
    onTap: () => onUnit(tile, slot),
    onStart: () => {
      game.proposal = null;
      renderSafe();
      const ui = game.ui;
      if (!ui.picked.some((p) => p.tile === tile && p.slot === slot)) {
        if (tile === ui.selected && !ui.selected2) ui.picked.push({tile, slot});
        else game.ui = {selected: tile, selected2: null, picked: [{tile, slot}]};
      }
      game.ui.selected2 = null;
      game.ui.picked = game.ui.picked.filter((p) => p.tile === tile);
      const units = pickedOn(view.observation, game.ui.picked, tile);
      markDragTargets(new Set(moveTargets(view, tile, units).map((m) => m.tile)), options(view, view.observation, game.ui).partners);
      return units.map((ref) => unitLabel(ref)).join(", ");
    },
    onEnd: (drop) => {
      const [first, second] = drop ? dropChoices(view, tile, drop) : [];
      if (second) openProposal({kind: "choose", move: first, swap: second});
      else if (first) propose(first);
      render();
    },
  });
}

/** The actions a drop may mean: [] , [one], or [move, swap] when it lands on a unit of a tile
 * the picked units may both move to and swap with (the page asks which). */
function dropChoices(view, from, drop) {
  const obs = view.observation;
  const units = pickedOn(obs, game.ui.picked, from);
  if (!drop.tile || drop.tile === from) return [];
  let swap = null;
  if (drop.slot !== null) {
    const there = game.ui.picked.filter((p) => p.tile === drop.tile).map((p) => p.slot);
    const slots = there.includes(drop.slot) ? there : [drop.slot];
    swap = swapAction(view, from, units, drop.tile, slots.map((i) => obs.board[drop.tile][i]));
  }
  const move = moveTargets(view, from, units).find((m) => m.tile === drop.tile)?.action || null;
  return [move, swap].filter(Boolean);
}

/** Send `action` at once, or first show it in the confirm bar when it cannot be taken back. */
function propose(action) {
  if (needsConfirm(action)) openProposal({kind: "confirm", action});
  else sendAction(action);
}

function openProposal(proposal) {
  const back = game.proposal?.back || document.activeElement;
  game.proposal = {...proposal, back};
  renderSafe();
  safeFirstButton()?.focus();
}

/** Drop the proposal: nothing is sent; focus goes back where it was (or to the decision). */
function cancelProposal() {
  const back = game.proposal?.back;
  game.proposal = null;
  if (back?.isConnected && back !== document.body) back.focus();
  render();  // keepFocus finds the same tile, toggle or button again
  if (!document.activeElement || document.activeElement === document.body) focusNext();
}

function sendProposed(action) {
  game.proposal = null;
  renderSafe();
  sendAction(action);
}

const safeHandlers = {send: sendProposed, cancel: cancelProposal};
const renderSafe = () => renderSafeBar(byId("safe-bar"), game.proposal, safeHandlers);

/** The page's keys: while the confirm bar is open, Enter sends and Esc cancels (safe.js);
 * otherwise Esc clears the selection on the board, and a quick answer's key (actions.js
 * shortcutOf: Pass, Done, No magic card) puts that answer in the confirm bar, so a stray key
 * press sends nothing. */
function onKey(event) {
  if (!byId("game")) return;
  if (game.proposal) { safeKeys(event, game.proposal, safeHandlers); return; }
  if (event.defaultPrevented || event.isComposing) return;
  if (event.target?.closest?.("input, textarea, select, dialog, [contenteditable]")) return;
  if (event.key === "Escape") {
    if (!game.ui.selected) return;
    game.ui = noSelection();
    render();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey || game.sending || !decides(game.view)) return;
  const entry = (game.view.legal || []).find((e) => shortcutOf(e) === event.key.toLowerCase());
  if (!entry) return;
  event.preventDefault();
  openProposal({kind: "confirm", action: entry});
}
let keysOn = false;

/** Focus the decision the seat holds now (or what it waits for): the actions panel's title,
 * from which the next Tab reaches its first control. The title, not a button: a stray Enter
 * must not answer the decision. */
function focusNext() {
  const title = byId("actions")?.querySelector("h2");
  if (!title) return;
  title.setAttribute("tabindex", "-1");
  title.focus();
}

/** During a drag the board is not drawn again (that would drop the pressed element): the
 * targets are marked on the tiles as they are. */
function markDragTargets(targets, partners) {
  for (const el of document.querySelectorAll("#board .tile")) {
    el.classList.toggle("target", targets.has(el.dataset.tile));
    el.classList.toggle("swap-target", partners.includes(el.dataset.tile));
  }
}

const unitLabel = (ref) => unitName(ref.slice(ref.indexOf("/") + 1));

/** Ask for advice: what the greedy bot would do from this seat's view (docs/api.md "Hints"). */
async function onHint() {
  try {
    game.hint = await api("GET", `/api/games/${encodeURIComponent(game.id)}/hint`, {token: game.token});
  } catch (err) { onError({message: err.message}); return; }
  render();
}

/** Open or close the "All actions" list; open, it holds the server's whole list. */
async function onAllToggle(open) {
  game.all.open = open;
  render();
  if (open) await fetchAll();
}

async function fetchAll() {
  const version = game.view?.version;
  if (!game.all.open || game.all.version === version || !game.token) return;
  try {
    const whole = await api("GET", `/api/games/${encodeURIComponent(game.id)}/legal`, {token: game.token});
    if (whole.version === game.view?.version) Object.assign(game.all, {version: whole.version, legal: whole.legal});
  } catch (err) { onError({message: err.message}); return; }
  render();
}

async function onAction(entry) {
  if (game.sending) return;
  if (entry.kind === "attack" || entry.kind === "volley") {  // the odds dialog is its confirmation
    game.proposal = null;
    renderSafe();
    const ok = await confirmAttack(entry, (await attackOdds())[String(entry.index)]);
    if (!ok) return;
    await sendAction(entry);
    return;
  }
  propose(entry);
}

/** The exact odds of the seat's attacks now, asked for once per version (not in views). */
async function attackOdds() {
  const version = game.view.version;
  if (game.odds?.version !== version) {
    try {
      const asked = await api("GET", `/api/games/${encodeURIComponent(game.id)}/odds`, {token: game.token});
      game.odds = {version, odds: asked.by_index};  // by the attack's index in the legal list
    } catch { return {}; }  // the dialog says the odds are not available
  }
  return game.odds.odds;
}

/** Send an action: a legal action of the view by its index in the legal list, one composed
 * on the page (a move or swap of picked units, a gift: {kind, args, text}) by its text; over
 * the WebSocket, or over HTTP while the socket is down. A gift goes the same way, in anyone's
 * turn (R23.11). Every action carries the version of the view it was made from, so a second
 * send of it (a double click, a resend after a reconnect) is refused as 409 stale_version
 * instead of being taken for the next decision. */
async function sendAction(action, {auto = false} = {}) {
  if (game.sending) return;
  if (!auto) sinceSent(game.log, action);  // the page's own forced answer is no decision
  game.sending = true;
  byId("game")?.classList.add("sending");
  const version = game.view.version;
  game.landing = version;
  const what = Number.isInteger(action.index) ? {index: action.index}
    : {action: action.text ?? actionText(action.kind, action.args)};
  const body = {...what, version};
  if (!game.socket.send({type: "action", ...body})) {
    try {
      const view = await api("POST", `/api/games/${encodeURIComponent(game.id)}/actions`,
        {token: game.token, body});
      onView(view);
    } catch (err) {
      onError({message: err.message, rule: err.rule, code: err.code});
    }
  }
}

/** What this seat decides now: a view with another key asks a new decision. Gifts (made by
 * anyone at any moment) change the version but not the decision. */
const decisionKey = (view) => (view ? JSON.stringify([view.to_move, view.moves, view.swaps,
  (view.legal || []).filter((e) => e.kind !== "gift").map((e) => [e.kind, e.args])]) : null);

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
  fullView(view);  // the compact legal form, named (docs/api.md "Legal actions")
  // The world never changes: only a view with the whole log carries it (docs/api.md).
  if (view.observation.world) game.world = view.observation.world;
  else if (game.world) view.observation.world = game.world;
  else { reload(); return; }
  const latestIndex = () => { const at = lastBattleStart(game.log); return at < 0 ? -1 : game.log[at].index; };
  const before = latestIndex();
  if (!mergeLog(view)) { reload(); return; }  // a gap: fetch the whole log again
  sinceLog(game.log, view.log_since < 0, view.observation);
  if (latestIndex() !== before) game.battle = null;  // a new battle shows itself at once
  // A new decision starts with a clear selection (a gift, by anyone, leaves it as it is).
  const newDecision = decisionKey(view) !== decisionKey(game.view);
  game.proposal = newDecision ? null : proposalFor(view, game.proposal);
  if (newDecision) game.ui = noSelection();
  game.view = view;
  if (newDecision) announceTurn(view);
  game.sending = false;
  byId("game")?.classList.remove("sending");
  const landed = game.landing !== null && view.version > game.landing;
  if (landed) game.landing = null;
  render();
  // After the seat's action lands, or when a new decision finds focus lost (its element
  // redrawn away), focus moves on to the decision now held.
  const lost = !document.activeElement || document.activeElement === document.body;
  if (landed || (newDecision && lost)) focusNext();
  followBattle();  // on a phone the battle's result, below the decision, comes into view
  fetchAll();
  maybeAutoAnswer();
}

/** Whether this seat holds a decision now (gifts aside: they are open at any moment). */
const decides = (view) => Boolean(view?.your_turn && ((view.legal || []).some((e) => e.kind !== "gift")
  || (view.moves || []).length || (view.swaps || []).length));

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
  if (error.code === "seat_moved") { seatMoved(); return; }
  game.sending = false;
  game.landing = null;
  byId("game")?.classList.remove("sending");
  toast(error.rule ? `${error.message} (${error.rule})` : error.message || t("game.error"), "error");
}

/** Re-rendering replaces elements; put keyboard focus back on the same tile, unit toggle,
 * action, compose or gift control. */
function keepFocus(draw) {
  const focused = document.activeElement;
  const toggle = focused?.classList?.contains("unit-toggle")
    ? `#compose .unit-toggle[data-tile="${CSS.escape(focused.dataset.tile)}"][data-slot="${focused.dataset.slot}"]` : null;
  const tile = focused?.dataset?.tile;
  const action = focused?.dataset?.action;
  const control = focused?.id && (focused.closest("#gift") || focused.closest("#compose")
    || focused.closest("#safe-bar")) ? focused.id : null;
  const title = focused?.tagName === "H2" && focused.parentElement?.id === "actions";
  draw();
  const again = toggle ? document.querySelector(toggle)
    : tile ? document.querySelector(`#board [data-tile="${CSS.escape(tile)}"]`)
      : control ? byId(control)
        : action ? document.querySelector(`#actions [data-action="${CSS.escape(action)}"]`)
          : title ? byId("actions").querySelector("h2") : null;
  if (title && again) again.setAttribute("tabindex", "-1");
  if (again) again.focus({preventScroll: true});  // the same place: the page does not jump
}

// The decisions that follow a battle's roll: not offered while its dice tumble.
const AFTER_ROLL = new Set(["casualty", "split"]);
onDiceSettled(() => render());

function render() {
  if (dragging()) return;  // drawn when the drag ends
  keepFocus(draw);
}

function draw() {
  const view = game.view;
  if (!view || !byId("board")) return;
  const obs = view.observation;
  setSeatRealms(obs.players.map((p) => p.realm));
  setViewer(view.seat);
  const legal = (view.legal || []).filter((e) => e.kind !== "gift");  // gifts: the gift control
  const ui = game.ui;
  const actionable = new Set([...legal.flatMap((e) => e.tiles), ...(view.moves || []).map((m) => m.from),
    ...(view.swaps || []).flatMap((p) => p.tiles)]);
  const composed = options(view, obs, ui);
  const targets = new Set(composed.mine.length ? composed.targets.map((m) => m.tile) : ui.selected
    ? legal.filter((e) => e.tiles.includes(ui.selected)).flatMap((e) => e.tiles).filter((tile) => tile !== ui.selected) : []);
  const slots = new Map();
  const pickable = (tile) => {
    if (!slots.has(tile)) slots.set(tile, new Set(pickableSlots(view, obs, tile)));
    return slots.get(tile);
  };
  // New dice tumble first: a decision that follows them (casualties) is offered once they
  // have settled (battle.js; no wait under reduced motion).
  noticeRolls(game.log);
  const waitDice = decides(view) && diceRolling() && AFTER_ROLL.has(obs.pending?.kind);
  // The version and whether the seat can answer now, as attributes: handy for tests and for
  // debugging ("true" once its controls are offered, after the dice have settled).
  const root = byId("game");
  root.dataset.version = view.version;
  root.dataset.yourTurn = decides(view) && !waitDice ? "true" : "false";
  root.dataset.over = obs.result || view.result ? "true" : "false";
  mount(byId("game-title"),
    h("b", {}, game.summary?.name || game.id), " ",
    h("span", {class: "muted"}, view.seat === null ? t("game.spectator") : t("game.seat", {n: view.seat + 1})));
  const hinted = game.hint?.version === view.version ? game.hint.action.tiles : [];
  const since = sinceNow(game.log, view, decides(view) && !(forcedAnswer(view) && autoAnswerOn()));
  renderSince(byId("since"), since, obs);
  renderBoard(byId("board"), obs, {selected: ui.selected, actionable, targets, hinted: new Set(hinted),
    swapTargets: new Set(ui.selected2 ? [ui.selected2] : composed.partners),
    battle: obs.battle ? [obs.battle.attacking_tile, obs.battle.defended_tile] : [], onTile, since: since.board,
    pickable: view.your_turn && !waitDice ? pickable : () => new Set(),
    picked: (tile, slot) => ui.picked.some((p) => p.tile === tile && p.slot === slot), onUnit, onUnitDown});
  const again = () => { game.proposal = null; render(); };  // a new pick drops what the bar held
  renderActions(byId("actions"), view, ui, {onAction, waitDice, autoAnswer: {on: autoAnswerOn, set: setAutoAnswer},
    clearSelection: () => { game.ui = noSelection(); game.proposal = null; render(); },
    all: game.all, onAllToggle,
    hint: game.summary?.hints && view.seat !== null ? {shown: game.hint, ask: onHint} : null,
    compose: {
      toggle: (tile, slot) => { togglePick(view, game.ui, tile, slot); again(); },
      all: () => { pickAll(view, obs, game.ui); again(); },
      clear: () => { game.ui.picked = []; game.ui.selected2 = null; again(); },
      second: (tile) => { game.ui.selected2 = tile; again(); },
      send: propose, onUnitAction: onAction,
      label: actionLabel,
    }});
  renderSafe();
  renderGift(byId("gift"), view, game.gift, sendAction);
  renderStory(view, game, render);
  renderCards(byId("cards"), view);
  renderEnd(view, game.log, {token: game.token});
  renderHandOver(byId("handover"), view, handOver);
  for (const watch of watchers) watch(view, game.log);
}

// The hand-over panel's hold on the page (handover.js): where to ask, and what to do when the
// seat has moved.
const handOver = {
  ask: () => api("POST", `/api/games/${encodeURIComponent(game.id)}/seats/${game.seat}/handover`,
    {token: game.token}),
  moved: () => seatMoved(),
};

/** This device no longer plays the seat: another device joined with the hand-over link. */
function seatMoved() {
  if (game.socket) game.socket.close();
  game.token = null;
  mount(byId("app"), h("section", {class: "panel fatal", id: "fatal", "data-reason": "seat_moved"},
    h("h2", {}, t("handover.moved_title")),
    h("p", {}, t("handover.moved", {n: game.seat + 1})),
    h("p", {}, h("a", {href: `/watch/${encodeURIComponent(game.id)}`}, t("handover.watch")), " · ",
      h("a", {href: "/"}, t("nav.lobby")))));
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
  const grouped = (view?.moves || []).length + (view?.swaps || []).length;
  return decides(view) && !grouped && legal.length === 1 && AUTO_KINDS.has(legal[0].kind) ? legal[0] : null;
}

/** Answer a forced decision after the moment; checked again then, against the latest view (a
 * gift may have changed the version meanwhile, a click may have answered it already). */
function maybeAutoAnswer() {
  const only = forcedAnswer(game.view);
  if (game.autoTimer || !only || !autoAnswerOn()) return;
  toast(t("actions.auto", {what: actionLabel(only)}));  // the visible moment
  // While the answer is pending, #game says so (data-auto-answering): a test that plays by
  // clicking leaves the decision to the page instead of racing it.
  const pending = byId("game");
  if (pending) pending.dataset.autoAnswering = "true";
  game.autoTimer = setTimeout(() => {
    game.autoTimer = null;
    const root = byId("game");
    if (root) delete root.dataset.autoAnswering;
    const still = forcedAnswer(game.view);
    if (!still || game.sending || !autoAnswerOn()) return;
    if (root) root.dataset.autoAnswered = String(Number(root.dataset.autoAnswered || 0) + 1);
    sendAction(still, {auto: true});
  }, AUTO_DELAY_MS);
}

function setStatus(status) {
  if (status === "online") loadChat();  // what was said while the socket was away
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
  Object.assign(game, {id: gameId, seat, view: null, world: null, ui: noSelection(), log: [], battle: null,
    proposal: null, landing: null,
    gift: {ally: null, amount: 1}, all: {open: false, version: null, legal: null}});
  resetHandOver();
  // The game first: an unknown game says so, not that this browser holds no token for it.
  try { game.summary = await api("GET", `/api/games/${encodeURIComponent(gameId)}`); }
  catch (err) { fatal(err.status === 404 ? t("game.unknown") : err.message); return; }
  if (seat !== null && seat >= game.summary.players) { fatal(t("game.unknown")); return; }
  if (seat !== null) {
    try { game.token = await seatToken(gameId, seat, code); }
    catch (err) {
      fatal(err instanceof ApiError && err.status === 404 ? t("game.unknown")
        // a join link used before, on another device: numbered as the lobby numbers seats
        : err.code === "already_joined" ? t("game.already_joined", {n: seat + 1}) : err.message);
      return;
    }
    if (code) history.replaceState(null, "", `/play/${encodeURIComponent(gameId)}/${seat}`);
    // a signed-in player's own seat needs no token: the session stands for it
    const mine = currentSession() && game.summary.seats[seat].player === currentSession().name;
    if (!game.token && !mine) { fatal(t("game.no_token")); return; }
  }
  startChat({gameId, seat, token: game.token,
    names: (at) => (at !== null && game.view ? playerLabel(game.view.observation, at) : "")});
  resetSince();
  layout(root, {chat: true, since: true});
  if (!keysOn) { document.addEventListener("keydown", onKey, true); keysOn = true; }
  try { onView(await api("GET", `/api/games/${encodeURIComponent(gameId)}/view`, {token: game.token})); }
  catch (err) {
    if (err.code === "seat_moved") { seatMoved(); return; }
    if (err.status === 403) { fatal(t("game.bad_token")); return; }
  }
  game.socket = new GameSocket(gameId, game.token, {onView, onError, onStatus: setStatus, onChat,
    onFatal: (codeNo, why) => (why === "seat_moved" ? seatMoved()
      : fatal(codeNo === 4403 ? t("game.bad_token") : t("game.unknown")))});
  setChatSocket(game.socket);
}

/** Re-render after a language switch. */
export function rerenderGame(root) {
  if (!game.view) return;
  document.title = turnTitle(game.view);
  layout(root, {chat: true, since: true});
  render();
}
