// What the others did (issue 40): the moves, attacks and placements of other seats since this
// seat's last decision, marked on the board and told in one line when its decision comes back;
// gold and free spawns shown as they happen. Everything is read from the log entries the page
// holds (principle 16): nothing is diffed between two views.
//
// The pure functions (sinceStart, othersEntries, boardMarks, summaryParts, summaryText,
// liveNotes) take entries and return data; the page keeps a little state here (where the
// stretch since its last decision starts, whether the line was dismissed, which entries were
// already shown) and draws with renderSince.

import {byId, h, mount, s, toast} from "./dom.js";
import {realmName, t, unitName} from "./i18n.js";

// Entries a seat makes by deciding (its own act starts a new stretch). No "no magic card":
// the page answers a forced one by itself (game.js's auto-answer), which is nobody's choice.
const DECIDED = new Set(["moved", "swapped", "passed", "bought", "fortified", "card_traded",
  "upgraded", "spawned", "unit_placed", "battle_started", "card_committed", "hits_shared",
  "gold_given", "realm_named", "starting_unit_placed"]);

/** The seat that made an entry by acting, or null (dice, losses, income happen to a seat). */
export function actor(entry) {
  if (entry.kind === "battle_started") return entry.attacker;
  return DECIDED.has(entry.kind) && Number.isInteger(entry.seat) ? entry.seat : null;
}

/** The index from which the log counts as "since this seat's last decision": after the last
 * entry the seat made by deciding (0 when it has not decided yet). */
export function sinceStart(log, seat) {
  for (let i = log.length - 1; i >= 0; i--) {
    if (actor(log[i]) === seat) return log[i].index + 1;
  }
  return 0;
}

/** The entries from index `from` on. */
export const entriesFrom = (log, from) => log.filter((e) => e.index >= from);

/**
 * What the board marks of `entries` (other seats' acts only): `tiles`, a Map of tile name to
 * the Set of what happened there (from, to, attack_from, attack_to, placed); `arrows`, one per
 * move, swap or attack: {from, to, kind: "move" | "swap" | "attack", index}.
 */
export function boardMarks(entries, seat) {
  const tiles = new Map();
  const arrows = [];
  const mark = (tile, what) => {
    if (!tiles.has(tile)) tiles.set(tile, new Set());
    tiles.get(tile).add(what);
  };
  const arrow = (from, to, kind, index) => {
    if (!arrows.some((a) => a.from === from && a.to === to && a.kind === kind)) arrows.push({from, to, kind, index});
  };
  for (const e of entries) {
    const who = actor(e);
    if (who === null || who === seat) continue;
    if (e.kind === "moved") {
      mark(e.src, "from"); mark(e.dst, "to");
      // An invasion follows its attack, whose arrow it would repeat.
      if (e.cause !== "invasion") arrow(e.src, e.dst, "move", e.index);
    } else if (e.kind === "swapped") {
      mark(e.a, "from"); mark(e.a, "to"); mark(e.b, "from"); mark(e.b, "to");
      arrow(e.a, e.b, "swap", e.index);
    } else if (e.kind === "battle_started") {
      mark(e.a_tile, "attack_from"); mark(e.d_tile, "attack_to");
      arrow(e.a_tile, e.d_tile, "attack", e.index);
    } else if (e.kind === "bought" || e.kind === "spawned" || e.kind === "unit_placed") {
      mark(e.tile, "placed");
    }
  }
  return {tiles, arrows};
}

/** "P2 (Kimbria)" in the current language (seats numbered from 1). */
export function seatName(observation, seat) {
  const realm = observation?.players?.[seat]?.realm;
  const short = t("game.player_short", {n: seat + 1});
  return realm ? `${short} (${realmName(realm)})` : short;
}

const bareUnit = (ref) => unitName(ref.slice(ref.indexOf("/") + 1));
const unitList = (refs) => refs.map(bareUnit).join(", ");
const uniq = (items) => [...new Set(items)];

/**
 * The summary of `entries` for `seat`, as parts: [{seat, items: [{key, vars}]}], one per
 * other seat that did something (in the order they first acted), then {seat: "you", items}
 * for what happened to this seat (gold received or lost, units lost). Empty when no other
 * seat acted. Keys are catalogue keys (since.*).
 */
