"""Tests of the card, realm and name catalog against RULES.md (sections 1, 14, 24, 25, 26)."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

from kaladan.rules import catalog
from kaladan.rules.catalog import (
    END_GAME_CARD_BY_ID,
    END_GAME_CARDS,
    EVENT_CARD_BY_ID,
    EVENT_CARDS,
    GLOSSARY,
    LANGS,
    MAGIC_CARD_BY_ID,
    MAGIC_CARDS,
    REALM_BY_ID,
    REALMS,
    Text,
    magic_cards_of,
    validate_catalog_data,
)
from kaladan.rules.errors import FormatError

# R24.2, typed from the table: id -> (count, scope, source).
EXPECTED_EVENTS: dict[str, tuple[int, str, str]] = {
    "EV01": (2, "player", "official"),
    "EV02": (2, "player", "official"),
    "EV03": (2, "player", "official"),
    "EV04": (1, "global", "official"),
    "EV05": (1, "global", "official"),
    "EV06": (1, "global", "official"),
    "EV07": (2, "player", "official"),
    "EV08": (2, "player", "reconstructed"),
    "EV09": (1, "global", "reconstructed"),
    "EV10": (2, "player", "reconstructed"),
    "EV11": (1, "player", "reconstructed"),
    "EV12": (2, "player", "reconstructed"),
    "EV13": (2, "global", "reconstructed"),
    "EV14": (1, "global", "reconstructed"),
    "EV15": (1, "global", "reconstructed"),
    "EV16": (1, "global", "reconstructed"),
    "EV17": (1, "global", "reconstructed"),
    "EV18": (1, "global", "reconstructed"),
    "EV19": (1, "global", "reconstructed"),
    "EV20": (1, "global", "reconstructed"),
    "EV21": (1, "global", "reconstructed"),
    "EV22": (1, "global", "reconstructed"),
    "EV23": (1, "global", "reconstructed"),
    "EV24": (2, "player", "reconstructed"),
    "EV25": (1, "player", "reconstructed"),
    "EV26": (1, "player", "reconstructed"),
    "EV27": (1, "global", "reconstructed"),
}

# R24.2 English names.
EXPECTED_EVENT_NAMES: dict[str, str] = {
    "EV01": "Swords & Shadows Mercenaries",
    "EV07": "Training",
    "EV16": "Royal Tithe",
    "EV20": "Siege Engineers' Pay",
    "EV24": "Return of the Fallen",
    "EV27": "Peaceful Season",
}

# R25.1: all four are seed and/or decision, none official.
EXPECTED_END_GAME: dict[str, str] = {
    "EG1": "The Six Gates Open",
    "EG2": "Scales of Equality",
    "EG3": "The Oracles of the Six Realms",
    "EG4": "The Gilded Silence",
}

# Section 26, typed from the card headings: (id, name, usable_by, window, source).
EXPECTED_MAGIC: tuple[tuple[str, str, str, str, str], ...] = (
    ("KHA-1", "Keep of Khalisia", "defender", "W3", "official"),
    ("KHA-2", "Harmony of the Sun", "either", "W1", "official"),
    ("KHA-3", "Dawn's Sword", "either", "W2", "official"),
    ("KHA-4", "The Foundry Levies", "either", "W1", "official"),
    ("KHA-5", "The Sealed Gates", "defender", "W1", "reconstructed"),
    ("KIM-1", "Pride of the Open Field", "defender", "W1", "reconstructed"),
    ("KIM-2", "Golden Charge", "attacker", "W2", "reconstructed"),
    ("KIM-3", "Roar of the Luminous Lion", "either", "W1", "reconstructed"),
    ("KIM-4", "Muster of the Pride", "either", "W1", "reconstructed"),
    ("KIM-5", "Sunblind", "either", "W2", "reconstructed"),
    ("NAN-1", "Wall of the Peaks", "defender", "W1", "reconstructed"),
    ("NAN-2", "Bronze Hide", "either", "W3", "reconstructed"),
    ("NAN-3", "Avalanche", "either", "W1", "reconstructed"),
    ("NAN-4", "Strength of the Mountain", "either", "W2", "reconstructed"),
    ("NAN-5", "Bronze Engines", "either", "W2", "reconstructed"),
    ("ARD-1", "Aegis of Ardinor", "defender", "W1", "reconstructed"),
    ("ARD-2", "Wall of Shields", "either", "W2", "reconstructed"),
    ("ARD-3", "Steadfast Line", "defender", "W2", "reconstructed"),
    ("ARD-4", "Oath of the Shield", "defender", "W3", "reconstructed"),
    ("ARD-5", "Rally to the Banner", "defender", "W1", "reconstructed"),
    ("ZHO-1", "Veil of Leaves", "defender", "W1", "reconstructed"),
    ("ZHO-2", "Fade into the Forest", "defender", "W1", "reconstructed"),
    ("ZHO-3", "Whisper of the Wolf", "attacker", "W1", "reconstructed"),
    ("ZHO-4", "Ambush from the Shadows", "attacker", "W1", "reconstructed"),
    ("ZHO-5", "Paths Beneath the Canopy", "either", "W1", "reconstructed"),
    ("LAU-1", "Volley from Afar", "attacker", "W1", "reconstructed"),
    ("LAU-2", "Eagle-Eyed Archers", "either", "W2", "reconstructed"),
    ("LAU-3", "Marksman's Shot", "either", "W1", "reconstructed"),
    ("LAU-4", "Hail of Arrows", "either", "W2", "reconstructed"),
    ("LAU-5", "Return of the Bow", "either", "W1", "reconstructed"),
)

# R2.1 order, R14.1 special units.
EXPECTED_REALMS: tuple[tuple[str, str, str], ...] = (
    ("khalisia", "Khalisia", "The Sword of Khalis"),
    ("kimbria", "Kimbria", "The Luminous Lion of Kimbria"),
    ("nanchia", "Nanchia", "The Bronze Bear of Nanchia"),
    ("ardinor", "Ardinor", "The Shield of Ardan"),
    ("zhojira", "Zhojira", "The Whispering Wolf of Zhojira"),
    ("laurielle", "Laurielle", "The Bow of Laurielle"),
)

# Section 1, localized names table (a few rows; the rest must at least be present).
EXPECTED_GLOSSARY: dict[str, tuple[str, str, str]] = {
    "crown": ("Crown", "Kroon", "Krone"),
    "general": ("General", "Generaal", "General"),
    "catapult": ("Catapult", "Katapult", "Katapult"),
    "archer": ("Archer", "Boogschutter", "Bogenschütze"),
    "shield": ("Shield", "Schilddrager", "Schildträger"),
    "sword": ("Sword", "Zwaardvechter", "Schwertkämpfer"),
    "special_unit": ("Special unit", "speciale eenheid", "Spezialeinheit"),
    "basic_unit": ("Basic unit", "basiseenheid", "Basiseinheit"),
    "field": ("Field", "Veld", "Ebene"),
    "forest": ("Forest", "Bos", "Wald"),
    "mountain": ("Mountain", "Berg", "Gebirge"),
    "mandatory_invasion": ("Mandatory invasion", "Verplichte invasie", "Pflichteinmarsch"),
    "graveyard": ("Graveyard", "kerkhof", "Friedhof"),
    "player_board": ("Player Board", "spelersbord", "Spielertableau"),
}
GLOSSARY_KEYS = (
    "crown", "general", "catapult", "archer", "shield", "sword", "special_unit", "basic_unit",
    "field", "forest", "mountain", "castle", "terrain_tile", "event_phase", "free_spawn_phase",
    "income_phase", "action_phase", "purchase_phase", "reinforcement_phase", "move", "swap",
    "battle", "mandatory_invasion", "reserve", "graveyard", "scalp", "event_card",
    "end_game_card", "magic_card", "realm_card", "player_board", "richest_player",
    "strongest_player", "first_player", "team_mode",
)  # fmt: skip


def _all_texts() -> list[tuple[str, Text]]:
    texts: list[tuple[str, Text]] = []
    for event in EVENT_CARDS:
        texts += [(f"{event.id}.name", event.name), (f"{event.id}.text", event.text)]
    for end in END_GAME_CARDS:
        texts += [(f"{end.id}.name", end.name), (f"{end.id}.text", end.text)]
    for card in MAGIC_CARDS:
        texts += [
            (f"{card.id}.name", card.name),
            (f"{card.id}.condition", card.condition),
            (f"{card.id}.text", card.text),
        ]
    for realm in REALMS:
        texts += [
            (f"{realm.id}.name", realm.name),
            (f"{realm.id}.special_unit_name", realm.special_unit_name),
            (f"{realm.id}.special_unit_d12_when", realm.special_unit_d12_when),
        ]
    texts += [(f"glossary.{key}", text) for key, text in GLOSSARY.items()]
    return texts


def _raw(file: str) -> Any:
    return json.loads(resources.files("kaladan.rules.data").joinpath(file).read_text("utf-8"))


@pytest.fixture
def raw_data() -> dict[str, Any]:
    """Fresh, mutable copies of the four shipped files, for breaking in tests."""
    return {
        "events": copy.deepcopy(_raw("events.json")),
        "magic": copy.deepcopy(_raw("magic_cards.json")),
        "realms": copy.deepcopy(_raw("realms.json")),
        "glossary": copy.deepcopy(_raw("glossary.json")),
    }


def _validate(data: dict[str, Any]) -> None:
    validate_catalog_data(data["events"], data["magic"], data["realms"], data["glossary"])


# --- events (R24) -----------------------------------------------------------------------------


def test_event_deck_has_27_kinds_and_36_cards() -> None:  # R24.1
    assert len(EVENT_CARDS) == 27
    assert sum(card.count for card in EVENT_CARDS) == 36
    assert [card.id for card in EVENT_CARDS] == [f"EV{n:02d}" for n in range(1, 28)]


@pytest.mark.parametrize("card_id", sorted(EXPECTED_EVENTS))
def test_event_count_scope_and_source_match_r24_2(card_id: str) -> None:  # R24.2
    card = EVENT_CARD_BY_ID[card_id]
    assert (card.count, card.scope, card.source) == EXPECTED_EVENTS[card_id]


def test_only_ev01_to_ev07_are_official() -> None:  # R24.1
    official = [card.id for card in EVENT_CARDS if card.source == "official"]
    assert official == ["EV01", "EV02", "EV03", "EV04", "EV05", "EV06", "EV07"]


def test_event_names_match_r24_2() -> None:
    for card_id, name in EXPECTED_EVENT_NAMES.items():
        assert EVENT_CARD_BY_ID[card_id].name.en == name


def test_gold_alternative_is_in_the_text_of_exactly_the_cards_that_offer_it() -> None:  # R24.2
    with_gold = {"EV01", "EV02", "EV03", "EV04", "EV05", "EV06", "EV07", "EV08", "EV09",
                 "EV25", "EV26"}  # fmt: skip
    for card in EVENT_CARDS:
        offers = "take 1 gold" in card.text.en or "takes 1 gold" in card.text.en
        assert offers == (card.id in with_gold), card.id
        if offers:
            assert "1 goud" in card.text.nl and "1 Gold" in card.text.de, card.id


def test_ev24_states_it_has_no_gold_alternative() -> None:  # R24.4
    text = EVENT_CARD_BY_ID["EV24"].text.en
    assert "graveyard" in text and "no gold alternative" in text


def test_end_game_cards() -> None:  # R25.1
    assert [card.id for card in END_GAME_CARDS] == ["EG1", "EG2", "EG3", "EG4"]
    for card_id, name in EXPECTED_END_GAME.items():
        card = END_GAME_CARD_BY_ID[card_id]
        assert card.name.en == name
        assert card.source == "reconstructed"


# --- magic cards (R26) ------------------------------------------------------------------------


def test_thirty_magic_cards_in_realm_then_number_order() -> None:
    assert [card.id for card in MAGIC_CARDS] == [row[0] for row in EXPECTED_MAGIC]


@pytest.mark.parametrize("row", EXPECTED_MAGIC, ids=[row[0] for row in EXPECTED_MAGIC])
def test_magic_card_matches_section_26(row: tuple[str, str, str, str, str]) -> None:
    card_id, name, usable_by, window, source = row
    card = MAGIC_CARD_BY_ID[card_id]
    assert (card.name.en, card.usable_by, card.window, card.source) == (
        name, usable_by, window, source,
    )  # fmt: skip


def test_five_cards_per_realm() -> None:  # R20.1
    for realm in REALMS:
        cards = magic_cards_of(realm.id)
        assert len(cards) == 5
        assert all(card.realm == realm.id for card in cards)
        assert [card.id[-1] for card in cards] == ["1", "2", "3", "4", "5"]


def test_only_kha_1_to_4_are_official() -> None:
    official = [card.id for card in MAGIC_CARDS if card.source == "official"]
    assert official == ["KHA-1", "KHA-2", "KHA-3", "KHA-4"]


def test_magic_cards_of_unknown_realm_is_value_error() -> None:
    with pytest.raises(ValueError, match="atlantis"):
        magic_cards_of("atlantis")


# --- realms and glossary ------------------------------------------------------------------


def test_realms_in_r2_1_order_with_special_units() -> None:  # R2.1, R14.1
    assert [(r.id, r.name.en, r.special_unit_name.en) for r in REALMS] == list(EXPECTED_REALMS)
    assert REALM_BY_ID["khalisia"].motto == "The Iron Throne of Order and Discipline"
    assert REALM_BY_ID["kimbria"].special_unit_d12_when.en == "its battle tile is a Field"
    assert REALM_BY_ID["nanchia"].special_unit_name.nl == "De Bronzen Beer van Nanchia"


def test_glossary_has_every_row_of_section_1() -> None:
    for key in GLOSSARY_KEYS:
        assert key in GLOSSARY, key
    for key, (en, nl, de) in EXPECTED_GLOSSARY.items():
        assert GLOSSARY[key] == Text(en=en, nl=nl, de=de), key


def test_unit_names_are_translated() -> None:
    for key in ("crown", "archer", "shield", "sword", "special_unit", "basic_unit"):
        term = GLOSSARY[key]
        assert term.nl != term.en and term.de != term.en, key
    assert GLOSSARY["general"].nl != GLOSSARY["general"].en
    assert GLOSSARY["catapult"].nl != GLOSSARY["catapult"].en


def test_every_text_is_present_in_all_three_languages() -> None:
    texts = _all_texts()
    assert len(texts) > 150
    for where, text in texts:
        for lang in LANGS:
            assert text.get(lang).strip(), f"{where} [{lang}]"


def test_card_texts_are_translated() -> None:
    texts = [(card.id, card.text) for card in EVENT_CARDS]
    texts += [(card.id, card.text) for card in END_GAME_CARDS]
    texts += [(card.id, card.text) for card in MAGIC_CARDS]
    for card_id, text in texts:
        assert text.nl != text.en, card_id
        assert text.de != text.en, card_id
        assert text.nl != text.de, card_id


def test_text_get_rejects_unknown_language() -> None:
    with pytest.raises(ValueError, match="en, nl, de"):
        GLOSSARY["crown"].get("fr")


def test_catalog_values_are_immutable() -> None:
    with pytest.raises(TypeError):
        EVENT_CARD_BY_ID["EV99"] = EVENT_CARDS[0]  # type: ignore[index]
    with pytest.raises(AttributeError):
        EVENT_CARDS[0].count = 5  # type: ignore[misc]


# --- validation -------------------------------------------------------------------------------


def test_shipped_data_validates(raw_data: dict[str, Any]) -> None:
    _validate(raw_data)


def test_missing_key_names_the_entry(raw_data: dict[str, Any]) -> None:
    del raw_data["events"]["events"][2]["scope"]
    with pytest.raises(FormatError, match=r"events\.json: EV03: missing key 'scope'"):
        _validate(raw_data)


def test_missing_language_names_the_entry(raw_data: dict[str, Any]) -> None:
    del raw_data["magic"][7]["text"]["de"]
    with pytest.raises(FormatError, match=r"magic_cards\.json: KIM-3\.text: missing key 'de'"):
        _validate(raw_data)


def test_bad_window_names_the_entry(raw_data: dict[str, Any]) -> None:
    raw_data["magic"][0]["window"] = "W4"
    with pytest.raises(FormatError, match=r"magic_cards\.json: KHA-1: 'window' is 'W4'"):
        _validate(raw_data)


def test_bad_usable_by_and_source_are_rejected(raw_data: dict[str, Any]) -> None:
    broken = copy.deepcopy(raw_data)
    broken["magic"][3]["usable_by"] = "anyone"
    with pytest.raises(FormatError, match="KHA-4: 'usable_by'"):
        _validate(broken)
    raw_data["events"]["end_game"][1]["source"] = "seed"
    with pytest.raises(FormatError, match="EG2: 'source'"):
        _validate(raw_data)


def test_bad_scope_is_rejected(raw_data: dict[str, Any]) -> None:
    raw_data["events"]["events"][9]["scope"] = "team"
    with pytest.raises(FormatError, match="EV10: 'scope' is 'team'"):
        _validate(raw_data)


def test_duplicate_id_names_the_entry(raw_data: dict[str, Any]) -> None:
    raw_data["magic"][1]["id"] = "KHA-1"
    with pytest.raises(FormatError, match=r"magic_cards\.json: KHA-1: duplicate id"):
        _validate(raw_data)


def test_duplicate_event_id_is_rejected(raw_data: dict[str, Any]) -> None:
    raw_data["events"]["events"][26]["id"] = "EV26"
    with pytest.raises(FormatError, match="EV26: duplicate id"):
        _validate(raw_data)


def test_wrong_event_total_is_rejected(raw_data: dict[str, Any]) -> None:  # R24.1
    raw_data["events"]["events"][0]["count"] = 3
    with pytest.raises(FormatError, match=r"events\.json: events: counts total 37"):
        _validate(raw_data)


def test_non_integer_count_is_rejected(raw_data: dict[str, Any]) -> None:
    raw_data["events"]["events"][4]["count"] = "1"
    with pytest.raises(FormatError, match="EV05: 'count'"):
        _validate(raw_data)


def test_wrong_cards_per_realm_is_rejected(raw_data: dict[str, Any]) -> None:  # R20.1
    del raw_data["magic"][29]
    with pytest.raises(FormatError, match="laurielle: 4 cards, expected 5"):
        _validate(raw_data)


def test_card_id_must_match_its_realm(raw_data: dict[str, Any]) -> None:
    raw_data["magic"][0]["realm"] = "kimbria"
    with pytest.raises(FormatError, match="KHA-1: id must look like KIM-1"):
        _validate(raw_data)


def test_wrong_end_game_count_is_rejected(raw_data: dict[str, Any]) -> None:  # R2.4
    del raw_data["events"]["end_game"][3]
    with pytest.raises(FormatError, match="end_game: 3 cards, expected 4"):
        _validate(raw_data)


def test_empty_text_is_rejected(raw_data: dict[str, Any]) -> None:
    raw_data["realms"][3]["special_unit"]["name"]["nl"] = "  "
    with pytest.raises(FormatError, match=r"realms\.json: ardinor\.special_unit\.name: 'nl'"):
        _validate(raw_data)


def test_realms_out_of_order_are_rejected(raw_data: dict[str, Any]) -> None:  # R2.1
    raw_data["realms"].reverse()
    with pytest.raises(FormatError, match=r"realms\.json: top level: realms are"):
        _validate(raw_data)


def test_missing_glossary_term_is_rejected(raw_data: dict[str, Any]) -> None:
    del raw_data["glossary"]["scalp"]
    with pytest.raises(FormatError, match=r"glossary\.json: scalp: missing term"):
        _validate(raw_data)


def test_unknown_key_is_rejected(raw_data: dict[str, Any]) -> None:
    raw_data["magic"][5]["colour"] = "gold"
    with pytest.raises(FormatError, match="KIM-1: unknown key 'colour'"):
        _validate(raw_data)


def test_entry_without_id_is_named_by_position(raw_data: dict[str, Any]) -> None:
    del raw_data["events"]["events"][0]["id"]
    with pytest.raises(FormatError, match=r"events\.json: entry #0: missing key 'id'"):
        _validate(raw_data)


def test_not_an_object_is_rejected() -> None:
    with pytest.raises(FormatError, match=r"events\.json: top level: expected a JSON object"):
        validate_catalog_data([], [], [], {})


def test_per_file_validators_are_exposed() -> None:
    catalog.validate_events(_raw("events.json"))
    catalog.validate_magic_cards(_raw("magic_cards.json"))
    catalog.validate_realms(_raw("realms.json"))
    catalog.validate_glossary(_raw("glossary.json"))
