// The battle view, rendered from the log entries of one battle (docs/api.md "The log"): from
// its battle_started entry to its battle_ended, and the invasion that follows. Both sides,
// the cards (a card committed face down shows as such until its card_revealed entry), every
// die with its face and its unit or bonus, the pairs with who lost each (R16.16-R16.19), the
// units killed and saved, and the result. Nothing here is worked out from the rules: every
// number is an entry's. Dice rolled while the page is open tumble for a moment first (a
// skippable animation, none under prefers-reduced-motion).

import {h, mount} from "./dom.js";
import {seatColor} from "./board.js";
import {cardBox, playerLabel} from "./panels.js";
import {cardName, logText, t, term, unitName} from "./i18n.js";

// Entries right after battle_ended that still belong to the battle: the invasion (R17.6-R17.8).
const AFTERMATH = new Set(["left_behind", "tile_captured"]);
const isAftermath = (entry) => AFTERMATH.has(entry.kind)
  || (entry.kind === "moved" && entry.cause === "invasion");

const ROLL_MS = 900;  // how long new dice tumble before they show their faces
const seenRolls = new Set();  // the dice_rolled entries the page has rendered
let primed = false;  // the log of the page's first render is history: it does not roll
const rolling = new Map();  // dice_rolled index -> the timer that settles it

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

const settledListeners = [];

/** Whether dice are still tumbling: decisions that follow a roll (casualties) wait for them. */
export const diceRolling = () => rolling.size > 0;

/** Call `fn` whenever the last tumbling roll settles (the page draws its decision then). */
export function onDiceSettled(fn) { settledListeners.push(fn); }

/** Start the animation of dice rolled since the last render (not those the page opened with);
 * called before the decision is drawn, so that a casualty waits for the dice it follows. */
export function noticeRolls(log) {
  const fresh = [];
  for (const entry of log) {
    if (entry.kind === "dice_rolled" && !seenRolls.has(entry.index)) { seenRolls.add(entry.index); fresh.push(entry.index); }
  }
  if (!primed) { primed = true; return; }
  if (reducedMotion()) return;
  for (const index of fresh) rolling.set(index, setTimeout(() => settle(index), ROLL_MS));
}

/** Stop the animation of one roll: its faces, pairs and hits show. */
function settle(index) {
  clearTimeout(rolling.get(index));
  rolling.delete(index);
  for (const el of document.querySelectorAll(`[data-roll="${index}"]`)) {
    el.classList.remove("rolling");
    el.querySelector(".roll-skip")?.remove();
  }
  if (!rolling.size) for (const fn of settledListeners) fn();
}

// On a narrow screen the battle panel stands below the decision: when the seat's own battle
// rolls or ends while the page is open, its result is scrolled into view.
let shownStage = null;  // the latest battle's stage when last drawn: "start:rolls:ended"
let toFollow = null;  // the battle panel to scroll to once the page has placed its focus

function followResult(el, stage, mine) {
  const first = shownStage === null;
  const changed = stage !== shownStage;
  shownStage = stage;
  if (first || !changed || !mine || !window.matchMedia("(max-width: 760px)").matches) return;
  toFollow = el;
}

/** Scroll the battle's result into view when the view just drawn rolled or ended the seat's
 * battle on a narrow screen; called after the page has moved focus to the decision. */
export function followBattle() {
  const el = toFollow;
  toFollow = null;
  el?.querySelector(".battle-result")?.scrollIntoView({block: "nearest"});
}

/** The position in `log` of the latest battle_started entry, or -1. */
export function lastBattleStart(log) {
  for (let i = log.length - 1; i >= 0; i--) if (log[i].kind === "battle_started") return i;
  return -1;
}

/** The entries of the battle whose battle_started entry is log[start]. */
export function battleEntries(log, start) {
  const out = [log[start]];
  let ended = false;
  for (let i = start + 1; i < log.length; i++) {
    const entry = log[i];
    if (entry.kind === "battle_started") break;
    if (ended && !isAftermath(entry)) break;
    out.push(entry);
    if (entry.kind === "battle_ended") ended = true;
  }
  return out;
}