export function summaryParts(entries, seat) {
  const bySeat = new Map();
  const items = (who) => {
    if (!bySeat.has(who)) bySeat.set(who, {moved: [], swaps: [], attacks: [], bought: [], spawned: [],
      placed: [], upgraded: [], fortified: [], gave: 0, out: false});
    return bySeat.get(who);
  };
  const mine = {gold: 0, lost: [], tiles: []};
  let acted = false;
  entries.forEach((e, at) => {
    const who = actor(e);
    if (who !== null && who !== seat) acted = true;
    if (who !== null && who !== seat) {
      const it = items(who);
      if (e.kind === "moved" && e.cause !== "invasion") it.moved.push(e);
      else if (e.kind === "swapped") it.swaps.push(e);
      else if (e.kind === "battle_started") {
        const end = entries.slice(at + 1).find((x) => x.kind === "battle_ended"
          && x.a_tile === e.a_tile && x.d_tile === e.d_tile);
        it.attacks.push({from: e.a_tile, to: e.d_tile, result: end ? end.result : null});
      } else if (e.kind === "bought") it.bought.push(e.unit);
      else if (e.kind === "spawned") it.spawned.push(e.unit);
      else if (e.kind === "unit_placed") it.placed.push(e.unit);
      else if (e.kind === "upgraded") it.upgraded.push(e.unit);
      else if (e.kind === "fortified") it.fortified.push(e.tile);
      else if (e.kind === "gold_given" && e.to === seat) it.gave += e.amount;
    }
    if (e.kind === "eliminated" && e.seat !== seat) items(e.seat).out = true;
    if (e.kind === "income" && e.seat === seat && !e.frozen) mine.gold += e.amount;
    if (e.kind === "gold_changed" && e.seat === seat) mine.gold += e.delta;
    if (e.kind === "gold_given" && e.to === seat) mine.gold += e.amount;
    if (e.kind === "unit_killed" && e.seat === seat) mine.lost.push(e.unit);
    if (e.kind === "unit_removed" && e.seat === seat) mine.lost.push(e.unit);
    if (e.kind === "tile_captured" && e.lost_by === seat) mine.tiles.push(e.tile);
  });
  if (!acted) return [];
  const parts = [];
  for (const [who, it] of bySeat) {
    const out = [];
    if (it.moved.length) {
      const n = it.moved.reduce((sum, e) => sum + e.units.length, 0);
      out.push({key: n === 1 ? "since.moved_one" : "since.moved_many",
        vars: {n, tiles: uniq(it.moved.map((e) => e.dst)).join(", ")}});
    }
    for (const e of it.swaps) out.push({key: "since.swapped", vars: {a: e.a, b: e.b}});
    for (const a of it.attacks) {
      out.push({key: `since.attacked_${a.result || "open"}`, vars: {tile: a.to, from: a.from}});
    }
    if (it.bought.length) out.push({key: "since.bought", vars: {units: unitList(it.bought)}});
    if (it.spawned.length) out.push({key: "since.spawned", vars: {units: unitList(it.spawned)}});
    if (it.placed.length) out.push({key: "since.placed", vars: {units: unitList(it.placed)}});
    if (it.upgraded.length) out.push({key: "since.upgraded", vars: {units: unitList(it.upgraded)}});
    for (const tile of it.fortified) out.push({key: "since.fortified", vars: {tile}});
    if (it.gave) out.push({key: "since.gave_you", vars: {n: it.gave}});
    if (it.out) out.push({key: "since.eliminated", vars: {}});
    if (out.length) parts.push({seat: who, items: out});
  }
  const you = [];
  if (mine.gold > 0) you.push({key: "since.you_gained", vars: {n: mine.gold}});
  if (mine.gold < 0) you.push({key: "since.you_paid", vars: {n: -mine.gold}});
  if (mine.lost.length) you.push({key: "since.you_lost", vars: {units: unitList(mine.lost)}});
  if (mine.tiles.length) you.push({key: "since.you_lost_tiles", vars: {tiles: mine.tiles.join(", ")}});
  if (you.length) parts.push({seat: "you", items: you});
  return parts;
}

/** The summary in one line of the current language ("" when no other seat acted). */
export function summaryText(parts, observation) {
  if (!parts.length) return "";
  const said = parts.map((part) => {
    const items = part.items.map((it) => t(it.key, it.vars)).join(", ");
    return part.seat === "you" ? items : `${seatName(observation, part.seat)} ${items}`;
  });
  return t("since.line", {what: said.join("; ")});
}

/** What the page shows as it happens: gold gained or lost and units spawned or placed for
 * free, one short note each ("P2 (Kimbria): +4 gold"). */
