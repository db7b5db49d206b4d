"""The tables of a balance study: per realm, seat or turn position the win rate with its
Wilson interval against the fair share (exact binomial tests, Holm's adjustment over the rows
of a table), and per realm the change between two rulesets on paired games.

Win indicators of one realm (or seat) are independent across games, since a realm plays at
most once in a game, so each row is a binomial sample; Holm's step-down adjustment keeps the
chance of any false verdict in a table at most ``alpha`` whatever the dependence between rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from ..rules.units import REALMS
from .runner import GameSummary
from .stats import binomial_test, holm, mcnemar, paired_difference, wilson

ALPHA = 0.05
GROUPS = ("realm", "seat", "position")  # the tables of one ruleset


class Verdict(StrEnum):
    NONE = ""  # no evidence against the fair share (or no change) after Holm's adjustment
    STRONG = "strong"
    WEAK = "weak"
    UP = "up"
    DOWN = "down"


@dataclass(frozen=True, slots=True)
class Row:
    """One realm, seat or turn position: its win rate against the fair share."""

    key: str
    games: int
    wins: int
    rate: float
    low: float
    high: float
    difference: float  # rate minus the fair share
    p: float  # exact binomial test against the fair share
    p_holm: float
    verdict: Verdict
    score: float | None  # mean score when scored
    eliminated: float  # share of its games in which it was eliminated (not scored, R22.2)
    rounds: float
    decisions: float

    def to_json(self) -> dict[str, Any]:
        return {f.name: str(v) if isinstance(v := getattr(self, f.name), Verdict) else v
                for f in fields(self)}


@dataclass(frozen=True, slots=True)
class Change:
    """One realm's win rate under the second ruleset minus the first, on paired games."""

    key: str
    games: int
    rate_first: float
    rate_second: float
    difference: float
    low: float
    high: float
    p: float  # exact McNemar test
    p_holm: float
    verdict: Verdict

    def to_json(self) -> dict[str, Any]:
        return {f.name: str(v) if isinstance(v := getattr(self, f.name), Verdict) else v
                for f in fields(self)}


def _key(game: GameSummary, seat: int, group: str) -> str:
    if group == "realm":
        return game.realms[seat] or "?"
    if group == "seat":
        return str(seat)
    return str(game.position(seat))


def fair_share(games: Sequence[GameSummary]) -> float:
    """The win rate every row would have if none were stronger: wins per seat played (draws
    make it a little less than 1/players, team games about 1/2)."""
    seats = sum(len(g.bots) for g in games)
    return sum(g.won(s) for g in games for s in range(len(g.bots))) / seats if seats else 0.0


@dataclass(slots=True)
class _Tally:
    wins: int = 0
    games: int = 0
    eliminated: int = 0
    scores: list[int] = field(default_factory=list)
    rounds: int = 0
    decisions: int = 0


def rows(games: Sequence[GameSummary], group: str, alpha: float = ALPHA) -> list[Row]:
    """The table of ``group`` (realm, seat or position) with Holm-adjusted verdicts."""
    fair = fair_share(games)
    tallies: dict[str, _Tally] = {}
    for g in games:
        for seat in range(len(g.bots)):
            t = tallies.setdefault(_key(g, seat, group), _Tally())
            t.games += 1
            t.wins += g.won(seat)
            score = g.scores[seat]
            if score is None:
                t.eliminated += 1
            else:
                t.scores.append(score)
            t.rounds += g.rounds
            t.decisions += g.decisions
    keys = sorted(tallies, key=_order)
    tests = [binomial_test(tallies[k].wins, tallies[k].games, fair) for k in keys]
    out = []
    for key, p, p_holm in zip(keys, tests, holm(tests), strict=True):
        t = tallies[key]
        low, high = wilson(t.wins, t.games)
        rate = t.wins / t.games
        verdict = Verdict.NONE
        if p_holm < alpha:
            verdict = Verdict.STRONG if rate > fair else Verdict.WEAK
        out.append(Row(key, t.games, t.wins, rate, low, high, rate - fair, p, p_holm, verdict,
                       sum(t.scores) / len(t.scores) if t.scores else None,
                       t.eliminated / t.games, t.rounds / t.games, t.decisions / t.games))
    return out


def _order(key: str) -> tuple[int, str]:
    """Realms in the order of R2.1, seats and positions by number."""
    if key in REALMS:
        return REALMS.index(key), key
    return (int(key), key) if key.isdigit() else (99, key)


def changes(first: Sequence[GameSummary], second: Sequence[GameSummary],
            alpha: float = ALPHA) -> list[Change]:
    """Per realm: the change of its win rate from ``first`` to ``second``, paired game by game
    (both lists follow the same design, so game i seats the same realms in both)."""
    pairs: dict[str, list[int]] = {}  # both, only second, only first, neither
    for a, b in zip(first, second, strict=True):
        for seat in range(len(a.bots)):
            realm = a.realms[seat] or "?"
            if realm != (b.realms[seat] or "?"):
                raise ValueError("the two rulesets' games do not follow the same design")
            won_a, won_b = a.won(seat), b.won(seat)
            cell = 0 if won_a and won_b else 1 if won_b else 2 if won_a else 3
            pairs.setdefault(realm, [0, 0, 0, 0])[cell] += 1
    keys = sorted(pairs, key=_order)
    tests = [mcnemar(pairs[k][2], pairs[k][1]) for k in keys]
    out = []
    for key, p, p_holm in zip(keys, tests, holm(tests), strict=True):
        both, only_second, only_first, neither = pairs[key]
        n = sum(pairs[key])
        diff, low, high = paired_difference(both, only_second, only_first, neither)
        verdict = Verdict.NONE
        if p_holm < alpha:
            verdict = Verdict.UP if diff > 0 else Verdict.DOWN
        out.append(Change(key, n, (both + only_first) / n, (both + only_second) / n, diff,
                          low, high, p, p_holm, verdict))
    return out
