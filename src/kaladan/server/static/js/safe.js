// Safe turns (issue 40): a decision that cannot be taken back (a move, a swap, a placement, a
// purchase) is composed, then shown in a bar in words and sent only on an explicit "Send" (or
// Enter); "Cancel" (or Esc) drops it and nothing is sent. A drop where both a move and a swap
// are legal asks which one is meant; the answer is the confirmation. The engine has no undo:
// this bar is the only way back.

import {byId, h, mount} from "./dom.js";
import {actionWords, t} from "./i18n.js";

// The actions that place, move or spend (whatever step asks for them: the Action phase's moves
// and swaps, a reinforcement, a free spawn, a purchase, an event's free unit or upgrade, a
// card's deployment) wait for "Send". An attack has its own confirmation (the odds dialog), a
// gift its form's "Give"; the answers that only end a step (pass, done, no magic card) and the
// battle's answers stay one click. A choice of layout, not a rule: what is legal comes from the
// view.
const CONFIRMED = new Set(["move", "swap", "spawn", "place", "buy", "upgrade", "fortify",
  "buycard", "swapcard", "extracard", "deploy", "relocate"]);

/** Whether sending `action` waits for the confirm bar. */
export const needsConfirm = (action) => CONFIRMED.has(action.kind);

/**
 * Draw the bar into el. proposal: null (the bar hides), {kind: "confirm", action} or
 * {kind: "choose", move, swap}; handlers: {send(action), cancel()}.
 */
export function renderSafeBar(el, proposal, handlers) {
  if (!el) return;
  if (!proposal) {
    if (!el.hidden) { mount(el); el.hidden = true; }
    return;
  }
  el.hidden = false;
  const cancel = h("button", {type: "button", id: "safe-cancel", onclick: handlers.cancel}, t("safe.cancel"));
  if (proposal.kind === "choose") {
    mount(el,
      h("h2", {id: "safe-title"}, t("safe.move_or_swap")),
      h("div", {class: "buttons safe-buttons"},
        h("button", {type: "button", id: "safe-move", class: "primary", "data-action": proposal.move.text,
          onclick: () => handlers.send(proposal.move)}, t("safe.move", {what: actionWords(proposal.move)})),
        h("button", {type: "button", id: "safe-swap", class: "primary", "data-action": proposal.swap.text,
          onclick: () => handlers.send(proposal.swap)}, t("safe.swap", {what: actionWords(proposal.swap)})),
        cancel));
    return;
  }
  const action = proposal.action;
  mount(el,
    h("h2", {id: "safe-title"}, t("safe.send_this")),
    h("p", {class: "safe-what", id: "safe-what"}, h("b", {}, actionWords(action))),
    h("div", {class: "buttons safe-buttons"},
      h("button", {type: "button", id: "safe-send", class: "primary", "data-action": action.text ?? "",
        "aria-describedby": "safe-what",
        onclick: () => handlers.send(action)}, t("safe.send")),
      cancel),
    h("p", {class: "muted hint"}, t("safe.keys")));
}

/** The bar's first button (where focus goes when it opens). */
export const safeFirstButton = () => byId("safe-send") || byId("safe-move");

/** Keys while the bar is open: Esc cancels; Enter sends a proposal to confirm, unless focus is
 * on a control with its own Enter (a button, a link, a form field). */
export function safeKeys(event, proposal, handlers) {
  if (!proposal || event.defaultPrevented || event.isComposing) return;
  if (event.key === "Escape") {
    event.preventDefault();
    handlers.cancel();
    return;
  }
  if (event.key !== "Enter" || proposal.kind !== "confirm") return;
  if (event.target?.closest?.("button, a, input, textarea, select, summary, dialog")) return;
  event.preventDefault();
  event.stopPropagation();
  handlers.send(proposal.action);
}

/** The proposal again for a newer view of the same decision (a gift by anyone changes the
 * version, and may shift the legal list): a listed action is looked up by its kind and args
 * (null when it is gone); a composed one (no index) is kept as it is. */
export function proposalFor(view, proposal) {
  if (!proposal || proposal.kind !== "confirm" || !Number.isInteger(proposal.action.index)) return proposal;
  const same = (e) => e.kind === proposal.action.kind && JSON.stringify(e.args) === JSON.stringify(proposal.action.args);
  const entry = (view.legal || []).find(same);
  return entry ? {...proposal, action: entry} : null;
}
