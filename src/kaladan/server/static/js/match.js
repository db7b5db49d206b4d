// Players who come back (issue 39): quick match and open games in the lobby, the page
//   /me/games                the signed-in player's games, theirs to decide first
//   /unsubscribe?token=      turn mails off (a button: opening the link changes nothing)
// and "your turn" wherever the player is: the tab's title, the chime, a browser notification.

import {api, ApiError, currentSession} from "./api.js";
import {botLabel, botSelect, defaultLevel} from "./bots.js";
import {h, mount, toast} from "./dom.js";
import {t} from "./i18n.js";
import {chime} from "./sound.js";
import {teamGroups, teamLine} from "./teams.js";

const WAITS = [30, 60, 120, 300, 600];
const MATCH_POLL = 2000;  // ms between two looks at the queue while waiting
const TURN_POLL = 20000;  // ms between two looks at the player's games
const signInLink = () => h("a", {href: "/signin?next=/", class: "signin-to-play"}, t("match.sign_in_to_play"));

// --- quick match ------------------------------------------------------------------------

const choice = {players: 2, wait: 60, bots: null};  // bots: the middle level until chosen
let matchTimer = null;

export function showQuickMatch(el) {
  if (!el) return;
  clearTimeout(matchTimer);
  if (!currentSession()) {
    mount(el, h("h2", {}, t("match.quick")), h("p", {class: "muted"}, t("match.quick_hint")), h("p", {}, signInLink()));
    return;
  }
  lookAtQueue(el);
}

async function lookAtQueue(el) {
  let status;
  try { status = await api("GET", "/api/match"); }
  catch (err) { mount(el, h("h2", {}, t("match.quick")), h("p", {class: "error"}, err.message)); return; }
  renderQueue(el, status);
}

function renderQueue(el, status) {
  clearTimeout(matchTimer);
  if (status.status === "matched" && status.url && sessionStorage.getItem("kaladan.matching")) {
    sessionStorage.removeItem("kaladan.matching");
    location.href = status.url;  // the seat is the player's: played with the session
    return;
  }
  if (status.status === "waiting") {
    sessionStorage.setItem("kaladan.matching", "1");
    mount(el, h("h2", {}, t("match.quick")),
      h("p", {id: "match-status", class: "match-waiting", role: "status"},
        t("match.waiting", {position: status.position, count: status.count, players: status.players})),
      h("p", {class: "muted"}, t("match.waiting_hint", {seconds: status.wait, bots: botLabel(status.bots)})),
      h("button", {type: "button", id: "match-leave", onclick: leave(el)}, t("match.leave")));
    matchTimer = setTimeout(() => { if (document.body.contains(el)) lookAtQueue(el); }, MATCH_POLL);
    return;
  }
  const select = (id, values, current, label, format, set) => h("label", {for: id}, h("span", {}, label),
    h("select", {id, onchange: (e) => set(e.target.value)},
      values.map((v) => h("option", {value: v, selected: String(v) === String(current)}, format(v)))));
  choice.bots ??= defaultLevel();
  mount(el, h("h2", {}, t("match.quick")),
    h("p", {class: "muted"}, t("match.quick_hint")),
    h("form", {id: "match-form", onsubmit: (e) => { e.preventDefault(); join(el); }},
      select("match-players", [2, 3, 4, 5, 6], choice.players, t("lobby.players"), String, (v) => { choice.players = Number(v); }),
      select("match-wait", WAITS, choice.wait, t("match.wait"), (v) => t("match.seconds", {n: v}), (v) => { choice.wait = Number(v); }),
      h("label", {for: "match-bots"}, h("span", {}, t("match.bots")),
        botSelect("match-bots", choice.bots, (v) => { choice.bots = v; })),
      h("button", {type: "submit", id: "match-join", class: "primary"}, t("match.find"))),
    status.status === "matched" ? h("p", {}, h("a", {href: status.url, id: "match-game"}, t("match.last_game"))) : null);
}


