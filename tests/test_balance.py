"""Balance studies (issue 18): the statistics, Holm-adjusted verdicts on a known imbalance and
a fair case, paired comparisons of two rulesets, deterministic batches and stopping, the HTML
report, Parquet and data frames, and bad arguments."""

from __future__ import annotations

import json
import random
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from kaladan.cli.main import main
from kaladan.rules.config import Config
from kaladan.rules.units import REALMS
from kaladan.sim import frames
from kaladan.sim.balance import Ruleset, Study, run
from kaladan.sim.runner import GameSummary, simulate
from kaladan.sim.stats import binomial_test, holm, mcnemar, paired_difference
from kaladan.sim.tables import changes, fair_share, rows


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command run in this process (no interpreter start-up): code, stdout, stderr."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_exact_binomial_test_holm_and_paired_interval_known_values() -> None:
    assert binomial_test(682, 925, 0.75) == pytest.approx(0.3825, abs=1e-4)  # R binom.test
    assert binomial_test(3, 10, 0.5) == pytest.approx(0.34375)
    assert binomial_test(0, 0, 0.3) == 1.0
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])  # R
    assert mcnemar(5, 5) == pytest.approx(1.0) and mcnemar(0, 10) == pytest.approx(2 / 1024)
    # Newcombe's paired interval: the contingencytables R package's test (-0.1186, -0.0046).
    diff, low, high = paired_difference(59, 6, 16, 80)
    assert (diff, low, high) == pytest.approx((-0.0621, -0.1186, -0.0046), abs=1e-4)


def synthetic(weights: dict[str, float], games: int, seed: int,
              players: int = 4) -> list[GameSummary]:
    """Games whose winner is drawn with the realms' weights: a known truth for the tests."""
    rng = random.Random(seed)
    out = []
    for i in range(games):
        realms = rng.sample(REALMS, players)
        winner = rng.choices(range(players), [weights[r] for r in realms])[0]
        out.append(GameSummary(i, ["bot"] * players, list(realms), winner, "final_round", 10,
                               100, [1] * players))
    return out


def test_holm_verdicts_flag_a_known_imbalance_and_rarely_a_fair_case() -> None:
    fair = dict.fromkeys(REALMS, 1.0)
    false_alarms = sum(any(r.verdict for r in rows(synthetic(fair, 300, seed), "realm"))
                       for seed in range(200))
    assert false_alarms <= 16  # Holm keeps any false verdict to 5% (10 expected of 200)
    strong = {**fair, "kimbria": 2.0}
    found = [next(r for r in rows(synthetic(strong, 300, seed), "realm")
                  if r.key == "kimbria").verdict for seed in range(20)]
    assert found.count("strong") >= 18
    table = rows(synthetic(strong, 600, 1), "realm")
    # The others really are below the fair share now: weak verdicts are true, strong is not.
    assert [r.key for r in table if r.verdict == "strong"] == ["kimbria"]
    assert {r.verdict for r in table if r.key != "kimbria"} <= {"", "weak"}
    assert fair_share(synthetic(fair, 50, 2)) == pytest.approx(0.25)


@pytest.fixture(scope="module")
def rich_study() -> Study:
    """A real study, two rulesets on paired games: the default, and a test ruleset that gives
    Kimbria 100 more gold when play begins (random bots, 4 players)."""
    base = Config(players=4)
    return run([Ruleset("fair", base), Ruleset("rich kimbria", base, (("kimbria", 100),))],
               "random", 120, seed=1)


def test_a_realm_given_extra_gold_is_flagged_and_the_fair_ruleset_is_not(
        rich_study: Study) -> None:
    fair, rich = (rich_study.games[label] for label in ("fair", "rich kimbria"))
    assert len(fair) == len(rich) == 120
    assert [r.key for r in rows(fair, "realm") if r.verdict] == []
    assert [r.key for r in rows(fair, "seat") if r.verdict] == []
    kimbria = next(r for r in rows(rich, "realm") if r.key == "kimbria")
    assert kimbria.verdict == "strong" and kimbria.p_holm < 0.001
    assert all(r.verdict in ("", "weak") for r in rows(rich, "realm") if r.key != "kimbria")
    change = {c.key: c for c in changes(fair, rich)}
    assert change["kimbria"].verdict == "up" and change["kimbria"].low > 0.3
    # Paired games: the same seeds and realms under both rulesets.
    assert [(g.seed, g.realms) for g in fair] == [(g.seed, g.realms) for g in rich]


