// Tiny DOM helpers. Text always goes in as text nodes (never innerHTML), so a game name or a
// server message can never inject markup.

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.setAttribute("class", value);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "style") {
      // Through the CSSOM: the Content-Security-Policy (no 'unsafe-inline') blocks a style
      // attribute but not element.style.
      el.style.cssText = String(value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: h("button", {class: "x", onclick: f}, "text", child). */
export function h(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element, same signature as h. */
export function s(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Replace the children of el. */
export function mount(el, ...children) {
  el.replaceChildren();
  return fill(el, {}, children);
}

export function byId(id) {
  return document.getElementById(id);
}

/** A short message at the bottom of the screen (errors, "copied"). */
export function toast(text, kind = "info") {
  const box = byId("toasts");
  const item = h("div", {class: `toast toast-${kind}`, role: "status"}, text);
  box.append(item);
  setTimeout(() => item.remove(), kind === "error" ? 6000 : 2500);
}
