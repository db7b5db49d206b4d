"""The report of a simulation or balance study: one self-contained HTML file (inline SVG
charts, CSS and a few lines of script; it names no outside address, so it opens offline) and
the same charts as PNG and SVG files.
"""

from __future__ import annotations

import html
import importlib.metadata
import platform
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import charts
from .balance import Study
from .charts import Chart, Rates
from .frames import OutputError
from .runner import GameSummary, Summary
from .tables import GROUPS, changes, fair_share, rows

_GROUP_TITLES = {"bot": "bot", "realm": "realm", "seat": "seat",
                 "position": "turn position (1 = first player)"}


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]
    note: str = ""


@dataclass(slots=True)
class Report:
    title: str
    command: str
    facts: list[tuple[str, str]] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)

    def html(self) -> str:
        return _page(self)

    def write(self, path: str | Path) -> None:
        try:
            Path(path).write_text(self.html(), "utf-8")
        except OSError as exc:
            raise OutputError(f"cannot write {str(path)!r}: {exc}") from exc

    def write_plots(self, folder: str | Path) -> list[Path]:
        """Every chart as ``<name>.png`` and ``<name>.svg`` in ``folder`` (created)."""
        target = Path(folder)
        written = []
        try:
            target.mkdir(parents=True, exist_ok=True)
            for chart in self.charts:
                (target / f"{chart.name}.png").write_bytes(chart.png)
                (target / f"{chart.name}.svg").write_text(chart.svg, "utf-8")
                written += [target / f"{chart.name}.png", target / f"{chart.name}.svg"]
        except OSError as exc:
            raise OutputError(f"cannot write the charts to {str(folder)!r}: {exc}") from exc
        return written