async function join(el) {
  try {
    sessionStorage.setItem("kaladan.matching", "1");
    renderQueue(el, await api("POST", "/api/match", {body: {players: choice.players, wait: choice.wait, bots: choice.bots}}));
  } catch (err) {
    sessionStorage.removeItem("kaladan.matching");
    toast(err.message, "error");
  }
}

const leave = (el) => async () => {
  sessionStorage.removeItem("kaladan.matching");
  try { renderQueue(el, await api("DELETE", "/api/match")); } catch (err) { toast(err.message, "error"); }
};

// --- open games -------------------------------------------------------------------------

/** The lobby's games with a free seat any signed-in player may take with one click. */
export function renderOpenGames(el, games) {
  if (!el) return;
  const me = currentSession();
  const open = games.filter((g) => g.open_seats && g.status === "open"
    && g.seats.some((s) => s.kind === "human" && !s.joined));
  const seated = (g) => me && g.seats.some((s) => s.player === me.name);
  mount(el, h("h2", {}, t("match.open_games")),
    open.length ? h("ul", {class: "open-games"}, open.map((g) => h("li", {"data-game": g.game_id},
      h("span", {class: "open-name"}, g.name || g.game_id), " ",
      h("span", {class: "muted"}, `${t(`value.${g.mode}`)} · ${openSeatsText(g)}`),
      g.rated ? h("span", {class: "badge rated"}, t("match.rated")) : null, " ",
      !me ? signInLink()
        : seated(g) ? h("span", {class: "muted"}, t("match.seated"))
          : g.seats.filter((s) => s.kind === "human" && !s.joined).map((s) =>
            h("button", {type: "button", class: "take-seat", id: `take-${g.game_id}-${s.seat}`, onclick: () => takeSeat(g.game_id, s.seat)},
              t("match.take_seat", {n: s.seat + 1}))))))
      : h("p", {class: "muted"}, t("match.no_open_games")));
}

/** An open game's seats: who sits where, in a team game by team ("Team 1: P1 Anna, P3 —"). */
function openSeatsText(game) {
  const who = (seat) => seat.player || (seat.kind === "human" ? "—" : botLabel(seat.bot || seat.kind));
  const groups = teamGroups(game.seats.map((seat) => seat.team));
  if (!groups.length) return game.seats.map(who).join(", ");
  return groups.map((group) => teamLine(group,
    (seat) => `${t("game.player_short", {n: seat + 1})} ${who(game.seats[seat])}`)).join(" · ");
}

async function takeSeat(gameId, seat) {
  try {
    await api("POST", `/api/games/${encodeURIComponent(gameId)}/seats/${seat}/join`, {body: {}});
    location.href = `/play/${encodeURIComponent(gameId)}/${seat}`;
  } catch (err) {
    toast(err.message, "error");
  }
}

// --- my games ---------------------------------------------------------------------------

export async function showMyGames(root) {
  document.title = `${t("match.my_games")} · ${t("app.title")}`;
  if (!currentSession()) {
    mount(root, h("section", {class: "panel my-games"}, h("h1", {}, t("match.my_games")), h("p", {}, signInLink())));
    return;
  }
  const panel = h("section", {class: "panel my-games", id: "my-games"}, h("h1", {}, t("match.my_games")));
  mount(root, panel);
  let games;
  try { games = (await api("GET", "/api/me/games")).games; }
  catch (err) { panel.append(h("p", {class: "error"}, err.message)); return; }
  panel.append(
    notificationButton(),
    games.length ? h("table", {class: "games my-games-list"},
      h("thead", {}, h("tr", {}, [t("lobby.name"), t("lobby.mode"), t("match.players"), t("lobby.status")].map((c) => h("th", {}, c)),
        h("th", {}, h("span", {class: "visually-hidden"}, t("match.open"))))),
      h("tbody", {}, games.map((g) => h("tr", {"data-game": g.game_id, class: g.your_turn ? "your-turn" : null},
        h("td", {}, h("a", {href: g.url}, g.name)),
        h("td", {}, t(`value.${g.mode}`)),
        h("td", {}, g.players.map((p, i) => (i === g.seat ? `${p} (${t("match.you")})` : p || "—")).join(", ")),
        h("td", {class: "turn-state"}, g.your_turn ? h("strong", {}, t("match.your_turn"))
          : g.status === "over" ? t("status.over") : t("match.waiting_for_others")),
        h("td", {}, h("a", {href: g.status === "over" ? `/replay/${encodeURIComponent(g.game_id)}` : g.url},
          g.status === "over" ? t("lobby.replay") : t("match.open")))))))
      : h("p", {class: "muted"}, t("match.no_games")));
}

