// Teams named (issue 40): who is allied with whom, as the server tells it (a summary's
// `seat.team`, a view's `observation.teams`; 0-based, shown from 1 as the log and the end
// screen number them). The front end groups what it is given; it never works a team out.

import {h} from "./dom.js";
import {t} from "./i18n.js";

/** The teams of a game: [{team, seats}] in team order, from each seat's team (null or a
 * missing value: no teams, []). */
export function teamGroups(teamOfSeat) {
  if (!teamOfSeat || teamOfSeat.some((team) => team === null || team === undefined)) return [];
  const groups = new Map();
  teamOfSeat.forEach((team, seat) => {
    if (!groups.has(team)) groups.set(team, []);
    groups.get(team).push(seat);
  });
  return [...groups.entries()].sort((a, b) => a[0] - b[0]).map(([team, seats]) => ({team, seats}));
}

/** "Team 1: P1, P3" for one team; `label(seat)` names a member. */
export const teamLine = (group, label) =>
  t("teams.line", {n: group.team + 1, members: group.seats.map(label).join(", ")});

/** The teams as a list, one line each ("Team 1: P1, P3"); null without teams. */
export function teamList(groups, label, attrs = {}) {
  if (!groups.length) return null;
  return h("ul", {class: "teams", ...attrs}, groups.map((group) =>
    h("li", {"data-team": group.team}, teamLine(group, label))));
}
