// "Learn to play" (/tutorial, issue 40): a first game on a small world against the greedy
// bot, with a guide. The game is a real one: the page creates it from the definition in
// static/data/tutorial.json (a POST /api/games body with a fixed seed, so the cards and dice
// are known in advance), then opens the learner's seat on the normal game page. There the
// guide, a panel above the actions, says what to do next and why, points at the tiles and
// buttons to use, and moves on when the log shows the step done: a move, an attack (after
// the odds dialog), a magic card, the battle, a purchase. A learner who does something else
// is told so; every step is done by any action of its kind, so the guide never gets stuck.

import {api} from "./api.js";
import {byId, h, mount} from "./dom.js";
import {cardName, t} from "./i18n.js";
import {watchGame} from "./game.js";

const KEY = "kaladan.tutorial";  // sessionStorage: {game, seat, read: [step ids read]}
let definition = null;

async function loadDefinition() {
  if (!definition) {
    const response = await fetch("/static/data/tutorial.json");
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    definition = await response.json();
  }
  return definition;
}

const stored = () => { try { return JSON.parse(sessionStorage.getItem(KEY)) || null; } catch { return null; } };
const store = (value) => sessionStorage.setItem(KEY, JSON.stringify(value));

/** Whether this browser tab opened seat `seat` of game `gameId` as its tutorial. */
export const isTutorial = (gameId, seat) => stored()?.game === gameId && stored()?.seat === seat;

/** /tutorial: create the first game and open the learner's seat. */
export async function showTutorial(root) {
  mount(root, h("section", {class: "panel tutorial-start", id: "tutorial-start", "aria-busy": "true"},
    h("h1", {}, t("tutorial.title")), h("p", {}, t("tutorial.creating"))));
  try {
    const tutorial = await loadDefinition();
    const created = await api("POST", "/api/games", {body: {...tutorial.game, name: t("tutorial.game_name")}});
    const seat = created.join.find((link) => link.seat === tutorial.learner);
    store({game: created.game_id, seat: tutorial.learner, read: []});
    location.replace(seat.url);
  } catch (err) {
    mount(root, h("section", {class: "panel tutorial-start", id: "tutorial-start"},
      h("h1", {}, t("tutorial.title")), h("p", {class: "error", role: "alert"}, t("tutorial.failed"), " ", err.message),
      h("p", {}, h("a", {href: "/"}, t("nav.lobby")))));
  }
}

// --- the guide on the game page ------------------------------------------------------------

const mine = (seat, kinds) => (e) => kinds.includes(e.kind) && e.seat === seat;

// Whether a step is done, from the log entries the learner may read; by step id. Any action
// of the step's kind does, the suggested one or another.
const DONE = {
  move: (log, seat) => log.some((e) => e.kind === "moved" && e.seat === seat && e.cause === "action"),
  attack: (log, seat) => log.some((e) => e.kind === "battle_started" && e.attacker === seat),
  magic: (log, seat) => log.some(mine(seat, ["card_committed", "card_revealed"]))
    || log.some((e) => e.kind === "no_card" && e.seat === seat),
  battle: (log, seat, read) => read.includes("battle") && Boolean(ownBattle(log, seat)),
  purchase: (log, seat) => log.some(mine(seat, ["bought", "fortified", "card_traded"]))
    || log.some((e) => e.kind === "upgraded" && e.seat === seat && e.cause === "purchase"),
};

/** The end of the learner's first attack (the battle the guide explains), if it is over. */
const ownBattle = (log, seat) => log.find((e) => e.kind === "battle_ended" && e.attacker === seat);

/** Whether the learner went another way than the guide suggested (judged from the log). */
function offPlan(log, seat, steps) {
  const suggested = Object.fromEntries(steps.map((step) => [step.id, step]));
  const moved = log.find((e) => e.kind === "moved" && e.seat === seat && e.cause === "action");
  const attacked = log.find((e) => e.kind === "battle_started" && e.attacker === seat);
  const kept = log.some((e) => e.kind === "no_card" && e.seat === seat);
  const ended = ownBattle(log, seat);
  const lost = Boolean(ended) && ended.result !== "attacker_won";  // the tile to buy on is not won
  return Boolean((moved && !sameTiles(suggested.move, [moved.src, moved.dst]))
    || (attacked && !sameTiles(suggested.attack, [attacked.a_tile, attacked.d_tile])) || kept || lost);
}

