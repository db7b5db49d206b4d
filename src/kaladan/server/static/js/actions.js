// The current decision: what it asks and why, the compose panel (units picked on the board,
// compose.js), the listed actions of a tile (from board clicks), the event card's options, the
// purchase panel with costs, the other listed actions by kind, the "All actions" list fetched
// on request, and the attack confirmation with exact odds; and the "Give gold" control, which a
// team player has at any moment (R23.11).

import {composePanel} from "./compose.js";
import {byId, h, mount} from "./dom.js";
import {cardBox, playerLabel} from "./panels.js";
import {diceText} from "./dice.js";
import {actionText, actionWords, cards, currentLang, local, parseUnit, realmName, t, term, unitData, unitName} from "./i18n.js";

// How the panel groups buttons (a choice of layout, not a rule: which actions are legal and
// what each costs come with the view): the answers that end a step up front, the units of
// the purchase panel in this order.
const QUICK_KINDS = new Set(["pass", "end", "nomagic", "gold"]);
// Choices shown with what is needed to make them, on screen (not only in a tooltip): a realm
// with its special unit and its cards, a magic card with its text.
const CHOICE_KINDS = new Set(["realm", "card", "magic"]);
const UNIT_ORDER = ["general", "catapult", "archer", "shield", "sword", "special"];

/** A legal action in words of the chosen language (the panel's button label). */
export const actionLabel = (entry) => actionWords(entry);

/** A listed action's text (views leave it out when the grammar gives it from the args). */
export const textOf = (entry) => entry.text ?? actionText(entry.kind, entry.args || {});

/** The tooltip: the action's text form, plus the texts of the magic cards it names (its
 * card args). */
function tooltip(entry) {
  const magic = cards().magic;
  const args = entry.args || {};
  const named = [args.name, args.name2].filter((id) => id && magic[id]);
  return [textOf(entry),
    ...named.map((id) => `${local(magic[id].name)}: ${local(magic[id].text)}`)].join("\n");
}

function actionButton(entry, onAction, label) {
  return h("button", {type: "button", class: `action kind-${entry.kind}`, "data-action": textOf(entry),
    "data-index": entry.index, title: tooltip(entry), onclick: () => onAction(entry)},
  label || actionLabel(entry));
}

// The answers that end a step have a key each, in the chosen language ("p" Pass, "d" Done, "n"
// No magic card in English); a key asks in the confirm bar before it sends (game.js).
const SHORTCUT_KINDS = ["pass", "end", "nomagic"];

/** The key that answers with `entry`, or null. */
export const shortcutOf = (entry) => (SHORTCUT_KINDS.includes(entry.kind) ? t(`shortcut.${entry.kind}`) : null);

/** A quick answer's button: its key shown beside its words and announced as its shortcut. */
function quickButton(entry, onAction) {
  const button = actionButton(entry, onAction);
  const key = shortcutOf(entry);
  if (!key) return button;
  button.setAttribute("aria-keyshortcuts", key);
  button.append(" ", h("kbd", {class: "shortcut", "aria-hidden": "true"}, key.toUpperCase()));
  return button;
}

const gold = (n) => t("purchase.cost", {n});

/** What a unit type costs to place or to upgrade (R11.2, R11.8): the engine's unit data. */
function unitCost(kind, type) {
  const info = unitData().units[type];
  return kind === "upgrade" ? info.upgrade_cost : info.place_cost;
}

/** The type of the one unit an action names ("special" for any realm's special unit). */
const unitType = (entry) => (entry.args?.units?.length === 1 ? parseUnit(entry.args.units[0]).type : null);

/** The purchase panel (R11): every unit type with its costs and reserve, a button per tile
 * where it may be bought or upgraded now, then castle upgrades and card purchases with their
 * prices (every price as the view gives it). */
