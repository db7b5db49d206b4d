// The log panel: the story of the game from the engine's entries (docs/api.md "The log"), in
// the current language. Event cards and revealed magic cards show their text; a battle's
// line opens it in the battle view; a filter keeps one player's story.

import {h, mount} from "./dom.js";
import {seatColor} from "./board.js";
import {playerLabel} from "./panels.js";
import {timeoutLines} from "./clock.js";
import {cards, local, logText, t} from "./i18n.js";

// The page holds the whole log (every view with log_since -1 carries all of it); the panel
// draws the newest LOG_PAGE entries of the story and pages back through the older ones on
// request, so a long game's panel stays quick to redraw and nothing is out of reach.
const LOG_PAGE = 300;
// The entry fields that name a seat a line is about (logtext.js reads the same fields).
const ABOUT = ["seat", "attacker", "defender", "holder", "to", "by", "lost_by", "eliminated",
  "graveyard_of"];
// Entries right after battle_ended that still belong to the battle: the invasion (R17.6-R17.8).
const isAftermath = (entry) => entry.kind === "left_behind" || entry.kind === "tile_captured"
  || (entry.kind === "moved" && entry.cause === "invasion");

let filterSeat = null;  // the seat whose story is shown, or null: everyone's
let pages = 1;  // how many pages of LOG_PAGE entries the panel shows

/** The seat an entry is about, for its colour swatch. */
const entrySeat = (entry) => (Number.isInteger(entry.seat) ? entry.seat
  : Number.isInteger(entry.attacker) ? entry.attacker : null);

const mentions = (entry, seat) => ABOUT.some((field) => entry[field] === seat);

/**
 * The log cut into stories: a battle (its battle_started entry up to battle_ended and the
 * invasion after it) is one block, any other entry a block of its own.
 */
function blocks(log) {
  const out = [];
  let battle = null;
  for (const entry of log) {
    if (entry.kind === "battle_started") { battle = {battle: true, entries: [entry], ended: false}; out.push(battle); continue; }
    if (battle && (!battle.ended || isAftermath(entry))) {
      battle.entries.push(entry);
      if (entry.kind === "battle_ended") battle.ended = true;
      continue;
    }
    battle = null;
    out.push({battle: false, entries: [entry]});
  }
  return out;
}

/** Whether a block belongs to the seat's story: the end of the game always does, a battle
 * when the seat fights in it or loses units in it. */
const inStory = (block, seat) => seat === null || block.entries.some((e) => e.kind === "game_over" || mentions(e, seat));

/** The text of the card an entry shows to everyone: an event card drawn, a magic card revealed. */
function cardText(entry) {
  const c = cards();
  if (entry.kind === "event_card_drawn") return (c.events[entry.card] || c.end_game[entry.card])?.text;
  if (entry.kind === "card_revealed") return c.magic[entry.card]?.text;
  return null;
}

function entryLine(entry, obs, inBattle, onBattle) {
  const seat = entrySeat(entry);
  const swatch = seat !== null && seat >= 0 && obs.players[seat]
    ? h("span", {class: "swatch", style: `background:${seatColor(obs, seat)}`}) : null;
  const classes = ["log-entry", `log-${entry.kind}`];
  if (inBattle && entry.kind !== "battle_started") classes.push("in-battle");
  const text = logText(entry);
  const more = cardText(entry);
  return h("li", {class: classes.join(" "), "data-index": entry.index, "data-kind": entry.kind}, swatch,
    entry.kind === "battle_started"
      ? h("button", {type: "button", class: "link log-battle", title: t("log.open_battle"),
        onclick: () => onBattle(entry.index)}, text)
      : h("span", {class: "entry-text"}, text),
    more ? h("span", {class: "entry-card-text"}, local(more)) : null);
}

function filterControl(obs, onChange) {
  return h("label", {class: "logpanel-filter", for: "log-filter"}, h("span", {}, t("log.filter")),
    h("select", {id: "log-filter", onchange: (e) => {
      filterSeat = e.target.value === "" ? null : Number(e.target.value);
      onChange();
    }},
    h("option", {value: "", selected: filterSeat === null}, t("log.everyone")),
    obs.players.map((p) => h("option", {value: p.seat, selected: filterSeat === p.seat}, playerLabel(obs, p.seat)))));
}

/**
 * Render the log panel into el: the newest entries of `log` (of the filtered player's story),
 * each with its kind as a class (log-event_card_drawn, log-battle_started, log-eliminated ...
 * stand out). handlers.onBattle(index) opens a battle, handlers.onFilter() redraws after the
 * filter changed.
 */
export function renderLog(el, view, log, handlers) {
  const obs = view.observation;
  if (filterSeat !== null && !obs.players[filterSeat]) filterSeat = null;
  const story = blocks(log).filter((block) => inStory(block, filterSeat)).flatMap((block) => block.entries);
  const first = Math.max(0, story.length - pages * LOG_PAGE);
  const items = [];
  let inBattle = false;
  // The timeout bot's decisions (the view's clock): a line before the entries they made.
  const timeouts = timeoutLines(view, (seat) => playerLabel(obs, seat));
  const shown = story.slice(first);
  const oldest = shown.length ? shown[0].version : Infinity;
  const before = (version) => {
    for (const [at, line] of timeouts) {
      if (at > version) break;
      if (at >= oldest || version === Infinity) items.push(line);
      timeouts.delete(at);
    }
  };
  for (const entry of shown) {
    before(entry.version);
    if (entry.kind === "battle_started") inBattle = true;
    items.push(entryLine(entry, obs, inBattle, handlers.onBattle));
    if (entry.kind === "battle_ended") inBattle = false;
  }
  before(Infinity);
  // Follow the newest entries, unless the reader has scrolled back to look at older ones.
  const old = el.querySelector(".log");
  const following = !old || old.scrollHeight - old.scrollTop - old.clientHeight < 12;
  const kept = old ? old.scrollTop : 0;
  const filterFocused = document.activeElement?.id === "log-filter";
  // Older entries come in above the ones read: the list keeps its place, focus stays on
  // the paging button (or the list, once everything is shown).
  const more = (next) => {
    pages = next;
    const list = el.querySelector(".log");
    const fromBottom = list ? list.scrollHeight - list.scrollTop : 0;
    handlers.onFilter();
    const again = el.querySelector(".log");
    if (again) again.scrollTop = again.scrollHeight - fromBottom;
    (el.querySelector("#log-older") || again)?.focus();
  };
  mount(el, h("div", {class: "logpanel-head"}, h("h2", {}, t("panel.log")), filterControl(obs, handlers.onFilter)),
    first > 0 ? h("p", {class: "log-more"},
      h("button", {type: "button", class: "link", id: "log-older", onclick: () => more(pages + 1)},
        t("glance.log_older", {n: Math.min(first, LOG_PAGE)})), " · ",
      h("button", {type: "button", class: "link", id: "log-all",
        onclick: () => more(Math.ceil(story.length / LOG_PAGE))}, t("glance.log_all", {n: story.length})),
      " ", h("span", {class: "muted"}, t("glance.log_count", {shown: story.length - first, total: story.length}))) : null,
    // Focusable: a keyboard scrolls the list (it is a scrolling region of its own).
    h("ol", {class: "log", "aria-label": t("panel.log"), tabindex: 0}, items));
  const list = el.querySelector(".log");
  list.scrollTop = following ? list.scrollHeight : kept;
  if (filterFocused) el.querySelector("#log-filter").focus();
}
