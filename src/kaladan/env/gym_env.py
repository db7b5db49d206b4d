"""Gymnasium single-agent environment: one seat against registry bots.

``gymnasium.make("kaladan/Kaladan-v0", opponents=["greedy"], players=2)`` (registered when
``kaladan.env`` is imported). The agent takes tokens of the action space (``encoding``);
between its decisions the other seats are played by bots that see only their own seat's
view (R5.13). The agent's seat rotates by episode unless ``seat`` is given. ``action_masks()``
serves sb3-contrib's MaskablePPO; ``info["action_mask"]`` carries the same mask. Once the
episode is over the mask offers every token: the action that follows the end is not played
(Gymnasium's vector envs ignore it under their default next-step autoreset and reset the
sub-environment instead; this env's own ``step`` refuses it), and a mask with no token at
all leaves a masked sampler nothing to draw from.

Rendering: ``render_mode="ansi"`` gives the terminal board as text, ``"rgb_array"`` a picture
of the board as an ``(H, W, 3)`` uint8 array (``BoardImage``: terrain, home castles,
fortifications and one square per unit in its owner's colour), what Stable-Baselines3's
``make_vec_env`` asks for and video recorders take.

Reward: at the end only, +1 / -1 / 0 (``core.returns``). An illegal token ends the episode
with ``illegal_reward`` and ``info["illegal_action"]`` saying why; the game is not touched
(``illegal="raise"`` raises InvalidActionError instead, for debugging).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from ..bots.base import Bot, SeatView
from ..bots.registry import make_bot
from ..rules.errors import InvalidActionError
from ..rules.state import GameState
from ..rules.units import OWNER_SHIFT
from ..rules.world import Terrain, World
from .core import MAX_DECISIONS, OBS_HIGH, OBS_LOW, EnvCore, make_config

ENV_ID = "kaladan/Kaladan-v0"
RENDER_MODES = ("ansi", "rgb_array")

# Colours of the picture (RGB): terrain, then the seats P1..P6.
_TERRAIN_RGB = {Terrain.FIELD: (196, 214, 120), Terrain.FOREST: (58, 120, 62),
                Terrain.MOUNTAIN: (150, 132, 112), Terrain.CASTLE: (205, 196, 178)}
_SEAT_RGB = ((214, 40, 40), (40, 90, 214), (240, 190, 20), (150, 60, 190), (240, 120, 30),
             (30, 170, 170))
_EDGE_RGB = (40, 36, 32)
_SQRT3 = 3 ** 0.5


class BoardImage:
    """Pictures of the board of one world: pointy-top hexes placed by their axial
    coordinates, terrain colour, a ring in the owner's colour round each home castle, a dark
    dot on a fortified tile and one square per unit in its owner's colour (an upgraded unit
    with a white centre). The hexes are worked out once per world; a picture copies them and
    draws the pieces."""

    def __init__(self, world: World, radius: int = 28) -> None:
        self.world = world
        self.radius = radius
        coords = np.array(world.coords, dtype=np.float64)
        cx = radius * _SQRT3 * (coords[:, 0] + coords[:, 1] / 2)
        cy = radius * 1.5 * coords[:, 1]
        margin = radius + 4
        cx += margin - cx.min()
        cy += margin - cy.min()
        self.centres = np.stack([cx, cy], axis=1).round().astype(int)
        height, width = int(cy.max()) + margin, int(cx.max()) + margin
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
        # Each pixel's tile and its distance from that tile's centre in the hex norm (the
        # apothem is 1 on the edge): the largest projection on the three edge normals.
        tile = np.full((height, width), -1, dtype=np.int64)
        norm = np.full((height, width), np.inf)
        apothem = radius * _SQRT3 / 2
        for t, (x, y) in enumerate(zip(cx, cy, strict=True)):
            dx, dy = xs - x, ys - y
            d = np.maximum(np.abs(dx), np.maximum(np.abs(dx / 2 + dy * _SQRT3 / 2),
                                                  np.abs(dx / 2 - dy * _SQRT3 / 2))) / apothem
            closer = d < norm
            tile[closer] = t
            norm[closer] = d[closer]
        inside = norm <= 1.0
        self.tile = np.where(inside, tile, -1)
        self.ring = inside & (norm > 0.78) & (norm <= 0.9)
        base = np.full((height, width, 3), 255, dtype=np.uint8)
        for t, terrain in enumerate(world.terrain):
            base[self.tile == t] = _TERRAIN_RGB[terrain]
        base[inside & (norm > 0.92)] = _EDGE_RGB
        self.base = base

    def draw(self, state: GameState) -> NDArray[np.uint8]:
        """The board of ``state`` as a fresh ``(H, W, 3)`` uint8 array."""
        image = self.base.copy()
        for seat, tile in enumerate(state.home):
            if tile >= 0:
                image[self.ring & (self.tile == tile)] = _SEAT_RGB[seat % len(_SEAT_RGB)]
        side = max(3, self.radius // 6)
        step = side + 2
        for t, units in enumerate(state.board):
            x, y = self.centres[t]
            if state.fortified[t]:
                image[y - self.radius // 2 - 2: y - self.radius // 2 + 2, x - 2: x + 2] = 0
            per_row = 4
            rows = (len(units) + per_row - 1) // per_row
            for i, code in enumerate(units):
                row, col = divmod(i, per_row)
                in_row = min(per_row, len(units) - row * per_row)
                left = x - (in_row * step) // 2 + col * step
                top = y - (rows * step) // 2 + row * step
                owner = code >> OWNER_SHIFT
                image[top: top + side, left: left + side] = _SEAT_RGB[owner % len(_SEAT_RGB)]
                if code & 1:  # upgraded
                    image[top + 1: top + side - 1, left + 1: left + side - 1] = 255
        return image


def opponent_bots(opponents: Sequence[str | Bot], players: int) -> list[Bot]:
    """The bots of the seats other than the agent's: one spec or bot for all of them, or one
    each (registry specs such as ``"greedy"`` or ``"mcts:time=0.2"``, or Bot objects)."""
    specs = list(opponents)
    if len(specs) == 1:
        specs *= players - 1
    if len(specs) != players - 1:
        raise ValueError(f"{len(specs)} opponents for a {players}-player game: give one "
                         f"(used for every other seat) or {players - 1}")
    return [make_bot(s) if isinstance(s, str) else s for s in specs]


class KaladanEnv(gym.Env[NDArray[np.float32], int]):
    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(self, players: int = 2, mode: str = "free_for_all",
                 opponents: Sequence[str | Bot] = ("greedy",),
                 options: Mapping[str, str] | None = None, seat: int | None = None,
                 quick_setup: bool = False, max_decisions: int = MAX_DECISIONS,
                 score_shaping: float = 0.0, illegal: str = "end",
                 illegal_reward: float = -1.0, render_mode: str | None = None) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi' and 'rgb_array' "
                             f"are offered")
        if illegal not in ("end", "raise"):
            raise ValueError(f"illegal={illegal!r}: choose 'end' or 'raise'")
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not a seat of a {players}-player game")
        self.core = EnvCore(make_config(players, mode, options, quick_setup),
                            max_decisions=max_decisions, score_shaping=score_shaping)
        self.players = players
        self.opponents = opponent_bots(opponents, players)
        self.fixed_seat = seat
        self.illegal = illegal
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        self.observation_space = spaces.Box(OBS_LOW, OBS_HIGH, (self.core.observations.size,),
                                            np.float32)
        self.action_space = spaces.Discrete(self.core.actions.size)  # type: ignore[assignment]
        self.seat = 0
        self._episodes = 0
        self._bot_rng = random.Random(0)
        self._bots: dict[int, Bot] = {}
        self._over = True  # until the first reset: no token may be played
        # The kinds of decision (labels) handed to the agent since this env was made: what a
        # policy trained here has met (``policy.save_policy`` records it).
        self.decisions_seen: set[str] = set()
        self._image: BoardImage | None = None

    # --- episode -------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None
              ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2**63 - 1))
        if seed is not None:
            self._episodes = 0
        self.seat = (self.fixed_seat if self.fixed_seat is not None
                     else self._episodes % self.players)
        self._episodes += 1
        others = [p for p in range(self.players) if p != self.seat]
        self._bots = dict(zip(others, self.opponents, strict=True))
        self._bot_rng = random.Random(game_seed ^ 0x5EED)
        self.core.reset(game_seed)
        self._play_opponents()
        self._over = self.core.over or self.core.truncated or self.core.out(self.seat)
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[NDArray[np.float32], float, bool, bool,
                                         dict[str, Any]]:
        core = self.core
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        try:
            core.step(int(action))
        except InvalidActionError as exc:
            if self.illegal == "raise":
                raise
            self._over = True
            info = self._info()
            info["illegal_action"] = str(exc)
            return self._obs(), self.illegal_reward, True, False, info
        self._play_opponents()
        terminated = core.over or core.out(self.seat)
        reward = 0.0
        if core.over:
            reward = core.returns()[self.seat]
        elif terminated:
            reward = -1.0  # R18.1: out of a free-for-all game
        truncated = core.truncated and not terminated
        self._over = terminated or truncated
        return self._obs(), reward, terminated, truncated, self._info()

    def _play_opponents(self) -> None:
        core = self.core
        while (not core.over and not core.truncated and core.seat != self.seat
               and not core.out(self.seat)):
            seat = core.seat
            choice = core.choice
            assert choice is not None
            action = self._bots[seat].choose(SeatView(core.state, seat), choice.legal,
                                             self._bot_rng)
            core.play(action)

    # --- what the agent sees -------------------------------------------------------------

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal tokens now, for MaskablePPO; every token once the episode is over (the
        module's docstring says why)."""
        if self._over:
            return np.ones(self.core.actions.size, dtype=bool)
        return self.core.mask(np.bool_)

    def _obs(self) -> NDArray[np.float32]:
        core = self.core
        if not self._over:
            self.decisions_seen.add(core.state.pending.kind.label)
        return core.observe(self.seat)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.seat,
                "decisions": self.core.state.decisions}

    def render(self) -> str | NDArray[np.uint8] | None:
        """The board as text (``"ansi"``) or as an RGB picture (``"rgb_array"``)."""
        if self.render_mode == "rgb_array":
            world = self.core.state.world
            if self._image is None or self._image.world is not world:  # random_terrain
                self._image = BoardImage(world)
            return self._image.draw(self.core.state)
        return None if self.render_mode is None else self.core.render()


def register() -> None:
    """Register ``kaladan/Kaladan-v0`` with Gymnasium (idempotent): ``gymnasium.make`` builds
    ``KaladanEnv``, ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` the
    batched ``gym_vector.KaladanVectorEnv``."""
    if ENV_ID not in gym.registry:
        gym.register(id=ENV_ID, entry_point="kaladan.env.gym_env:KaladanEnv",
                     vector_entry_point="kaladan.env.gym_vector:KaladanVectorEnv",
                     max_episode_steps=None, disable_env_checker=False)
