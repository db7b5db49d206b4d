"""One terminal game: seats take turns, humans type, bots choose, everything is logged.

Every decision goes through ``Game.play`` (checked, never half-applied), so bad input is
reported and changes nothing. What happened is the game log ``Game.play`` returns
(``rules.gamelog``): the log lines and the battle panel are its entries, as the seat at the
keyboard may read them (``gamelog.visible``); nothing is worked out by comparing positions.
Humans see the public position plus their own hand only; with two or more humans at one
keyboard the screen is wiped and the next player is asked to take over before each of their
decisions (hot-seat), and each screen's log is filtered anew for the seat it is drawn for.
Bots decide from their ``SeatView`` with a random source fixed by seed, seat and decision
number, so a saved game continues identically.

On a terminal the game is one steady screen (``steady``); whatever a command shows (help,
odds, costs, the log) and every message go onto it. A script gets plain lines instead.

In a team game any human at the table may give gold to an ally at every prompt (R23.11:
``give P3 2``, or ``give P1 P3 2`` for a player who is not deciding); the gift goes through
``Game.play`` with the giver's seat and leaves the decision where it was. Gifts are one line
under the numbered options, never numbered options themselves.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text

from ..bots.base import Bot, SeatView
from ..bots.registry import make_bot
from ..game import Game
from ..odds import odds_for_attack
from ..rules.actions import ATTACK, GIFT, VOLLEY, Action
from ..rules.errors import IllegalActionError, KaladanError
from ..rules.gamelog import Entry, visible
from ..rules.state import Pending
from . import choices, i18n, steady, words
from .battle_view import battle_text, closes_battle, last_battle, recent_battles
from .choices import Choice
from .render import (
    LogEntry,
    board_view,
    gift_options,
    give_line,
    hand_body,
    header,
    log_line,
    offered_cards,
    option_line,
    options_text,
    result_text,
    rules_text,
    seat_name,
)
from .savefile import SeatPlan, bot_rng, save_path, write_save
from .screen import Screen

_YES = ("y", "yes", "j", "ja")
_COMMANDS = {
    "help": "help", "?": "help", "hulp": "help", "hilfe": "help",
    "odds": "odds", "kansen": "odds", "chancen": "odds",
    "costs": "costs", "prices": "costs", "kosten": "costs", "prijzen": "costs",
    "preise": "costs",
    "hand": "hand", "cards": "hand", "kaarten": "hand", "karten": "hand",
    "battle": "battle", "gevecht": "battle", "kampf": "battle",
    "map": "map", "kaart": "map", "karte": "map",
    "log": "log", "logboek": "log", "protokoll": "log",
    "save": "save", "opslaan": "save", "speichern": "save",
    "quit": "quit", "exit": "quit", "stop": "quit", "beenden": "quit",
    "give": "give", "geef": "give", "gib": "give",
    "+": "more", "-": "back",
}
_PLAYER = re.compile(r"[Pp]([0-9]+)")  # a player as the log names it: P1 is seat 0
LOG_SHOWN = 40  # log lines a terminal screen may show


def is_number(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes ``"²"``, which ``int`` refuses."""
    return text.isascii() and text.isdigit()


class Turn(enum.Enum):
    """What became of one line of input."""

    PLAYED = "played"
    AGAIN = "again"
    REDRAW = "redraw"  # gold was given (R23.11): the same decision, asked again afresh
    STOP = "stop"


