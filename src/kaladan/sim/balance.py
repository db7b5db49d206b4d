"""Balance studies: realm against realm with realms rotated over the seats, for one bot and a
player count, under one ruleset or two side by side.

Game ``i`` of a study has the seed ``game_seed(seed, i)`` and the realms of arrangement ``i``
of the rotation design under every ruleset, so two rulesets are compared on paired games.
Games are played in batches of one design block; with ``until_ci`` the study stops after the
first batch at which every per-realm and per-seat Wilson interval is narrower than that. The
batches, seeds and the stopping rule depend on the arguments and the results only, so a study
gives the same tables on one process, several or Ray.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from math import perm
from typing import Any

from ..rules.config import Config
from ..rules.units import REALMS
from .design import Design
from .frames import arrow_table, frame
from .frames import rows as game_rows
from .runner import GameSpec, GameSummary, Progress, options_label, plan, player
from .tables import ALPHA, GROUPS, changes, fair_share, rows

STOP_GROUPS = ("realm", "seat")  # the intervals --until-ci waits for


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A configuration to study. ``extra_gold`` makes a test ruleset: each realm named gets
    that much gold more when play begins (R5.11 gold stays as it is)."""

    label: str
    config: Config
    extra_gold: tuple[tuple[str, int], ...] = ()

    def gold_of(self, realms: Sequence[str]) -> tuple[int, ...]:
        bonus = dict(self.extra_gold)
        return tuple(bonus.get(realm, 0) for realm in realms) if bonus else ()


@dataclass(slots=True)
class Study:
    """The games of a study and everything needed to describe it."""

    rulesets: tuple[Ruleset, ...]
    bot: str
    seed: int
    design: str
    block: int
    games: dict[str, list[GameSummary]] = field(default_factory=dict)  # by ruleset label
    stopped: str = ""
    seconds: float = 0.0

    @property
    def count(self) -> int:
        """Games per ruleset."""
        return len(next(iter(self.games.values()), []))

    def widest(self) -> float:
        """The widest per-realm or per-seat Wilson interval of any ruleset."""
        return max((r.high - r.low for games in self.games.values() for group in STOP_GROUPS
                    for r in rows(games, group)), default=1.0)

    def to_frame(self, library: str = "pandas") -> Any:
        """Every game of every ruleset, one row per game and seat, as a pandas or polars data
        frame (``frames.py``; the ``ruleset`` column tells the rulesets apart)."""
        table = [row for rs in self.rulesets for row in game_rows(self.games[rs.label], rs.label)]
        return frame(arrow_table(table), library)

    def tables(self) -> dict[str, Any]:
        """Everything the study found, as JSON: the same for the same arguments whatever the
        backend (no timings)."""
        config = self.rulesets[0].config
        out: dict[str, Any] = {
            "players": config.players, "mode": str(config.mode), "bot": self.bot,
            "seed": self.seed, "design": self.design, "block": self.block,
            "games": self.count, "stopped": self.stopped, "alpha": ALPHA, "rulesets": [],
        }
        for rs in self.rulesets:
            games = self.games[rs.label]
            ends: dict[str, int] = {}
            for g in games:
                ends[g.end] = ends.get(g.end, 0) + 1
            entry: dict[str, Any] = {
                "label": rs.label, "options": options_label(rs.config),
                "extra_gold": dict(rs.extra_gold), "fair_share": fair_share(games),
                "ends": dict(sorted(ends.items())),
                "average_rounds": sum(g.rounds for g in games) / len(games),
                "average_decisions": sum(g.decisions for g in games) / len(games),
            }
            for group in GROUPS:
                entry[group] = [r.to_json() for r in rows(games, group)]
            out["rulesets"].append(entry)
        if len(self.rulesets) == 2:
            a, b = (self.games[rs.label] for rs in self.rulesets)
            out["changes"] = [c.to_json() for c in changes(a, b)]
        return out


def block_size(players: int) -> int:
    return perm(len(REALMS), players)


def run(rulesets: Sequence[Ruleset], bot: str, games: int, seed: int,
        until_ci: float | None = None, jobs: int = 1, backend: str = "local",
        ray_address: str | None = None, progress: Progress | None = None,
        batch_done: Callable[[Study], None] | None = None) -> Study:
    """Play a study: at most ``games`` games per ruleset (rounded up to whole classes of
    ``players`` games), in batches of one design block. ``batch_done`` sees the study after
    each batch (the command line shows the widest interval there)."""
    if not 1 <= len(rulesets) <= 2:
        raise ValueError("a study has one ruleset or two to compare")
    if games < 1:
        raise ValueError(f"a study plays at least one game, not {games}")
    if len({rs.label for rs in rulesets}) != len(rulesets):
        raise ValueError("the rulesets of a study need different labels")
    players = rulesets[0].config.players
    if any(rs.config.players != players or rs.config.mode != rulesets[0].config.mode
           for rs in rulesets):
        raise ValueError("compared rulesets need the same players and mode")
    design = Design(realms="rotate")
    block = block_size(players)
    total = -(-games // players) * players
    described = f"{bot} in every seat; {design.describe_realms(players)}"
    study = Study(tuple(rulesets), bot, seed, described, block,
                  {rs.label: [] for rs in rulesets})
    start = time.perf_counter()
    with player(jobs, backend, ray_address) as play:
        while study.count < total:
            first, count = study.count, min(block, total - study.count)
            batch: list[GameSpec] = []
            for rs in rulesets:
                specs = plan(rs.config, [bot] * players, count, seed, design, start=first)
                batch += [replace(s, extra_gold=rs.gold_of(s.realms or ())) for s in specs]
            done_before = first * len(rulesets)
            report = None if progress is None else (
                lambda done, _n, base=done_before: progress(base + done, total * len(rulesets)))
            results = play(batch, report)
            for k, rs in enumerate(rulesets):
                study.games[rs.label] += results[k * count:(k + 1) * count]
            if batch_done is not None:
                batch_done(study)
            if until_ci is not None and study.widest() < until_ci:
                study.stopped = (f"every interval narrower than {until_ci:g} after "
                                 f"{study.count} games")
                break
    study.stopped = study.stopped or f"all {study.count} games played"
    study.seconds = time.perf_counter() - start
    return study