/** The cards of the battle, per side leader, in the order they were played. */
function cardPlays(entries) {
  const plays = [];
  const latest = (seat, test) => {
    for (let i = plays.length - 1; i >= 0; i--) if (plays[i].seat === seat && test(plays[i])) return plays[i];
    return null;
  };
  const on = {
    card_committed: (e) => plays.push({seat: e.seat, card: e.card, state: "committed"}),
    card_revealed: (e) => {
      const play = latest(e.seat, (p) => p.state === "committed");
      if (play) Object.assign(play, {card: e.card, state: "revealed", holder: e.holder});
      else plays.push({seat: e.seat, card: e.card, state: "revealed", holder: e.holder});
    },
    card_spent: (e) => {
      const play = latest(e.seat, (p) => p.card === e.card);
      if (play) play.state = "spent"; else plays.push({seat: e.seat, card: e.card, state: "spent"});
    },
    card_returned: (e) => {
      const play = latest(e.seat, (p) => p.card === e.card);
      if (play) Object.assign(play, {state: "returned", rule: e.rule});
      else plays.push({seat: e.seat, card: e.card, state: "returned", rule: e.rule});
    },
    no_card: (e) => plays.push({seat: e.seat, card: null, state: `none_${e.window}`}),
  };
  for (const entry of entries) on[entry.kind]?.(entry);
  return plays;
}

const byKind = (entries, kind) => entries.filter((e) => e.kind === kind);
const unitOnly = (ref) => unitName(ref.split("/").pop());

function dieBox(die, side, extra = "") {
  const what = die.unit ? unitOnly(die.unit) : term(die.bonus);
  const name = t("battle.die", {n: die.size});  // D12; W12 in Dutch and German, as the seeds
  return h("span", {class: `die ${side} ${extra}`.trim(), title: `${name}: ${what}`},
    h("span", {class: "die-value"}, die.face), h("span", {class: "die-size"}, name));
}

function diceRow(roll) {
  const pool = (dice, side) => h("div", {class: `dice dice-${side}`},
    h("span", {class: "muted"}, t(side === "attack" ? "battle.attack_pool" : "battle.defence_pool"), " "),
    dice.map((die) => h("span", {class: "die-with-source"}, dieBox(die, side),
      h("span", {class: "die-source"}, die.unit ? unitOnly(die.unit) : term(die.bonus)))));
  return h("div", {class: "pools"},
    pool(roll.attack, "attack"), pool(roll.defence, "defence"));
}

function pairRows(compared) {
  const face = (value, side, win) => h("span", {class: `die ${side}${win ? " win" : ""}`},
    h("span", {class: "die-value"}, value));
  const rows = compared.pairs.map((pair) => {
    const outcome = pair.loser === "defender" ? "attacker-wins" : pair.loser === "attacker" ? "defender-wins" : "tie";
    return h("li", {class: `pair ${outcome}`, "data-loser": pair.loser || "none"},
      face(pair.attack, "attack", outcome === "attacker-wins"),
      h("span", {class: "versus"}, outcome === "tie" ? "=" : outcome === "attacker-wins" ? ">" : "<"),
      face(pair.defence, "defence", outcome === "defender-wins"),
      h("span", {class: "pair-loser muted"}, t(`battle.loser_${pair.loser || "none"}`)));
  });
  if (compared.dropped >= 0) {  // R16.16: a mountain's defender drops its lowest die
    rows.push(h("li", {class: "pair unpaired dropped"}, h("span", {class: "die empty"}),
      h("span", {class: "versus"}), h("span", {class: "die defence struck"}, h("span", {class: "die-value"}, compared.dropped)),
      h("span", {class: "pair-loser muted"}, t("battle.dropped"))));
  }
  return h("ol", {class: "pairs", "aria-label": t("battle.pairs")}, rows);
}

function cardLine(play, obs) {
  const who = h("b", {}, playerLabel(obs, play.seat), ": ");
  if (play.state.startsWith("none_")) {
    return h("li", {class: "battle-card none"}, who, t(`battle.${play.state}`));
  }
  if (!play.card) return h("li", {class: "battle-card committed"}, who, t("battle.committed"));
  const note = play.state === "committed" ? t("battle.committed_known") : t(`battle.card_${play.state}`);
  return h("li", {class: `battle-card ${play.state}`, "data-card": play.card}, who,
    h("span", {class: "card-name"}, cardName(play.card)), " — ", h("span", {class: "muted"}, note),
    cardBox(play.card));
}

function unitLine(entry, obs) {
  return h("li", {"data-unit": entry.unit, title: logText(entry)},
    h("span", {class: "swatch", style: `background:${seatColor(obs, entry.seat)}`}),
    unitName(entry.unit), ` (${entry.tile})`, entry.card ? ` — ${cardName(entry.card)}` : "");
}

