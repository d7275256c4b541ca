"""No import circles among stickler_cli's modules: arrows run one way, down to the engine.

The graph is read from the source (ast), so it holds whatever the tests happen to import. Counted:
every ``import`` and ``from ... import`` of a stickler_cli module, at the top of a module and inside
functions alike (a function-level import is still an arrow: it only runs later). Not counted:
imports under ``if TYPE_CHECKING:`` (never run), the implicit import of a parent package's
``__init__`` (every submodule has that arrow), and modules imported by a name held in a string
(comparators/registry.py imports the built-in comparator modules so, and none of them imports
registry.py back).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "stickler_cli"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, whether it is a package's __init__)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(name: str, path: Path, is_package: bool, modules: dict) -> set[str]:
    """The stickler_cli modules that module ``name`` imports."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names if alias.name.split(".")[0] == PACKAGE.name)
            elif isinstance(child, ast.ImportFrom):
                base = name.split(".") if is_package else name.split(".")[:-1]
                if child.level:
                    base = base[:len(base) - (child.level - 1)]
                    target = ".".join([*base, child.module] if child.module else base)
                else:
                    target = child.module or ""
                if target.split(".")[0] != PACKAGE.name:
                    continue
                for alias in child.names:  # `from . import engine` imports a module; `from .engine import X` a name
                    submodule = f"{target}.{alias.name}"
                    found.add(submodule if submodule in modules else target)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, is_package, modules) & set(modules) for name, (path, is_package) in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_no_module_imports_itself_back():
    graph = _graph()
    cycles = _cycles(graph)
    described = [" <-> ".join(cycle) + ": " + "; ".join(f"{a} -> {b}" for a in cycle for b in sorted(graph[a] & set(cycle)))
                 for cycle in cycles]
    assert not cycles, described


def test_the_checker_sees_a_function_level_circle():
    """What the checker is for: the circle the run machinery had (evaluate imported parallel in a
    function, parallel imported evaluate in another) is found."""
    graph = _graph()
    graph["stickler_cli.run.scoring"] = graph["stickler_cli.run.scoring"] | {"stickler_cli.run.evaluate"}
    assert any({"stickler_cli.run.evaluate", "stickler_cli.run.scoring"} <= set(cycle) for cycle in _cycles(graph))


def test_the_run_machinery_points_down():
    graph = _graph()
    above = {"stickler_cli.run.evaluate", "stickler_cli.run.parallel", "stickler_cli.run.distributed", "stickler_cli.cli.app"}
    assert not graph["stickler_cli.run.scoring"] & above
    assert "stickler_cli.run.scoring" in graph["stickler_cli.run.parallel"] and "stickler_cli.run.scoring" in graph["stickler_cli.run.distributed"]
    assert "stickler_cli.run.evaluate" not in graph["stickler_cli.run.parallel"] | graph["stickler_cli.run.distributed"]


def test_the_comparator_tables_point_down():
    """names.py holds the tables; plugins.py fills them; registry.py looks names up in both."""
    graph = _graph()
    registry, plugins, names = (f"stickler_cli.comparators.{m}" for m in ("registry", "plugins", "names"))
    assert not graph[names] & {registry, plugins}
    assert registry not in graph[plugins]
    assert not any(registry in graph[f"stickler_cli.comparators.{m}"] for m in (
        "exact", "levenshtein", "numeric", "fuzzy", "llm", "date", "semantic", "bert", "bbox", "anls",
        "normalized", "phone", "structured", "embedding", "base"))