def test_study_tables_as_json(rich_study: Study) -> None:
    tables = rich_study.tables()
    assert tables["games"] == 120 and tables["block"] == 360
    assert [r["label"] for r in tables["rulesets"]] == ["fair", "rich kimbria"]
    realm_rows = tables["rulesets"][0]["realm"]
    assert [r["key"] for r in realm_rows] == list(REALMS)
    assert sum(r["games"] for r in realm_rows) == 4 * 120
    seat_rows = tables["rulesets"][0]["seat"]
    assert [r["games"] for r in seat_rows] == [120] * 4
    assert {c["key"] for c in tables["changes"]} == set(REALMS)
    json.dumps(tables)


def test_until_ci_stops_at_the_first_block_where_every_interval_is_narrow_enough() -> None:
    rulesets = [Ruleset("default", Config(players=2))]
    widths: list[float] = []
    full = run(rulesets, "random", 90, seed=3,
               batch_done=lambda study: widths.append(study.widest()))
    assert len(widths) == 3 and widths[0] > widths[1] > widths[2]
    target = (widths[0] + widths[1]) / 2
    stopped = run(rulesets, "random", 90, seed=3, until_ci=target)
    assert stopped.count == 60 and "narrower than" in stopped.stopped
    assert [g.to_json() for g in stopped.games["default"]] == [
        g.to_json() for g in full.games["default"][:60]]
    never = run(rulesets, "random", 90, seed=3, until_ci=0.001)
    assert never.count == 90 and never.stopped == "all 90 games played"


