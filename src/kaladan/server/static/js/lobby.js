// The lobby: create a game (mode, seats, world, R3.3 options), hand out the links, list games.

import {api, currentSession} from "./api.js";
import {botLabel, botSelect, defaultLevel} from "./bots.js";
import {byId, h, mount, toast} from "./dom.js";
import {currentLang, rulesData, t} from "./i18n.js";
import {renderOpenGames, showQuickMatch} from "./match.js";
import {teamGroups, teamLine, teamList} from "./teams.js";

// The R3.3 options offered in the lobby, with their values (the default first), as the
// engine has them (rules.json); the world has a field of its own.
const lobbyOptions = () => Object.entries(rulesData().options).filter(([name]) => name !== "world");
// The worlds a game can be created with here: a custom world needs a layout file (R4.14).
const worlds = () => rulesData().options.world.filter((kind) => kind !== "custom");
// The modes and the player counts each allows (R5.1, R23.1), as the engine has them: a mode
// with one count fixes the number of seats.
const counts = (mode) => rulesData().modes[mode];
const seatsOf = (mode, players) => (counts(mode).length === 1 ? counts(mode)[0] : players);
const LIST_LIMIT = 25;
// Time controls offered in the lobby (the API takes any, docs/api.md): none, live, daily.
const CLOCKS = {none: null, live: {kind: "live", decision: 60, reserve: 300},
  blitz: {kind: "live", decision: 20, reserve: 120}, day: {kind: "turn", turn: 86400}};  // the newest games; a busy server lists many

// seats: "human" and the middle level (the default opponent) until the first form is drawn
const form = {mode: "free_for_all", players: 2, seats: null,
  world: null, quick: true, name: "", options: {},  // world null: the option's default
  hints: null,  // advice on request: null follows the seats (on when a bot plays)
  openSeats: false, rated: false, clock: "none"};  // signed-in players only: free seats for anyone signed in, rated
let created = null;
let listTimer = null;

const kindLabel = botLabel;

function select(id, values, current, label, onchange, format = optionLabel) {
  return h("label", {for: id}, h("span", {}, label),
    h("select", {id, onchange: (e) => onchange(e.target.value)},
      values.map((v) => h("option", {value: v, selected: String(v) === String(current)}, format(v)))));
}

function optionLabel(value) {
  const key = `value.${value}`;
  const text = t(key);
  return text === key ? String(value) : text;
}

function renderForm(el) {
  const fixed = counts(form.mode).length === 1;
  const players = seatsOf(form.mode, form.players);
  form.seats ??= ["human", ...Array(5).fill(defaultLevel())];
  const seatRows = Array.from({length: players}, (_, i) => h("li", {},
    h("label", {for: `seat-${i}`}, h("span", {}, t("lobby.seat", {n: i + 1})),
      botSelect(`seat-${i}`, form.seats[i], (v) => { form.seats[i] = v; if (form.hints === null) renderForm(el); },
        ["human"]))));
  mount(el,
    h("h2", {}, t("lobby.create")),
    h("form", {id: "create-form", onsubmit: (e) => { e.preventDefault(); createGame(); }},
      h("label", {for: "game-name"}, h("span", {}, t("lobby.name")),
        h("input", {id: "game-name", maxlength: 60, value: form.name, placeholder: t("lobby.name_hint"),
          oninput: (e) => { form.name = e.target.value; }})),
      select("mode", Object.keys(rulesData().modes), form.mode, t("lobby.mode"),
        (v) => { form.mode = v; renderForm(el); }),
      fixed ? null : select("players", counts(form.mode), form.players, t("lobby.players"),
        (v) => { form.players = Number(v); renderForm(el); }),
      h("fieldset", {}, h("legend", {}, t("lobby.seats")), h("ol", {class: "seats"}, seatRows)),
      select("world", worlds(), form.world || worlds()[0], t("lobby.world"), (v) => { form.world = v; }),
      h("label", {class: "check", for: "quick"},
        h("input", {id: "quick", type: "checkbox", checked: form.quick, onchange: (e) => { form.quick = e.target.checked; }}),
        h("span", {}, t("lobby.quick"))),
      h("label", {class: "check", for: "hints"},
        h("input", {id: "hints", type: "checkbox", checked: hintsOn(),
          onchange: (e) => { form.hints = e.target.checked; }}),
        h("span", {}, t("lobby.hints"))),
      select("time-control", Object.keys(CLOCKS), form.clock, t("clock.control"),
        (v) => { form.clock = v; }, (v) => t(`clock.control_${v}`)),
      currentSession() ? h("label", {class: "check", for: "open-seats"},
        h("input", {id: "open-seats", type: "checkbox", checked: form.openSeats, onchange: (e) => { form.openSeats = e.target.checked; }}),
        h("span", {}, t("match.open_to_signed_in"))) : null,
      currentSession() ? h("label", {class: "check", for: "rated"},
        h("input", {id: "rated", type: "checkbox", checked: form.rated, "aria-describedby": "rated-hint",
          onchange: (e) => { form.rated = e.target.checked; }}),
        h("span", {}, t("match.rated_game"))) : null,
      currentSession() ? h("p", {class: "muted match-hint", id: "rated-hint"}, t("match.rated_hint")) : null,
      h("details", {class: "options"}, h("summary", {}, t("lobby.options")),
        lobbyOptions().map(([name, values]) =>
          select(`opt-${name}`, values, form.options[name] || values[0], t(`option.${name}`),
            (v) => { form.options[name] = v; }))),
      h("button", {type: "submit", id: "create", class: "primary"}, t("lobby.create_button"))));
}

