// Moving a seat to another device (issue 40): the seat asks the server for a one-time link
// (and its QR code); the device that opens it plays the seat from then on, and this one is
// told so (the game page's seatMoved). The panel keeps what the server answered while the
// page is drawn again view after view.

import {byId, h, mount, s, toast} from "./dom.js";
import {t} from "./i18n.js";

// state: null, {busy}, {link, url, qr} (the answer) or {error}; view: the latest drawn;
// page: {ask() -> the server's answer, moved()}, from the game page.
const panel = {state: null, view: null, page: null};

/** Forget the answer of another game (a new game page). */
export function resetHandOver() {
  panel.state = null;
}

/** The hand-over panel of a seat's page: a button, then the link and its QR code. Hidden for
 * a spectator and once the game is over. */
export function renderHandOver(el, view, page) {
  Object.assign(panel, {view, page});
  if (!el) return;
  el.hidden = view.seat === null || Boolean(view.result || view.observation.result);
  if (el.hidden) return;
  const state = panel.state;
  const given = state?.link;
  mount(el,
    h("h2", {}, t("handover.title")),
    h("p", {class: "muted"}, t("handover.hint")),
    h("button", {type: "button", id: "handover-button", disabled: Boolean(state?.busy), onclick: ask},
      t(given ? "handover.again" : "handover.button")),
    state?.error ? h("p", {class: "error"}, state.error) : null,
    given ? h("div", {class: "handover-link", id: "handover-link"},
      h("p", {}, t("handover.open_there")),
      h("a", {href: state.url, id: "handover-url", class: "game-link", "data-seat": view.seat}, state.link),
      " ",
      h("button", {type: "button", class: "copy", onclick: async () => {
        try { await navigator.clipboard.writeText(state.link); toast(t("lobby.copied")); }
        catch { toast(state.link); }
      }}, t("lobby.copy")),
      qrImage(state.qr)) : null);
}

async function ask() {
  const redraw = () => renderHandOver(byId("handover"), panel.view, panel.page);
  panel.state = {busy: true};
  redraw();
  try {
    const answer = await panel.page.ask();
    panel.state = {link: answer.link, url: answer.url, qr: answer.qr};
  } catch (err) {
    if (err.code === "seat_moved") { panel.page.moved(); return; }
    panel.state = {error: err.message};
  }
  redraw();
  byId("handover-url")?.focus();
}

/** The server's QR code (SVG text) drawn again from its parts: the view box and its paths
 * (never inserted as markup: dom.js). */
function qrImage(svgText) {
  const parsed = new DOMParser().parseFromString(svgText || "", "image/svg+xml").documentElement;
  if (!parsed || parsed.localName !== "svg") return null;
  const paths = [...parsed.children].filter((child) => child.localName === "path").map((path) =>
    s("path", {d: path.getAttribute("d"), fill: path.getAttribute("fill"), stroke: path.getAttribute("stroke")}));
  return s("svg", {class: "qr", id: "handover-qr", viewBox: parsed.getAttribute("viewBox"), role: "img",
    "aria-label": t("handover.qr")}, paths);
}
