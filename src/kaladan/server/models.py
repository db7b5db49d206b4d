"""Request and response models: they validate input (a mismatch is a 400) and document the
API in OpenAPI. docs/api.md describes the same shapes in words.

The request schemas are as strict as the server: a seat kind is ``human`` or a bot code of
the registry with parameters within the server's caps (``SEAT_PATTERN``), options and their
values come from the ruleset (R3.3), and unknown keys are refused. ``app.openapi_schema``
adds what depends on the server's settings (``openapi.py``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from ..bots.levels import level_names
from ..bots.registry import bot_codes
from .clocks import MAX_SECONDS as MAX_CLOCK
from .service import BOT_LIMITS, HUMAN, PPO

# The largest whole number a client sends (a seed, an index, a version): the largest that
# every JSON reader holds exactly (I-JSON, RFC 7493; JavaScript's Number.MAX_SAFE_INTEGER).
# A bound near 2**63 is read as a double by many clients, and rounds past what the server
# takes (integers beyond 64 bits are refused, ``security.strict_json``).
MAX_WHOLE = (1 << 53) - 1
MAX_SEED = MAX_WHOLE


def _integral(value: Any) -> Any:
    """A number with a zero fraction (``5023.0``) as the integer it is: JSON Schema counts
    it an integer (draft 2020-12, validation 6.1.1), so a schema's valid request may write
    it so. Anything else goes on unchanged to the strict check, which refuses ``"5"``,
    ``true`` and ``2.5``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# A whole number a client sends (0 to ``MAX_WHOLE``), as JSON Schema's "integer": an int
# or an integral float, nothing else.
Whole = Annotated[int, Field(strict=True, ge=0, le=MAX_WHOLE), BeforeValidator(_integral)]


def upto(limit: int) -> str:
    """A regular expression of the whole numbers 1 to ``limit`` written without leading
    zeros: ``upto(50)`` matches ``1`` ... ``50``."""
    text = str(limit)
    alternatives = [f"[1-9][0-9]{{0,{len(text) - 2}}}"] if len(text) > 1 else []
    for i, digit in enumerate(text):  # numbers of len(text) digits that fall below limit
        low = 1 if i == 0 else 0
        if int(digit) > low:
            rest = len(text) - i - 1
            alternatives.append(text[:i] + f"[{low}-{int(digit) - 1}]"
                                + (f"[0-9]{{{rest}}}" if rest else ""))
    alternatives.append(text)
    return "(?:" + "|".join(alternatives) + ")"


# Positive decimals (no exponent, at most six digits on each side of the point).
_FRACTION = r"0\.[0-9]{0,5}[1-9][0-9]{0,5}"
_POSITIVE = rf"(?:[1-9][0-9]{{0,5}}(?:\.[0-9]{{1,6}})?|{_FRACTION})"
_TIME_LIMIT = int(BOT_LIMITS["time"])
_TIME = (rf"(?:{_TIME_LIMIT}(?:\.0{{1,6}})?|{upto(_TIME_LIMIT - 1)}(?:\.[0-9]{{1,6}})?"
         rf"|{_FRACTION})")


def _search_pattern(name: str, extra: tuple[str, ...] = ()) -> str:
    """``mcts`` or ``expert`` with ``key=value`` parameters (docs/bots.md) within
    ``service.BOT_LIMITS``: a budget of either iterations or time, never both
    (``MctsParams.parse``, ``ExpertParams.parse``); never a file (the expert's ``net``)."""
    shared = [f"c={_POSITIVE}", f"horizon={upto(int(BOT_LIMITS['horizon']))}",
              f"width={upto(int(BOT_LIMITS['width']))}", *extra]
    by_count = "(?:" + "|".join([f"iterations={upto(int(BOT_LIMITS['iterations']))}",
                                 *shared]) + ")"
    by_time = "(?:" + "|".join([f"time={_TIME}", *shared]) + ")"
    return rf"{name}(?::(?:{by_count}(?:,{by_count})*|{by_time}(?:,{by_time})*))?"


# The careless bot's chance of a random action: above 0, at most 1.
_CARELESS = rf"careless(?::p=(?:1(?:\.0{{1,6}})?|{_FRACTION}))?"
SEARCHING = ("mcts", "expert")  # their parameters have patterns of their own
WITH_PARAMETERS = (*SEARCHING, "careless")