@dataclass(slots=True)
class Session:
    game: Game
    plan: SeatPlan
    screen: Screen
    autosave: Path
    # Messages of the session itself (a game loaded), each at its place in ``game.entries``.
    notes: list[tuple[int, LogEntry]] = field(default_factory=list)
    last_human: int | None = None
    full_shown: tuple[int, int, int] | None = None
    battle_printed: int = -1  # where in game.entries the last battle a script got starts
    bots: dict[int, Bot] = field(default_factory=dict)
    view: steady.View = field(default_factory=steady.View)
    _options: list[Choice] = field(default_factory=list)
    _options_for: tuple[int, Pending] | None = None

    def __post_init__(self) -> None:
        for seat, spec in enumerate(self.plan.seats):
            if not self.plan.is_human(seat):
                self.bots[seat] = make_bot(spec)
        game = self.game
        done = last_battle(game.entries)
        if done is not None and game.state.battle is not None:  # saved during a battle
            done = last_battle(game.entries, done[0])
        self.battle_printed = -1 if done is None else done[0]

    @property
    def lang(self) -> str:
        return self.plan.lang

    @property
    def tty(self) -> bool:
        return self.screen.interactive

    def t(self, key: str, **values: object) -> str:
        return i18n.text(self.lang, key, **values)

    def name(self, seat: int) -> str:
        return seat_name(self.game.state, self.plan, self.lang, seat)

    def options(self) -> list[Choice]:
        """The numbered choices of the decision pending now (made once per decision)."""
        key = (len(self.game.steps), self.game.state.pending)
        if key != self._options_for:
            self._options = choices.build(self.game, self.lang)
            self._options_for = key
        return self._options

    # --- the game loop ------------------------------------------------------------------

    def run(self) -> int:
        """Play until the game ends or input runs out; the exit code (0 either way)."""
        game = self.game
        if not self.tty:
            self.say_rules()  # once: a script's boards leave the line out
            if not game.steps:  # a new game: its setup
                self.say_entries(game.entries)
        try:
            while not game.is_over:
                seat = game.state.pending.seat
                if self.plan.is_human(seat):
                    if not self.human_turn(seat):
                        return 0
                else:
                    self.bot_turn(seat)
        except KaladanError:
            self.save(self.autosave, final=True)  # a failing bot must not cost the game
            raise
        finally:
            self.screen.leave()
        self.show_end()
        if self.save(self.autosave, final=True):  # the finished game, for kaladan replay
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
        options = self.options()
        if len(options) == 1:  # a gift alone makes no decision point (decision 34)
            self.apply(options[0].action, seat)
            return True
        if len(self.plan.humans()) > 1 and self.last_human != seat:
            if self.tty:  # a wiped screen, the next player's name in its middle
                self.screen.paint(steady.Notice(self.name(seat)))
            answer = self.screen.ask(self.t("handover", who=self.name(seat)) + " ")
            if answer is None:
                return self.end_of_input()
        self.last_human = seat
        self.view.reset(messages=False)  # what was said since the last answer stays
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
            if turn is Turn.REDRAW:
                self.draw(seat)

    # --- what the player is told ---------------------------------------------------------

    def tell(self, message: str, style: str = "") -> None:
        """A message: on the steady screen above the prompt, to a script as a line."""
        if self.tty:
            self.view.messages.append((message, style))
        else:
            self.screen.say(message, style)

    def show_text(self, title: str, lines: Sequence[Text], at_end: bool = False) -> None:
        """A text the player asked for: in place of the choices (paged), or as lines."""
        if self.tty:
            self.view.info = steady.Info(title, list(lines))
            self.view.page = 0
            self.view.last_page = at_end
        else:
            for line in lines:
                self.screen.say(line.plain, str(line.style))

    # --- input ---------------------------------------------------------------------------

    def handle(self, line: str, seat: int) -> Turn:
        text = " ".join(line.split())
        word, _, rest = text.partition(" ")
        command = _COMMANDS.get(word.lower())
        if command in ("more", "back") and self.tty:
            self.view.page += 1 if command == "more" else -1
            return Turn.AGAIN
        self.view.messages.clear()
        if not text:
            if self.tty and (self.view.info is not None or self.view.shown is not None):
                self.view.reset()
                return Turn.AGAIN
            self.tell(self.t("empty_input"), "yellow")
            return Turn.AGAIN
        self.view.info = None
        if command is not None:
            return self.command(command, rest, seat)
        game = self.game
        options = self.options()
        if is_number(text):
            number = int(text)
            if not 1 <= number <= len(options):
                self.tell(self.t("bad_number", n=number, max=len(options)), "yellow")
                return Turn.AGAIN
            action = options[number - 1].action
        else:
            try:
                action = game.parse(text)
            except KaladanError as exc:
                found = choices.matching(options, text)
                if found:
                    self.show_matching(text, found)
                    return Turn.AGAIN
                self.tell(self.t("not_understood", text=text, reason=str(exc),
                                 example=options[-1].notation), "yellow")
                return Turn.AGAIN
        return self.play(action, seat, text)

    def play(self, action: Action, seat: int, text: str) -> Turn:
        """Play an action typed or chosen; an attack after its odds are confirmed."""
        game = self.game
        if action.kind in (ATTACK, VOLLEY) and action in game.legal_actions():
            answer = self.screen.ask(self.t(
                "confirm_attack", action=words.describe(action, game.state, self.lang),
                p=choices.win_chance(game, action)))
            if answer is None:
                self.end_of_input()
                return Turn.STOP
            if answer.strip().lower() not in _YES:
                self.tell(self.t("cancelled"), "yellow")
                return Turn.AGAIN
        try:
            self.apply(action, seat)
        except IllegalActionError as exc:
            self.tell(self.t("illegal", reason=exc.reason, rule=exc.rule), "yellow")
            return Turn.AGAIN
        except KaladanError as exc:
            self.tell(self.t("not_understood", text=text, reason=str(exc),
                             example=self.options()[-1].notation), "yellow")
            return Turn.AGAIN
        self.view.reset()
        return Turn.REDRAW if action.kind == GIFT else Turn.PLAYED

    def show_matching(self, text: str, found: list[Choice]) -> None:
        if self.tty:
            self.view.shown, self.view.title = found, self.t("matching_tty", text=text)
            self.view.page = 0
            return
        self.screen.say(self.t("matching", text=text))
        for choice in found:
            self.screen.say(option_line(choice))

    def command(self, command: str, rest: str, seat: int) -> Turn:
        if command == "help":
            legend = i18n.text(self.lang, "legend", units=i18n.unit_legend(self.lang))
            self.show_text(self.t("help_title"), [
                Text(line) for line in self.t("help", legend=legend).split("\n")])
        elif command == "odds":
            self.show_odds()
        elif command == "costs":
            self.show_text(self.t("costs_title"), [
                Text(line) for line in words.costs_lines(self.game.state, seat, self.lang)])
        elif command == "hand":
            self.show_hand(seat)
        elif command == "battle":
            self.show_battle(seat)
        elif command == "map":
            if self.tty:
                self.view.reset()
            else:
                self.draw(seat, full=True)
        elif command == "log":
            self.show_text(self.t("log_title"), [Text(line.text, style=line.style)
                                                  for line in self.log_lines(seat)], True)
        elif command == "save":
            if not rest:
                self.tell(self.t("save_usage"), "yellow")
            else:
                self.save(save_path(rest), announce=True)
        elif command == "quit":
            if self.save(self.autosave, final=True):
                self.screen.say(self.t("quit_saved", path=self.autosave))
            return Turn.STOP
        elif command == "give":
            return self.give(rest, seat)
        elif command in ("more", "back"):  # a script has no pages: the whole list again
            self.draw(seat, full=True)
        return Turn.AGAIN

    def show_hand(self, seat: int) -> None:
        state = self.game.state
        body = hand_body(state, self.lang, seat, offered_cards(
            [c.action for c in self.options()], state.hand[seat]))
        for ally in state.allies(seat):  # R23.5
            body.append(f"\n{self.name(ally)}:\n", style="bold underline")
            body.append_text(hand_body(state, self.lang, ally))
        self.show_text(self.t("hand_of", who=self.name(seat)), list(body.split("\n")))

    def show_battle(self, seat: int) -> None:
        span = last_battle(self.game.entries)
        if span is None:
            self.tell(self.t("no_battle"))
            return
        self.show_text(self.t("last_battle"), list(self.battle(span, seat).split("\n")))

    def give(self, rest: str, seat: int) -> Turn:
        """``give ALLY AMOUNT``: ``seat`` (the one deciding) gives its ally gold;
        ``give GIVER ALLY AMOUNT``: another human at the table does, out of turn (R23.11).
        Players are named as in the log (``P1`` is seat 0). The engine checks the gift
        (``Game.play`` with the giver's seat); a refusal is explained and changes nothing."""
        state = self.game.state
        if not state.teams:
            self.tell(self.t("give_no_team"), "yellow")
            return Turn.AGAIN
        parts = rest.split()
        named = [_PLAYER.fullmatch(part) for part in parts[:-1]]
        if len(parts) not in (2, 3) or not is_number(parts[-1]) or int(parts[-1]) < 1 \
                or not all(named):
            self.tell(self.t("give_usage"), "yellow")
            return Turn.AGAIN
        seats = [int(m.group(1)) - 1 for m in named if m is not None]
        for part, player in zip(parts, seats, strict=False):
            if not 0 <= player < state.n:
                self.tell(self.t("give_no_seat", player=part.upper(), n=state.n), "yellow")
                return Turn.AGAIN
        giver, ally = (seats[0], seats[1]) if len(seats) == 2 else (seat, seats[0])
        if not self.plan.is_human(giver):
            self.tell(self.t("give_bot", who=self.name(giver), bot=self.plan.seats[giver]),
                      "yellow")
            return Turn.AGAIN
        try:
            self.apply(self.game.parse(f"{GIFT} {ally} {parts[-1]}"), giver)
        except IllegalActionError as exc:
            self.tell(self.t("illegal", reason=exc.reason, rule=exc.rule), "yellow")
            offers = gift_options(state, giver, self.game.gifts(giver), self.lang,
                                  name_giver=giver != seat)
            self.tell(self.t("give_can", who=self.name(giver), options=", ".join(offers))
                      if offers else self.t("give_nothing", who=self.name(giver)))
            return Turn.AGAIN
        except KaladanError as exc:
            self.tell(self.t("not_understood", text=f"give {rest}", reason=str(exc),
                             example="give P3 1"), "yellow")
            return Turn.AGAIN
        return Turn.REDRAW

    def show_odds(self) -> None:
        game = self.game
        attacks = [a for a in game.legal_actions() if a.kind == ATTACK]
        if not attacks:
            self.tell(self.t("odds_none"))
            return
        lines = [Text(self.t("odds_title"), style="bold")]
        for action in attacks:
            label = game.format(action)
            try:
                odds = odds_for_attack(game.state, action.tile, action.tile2)
            except KaladanError as exc:
                lines.append(Text("  " + self.t("odds_unknown", action=label, reason=str(exc))))
                continue
            lines.append(Text("  " + self.t(
                "odds_line", action=label, p=choices.percent(float(odds.attacker_wins)),
                la=f"{float(odds.expected_attacker_losses):.2f}",
                ld=f"{float(odds.expected_defender_losses):.2f}")))
        self.show_text(self.t("odds_head"), lines)

    # --- applying decisions and showing what happened ----------------------------------------

    def apply(self, action: Action, seat: int) -> None:
        """Play one decision (checked). A script is told at once what it may see of what
        happened (``Game.play``'s log entries), and the whole battle when one has ended."""
        caused = self.game.play(action, seat)
        if self.tty:
            return
        self.say_entries(caused)
        if self.game.state.battle is None and any(closes_battle(e) for e in caused):
            done = last_battle(self.game.entries)
            if done is not None and done[0] > self.battle_printed:
                self.battle_printed = done[0]
                self.screen.show(self.battle(done, self.watcher()), whole_lines=True)

    def watcher(self) -> int | None:
        """Whose eyes shared output is for: the humans' seat when they are all one team (R23.5:
        allies see each other's cards), else nobody's but a spectator's (hot-seat rivals)."""
        humans = self.plan.humans()
        team = self.game.state.team
        if humans and len({team[s] for s in humans}) == 1:
            return humans[0]
        return None

    def say_entries(self, entries: Sequence[Entry]) -> None:
        state = self.game.state
        for entry in visible(entries, state.team, self.watcher()):
            line = log_line(entry, state, self.lang)
            self.screen.say(line.text)

    def add_log(self, message: str, style: str = "") -> None:
        """A message of the session (not of the game) in the log, where it happened."""
        self.notes.append((len(self.game.entries), LogEntry(message, style)))
        self.tell(message, style)

    def log_lines(self, seat: int | None, last: int | None = None) -> list[LogEntry]:
        """The log as ``seat`` may read it (``None``: a spectator), with the session's notes;
        only the ``last`` lines when given (only those are put into words)."""
        state = self.game.state
        entries = self.game.entries
        start = 0
        if last is not None:  # read back from the end until enough lines are visible
            start = len(entries)
            while start > 0:
                start = max(0, start - 4 * last)
                shown = visible(entries[start:], state.team, seat)
                if len(shown) + sum(1 for at, _ in self.notes if at >= start) >= last:
                    break
        lines: list[LogEntry] = []
        at = start
        for place, note in [*self.notes, (len(entries), None)]:
            if place < start:
                continue
            lines += [log_line(e, state, self.lang)
                      for e in visible(entries[at:place], state.team, seat)]
            if note is not None:
                lines.append(note)
            at = place
        return lines if last is None else lines[-last:]

    def battle(self, span: tuple[int, int], seat: int | None) -> Text:
        """The battle of ``game.entries[span]`` as ``seat`` may see it."""
        state = self.game.state
        start, end = span
        open_ = state.battle is not None and end == len(self.game.entries)
        return battle_text(visible(self.game.entries[start:end], state.team, seat), state,
                           self.plan, self.lang, open_)

    def recent_battles(self, seat: int | None) -> list[Text]:
        """The battles of the last round (the viewer's own turn and everyone's since)."""
        spans = recent_battles(self.game.entries, self.game.state.n)
        return [self.battle(span, seat) for span in spans]

    # --- drawing -------------------------------------------------------------------------

    def scene(self, seat: int | None) -> steady.Scene:
        """Everything the steady screen shows for ``seat`` (None: nobody's hand)."""
        state = self.game.state
        options = self.options() if seat is not None else []
        offered = offered_cards([c.action for c in options], state.hand[seat]) \
            if seat is not None else []
        return steady.Scene(state, self.plan, self.lang, seat, self.log_lines(seat, LOG_SHOWN),
                            self.recent_battles(seat), options, offered,
                            self.give_hint(seat) if seat is not None else "")

    def draw(self, seat: int, full: bool = False) -> None:
        """The screen for ``seat``'s decision. A terminal shows its steady screen; a script
        gets the whole board when the turn or phase changed (or on ``map``), else only the
        header, then every option."""
        if self.tty:
            self.screen.paint(steady.DecisionPainter(self, seat))
            return
        state = self.game.state
        options = self.options()
        key = (state.slot, int(state.phase), seat)
        offered = offered_cards([c.action for c in options], state.hand[seat])
        if full or key != self.full_shown or offered:
            if full:
                self.say_rules()
            self.screen.show(board_view(state, self.plan, self.lang, seat, None, [], 0,
                                        offered, rules=False))
        else:
            self.screen.show(header(state, self.plan, self.lang))
        self.full_shown = key
        self.screen.show(options_text(options, self.lang, give=self.give_hint(seat)))

    def say_rules(self) -> None:
        """The game's ruleset options that are not the defaults (R3.3), as one line."""
        rules = rules_text(self.game.state, self.lang)
        if rules is not None:
            self.screen.say(rules.plain, str(rules.style))

    def give_hint(self, seat: int) -> str:
        """The line standing for every gift on offer now (R23.11): ``seat``'s own and those
        of the other humans at the table; bots give only in their own decisions."""
        game = self.game
        others = [(s, game.gifts(s)) for s in self.plan.humans() if s != seat]
        return give_line(game.state, self.lang, seat, game.gifts(seat),
                         [(s, gifts) for s, gifts in others if gifts])

    def show_end(self) -> None:
        """The finished game, printed to stay in the terminal: the board, the log, the last
        battles and the result."""
        state = self.game.state
        viewer = self.watcher()
        if self.tty:
            self.screen.show(board_view(state, self.plan, self.lang, None,
                                        self.log_lines(viewer, 10),
                                        self.recent_battles(viewer), self.screen.width))
        else:
            self.screen.show(board_view(state, self.plan, self.lang, None, None, [],
                                        rules=False))
            self.screen.show(result_text(state, self.plan, self.lang), whole_lines=True)

    # --- saving --------------------------------------------------------------------------

    def save(self, path: Path, announce: bool = False, final: bool = False) -> bool:
        """Write a save; ``final``: the session ends, so a failure is printed, not put on
        a screen that is about to go."""
        try:
            write_save(path, self.game, self.plan)
        except OSError as exc:
            message = self.t("save_failed", path=path, reason=exc.strerror or exc)
            if final:
                self.screen.say(message, "yellow")
            else:
                self.tell(message, "yellow")
            return False
        if announce:
            self.tell(self.t("saved", path=path))
        return True

    def end_of_input(self) -> bool:
        """Input ran out: save to the autosave file, say where, stop (exit code 0)."""
        if self.save(self.autosave, final=True):
            self.screen.say(self.t("eof_saved", path=self.autosave))
        return False
