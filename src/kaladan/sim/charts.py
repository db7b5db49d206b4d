"""Charts of simulations and balance studies, drawn with matplotlib (the ``[sim]`` extra) and
rendered as SVG (inlined in the HTML report) and PNG (``--plots``).

Each chart is built from plain numbers, so simulate and balance share them. Matplotlib is
used through its object API (no pyplot, no global state) and imported only here.
"""

from __future__ import annotations

import html
import importlib
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .frames import INSTALL_HINT, OutputError

# Okabe-Ito: distinguishable with any colour vision.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
_STYLE = {"svg.fonttype": "none", "svg.hashsalt": "kaladan", "font.size": 9,
          "font.family": "sans-serif", "axes.spines.top": False, "axes.spines.right": False,
          "axes.grid": True, "grid.alpha": 0.3, "axes.axisbelow": True}


@dataclass(frozen=True, slots=True)
class Rates:
    """One series of win rates with their 95% intervals, and its fair share."""

    label: str
    keys: Sequence[str]
    rates: Sequence[float]
    lows: Sequence[float]
    highs: Sequence[float]
    fair: float | None = None


class Chart:
    """A finished chart: its name (file and HTML id), title and figure, rendered as SVG or
    PNG when asked (rendering is most of a chart's cost)."""

    def __init__(self, name: str, title: str, figure: Any) -> None:
        self.name = name
        self.title = title
        self.figure = figure

    @cached_property
    def svg(self) -> str:
        """A complete SVG document."""
        out = io.StringIO()
        with _matplotlib().rc_context(_STYLE):
            self.figure.savefig(out, format="svg", metadata={"Date": None})
        return out.getvalue()

    @cached_property
    def png(self) -> bytes:
        out = io.BytesIO()
        with _matplotlib().rc_context(_STYLE):
            self.figure.savefig(out, format="png", dpi=150)
        return out.getvalue()

    def inline_svg(self) -> str:
        """The SVG for an HTML page: no XML prolog, no namespace declarations (the HTML
        parser puts <svg> in its namespace), so the page names no outside address."""
        text = self.svg[self.svg.index("<svg"):]
        text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
        text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
        return text.replace("<svg", f'<svg role="img" aria-label="{html.escape(self.title)}"', 1)


def _matplotlib() -> Any:
    try:
        return importlib.import_module("matplotlib")
    except ImportError as exc:
        raise OutputError(f"charts need matplotlib, which is not installed: {INSTALL_HINT}") \
            from exc


def _figure(width: float = 6.4, height: float = 3.4) -> Any:
    figure_module = importlib.import_module("matplotlib.figure")
    return figure_module.Figure(figsize=(width, height), layout="constrained")


def render(name: str, title: str, figure: Any) -> Chart:
    return Chart(name, title, figure)


def rate_chart(name: str, title: str, axis: str, series: Sequence[Rates]) -> Chart:
    """Win rate per key with its interval as a bar, against each series' fair share."""
    mpl = _matplotlib()
    with mpl.rc_context(_STYLE):
        keys = list(dict.fromkeys(k for s in series for k in s.keys))
        figure = _figure(7.0 if len(keys) * len(series) > 8 else 6.4, 3.8)
        ax = figure.add_subplot()
        width = 0.6 / len(series)
        fairs = {round(s.fair, 4) for s in series if s.fair is not None}
        for i, s in enumerate(series):
            colour = COLOURS[i % len(COLOURS)]
            offset = (i - (len(series) - 1) / 2) * width
            xs = [keys.index(k) + offset for k in s.keys]
            ys = [100 * r for r in s.rates]
            below = [100 * (r - lo) for r, lo in zip(s.rates, s.lows, strict=True)]
            above = [100 * (hi - r) for r, hi in zip(s.rates, s.highs, strict=True)]
            ax.errorbar(xs, ys, yerr=[below, above], fmt="o", capsize=4, color=colour,
                        label=s.label)
            if s.fair is not None and (len(fairs) > 1 or i == 0):
                ax.axhline(100 * s.fair, color=colour if len(fairs) > 1 else "0.35",
                           linestyle="--", linewidth=1,
                           label=f"fair share {100 * s.fair:.1f}%"
                           + (f" ({s.label})" if len(fairs) > 1 else ""))
        ax.set_xticks(range(len(keys)), keys)
        ax.set_xlabel(axis)
        ax.set_ylabel("win rate (%), 95% interval")
        ax.set_title(title)
        figure.legend(loc="outside lower center", ncols=3, fontsize=8, frameon=False)
        return render(name, title, figure)


