"""kaladan: the digital edition of Generals of Kaladan: Age of Crowns."""

__version__ = "0.1.0"
