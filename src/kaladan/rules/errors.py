"""Typed errors of the rules engine.

``InvalidActionError`` means the input is malformed (it does not parse, names an unknown
tile or unit); ``IllegalActionError`` means it is well-formed but not allowed now, and names
the rule id that forbids it. A rejected action never changes the state.
"""

from __future__ import annotations


class KaladanError(Exception):
    """Base class of every error the engine raises on purpose."""


class InvalidActionError(KaladanError):
    """Malformed input: text or JSON that does not describe an action, tile, unit or card."""


class IllegalActionError(KaladanError):
    """A well-formed action that the rules do not allow in the current state."""

    def __init__(self, action: str, rule: str, reason: str) -> None:
        self.action = action
        self.rule = rule
        self.reason = reason
        super().__init__(f"illegal action {action!r}: {reason} ({rule})")


class ConfigError(KaladanError):
    """An invalid game configuration (player count, option value, world)."""

    def __init__(self, message: str, rule: str = "") -> None:
        self.rule = rule
        super().__init__(f"{message} ({rule})" if rule else message)


class LayoutError(ConfigError):
    """A custom world layout that breaks a rule of R4.14; ``rule`` names it."""


class FormatError(KaladanError):
    """A position or game record that cannot be read (bad JSON, wrong version, bad field)."""
