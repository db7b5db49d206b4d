"""Response models of a finished game's analysis (docs/api.md "Analysis",
``kaladan.analysis``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Source = Literal["search", "network"]


class DescribedAction(BaseModel):
    """An action by its text, as a page describes it to say it in words."""

    text: str
    kind: str
    args: dict[str, Any] = Field(description="the values of the fields its kind uses, as in "
                                 "a legal action ('LegalAction.args')")
    label: str = Field(description="the catalogue key of its words")


class CostlyDecision(BaseModel):
    """A decision that lowered its seat's chance, and the expert bot's choice there."""

    version: int = Field(description="the decisions made before it: the replay's version "
                         "where it was asked")
    seat: int
    played: str = Field(description="the move played, in notation")
    before: float = Field(description="the seat's chance to win before it")
    after: float = Field(description="the seat's chance at the next decision (after the "
                         "last one: the result)")
    cost: float = Field(description="before - after, more than 0")
    better: str = Field(description="the expert bot's choice from the seat's view")
    same: bool = Field(description="the expert bot chose the move played")
    better_value: float = Field(description="the seat's chance after 'better'")
    better_source: Source = Field(description="who judged 'better_value': the expert's "
                                  "search, or the value network")
    played_value: float = Field(description="the seat's chance after the move played")
    played_source: Source = Field(description="who judged 'played_value': the search, or "
                                  "the network (a move the search did not try)")
    kept: float = Field(description="better_value - played_value (0 when 'same')")
    played_action: DescribedAction
    better_action: DescribedAction


class AnalysisResult(BaseModel):
    end: str
    winner: int | None
    scores: list[int | None]
    team: int | None


class Analysis(BaseModel):
    """A finished game's win-probability curve and each seat's costliest decisions."""

    format: Literal["kaladan-analysis"]
    version: int = Field(description="the analysis format's version")
    players: int
    iterations: int = Field(description="the expert search per costly decision")
    network: str = Field(description="the judging value network's weights hash")
    decisions: int
    seats: list[int] = Field(description="the seat that made each decision")
    curve: list[list[float]] = Field(description="per version (0 to 'decisions'), every "
                                     "seat's chance to win; the last is the exact result")
    result: AnalysisResult
    costly: list[list[CostlyDecision]] = Field(description="per seat, up to three, "
                                               "costliest first")
