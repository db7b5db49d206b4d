"""Request and response models: they validate input (a mismatch is a 400) and document the
API in OpenAPI. docs/api.md describes the same shapes in words."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_SEED = (1 << 63) - 1


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateGame(Strict):
    """A new game: one entry per seat, ruleset options by name (RULES.md R3.3)."""

    mode: Literal["free_for_all", "team_2v2", "team_3v3"] = Field(
        "free_for_all", description="free-for-all, or teams of alternating seats (R23.1)")
    seats: list[str] = Field(
        min_length=2, max_length=6,
        description="per seat 'human' or a bot code: random, greedy, mcts:time=1, ...")
    options: dict[str, str] = Field(default_factory=dict, max_length=20,
                                    description="R3.3 options, e.g. {'mountain_defence': "
                                    "'drop_lowest'}")
    world: dict[str, Any] | None = Field(None, description="a custom world layout (R4.14)")
    seed: int | None = Field(None, ge=0, le=MAX_SEED,
                             description="random when absent; never sent back")
    quick: bool = Field(False, description="deal realms, cards, castles and starting units "
                        "instead of asking for them")
    name: str = Field("", max_length=100)


class JoinLink(BaseModel):
    seat: int
    url: str = Field(description="/play/<game>/<seat>?code=<one-time join code>")


class Created(BaseModel):
    game_id: str
    join: list[JoinLink] = Field(description="one entry per human seat")
    spectate: str


class SeatSummary(BaseModel):
    seat: int
    kind: Literal["human", "bot"]
    bot: str | None
    joined: bool


class GameSummary(BaseModel):
    game_id: str
    name: str
    mode: str
    players: int
    options: dict[str, str] = Field(
        description="the game's ruleset options of R3.3 (e.g. phase_order), public")
    seats: list[SeatSummary]
    status: Literal["open", "running", "over"]
    created: str = Field(description="ISO 8601, UTC")


class GameList(BaseModel):
    games: list[GameSummary]


class JoinRequest(Strict):
    code: str = Field(min_length=1, max_length=200)


class Joined(BaseModel):
    seat: int
    token: str = Field(description="send as 'Authorization: Bearer <token>'; handed out once")


class ActionRequest(Strict):
    """One decision: its text or its index in the view's ``legal`` list."""

    action: str | None = Field(None, min_length=1, max_length=500,
                               examples=["move T1 T2 sword"])
    index: int | None = Field(None, ge=0)
    version: int | None = Field(None, ge=0, description="409 when the game has moved on")

    @model_validator(mode="after")
    def _one_of(self) -> ActionRequest:
        if (self.action is None) == (self.index is None):
            raise ValueError("give exactly one of 'action' and 'index'")
        return self


class LegalAction(BaseModel):
    index: int
    text: str
    kind: str
    tiles: list[str]


class AttackOdds(BaseModel):
    attacker_wins: float
    attacker_wins_exact: str = Field(description="exact probability as 'p/q'")
    expected_attacker_losses: float
    expected_defender_losses: float


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


class View(BaseModel):
    """What one seat (or a spectator, seat null) sees now."""

    game_id: str
    seat: int | None
    version: int = Field(description="number of applied decisions")
    status: Literal["open", "running", "over"]
    observation: dict[str, Any] = Field(description="observe(state, seat) (R5.13); for "
                                        "spectators without hands, pools and hidden cards")
    to_move: int | None
    your_turn: bool
    legal: list[LegalAction] = Field(description="only for the seat to decide")
    odds: dict[str, AttackOdds] = Field(description="per attack text in 'legal'")
    gift: GiftOffer | None = Field(description="what this seat may give its allies now, "
                                   "whoever holds the decision (R23.11): send "
                                   "'gift <ally> <amount>' as an action's text; null when "
                                   "it may give nothing (free-for-all, no gold, the game "
                                   "over) and for spectators")
    result: ResultView | None
    log_since: int = Field(description="``log`` holds the entries made after this version; "
                           "-1: the whole log")
    log: list[LogEntry] = Field(description="the log entries this reader may read (another "
                                "team's secret card left out) with ``log_since`` < version "
                                "<= ``version``, oldest first, at most the newest 500")


class ErrorDetail(BaseModel):
    status: int
    code: str
    message: str
    rule: str | None = Field(description="the rule id that forbids the action, e.g. R10.3")
    input: Any = None


class ErrorBody(BaseModel):
    error: ErrorDetail


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses an endpoint can answer."""
    return {status: {"model": ErrorBody} for status in statuses}
