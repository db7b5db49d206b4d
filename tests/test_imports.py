"""Import rules of the whole package (STYLE: imports point one way), measured from the code's
own imports, those inside functions and under ``if TYPE_CHECKING:`` included: no import
circle anywhere in ``src/kaladan``; no module of ``bots/`` imports ``env/`` (the research
adapters sit above the bots; the trained policy registers itself, docs/bots.md); ``rules/``
imports nothing of ours outside itself."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "kaladan"


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported(path: Path, name: str, known: Mapping[str, Path]) -> set[str]:
    """The modules of ours that the module at ``path`` imports anywhere in its text. ``from
    . import x`` imports the submodule ``x`` when there is one (the package itself is
    imported first anyway, as for every submodule), else the package."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in known:
                    out.add(submodule)
                elif target in known:
                    out.add(target)
    out.discard(name)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imported(path, name, known) for name, path in known.items()}


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_planted_circle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_imports_inside_functions_and_for_the_type_checker() -> None:
    edges = graph()
    assert "kaladan.sim.runner" in edges["kaladan.sim.frames"]  # under TYPE_CHECKING
    assert "kaladan.server.app" in edges["kaladan.server"]  # inside __getattr__
    assert "kaladan.rules.combat" in edges["kaladan.rules.handlers"]  # from . import combat


def test_no_import_circle_anywhere() -> None:
    found = cycles(graph())
    assert found == [], "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_bots_never_import_the_environments() -> None:
    edges = graph()
    upward = sorted((m, d) for m, deps in edges.items() if m.startswith("kaladan.bots")
                    for d in deps if d.startswith("kaladan.env"))
    assert upward == []


def test_the_engine_imports_nothing_of_ours_outside_itself() -> None:
    edges = graph()
    outside = sorted((m, d) for m, deps in edges.items()
                     if m == "kaladan.rules" or m.startswith("kaladan.rules.")
                     for d in deps if not (d == "kaladan.rules" or d.startswith("kaladan.rules.")))
    assert outside == []
