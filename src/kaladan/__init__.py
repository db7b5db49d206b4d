"""kaladan: the digital edition of Generals of Kaladan: Age of Crowns."""

from ._pure import engine_mode, install

install()  # KALADAN_PURE=1: run the engine from its Python sources

__version__ = "0.1.0"
__all__ = ["engine_mode", "__version__"]
