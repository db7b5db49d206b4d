"""Game configuration: player count, mode and every ruleset option of R3.3."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Final

from .errors import ConfigError

MODES: Final = ("free_for_all", "team_2v2", "team_3v3")  # R3.2

# R3.3: option -> allowed values, the default first.
OPTIONS: Final[dict[str, tuple[str, ...]]] = {
    "turn_order_die": ("d12", "d10"),
    "phase_order": ("seeds", "official"),
    "starting_magic": ("choose", "random"),
    "realm_conflict": ("turn_order", "roll_off"),
    "mountain_defence": ("keep_all", "drop_lowest"),
    "crown_defence_in_castle": ("d6", "d8"),
    "wolf_d12": ("forest_either", "attack_from_forest"),
    "world": ("standard", "random_terrain", "custom"),
    "end_game_card": ("random", "six_gates", "scales", "oracles", "gilded_silence", "none"),
    "team_castle_spots": ("free", "alternating"),
}


@dataclass(frozen=True, slots=True)
class Config:
    """Everything fixed before setup (R3.1). ``layout`` is the custom world (R4.14).

    ``quick_setup`` is a convenience for quick games and simulations: realms, starting
    cards, castle spots and starting units are assigned instead of asked (realm of seat k is
    the k-th of R2.1 rotated by the seed, spots in reverse turn order, random starting card,
    a Sword as the starting unit). The turn-order roll is still rolled.
    """

    players: int = 2
    mode: str = "free_for_all"
    turn_order_die: str = "d12"
    phase_order: str = "seeds"
    starting_magic: str = "choose"
    realm_conflict: str = "turn_order"
    mountain_defence: str = "keep_all"
    crown_defence_in_castle: str = "d6"
    wolf_d12: str = "forest_either"
    world: str = "standard"
    end_game_card: str = "random"
    team_castle_spots: str = "free"
    layout: Mapping[str, object] | None = field(default=None, compare=False)
    quick_setup: bool = False

    def __post_init__(self) -> None:
        validate(self)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.layout is None:
            del out["layout"]
        else:
            out["layout"] = dict(self.layout)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Config:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown configuration key(s): {', '.join(unknown)}", "R3.3")
        return cls(**data)  # type: ignore[arg-type]

    def with_options(self, **changes: object) -> Config:
        return replace(self, **changes)  # type: ignore[arg-type]


def parse_option(text: str) -> tuple[str, str]:
    """Parse ``name=value`` as given on the command line."""
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or name not in OPTIONS:
        raise ConfigError(
            f"bad option {text!r}: expected name=value with name one of {', '.join(OPTIONS)}",
            "R3.3",
        )
    return name, value


def validate(config: Config) -> None:
    """Raise ConfigError naming the broken rule (R3.2, R3.3, R5.1, R23.1)."""
    if not isinstance(config.players, int) or isinstance(config.players, bool):
        raise ConfigError(f"players must be a whole number, not {config.players!r}", "R5.1")
    if config.mode not in MODES:
        raise ConfigError(f"unknown mode {config.mode!r}: choose {', '.join(MODES)}", "R3.2")
    if config.mode == "free_for_all" and not 2 <= config.players <= 6:
        raise ConfigError(f"free-for-all needs 2 to 6 players, not {config.players}", "R5.1")
    if config.mode == "team_2v2" and config.players != 4:
        raise ConfigError(f"team_2v2 needs exactly 4 players, not {config.players}", "R23.1")
    if config.mode == "team_3v3" and config.players != 6:
        raise ConfigError(f"team_3v3 needs exactly 6 players, not {config.players}", "R23.1")
    for name, allowed in OPTIONS.items():
        value = getattr(config, name)
        if value not in allowed:
            raise ConfigError(
                f"option {name}={value!r} is not allowed: choose {', '.join(allowed)}", "R3.3"
            )
    if config.world == "custom" and config.layout is None:
        raise ConfigError("world=custom needs a layout file", "R4.14")
    if config.world != "custom" and config.layout is not None:
        raise ConfigError(f"a layout is given but world={config.world!r}", "R4.14")