def seat_pattern(ppo: bool) -> str:
    """The seat kinds a client may ask for: ``human``, the levels, the registry's bots (mcts,
    expert and careless with their parameters), and with ``ppo`` the kind ``ppo`` exactly
    (the operator's policy, never a path: ``ServerSettings.ppo_policy``)."""
    plain = [code for code in bot_codes() if code not in (*WITH_PARAMETERS, PPO)]
    assert set(WITH_PARAMETERS) <= set(bot_codes()), "the seat pattern knows their parameters"
    return "^(?:" + "|".join([HUMAN, *level_names(), *plain, *([PPO] if ppo else []),
                              _search_pattern("mcts"),
                              _search_pattern("expert", ("reuse=[01]",)), _CARELESS]) + ")$"


SEAT_PATTERN = seat_pattern(ppo=False)  # what every server takes
# The model takes "ppo" as well; a server without a policy refuses it (400 unknown_bot) and
# its OpenAPI schema says SEAT_PATTERN (openapi.py).
SeatKind = Annotated[str, StringConstraints(pattern=seat_pattern(ppo=True))]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


TimeoutBot = Literal["greedy", "random"]
TimeoutsInARow = Annotated[int, Field(strict=True, ge=1, le=100), BeforeValidator(_integral)]
_TIMEOUT_BOT = ("the bot that decides for a seat whose time ran out, and plays it once "
                "taken over (default greedy)")
_TAKEOVER = ("timeouts in a row after which the bot plays the seat until its player takes "
             "it back (default 3)")


class LiveControl(Strict):
    """Live play: seconds per decision, and a reserve per seat for the whole game."""

    kind: Literal["live"]
    decision: float = Field(ge=1, le=MAX_CLOCK, strict=True,
                            description="seconds each decision gets")
    reserve: float = Field(0, ge=0, le=MAX_CLOCK, strict=True,
                           description="seconds per seat for the whole game, taken from once "
                           "a decision's own time is spent")
    timeout_bot: TimeoutBot = Field("greedy", description=_TIMEOUT_BOT)
    takeover_after: TimeoutsInARow = Field(3, description=_TAKEOVER)


class TurnControl(Strict):
    """Turn-based play: seconds per turn (from the moment the seat is to decide until
    another seat is)."""

    kind: Literal["turn"]
    turn: float = Field(ge=1, le=MAX_CLOCK, strict=True, description="seconds per turn")
    timeout_bot: TimeoutBot = Field("greedy", description=_TIMEOUT_BOT)
    takeover_after: TimeoutsInARow = Field(3, description=_TAKEOVER)


TimeControlBody = Annotated[LiveControl | TurnControl, Field(discriminator="kind")]


class CreateGame(Strict):
    """A new game: one entry per seat, ruleset options by name (RULES.md R3.3)."""

    mode: Literal["free_for_all", "team_2v2", "team_3v3"] = Field(
        "free_for_all", description="free-for-all (2-6 seats), or teams of alternating "
        "seats (R23.1): team_2v2 has 4 seats, team_3v3 6")
    seats: list[SeatKind] = Field(
        min_length=2, max_length=6,
        description=f"per seat 'human', a level ({', '.join(level_names())}: weakest first) "
        "or a bot code of the registry: random, greedy, careless (p: the chance of a random "
        "action), mcts and expert with optional parameters iterations (or time, in "
        "seconds), c, horizon, width (expert: reuse), within the server's caps: e.g. "
        "'mcts:time=1', 'expert:iterations=400,c=0.5'; 'ppo' plays the trained policy of a "
        "server started with --ppo-policy. An expert seat (or a level playing it) needs a "
        "value network for the game's player count and mode: 422 otherwise")
    options: dict[str, str] = Field(default_factory=dict, max_length=20,
                                    description="R3.3 options by name, e.g. "
                                    "{'mountain_defence': 'drop_lowest'}; world=custom comes "
                                    "with a 'world'")
    world: dict[str, Any] | None = Field(None, description="a custom world layout (R4.14, "
                                         "docs/formats.md); the rules check it (400 "
                                         "invalid_config when it is not a playable world)")
    seed: Whole | None = Field(None, description="drawn by the server when absent (then never "
                               "sent); a chosen seed is allowed only for games with at most "
                               "one human seat and is then shown to every seat")
    quick: bool = Field(False, strict=True, description="deal realms, cards, castles and "
                        "starting units instead of asking for them")
    name: str = Field("", max_length=100)
    hints: bool | None = Field(None, strict=True, description="advice on request: a seat may "
                               "ask what the strongest bot would do from its own view (GET "
                               ".../hint); absent: on when the game has a bot seat, off when "
                               "every seat is human")
    rated: bool = Field(False, strict=True, description="a rated game: only signed-in players "
                        "take its human seats, its seed is the server's, it gives no advice, "
                        "and its result changes the players' ratings")
    open_seats: bool = Field(False, strict=True, description="listed for every signed-in "
                             "player to take a free seat with one click, without its code")
    time_control: TimeControlBody | None = Field(
        None, description="e.g. {'kind': 'live', 'decision': 60, 'reserve': 300} or "
        "{'kind': 'turn', 'turn': 86400}; absent: untimed")


