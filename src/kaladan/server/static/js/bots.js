// The bot seats the pages offer: the levels, weakest first, the middle one by default (from
// the engine's bots/data/levels.json, in rules.json `bots`), and a few bots by code.

import {h} from "./dom.js";
import {rulesData, t} from "./i18n.js";

export const OTHER_BOTS = ["random", "greedy", "mcts:time=1"];
export const levels = () => rulesData().bots.levels;
export const defaultLevel = () => rulesData().bots.default;

/** A seat kind in words: a level by its name ("Adept"), a bot by its kind and parameters
 * ("MCTS bot (time=1)"). */
export function botLabel(kind) {
  const [name, params] = String(kind).split(/:(.*)/);
  if (levels().includes(name)) return t(`level.${name}`);
  return t(`seat.${name}`) + (params ? ` (${params})` : "");
}

/** A select of seat kinds: `first` (e.g. "human") on their own, then the levels and the
 * other bots in groups of their own. */
export function botSelect(id, current, onchange, first = []) {
  const option = (value) => h("option", {value, selected: value === current}, value === "human" ? t("seat.human") : botLabel(value));
  return h("select", {id, onchange: (e) => onchange(e.target.value)}, first.map(option),
    h("optgroup", {label: t("lobby.levels")}, levels().map(option)),
    h("optgroup", {label: t("lobby.other_bots")}, OTHER_BOTS.map(option)));
}
