// The game page's chat (docs/ui.md "Chat"): the players' channel for seats, the spectators'
// channel for everybody, as tabs. Messages are plain text and go into the page as text nodes
// only (dom.js), never as markup. A seat sends over the WebSocket (HTTP while it is down);
// the history is read over HTTP when the panel opens and after every reconnect. Muting an
// author hides their messages from this reader, on the server; the chat-off switch hides the
// panel and stops the server sending any: the account's setting when signed in, else this
// browser's (the socket's `chat=off`).

import {api, currentSession, setSession} from "./api.js";
import {byId, h, mount, toast} from "./dom.js";
import {t} from "./i18n.js";

const OFF_KEY = "kaladan.chat";  // "off": this browser turned the chat off (a guest's choice)
const MAX_TEXT = 300;

const chat = {gameId: null, seat: null, token: null, socket: null, channel: "players",
  messages: {players: [], spectators: []}, muted: [], names: () => ""};

export const chatOn = () => (currentSession() ? currentSession().chat !== false
  : localStorage.getItem(OFF_KEY) !== "off");

/** Start the chat of a game page; `names(seat)` names a seat (its realm, once known). */
export function startChat({gameId, seat, token, names}) {
  Object.assign(chat, {gameId, seat, token, socket: null, names,
    channel: seat === null ? "spectators" : "players",
    messages: {players: [], spectators: []}, muted: []});
}

export function setChatSocket(socket) { chat.socket = socket; }

const channels = () => (chat.seat === null ? ["spectators"] : ["players", "spectators"]);
const path = (tail = "") => `/api/games/${encodeURIComponent(chat.gameId)}/chat${tail}`;

/** Read what is newer than what the page holds, on every channel the reader may read. */
export async function loadChat() {
  if (!chatOn() || !chat.gameId) return;
  for (const channel of channels()) {
    const list = chat.messages[channel];
    const after = list.length ? list[list.length - 1].id : 0;
    try {
      const got = await api("GET", path(`?channel=${channel}&after=${after}`), {token: chat.token});
      for (const message of got.messages) add(message);
      chat.muted = got.muted;
    } catch { return; }  // the panel shows what it has; the next reconnect tries again
  }
  drawMessages();
}

/** A message the socket brought. */
export function onChat(message) {
  if (!chatOn()) return;
  add(message);
  drawMessages();
  if (message.channel !== chat.channel) byId(`chat-tab-${message.channel}`)?.classList.add("unread");
}

function add(message) {
  const list = chat.messages[message.channel];
  if (!list || list.some((m) => m.id === message.id)) return;
  list.push(message);
  list.sort((a, b) => a.id - b.id);
}

const authorName = (message) => message.author || chat.names(message.seat)
  || (message.seat === null ? t("chat.spectator") : t("game.seat", {n: message.seat + 1}));

/** The chat panel into `panel` (drawn again only on a language switch: typing goes on). */
export function renderChat(panel) {
  if (!panel) return;
  const on = chatOn();
  const toggle = h("label", {class: "chat-switch"},
    h("input", {type: "checkbox", id: "chat-on", checked: on, onchange: (e) => setChatOn(e.target.checked)}),
    " ", t("chat.on"));
  if (!on) { mount(panel, h("h2", {}, t("chat.title")), toggle); return; }
  // a seat writes to the players' channel, a signed-in spectator to the spectators'
  const writes = chat.seat !== null ? chat.channel === "players" : Boolean(currentSession());
  const input = h("input", {type: "text", id: "chat-text", maxlength: MAX_TEXT, autocomplete: "off",
    "aria-label": t("chat.message"), placeholder: t("chat.placeholder")});
  mount(panel,
    h("h2", {}, t("chat.title")), toggle,
    channels().length > 1 ? h("div", {class: "chat-tabs", role: "tablist"}, channels().map((channel) =>
      h("button", {type: "button", role: "tab", id: `chat-tab-${channel}`, "aria-selected": String(channel === chat.channel),
        onclick: () => { chat.channel = channel; renderChat(panel); }}, t(`chat.channel_${channel}`)))) : null,
    h("ol", {class: "chat-messages", id: "chat-messages", "aria-live": "polite"}),
    writes
      ? h("form", {class: "chat-form", id: "chat-form", onsubmit: (e) => { e.preventDefault(); send(input); }},
        input, h("button", {type: "submit", id: "chat-send"}, t("chat.send")))
      : h("p", {class: "muted"}, t(chat.seat !== null ? "chat.spectators_write" : "chat.sign_in")),
    h("div", {class: "chat-muted", id: "chat-muted"}));
  drawMessages();
}

function drawMessages() {
  const list = byId("chat-messages");
  if (!list) return;
  const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  const mutable = chat.seat !== null || Boolean(currentSession());  // a seat or an account mutes
  const own = (m) => (chat.seat !== null ? m.seat === chat.seat
    : m.seat === null && m.author === currentSession()?.name);
  mount(list, chat.messages[chat.channel].map((m) => h("li", {class: "chat-message", dataset: {id: String(m.id)}},
    h("b", {class: "chat-author"}, authorName(m)), " ",
    h("span", {class: "chat-text"}, m.text),
    mutable && !own(m) ? h("button", {type: "button", class: "chat-mute link",
      title: t("chat.mute_title", {who: authorName(m)}), onclick: () => mute(m.id, true)}, t("chat.mute")) : null)));
  if (stick) list.scrollTop = list.scrollHeight;
  const muted = byId("chat-muted");
  if (muted) mount(muted, chat.muted.length ? [h("span", {class: "muted"}, t("chat.muted"), " "),
    chat.muted.map((m) => h("button", {type: "button", class: "chat-unmute link", onclick: () => mute(m.message, false)},
      t("chat.unmute", {who: authorName(m)})))] : null);
}

async function send(input) {
  const text = input.value.trim();
  if (!text) return;
  if (!chat.socket?.send({type: "chat", text})) {
    try { add(await api("POST", path(), {token: chat.token, body: {text}})); drawMessages(); }
    catch (err) { toast(err.message, "error"); return; }
  }
  input.value = "";
}

async function mute(messageId, muted) {
  try {
    const got = await api("POST", path("/mutes"), {token: chat.token, body: {message: messageId, muted}});
    chat.muted = got.muted;
  } catch (err) { toast(err.message, "error"); return; }
  // what the server no longer sends is taken off the page; unmuted messages come back
  chat.messages = {players: [], spectators: []};
  await loadChat();
}

async function setChatOn(on) {
  if (currentSession()) {  // the account's setting, on every device
    try { setSession(await api("PATCH", "/api/account", {body: {chat: on}})); }
    catch (err) { toast(err.message, "error"); return; }
  } else localStorage.setItem(OFF_KEY, on ? "on" : "off");
  chat.socket?.reconnect?.();  // the server hears it with the new socket
  renderChat(byId("chat"));
  if (on) loadChat();
}