class JoinLink(BaseModel):
    seat: int
    url: str = Field(description="/play/<game>/<seat>?code=<one-time join code>")
    code: str = Field(description="the seat's one-time join code (the one in ``url``), "
                      "to send to .../seats/{seat}/join")


class Created(BaseModel):
    game_id: str
    join: list[JoinLink] = Field(description="one entry per human seat")
    spectate: str


class SeatSummary(BaseModel):
    seat: int
    kind: Literal["human", "bot"]
    bot: str | None
    joined: bool
    player: str | None = Field(None, description="the signed-in player's name (null: a "
                               "guest, a bot or a free seat)")
    team: int | None = Field(None, description="team mode: the seat's team (0-based; the UI "
                             "numbers teams from 1, R23.2); null in a free-for-all")


class GameSummary(BaseModel):
    game_id: str
    name: str
    mode: str
    players: int
    options: dict[str, str] = Field(
        description="the game's ruleset options of R3.3 (e.g. phase_order), public")
    hints: bool = Field(description="whether its seats may ask for advice (GET .../hint)")
    seats: list[SeatSummary]
    status: Literal["open", "running", "over"]
    created: str = Field(description="ISO 8601, UTC")
    rated: bool = Field(False, description="rated: only signed-in players sit at its human "
                        "seats, and the result changes their ratings")
    open_seats: bool = Field(False, description="any signed-in player may take a free seat "
                             "without its code")
    time_control: dict[str, Any] | None = Field(
        None, description="the game's time control as chosen (a TimeControlBody with every "
        "default filled in); null: untimed")
    finished_at: str | None = Field(None, description="a finished game: when its last "
                                    "decision was stored (ISO 8601, UTC); else null (also "
                                    "for games finished before the server recorded it)")
    winners: list[int] | None = Field(None, description="a finished game: the winning seats "
                                      "(a team's every member; empty: a draw); else null")
    winning_team: int | None = Field(None, description="a team game won by a team: its "
                                     "number (0-based); else null")


class GameList(BaseModel):
    games: list[GameSummary]


class JoinRequest(Strict):
    code: str | None = Field(None, min_length=1, max_length=200,
                             description="the seat's one-time join code; a signed-in player "
                             "takes a free seat of a game with open seats without it")


class HandOver(BaseModel):
    seat: int
    url: str = Field(description="/play/<game>/<seat>?code=<one-time code>: the seat's page "
                     "on the device that opens it")
    code: str = Field(description="the one-time code (the one in ``url``), to send to "
                      ".../seats/{seat}/join from the new device")
    link: str = Field(description="``url`` with the server's address, as the QR code holds it")
    qr: str = Field(description="``link`` as a QR code: an SVG element (text)")


class Joined(BaseModel):
    seat: int
    token: str = Field(description="send as 'Authorization: Bearer <token>'; handed out once")


# Exactly one of ``action`` and ``index`` is given (not null): a JSON Schema rule of its own.
ACTION_OR_INDEX: dict[str, Any] = {"anyOf": [
    {"required": ["action"], "properties": {"action": {"type": "string"},
                                            "index": {"type": "null"}}},
    {"required": ["index"], "properties": {"index": {"type": "integer"},
                                           "action": {"type": "null"}}}]}


