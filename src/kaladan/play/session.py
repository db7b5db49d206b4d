"""One terminal game: seats take turns, humans type, bots choose, everything is logged.

Every decision goes through ``Game.play`` (checked, never half-applied), so bad input is
reported and changes nothing. Humans see the public position plus their own hand only; with two
or more humans at one keyboard the screen is wiped and the next player is asked to take over
before each of their decisions (hot-seat). Bots decide from their ``SeatView`` with a random
source fixed by seed, seat and decision number, so a saved game continues identically.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text

from ..battle_report import battle_report
from ..bots.base import Bot, SeatView
from ..bots.registry import make_bot
from ..game import Game
from ..odds import odds_for_attack
from ..public_log import is_private
from ..rules.actions import (
    ATTACK,
    MAGIC,
    VOLLEY,
    Action,
)
from ..rules.errors import IllegalActionError, KaladanError
from ..rules.state import GameState
from . import i18n
from .battle import BattleWatch
from .render import (
    LogEntry,
    board_view,
    header,
    numbered,
    offered_cards,
    options_text,
    outcome_text,
    result_text,
    roll_text,
    seat_name,
)
from .savefile import SeatPlan, bot_rng, write_save
from .screen import Screen
from .style import realm_style

_YES = ("y", "yes", "j", "ja")
_COMMANDS = {
    "help": "help", "?": "help", "hulp": "help", "hilfe": "help",
    "odds": "odds", "kansen": "odds", "chancen": "odds",
    "map": "map", "kaart": "map", "karte": "map",
    "log": "log", "logboek": "log", "protokoll": "log",
    "save": "save", "opslaan": "save", "speichern": "save",
    "quit": "quit", "exit": "quit", "stop": "quit", "beenden": "quit",
}
BATTLES_SHOWN = 2


class Turn(enum.Enum):
    """What became of one line of input."""

    PLAYED = "played"
    AGAIN = "again"
    STOP = "stop"


def public_action_text(text: str, kind: str, lang: str) -> str:
    """An action as every seat may read it: the card names of private decisions are hidden
    (``kaladan.public_log``, R5.13)."""
    if not is_private(text):
        return text
    return f"{MAGIC}: {i18n.text(lang, 'face_down')}" if kind == MAGIC else f"{kind} ?"


def percent(p: float) -> str:
    return f"{100 * p:.1f}%"


@dataclass(slots=True)
class Session:
    game: Game
    plan: SeatPlan
    screen: Screen
    autosave: Path
    log: list[LogEntry] = field(default_factory=list)
    battles: list[tuple[int, list[Text]]] = field(default_factory=list)  # (slot, report)
    last_human: int | None = None
    full_shown: tuple[int, int, int] | None = None
    watch: BattleWatch = field(default_factory=BattleWatch)
    rolled: bool = False  # the battle in progress has rolled its dice
    bots: dict[int, Bot] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for seat, spec in enumerate(self.plan.seats):
            if not self.plan.is_human(seat):
                self.bots[seat] = make_bot(spec)

    @property
    def lang(self) -> str:
        return self.plan.lang

    def t(self, key: str, **values: object) -> str:
        return i18n.text(self.lang, key, **values)

    def name(self, seat: int) -> str:
        return seat_name(self.game.state, self.plan, self.lang, seat)

    # --- the game loop ------------------------------------------------------------------

    def run(self) -> int:
        """Play until the game ends or input runs out; the exit code (0 either way)."""
        game = self.game
        try:
            while not game.is_over:
                seat = game.state.pending.seat
                if self.plan.is_human(seat):
                    if not self.human_turn(seat):
                        return 0
                else:
                    self.bot_turn(seat)
        except KaladanError:
            self.save(self.autosave)  # a failing bot must not cost the game
            raise
        self.show_end()
        if self.save(self.autosave):  # the finished game, to watch again with kaladan replay
            self.screen.say(self.t("end_saved", path=self.autosave))
        return 0

    def bot_turn(self, seat: int) -> None:
        game = self.game
        legal = game.legal_actions()
        rng = bot_rng(game.seed, seat, len(game.steps))
        with self.screen.busy(self.t("loading_bot", who=self.name(seat))):
            action = self.bots[seat].choose(SeatView(game.state, seat), legal, rng)
        self.apply(action, seat)

    def human_turn(self, seat: int) -> bool:
        """One decision of a human; False when the session stops (quit, end of input).
        A decision with a single option (no magic card that could be played, nothing to buy)
        is made at once: there is nothing to choose and nothing private to hide."""
        legal = self.game.legal_actions()
        if len(legal) == 1:
            self.apply(legal[0], seat)
            return True
        if len(self.plan.humans()) > 1 and self.last_human != seat:
            self.screen.clear()
            answer = self.screen.ask(self.t("handover", who=self.name(seat)) + " ")
            if answer is None:
                return self.end_of_input()
        self.last_human = seat
        self.draw(seat)
        while True:
            line = self.screen.ask(self.t("prompt", who=self.name(seat)))
            if line is None:
                return self.end_of_input()
            turn = self.handle(line, seat)
            if turn is Turn.PLAYED:
                return True
            if turn is Turn.STOP:
                return False

    # --- input ---------------------------------------------------------------------------

    def handle(self, line: str, seat: int) -> Turn:
        text = " ".join(line.split())
        if not text:
            self.screen.say(self.t("empty_input"), "yellow")
            return Turn.AGAIN
        word, _, rest = text.partition(" ")
        command = _COMMANDS.get(word.lower())
        if command is not None:
            return self.command(command, rest, seat)
        game = self.game
        legal = game.legal_actions()
        texts = [game.format(a) for a in legal]
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= len(legal):
                self.screen.say(self.t("bad_number", n=number, max=len(legal)), "yellow")
                return Turn.AGAIN
            action = legal[number - 1]
        else:
            try:
                action = game.parse(text)
            except KaladanError as exc:
                matching = [i for i, t in enumerate(texts) if t.lower().startswith(text.lower())]
                if matching:
                    self.screen.say(self.t("matching", text=text))
                    self.screen.show(self._matching(texts, matching))
                    return Turn.AGAIN
                self.screen.say(self.t("not_understood", text=text, reason=str(exc),
                                       example=texts[-1]), "yellow")
                return Turn.AGAIN
        if action.kind in (ATTACK, VOLLEY) and action in legal:
            answer = self.screen.ask(self.t("confirm_attack", action=game.format(action),
                                            p=self.win_chance(action)))
            if answer is None:
                self.end_of_input()
                return Turn.STOP
            if answer.strip().lower() not in _YES:
                self.screen.say(self.t("cancelled"), "yellow")
                return Turn.AGAIN
        try:
            self.apply(action, seat)
        except IllegalActionError as exc:
            self.screen.say(self.t("illegal", reason=exc.reason, rule=exc.rule), "yellow")
            return Turn.AGAIN
        except KaladanError as exc:
            self.screen.say(self.t("not_understood", text=text, reason=str(exc),
                                   example=texts[-1]), "yellow")
            return Turn.AGAIN
        return Turn.PLAYED

    def _matching(self, texts: Sequence[str], indices: Sequence[int]) -> Text:
        out = Text("\n".join(numbered(texts, indices, self.lang)))
        return out

    def command(self, command: str, rest: str, seat: int) -> Turn:
        if command == "help":
            self.screen.say(self.t("help"))
        elif command == "odds":
            self.show_odds()
        elif command == "map":
            self.draw(seat, full=True)
        elif command == "log":
            for entry in self.log:
                self.screen.say(entry.text, entry.style)
        elif command == "save":
            if not rest:
                self.screen.say(self.t("save_usage"), "yellow")
            else:
                self.save(Path(rest), announce=True)
        elif command == "quit":
            if self.save(self.autosave):
                self.screen.say(self.t("quit_saved", path=self.autosave))
            return Turn.STOP
        return Turn.AGAIN

    def win_chance(self, action: Action) -> str:
        try:
            odds = odds_for_attack(self.game.state, action.tile, action.tile2)
        except KaladanError:
            return "?"
        return percent(float(odds.attacker_wins))

    def show_odds(self) -> None:
        game = self.game
        attacks = [a for a in game.legal_actions() if a.kind == ATTACK]
        if not attacks:
            self.screen.say(self.t("odds_none"))
            return
        self.screen.say(self.t("odds_title"), "bold")
        for action in attacks:
            label = game.format(action)
            try:
                odds = odds_for_attack(game.state, action.tile, action.tile2)
            except KaladanError as exc:
                self.screen.say("  " + self.t("odds_unknown", action=label, reason=str(exc)))
                continue
            self.screen.say("  " + self.t(
                "odds_line", action=label, p=percent(float(odds.attacker_wins)),
                la=f"{float(odds.expected_attacker_losses):.2f}",
                ld=f"{float(odds.expected_defender_losses):.2f}"))

    # --- applying decisions and logging them -----------------------------------------------

    def apply(self, action: Action, seat: int) -> None:
        """Play one decision (checked) and log it with its battle, if one was fought."""
        game = self.game
        before = game.state
        shown = public_action_text(game.format(action), action.kind, self.lang)
        game.play(action, seat)
        after = game.state
        self.add_log(f"{self.name(seat)}: {shown}", realm_style(before.realm[seat]))
        if after.last_event is not None and after.last_event != before.last_event:
            self.add_log(f"{i18n.glossary(self.lang, 'event_card')}: {after.last_event} "
                         f"{i18n.card_name(self.lang, after.last_event)}", "bold")
        roll = battle_report(before, action)
        if roll is not None:
            report = roll_text(roll, after, self.plan, self.lang)
            self.battles.append((after.slot, [report]))
            self.rolled = True
            if not self.screen.interactive:
                self.screen.show(report)
            hits_a, hits_d = roll.hits
            names = after.world.names
            self.log.append(LogEntry(f"{i18n.glossary(self.lang, 'battle')} "
                                     f"{names[roll.a_tile]} → {names[roll.d_tile]}: "
                                     + self.t("hits", a=hits_a, d=hits_d), "bold"))
        outcome = self.watch.step(before, action, after)
        if outcome is not None:
            line = outcome_text(outcome, after, self.plan, self.lang)
            if self.rolled:  # the end of the battle whose dice are shown
                self.battles[-1][1].append(line)
            else:  # stopped before any die was rolled (a card, R20.9)
                self.battles.append((after.slot, [line]))
            self.rolled = False
            self.add_log(line.plain, "bold")
        for fallen in range(after.n):
            if after.eliminated[fallen] and not before.eliminated[fallen]:  # R18.1
                self.add_log(self.t("eliminated", who=self.name(fallen)), "bold")

    def add_log(self, message: str, style: str = "") -> None:
        self.log.append(LogEntry(message, style))
        if not self.screen.interactive:
            self.screen.say(message)

    # --- drawing -------------------------------------------------------------------------

    def recent_battles(self, state: GameState) -> list[Text]:
        """Reports of battles fought in the last round (the viewer's and everyone since)."""
        recent = [parts for slot, parts in self.battles if state.slot - slot < state.n]
        self.battles = self.battles[-BATTLES_SHOWN:]
        out: list[Text] = []
        for parts in recent[-BATTLES_SHOWN:]:
            out.extend(parts)
        return out

    def draw(self, seat: int, full: bool = False) -> None:
        """The screen for ``seat``'s decision. A terminal redraws everything; a script gets
        the whole board when the turn or phase changed (or on ``map``), else only the header."""
        game = self.game
        state = game.state
        texts = game.legal_texts()
        screen = self.screen
        key = (state.slot, int(state.phase), seat)
        offered = offered_cards(texts, state.hand[seat])
        if screen.interactive:
            screen.clear()
            screen.show(board_view(state, self.plan, self.lang, seat, self.log[-10:],
                                   self.recent_battles(state), screen.width, offered))
        elif full or key != self.full_shown or offered:
            screen.show(board_view(state, self.plan, self.lang, seat, None, [], 0, offered))
        else:
            screen.show(header(state, self.plan, self.lang))
        self.full_shown = key
        screen.show(options_text(texts, self.lang, compact=screen.interactive))

    def show_end(self) -> None:
        state = self.game.state
        if self.screen.interactive:
            self.screen.clear()
            self.screen.show(board_view(state, self.plan, self.lang, None, self.log[-10:],
                                        self.recent_battles(state), self.screen.width))
        else:
            self.screen.show(board_view(state, self.plan, self.lang, None, None, []))
            self.screen.show(result_text(state, self.plan, self.lang), whole_lines=True)

    # --- saving --------------------------------------------------------------------------

    def save(self, path: Path, announce: bool = False) -> bool:
        try:
            write_save(path, self.game, self.plan)
        except OSError as exc:
            self.screen.say(self.t("save_failed", path=path, reason=exc.strerror or exc),
                            "yellow")
            return False
        if announce:
            self.screen.say(self.t("saved", path=path))
        return True

    def end_of_input(self) -> bool:
        """Input ran out: save to the autosave file, say where, stop (exit code 0)."""
        if self.save(self.autosave):
            self.screen.say(self.t("eof_saved", path=self.autosave))
        return False