function turnOf(log, start) {
  for (let i = start; i >= 0; i--) if (log[i].kind === "turn_started") return log[i].turn;
  return null;
}

/**
 * Render the battle whose battle_started entry has the index `chosen` (a past battle picked in
 * the log), or when chosen is null the latest battle. onClose goes back to the latest.
 */
export function renderBattle(el, view, log, chosen, onClose) {
  noticeRolls(log);
  const latest = lastBattleStart(log);
  const picked = chosen === null ? -1 : log.findIndex((e) => e.index === chosen);
  const start = picked >= 0 && log[picked].kind === "battle_started" ? picked : latest;
  if (start < 0) {
    el.hidden = true;
    mount(el);
    if (shownStage === null) shownStage = "";  // no battle yet: the next one is followed
    return;
  }
  el.hidden = false;
  const obs = view.observation;
  const entries = battleEntries(log, start);
  const begun = entries[0];
  const ended = byKind(entries, "battle_ended")[0] || null;
  const rolls = byKind(entries, "dice_rolled");
  const compared = byKind(entries, "pairs_compared");
  const killed = byKind(entries, "unit_killed");
  const saved = byKind(entries, "unit_saved");
  const plays = cardPlays(entries);
  const past = start !== latest;
  const live = !ended && !past;
  const side = (seat, tile, units, key) => h("div", {class: `side side-${key}`},
    h("span", {class: "swatch", style: `background:${seatColor(obs, seat)}`}),
    h("b", {}, t(`battle.${key}`)), " ", playerLabel(obs, seat), ` (${tile})`,
    h("span", {class: "side-units muted"}, " ", units.map(unitOnly).join(", ")));
  const title = past ? t("battle.past", {n: turnOf(log, start) ?? "?"}) : live ? "" : t("battle.last");
  const more = entries.filter((e) => !["battle_started", "card_committed", "card_revealed", "card_spent",
    "card_returned", "no_card", "dice_rolled", "pairs_compared", "unit_killed", "unit_saved", "battle_ended"].includes(e.kind));
  mount(el,
    h("h2", {}, t("battle.title"), title ? ` — ${title}` : "",
      past ? h("button", {type: "button", class: "link battle-close", onclick: onClose}, t("battle.back")) : null),
    h("div", {class: "sides", "data-battle": begun.index},
      side(begun.attacker, begun.a_tile, begun.attackers, "attacker"),
      side(begun.defender, begun.d_tile, begun.defenders, "defender")),
    plays.length ? h("ul", {class: "battle-cards"}, plays.map((play) => cardLine(play, obs))) : null,
    rolls.length ? rolls.map((roll, i) => h("div", {class: `battle-round${rolling.has(roll.index) ? " rolling" : ""}`,
      "data-roll": roll.index},
      rolling.has(roll.index) ? h("button", {type: "button", class: "link roll-skip",
        onclick: () => settle(roll.index)}, t("battle.skip_roll")) : null,
      diceRow(roll),
      compared[i] ? pairRows(compared[i]) : null,
      compared[i] ? h("p", {class: "hits"}, t("battle.hits", {a: compared[i].attacker_hits, d: compared[i].defender_hits}),
        " · ", t("battle.losses", {a: compared[i].attacker_losses, d: compared[i].defender_losses})) : null))
      : h("p", {class: "muted"}, ended ? t("battle.no_dice") : t("battle.not_rolled")),
    killed.length ? h("div", {class: "killed"}, h("span", {class: "muted"}, t("battle.killed")),
      h("ul", {class: "unit-list"}, killed.map((e) => unitLine(e, obs)))) : null,
    saved.length ? h("div", {class: "saved"}, h("span", {class: "muted"}, t("battle.saved")),
      h("ul", {class: "unit-list"}, saved.map((e) => unitLine(e, obs)))) : null,
    more.length ? h("ul", {class: "battle-more muted"}, more.map((e) => h("li", {class: `log-${e.kind}`}, logText(e)))) : null,
    ended ? h("p", {class: `battle-result result-${ended.result}`}, logText(ended))
      : h("p", {class: "battle-result muted"}, t("battle.in_progress")));
  if (!past) {
    const stage = rolls.length || ended ? `${begun.index}:${rolls.length}:${ended ? 1 : 0}` : "";
    followResult(el, stage, stage !== "" && [begun.attacker, begun.defender].includes(view.seat));
  }
}
