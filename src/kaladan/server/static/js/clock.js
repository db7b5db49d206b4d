// Game clocks (docs/server.md "Time controls"): each seat's time next to it in the players
// panel, the running one counted down here between two views, the log's line for a decision
// the timeout bot made, and the button that takes a seat back from the bot.

import {api, storedToken, ApiError} from "./api.js";
import {h, toast} from "./dom.js";
import {t} from "./i18n.js";

const TICK_MS = 250;
let ticking = null;

/** Seconds as m:ss, or h:mm:ss (or "3d 4h" for turn clocks of days). */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const days = Math.floor(s / 86400);
  if (days >= 1) return t("clock.days", {d: days, h: Math.floor((s % 86400) / 3600)});
  const hours = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(hours ? 2 : 1, "0");
  const ss = String(s % 60).padStart(2, "0");
  return hours ? `${hours}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** A view's clock, stamped with when the page received it (the countdown runs from there:
 * the server's time, not this computer's, says how long is left). */
function stamped(view) {
  const clock = view?.clock;
  if (clock && clock.received === undefined) clock.received = performance.now();
  return clock || null;
}

function left(el) {
  const elapsed = (performance.now() - Number(el.dataset.received)) / 1000;
  return Number(el.dataset.remaining) - elapsed;
}

function tick() {
  for (const el of document.querySelectorAll(".seat-clock.running")) {
    const rest = left(el);
    el.querySelector(".clock-time").textContent = clockText(rest);
    el.classList.toggle("low", rest < 10);
  }
}

/** The clock of `seat` for its row in the players panel; null in an untimed game. */
export function seatClock(view, seat) {
  const clock = stamped(view);
  const mine = clock?.seats?.[seat];
  if (!mine) return null;
  if (ticking === null) ticking = setInterval(tick, TICK_MS);
  const classes = ["seat-clock"];
  if (mine.running) classes.push("running");
  if (mine.taken_over) classes.push("taken-over");
  const title = [t(`clock.kind_${clock.kind}`)];
  if (mine.reserve !== null) title.push(t("clock.reserve", {time: clockText(mine.reserve)}));
  if (mine.timeouts) title.push(t("clock.timeouts", {n: mine.timeouts}));
  return h("span", {class: classes.join(" "), "data-seat": seat, "data-remaining": mine.remaining,
    "data-received": clock.received, title: title.join(" · ")},
  h("span", {class: "clock-icon", "aria-hidden": "true"}, "⏱"), " ",
  h("span", {class: "clock-time"}, clockText(mine.remaining - (mine.running
    ? (performance.now() - clock.received) / 1000 : 0))),
  mine.taken_over ? h("span", {class: "badge taken"}, t("clock.taken_over", {bot: clock.control.timeout_bot})) : null);
}

/** "Take back my seat", for the viewer's seat when the timeout bot plays it; null otherwise. */
export function takeBackButton(view, gameId) {
  const clock = view?.clock;
  if (!clock || view.seat === null || !clock.seats[view.seat]?.taken_over || view.result) return null;
  const seat = view.seat;
  return h("button", {type: "button", class: "take-back", id: "take-back", onclick: async (event) => {
    event.target.disabled = true;
    try {
      await api("POST", `/api/games/${encodeURIComponent(gameId)}/seats/${seat}/takeback`,
        {token: storedToken(gameId, seat)});
    } catch (err) {
      event.target.disabled = false;
      toast(err instanceof ApiError ? err.message : String(err), "error");
    }
  }}, t("clock.take_back"));
}

/** The log's lines for the timeout bot's decisions, by the version they made: each goes
 * before that version's entries. */
export function timeoutLines(view, label) {
  const lines = new Map();
  for (const mark of view?.clock?.timed_out || []) {
    lines.set(mark.version, h("li", {class: "timeout-line", "data-version": mark.version},
      h("span", {class: "entry-text"}, t("clock.time_ran_out", {player: label(mark.seat), bot: mark.bot}))));
  }
  return lines;
}
