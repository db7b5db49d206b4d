"""Rich renderables of the terminal game: header, players, hand, event card, log, battle,
options and the final result. Everything shown comes from public information (R5.13) plus the
hand of the one seat the screen is for; no other seat's hand is ever rendered. Log lines are
the game log's entries (``rules.gamelog``) as that seat may read them; the battle panel's
body comes from ``battle_view``. Players are named as in the log and the browser: ``P1
(Kimbria)``, P1 being seat 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..rules import logtext
from ..rules.actions import Action
from ..rules.config import OPTIONS
from ..rules.gamelog import Entry
from ..rules.kinds import SPECS, Form
from ..rules.state import GameState, Phase
from ..rules.units import SPECIAL, is_upgraded, type_of
from . import i18n
from .choices import Choice
from .hexmap import legend_text, map_text
from .savefile import SeatPlan
from .style import realm_style


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the session log, already in the session's language."""

    text: str
    style: str = ""


# Entries that stand out in the log; the others take the colour of the seat they name.
_BOLD_KINDS = frozenset({"turn_started", "event_card_drawn", "battle_started", "battle_ended",
                         "tile_captured", "eliminated", "final_round", "game_over"})


def log_line(entry: Entry, state: GameState, lang: str) -> LogEntry:
    """One log entry as a line: the engine's sentence (``Entry.text``) in ``lang``."""
    if entry.KIND in _BOLD_KINDS:
        style = "bold"
    else:
        seat = getattr(entry, "seat", getattr(entry, "attacker", -1))
        style = realm_style(state.realm[seat]) if isinstance(seat, int) and 0 <= seat < state.n \
            else ""
    return LogEntry(entry.text(lang, state.realm), style)


def seat_name(state: GameState, plan: SeatPlan, lang: str, seat: int) -> str:
    """``P2 (Kimbria)``: a seat as the log, the prompts and the browser name it."""
    return logtext.seat_name(seat, lang, state.realm)


def seat_text(state: GameState, plan: SeatPlan, lang: str, seat: int) -> Text:
    return Text(seat_name(state, plan, lang, seat), style=realm_style(state.realm[seat]))


def header(state: GameState, plan: SeatPlan, lang: str) -> Text:
    """``Generals of Kaladan · Turn 3 · Purchase phase · P1 (Ardinor) decides: ...``: the
    turn as the browser counts it, the phase by its name in section 6 of the rules."""
    phase = "setup" if state.phase == Phase.SETUP else state.phase.label
    out = Text(i18n.text(lang, "title"), style="bold")
    if state.phase != Phase.SETUP:
        out.append(" · " + i18n.text(lang, "turn", n=state.turn))
        if state.final_slot >= 0 and not state.is_over:
            out.append(" · " + i18n.text(lang, "final_round"), style="bold")
    out.append(" · " + i18n.phase_name(lang, phase if not state.is_over else "over"),
               style="bold")
    if not state.is_over:
        who = seat_name(state, plan, lang, state.pending.seat)
        kind = i18n.decision_name(lang, state.pending.kind.label)
        out.append(" · ")
        out.append(i18n.text(lang, "to_decide", who=who, kind=kind),
                   style=realm_style(state.realm[state.pending.seat]))
    return out


def rules_text(state: GameState, lang: str) -> Text | None:
    """The ruleset options of this game that differ from their defaults (R3.3), in words;
    None with the standard rules."""
    config = state.config
    changed = [(name, str(getattr(config, name))) for name, values in OPTIONS.items()
               if str(getattr(config, name)) != values[0]]
    if not changed:
        return None
    options = "; ".join(f"{name}={value} ({i18n.option_value(lang, name, value)})"
                        for name, value in changed)
    return Text(i18n.text(lang, "rules_line", options=options), style="dim")


def player_tag(seat: int) -> str:
    """``P3``: a seat as the game log names it (P1 is seat 0), as ``give`` takes it."""
    return f"P{seat + 1}"


def gift_options(state: GameState, giver: int, gifts: Sequence[Action], lang: str,
                 name_giver: bool = False) -> list[str]:
    """``give P3 <1-5> (Nanchia)``: the gifts ``giver`` may make (``Game.gifts``) as one
    ``give`` command per ally, the amounts as a range; ``name_giver`` puts the giver first
    (``give P1 P3 <1-5>``), for another player at the table (R23.11)."""
    amounts: dict[int, list[int]] = {}
    for gift in gifts:
        amounts.setdefault(gift.number, []).append(gift.amount)
    out = []
    for ally, values in amounts.items():
        low, high = min(values), max(values)
        amount = str(low) if low == high else f"<{low}-{high}>"
        head = f"give {player_tag(giver)} " if name_giver else "give "
        realm = state.realm[ally]
        name = f" ({i18n.realm_name(lang, realm)})" if realm >= 0 else ""
        out.append(f"{head}{player_tag(ally)} {amount}{name}")
    return out


