// The SVG hex board, drawn from observation.world (axial coordinates, pointy-topped hexes as in
// R4.1) and observation.board. Terrain has a colour AND a pattern, so it reads without colour.

import {s} from "./dom.js";
import {unitTip} from "./dice.js";
import {parseUnit, realmName, t, term, unitAbbr, unitName} from "./i18n.js";

export const REALM_COLORS = {
  khalisia: "#b3261e", kimbria: "#d49b00", nanchia: "#8a5a2b",
  ardinor: "#1f5fbf", zhojira: "#2e7d4f", laurielle: "#7b3fa0",
};
const SEAT_COLORS = ["#555", "#777", "#999", "#444", "#666", "#888"];
// Each realm's emblem, the owner's second cue besides its colour (a path in a unit square
// centred on 0,0), and its shape's name. No emblem repeats a mark of the board (MARKS) or a
// terrain's pattern (a forest's tree is a triangle): a Laurielle unit must not look upgraded.
const EMBLEMS = {
  khalisia: "M-0.85 -0.95 H0.85 L0.12 0 L0.85 0.95 H-0.85 L-0.12 0 Z",
  kimbria: "M-0.75 -0.75 H0.75 V0.75 H-0.75 Z",
  nanchia: "M0 -1 L1 0 L0 1 L-1 0 Z",
  ardinor: "M-0.85 -0.95 H0.85 V0.1 Q0.85 0.7 0 1 Q-0.85 0.7 -0.85 0.1 Z",
  zhojira: "M0.35 -0.9 A0.95 0.95 0 1 0 0.35 0.9 A1.1 1.1 0 0 1 0.35 -0.9 Z",
  laurielle: "M0 1 C-0.2 0.75 -1 0.3 -1 -0.3 C-1 -0.8 -0.35 -1 0 -0.5 C0.35 -1 1 -0.8 1 -0.3 C1 0.3 0.2 0.75 0 1 Z",
};
export const EMBLEM_SHAPES = {
  khalisia: "hourglass", kimbria: "square", nanchia: "diamond",
  ardinor: "shield", zhojira: "crescent", laurielle: "heart",
};
// The board's own marks, as the legend shows them, and the shapes of the terrain patterns.
export const MARKS = {
  upgraded_castle: {glyph: "★", shape: "star"},
  upgraded_unit: {glyph: "+", shape: "cross"},
  capacity: {glyph: "● ○", shape: "circle"},
  can_act: {glyph: "", shape: "circle"},  // a dot in a ring, drawn (.act-mark)
  since: {glyph: "", shape: "arrow"},  // others' moves: an inner ring and arrows (since.js)
};
export const TERRAIN_SHAPES = {field: "stroke", forest: "triangle", mountain: "peak", castle: "masonry"};
const DARK = "#222";  // the tokens' ring and the marks' ink: neutral, no realm's colour
const LIGHT = "#fff";

