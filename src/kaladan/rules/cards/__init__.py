"""Card effects, registered by card id when this package is imported (section 26)."""

from . import magic_cards

__all__ = ["magic_cards"]
