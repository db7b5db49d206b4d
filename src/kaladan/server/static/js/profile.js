// A player's profile (/players/{name}) and the leaderboard (/leaderboard): ratings worked out by
// the server (GET /api/players/{name}, GET /api/leaderboard; docs/api.md "Players"). The page
// shows them; the rating shown is the server's "display" figure, never recomputed here.

import {api} from "./api.js";
import {h, mount, s} from "./dom.js";
import {realmName, rulesData, t} from "./i18n.js";

const WIDTH = 320;
const HEIGHT = 150;
const PAD = {left: 40, right: 8, top: 8, bottom: 22};

const modeName = (mode) => t(`value.${mode}`);
const when = (iso) => new Date(iso).toLocaleDateString();
const playerLink = (name) => h("a", {href: `/players/${encodeURIComponent(name)}`}, name);

/** The rating after each rated game as an SVG line (its display figure). */
export function historyChart(history) {
  const values = history.map((p) => p.display);
  const low = Math.min(0, ...values);
  const high = Math.max(100, ...values);
  const x = (i) => PAD.left + (history.length < 2 ? 0 : i * (WIDTH - PAD.left - PAD.right) / (history.length - 1));
  const y = (v) => HEIGHT - PAD.bottom - (v - low) * (HEIGHT - PAD.top - PAD.bottom) / (high - low);
  const grid = [low, Math.round((low + high) / 2), high].map((v) => [
    s("line", {x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v), class: "chart-grid"}),
    s("text", {x: PAD.left - 4, y: y(v) + 3.5, "text-anchor": "end", class: "chart-tick"}, v)]);
  const points = values.map((v, i) => [x(i), y(v)]);
  return s("svg", {class: "chart rating-chart", id: "rating-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": `${t("rating.chart")}: ${values.join(", ")}`},
    grid,
    s("text", {x: (WIDTH + PAD.left) / 2, y: HEIGHT - 6, "text-anchor": "middle", class: "chart-tick"}, t("rating.games_axis")),
    points.length > 1 ? s("polyline", {points: points.map((p) => p.join(",")).join(" "), fill: "none", class: "rating-line"}) : null,
    points.map(([px, py]) => s("circle", {cx: px, cy: py, r: 2.5, class: "rating-point"})));
}

function countTable(caption, counts, label) {
  const rows = Object.entries(counts);
  return h("table", {class: "rating-table"},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, h("th", {scope: "col"}, ""), h("th", {scope: "col"}, t("rating.games")),
      h("th", {scope: "col"}, t("rating.wins")))),
    h("tbody", {}, rows.length ? rows.map(([key, c]) => h("tr", {}, h("th", {scope: "row"}, label(key)),
      h("td", {}, c.games), h("td", {}, c.wins)))
      : h("tr", {}, h("td", {colspan: 3, class: "muted"}, t("rating.no_games")))));
}

function recentTable(recent) {
  return h("table", {class: "rating-table", id: "recent-games"},
    h("caption", {}, t("rating.recent")),
    h("thead", {}, h("tr", {}, ["rating.game", "rating.mode", "rating.place", "rating.when", "rating.replay"]
      .map((key) => h("th", {scope: "col"}, t(key))))),
    h("tbody", {}, recent.length ? recent.map((g) => h("tr", {"data-game": g.game_id},
      h("td", {}, g.name),
      h("td", {}, `${modeName(g.mode)} · ${t("rating.players_n", {n: g.players})}`),
      h("td", {}, g.won ? t("rating.won") : t("rating.place_n", {n: g.place})),
      h("td", {}, when(g.at)),
      h("td", {}, h("a", {href: g.replay, class: "replay-link"}, t("rating.replay")))))
      : h("tr", {}, h("td", {colspan: 5, class: "muted"}, t("rating.no_games")))));
}