export function liveNotes(entries, observation) {
  const notes = [];
  for (const e of entries) {
    const who = seatName(observation, e.seat);
    if (e.kind === "income" && !e.frozen && e.amount > 0) notes.push(t("since.note_gold", {who, n: `+${e.amount}`}));
    else if (e.kind === "gold_changed" && e.delta) {
      notes.push(t("since.note_gold", {who, n: e.delta > 0 ? `+${e.delta}` : `−${-e.delta}`}));
    } else if (e.kind === "spawned" || e.kind === "unit_placed") {
      notes.push(t("since.note_unit", {who, unit: bareUnit(e.unit), tile: e.tile}));
    }
  }
  return notes;
}

// --- the page's state and drawing ----------------------------------------------------------

const ANIMATE_MS = 700;  // an arrow draws itself this long (not under reduced motion)
const state = {sent: -1, dismissed: null, seen: -1, born: new Map(), shown: ""};

/** A new page: nothing sent, dismissed or seen yet. */
export function resetSince() {
  Object.assign(state, {sent: -1, dismissed: null, seen: -1, born: new Map(), shown: ""});
}

/** This seat sends a decision (a gift is none: it is open at any moment): the marks clear at
 * once, before the server's answer lands. */
export function sinceSent(log, action) {
  if (action?.kind === "gift") return;
  state.sent = log.length ? log[log.length - 1].index + 1 : 0;
}

/** Entries merged into the log: the new ones (not those of a whole log loaded at once) that
 * bring gold or a free unit are shown as a note. */
export function sinceLog(log, whole, observation) {
  const last = log.length ? log[log.length - 1].index : -1;
  const fresh = whole || state.seen < 0 ? [] : log.filter((e) => e.index > state.seen);
  state.seen = Math.max(state.seen, last);
  const notes = liveNotes(fresh, observation);
  if (notes.length) toast(notes.join(" · "), "note");
}

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/**
 * The marks and the summary of a seat's page now: {board, parts, from} (board: the option of
 * renderBoard; null for a spectator, who decides nothing). `deciding`: the seat holds a
 * decision of its own now (the summary shows then).
 */
export function sinceNow(log, view, deciding) {
  if (view.seat === null || view.seat === undefined) return {board: null, parts: [], from: 0, deciding};
  const from = Math.max(sinceStart(log, view.seat), state.sent);
  const entries = entriesFrom(log, from);
  const marks = boardMarks(entries, view.seat);
  const now = Date.now();
  const animate = !reducedMotion();
  for (const a of marks.arrows) if (!state.born.has(a.index)) state.born.set(a.index, now);
  // An arrow still drawing itself goes on where it was after a redraw (a negative delay).
  const age = (a) => (animate ? now - state.born.get(a.index) : ANIMATE_MS);
  marks.arrows = marks.arrows.map((a) => ({...a, age: age(a) < ANIMATE_MS ? age(a) : null}));
  return {board: marks, parts: summaryParts(entries, view.seat), from, deciding};
}

/** The summary bar: the line, and a button that dismisses it (until the next stretch). The
 * line also goes to a polite live region, once, for screen readers. */
export function renderSince(el, now, observation) {
  if (!el) return;
  const text = now.deciding && state.dismissed !== now.from ? summaryText(now.parts, observation) : "";
  el.hidden = !text;
  if (!text) { mount(el); return; }
  mount(el, h("p", {class: "since-line", id: "since-line"}, text),
    h("button", {type: "button", class: "link since-dismiss", id: "since-dismiss",
      "aria-label": t("since.dismiss_label"),
      onclick: () => { state.dismissed = now.from; el.hidden = true; mount(el); }}, t("since.dismiss")));
  if (text !== state.shown) {
    state.shown = text;
    let live = byId("since-live");
    if (!live) {
      live = h("div", {id: "since-live", class: "visually-hidden", "aria-live": "polite", "aria-atomic": "true"});
      document.body.append(live);
    }
    live.textContent = text;
  }
}

/** The legend's entry of the mark: an arrow between two rings. */
export function sinceLegend() {
  return h("span", {class: "legend-item"},
    s("svg", {class: "legend-swatch", viewBox: "0 0 14 14", "aria-hidden": "true"},
      s("path", {d: "M2 7 H9", class: "since-arrow legend-arrow"}),
      s("path", {d: "M8.5 4 L12.5 7 L8.5 10 Z", class: "since-head"})),
    t("board.since"));
}