def give_line(state: GameState, lang: str, seat: int, own: Sequence[Action],
              others: Sequence[tuple[int, Sequence[Action]]]) -> str:
    """The one line that stands for every gift on offer (R23.11): the deciding ``seat``'s
    own, then those of the other people at the table (``others``: seat and its gifts);
    empty when nobody can give."""
    parts = gift_options(state, seat, own, lang)
    theirs = [text for giver, gifts in others
              for text in gift_options(state, giver, gifts, lang, name_giver=True)]
    if theirs:
        parts.append(i18n.text(lang, "give_others", options=", ".join(theirs)))
    return i18n.text(lang, "give_line", options="; ".join(parts)) if parts else ""


def unit_list(units: Sequence[int], lang: str) -> str:
    """``Sw×2 Ar+`` for a list of units (counts of equal units)."""
    counts = Counter((type_of(c), is_upgraded(c)) for c in units)
    parts = []
    for (utype, up), n in sorted(counts.items()):
        mark = i18n.unit_abbrev(lang, utype) + ("+" if up else "")
        parts.append(mark if n == 1 else f"{mark}×{n}")
    return " ".join(parts) or "-"


def reserve_text(state: GameState, seat: int, lang: str) -> str:
    parts = [f"{i18n.unit_abbrev(lang, t)}×{n}" for t, n in enumerate(state.reserve[seat])
             if n and t != SPECIAL]
    parts += [f"{i18n.unit_abbrev(lang, SPECIAL)}({i18n.realm_name(lang, r)})"
              for r in state.reserve_specials[seat]]
    return " ".join(parts) or "-"


def players_table(state: GameState, plan: SeatPlan, lang: str, viewer: int | None,
                  titled: bool = True) -> Table:
    """One row per player; ``titled`` False (the steady screen) leaves out the title and
    the rule under the column heads."""
    table = Table(title=i18n.text(lang, "players") if titled else None, title_justify="left",
                  expand=False, show_edge=False, pad_edge=False,
                  box=box.HEAVY_HEAD if titled else None, header_style="bold")
    for key in ("col_player", "col_realm", "col_who", "col_gold"):
        table.add_column(i18n.text(lang, key))
    table.add_column(i18n.glossary(lang, "reserve"))
    table.add_column(i18n.glossary(lang, "graveyard"))
    table.add_column(i18n.text(lang, "col_hand"), justify="right")
    for seat in range(state.n):
        spec = plan.seats[seat]
        who = i18n.text(lang, "you") if seat == viewer else (
            i18n.text(lang, "human") if plan.is_human(seat) else spec)
        flags = []
        if state.first == seat and state.phase != Phase.SETUP:
            flags.append(i18n.text(lang, "first"))
        if state.eliminated[seat]:
            flags.append(i18n.text(lang, "out"))
        if state.teams:
            flags.append(i18n.text(lang, "team", n=state.team[seat]))
        style = realm_style(state.realm[seat])
        table.add_row(
            Text(player_tag(seat) + (" ◀" if seat == state.pending.seat else ""), style=style),
            Text(i18n.realm_name(lang, state.realm[seat])
                 + (f" ({', '.join(flags)})" if flags else ""), style=style),
            who, str(state.gold[seat]), reserve_text(state, seat, lang),
            unit_list(state.graveyard[seat], lang), str(len(state.hand[seat])),
        )
    return table


def _card_block(body: Text, card: str, lang: str) -> None:
    body.append(f"{card}  {i18n.card_name(lang, card)}\n", style="bold")
    condition = i18n.card_condition(lang, card)
    if condition:
        body.append(f"  {i18n.text(lang, 'condition')}: {condition}\n")
    body.append(f"  {i18n.text(lang, 'effect')}: {i18n.card_text(lang, card)}")


def offered_cards(actions: Sequence[Action], hand: Sequence[str]) -> list[str]:
    """Cards the options name that are not in the hand (a starting card to choose, a card of
    the realm pool to swap for or buy): their holder must be able to read them. The cards an
    action names are the values of its kind's card slots (``kinds.SPECS``)."""
    out: list[str] = []
    for action in actions:
        for slot in SPECS[action.kind].slots:
            card = getattr(action, slot.field)
            if slot.form is Form.CARD and card and card not in hand and card not in out:
                out.append(card)
    return out


def hand_body(state: GameState, lang: str, seat: int, offered: Sequence[str] = ()) -> Text:
    """The cards in ``seat``'s own hand: name, condition and effect in the session's language;
    then the cards its options offer (``offered_cards``)."""
    body = Text()
    cards = state.hand[seat]
    if not cards:
        body.append(i18n.text(lang, "no_cards"), style="dim")
    for i, card in enumerate(cards):
        if i:
            body.append("\n")
        _card_block(body, card, lang)
    if offered:
        body.append("\n" + i18n.text(lang, "offered") + "\n", style="bold underline")
        for i, card in enumerate(offered):
            if i:
                body.append("\n")
            _card_block(body, card, lang)
    return body


def hand_panel(state: GameState, plan: SeatPlan, lang: str, seat: int,
               offered: Sequence[str] = ()) -> Panel:
    title = i18n.text(lang, "hand_of", who=seat_name(state, plan, lang, seat))
    return Panel(hand_body(state, lang, seat, offered), title=title, title_align="left",
                 border_style=realm_style(state.realm[seat]))


