"""Bots: each sees only its seat's view and takes randomness from the rng it is given."""

from .base import Bot, SeatView
from .registry import make_bot, parse_bot_list

__all__ = ["Bot", "SeatView", "make_bot", "parse_bot_list"]