const sameTiles = (step, tiles) => !step || step.tiles.join(" ") === tiles.join(" ");

const guide = {game: null, seat: null, view: null, log: [], closed: false, sendMarked: false};

/** Follow the learner's game (seat `seat` of `gameId`) with the guide panel. */
export function guideGame(gameId, seat) {
  Object.assign(guide, {game: gameId, seat, view: null, log: [], closed: false});
  watchGame((view, log) => { guide.view = view; guide.log = log; drawGuide(); });
  loadDefinition().then(drawGuide, () => {});
  watchOdds();
}

/** The odds dialog is the attack's confirmation: while it is open the guide says so. */
function watchOdds() {
  const dialog = byId("confirm");
  if (!dialog) return;
  new MutationObserver(() => drawGuide()).observe(dialog, {attributes: true, attributeFilter: ["open"]});
}

// The confirm bar opens without the page being drawn again (a composed move or purchase):
// its Send is pointed at as it appears, while the step's decision is the learner's.
const watchedBars = new WeakSet();

function watchSafeBar() {
  const bar = byId("safe-bar");
  if (!bar || watchedBars.has(bar)) return;
  watchedBars.add(bar);
  new MutationObserver(markSend).observe(bar, {childList: true});
}

function markSend() {
  const send = byId("safe-send");
  if (send && guide.sendMarked && !send.classList.contains("tutorial-mark")) send.classList.add("tutorial-mark");
}

/** The odds dialog is modal (the page behind it is out of reach, and on a phone out of
 * sight): the guide's words about the odds go into it as well. */
function noteInDialog(text) {
  const body = byId("confirm")?.querySelector(".dialog-body");
  if (!body || byId("tutorial-odds")) return;
  body.append(h("p", {class: "tutorial-aside", id: "tutorial-odds"}, text));
}

/** Whether the odds the dialog shows favour the attack (an even chance or better). */
function oddsVerdict() {
  const shown = byId("confirm")?.querySelector("[data-odds]");
  if (!shown) return "";
  return t(Number(shown.dataset.odds) >= 0.5 ? "tutorial.odds_good" : "tutorial.odds_poor");
}

function markRead(id) {
  const now = stored() || {game: guide.game, seat: guide.seat, read: []};
  if (!now.read.includes(id)) now.read.push(id);
  store(now);
  drawGuide();
}

/** How the learner's first attack went: the tile taken, or the defender held it. */
function battleResult(log, seat) {
  const ended = ownBattle(log, seat);
  if (!ended) return "";
  return t(ended.result === "attacker_won" ? "tutorial.battle_taken" : "tutorial.battle_lost");
}

/** The guide's words for a step, with its suggestion (and the battle's outcome) filled in. */
function stepText(step) {
  const [from, to] = step.tiles;
  const card = step.card ? cardName(step.card) : "";
  return t(`tutorial.step_${step.id}`, {from: from || "", to: to || "", card,
    result: battleResult(guide.log, guide.seat)});
}