/** Advice on request: as chosen, else on when a bot plays (the server's default too). */
const hintsOn = () => (form.hints === null
  ? form.seats.slice(0, seatsOf(form.mode, form.players)).some((kind) => kind !== "human") : form.hints);

/** A name in the creator's language when none is given ("Spel van 14:05"; the server's default
 * is English). */
const defaultName = () => t("lobby.default_name",
  {time: new Date().toLocaleTimeString(currentLang(), {hour: "2-digit", minute: "2-digit"})});

async function createGame() {
  const players = seatsOf(form.mode, form.players);
  const options = {};
  for (const [name, value] of Object.entries(form.options)) {
    if (value !== rulesData().options[name][0]) options[name] = value;
  }
  if (form.world && form.world !== worlds()[0]) options.world = form.world;
  const body = {mode: form.mode, seats: form.seats.slice(0, players), options, quick: form.quick,
    hints: hintsOn(), name: form.name.trim() || defaultName()};
  if (CLOCKS[form.clock]) body.time_control = CLOCKS[form.clock];
  if (currentSession()) {
    body.open_seats = form.openSeats;
    if (form.rated) Object.assign(body, {rated: true, hints: false});  // a rated game gives no advice
  }
  try {
    created = await api("POST", "/api/games", {body});
    // the game's summary names its teams (seat.team): the links say who plays with whom
    try { created.summary = await api("GET", `/api/games/${encodeURIComponent(created.game_id)}`); }
    catch { created.summary = null; }
    renderCreated(byId("created"));
    refreshList();
  } catch (err) {
    toast(`${t("lobby.create_failed")}: ${err.message}`, "error");
  }
}

function linkRow(label, path, id) {
  const url = new URL(path, location.origin).href;
  return h("li", {},
    h("span", {class: "link-label"}, label),
    h("a", {href: path, id, class: "game-link"}, url),
    h("button", {type: "button", class: "copy", onclick: async () => {
      try { await navigator.clipboard.writeText(url); toast(t("lobby.copied")); }
      catch { toast(url); }
    }}, t("lobby.copy")));
}

function renderCreated(el) {
  if (!created) { mount(el); el.hidden = true; return; }
  el.hidden = false;
  // One person at the table: play at once in this browser (its join link takes the seat).
  const alone = created.join.length === 1;
  const seats = created.summary?.seats || [];
  const teamOf = (seat) => seats[seat]?.team;
  const joinLabel = (seat) => (teamOf(seat) === null || teamOf(seat) === undefined
    ? t("lobby.join_seat", {n: seat + 1})
    : `${t("lobby.join_seat", {n: seat + 1})} · ${t("glance.team_score", {n: teamOf(seat) + 1})}`);
  mount(el,
    h("h2", {}, t("lobby.created")),
    alone ? h("p", {}, h("a", {href: created.join[0].url, id: "play-now", class: "button primary"}, t("lobby.play_now"))) : null,
    h("p", {class: "muted"}, t(alone ? "lobby.link_alone" : "lobby.links_once")),
    teamList(teamGroups(seats.map((seat) => seat.team)), (seat) => seatName(seats[seat]), {id: "created-teams"}),
    h("ul", {class: "links"},
      created.join.map((j) => linkRow(joinLabel(j.seat), j.url, `join-${j.seat}`)),
      linkRow(t("lobby.spectate"), created.spectate, "spectate-link")));
}

/** A seat in the lobby: "P1" with its player, its bot or "human" (✓ once joined). */
function seatName(seat) {
  const who = seat.player || (seat.kind === "human" ? `${t("seat.human")}${seat.joined ? " ✓" : ""}`
    : kindLabel(seat.bot || seat.kind));
  return `${t("game.player_short", {n: seat.seat + 1})} (${who})`;
}

/** A game's seats in a list: in a team game by team ("Team 1: P1 (…), P3 (…)"). */
export function seatsCell(game, seatText) {
  const groups = teamGroups(game.seats.map((seat) => seat.team));
  if (!groups.length) return game.seats.map(seatText).join(", ");
  return groups.map((group) => teamLine(group, (seat) => seatName(game.seats[seat]))).join(" · ");
}

/** Who won a finished game, as the end screen names them: "Team 1 (P1, P3)", "P2 (Anna)", a
 * draw; "—" when the server does not know (a game finished before it kept the winners). */
