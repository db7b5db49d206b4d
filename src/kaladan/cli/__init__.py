"""The ``kaladan`` command line."""
