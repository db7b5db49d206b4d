// Composing a decision on the board, as at the table: pick your units on a tile (click them,
// "Select all" or the panel's toggles), then click the tile they go to, or drag them there;
// a swap takes units picked on both tiles; a casualty, a unit staying behind or a free upgrade
// is one unit picked and confirmed. The view says what may go where (view.moves per source
// tile, view.swaps per pair of tiles, docs/api.md "Legal actions"); this module only checks
// a composition against them and makes the action as {kind, args}, as a listed action has
// them; its text comes from the engine's grammar (i18n.actionText) and the server checks it
// as any action.

import {h} from "./dom.js";
import {actionText, actionWords, rulesData, t, unitName} from "./i18n.js";

// Listed actions about one unit standing on the board (a casualty, who stays behind, an
// upgrade ...: the grammar's on_board kinds) are offered when that unit is picked.
const onBoard = (kind) => rulesData().grammar.on_board.includes(kind);

/** Whether the multiset `part` lies within the multiset `whole` (arrays of unit refs). */
export function within(part, whole) {
  const left = new Map();
  for (const unit of whole) left.set(unit, (left.get(unit) || 0) + 1);
  for (const unit of part) {
    const n = left.get(unit) || 0;
    if (!n) return false;
    left.set(unit, n - 1);
  }
  return true;
}

const sameUnits = (a, b) => a.length === b.length && within(a, b);

/** A unit as the toggles name it: the seat's own without its seat ("sword"). */
const token = (ref, seat) => (ref.startsWith(`${seat}/`) ? ref.slice(ref.indexOf("/") + 1) : ref);

/** A composed action: its kind and args, and the text the grammar gives them. */
export function composed(kind, args) {
  return {kind, args, text: actionText(kind, args)};
}

/** The refs of the units picked on `tile` (picked: [{tile, slot}], slot: place on the tile). */
export function pickedOn(obs, picked, tile) {
  return picked.filter((p) => p.tile === tile).map((p) => obs.board[tile]?.[p.slot]).filter(Boolean);
}

/** The tiles `units` (refs on `tile`) may move to, with the move: [{tile, action}]. */
export function moveTargets(view, tile, units) {
  if (!units.length) return [];
  const out = [];
  for (const moves of view.moves || []) {
    if (moves.from !== tile || !within(units, moves.units)) continue;
    for (const to of moves.to) {
      if (units.length <= to.most) {
        out.push({tile: to.tile, action: composed("move", {tile, tile2: to.tile, units})});
      }
    }
  }
  return out;
}

/** The units of `tile` that may go (its entry in view.moves also holds those of its swaps). */
const unitsOf = (view, tile) => (view.moves || []).find((m) => m.from === tile)?.units || [];

/** The swap of `units` on `a` for `units2` on `b` when it is legal, else null. */
export function swapAction(view, a, units, b, units2) {
  if (!units.length || !units2.length) return null;
  for (const swaps of view.swaps || []) {
    const [x, y] = swaps.tiles[0] === a && swaps.tiles[1] === b ? [units, units2]
      : swaps.tiles[0] === b && swaps.tiles[1] === a ? [units2, units] : [null, null];
    if (!x || !within(x, unitsOf(view, swaps.tiles[0])) || !within(y, unitsOf(view, swaps.tiles[1]))
      || sameUnits(x, y)) continue;
    const fits = (n, [low, high]) => n >= low && n <= high;
    if (swaps.shapes.some((s) => fits(x.length, s.sizes) && fits(y.length, s.sizes2))) {
      return composed("swap", {tile: a, tile2: b, units, units2});
    }
  }
  return null;
}

/** The tiles `tile`'s units may swap with, and the units of each side that may go. */
function swapSides(view, tile) {
  const out = new Map();
  for (const swaps of view.swaps || []) {
    const [a, b] = swaps.tiles;
    if (a === tile || b === tile) {
      out.set(a === tile ? b : a, {mine: unitsOf(view, tile), theirs: unitsOf(view, a === tile ? b : a)});
    }
  }
  return out;
}

/** Listed actions about one unit on `tile` (a casualty, who stays behind, an upgrade ...). */
function unitActions(view, tile) {
  return (view.legal || []).filter((e) => onBoard(e.kind) && e.units.length === 1 && e.tiles[0] === tile);
}

/** The units of `tile` that may be picked now, as a multiset of refs. */
export function pickable(view, tile) {
  const out = [];
  const add = (units) => {
    for (const unit of new Set(units)) {
      const want = units.filter((u) => u === unit).length;
      const have = out.filter((u) => u === unit).length;
      for (let i = have; i < want; i++) out.push(unit);
    }
  };
  add(unitsOf(view, tile));
  add(unitActions(view, tile).map((e) => e.units[0]));
  return out;
}

/** The slots of `tile` whose units may be picked (each unit of `pickable` once). */
export function pickableSlots(view, obs, tile) {
  const left = pickable(view, tile);
  const slots = [];
  (obs.board[tile] || []).forEach((ref, slot) => {
    const at = left.indexOf(ref);
    if (at >= 0) { left.splice(at, 1); slots.push(slot); }
  });
  return slots;
}