function purchasePanel(view, entries, onAction) {
  const me = view.observation.players[view.seat];
  const byUnit = new Map(UNIT_ORDER.map((type) => [type, {buy: [], upgrade: []}]));
  const other = [];
  for (const entry of entries) {
    const type = unitType(entry);
    if ((entry.kind === "buy" || entry.kind === "upgrade") && byUnit.has(type)) byUnit.get(type)[entry.kind].push(entry);
    else other.push(entry);
  }
  const tileButtons = (list) => h("span", {class: "buttons inline"},
    list.map((entry) => actionButton(entry, onAction, entry.args.tile)));
  const rows = UNIT_ORDER.map((type) => {
    const {buy, upgrade} = byUnit.get(type);
    const reserve = type === "special" ? me.reserve.specials.length : me.reserve.units[type] || 0;
    const line = (kind, list) => h("div", {class: `purchase-line${list.length ? "" : " muted"}`},
      t(`purchase.${kind}`), " ", h("span", {class: "cost"}, gold(unitCost(kind, type))),
      list.length ? [" ", tileButtons(list)] : null);
    return h("li", {class: "unit-row", "data-unit-type": type},
      h("b", {}, unitName(type)), " ", h("span", {class: "muted"}, `${term("reserve")}: ${reserve}`),
      line("buy", buy), line("upgrade", upgrade));
  });
  return h("section", {class: "purchase", id: "purchase"},
    h("h3", {}, term("purchase_phase"), " — ", t("game.gold"), " ", h("b", {}, me.gold)),
    h("ul", {class: "unit-rows"}, rows),
    other.length ? h("ul", {class: "purchase-other"}, other.map((entry) => h("li", {},
      actionButton(entry, onAction, `${actionLabel(entry)} (${gold(entry.price || 0)})`),
      cardNotes(entry)))) : null);
}

/** The texts of the magic cards an action names, on screen under its button. */
function cardNotes(entry) {
  const magic = cards().magic;
  const args = entry.args || {};
  const named = [args.name, args.name2].filter((id) => id && magic[id]);
  return named.length ? h("div", {class: "card-notes"}, named.map((id) => h("p", {class: "card-note", "data-card": id},
    h("b", {}, local(magic[id].name)), ": ", local(magic[id].text)))) : null;
}

/** A realm as a choice (R5.5): its special unit and when it rolls a D12 (section 14), and
 * the names of its five magic cards (section 26), with the button that picks it. */
function realmChoice(entry, onAction) {
  const id = entry.args?.name;
  const realm = cards().realms[id];
  const own = Object.entries(cards().magic).filter(([, card]) => card.realm === id);
  return h("article", {class: "choice realm-choice", "data-realm": id},
    h("header", {}, h("b", {}, realmName(id))),
    realm ? h("p", {class: "realm-special"}, t("setup.special", {unit: local(realm.special_unit),
      d10: diceText([10]), d12: diceText([12]), when: local(realm.d12_when)})) : null,
    own.length ? h("p", {class: "realm-cards muted"}, t("setup.realm_cards"), " ",
      own.map(([, card]) => local(card.name)).join(", ")) : null,
    actionButton(entry, onAction));
}

/** The choices of a realm, a starting card or a card to declare, each with its description on
 * screen and its button (a tap shows as much as a hover). */
function choicePanel(kind, entries, onAction) {
  return h("section", {class: `choices choices-${kind}`, id: "choices", "data-kind": kind},
    h("h3", {}, t(`kind.${kind}`)),
    h("div", {class: "choice-list"}, entries.map((entry) => kind === "realm" ? realmChoice(entry, onAction)
      : h("div", {class: "choice card-choice", "data-card": entry.args?.name},
        cardBox(entry.args?.name, actionButton(entry, onAction))))));
}

function groupsByKind(entries, onAction) {
  const groups = new Map();
  for (const entry of entries) {
    if (!groups.has(entry.kind)) groups.set(entry.kind, []);
    groups.get(entry.kind).push(entry);
  }
  return [...groups].map(([kind, list]) => h("details", {class: "group", open: list.length <= 12 || groups.size === 1},
    h("summary", {}, t(`kind.${kind}`), ` (${list.length})`),
    h("div", {class: "buttons"}, list.map((entry) => actionButton(entry, onAction)))));
}


/** The event card's options (section 7): the card, its text and a button per option in the
 * card's own terms (the engine labels them so: act.upgrade_event ...), never with a price
 * (R7.7-R7.10). */
