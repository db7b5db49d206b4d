"""Standard environments for AI research (extra ``kaladan[rl]``): a fixed action encoding,
observation tensors from one seat's view, and PettingZoo, Gymnasium and OpenSpiel adapters.

Importing this package registers ``kaladan/Kaladan-v0`` with Gymnasium when Gymnasium is
installed; the PettingZoo and OpenSpiel adapters are imported on their own.
"""

from importlib.util import find_spec as _find_spec

if _find_spec("gymnasium") is not None:  # ``gymnasium.make("kaladan/Kaladan-v0")``
    from .gym_env import register as _register

    _register()
