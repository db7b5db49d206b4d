// The battle view: both dice pools, the rolls sorted and paired (R16.17-R16.20), the losses.
// The server's view.battle (the last battle with its pairs and losses) is preferred; a battle
// declared but not yet rolled comes from observation.battle.

import {h, mount} from "./dom.js";
import {seatColor} from "./board.js";
import {playerLabel} from "./panels.js";
import {cardName, t} from "./i18n.js";

const size = (die) => Number(String(die).replace(/^d/i, ""));
const desc = (list) => [...list].sort((a, b) => b - a);

function dieBox(value, side, extra = "") {
  return h("span", {class: `die ${side} ${extra}`.trim()}, h("span", {class: "die-value"}, value));
}

/** The battle to show, or null: {..., live} where live means it is still being fought. */
export function currentBattle(view) {
  const live = view.observation.battle;
  const last = view.battle;
  const sameTiles = live && last && live.attacking_tile === last.attacking_tile
    && live.defended_tile === last.defended_tile && live.attack_rolls.length > 0;
  if (live && !sameTiles) return {...live, live: true};
  if (last) return {...last, cards: live ? live.cards : {}, step: live?.step, live: !!live};
  return null;
}

function pairing(battle) {
  if (battle.pairs) return {pairs: battle.pairs, dropped: battle.dropped || []};
  const attack = desc(battle.attack_rolls || []);
  const defence = desc(battle.defence_rolls || []);
  return {pairs: attack.slice(0, defence.length).map((a, i) => [a, defence[i]]), dropped: []};
}

export function renderBattle(el, view) {
  const battle = currentBattle(view);
  if (!battle) { el.hidden = true; mount(el); return; }
  el.hidden = false;
  const obs = view.observation;
  const attack = desc(battle.attack_rolls || []);
  const defence = desc(battle.defence_rolls || []);
  const {pairs, dropped} = pairing(battle);
  for (const die of dropped) defence.splice(defence.lastIndexOf(die), 1);  // R16.16
  let attackerHits = 0;
  let defenderHits = 0;
  const rows = pairs.map(([a, d]) => {
    // R16.19: the lower result takes a hit; a tie hits nobody, or the defender under EG2.
    let outcome = "tie";
    if (a > d || (a === d && obs.scales)) { outcome = "attacker-wins"; defenderHits++; }
    else if (d > a) { outcome = "defender-wins"; attackerHits++; }
    return h("li", {class: `pair ${outcome}`},
      dieBox(a, "attack", outcome === "attacker-wins" ? "win" : ""),
      h("span", {class: "versus"}, outcome === "tie" ? "=" : outcome === "attacker-wins" ? ">" : "<"),
      dieBox(d, "defence", outcome === "defender-wins" ? "win" : ""));
  });
  // R16.18: the larger pool's remaining dice are ignored.
  for (const a of attack.slice(pairs.length)) rows.push(h("li", {class: "pair unpaired"}, dieBox(a, "attack"), h("span", {class: "versus"}), h("span", {class: "die empty"})));
  for (const d of defence.slice(pairs.length)) rows.push(h("li", {class: "pair unpaired"}, h("span", {class: "die empty"}), h("span", {class: "versus"}), dieBox(d, "defence")));
  for (const d of dropped) rows.push(h("li", {class: "pair unpaired dropped"}, h("span", {class: "die empty"}), h("span", {class: "versus"}), dieBox(d, "defence", "struck")));
  const rolled = attack.length > 0 || defence.length > 0;
  const hits = battle.hits || {attacker: attackerHits, defender: defenderHits};
  const losses = battle.losses ? Object.entries(battle.losses).filter(([, n]) => n > 0) : null;
  const cardsPlayed = Object.entries(battle.cards || {}).map(([seat, card]) =>
    h("li", {}, playerLabel(obs, Number(seat)), ": ", card === "committed" ? t("game.committed") : cardName(card)));
  const side = (seat, tile, key) => h("div", {class: "side"},
    h("span", {class: "swatch", style: `background:${seatColor(obs, seat)}`}),
    h("b", {}, t(key)), " ", playerLabel(obs, seat), tile ? ` (${tile})` : "");
  const pool = (dice, kind) => dice.map((d) => h("span", {class: `die ${kind} pool`}, `d${size(d)}`));
  mount(el,
    h("h2", {}, t("battle.title"), battle.live ? "" : ` — ${t("battle.last")}`),
    h("div", {class: "sides"},
      side(battle.attacker, battle.attacking_tile, "battle.attacker"),
      side(battle.defender, battle.defended_tile, "battle.defender")),
    cardsPlayed.length ? h("ul", {class: "battle-cards"}, cardsPlayed) : null,
    h("div", {class: "pools"},
      h("div", {class: "pool-attack"}, h("span", {class: "muted"}, t("battle.attack_pool")), " ", pool(battle.attack_dice || [], "attack")),
      h("div", {class: "pool-defence"}, h("span", {class: "muted"}, t("battle.defence_pool")), " ", pool(battle.defence_dice || [], "defence"))),
    rolled
      ? h("ol", {class: "pairs", "aria-label": t("battle.pairs")}, rows)
      : h("p", {class: "muted"}, t("battle.not_rolled")),
    rolled ? h("p", {class: "hits"}, t("battle.hits", {a: hits.attacker, d: hits.defender})) : null,
    losses ? h("p", {class: "losses"}, t("battle.lost"), " ",
      losses.length ? losses.map(([seat, n]) => `${playerLabel(obs, Number(seat))} ${n}`).join(", ") : "0") : null);
}