def event_body(state: GameState, lang: str) -> Text:
    """The event card drawn last, with its text."""
    card = state.last_event
    body = Text()
    if card is None:
        body.append(i18n.text(lang, "no_event"), style="dim")
    else:
        body.append(f"{card}  {i18n.card_name(lang, card)}\n", style="bold")
        body.append(i18n.card_text(lang, card))
    return body


def event_panel(state: GameState, lang: str) -> Panel:
    return Panel(event_body(state, lang), title=i18n.text(lang, "event_drawn"),
                 title_align="left")


def log_panel(entries: Sequence[LogEntry], lang: str, last: int = 10) -> Panel:
    body = Text()
    shown = list(entries)[-last:]
    if not shown:
        body.append(i18n.text(lang, "log_empty"), style="dim")
    for i, entry in enumerate(shown):
        if i:
            body.append("\n")
        body.append(entry.text, style=entry.style)
    return Panel(body, title=i18n.text(lang, "log"), title_align="left")


def battle_panel(parts: Sequence[Text], lang: str) -> Panel:
    body = Text()
    for i, part in enumerate(parts):
        if i:
            body.append("\n\n")
        body.append_text(part)
    return Panel(body, title=i18n.text(lang, "battle"), title_align="left", border_style="red")


def option_line(choice: Choice) -> str:
    """``  12. attack C2 T1 (Attack T1 from C2 — you win 80.6%)``: a script reads the
    number and the notation first, then the same choice in words."""
    return f"{choice.number:>3}. {choice.notation} ({choice.words})"


def options_text(choices: Sequence[Choice], lang: str, give: str = "") -> Text:
    """Every choice, one a line (a script's list); then the one line for the gifts."""
    out = Text(i18n.text(lang, "actions") + ":\n", style="bold")
    for choice in choices:
        out.append(option_line(choice) + "\n")
    if give:
        out.append("  " + give + "\n")
    out.rstrip()
    return out


def result_text(state: GameState, plan: SeatPlan, lang: str) -> Text:
    result = state.result
    out = Text()
    if result is None:
        return out
    end = i18n.text(lang, f"end_{result.end}") if result.end in (
        "last_crown", "final_round", "draw") else result.end
    out.append(i18n.text(lang, "game_over", end=end) + "\n", style="bold")
    if result.team is not None:
        members = ", ".join(seat_name(state, plan, lang, s) for s in range(state.n)
                            if state.team[s] == result.team)
        out.append(i18n.text(lang, "winning_team", team=result.team, who=members) + "\n",
                   style="bold")
    elif result.winner is not None:
        out.append(i18n.text(lang, "winner", who=seat_name(state, plan, lang, result.winner))
                   + "\n", style="bold " + realm_style(state.realm[result.winner]))
    else:
        out.append(i18n.text(lang, "draw") + "\n", style="bold")
    scores = ", ".join(f"{seat_name(state, plan, lang, s)} {'-' if v is None else v}"
                       for s, v in enumerate(result.scores))
    out.append(i18n.text(lang, "scores", scores=scores))
    return out


def _side_by_side(left: RenderableType, right: RenderableType) -> Table:
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(ratio=1)
    grid.add_column(ratio=1)
    grid.add_row(left, right)
    return grid


def board_view(state: GameState, plan: SeatPlan, lang: str, viewer: int | None,
               log: Sequence[LogEntry] | None, battle: Sequence[Text],
               width: int = 0, offered: Sequence[str] = (),
               rules: bool = True) -> RenderableType:
    """Everything public plus the viewer's own hand and its allies' (R23.5): the full screen
    above the options.
    ``log`` None leaves the log out (a script reads each log line as it happens). On a wide
    terminal (``width``) panels stand side by side so the screen needs fewer lines.
    ``rules``: the line of the game's ruleset options that are not the defaults (R3.3)."""
    world = map_text(state, lang)
    map_width = max(len(line) for line in world.plain.split("\n")) + 4
    board = Group(Panel(world, title=i18n.text(lang, "map"), title_align="left", expand=False),
                  legend_text(lang))
    players = players_table(state, plan, lang, viewer)
    event = event_panel(state, lang)
    parts: list[RenderableType] = [header(state, plan, lang)]
    variants = rules_text(state, lang) if rules else None
    if variants is not None:
        parts.append(variants)
    if width >= map_width + 90:
        parts.append(_side_by_side(board, Group(players, event)))
    else:
        parts += [board, players]
        if log is None or width < 100:
            parts.append(event)
    if log is not None:
        history = log_panel(log, lang)
        parts.append(_side_by_side(event, history) if 100 <= width < map_width + 90
                     else history)
    if battle:
        parts.append(battle_panel(battle, lang))
    if viewer is not None and not state.is_over:
        parts.append(hand_panel(state, plan, lang, viewer, offered))
        for ally in state.allies(viewer):  # R23.5: allies show each other their cards
            parts.append(hand_panel(state, plan, lang, ally))
    if state.is_over and log is not None:  # a script gets the result as whole lines
        parts.append(result_text(state, plan, lang))
    return Group(*parts)
