// Sentences for the engine's log entries, made in the browser from the entry's JSON and the
// engine's own templates (static/data/log_texts.json, a copy of rules/data/log_texts.json):
// the same rules as kaladan.rules.logtext, so the server sends data, not words. A test
// (tests/e2e/test_e2e_log.py) checks that both give the same sentence for every entry.

const SEAT_FIELDS = new Set(["seat", "attacker", "defender", "holder", "killer", "to", "by",
  "winner", "first", "graveyard_of", "lost_by", "eliminated"]);
const UNIT_FIELDS = new Set(["unit", "units", "attackers", "defenders", "from_a", "from_b",
  "specials", "removed", "losses"]);
const CARD_FIELDS = new Set(["card", "given", "taken", "cards", "cause"]);
const UNIT_KEYS = {crown: "crown", general: "general", catapult: "catapult", archer: "archer",
  shield: "shield", sword: "sword"};

const VARIANTS = {
  starting_card_taken: (e) => (e.drawn ? "drawn" : "chosen") + (e.card == null ? ".hidden" : ""),
  card_committed: (e) => (e.card == null ? "hidden" : "known"),
  card_traded: (e) => e.trade + (e.taken == null ? ".hidden" : ""),
  gold_changed: (e) => (e.delta >= 0 ? "gain" : "loss"),
  income: (e) => (e.frozen ? "frozen" : "paid"),
  final_round: (e) => (e.card == null ? "deck" : "card"),
  unit_killed: (e) => (e.card ? "card" : "dice"),
  battle_ended: (e) => e.result,
  game_over: (e) => e.end + (e.team != null ? ".team" : ""),
  moved: (e) => (["action", "reinforce", "invasion"].includes(e.cause) ? e.cause : "card"),
  swapped: (e) => (["action", "reinforce"].includes(e.cause) ? "plain" : "card"),
  upgraded: (e) => (e.cost ? "bought" : "free"),
  eliminated: (e) => (e.by < 0 ? "alone" : "by"),
  fallen_unit: (e) => e.place,
  no_card: (e) => e.window,
};

/** Makes sentences in one language; ``data`` holds the templates and the catalog. */
export class LogText {
  constructor({texts, words, cards, glossary}) {
    Object.assign(this, {texts, words, cards, glossary});
  }

  pick(text, lang) {
    return text ? text[lang] || text.en : "";
  }

  word(key, lang) {
    const entry = this.words[key];
    return entry ? this.pick(entry, lang) : key;
  }

  seat(seat, lang, realms) {
    if (seat == null || seat < 0) return this.word("nobody", lang);
    const realm = realms[seat] && this.cards.realms[realms[seat]];
    return realm ? `P${seat + 1} (${this.pick(realm.name, lang)})` : `P${seat + 1}`;
  }

  unit(ref, lang) {
    const token = ref.split("/")[1];
    const up = token.endsWith("+");
    const bare = up ? token.slice(0, -1) : token;
    const [kind, realm] = bare.split(":");
    const name = kind === "special"
      ? this.pick(this.cards.realms[realm].special_unit, lang)
      : this.pick(this.glossary[UNIT_KEYS[kind]], lang);
    return name + (up ? "+" : "");
  }

  card(id, lang) {
    if (id == null) return this.word("a_card", lang);
    const info = this.cards.magic[id] || this.cards.events[id] || this.cards.end_game[id];
    return info ? `${id} ${this.pick(info.name, lang)}` : this.word(id, lang);
  }

  value(name, value, lang, realms) {
    if (SEAT_FIELDS.has(name) && !Array.isArray(value)) return this.seat(value, lang, realms);
    if (name === "attack" || name === "defence") {
      return value.map((d) => `D${d.size}:${d.face}`
        + (d.bonus ? ` (${this.word(d.bonus, lang)})` : "")).join(" ") || "-";
    }
    if (name === "pairs") return value.map((p) => `${p.attack}:${p.defence}`).join(", ") || "-";
    if (name === "losses") {  // a battle's dead by their owners, in seat order
      const owners = [...new Set(value.map((u) => Number(u.split("/")[0])))].sort((a, b) => a - b);
      return owners.map((seat) => `${this.seat(seat, lang, realms)} `
        + value.filter((u) => Number(u.split("/")[0]) === seat).map((u) => this.unit(u, lang)).join(", "))
        .join("; ") || this.word("none", lang);
    }
    if (UNIT_FIELDS.has(name)) {
      if (Array.isArray(value)) {
        return value.map((u) => this.unit(u, lang)).join(", ") || this.word("none", lang);
      }
      return this.unit(value, lang);
    }
    if (CARD_FIELDS.has(name) && typeof value !== "number") {
      return Array.isArray(value) ? value.map((c) => this.card(c, lang)).join(", ")
        : this.card(value, lang);
    }
    if (name === "phase") return this.word(`phase_${value}`, lang);
    if (name === "team") return String(value + 1);  // stored from 0, numbered from 1 (R23.1)
    if (name === "realm") return this.pick(this.cards.realms[value].name, lang);
    if (name === "shares") {
      return value.map(([seat, hits]) => `${this.seat(seat, lang, realms)} ${hits}`).join(", ");
    }
    if (name === "rounds") {
      return value.map((round) => round.map(([seat, face]) =>
        `${this.seat(seat, lang, realms)} ${face}`).join(", ")).join("; ");
    }
    if (name === "scores") {
      return value.map((p, seat) => `${this.seat(seat, lang, realms)} ${p == null ? "-" : p.total}`)
        .join(", ");
    }
    return String(value);
  }

  /** The sentence for one entry's JSON; ``realms`` is each seat's realm id (or null). */
  describe(entry, lang, realms) {
    const variant = VARIANTS[entry.kind];
    const key = variant ? `${entry.kind}.${variant(entry)}` : entry.kind;
    const template = this.pick(this.texts[key] || this.texts[entry.kind], lang);
    if (!template) return entry.kind;
    return template.replace(/\{(\w+)\}/g, (match, name) => {
      if (name === "amount" && entry.kind === "gold_changed") return String(Math.abs(entry.delta));
      return name in entry ? this.value(name, entry[name], lang, realms) : match;
    });
  }
}
