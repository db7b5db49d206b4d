"""Ratings from finished games: the placements of section 22 and the OpenSkill update.

Pure: no I/O. ``rating_store`` reads the ratings, calls ``rate_game`` and writes the result.

Placements (docs/server.md "Ratings", docs/rules-decisions.md):

- free-for-all: the players still in the game by their final score (R22.1, R22.3), the
  winner the engine chose first (R22.4's dice, when it rolled them); other tied scores are
  split by R22.4 (1) units on the board and (2) units in reserve, then share a place (the
  engine rolls dice for the winner only). Eliminated players (R22.2) share the place after
  every scored player.
- team modes: per team (R22.5, R23.34): the winning team (R23.36's tie-break, as the engine
  decided it) first, the other second; a draw (R23.32) shares the first place.
- a seat that lost on time (a bot took it over after too many timeouts) is placed below every
  other seat and team, whatever its score; several share the last place. In team mode it
  leaves its team for the rating: its partners are rated as a team without it.

Places are competition ranks ("1224"): equal places are ties for OpenSkill.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

from ..rules.config import Mode
from ..rules.scoring import units_in_reserve
from ..rules.state import GameState

DEFAULT_MU: Final = 25.0  # openskill's defaults: every account starts here
DEFAULT_SIGMA: Final = 25.0 / 3.0
ALL: Final = "all"  # the category of every rated game


@dataclass(frozen=True, slots=True)
class Skill:
    """An OpenSkill rating: the estimate ``mu`` and its uncertainty ``sigma``."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def display(self) -> int:
        """The rating people see: conservative (three sigmas below mu), times 100, rounded;
        0 for a new player (openskill's ``ordinal``, scaled)."""
        return display(self.mu, self.sigma)


def display(mu: float, sigma: float) -> int:
    """``round(100 * (mu - 3 * sigma))``: a new account shows 0, and climbs as its games
    make the estimate surer as well as higher."""
    return round(100 * (mu - 3 * sigma))


def category(mode: str, players: int | None = None) -> str:
    """A rating category: ``free_for_all-<players>``, ``free_for_all`` (every player count)
    or the team mode (``team_2v2``, ``team_3v3``; their player count is fixed, R23.1)."""
    if mode == Mode.FREE_FOR_ALL and players is not None:
        return f"{mode}-{players}"
    return str(mode)


def categories(mode: str, players: int) -> tuple[str, ...]:
    """Every category a game of ``mode`` and ``players`` is rated in: ``all``, its mode's
    and, in free-for-all, its player count's."""
    if mode == Mode.FREE_FOR_ALL:
        return (ALL, category(mode), category(mode, players))
    return (ALL, category(mode))


def bot_kind(spec: str) -> str:
    """The kind a bot seat is rated as: its name without parameters (``mcts:time=1`` →
    ``mcts``; a level by its name, ``adept``). Every budget of a bot shares its kind's fixed
    rating."""
    return spec.strip().partition(":")[0].lower()


def placements(state: GameState, lost_on_time: Collection[int] = ()) -> tuple[int, ...]:
    """Every seat's place in a finished game, 1 for first (ties share a place)."""
    groups = rating_groups(state, lost_on_time)
    places = [0] * state.n
    for seats, place in groups:
        for seat in seats:
            places[seat] = place
    return tuple(places)


def rating_groups(state: GameState,
                  lost_on_time: Collection[int] = ()) -> list[tuple[tuple[int, ...], int]]:
    """The sides OpenSkill rates and their places: ``(seats, place)``, best first. One seat
    each in free-for-all; the teams in team mode (a seat lost on time on its own)."""
    result = state.result
    if result is None:
        raise ValueError("the game is not over: nobody has a place yet")
    lost = sorted(set(lost_on_time))
    if state.teams:
        groups = _team_groups(state, result.team, lost)
    else:
        groups = _free_for_all_groups(state, result.winner, result.scores, lost)
    if lost:
        groups.append([(seat,) for seat in lost])
    return _ranked(groups)