def test_balance_gives_identical_tables_with_one_or_two_processes(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = ["balance", "--players", "2", "--bot", "random", "--games", "120", "--seed", "6",
            "--compare", "mountain_defence=drop_lowest", "--until-ci", "0.45", "--json"]
    one, two = cli(capsys, *args, "--jobs", "1"), cli(capsys, *args, "--jobs", "2")
    assert one[0] == 0 and two[0] == 0, one[2] + two[2]
    assert one[2] == ""  # no progress line off a terminal
    first, second = json.loads(one[1]), json.loads(two[1])
    first.pop("seconds"), second.pop("seconds")
    assert first == second
    assert first["games"] == 60 and "narrower than 0.45" in first["stopped"]  # stopped early
    assert [r["options"] for r in first["rulesets"]] == ["default",
                                                          "mountain_defence=drop_lowest"]


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> Tags:
    parser = Tags()
    parser.feed(page)
    return parser


def assert_offline(page: str, parsed: Tags) -> None:
    """Nothing the page holds is fetched: no src, no link, only in-page references."""
    for tag, attrs in parsed.tags:
        assert tag not in ("link", "iframe", "img", "object", "embed"), tag
        assert "src" not in attrs, (tag, attrs)
        for name in ("href", "xlink:href", "action"):
            if name in attrs:
                assert (attrs[name] or "").startswith("#"), (tag, attrs)
    assert "http:" not in page and "https:" not in page and "//" not in page.replace(
        "<!--", "")
    assert "@import" not in page and "url(" not in page.replace("url(#", "")


def test_balance_cli_writes_a_report_plots_parquet_and_csv(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report, plots = tmp_path / "study.html", tmp_path / "plots"
    out, csv = tmp_path / "games.parquet", tmp_path / "tables.csv"
    args = ["balance", "--players", "2", "--bot", "random", "--games", "30", "--seed", "2",
            "--compare", "end_game_card=none", "--report", str(report), "--plots",
            str(plots), "--out", str(out), "--csv", str(csv)]
    code, out_text, err = cli(capsys, *args)
    assert code == 0, err
    assert "change per realm, end_game_card=none minus default" in out_text
    page = report.read_text("utf-8")
    parsed = parse(page)
    assert_offline(page, parsed)
    charts = [attrs["data-chart"] for tag, attrs in parsed.tags
              if tag == "figure" and "data-chart" in attrs]
    assert charts == ["balance-realm", "balance-seat", "balance-position", "balance-change",
                      "balance-rounds", "balance-margins", "balance-ends"]
    assert sum(tag == "svg" for tag, _ in parsed.tags) == len(charts)
    tables = [attrs["data-table"] for tag, attrs in parsed.tags if tag == "table"]
    assert len(tables) == 7  # realm, seat, position for each ruleset, and the change
    text = " ".join(parsed.text)
    assert " ".join(args[1:5]) in text and "kaladan 0.1.0" in text  # command and version
    assert all(s in text for s in ("khalisia", "Holm p", "95% interval"))
    assert sorted(p.name for p in plots.iterdir()) == sorted(
        f"{c}.{ext}" for c in charts for ext in ("png", "svg"))
    assert (plots / "balance-realm.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = frames.read_parquet(out)
    assert table.num_rows == 2 * 30 * 2 and set(table.column("ruleset").to_pylist()) == {
        "default", "end_game_card=none"}
    header, *lines = csv.read_text().splitlines()
    assert header.startswith("ruleset,group,key,games,wins,rate,low,high")
    assert sum(line.split(",")[1] == "change" for line in lines) == 6


def test_simulate_report_is_offline_and_holds_every_chart(tmp_path: Path) -> None:
    from kaladan.sim.report import for_simulation

    summary = simulate(Config(players=2), ["greedy", "random"], 6, seed=2)
    page = for_simulation(summary, "kaladan simulate --players greedy,random", 1.0).html()
    parsed = parse(page)
    assert_offline(page, parsed)
    charts = [attrs.get("data-chart") for tag, attrs in parsed.tags if tag == "figure"]
    assert charts == ["simulate-bot", "simulate-seat", "simulate-position", "simulate-realm",
                      "simulate-rounds", "simulate-margins", "simulate-ends"]


def games_of(summary_json: dict[str, Any]) -> list[GameSummary]:
    return [GameSummary(g["seed"], g["bots"], g["realms"], g["winner"], g["end"], g["rounds"],
                        g["decisions"], g["scores"], team=g.get("winning_team"),
                        teams=g.get("teams"), first=g["first"],
                        parts=[None if p is None else tuple(p) for p in g["parts"]])
            for g in summary_json["games"]]


@pytest.mark.parametrize("mode, bots", [("free_for_all", "greedy,random,random"),
                                        ("team_2v2", "random,random,greedy,random")])
def test_parquet_round_trip_with_the_documented_schema(
        tmp_path: Path, mode: str, bots: str, capsys: pytest.CaptureFixture[str]) -> None:
    out, csv = tmp_path / "games.parquet", tmp_path / "games.csv"
    args = ["simulate", "--players", bots, "--games", "5", "--seed", "8", "--mode", mode,
            "--option", "end_game_card=six_gates"]
    code, out_text, err = cli(capsys, *args, "--out", str(out), "--json")
    assert code == 0, err
    assert cli(capsys, *args, "--out", str(csv))[0] == 0
    table = frames.read_parquet(out)
    assert table.schema.equals(frames.schema(), check_metadata=True)
    assert table.schema.metadata[b"kaladan_schema"] == frames.SCHEMA_VERSION.encode()
    assert tuple(table.column_names) == frames.NAMES
    summary = json.loads(out_text)
    expected = frames.rows(games_of(summary), "end_game_card=six_gates")
    assert table.to_pylist() == expected
    for row in expected:
        parts = [row[p] for p in frames.PARTS]
        assert row["score"] is None or row["score"] == sum(parts)
        assert row["won"] == (row["winner"] == row["seat"] if mode == "free_for_all"
                              else row["winning_team"] == row["team"])
    assert any(row["six_gates"] for row in expected)  # the parts really are the engine's
    header, *lines = csv.read_text().splitlines()
    assert tuple(header.split(",")) == frames.NAMES and len(lines) == len(expected)


def test_results_as_pandas_and_polars_frames(rich_study: Study) -> None:
    summary = simulate(Config(players=3), ["greedy", "random", "random"], 4, seed=1)
    df = frames.to_frame(summary, "pandas")
    assert list(df.columns) == list(frames.NAMES) and len(df) == 12
    assert str(df["score"].dtype) == "Int16" and str(df["won"].dtype) == "boolean"
    assert df.groupby("bot")["won"].sum().to_dict() == {
        bot: row["wins"] for bot, row in summary.rates()["bot"].items()}
    pl = frames.to_frame(summary, "polars")
    assert pl.shape == (12, len(frames.NAMES)) and pl.columns == list(frames.NAMES)
    study_frame = rich_study.to_frame("pandas")
    assert len(study_frame) == 2 * 120 * 4
    wins = study_frame[study_frame.realm == "kimbria"].groupby("ruleset")["won"].mean()
    assert wins["rich kimbria"] > wins["fair"] + 0.3
    with pytest.raises(ValueError, match="pandas or polars"):
        frames.to_frame(summary, "spark")


@pytest.mark.parametrize("extra, words", [
    (["--players", "7"], "2 to 6 players"),
    (["--bot", "greedy,random"], "--bot takes one bot"),
    (["--until-ci", "2"], "--until-ci is an interval width between 0 and 1"),
    (["--compare", "nonsense"], "bad option 'nonsense'"),
    (["--compare", "end_game_card=random"], "does not change the ruleset"),
    (["--compare", "mountain_defence=sideways"], "mountain_defence='sideways' is not allowed"),
    (["--games", "0"], "--games must be at least 1"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--out", "/no/such/folder/games.parquet"], "its folder does not exist"),
    (["--mode", "team_2v2", "--players", "3"], "team_2v2 needs exactly 4 players"),
])
def test_bad_balance_arguments_are_a_message_and_exit_2(
        extra: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["balance", "--bot", "random", "--games", "4", *extra])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err


def test_a_plots_file_and_a_missing_library_are_clear_errors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "taken"
    afile.write_text("x")
    assert main(["balance", "--bot", "random", "--plots", str(afile)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if pyarrow were not installed
    code = main(["simulate", "--players", "random,random", "--games", "1",
                 "--out", str(tmp_path / "g.parquet")])
    err = capsys.readouterr().err
    assert code == 2 and "pip install 'kaladan[sim]'" in err and "Traceback" not in err


def test_a_bad_until_ci_value_is_refused_by_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["balance", "--until-ci", "narrow"])
    assert exit_info.value.code == 2 and "invalid float value" in capsys.readouterr().err


DOCS = Path(__file__).resolve().parents[1] / "docs" / "simulation.md"


def test_the_documented_schema_is_the_one_written() -> None:
    documented = []
    for line in DOCS.read_text("utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            documented.append((cells[0].strip("`"), cells[1], cells[2] == "yes", cells[3]))
    assert documented == list(frames.COLUMNS)


def test_the_notebook_example_of_the_docs_runs(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    text = DOCS.read_text("utf-8")
    start = text.index("```python", text.index("A notebook-style look"))
    code = text[start + len("```python"):text.index("```", start + 3)]
    assert "1440" in code and "jobs=2" in code
    small = code.replace("1440", "24").replace("jobs=2", "jobs=1")
    monkeypatch.chdir(tmp_path)
    frames.write_parquet("games.parquet", frames.rows(
        synthetic(dict.fromkeys(REALMS, 1.0), 10, 1)))
    exec(compile(small, str(DOCS), "exec"), {})  # the docs' own code, on a smaller study


def test_a_study_of_no_games_is_refused_before_it_starts() -> None:
    """The library refuses what the command line refuses (--games must be at least 1),
    instead of failing on the empty tables."""
    with pytest.raises(ValueError, match="at least one game"):
        run([Ruleset("default", Config(players=2))], "random", 0, seed=1)
