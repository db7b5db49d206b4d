"""The engine's shape (STYLE: imports point one way): ``kaladan.rules`` imports only the
standard library and itself, no two of its modules import each other (not even for type
checking), and none imports inside a function to dodge a cycle."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from kaladan.rules.gamelog import ENTRY_KINDS

RULES = Path(__file__).resolve().parents[1] / "src" / "kaladan" / "rules"
DOCS = Path(__file__).resolve().parents[1] / "docs"


def module_name(path: Path) -> str:
    parts = path.relative_to(RULES.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[ast.ImportFrom | ast.Import, bool]]:
    """Every import of a module, and whether it sits inside a function."""
    tree = ast.parse(path.read_text("utf-8"))
    out: list[tuple[ast.ImportFrom | ast.Import, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                out.append((child, in_function))
            visit(child, inside)

    visit(tree, False)
    return out


def graph() -> dict[str, set[str]]:
    """Module -> the engine modules it imports (relative imports resolved)."""
    edges: dict[str, set[str]] = {}
    for path in RULES.rglob("*.py"):
        name = module_name(path)
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps: set[str] = set()
        for node, _ in imports(path):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:
                    deps.update(f"{target}.{alias.name}" for alias in node.names)
                else:
                    deps.add(target)
        edges[name] = deps
    return {name: {d for d in deps if d in edges and d != name} for name, deps in edges.items()}


def type_checking_imports(path: Path) -> set[int]:
    """The lines of the imports under ``if TYPE_CHECKING:``, which never run."""
    tree = ast.parse(path.read_text("utf-8"))
    return {child.lineno for node in ast.walk(tree)
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
            for child in node.body if isinstance(child, (ast.Import, ast.ImportFrom))}


def test_the_engine_imports_only_the_standard_library_and_itself() -> None:
    """At run time. For the type checker and the compiler, ``native`` imports
    ``mypy_extensions`` (the compiler's class attributes) and nothing else does."""
    for path in RULES.rglob("*.py"):
        compiler_only = type_checking_imports(path)
        for node, _ in imports(path):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            if (node.lineno in compiler_only and path.name == "native.py"
                    and isinstance(node, ast.ImportFrom) and node.module == "mypy_extensions"):
                continue
            names = [node.module] if isinstance(node, ast.ImportFrom) else [
                alias.name for alias in node.names]
            for name in names:
                assert name is not None
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "kaladan" and name.startswith(
                    "kaladan.rules"), (path.name, name)


def test_no_import_inside_a_function() -> None:
    inside = [(path.name, node.lineno) for path in RULES.rglob("*.py")
              for node, in_function in imports(path) if in_function]
    assert inside == []


def find_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    return cycles


def test_the_engine_modules_import_each_other_without_a_cycle() -> None:
    edges = graph()
    # The package __init__ imports the card effects to register them; every module's import
    # also runs the package __init__, which Python resolves without a cycle of modules.
    edges.pop("rules", None)
    assert find_cycles(edges) == []


def test_the_check_sees_the_imports_and_finds_cycles() -> None:
    """The graph holds the engine's real imports (combat imports legal, never back), and a
    cycle such as the one ``actions`` and ``state`` had is found."""
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    edges = graph()
    assert "rules.legal" in edges["rules.combat"]
    assert "rules.combat" not in edges["rules.legal"]
    assert "rules.flow" not in edges["rules.events"]


def test_every_log_entry_kind_is_documented() -> None:
    formats = (DOCS / "formats.md").read_text("utf-8")
    for kind in ENTRY_KINDS:
        assert f"| `{kind}` |" in formats, kind
