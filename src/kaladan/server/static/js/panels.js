// Side panels: players, phase tracker, magic cards and the event card (the log panel is
// logpanel.js).

import {h, mount} from "./dom.js";
import {seatSwatch} from "./board.js";
import {seatClock, takeBackButton} from "./clock.js";
import {cards, local, phaseName, realmName, rulesData, t, term, unitAbbr} from "./i18n.js";
import {teamGroups, teamList} from "./teams.js";

/** A glossary term as a heading: capitalised (the Dutch glossary is lower case). */
const heading = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export function playerLabel(observation, seat) {
  return `${t("game.player_short", {n: seat + 1})} ${realmName(observation.players[seat]?.realm)}`;
}

function reserveText(reserve) {
  const parts = Object.entries(reserve.units).map(([type, n]) => `${n}${unitAbbr(type)}`);
  if (reserve.specials.length) parts.push(`${reserve.specials.length}${unitAbbr("special")}`);
  return parts.join(" ") || "—";
}

// The live score (issue 40): the view's `score`, worked out by the engine (R22.1; teams'
// R23.34). A breakdown opens under each total (a details element: mouse, keyboard and tap);
// which ones are open is kept from view to view.
const SCORE_PARTS = ["trophies", "castles", "scalps", "tiles", "gold", "six_gates"];
const openScores = new Set();

/** The parts of one score, in points: a small table (Six Gates only once it counts, EG1). */
function scoreTable(parts, sixGates) {
  return h("table", {class: "score-parts"}, h("tbody", {},
    SCORE_PARTS.filter((part) => part !== "six_gates" || sixGates).map((part) =>
      h("tr", {"data-part": part}, h("th", {scope: "row"}, t(`glance.${part}`)), h("td", {class: "num"}, parts[part]))),
    h("tr", {class: "score-total"}, h("th", {scope: "row"}, t("glance.total")), h("td", {class: "num"}, parts.total))));
}

/** A score with its breakdown: `key` names it among the open ones. */
function scoreDetails(key, parts, sixGates) {
  return h("details", {class: "score", "data-score": key, open: openScores.has(key),
    ontoggle: (e) => { if (e.target.open) openScores.add(key); else openScores.delete(key); }},
  h("summary", {}, h("span", {class: "stat-key"}, t("glance.score")), " ",
    h("b", {}, parts.total)),
  scoreTable(parts, sixGates));
}

function playerScore(view, seat) {
  const parts = view.score?.players?.[seat];
  if (view.score === undefined) return null;
  if (!parts) return h("span", {class: "score muted", "data-score": `p${seat}`}, t("glance.not_scored"));
  return scoreDetails(`p${seat}`, parts, view.score.six_gates);
}

/** The teams' scores (team mode): the figure every member scores at the end (R23.34). */
function teamScores(view) {
  const teams = view.score?.teams;
  if (!teams) return null;
  return h("ul", {class: "team-scores"}, teams.map((team) => h("li", {"data-team": team.team},
    h("span", {class: "badge team"}, t("glance.team_score", {n: team.team + 1})), " ",
    scoreDetails(`t${team.team}`, team, view.score.six_gates))));
}

export function renderPlayers(el, view) {
  const obs = view.observation;
  // Re-drawing replaces the elements: focus goes back to the same score's summary.
  const focused = document.activeElement?.closest?.("#players details.score")?.dataset.score;
  const rows = obs.players.map((p) => {
    const classes = ["player"];
    if (p.seat === view.seat) classes.push("me");
    if (p.seat === view.to_move) classes.push("to-move");
    if (p.eliminated) classes.push("eliminated");
    const stat = (key, value) => h("span", {class: "stat", title: t(key)},
      h("span", {class: "stat-key"}, t(key)), " ", h("b", {}, value));
    return h("li", {class: classes.join(" "), "data-seat": p.seat},
      h("div", {class: "player-head"},
        seatSwatch(obs, p.seat),
        h("b", {}, playerLabel(obs, p.seat)),
        obs.mode !== "free_for_all" ? h("span", {class: "badge team"}, t("game.team", {n: obs.teams[p.seat] + 1})) : null,
        p.seat === view.seat ? h("span", {class: "badge"}, t("game.you")) : null,
        p.seat === obs.active ? h("span", {class: "badge active"}, t("game.active")) : null,
        p.seat === view.to_move ? h("span", {class: "badge move"}, "▶") : null,
        p.eliminated ? h("span", {class: "badge out"}, t("game.eliminated")) : null,
        seatClock(view, p.seat)),
      h("div", {class: "player-stats"},
        stat("game.gold", p.gold),
        stat("game.cards", p.hand_count),
        stat("game.scalps", p.graveyard.length),
        stat("game.trophies", p.trophies.length),
        playerScore(view, p.seat)),
      h("div", {class: "player-reserve"}, h("span", {class: "stat-key"}, term("reserve")), " ",
        reserveText(p.reserve)));
  });
  // a team game: who is allied with whom, by name (R23.2)
  const allies = obs.mode !== "free_for_all"
    ? teamList(teamGroups(obs.players.map((p) => obs.teams[p.seat])), (seat) => playerLabel(obs, seat),
      {id: "allies", "aria-label": t("teams.title")}) : null;
  mount(el, h("h2", {}, t("panel.players")), allies, teamScores(view), h("ul", {class: "players"}, rows),
    view.score ? h("p", {class: "muted score-rule"}, t("glance.rule")) : null,
    takeBackButton(view, view.game_id));
  if (focused) el.querySelector(`details.score[data-score="${focused}"] > summary`)?.focus();
}