/** /players/{name}: rating, its history, games per realm and player count, the last games. */
export async function showProfile(el, name) {
  mount(el, h("p", {class: "muted"}, t("rating.loading")));
  let p;
  try {
    p = await api("GET", `/api/players/${encodeURIComponent(name)}`);
  } catch (err) {
    mount(el, h("section", {class: "panel rating-page"}, h("h1", {}, name),
      h("p", {class: "error", role: "alert"}, err.code === "unknown_player" ? t("rating.unknown") : err.message),
      h("p", {}, h("a", {href: "/leaderboard"}, t("rating.leaderboard")))));
    return;
  }
  document.title = `${p.name} · ${t("app.title")}`;
  mount(el, h("section", {class: "panel rating-page", id: "profile"},
    h("h1", {}, p.name),
    h("p", {class: "rating-figure"}, h("span", {class: "rating-label"}, t("rating.rating")), " ",
      h("strong", {id: "rating-display"}, p.rating.display)),
    h("p", {class: "muted"}, t("rating.summary", {games: p.games, wins: p.wins, since: when(p.created)})),
    h("h2", {}, t("rating.history")),
    p.history.length ? historyChart(p.history) : h("p", {class: "muted"}, t("rating.no_games")),
    h("div", {class: "rating-counts"},
      countTable(t("rating.by_realm"), p.by_realm, realmName),
      countTable(t("rating.by_players"), p.by_players, (n) => t("rating.players_n", {n}))),
    recentTable(p.recent),
    h("p", {}, h("a", {href: "/leaderboard"}, t("rating.leaderboard")))));
}

/** The category a choice of mode and player count asks for, as query parameters. */
function query(choice) {
  if (!choice.mode) return "";
  const counts = rulesData().modes[choice.mode];
  if (counts.length === 1) return `?mode=${choice.mode}`;
  return choice.players ? `?mode=${choice.mode}&players=${choice.players}` : `?mode=${choice.mode}`;
}

const choice = {mode: "", players: 0};

/** /leaderboard: the best players of a category, with the bots' fixed ratings beside. */
export async function showLeaderboard(el) {
  const modes = Object.keys(rulesData().modes);
  const counts = choice.mode ? rulesData().modes[choice.mode] : [];
  if (!counts.includes(choice.players)) choice.players = 0;  // 0: every player count
  const body = h("div", {id: "leaderboard-body"}, h("p", {class: "muted"}, t("rating.loading")));
  mount(el, h("section", {class: "panel rating-page", id: "leaderboard"},
    h("h1", {}, t("rating.leaderboard")),
    h("div", {class: "rating-choice"},
      h("label", {for: "board-mode"}, t("rating.mode"), " ",
        h("select", {id: "board-mode", onchange: (e) => { choice.mode = e.target.value; showLeaderboard(el); }},
          h("option", {value: "", selected: choice.mode === ""}, t("rating.every_mode")),
          modes.map((m) => h("option", {value: m, selected: m === choice.mode}, modeName(m))))),
      counts.length > 1 ? h("label", {for: "board-players"}, t("rating.players"), " ",
        h("select", {id: "board-players", onchange: (e) => { choice.players = Number(e.target.value); showLeaderboard(el); }},
          h("option", {value: 0, selected: choice.players === 0}, t("rating.every_count")),
          counts.map((n) => h("option", {value: n, selected: n === choice.players}, n)))) : null),
    body));
  let board;
  try {
    board = await api("GET", `/api/leaderboard${query(choice)}`);
  } catch (err) {
    mount(body, h("p", {class: "error", role: "alert"}, err.message));
    return;
  }
  mount(body,
    h("table", {class: "rating-table", id: "leaderboard-table"},
      h("caption", {}, t("rating.least", {n: board.min_games})),
      h("thead", {}, h("tr", {}, ["rating.rank", "rating.player", "rating.rating", "rating.games", "rating.wins"]
        .map((key) => h("th", {scope: "col"}, t(key))))),
      h("tbody", {}, board.players.length ? board.players.map((p) => h("tr", {"data-player": p.name},
        h("td", {}, p.rank), h("td", {}, playerLink(p.name)), h("td", {}, p.display), h("td", {}, p.games),
        h("td", {}, p.wins)))
        : h("tr", {}, h("td", {colspan: 5, class: "muted"}, t("rating.nobody"))))),
    h("table", {class: "rating-table", id: "bot-ratings"},
      h("caption", {}, t("rating.bots")),
      h("thead", {}, h("tr", {}, h("th", {scope: "col"}, t("rating.bot")), h("th", {scope: "col"}, t("rating.rating")))),
      h("tbody", {}, board.bots.map((b) => h("tr", {}, h("td", {}, b.kind), h("td", {}, b.display))))));
}
