"""``kaladan replay --analyse``: a game's analysis (``kaladan.analysis``) as text — every seat's
win-probability curve as a sparkline and a short table, then each seat's costliest decisions
with the expert bot's choice and what it keeps."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis import Analysis, CostlyDecision

BARS = "▁▂▃▄▅▆▇█"
WIDTH = 60  # sparkline columns
ROWS = 10  # the table: the start, then every tenth of the game


def _percent(p: float) -> str:
    return f"{100 * p:3.0f}%"


def _points(p: float) -> str:
    """A difference of chances in percentage points, signed."""
    return f"{100 * p:+.1f} points"


def sparkline(values: Sequence[float], width: int = WIDTH) -> str:
    """``values`` (chances in [0, 1]) in at most ``width`` bars: each bar the mean of its
    share of the points (never empty: there are at least as many points as bars)."""
    count = len(values)
    columns = min(width, count)
    bars = []
    for c in range(columns):
        part = values[c * count // columns:(c + 1) * count // columns]
        mean = sum(part) / len(part)
        bars.append(BARS[min(len(BARS) - 1, int(mean * len(BARS)))])
    return "".join(bars)


def render(analysis: Analysis, names: Sequence[str] | None = None) -> list[str]:
    """The analysis as lines of text; ``names`` labels the seats (a saved game's)."""
    n = analysis.players
    labels = [f"seat {s + 1}" + (f" ({names[s]})" if names and names[s] != "-" else "")
              for s in range(n)]
    width = max(len(label) for label in labels)
    curve = analysis.curve
    last = len(curve) - 1
    lines = [f"Win probability by the value network ({analysis.network[:12]}) over "
             f"{last} decisions; the last point is the result", ""]
    for s, label in enumerate(labels):
        line = sparkline([point[s] for point in curve])
        lines.append(f"{label:<{width}}  {line}  {_percent(curve[0][s])} → "
                     f"{_percent(curve[-1][s])}")
    marks = sorted({round(i * last / ROWS) for i in range(ROWS + 1)})
    lines += ["", "Every seat's chance after N decisions:",
              f"{'N':>6}  " + "  ".join(f"{label:>{width}}" for label in labels)]
    lines += [f"{v:>6}  " + "  ".join(f"{_percent(curve[v][s]):>{width}}" for s in range(n))
              for v in marks]
    lines += ["", f"The costliest decisions (expert bot: {analysis.iterations} iterations of "
              "search from the seat's view)"]
    for s, label in enumerate(labels):
        lines.append(f"{label}:")
        costly = analysis.costly[s]
        if not costly:
            lines.append("  no decision lowered its chance")
        for rank, item in enumerate(costly, 1):
            lines += [f"  {rank}. decision {item.version + 1}: {item.played!r} "
                      f"{_percent(item.before).strip()} → {_percent(item.after).strip()} "
                      f"({_points(-item.cost)})", "     " + _better(item)]
    return lines


def _better(item: CostlyDecision) -> str:
    if item.better == item.played:
        return "the expert bot would have played the same"
    judged = ("both by the search" if item.better_source == item.played_source == "search"
              else f"{item.better!r} by the {item.better_source}, the move played by "
              f"the {item.played_source}")
    if item.kept > 0:
        return (f"the expert bot would have played {item.better!r}, keeping "
                f"{_points(item.kept)} ({judged})")
    return (f"the expert bot would have played {item.better!r}, which keeps nothing more "
            f"({_points(item.kept)}, {judged})")