def _free_for_all_groups(state: GameState, winner: int | None, scores: Sequence[int | None],
                         lost: Sequence[int]) -> list[list[tuple[int, ...]]]:
    """Tiers of equal players, best first: the scored ones (R22.3, R22.4), then the
    eliminated (R22.2)."""
    scored = [p for p in range(state.n) if scores[p] is not None and p not in lost]

    def key(p: int) -> tuple[int, int, int, int]:  # R22.3, then R22.4 (1) and (2)
        return (scores[p] or 0, int(p == winner), state.units_on_board(p),
                units_in_reserve(state, p))

    tiers: list[list[tuple[int, ...]]] = []
    for p in sorted(scored, key=key, reverse=True):
        if tiers and key(tiers[-1][0][0]) == key(p):
            tiers[-1].append((p,))
        else:
            tiers.append([(p,)])
    out = [p for p in range(state.n) if scores[p] is None and p not in lost]
    if out:
        tiers.append([(p,) for p in out])
    return tiers


def _team_groups(state: GameState, winning_team: int | None,
                 lost: Sequence[int]) -> list[list[tuple[int, ...]]]:
    """R22.5, R23.33-R23.36: the winning team, then the other; a draw is one tier."""
    teams = sorted(set(state.team), key=lambda t: t != winning_team)
    sides = [tuple(p for p in range(state.n) if state.team[p] == t and p not in lost)
             for t in teams]
    sides = [side for side in sides if side]
    if winning_team is None:
        return [sides] if sides else []
    return [[side] for side in sides]


def _ranked(tiers: list[list[tuple[int, ...]]]) -> list[tuple[tuple[int, ...], int]]:
    out: list[tuple[tuple[int, ...], int]] = []
    place = 1
    for tier in tiers:
        if not tier:
            continue
        out.extend((side, place) for side in tier)
        place += len(tier)
    return out


@dataclass(frozen=True, slots=True)
class Rated:
    """One seat's rating before and after a game, and its place."""

    seat: int
    before: Skill
    after: Skill
    place: int
    won: bool


def rate(sides: Sequence[Sequence[Skill]], places: Sequence[int],
         fixed: Sequence[Sequence[bool]] = ()) -> list[list[Skill]]:
    """OpenSkill's Plackett-Luce update of ``sides`` (teams of ratings) finishing at
    ``places`` (1 best; equal places draw). A rating marked ``fixed`` (a bot's) takes part
    but comes back unchanged. Fewer than two sides: nothing changes."""
    if len(sides) < 2:
        return [list(side) for side in sides]
    model = PlackettLuce()
    teams = [[model.rating(mu=s.mu, sigma=s.sigma) for s in side] for side in sides]
    new = model.rate(teams, ranks=[float(p) for p in places])
    out: list[list[Skill]] = []
    for i, side in enumerate(sides):
        keep = fixed[i] if fixed else [False] * len(side)
        out.append([old if keep[j] else Skill(r.mu, r.sigma)
                    for j, (old, r) in enumerate(zip(side, new[i], strict=True))])
    return out


def rate_game(state: GameState, skills: Sequence[Skill], fixed: Sequence[bool],
              lost_on_time: Collection[int] = ()) -> list[Rated]:
    """Every seat's new rating after the finished game ``state``: ``skills`` are the seats'
    ratings before it (in the game's category), ``fixed`` marks the bots' (never changed)."""
    groups = rating_groups(state, lost_on_time)
    new = rate([[skills[s] for s in seats] for seats, _ in groups],
               [place for _, place in groups],
               [[fixed[s] for s in seats] for seats, _ in groups])
    decided = len({place for _, place in groups}) > 1
    out: list[Rated] = []
    for (seats, place), after in zip(groups, new, strict=True):
        for seat, skill in zip(seats, after, strict=True):
            out.append(Rated(seat, skills[seat], skill, place, decided and place == 1))
    return sorted(out, key=lambda r: r.seat)


def bot_skill(spec: str, table: Mapping[str, Skill]) -> Skill:
    """A bot seat's fixed rating: its kind's in ``table`` (``bot_ratings.json``), else the
    starting rating."""
    return table.get(bot_kind(spec), Skill())