function eventPanel(view, entries, onAction) {
  const id = view.observation.event?.card;
  const card = id ? cards().events[id] || cards().end_game[id] : null;
  const freeMove = (view.moves || []).length > 0;
  return h("section", {class: "event-options", id: "event-options", "data-event": id || ""},
    h("h3", {}, card ? local(card.name) : id || t("decision.event")),
    card ? h("p", {class: "card-text"}, local(card.text)) : null,
    h("p", {class: "muted"}, t(freeMove ? "event_panel.free_move" : "event_panel.choose")),
    h("div", {class: "buttons"}, entries.map((entry) => actionButton(entry, onAction))));
}

/** What the pending decision asks, in a sentence that says why and when. */
function decisionHelp(obs) {
  const kind = obs.pending.kind;
  if (kind === "magic") return t(obs.battle?.step === "w3" ? "help.magic_after" : "help.magic_before");
  if (kind === "invasion") {
    return t("help.invasion", {a: obs.battle?.attacking_tile || "", d: obs.battle?.defended_tile || ""});
  }
  if (kind === "casualty") return t("help.casualty");
  return null;
}

/**
 * The "All actions" list: every legal action with its text, fetched from the server when it is
 * opened (keyboards and screen readers; views carry moves and swaps in groups). all: {open,
 * version, legal} as fetched; onToggle(open).
 */
function allActions(view, all, onAction, onToggle) {
  const fresh = all.version === view.version && all.legal;
  const listed = fresh ? all.legal.filter((e) => e.kind !== "gift") : null;
  return h("details", {class: "all-actions", id: "all-actions", open: all.open,
    ontoggle: (e) => { if (e.target.open !== all.open) onToggle(e.target.open); }},
  h("summary", {}, t("actions.all")),
  all.open ? (listed ? h("div", {class: "all-list"}, groupsByKind(listed, onAction))
    : h("p", {class: "muted"}, t("actions.loading"))) : null);
}

/** Advice on request (a game option): the Hint button, and what the strongest bot (the greedy
 * bot where no network serves the game) would do from this seat's view with an attack's exact
 * odds once asked (hint: {version, action, odds, adviser}). */
function hintBox(view, hint, onAsk, onAction) {
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const fresh = hint && hint.version === view.version ? hint : null;
  return h("section", {class: "hint-box", id: "hint"},
    h("button", {type: "button", id: "hint-button", onclick: onAsk}, t("hint.button")),
    fresh ? h("div", {class: "hint-advice", "data-hint": textOf(fresh.action)},
      h("p", {}, t(fresh.adviser === "greedy" ? "hint.would_greedy" : "hint.would"), " ", h("b", {}, actionLabel(fresh.action))),
      fresh.odds ? h("p", {class: "muted"}, t("hint.odds", {p: pct(fresh.odds.attacker_wins),
        exact: fresh.odds.attacker_wins_exact, a: fresh.odds.expected_attacker_losses.toFixed(2),
        d: fresh.odds.expected_defender_losses.toFixed(2)})) : null,
      h("button", {type: "button", id: "hint-do", class: "primary", onclick: () => onAction(fresh.action)}, t("hint.do")))
      : null);
}

/**
 * ui: {selected, selected2, picked}; handlers: {onAction(entry), waitDice (the battle's dice
 * still tumble: its decision waits), clearSelection(), compose
 * (the compose panel's handlers), all ({open, version, legal}), onAllToggle(open), autoAnswer,
 * hint: null when the game gives no advice, else {shown, ask()}}.
 */
