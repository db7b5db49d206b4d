"""Game configuration: player count, mode and every ruleset option of R3.3."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Final

from .errors import ConfigError


class Mode(StrEnum):
    """R3.2: the game mode."""

    FREE_FOR_ALL = "free_for_all"
    TEAM_2V2 = "team_2v2"
    TEAM_3V3 = "team_3v3"


# The ruleset options of R3.3, each a closed set; the first member is the default.


class TurnOrderDie(StrEnum):
    D12 = "d12"  # R5.3
    D10 = "d10"


class PhaseOrder(StrEnum):
    SEEDS = "seeds"  # R6.2
    OFFICIAL = "official"


class StartingMagic(StrEnum):
    CHOOSE = "choose"  # R5.7
    RANDOM = "random"


class RealmConflict(StrEnum):
    TURN_ORDER = "turn_order"  # R5.5
    ROLL_OFF = "roll_off"


class MountainDefence(StrEnum):
    KEEP_ALL = "keep_all"  # R16.16
    DROP_LOWEST = "drop_lowest"


class CrownDefenceInCastle(StrEnum):
    D6 = "d6"  # R13.3
    D8 = "d8"


class WolfD12(StrEnum):
    FOREST_EITHER = "forest_either"  # R14.5
    ATTACK_FROM_FOREST = "attack_from_forest"


class WorldKind(StrEnum):
    STANDARD = "standard"  # R4.9, R4.13, R4.14
    RANDOM_TERRAIN = "random_terrain"
    CUSTOM = "custom"


class EndGameCard(StrEnum):
    RANDOM = "random"  # R5.10, section 25
    SIX_GATES = "six_gates"
    SCALES = "scales"
    ORACLES = "oracles"
    GILDED_SILENCE = "gilded_silence"
    NONE = "none"


class TeamCastleSpots(StrEnum):
    FREE = "free"  # R23.6
    ALTERNATING = "alternating"


class UpgradeLoss(StrEnum):
    DEAD_ONLY = "dead_only"  # R13.4, R17.4: only a unit that dies loses its upgrade
    LOSING_SIDE = "losing_side"  # the Dutch seed read literally: the losing side's survivors too


class EndGameTrigger(StrEnum):
    FINAL_ROUND = "final_round"  # R21.2 (a): the end-game card starts the final round
    DECK_END = "deck_end"  # R21.2, R25.1: only the empty deck does; the card changes the rules


MODES: Final = tuple(m.value for m in Mode)
# R5.1, R23.1: the player counts of each mode.
PLAYERS_OF_MODE: Final[dict[str, tuple[int, ...]]] = {
    Mode.FREE_FOR_ALL: (2, 3, 4, 5, 6), Mode.TEAM_2V2: (4,), Mode.TEAM_3V3: (6,)}
OPTION_TYPES: Final[dict[str, type[StrEnum]]] = {
    "turn_order_die": TurnOrderDie,
    "phase_order": PhaseOrder,
    "starting_magic": StartingMagic,
    "realm_conflict": RealmConflict,
    "mountain_defence": MountainDefence,
    "crown_defence_in_castle": CrownDefenceInCastle,
    "wolf_d12": WolfD12,
    "world": WorldKind,
    "end_game_card": EndGameCard,
    "team_castle_spots": TeamCastleSpots,
    "upgrade_loss": UpgradeLoss,
    "end_game_trigger": EndGameTrigger,
}
# R3.3: option -> allowed values, the default first.
OPTIONS: Final[dict[str, tuple[str, ...]]] = {
    name: tuple(member.value for member in kind) for name, kind in OPTION_TYPES.items()}


def seat_teams(mode: str, players: int) -> tuple[int, ...] | None:
    """Each seat's team in a team mode (seating alternates between the teams, R23.2: seats
    0, 2, 4 are team 0); None in a free-for-all.

    >>> seat_teams("team_2v2", 4)
    (0, 1, 0, 1)
    """
    if mode == Mode.FREE_FOR_ALL:
        return None
    return tuple(seat % 2 for seat in range(players))


@dataclass(frozen=True, slots=True)
class Config:
    """Everything fixed before setup (R3.1). ``layout`` is the custom world (R4.14).

    ``quick_setup`` is a convenience for quick games and simulations: realms, starting
    cards, castle spots and starting units are assigned instead of asked (realm of seat k is
    the k-th of R2.1 rotated by the seed, spots in reverse turn order, random starting card,
    a Sword as the starting unit). The turn-order roll is still rolled.
    """

    players: int = 2
    mode: Mode = Mode.FREE_FOR_ALL
    turn_order_die: TurnOrderDie = TurnOrderDie.D12
    phase_order: PhaseOrder = PhaseOrder.SEEDS
    starting_magic: StartingMagic = StartingMagic.CHOOSE
    realm_conflict: RealmConflict = RealmConflict.TURN_ORDER
    mountain_defence: MountainDefence = MountainDefence.KEEP_ALL
    crown_defence_in_castle: CrownDefenceInCastle = CrownDefenceInCastle.D6
    wolf_d12: WolfD12 = WolfD12.FOREST_EITHER
    world: WorldKind = WorldKind.STANDARD
    end_game_card: EndGameCard = EndGameCard.RANDOM
    team_castle_spots: TeamCastleSpots = TeamCastleSpots.FREE
    upgrade_loss: UpgradeLoss = UpgradeLoss.DEAD_ONLY
    end_game_trigger: EndGameTrigger = EndGameTrigger.FINAL_ROUND
    layout: Mapping[str, object] | None = field(default=None, compare=False)
    quick_setup: bool = False

    def __post_init__(self) -> None:
        validate(self)
        # Values given as text ("d10") become the option's enum member. A member is left as
        # it is: calling the enum on it goes through two Python-level functions, which for
        # the thirteen options made a default Config cost 8 us.
        if type(self.mode) is not Mode:
            object.__setattr__(self, "mode", Mode(self.mode))
        for name, kind in OPTION_TYPES.items():
            value = getattr(self, name)
            if type(value) is not kind:
                object.__setattr__(self, name, kind(value))

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            f.name: (str(v) if isinstance(v := getattr(self, f.name), StrEnum) else v)
            for f in fields(self)}
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
    allowed_players = PLAYERS_OF_MODE[config.mode]
    if config.players not in allowed_players:
        if config.mode == "free_for_all":
            raise ConfigError(f"free-for-all needs 2 to 6 players, not {config.players}", "R5.1")
        raise ConfigError(f"{config.mode} needs exactly {allowed_players[0]} players, not "
                          f"{config.players}", "R23.1")
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
