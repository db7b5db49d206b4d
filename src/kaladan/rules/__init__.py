"""The rules engine: pure Python, standard library only, no I/O beyond reading its own data."""

# Importing the package registers the magic card effects (section 26).
from . import cards as _cards  # noqa: E402,F401