export function renderActions(el, view, ui, handlers) {
  const obs = view.observation;
  // Gifts are made with the "Give gold" control (renderGift), at any moment: not listed here.
  const legal = (view.legal || []).filter((entry) => entry.kind !== "gift");
  if (obs.result || view.result) { mount(el, h("h2", {}, t("panel.actions")), h("p", {}, t("game.over"))); return; }
  if (!view.your_turn || !(legal.length || (view.moves || []).length || (view.swaps || []).length)) {
    const who = view.to_move === null || view.to_move === undefined || view.to_move < 0
      ? "" : playerLabel(obs, view.to_move);
    mount(el, h("h2", {}, t("panel.actions")),
      h("p", {class: "waiting"}, view.seat === null ? t("game.spectating", {who}) : t("game.waiting", {who})));
    return;
  }
  const onAction = handlers.onAction;
  const kind = obs.pending.kind;
  if (handlers.waitDice) {  // the dice of the battle still tumble: its casualties wait for them
    mount(el, h("h2", {}, t("panel.actions")),
      h("p", {class: "your-turn"}, t("game.your_turn"), " — ", t(`decision.${kind}`)),
      h("p", {class: "waiting dice-wait", id: "dice-wait"}, t("battle.wait_dice")));
    return;
  }
  const names = (entry) => entry.tiles.includes(ui.selected) && (!ui.selected2 || entry.tiles.includes(ui.selected2));
  const atTile = ui.selected ? legal.filter(names) : [];
  const inEvent = kind === "event";
  const quick = inEvent ? [] : legal.filter((e) => QUICK_KINDS.has(e.kind));
  const purchase = kind === "purchase" ? legal.filter((e) => e.price > 0) : [];
  const options = inEvent ? legal : [];
  const choices = new Map();
  for (const entry of legal) {
    if (quick.includes(entry) || purchase.includes(entry) || options.includes(entry) || !CHOICE_KINDS.has(entry.kind)) continue;
    if (!choices.has(entry.kind)) choices.set(entry.kind, []);
    choices.get(entry.kind).push(entry);
  }
  const chosen = [...choices.values()].flat();
  // Each action once: those of the selected tile(s) stand in their own section, not again in
  // the lists by kind.
  const shown = ui.selected && atTile.length ? new Set(atTile) : new Set();
  const rest = legal.filter((e) => !quick.includes(e) && !purchase.includes(e) && !options.includes(e)
    && !chosen.includes(e) && !shown.has(e));
  const help = decisionHelp(obs);
  const compose = composePanel(view, obs, ui, handlers.compose);
  mount(el,
    h("h2", {}, t("panel.actions")),
    h("p", {class: "your-turn"}, t("game.your_turn"), " — ", t(`decision.${kind}`)),
    help ? h("p", {class: "decision-help", id: "decision-help"}, help) : null,
    compose,
    ui.selected && atTile.length ? h("section", {class: "tile-actions", id: "tile-actions"},
      h("h3", {}, t("actions.at_tile", {tile: [ui.selected, ui.selected2].filter(Boolean).join(" + ")}),
        " ", h("button", {type: "button", class: "link", onclick: handlers.clearSelection}, t("actions.clear"))),
      h("div", {class: "buttons"}, atTile.map((entry) => actionButton(entry, onAction)))) : null,
    compose || atTile.length ? null
      : h("p", {class: "muted hint"}, t((view.moves || []).length ? "actions.hint" : "actions.hint_tiles")),
    quick.length ? h("div", {class: "buttons quick"}, quick.map((entry) => quickButton(entry, onAction))) : null,
    handlers.hint ? hintBox(view, handlers.hint.shown, handlers.hint.ask, onAction) : null,
    h("label", {class: "auto-setting muted", for: "auto-answer"},
      h("input", {type: "checkbox", id: "auto-answer", checked: handlers.autoAnswer.on(),
        onchange: (e) => handlers.autoAnswer.set(e.target.checked)}), " ", t("actions.auto_setting")),
    options.length ? eventPanel(view, options, onAction) : null,
    [...choices].map(([kind, list]) => choicePanel(kind, list, onAction)),
    purchase.length ? purchasePanel(view, purchase, onAction) : null,
    rest.length ? h("div", {class: "listed-actions", id: "listed-actions"}, groupsByKind(rest, onAction)) : null,
    allActions(view, handlers.all, onAction, handlers.onAllToggle));
}

/**
 * The "Give gold" control (R23.11): a team player may give any amount of their own gold to an
 * ally at any moment, also while another player decides. view.gift ({allies, max}, from the
 * server) says whether and how much; form ({ally, amount}) keeps the choice from view to view;
 * onGift(action) sends {kind: "gift", args: {number: ally, amount}}. The form is drawn again only when what it offers
 * changes, so a view arriving while the player types does not reset it.
 */
