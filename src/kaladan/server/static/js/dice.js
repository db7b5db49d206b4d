// Dice in words: a unit's dice from the engine's unit data (static/data/units.json) and the
// tooltip a unit token shows (hover, or a long press on a touch screen).

import {toast} from "./dom.js";
import {cards, local, parseUnit, t, unitData} from "./i18n.js";

/** Dice sizes as the language writes them: [12, 10] -> "D12 + D10" ("W12 + W10" in nl, de). */
export const diceText = (sizes) => (sizes && sizes.length ? sizes.map((n) => t("battle.die", {n})).join(" + ") : "—");

/** A unit token's dice ("1/archer+", "special:kimbria"): attack and defence, its upgrade
 * counted; a special unit's D12 condition (section 14). */
export function unitTip(token) {
  const unit = parseUnit(token);
  const dice = unitData().units[unit.type];
  if (!dice) return "";
  const attack = unit.upgraded ? dice.attack_up : dice.attack;
  const defence = unit.upgraded ? dice.defence_up : dice.defence;
  const tip = t("howto.tip", {a: diceText(attack), d: diceText(defence)});
  const realm = unit.realm && cards().realms[unit.realm];
  return realm && !unit.upgraded
    ? `${tip} (${t("howto.tip_special", {d12: diceText([12]), when: local(realm.d12_when)})})` : tip;
}

export const LONG_PRESS_MS = 500;  // drag.js: a press held this long is no tap
const SLOP_PX = 10;  // a finger moving further than this drags (or scrolls), not presses

/** A long press on a unit of the board shows its tooltip (touch screens show no title). */
export function installUnitTips() {
  let press = null;  // {timer, x, y}
  const cancel = () => { if (press) clearTimeout(press.timer); press = null; };
  document.addEventListener("pointerdown", (event) => {
    const unit = event.pointerType === "mouse" ? null : event.target.closest?.("#board .unit");
    cancel();
    if (!unit) return;
    press = {x: event.clientX, y: event.clientY, timer: setTimeout(() => {
      press = null;
      toast(unit.querySelector("title")?.textContent || "");
    }, LONG_PRESS_MS)};
  });
  document.addEventListener("pointermove", (event) => {
    if (press && Math.hypot(event.clientX - press.x, event.clientY - press.y) > SLOP_PX) cancel();
  });
  for (const type of ["pointerup", "pointercancel"]) document.addEventListener(type, cancel);
  document.addEventListener("contextmenu", (event) => {
    if (event.target.closest?.("#board .unit")) event.preventDefault();  // the long press is ours
  });
}