/** WCAG relative luminance of "#rrggbb" or "#rgb". */
export function luminance(hex) {
  const full = hex.length === 4 ? hex.replace(/[0-9a-f]/gi, (c) => c + c).slice(1) : hex.slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

/** The text colour on a fill: white where it reads at 4.5:1, else dark. */
export const inkOn = (fill) => (contrast(LIGHT, fill) >= 4.5 ? LIGHT : DARK);

/** A realm's emblem as an SVG path around (x, y), `size` its half width. */
export function emblem(realm, x, y, size, cls = "emblem") {
  const d = EMBLEMS[realm];
  return d ? s("path", {d, class: cls, "data-realm": realm,
    transform: `translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${size})`}) : null;
}

/** A small SVG swatch of a seat's colour and emblem (the players panel, the log). */
export function seatSwatch(observation, seat) {
  const realm = observation.players[seat]?.realm;
  return s("svg", {class: "swatch", viewBox: "-10 -10 20 20", "aria-hidden": "true"},
    s("circle", {r: 9.5, fill: seatColor(observation, seat), stroke: DARK, "stroke-width": 1}),
    emblem(realm, 0, 0, 5.5, "swatch-emblem"));
}
const SIZE = 50;
const SQRT3 = Math.sqrt(3);

export function seatColor(observation, seat) {
  const realm = observation.players[seat]?.realm;
  return REALM_COLORS[realm] || SEAT_COLORS[seat % SEAT_COLORS.length];
}

/** Every tile of the world with its name, centre, terrain and capacity (R4.5): the engine's
 * world lists the terrain positions, then the castle spots, and names every tile, in that
 * order, with its capacity (world.capacity). */
export function tilesOf(world) {
  const names = Object.keys(world.capacity);
  const n = world.terrain.length;
  const tile = (p, i, terrain) => ({name: names[i], q: p.q, r: p.r, terrain, capacity: world.capacity[names[i]]});
  const tiles = world.terrain.map((p, i) => tile(p, i, p.terrain));
  world.castle_spots.forEach((p, i) => tiles.push(tile(p, n + i, "castle")));
  for (const tile of tiles) {
    tile.x = SIZE * SQRT3 * (tile.q + tile.r / 2);
    tile.y = SIZE * 1.5 * tile.r;
  }
  return tiles;
}

function hexPoints(x, y, size) {
  const points = [];
  for (let i = 0; i < 6; i++) {
    const angle = Math.PI / 180 * (60 * i - 30);
    points.push(`${(x + size * Math.cos(angle)).toFixed(1)},${(y + size * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

function patterns() {
  const pattern = (id, base, ...marks) => s("pattern",
    {id, width: 14, height: 14, patternUnits: "userSpaceOnUse"},
    s("rect", {width: 14, height: 14, fill: base}), ...marks);
  return s("defs", {},
    pattern("pat-field", "#e9df98",
      s("path", {d: "M3 10 l1.5 -4 M6 11 l0.5 -3.5 M10 5 l1.5 -3.5", stroke: "#a59a3c", "stroke-width": 1.2})),
    pattern("pat-forest", "#6fa865",
      s("path", {d: "M7 2 L11.5 10 H2.5 Z", fill: "#2f6b2c"}),
      s("rect", {x: 6.3, y: 10, width: 1.4, height: 2.5, fill: "#4b3621"})),
    pattern("pat-mountain", "#b9b4aa",
      s("path", {d: "M1 11 L5 4 L9 11 M7 8 L10 3 L13 8", fill: "none", stroke: "#5f5a52", "stroke-width": 1.4})),
    pattern("pat-castle", "#dcc7a1",
      s("path", {d: "M0 0.5 H14 M0 7.5 H14 M4 0.5 V7.5 M11 7.5 V14", stroke: "#9b8464", "stroke-width": 1}))
  );
}

// A token's radius on a tile of one or two units, and on a fuller one (up to a castle's five:
// a row of three over a row of two). Its halo (radius + 4, which holds its badges) keeps one
// pixel from its neighbours' and stays between the tile's name and its pips.
const TOKEN_R = SIZE * 0.2;
const TOKEN_R_FULL = SIZE * 0.17;

/** Where n tokens stand on a tile (offsets from its centre, in pixels) and their radius. */
function unitLayout(n) {
  const r = n <= 2 ? TOKEN_R : TOKEN_R_FULL;
  const step = 2 * (r + 4) + 1;
  const row = (count, y) => Array.from({length: count}, (_, i) => [(i - (count - 1) / 2) * step, y]);
  if (n <= 3) return {r, at: row(n, 1)};
  const top = Math.ceil(n / 2);
  return {r, at: [...row(top, 1 - step / 2), ...row(n - top, 1 + step / 2)]};
}

function unitToken(observation, ref, x, y, r, state) {
  const {owner, type, realm, upgraded} = parseUnit(ref);
  const title = `${unitName(ref.split("/")[1] || ref)} — ${realmName(observation.players[owner]?.realm)}` +
    (type === "special" && realm ? ` (${realmName(realm)})` : "") + `\n${unitTip(ref)}`;
  // The owner: the realm's colour and its emblem. An upgraded unit: a thick white rim and a
  // "+" badge in black and white (no realm's colour: Kimbria is yellow). A white halo and a
  // dark ring set every token off from every terrain.
  const fill = seatColor(observation, owner);
  const ownerRealm = observation.players[owner]?.realm;
  const classes = ["unit"];
  if (upgraded) classes.push("upgraded");
  if (state.pickable) classes.push("pickable");
  if (state.picked) classes.push("picked");
  // aria-hidden: the tile's label names its units (picking them by keyboard is the compose
  // panel's). The leading space (not drawn) keeps the marks apart as words in the tile's text
  // ("C1 Cr Ge"), as its label has them.
  return s("g", {class: classes.join(" "), "data-unit": ref, "data-slot": state.slot, "aria-hidden": "true",
    onclick: state.onClick, onpointerdown: state.onDown, ontouchstart: state.onTouch}, " ",
    s("title", {}, title),
    state.picked ? s("circle", {cx: x, cy: y, r: r + 6, class: "pick-ring"}) : null,
    s("circle", {cx: x, cy: y, r: r + 4, fill: LIGHT, class: "unit-halo"}),
    s("circle", {cx: x, cy: y, r: r + 2.5, fill: DARK, class: "unit-ring"}),
    s("circle", {cx: x, cy: y, r, fill, stroke: LIGHT, "stroke-width": upgraded ? 3 : 1, class: "unit-disc"}),
    s("text", {x, y: y + 3, "text-anchor": "middle", class: "unit-label", fill: inkOn(fill)}, unitAbbr(type)),
    s("g", {class: "owner-badge"},
      s("circle", {cx: x - r * 0.85, cy: y + r * 0.85, r: r * 0.62, fill: LIGHT, stroke: DARK, "stroke-width": 1}),
      emblem(ownerRealm, x - r * 0.85, y + r * 0.85, r * 0.42)),
    upgraded ? s("g", {class: "upgrade-badge"},
      s("circle", {cx: x + r * 0.85, cy: y - r * 0.85, r: r * 0.55, fill: LIGHT, stroke: DARK, "stroke-width": 1}),
      s("text", {x: x + r * 0.85, y: y - r * 0.85 + 3.5, "text-anchor": "middle", class: "badge-label", fill: DARK}, MARKS.upgraded_unit.glyph)) : null);
}

function pips(capacity, used, x, y) {
  const gap = SIZE * 0.17;
  return s("g", {class: "pips", "aria-hidden": "true"},
    Array.from({length: capacity}, (_, i) => s("circle", {
      cx: x + (i - (capacity - 1) / 2) * gap, cy: y, r: SIZE * 0.055,
      class: i < used ? "pip used" : "pip free"})));
}

/**
 * Draw the board into svgEl. opts: selected (tile name), actionable (Set of tile names the
 * current legal actions mention), targets (Set), swapTargets (Set), battle ([a, d] tile
 * names), onTile(name); units: pickable(tile) -> Set of slots, picked(tile, slot) -> bool,
 * onUnit(tile, slot) on a click of a unit that is not pickable, onUnitDown(event, tile, slot)
 * on a press of one that is (a tap or a drag, drag.js); since: what other seats did since
 * this seat's last decision (since.js boardMarks: {tiles, arrows}), or null.
 */
export function renderBoard(svgEl, observation, opts) {
  const tiles = tilesOf(observation.world);
  const xs = tiles.map((tile) => tile.x);
  const ys = tiles.map((tile) => tile.y);
  const pad = SIZE * 1.1;
  const minX = Math.min(...xs) - pad;
  const minY = Math.min(...ys) - pad;
  svgEl.setAttribute("viewBox",
    `${minX.toFixed(0)} ${minY.toFixed(0)} ${(Math.max(...xs) - minX + pad).toFixed(0)} ${(Math.max(...ys) - minY + pad).toFixed(0)}`);
  const fortified = new Set(observation.fortified);
  const battle = new Set(opts.battle || []);
  svgEl.replaceChildren(patterns());
  for (const tile of tiles) {
    const units = observation.board[tile.name] || [];
    const capacity = tile.capacity;
    const classes = ["tile", `terrain-${tile.terrain}`];
    if (opts.selected === tile.name) classes.push("selected");
    if (opts.targets?.has(tile.name)) classes.push("target");
    else if (opts.swapTargets?.has(tile.name)) classes.push("swap-target");
    else if (opts.actionable?.has(tile.name)) classes.push("actionable");
    if (battle.has(tile.name)) classes.push("battle");
    if (opts.hinted?.has(tile.name)) classes.push("hinted");
    const since = opts.since?.tiles.get(tile.name);
    if (since) classes.push("since");
    const isFort = fortified.has(tile.name);
    const slots = opts.pickable?.(tile.name) || new Set();
    const terrainName = term(tile.terrain) + (isFort ? ` (${t("board.upgraded_castle")})` : "");
    // The label starts with what the tile shows (its name, its units' marks: WCAG 2.5.3
    // label in name), then says it in words.
    const marks = units.map((ref) => unitAbbr(parseUnit(ref).type)).join(" ");
    const label = `${tile.name}${marks ? ` ${marks}` : ""}: ${terrainName}, `
      + t("board.units_of", {n: units.length, cap: capacity})
      + (units.length ? `: ${units.map(unitName).join(", ")}` : "")
      + (since ? `; ${t("board.since_tile")}` : "");
    const actionable = classes.includes("actionable") || classes.includes("target");
    const group = s("g", {class: classes.join(" "), "data-tile": tile.name, tabindex: 0,
      "data-since": since ? [...since].join(" ") : null,
      role: "button", "aria-label": label,
      onclick: () => opts.onTile(tile.name),
      onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); opts.onTile(tile.name); } }},
      s("title", {}, label),
      s("polygon", {points: hexPoints(tile.x, tile.y, SIZE - 1.5), fill: `url(#pat-${tile.terrain})`,
        class: "hex"}),
      isFort ? s("polygon", {points: hexPoints(tile.x, tile.y, SIZE - 7), class: "fort-ring"}) : null,
      since ? s("polygon", {points: hexPoints(tile.x, tile.y, SIZE - 4.5), class: "since-ring"}) : null,
      s("text", {x: tile.x, y: tile.y - SIZE * 0.6, "text-anchor": "middle", class: "tile-name", "aria-hidden": "true"},
        tile.name + (isFort ? ` ${MARKS.upgraded_castle.glyph}` : "")),
      ((layout) => layout.at.map(([dx, dy], i) => {
        const pickable = slots.has(i);
        return unitToken(observation, units[i], tile.x + dx, tile.y + dy, layout.r, {
          slot: i, pickable, picked: opts.picked?.(tile.name, i),
          // A pickable unit's press is watched (drag.js): a click on it is its tap.
          onClick: (e) => { e.stopPropagation(); if (!pickable) opts.onUnit(tile.name, i); },
          onDown: pickable ? (e) => opts.onUnitDown(e, tile.name, i) : null,
          onTouch: pickable ? (e) => e.preventDefault() : null});
      }))(unitLayout(units.length)),
      pips(capacity, units.length, tile.x, tile.y + SIZE * 0.64),
      // "You can act here": a dark dot in a white ring, plain on pale and dark terrain alike.
      actionable ? s("circle", {cx: tile.x + SIZE * 0.58, cy: tile.y - SIZE * 0.5, r: 6, class: "act-mark"}) : null);
    svgEl.append(group);
  }
  if (opts.since?.arrows.length) svgEl.append(sinceArrows(tiles, opts.since.arrows));
}