function winnerText(game) {
  if (!Array.isArray(game.winners)) return "—";
  if (!game.winners.length) return t("end.draw");
  const names = game.winners.map((seat) => seatName(game.seats[seat]));
  if (game.winning_team !== null && game.winning_team !== undefined) {
    return teamLine({team: game.winning_team, seats: game.winners}, (seat) => seatName(game.seats[seat]));
  }
  return names.join(", ");
}

/** When a finished game ended, in the reader's language ("—": not known). */
function finishedText(game) {
  if (!game.finished_at) return "—";
  return new Date(game.finished_at).toLocaleString(currentLang(), {dateStyle: "medium", timeStyle: "short"});
}

async function refreshList() {
  const el = byId("games");
  if (!el) return;
  let games = [];
  try { games = (await api("GET", "/api/games")).games; }
  catch (err) { mount(el, h("h2", {}, t("lobby.games")), h("p", {class: "error"}, err.message)); return; }
  const active = games.filter((g) => g.status !== "over")
    .sort((a, b) => String(b.created).localeCompare(String(a.created)));
  const shown = active.slice(0, LIST_LIMIT);
  const seatText = (seat) => (seat.kind === "human" ? `${t("seat.human")}${seat.joined ? " ✓" : ""}` : kindLabel(seat.bot || seat.kind));
  mount(el,
    h("h2", {}, t("lobby.games"), " ", h("button", {type: "button", class: "link", onclick: refreshList}, t("lobby.refresh"))),
    shown.length ? h("table", {class: "games"},
      h("thead", {}, h("tr", {}, [t("lobby.name"), t("lobby.mode"), t("lobby.seats"), t("lobby.status")].map((c) => h("th", {}, c)),
        hiddenHead(t("lobby.watch")))),
      h("tbody", {}, shown.map((g) => h("tr", {"data-game": g.game_id},
        h("td", {}, g.name || g.game_id),
        h("td", {}, t(`value.${g.mode}`)),
        h("td", {}, seatsCell(g, seatText)),
        h("td", {}, t(`status.${g.status}`)),
        h("td", {}, h("a", {href: `/watch/${encodeURIComponent(g.game_id)}`}, t("lobby.watch")))))))
      : h("p", {class: "muted"}, t("lobby.no_games")),
    active.length > shown.length ? h("p", {class: "muted"}, t("lobby.more_games", {n: active.length - shown.length})) : null);
  renderOpenGames(byId("open-games"), games);
  renderFinished(byId("finished"), games, seatText);
}

/** The header of a column of links: named for screen readers, empty to the eye (axe:
 * empty-table-header). */
const hiddenHead = (label) => h("th", {}, h("span", {class: "visually-hidden"}, label));

/** The finished games, newest first, each with a link to its replay. */
function renderFinished(el, games, seatText) {
  if (!el) return;
  // newest end first (a game whose end is not known: by its creation)
  const when = (g) => String(g.finished_at || g.created);
  const over = games.filter((g) => g.status === "over").sort((a, b) => when(b).localeCompare(when(a)));
  const shown = over.slice(0, LIST_LIMIT);
  mount(el,
    h("h2", {}, t("lobby.finished")),
    shown.length ? h("table", {class: "games finished"},
      h("thead", {}, h("tr", {}, [t("lobby.name"), t("lobby.mode"), t("lobby.seats"), t("lobby.winner"),
        t("lobby.finished_at")].map((c) => h("th", {}, c)),
        hiddenHead(t("lobby.replay")))),
      h("tbody", {}, shown.map((g) => h("tr", {"data-game": g.game_id},
        h("td", {}, g.name || g.game_id),
        h("td", {}, t(`value.${g.mode}`)),
        h("td", {}, seatsCell(g, seatText)),
        h("td", {class: "winner"}, winnerText(g)),
        h("td", {class: "finished-at"}, g.finished_at
          ? h("time", {datetime: g.finished_at}, finishedText(g)) : "—"),
        h("td", {}, h("a", {href: `/replay/${encodeURIComponent(g.game_id)}`, class: "replay-link"}, t("lobby.replay")))))))
      : h("p", {class: "muted"}, t("lobby.no_finished")),
    over.length > shown.length ? h("p", {class: "muted"}, t("lobby.more_games", {n: over.length - shown.length})) : null);
}

export function showLobby(root) {
  mount(root,
    h("div", {class: "lobby"},
      h("section", {class: "panel", id: "create-panel"}),
      h("section", {class: "panel", id: "created", hidden: true}),
      h("section", {class: "panel", id: "games"}),
      h("section", {class: "panel", id: "quick-match"}),
      h("section", {class: "panel", id: "open-games"}),
      h("section", {class: "panel", id: "finished"})));
  renderForm(byId("create-panel"));
  renderCreated(byId("created"));
  showQuickMatch(byId("quick-match"));
  refreshList();
  clearInterval(listTimer);
  listTimer = setInterval(refreshList, 5000);
}