def histogram(name: str, title: str, axis: str, data: Mapping[str, Sequence[int]]) -> Chart:
    """Share of games per value (rounds, score margin), one outline per ruleset."""
    mpl = _matplotlib()
    with mpl.rc_context(_STYLE):
        figure = _figure()
        ax = figure.add_subplot()
        values = [v for vs in data.values() for v in vs]
        if values:
            bins = list(range(min(values), max(values) + 2))
            for i, (label, vs) in enumerate(data.items()):
                if vs:
                    ax.hist(vs, bins=bins, weights=[100 / len(vs)] * len(vs), align="left",
                            histtype="step" if len(data) > 1 else "bar", linewidth=1.5,
                            color=COLOURS[i % len(COLOURS)], label=label, alpha=0.9,
                            rwidth=None if len(data) > 1 else 0.85)
            if len(data) > 1:
                ax.legend(fontsize=8)
        ticker = importlib.import_module("matplotlib.ticker")
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))  # rounds, points
        ax.set_xlabel(axis)
        ax.set_ylabel("games (%)")
        ax.set_title(title)
        return render(name, title, figure)


def ends_chart(name: str, title: str, data: Mapping[str, Mapping[str, int]]) -> Chart:
    """Share of games by how they ended (section 21), grouped per ruleset."""
    mpl = _matplotlib()
    with mpl.rc_context(_STYLE):
        figure = _figure()
        ax = figure.add_subplot()
        ends = sorted({e for counts in data.values() for e in counts})
        width = min(0.5, 0.8 / max(1, len(data)))
        for i, (label, counts) in enumerate(data.items()):
            total = sum(counts.values()) or 1
            xs = [k + (i - (len(data) - 1) / 2) * width for k in range(len(ends))]
            bars = ax.bar(xs, [100 * counts.get(e, 0) / total for e in ends], width,
                          color=COLOURS[i % len(COLOURS)], label=label)
            ax.bar_label(bars, fmt="%.1f%%", fontsize=8)
        ax.set_xlim(-0.75, len(ends) - 0.25)
        ax.set_xticks(range(len(ends)), ends)
        ax.set_ylabel("games (%)")
        ax.set_title(title)
        if len(data) > 1:
            ax.legend(fontsize=8)
        return render(name, title, figure)


def change_chart(name: str, title: str, keys: Sequence[str], differences: Sequence[float],
                 lows: Sequence[float], highs: Sequence[float]) -> Chart:
    """Per realm: the change in win rate with its paired 95% interval, against no change."""
    mpl = _matplotlib()
    with mpl.rc_context(_STYLE):
        figure = _figure()
        ax = figure.add_subplot()
        ys = [100 * d for d in differences]
        below = [100 * (d - lo) for d, lo in zip(differences, lows, strict=True)]
        above = [100 * (hi - d) for d, hi in zip(differences, highs, strict=True)]
        ax.errorbar(range(len(keys)), ys, yerr=[below, above], fmt="o", capsize=4,
                    color=COLOURS[0])
        ax.axhline(0, color="black", linewidth=1)
        ax.set_xticks(range(len(keys)), list(keys))
        ax.set_ylabel("change in win rate (points), 95% interval")
        ax.set_title(title)
        return render(name, title, figure)