export function renderGift(el, view, form, onGift) {
  const offer = view.gift;
  if (!offer || view.result || view.observation.result) {
    mount(el);
    el.hidden = true;
    delete el.dataset.offer;
    return;
  }
  const obs = view.observation;
  const labels = offer.allies.map((seat) => playerLabel(obs, seat));
  if (!offer.allies.includes(form.ally)) form.ally = offer.allies[0];
  form.amount = Math.min(Math.max(1, Math.floor(Number(form.amount)) || 1), offer.max);
  el.hidden = false;
  const key = JSON.stringify([offer.allies, offer.max, labels, currentLang()]);
  if (el.dataset.offer === key) return;
  el.dataset.offer = key;
  const amount = h("input", {id: "gift-amount", type: "number", min: 1, max: offer.max, step: 1,
    required: true, inputmode: "numeric", value: form.amount,
    oninput: (e) => { form.amount = e.target.value; }});
  mount(el,
    h("h2", {id: "gift-title"}, t("gift.title")),
    h("p", {class: "muted hint"}, t("gift.hint")),
    h("form", {id: "gift-form", class: "gift-form", "aria-labelledby": "gift-title",
      onsubmit: (e) => {
        e.preventDefault();
        onGift({kind: "gift", args: {number: form.ally, amount: Number(amount.value)}});
      }},
      h("label", {for: "gift-ally"}, h("span", {}, t("gift.ally")),
        h("select", {id: "gift-ally", onchange: (e) => { form.ally = Number(e.target.value); }},
          offer.allies.map((seat, i) => h("option", {value: seat, selected: seat === form.ally}, labels[i])))),
      h("label", {for: "gift-amount"}, h("span", {}, t("gift.amount", {max: offer.max})), amount),
      h("button", {type: "submit", id: "gift-send", class: "primary"}, t("gift.give"))));
}

/** The odds: the chance to win (exact as p/q) and the expected losses; a card's (`card`)
 * carry their own attribute and classes, apart from those without a card. */
function oddsLines(odds, pct, card = false) {
  const figure = card ? {"data-card-odds": odds.attacker_wins} : {"data-odds": odds.attacker_wins};
  return [
    h("p", {class: card ? "card-win-chance" : "win-chance"}, t("odds.win"), " ", h("b", figure, pct(odds.attacker_wins)),
      odds.attacker_wins_exact ? h("span", {class: "muted"}, ` (${odds.attacker_wins_exact})`) : null),
    h("p", {class: card ? "card-losses" : "losses"}, t("odds.losses",
      {a: odds.expected_attacker_losses.toFixed(2), d: odds.expected_defender_losses.toFixed(2)}))];
}

/** The odds with each card of the player's own hand that may be played in this battle (the
 * server's, worked out by the engine with the defender playing none): the card's name and
 * text on screen, and the choice the odds are for when the card asks one. */
function cardOdds(list, pct) {
  if (!list || !list.length) return null;
  const magic = cards().magic;
  return h("section", {class: "card-odds", id: "card-odds"},
    h("h3", {}, t("odds.with_cards")),
    h("ul", {class: "card-odds-list"}, list.map((entry) => {
      const card = magic[entry.card];
      return h("li", {"data-card": entry.card},
        h("b", {class: "card-name"}, card ? local(card.name) : entry.card),
        card ? h("p", {class: "card-text muted"}, local(card.text)) : null,
        ...oddsLines(entry, pct, true),
        entry.choice ? h("p", {class: "card-choice muted"}, t("odds.best_choice", {choice: actionWords(entry.choice)})) : null);
    })),
    h("p", {class: "muted"}, t("odds.no_defender_card")));
}

/** Ask before an attack, showing the exact odds, those with each of the player's playable
 * cards and that a won attack must invade (R17.6); resolves true to go ahead. */
export function confirmAttack(entry, odds) {
  const dialog = byId("confirm");
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  mount(dialog.querySelector(".dialog-body"),
    h("h2", {id: "confirm-title"}, actionLabel(entry)),
    odds ? h("div", {class: "odds"}, ...oddsLines(odds, pct)) : h("p", {class: "muted"}, t("odds.unknown")),
    entry.kind === "attack" ? h("p", {class: "invasion-rule", id: "odds-invasion"}, t("odds.invasion")) : null,
    odds ? cardOdds(odds.cards, pct) : null);
  byId("confirm-ok").textContent = t("odds.confirm");
  byId("confirm-cancel").textContent = t("odds.cancel");
  return new Promise((resolve) => {
    dialog.onclose = () => resolve(dialog.returnValue === "confirm");
    dialog.returnValue = "";
    dialog.showModal();
  });
}
