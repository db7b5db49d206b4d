// Dragging units on the board with pointer events (mouse, pen and touch alike). A press on a
// unit becomes a drag once the pointer has moved a few pixels; a label follows the pointer and
// the drop reports the tile and the unit under it. A press that does not move is a tap (the
// page cancels a finger's touchstart on these units so that it drags instead of scrolling,
// which also stops the browser's click: taps are reported from here).

import {LONG_PRESS_MS} from "./dice.js";
import {h} from "./dom.js";

const THRESHOLD = 6;  // px: less is a click
let active = null;  // the drag under way: {pointerId, pointerType, at, x, y, started, ghost, opts}

/** Whether a drag is under way (the page waits with re-drawing the board until it ends). */
export const dragging = () => Boolean(active?.started);

/** What lies under the pointer: the tile's name and the unit's slot on it (or null). */
function dropTarget(x, y) {
  const el = document.elementFromPoint(x, y);
  const tile = el?.closest?.("[data-tile]");
  const unit = el?.closest?.("[data-slot]");
  return {tile: tile ? tile.dataset.tile : null, slot: unit ? Number(unit.dataset.slot) : null};
}

// No text is selected while a unit is pressed or dragged: the press starts no selection, and
// during a drag the page is marked (html.dragging: user-select none, app.css "safe turns").
const noSelect = (event) => event.preventDefault();

function swallow(event) {
  // Only a click on the board: the confirm bar's buttons may be clicked at once.
  if (!event.target?.closest?.("#board")) return;
  window.removeEventListener("click", swallow, {capture: true});
  event.stopPropagation();
  event.preventDefault();
}

function end(event, drop) {
  const drag = active;
  active = null;
  window.removeEventListener("pointermove", onMove);
  window.removeEventListener("pointerup", onUp);
  window.removeEventListener("pointercancel", onCancel);
  document.removeEventListener("selectstart", noSelect);
  document.documentElement.classList.remove("dragging");
  if (!drag?.started) {
    // A finger or pen held still is a long press, which shows the unit's dice (dice.js): no tap.
    const held = drag && drag.pointerType !== "mouse" && performance.now() - drag.at >= LONG_PRESS_MS;
    if (drop && !held) drag?.opts.onTap();
    return;
  }
  drag.ghost.remove();
  // The click that may follow the release must not pick or unpick a unit.
  window.addEventListener("click", swallow, {capture: true});
  setTimeout(() => window.removeEventListener("click", swallow, {capture: true}), 100);
  drag.opts.onEnd(drop ? dropTarget(event.clientX, event.clientY) : null);
}

function onMove(event) {
  const drag = active;
  if (!drag || event.pointerId !== drag.pointerId) return;
  if (!drag.started) {
    if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < THRESHOLD) return;
    drag.started = true;
    document.documentElement.classList.add("dragging");
    window.getSelection()?.removeAllRanges();
    drag.ghost = h("div", {class: "drag-ghost", "aria-hidden": "true"}, drag.opts.onStart());
    document.body.append(drag.ghost);
  }
  event.preventDefault();
  drag.ghost.style.transform = `translate(${event.clientX + 12}px, ${event.clientY + 12}px)`;
}

const onUp = (event) => { if (active && event.pointerId === active.pointerId) end(event, true); };
const onCancel = (event) => { if (active && event.pointerId === active.pointerId) end(event, false); };

/**
 * Start watching a press on a unit. opts: onTap() when it is released without moving (a
 * click or a tap), onStart() -> the ghost's label when the press becomes a drag, onEnd(target)
 * with {tile, slot} under the pointer at the drop, or null when the drag was cancelled.
 */
export function pressUnit(event, opts) {
  if (event.button !== 0 || active) return;
  active = {pointerId: event.pointerId, pointerType: event.pointerType, at: performance.now(),
    x: event.clientX, y: event.clientY, started: false, ghost: null, opts};
  window.addEventListener("pointermove", onMove, {passive: false});
  window.addEventListener("pointerup", onUp);
  window.addEventListener("pointercancel", onCancel);
  document.addEventListener("selectstart", noSelect);
}