/** What the current pick allows: move targets, swap partners, the swap and unit actions. */
export function options(view, obs, ui) {
  const a = ui.selected;
  const mine = a ? pickedOn(obs, ui.picked, a) : [];
  const b = ui.selected2;
  const theirs = b ? pickedOn(obs, ui.picked, b) : [];
  const sides = a ? swapSides(view, a) : new Map();
  const partners = mine.length ? [...sides].filter(([, side]) => within(mine, side.mine)).map(([tile]) => tile) : [];
  const swap = b && theirs.length ? swapAction(view, a, mine, b, theirs) : null;
  const single = mine.length === 1 && !theirs.length
    ? unitActions(view, a).filter((e) => e.units[0] === mine[0]) : [];
  return {mine, theirs, targets: theirs.length ? [] : moveTargets(view, a, mine), partners, swap, single};
}

/**
 * Pick or unpick the unit on `slot` of `tile` (ui: {selected, selected2, picked}). Units of the
 * second tile of a swap join the other side; units of another tile start a new pick.
 */
export function togglePick(view, ui, tile, slot) {
  const has = ui.picked.findIndex((p) => p.tile === tile && p.slot === slot);
  if (has >= 0) {
    ui.picked.splice(has, 1);
    if (tile === ui.selected2 && !ui.picked.some((p) => p.tile === tile)) ui.selected2 = null;
    return;
  }
  const onlyUnitActions = !pickableViaGroups(view, tile);
  if (tile === ui.selected2 || (tile === ui.selected && !onlyUnitActions)) {
    ui.picked.push({tile, slot});
    return;
  }
  ui.selected = tile;
  ui.selected2 = null;
  ui.picked = [{tile, slot}];
}

const pickableViaGroups = (view, tile) => (view.moves || []).some((m) => m.from === tile);

/** Pick every unit of the selected tile that may go (moves and swaps only). */
export function pickAll(view, obs, ui) {
  const tile = ui.selected;
  const left = [...unitsOf(view, tile)];
  ui.selected2 = null;
  ui.picked = [];
  (obs.board[tile] || []).forEach((ref, slot) => {
    const at = left.indexOf(ref);
    if (at >= 0) { left.splice(at, 1); ui.picked.push({tile, slot}); }
  });
}

/**
 * The compose panel: the selected tile's units as toggles (the keyboard's way to pick), and
 * what the pick allows, as buttons. handlers: {toggle(tile, slot), all(), clear(), send(action),
 * second(tile), onUnitAction(entry), label(entry)}.
 */
export function composePanel(view, obs, ui, handlers) {
  const a = ui.selected;
  if (!a) return null;
  const slots = pickableSlots(view, obs, a);
  if (!slots.length && !ui.picked.length) return null;
  const opts = options(view, obs, ui);
  const isPicked = (tile, slot) => ui.picked.some((p) => p.tile === tile && p.slot === slot);
  const toggles = (tile, list) => h("div", {class: "unit-toggles", role: "group", "aria-label": t("compose.units_on", {tile})},
    list.map((slot) => h("button", {type: "button", class: "unit-toggle", "data-tile": tile, "data-slot": slot,
      "aria-pressed": isPicked(tile, slot) ? "true" : "false", onclick: () => handlers.toggle(tile, slot)},
    unitName(token(obs.board[tile][slot], view.seat)))));
  const send = (action, cls) => h("button", {type: "button", class: `action ${cls}`,
    "data-action": action.text, onclick: () => handlers.send(action)}, actionWords(action));
  // A second tile is a swap's only when the units may swap with it; else (an attack's enemy
  // tile) its actions stand in the tile's actions, in their own words.
  const b = ui.selected2 && swapSides(view, a).has(ui.selected2) ? ui.selected2 : null;
  return h("section", {class: "compose", id: "compose"},
    h("h3", {}, t("compose.title", {tile: a})),
    toggles(a, slots),
    h("div", {class: "buttons compose-tools"},
      slots.length > 1 && pickableViaGroups(view, a)
        ? h("button", {type: "button", id: "select-all", onclick: handlers.all}, t("compose.select_all")) : null,
      ui.picked.length ? h("button", {type: "button", id: "clear-pick", class: "link", onclick: handlers.clear}, t("actions.clear")) : null),
    opts.mine.length && opts.targets.length
      ? h("div", {class: "buttons compose-moves"}, opts.targets.map((target) => send(target.action, "kind-move"))) : null,
    opts.partners.length && !ui.selected2 ? h("p", {class: "compose-swap"}, t("compose.swap_with"), " ",
      opts.partners.map((tile) => h("button", {type: "button", class: "link swap-partner", "data-tile": tile,
        onclick: () => handlers.second(tile)}, tile))) : null,
    b ? [h("h3", {}, t("compose.swap_side", {tile: b})), toggles(b, pickableSlots(view, obs, b))] : null,
    opts.swap ? h("div", {class: "buttons"}, send(opts.swap, "kind-swap")) : null,
    opts.single.length ? h("div", {class: "buttons"}, opts.single.map((entry) => h("button", {type: "button",
      class: `action kind-${entry.kind}`, "data-action": entry.text ?? actionText(entry.kind, entry.args),
      onclick: () => handlers.onUnitAction(entry)},
    handlers.label(entry)))) : null,
    h("p", {class: "muted hint"}, t(opts.mine.length ? "compose.then" : "compose.pick")));
}
