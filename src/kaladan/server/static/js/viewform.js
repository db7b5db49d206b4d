// A view's legal actions arrive in a compact form (docs/api.md "Legal actions"): moves'
// destinations and swaps' shapes as arrays, a tile's units left out when they are the
// board's, a listed action's tiles, units, args, price and label left out when they go
// without saying (its text is never needed: the page describes an action from its kind,
// args and label, and sends it by index).
// fullView gives every part its named fields back, once, when the view arrives, so that the
// rest of the page reads one form (the "All actions" list, GET .../legal, is already full).

/** A listed action with every field (a text left out stays out). */
const fullListed = (entry) => ({index: entry.index, kind: entry.kind, text: entry.text,
  tiles: entry.tiles || [], units: entry.units || [], args: entry.args || {},
  price: entry.price || 0, label: entry.label || `act.${entry.kind}`});

/** The view with its legal, moves and swaps in their named form (the view object is reused). */
export function fullView(view) {
  const board = view.observation?.board || {};
  view.legal = (view.legal || []).map(fullListed);
  view.moves = (view.moves || []).map((m) => ({from: m.from, units: m.units ?? board[m.from] ?? [],
    to: m.to.map(([tile, most, index, count]) => ({tile, most, index, count}))}));
  view.swaps = (view.swaps || []).map((p) => ({tiles: p.tiles,
    shapes: p.shapes.map(([low, high, low2, high2, index, count]) =>
      ({sizes: [low, high], sizes2: [low2, high2], index, count}))}));
  return view;
}