function drawGuide() {
  const view = guide.view;
  const tutorial = definition;
  const column = document.querySelector("#game .column-main");
  if (!view || !tutorial || !column || guide.closed) return;
  let panel = byId("tutorial-guide");
  if (!panel) {
    panel = h("section", {class: "panel tutorial-guide", id: "tutorial-guide", role: "region",
      "aria-labelledby": "tutorial-title", "aria-live": "polite"});
    column.prepend(panel);
  }
  const seat = guide.seat;
  const read = stored()?.read || [];
  const steps = tutorial.steps;
  const at = steps.findIndex((step) => !DONE[step.id](guide.log, seat, read));
  const step = at < 0 ? null : steps[at];
  panel.dataset.step = step ? step.id : "done";
  document.querySelectorAll(".tutorial-mark").forEach((el) => el.classList.remove("tutorial-mark"));
  if (!step) {
    if (panel.dataset.shown === "done") return;
    panel.dataset.shown = "done";
    mount(panel, h("h2", {id: "tutorial-title"}, t("tutorial.done_title")),
      h("p", {class: "tutorial-text"}, t("tutorial.done")),
      h("div", {class: "buttons"},
        h("a", {href: "/", class: "button primary", id: "tutorial-new"}, t("tutorial.new_game")),
        h("button", {type: "button", id: "tutorial-close", onclick: () => { guide.closed = true; panel.remove(); }},
          t("tutorial.close"))));
    return;
  }
  const pending = view.observation.pending?.kind;
  const ours = view.your_turn && view.seat === seat;
  const dialogOpen = byId("confirm")?.open;
  const battleOver = Boolean(ownBattle(guide.log, seat));
  // What to say besides the step: it is the bot's turn, or this decision is not the step's.
  let aside = null;
  if (step.id === "attack" && dialogOpen) {
    aside = `${t("tutorial.odds_open")} ${oddsVerdict()}`;
    noteInDialog(aside);
  }
  else if (step.id === "battle" && battleOver) aside = null;
  else if (!ours) aside = t("tutorial.wait");
  else if (pending !== step.decision) {
    const side = t(`tutorial.side_${pending}`);
    aside = side.startsWith("tutorial.") ? t("tutorial.side_other") : side;
  }
  const showStep = step.id !== "battle" || battleOver;
  const off = offPlan(guide.log, seat, steps);
  const next = step.id === "battle" && battleOver;
  // Drawn again only when its words change: the panel is a live region (read out once), and
  // its "Next" keeps the focus.
  const shown = JSON.stringify([step.id, showStep && stepText(step), aside, off, next, t("tutorial.title")]);
  if (panel.dataset.shown !== shown) {
    panel.dataset.shown = shown;
    drawPanel(panel, {at, total: steps.length, text: showStep ? stepText(step) : null, aside, off, next});
  }
  markStep(step, ours && pending === step.decision, next);
}

/** The guide's words: the step (or nothing while its moment has not come), what to do
 * besides it, whether the learner went another way, and "Next" when the step waits for it. */
function drawPanel(panel, {at, total, text, aside, off, next}) {
  mount(panel,
    h("h2", {id: "tutorial-title"}, t("tutorial.title"), " ",
      h("span", {class: "muted tutorial-count"}, t("tutorial.count", {n: at + 1, total}))),
    text ? h("p", {class: "tutorial-text", id: "tutorial-step"}, text) : null,
    aside ? h("p", {class: "tutorial-aside", id: "tutorial-aside"}, aside) : null,
    off ? h("p", {class: "muted", id: "tutorial-off-plan"}, t("tutorial.off_plan")) : null,
    next ? h("div", {class: "buttons"},
      h("button", {type: "button", id: "tutorial-show-battle",
        onclick: () => byId("battle")?.scrollIntoView({block: "start"})}, t("tutorial.show_battle")),
      h("button", {type: "button", class: "primary", id: "tutorial-next",
        onclick: () => markRead("battle")}, t("tutorial.next"))) : null);
}

/** Point at the tiles and buttons of the step while it is the learner's to take (`now`),
 * and at the battle's tiles and panel once it is fought (`fought`). */
function markStep(step, now, fought) {
  guide.sendMarked = now;
  watchSafeBar();
  markSend();
  if (now) {
    for (const tile of step.tiles) document.querySelector(`#board .tile[data-tile="${CSS.escape(tile)}"]`)?.classList.add("tutorial-mark");
    if (step.action) {
      document.querySelectorAll(`#actions [data-action="${CSS.escape(step.action)}"], #safe-bar [data-action="${CSS.escape(step.action)}"]`)
        .forEach((el) => el.classList.add("tutorial-mark"));
    }
  }
  if (fought) {
    for (const tile of step.tiles) document.querySelector(`#board .tile[data-tile="${CSS.escape(tile)}"]`)?.classList.add("tutorial-mark");
    byId("battle")?.classList.add("tutorial-mark");
  }
}