class ActionRequest(Strict):
    """One decision: its text or its index in the view's ``legal`` list."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=ACTION_OR_INDEX)

    action: str | None = Field(None, min_length=1, max_length=500,
                               examples=["move T1 T2 sword"])
    # "0" and true are refused (400), not read as numbers; 2.0 is the integer 2
    index: Whole | None = None
    version: Whole | None = Field(None, description="409 when the game has moved on")

    @model_validator(mode="after")
    def _one_of(self) -> ActionRequest:
        if (self.action is None) == (self.index is None):
            raise ValueError("give exactly one of 'action' and 'index'")
        return self


class LegalAction(BaseModel):
    """One legal action, listed with its text."""

    index: int = Field(description="its place in the whole legal list (send it as 'index')")
    text: str
    kind: str
    tiles: list[str] = Field(description="the tiles it names; for a casualty or a unit "
                             "staying behind, the battle tile the unit stands on")
    units: list[str] = Field(description="the units it names, as 'seat/unit' (the board's "
                             "form)")
    args: dict[str, Any] = Field(description="the values of the fields its kind uses, by "
                                 "field name as the grammar names them (/static/data/rules.json): "
                                 "tiles by name, units as 'seat/unit', cards and realms by "
                                 "id, seats and gold as numbers, shares as [seat, hits]")
    price: int = Field(description="the gold it costs (R11.1); 0 when free")
    label: str = Field(description="the catalogue key of its words, 'act.<kind>' or a "
                       "variant ('act.upgrade_event', 'act.swapcard_plain')")


class ListedAction(BaseModel):
    """One legal action as a view lists it: ``LegalAction`` without what goes without saying
    (``choices.expand_listed`` gives it back)."""

    index: int = Field(description="its place in the whole legal list (send it as 'index')")
    kind: str
    text: str | None = Field(None, description="left out when it is the kind followed by the "
                             "tiles, space-separated ('pass', 'attack T5 T2')")
    tiles: list[str] = Field([], description="the tiles it names; for a casualty or a unit "
                             "staying behind, the battle tile the unit stands on; left out "
                             "when there are none")
    units: list[str] = Field([], description="the units it names, as 'seat/unit' (the "
                             "board's form); left out when there are none")
    args: dict[str, Any] = Field({}, description="as in LegalAction; left out when empty")
    price: int = Field(0, description="as in LegalAction; left out when 0")
    label: str | None = Field(None, description="as in LegalAction; left out when it is "
                              "'act.<kind>'")


MoveTarget = Annotated[tuple[str, int, int, int], Field(
    description="a destination of a source tile's moves: [tile, most, index, count]: the "
                "most units that may go there at once, the place of its first move in the "
                "whole legal list, and how many moves go there (the indices index to index + "
                "count - 1)")]


class SourceMoves(BaseModel):
    """A tile whose units may move or swap: any sub-multiset of ``units`` with 1 to a
    destination's ``most`` units goes to that destination (R10.2-R10.5, R12.1); its swaps
    are in 'swaps'."""

    from_: str = Field(alias="from", description="the source tile")
    units: list[str] | None = Field(None, description="the units that may go, as "
                                    "'seat/unit', as often as they may go together (a kind "
                                    "listed once goes alone); left out when they are the "
                                    "units the observation's board shows on the tile")
    to: list[MoveTarget] = Field(description="empty when the tile's units may only swap")


SwapShape = Annotated[tuple[int, int, int, int, int, int], Field(
    description="how many units go each way in some of a pair's swaps: [fewest, most] units "
                "from tiles[0], [fewest, most] from tiles[1], the place of its first swap in "
                "the whole legal list and how many swaps it stands for: [low, high, low2, "
                "high2, index, count]")]


class PairSwaps(BaseModel):
    """The legal swaps between two tiles: for each shape, a sub-multiset of ``tiles[0]``'s
    units sized within ``low``-``high`` for one of ``tiles[1]``'s sized within
    ``low2``-``high2``, the two never equal (R10.6-R10.8, R12.1); each tile's units are those
    of its entry in 'moves' (or the board's)."""

    tiles: list[str] = Field(min_length=2, max_length=2, description="either may be named "
                             "first in the action's text")
    shapes: list[SwapShape]


class OddsList(BaseModel):
    """The exact odds of every attack a seat may declare now (R16.14-R16.21)."""

    version: int
    odds: dict[str, AttackOdds] = Field(description="by the attack's text, as in 'legal'; "
                                        "empty when another seat decides")
    by_index: dict[str, AttackOdds] = Field(description="the same by the attack's index in "
                                            "the whole legal list (as a string)")


class Hint(BaseModel):
    """What the strongest bot would decide for the seat, from the seat's view only."""

    version: int
    action: LegalAction = Field(description="the advised action, as the whole list lists it")
    odds: AttackOdds | None = Field(description="an attack's exact odds, with the seat's "
                                    "own cards as the odds list gives them; null otherwise")
    adviser: Literal["expert", "greedy"] = Field(
        description="the bot that advises: the expert bot, or the greedy bot where no value "
        "network serves the game")


class LegalList(BaseModel):
    """Every legal action of a seat now, each with its text."""

    version: int
    legal: list[LegalAction] = Field(description="empty when another seat decides")


class CardChoice(BaseModel):
    """A magic card's choice (Decision.CARD) as a listed action gives it, without an index."""

    text: str
    kind: str
    args: dict[str, Any] = Field(description="as in a listed action")


class CardOdds(BaseModel):
    """An attack's exact odds when the attacker plays one card of their own hand at the magic
    declaration and the defender plays none (R16.5-R16.8, section 26)."""

    card: str = Field(description="the magic card's id, as in the hand")
    attacker_wins: float
    attacker_wins_exact: str = Field(description="exact probability as 'p/q'")
    expected_attacker_losses: float
    expected_defender_losses: float = Field(description="a unit the card kills included")
    choice: CardChoice | None = Field(description="the card's choice these odds are for, "
                                      "the one with the best chance (a unit to kill, units to "
                                      "place); null when the card asks none")


class AttackOdds(BaseModel):
    attacker_wins: float
    attacker_wins_exact: str = Field(description="exact probability as 'p/q'")
    expected_attacker_losses: float
    expected_defender_losses: float
    cards: list[CardOdds] = Field(default_factory=list, description="the same with each "
                                  "card of the seat's own hand it may play in this battle "
                                  "(never an opponent's hand)")


class LogEntry(BaseModel):
    """One entry of the engine's log (``rules.gamelog``) as this reader may see it: the
    fields of its kind (docs/formats.md "Log entries"; units as "seat/token", tiles by name)
    and two the server adds. Sentences come from /static/data/log_texts.json."""

    model_config = ConfigDict(extra="allow")

    kind: str = Field(description="battle_started, card_revealed, dice_rolled, ...")
    index: int = Field(description="its place in the game's whole log (hidden entries "
                       "included, so a reader may see gaps): to append and de-duplicate")
    version: int = Field(description="the version it belongs to: step k's entries have "
                         "version k + 1, the game's set-up before any decision version 0")


class GiftOffer(BaseModel):
    """The gold a seat may give now (R23.11): any amount from 1 to ``max`` to any of
    ``allies``, at any moment, also while another seat holds the decision."""

    allies: list[int] = Field(description="the seats of the allies it may give to")
    max: int = Field(description="its own gold: the most it may give", ge=1)


class ResultView(BaseModel):
    end: str
    winner: int | None
    scores: list[int | None]
    team: int | None
    tie_break: list[list[int]] = Field(description="dice sums per tie-break re-roll (R22.4)")


class ScorePartsView(BaseModel):
    """A score by the rows of R22.1 (a team's: R23.34), in points; ``total`` is their sum."""

    trophies: int = Field(description="5 per Crown trophy (an enemy Crown defeated)")
    castles: int = Field(description="3 per castle tile controlled")
    scalps: int = Field(description="2 per scalp in the graveyard")
    tiles: int = Field(description="1 per other tile controlled")
    gold: int = Field(description="gold // 2")
    six_gates: int = Field(description="The Six Gates Open (EG1): 2 per distinct tile type "
                           "controlled once it is the end-game card, else 0")
    total: int


class TeamScoreView(ScorePartsView):
    """A team's score (R23.34-R23.35: a tile shared by allies counts once)."""

    team: int
    seats: list[int] = Field(description="the team's members")


class ScoreView(BaseModel):
    """The score if the game ended now (R22.1), worked out by the engine
    (``rules.scoring``) from public information only: the same for every reader."""

    players: list[ScorePartsView | None] = Field(description="per seat, its own score by "
                                                 "parts; null once eliminated (R22.2)")
    teams: list[TeamScoreView] | None = Field(description="team mode: each team's score "
                                              "(R23.34), which every member scores; null "
                                              "in a free-for-all")
    six_gates: bool = Field(description="The Six Gates Open is the end-game card: the "
                            "``six_gates`` part counts (EG1)")


class SeatClock(BaseModel):
    seat: int
    remaining: float = Field(description="seconds before the seat times out: the running "
                             "seat's until its deadline, the others' as they would have at "
                             "their next decision (live: decision + reserve) or turn")
    running: bool = Field(description="its clock runs (it is to decide)")
    reserve: float | None = Field(description="live: the reserve left; null for turn clocks")
    timeouts: int = Field(description="its timeouts in a row")
    taken_over: bool = Field(description="the timeout bot plays it until its player takes "
                             "it back (POST .../seats/{seat}/takeback)")


class TimedOut(BaseModel):
    version: int = Field(description="the version the timeout bot's decision made (its log "
                         "entries have this version)")
    seat: int
    bot: str


class ClockView(BaseModel):
    """A timed game's clocks at the moment the view was sent."""

    kind: Literal["live", "turn"]
    control: dict[str, Any] = Field(description="the time control (as in the summary)")
    deadline: str | None = Field(description="when the running seat times out (ISO 8601, "
                                 "UTC); null when no clock runs")
    seats: list[SeatClock]
    timed_out: list[TimedOut] = Field(description="every decision the timeout bot made for "
                                      "a seat whose time ran out, oldest first")


class View(BaseModel):
    """What one seat (or a spectator, seat null) sees now."""

    game_id: str
    seat: int | None
    version: int = Field(description="number of applied decisions")
    status: Literal["open", "running", "over"]
    observation: dict[str, Any] = Field(description="observe(state, seat) (R5.13); for "
                                        "spectators without hands, pools and hidden cards; "
                                        "'world' (which never changes) only when log_since "
                                        "is -1")
    to_move: int | None
    your_turn: bool
    legal_count: int = Field(description="how many legal actions the seat to decide has in "
                             "all (the indices 0 to legal_count - 1); 0 for the others")
    legal: list[ListedAction] = Field(description="only for the seat to decide: its legal "
                                     "actions but its moves and swaps")
    moves: list[SourceMoves] = Field(description="only for the seat to decide: its moves, "
                                     "per source tile (with the units of its swaps)")
    swaps: list[PairSwaps] = Field(description="only for the seat to decide: its swaps, per "
                                   "pair of tiles")
    gift: GiftOffer | None = Field(description="what this seat may give its allies now, "
                                   "whoever holds the decision (R23.11): send "
                                   "'gift <ally> <amount>' as an action's text; null when "
                                   "it may give nothing (free-for-all, no gold, the game "
                                   "over) and for spectators")
    result: ResultView | None
    score: ScoreView = Field(description="every player's (and team's) score now, by the "
                             "parts of R22.1")
    seed: int | None = Field(description="the game's seed when its creator chose it (then "
                             "every seat may know it); null when the server drew it, which "
                             "is never sent")
    clock: ClockView | None = Field(description="every seat's clock now; null for an "
                                    "untimed game")
    log_since: int = Field(description="``log`` holds the entries made after this version; "
                           "-1: the whole log")
    log: list[LogEntry] = Field(description="the log entries this reader may read (another "
                                "team's secret card left out) with ``log_since`` < version "
                                "<= ``version``, oldest first")


class ReplayView(BaseModel):
    """A finished game after ``version`` decisions, as a spectator saw it then."""

    game_id: str
    version: int = Field(description="the decisions applied: 0 (after the set-up) to "
                         "``last``")
    last: int = Field(description="the game's last version (its end)")
    observation: dict[str, Any] = Field(description="observe(state, None) at ``version``: "
                                        "public information only (R5.13)")
    score: ScoreView = Field(description="every player's score at ``version`` (R22.1)")
    log_since: int = Field(description="``log`` holds the entries made after this version; "
                           "-1: from the start")
    log: list[LogEntry] = Field(description="the public log entries with ``log_since`` < "
                                "version <= ``version``, oldest first")


class RoundFigures(BaseModel):
    """Every seat's figures at one moment of a finished game."""

    round: int | None = Field(description="the round whose first decision was being asked; "
                              "null: the end of the game")
    version: int = Field(description="the version of that moment (a replay's version)")
    score: list[int | None] = Field(description="per seat, the score by R22.1 (the team's in "
                                    "team mode, R23.34); null once eliminated (R22.2)")
    gold: list[int] = Field(description="per seat, its gold")
    units: list[int] = Field(description="per seat, its units on the board")


class Rounds(BaseModel):
    """A finished game round by round: each round's start, then the end."""

    rounds: list[RoundFigures]


class ErrorDetail(Strict):
    status: int = Field(description="the HTTP status (the WebSocket: the same numbers)")
    code: str = Field(description="what went wrong, e.g. illegal_action, bad_token")
    message: str = Field(description="for people; at most 1,000 characters")
    rule: str | None = Field(description="the rule id that forbids the action, e.g. R10.3")
    input: str | int | float | bool | None = Field(
        None, description="the offending input when it is a short scalar (text cut to 200 "
        "characters), else null")


class ErrorBody(Strict):
    """Every error of the HTTP and WebSocket API."""

    error: ErrorDetail


# What each error status means, and the codes it comes with (docs/api.md).
ERROR_STATUSES: dict[int, str] = {
    400: "malformed request: a body, query or path parameter that does not parse or fit "
         "the schema (malformed_request), an action that does not parse (invalid_action, "
         "bad_index), a game the rules refuse (invalid_config, unknown_bot, bot_too_slow, "
         "seed_not_allowed, bot_games_off, invalid_time_control), a chat message that is "
         "empty or too long "
         "(empty_message, too_long) or a seat muting itself (mute_self), or a Host the "
         "server does not answer for (bad_host)",
    401: "no seat token where one is needed (missing_token), with the challenge "
         "'WWW-Authenticate: Bearer'; nobody signed in where a player must be "
         "(not_signed_in, sign_in_required); a wrong name or password (bad_credentials)",
    403: "a seat token or join code that is wrong (bad_token: no seat's of this game, or "
         "not 'Bearer <token>'; bad_code; seat_moved: the seat was handed over to another "
         "device), advice asked of a game that gives none "
         "(hints_off), another seat's credentials (not_your_seat), a signed-in player at "
         "no seat of the game (not_a_player), a write "
         "signed in by the cookie without the session's X-CSRF-Token (csrf_failed), the "
         "players' chat asked by a spectator (players_only), a chat write or mute by an "
         "anonymous spectator (sign_in_to_chat, sign_in_to_mute)",
    404: "no such game, seat, version of a replay, player or chat message (unknown_game, "
         "unknown_seat, unknown_version, unknown_player, unknown_message)",
    409: "not now: another seat decides, the version is stale, the game is over or not yet, "
         "the seat has joined (or not yet: not_joined), the seat's time ran out, the bot "
         "does not play the seat (not_your_turn, stale_version, game_over, game_not_over, "
         "already_joined, time_ran_out, not_taken_over), the player sits at another seat "
         "(already_seated), a name that is taken (name_taken)",
    413: "a request body or custom world over the server's limit (too_large)",
    422: "an action the rules forbid now (illegal_action, with the rule id in 'rule'); a bot "
         "seat no value network of the server serves (bot_cannot_play); a finished game no "
         "value network of the server judges (no_network)",
    429: "too many requests, games created, games brought back from storage or replayed "
         "from this address, or chat messages from this author (rate_limited)",
    503: "the database refused or cannot be read; nothing changed, try again "
         "(storage_unavailable); a stored game has a ppo seat this server has no policy for "
         "now (bot_unavailable)",
}
# Every request can meet these: the Host check, the size and rate limits, the storage.
ALWAYS = (400, 413, 429, 503)


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses an endpoint can answer besides ``ALWAYS``."""
    return {status: {"model": ErrorBody, "description": ERROR_STATUSES[status]}
            for status in sorted({*ALWAYS, *statuses})}