/** The arrows of other seats' moves, swaps and attacks, over the tiles' shared edge (the
 * units stay readable); one still drawing itself (age in ms) goes on where it was. */
function sinceArrows(tiles, arrows) {
  const at = new Map(tiles.map((tile) => [tile.name, tile]));
  const cut = SIZE * 0.5;
  return s("g", {class: "since-arrows", "aria-hidden": "true"}, arrows.map((a) => {
    const p = at.get(a.from);
    const q = at.get(a.to);
    if (!p || !q) return null;
    const len = Math.hypot(q.x - p.x, q.y - p.y);
    const [ux, uy] = [(q.x - p.x) / len, (q.y - p.y) / len];
    const [x1, y1, x2, y2] = [p.x + ux * cut, p.y + uy * cut, q.x - ux * cut, q.y - uy * cut];
    const head = (x, y, dx, dy) => {  // a filled arrowhead pointing along (dx, dy), tip at (x, y)
      const [bx, by] = [x - dx * 11, y - dy * 11];
      return s("path", {class: "since-head", d: `M${x.toFixed(1)} ${y.toFixed(1)} L${(bx - dy * 7).toFixed(1)} ${(by + dx * 7).toFixed(1)} L${(bx + dy * 7).toFixed(1)} ${(by - dx * 7).toFixed(1)} Z`});
    };
    const drawing = a.age !== null && a.age !== undefined;
    return s("g", {class: `since-mark since-${a.kind}${drawing ? " since-new" : ""}`, "data-from": a.from,
      "data-to": a.to, "data-kind": a.kind, style: drawing ? `--since-age: -${a.age}ms` : null},
    s("line", {x1: x1.toFixed(1), y1: y1.toFixed(1), x2: x2.toFixed(1), y2: y2.toFixed(1), pathLength: 1, class: "since-halo"}),
    s("line", {x1: x1.toFixed(1), y1: y1.toFixed(1), x2: x2.toFixed(1), y2: y2.toFixed(1), pathLength: 1, class: "since-arrow"}),
    head(x2, y2, ux, uy), a.kind === "swap" ? head(x1, y1, -ux, -uy) : null);
  }));
}
