"""The HTML report of a balance study (issue 18) in Chromium: it opens from a file without a
JavaScript error or a single request beyond the file, every chart is drawn, and the tables
sort when a header is clicked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kaladan.rules.config import Config
from kaladan.sim.balance import Ruleset, run
from kaladan.sim.report import for_study

CHARTS = ["balance-realm", "balance-seat", "balance-position", "balance-change",
          "balance-rounds", "balance-margins", "balance-ends"]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = Config(players=2)
    study = run([Ruleset("default", base), Ruleset("no end card", base.with_options(
        end_game_card="none"))], "random", 30, seed=4)
    path = tmp_path_factory.mktemp("report") / "study.html"
    for_study(study, "kaladan balance --players 2 --bot random --games 30").write(path)
    return path


def test_the_report_opens_offline_with_every_chart_and_sortable_tables(
        page: Any, report: Path) -> None:
    requests: list[str] = []
    console_errors: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    assert requests == [report.as_uri()]  # no font, script, style or image from anywhere
    figures = page.query_selector_all("figure.chart")
    assert [f.get_attribute("data-chart") for f in figures] == CHARTS
    for figure in figures:
        figure.scroll_into_view_if_needed()
        svg = figure.query_selector("svg")
        assert svg is not None and svg.is_visible()
        box = svg.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 150
        # Drawn, not empty: the chart's marks (paths) are there.
        assert len(svg.query_selector_all("path")) > 10
    table = page.locator("table[data-table]").first
    games = table.locator("tbody tr td:nth-child(2)")
    table.locator("th", has_text="games").click()
    ascending = [int(t) for t in games.all_inner_texts()]
    table.locator("th", has_text="games").click()
    descending = [int(t) for t in games.all_inner_texts()]
    assert ascending == sorted(ascending) and descending == sorted(ascending, reverse=True)
    assert page.locator("pre.command").inner_text().startswith("kaladan balance")
    assert not console_errors