// --- unsubscribe ------------------------------------------------------------------------

export function showUnsubscribe(root) {
  const token = new URLSearchParams(location.search).get("token") || "";
  document.title = `${t("match.unsubscribe")} · ${t("app.title")}`;
  const done = h("p", {id: "unsubscribe-done", role: "status"});
  mount(root, h("section", {class: "panel unsubscribe"},
    h("h1", {}, t("match.unsubscribe")),
    h("p", {}, t("match.unsubscribe_hint")),
    h("button", {type: "button", id: "unsubscribe", class: "primary", onclick: async () => {
      try {
        await api("POST", `/api/unsubscribe?token=${encodeURIComponent(token)}`);
        done.textContent = t("match.unsubscribed");
      } catch (err) { done.textContent = err.message; }
    }}, t("match.unsubscribe_button")), done));
}

// --- your turn, wherever the player is --------------------------------------------------

let titlePrefix = "";
let known = null;  // "game@since" of the games waiting for the player, as last seen

/** Ask for the browser's notifications: only from this button, never on load. */
export function notificationButton() {
  if (!("Notification" in window) || Notification.permission !== "default") return null;
  return h("button", {type: "button", id: "notify-permission", class: "link", onclick: async (e) => {
    e.target.disabled = true;
    try { await Notification.requestPermission(); } finally { e.target.remove(); }
  }}, t("match.notify_me"));
}

const OURS = /^\(\d+\) [^·]*· /;  // the prefix this module puts before the page's own title

function applyTitle() {
  const wanted = titlePrefix + document.title.replace(OURS, "");
  if (document.title !== wanted) document.title = wanted;
}

/** While a signed-in player has any page open, look at their games now and then; when a
 * game becomes theirs to decide, say so in the title, with the chime and (if they allowed
 * it) a notification. The game the page shows is left out: its own page tells. */
export function watchTurns(current) {
  if (!currentSession()) return;
  const here = current.page === "play" ? current.gameId : null;
  const title = document.querySelector("title");
  if (title) new MutationObserver(applyTitle).observe(title, {childList: true});
  const look = async () => {
    let games;
    try { games = (await api("GET", "/api/me/games")).games; }
    catch (err) { if (err instanceof ApiError && err.status === 401) return; games = null; }
    if (games) {
      const waiting = games.filter((g) => g.your_turn && g.game_id !== here);
      titlePrefix = waiting.length ? `(${waiting.length}) ${t("match.title_turn")} · ` : "";
      applyTitle();
      const keys = waiting.map((g) => `${g.game_id}@${g.since}`);
      const fresh = known === null ? [] : waiting.filter((g, i) => !known.includes(keys[i]));
      known = keys;
      if (fresh.length) announce(fresh);
      document.body.dataset.turns = String(waiting.length);
    }
    setTimeout(look, TURN_POLL);
  };
  look();
}

function announce(games) {
  chime();
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  const body = games.map((g) => g.name).join(", ");
  try {
    const note = new Notification(t("match.title_turn"), {body, tag: "kaladan-turn"});
    note.onclick = () => { window.focus(); location.href = games[0].url; };
  } catch { /* some browsers only notify from a service worker */ }
}
