"""The rules engine: pure Python, standard library only, no I/O beyond reading its own data."""