/** The phase tracker: the turn's phases in the game's phase order (R6.2, as the engine has
 * them in rules.json; the option's default while the game's options are not known yet). */
export function renderPhases(el, view, phaseOrder) {
  const obs = view.observation;
  const orders = rulesData().phase_orders;
  const order = orders[phaseOrder] || orders[rulesData().options.phase_order[0]];
  const items = order.map((phase) => h("li", {class: phase === obs.phase ? "current" : "",
    "aria-current": phase === obs.phase ? "step" : null}, phaseName(phase)));
  const status = obs.phase === "over" ? phaseName(obs.phase) : null;
  // Set-up has no turn yet: it says so, with the seat deciding now (not turn 0's active seat).
  const setup = obs.phase === "setup";
  const deciding = setup && view.to_move !== null && view.to_move !== undefined ? view.to_move : obs.active;
  mount(el,
    h("h2", {}, t("panel.phase")),
    h("p", {class: "turn-line"},
      setup ? phaseName("setup") : t("game.turn", {n: obs.turn}), " · ", playerLabel(obs, deciding),
      obs.final_round ? h("b", {class: "final"}, " · ", t("game.final_round")) : null),
    status ? h("p", {class: "phase-status"}, status) : null,
    h("ol", {class: "phases"}, items),
    h("p", {class: "muted"}, t("game.deck", {n: obs.deck_count})));
}

/** A magic card with its name, id, who may play it and when, its condition and its text. */
export function cardBox(id, extra) {
  const card = cards().magic[id];
  if (!card) return h("div", {class: "card"}, id);
  return h("article", {class: "card", "data-card": id},
    h("header", {}, h("b", {}, local(card.name)), " ", h("span", {class: "muted"}, id)),
    h("p", {class: "card-meta"}, t(`card.usable_${card.usable_by}`), " · ", t(`card.window_${card.window}`)),
    h("p", {class: "card-cond"}, local(card.condition)),
    h("p", {}, local(card.text)), extra || null);
}

export function renderCards(el, view) {
  const me = view.seat === null ? null : view.observation.players[view.seat];
  if (!me) { mount(el); el.hidden = true; return; }
  el.hidden = false;
  const hand = me.hand || [];
  mount(el,
    h("h2", {}, t("panel.cards"), ` (${hand.length})`),
    hand.length ? hand.map((id) => cardBox(id)) : h("p", {class: "muted"}, t("game.no_cards")),
    (me.pool || []).length ? h("details", {class: "pool"},
      h("summary", {}, t("game.pool", {n: me.pool.length})), me.pool.map((id) => cardBox(id))) : null,
    (me.buyable || []).length ? h("details", {class: "pool"},
      h("summary", {}, t("game.buyable", {n: me.buyable.length})), me.buyable.map((id) => cardBox(id))) : null);
}

export function renderEvent(el, view) {
  const obs = view.observation;
  const id = obs.event ? obs.event.card : obs.last_event;
  if (!id) { mount(el, h("h2", {}, heading(term("event_card"))), h("p", {class: "muted"}, "—")); return; }
  const c = cards();
  const card = c.events[id] || c.end_game[id];
  mount(el,
    h("h2", {}, heading(c.end_game[id] ? term("end_game_card") : term("event_card"))),
    h("article", {class: "card event", "data-event": id},
      h("header", {}, h("b", {}, card ? local(card.name) : id), " ", h("span", {class: "muted"}, id)),
      card ? h("p", {}, local(card.text)) : null,
      obs.event && obs.event.queue.length
        ? h("p", {class: "muted", id: "event-queue"}, t("game.event_queue",
          {players: obs.event.queue.map((p) => t("game.player_short", {n: p + 1})).join(", ")}))
        : null));
}