def version_text() -> str:
    """kaladan's version, with the commit when run from a git checkout (``+`` if changed)."""
    try:
        version = importlib.metadata.version("kaladan")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    text = f"kaladan {version}"
    package = Path(__file__).resolve().parent.parent  # src/kaladan: the code that played
    try:
        commit = subprocess.run(["git", "-C", str(package), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=5, check=True).stdout
        dirty = subprocess.run(["git", "-C", str(package), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=5, check=True).stdout
        text += f" (commit {commit.strip()}{'+' if dirty.strip() else ''})"
    except (OSError, subprocess.SubprocessError):
        pass  # not a checkout: the version alone
    return f"{text}, Python {platform.python_version()}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _interval(low: float, high: float) -> str:
    return f"{100 * low:.1f}–{100 * high:.1f}%"


def _p(p: float) -> str:
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _games_charts(label_games: dict[str, list[GameSummary]], prefix: str) -> list[Chart]:
    lengths = {label: [g.rounds for g in games] for label, games in label_games.items()}
    margins = {label: [m for g in games if (m := g.margin()) is not None]
               for label, games in label_games.items()}
    ends: dict[str, dict[str, int]] = {}
    for label, games in label_games.items():
        counts = ends.setdefault(label, {})
        for g in games:
            counts[g.end] = counts.get(g.end, 0) + 1
    return [
        charts.histogram(f"{prefix}-rounds", "Game length", "rounds played", lengths),
        charts.histogram(f"{prefix}-margins", "Score margin of the winner",
                         "winner's score minus the best other (games with a runner-up)",
                         margins),
        charts.ends_chart(f"{prefix}-ends", "How games ended", ends),
    ]


def for_simulation(summary: Summary, command: str, seconds: float) -> Report:
    """The report of ``kaladan simulate``: rates per bot, seat, turn position and realm."""
    games = summary.games
    report = Report("kaladan simulate", command)
    fair = fair_share(games)
    report.facts = [("games", str(len(games))), ("design", summary.design),
                    ("ruleset", summary.ruleset), ("fair share", _pct(fair)),
                    ("time", f"{seconds:.1f} s"), ("version", version_text())]
    rates = summary.rates()
    for group in ("bot", "seat", "position", "realm"):
        table = rates[group]
        keys = list(table)
        report.charts.append(charts.rate_chart(
            f"simulate-{group}", f"Win rate by {_GROUP_TITLES[group]}", _GROUP_TITLES[group],
            [Rates(summary.ruleset, keys, [float(table[k]["rate"]) for k in keys],
                   [float(table[k]["low"]) for k in keys],
                   [float(table[k]["high"]) for k in keys], fair)]))
        report.tables.append(Table(
            f"simulate-{group}", f"Win rate by {_GROUP_TITLES[group]}",
            (group, "games", "wins", "win rate", "95% interval"),
            [(k, str(r["games"]), str(r["wins"]), _pct(float(r["rate"])),
              _interval(float(r["low"]), float(r["high"]))) for k, r in table.items()]))
    report.charts += _games_charts({summary.ruleset: games}, "simulate")
    return report


def _row_table(name: str, title: str, group: str, table: Sequence[Any]) -> Table:
    return Table(name, title, (group, "games", "wins", "win rate", "95% interval",
                               "vs fair (points)", "p", "Holm p", "verdict", "mean score",
                               "eliminated", "mean rounds"),
                 [(r.key, str(r.games), str(r.wins), _pct(r.rate), _interval(r.low, r.high),
                   f"{100 * r.difference:+.1f}", _p(r.p), _p(r.p_holm), str(r.verdict) or "–",
                   "–" if r.score is None else f"{r.score:.1f}", _pct(r.eliminated),
                   f"{r.rounds:.1f}") for r in table],
                 "verdict: strong or weak when Holm's adjusted p is below 0.05 "
                 "(exact binomial test against the fair share)")


def for_study(study: Study, command: str) -> Report:
    """The report of ``kaladan balance``."""
    report = Report("kaladan balance", command)
    first = study.rulesets[0].config
    report.facts = [("players", str(first.players)), ("mode", str(first.mode)),
                    ("bot", study.bot), ("games per ruleset", str(study.count)),
                    ("design", study.design), ("block", f"{study.block} games"),
                    ("stopped", study.stopped), ("seed", str(study.seed)),
                    ("time", f"{study.seconds:.1f} s"), ("version", version_text())]
    for group in GROUPS:
        series = []
        for rs in study.rulesets:
            games = study.games[rs.label]
            table = rows(games, group)
            series.append(Rates(rs.label, [r.key for r in table], [r.rate for r in table],
                                [r.low for r in table], [r.high for r in table],
                                fair_share(games)))
            report.tables.append(_row_table(f"balance-{group}-{len(report.tables)}",
                                            f"{rs.label}: win rate by {_GROUP_TITLES[group]}",
                                            group, table))
            for r in table:
                if r.verdict and group == "realm":
                    report.findings.append(
                        f"{rs.label}: {r.key} is {r.verdict} ({_pct(r.rate)} against a fair "
                        f"share of {_pct(fair_share(games))}, Holm p {_p(r.p_holm)})")
        report.charts.append(charts.rate_chart(
            f"balance-{group}", f"Win rate by {_GROUP_TITLES[group]}", _GROUP_TITLES[group],
            series))
    if len(study.rulesets) == 2:
        a, b = (study.games[rs.label] for rs in study.rulesets)
        change = changes(a, b)
        labels = f"{study.rulesets[1].label} minus {study.rulesets[0].label}"
        report.charts.append(charts.change_chart(
            "balance-change", f"Change in win rate per realm ({labels})",
            [c.key for c in change], [c.difference for c in change],
            [c.low for c in change], [c.high for c in change]))
        report.tables.append(Table(
            "balance-change", f"Change per realm ({labels})",
            ("realm", "games", study.rulesets[0].label, study.rulesets[1].label, "change",
             "95% interval", "p", "Holm p", "verdict"),
            [(c.key, str(c.games), _pct(c.rate_first), _pct(c.rate_second),
              f"{100 * c.difference:+.1f}", f"{100 * c.low:+.1f} to {100 * c.high:+.1f}",
              _p(c.p), _p(c.p_holm), str(c.verdict) or "–") for c in change],
            "paired games (same seed and realms); Newcombe's interval, exact McNemar test, "
            "Holm's adjustment over the realms"))
        report.findings += [f"{c.key} goes {c.verdict} by {100 * c.difference:+.1f} points "
                            f"(Holm p {_p(c.p_holm)})" for c in change if c.verdict]
    if not report.findings:
        report.findings.append("No realm differs from the fair share at the 5% level after "
                               "Holm's adjustment.")
    report.charts += _games_charts(study.games, "balance")
    return report


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1100px;padding:1rem 1.5rem;color:#1b1b1b;background:#fff;line-height:1.4}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
pre.command{background:#f4f4f4;padding:.6rem;overflow-x:auto;white-space:pre-wrap}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(440px,1fr));gap:1.2rem}
figure.chart{margin:0;min-width:0}
figure.chart svg{width:100%;height:auto}
figure.chart svg text{font-family:system-ui,sans-serif}
table.data{border-collapse:collapse;margin:.5rem 0 .3rem;font-size:.9rem}
table.data th,table.data td{border:1px solid #ddd;padding:.25rem .5rem;text-align:right}
table.data th:first-child,table.data td:first-child{text-align:left}
table.data th{background:#f4f4f4;cursor:pointer;user-select:none}
table.data tr:hover td{background:#fafae6}
p.note{font-size:.85rem;color:#555;margin-top:0}
"""

# Click a column header to sort the table by it (numbers by value).
_JS = """
document.querySelectorAll("table.data").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0];
      var up = th.dataset.order !== "up";
      th.dataset.order = up ? "up" : "down";
      var key = function (tr) {
        var text = tr.cells[col].textContent;
        var n = parseFloat(text.replace(/[^0-9.+-]/g, ""));
        return isNaN(n) ? text : n;
      };
      Array.prototype.slice.call(body.rows).sort(function (a, b) {
        var x = key(a), y = key(b);
        return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
      }).forEach(function (tr) { body.appendChild(tr); });
    });
  });
});
"""


def _table_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>"
                   for row in table.rows)
    note = f'<p class="note">{html.escape(table.note)}</p>' if table.note else ""
    return (f'<h3>{html.escape(table.title)}</h3><table class="data" '
            f'data-table="{html.escape(table.name)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>{note}")


def _page(report: Report) -> str:
    facts = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>"
                    for k, v in report.facts)
    findings = "".join(f"<li>{html.escape(f)}</li>" for f in report.findings)
    if findings:
        findings = f'<h3>Findings</h3><ul class="findings">{findings}</ul>'
    figures = "".join(
        f'<figure class="chart" id="{html.escape(c.name)}" data-chart="{html.escape(c.name)}" '
        f'title="{html.escape(c.title)}">{c.inline_svg()}</figure>'
        for c in report.charts)
    tables = "".join(_table_html(t) for t in report.tables)
    made = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(report.title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{html.escape(report.title)}</h1>"
        f'<p class="note">made {html.escape(made)} by</p>'
        f'<pre class="command">{html.escape(report.command)}</pre>'
        f'<section id="facts"><h2>Study</h2><dl class="facts">{facts}</dl>'
        f"{findings}</section>"
        f'<section id="charts"><h2>Charts</h2><div class="charts">{figures}</div></section>'
        f'<section id="tables"><h2>Tables</h2>{tables}</section>'
        f"<script>{_JS}</script></body></html>\n")
