"""The engine's data files, read from the package directory (``rules.datafiles``)."""

from __future__ import annotations

from importlib import resources

import pytest

from kaladan.rules.datafiles import data_text

FILES = sorted(p.name for p in resources.files("kaladan.rules.data").iterdir()
               if p.name.endswith(".json"))


def test_every_data_file_reads_as_importlib_resources_reads_it() -> None:
    assert {"units.json", "layouts.json", "log_texts.json"} <= set(FILES)
    for name in FILES:
        expected = resources.files("kaladan.rules.data").joinpath(name).read_text("utf-8")
        assert data_text(name) == expected, name


def test_a_missing_data_file_is_an_error_not_an_empty_text() -> None:
    with pytest.raises(FileNotFoundError):
        data_text("no_such_file.json")
