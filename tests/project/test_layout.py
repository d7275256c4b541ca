"""The package's layout: folders that show the flow, arrows that run one way, down.

The graph is read from the source (ast), so it holds whatever the tests happen to import. Counted:
every ``import`` and ``from ... import`` of a stickler_cli module, at the top of a module, inside
functions (a function-level import is still an arrow: it only runs later) and under
``if TYPE_CHECKING:`` (an annotation that names a module above is an arrow up all the same: the
type checker follows it, and so does a reader). Not counted: the implicit import of a parent
package's ``__init__`` (every submodule has that arrow), and modules imported by a name held in a
string (comparators/registry.py imports the built-in comparator modules so, and none of them
imports registry.py back).

Held here (issue 38, "The house"):
- no import circles;
- the layer order of ``LAYERS``: every module belongs to one layer, and imports only its own layer
  or a layer below (a module or folder that no layer names fails, so none is added silently);
- at most ``MAX_LOOSE`` loose modules at the top of the package besides ``errors``, ``limits``,
  ``version`` and ``plan``, and the folders that show the flow exist;
- no function of ``run/`` takes more than ``MOST_PARAMETERS`` parameters (the options travel as
  ``RunOptions``, one object).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "stickler_cli"

# Top to bottom. Each layer names the package's folders and top-level modules it holds; a module
# belongs to the layer of its top-level folder (or is itself a top-level module). The package's
# own __init__ (the --version script's lazy names) and __main__ sit at the top, with the CLI.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("cli", frozenset({"cli", "__init__", "__main__"})),
    ("reporters", frozenset({"reporters"})),
    ("report", frozenset({"report"})),
    ("run", frozenset({"run"})),
    ("analyses", frozenset({"analyses"})),
    ("engine", frozenset({"engine"})),
    ("schema", frozenset({"schema"})),
    ("plan", frozenset({"plan"})),
    ("comparators", frozenset({"comparators"})),
    ("confidence", frozenset({"confidence"})),
    ("packets", frozenset({"packets"})),
    ("basics", frozenset({"errors", "limits", "version", "json_text", "number_text", "ascii_text", "extras"})),
)

FOLDERS = ("cli", "reporters", "report", "run", "analyses", "engine", "schema", "comparators", "confidence", "packets")
# Loose top-level modules allowed besides these (and __init__ / __main__): small basics only.
NOT_LOOSE = {"errors", "limits", "version", "plan", "__init__", "__main__"}
MAX_LOOSE = 6


@functools.cache
def _modules() -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, whether it is a package's __init__). Read once: treat as read-only."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _imports(name: str, path: Path, is_package: bool, modules: dict) -> dict[str, int]:
    """The stickler_cli modules that module ``name`` imports -> the line of the first such import."""
    found: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        found.setdefault(target, line)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE.name:
                    add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = name.split(".") if is_package else name.split(".")[:-1]
            if node.level:
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE.name:
                continue
            for alias in node.names:  # `from . import engine` imports a module; `from .engine import X` a name
                submodule = f"{target}.{alias.name}"
                add(submodule if submodule in modules else target, node.lineno)
    found.pop(name, None)
    return {target: line for target, line in found.items() if target in modules}


@functools.cache
def _read_arrows() -> dict[str, dict[str, int]]:
    modules = _modules()
    return {name: _imports(name, path, is_package, modules) for name, (path, is_package) in modules.items()}


def _arrows() -> dict[str, dict[str, int]]:
    """Module -> {imported module -> line}: the source is parsed once; each caller gets its own copy."""
    return {name: dict(targets) for name, targets in _read_arrows().items()}


def _graph() -> dict[str, set[str]]:
    return {name: set(targets) for name, targets in _arrows().items()}


def _where(module: str) -> str:
    """The file of a module, relative to the repository, for messages."""
    path, _ = _modules()[module]
    return str(path.relative_to(PACKAGE.parent))


def _layer(module: str) -> int | None:
    """The index of a module's layer in LAYERS (0 = top), or None if no layer names it."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    for index, (_, members) in enumerate(LAYERS):
        if top in members:
            return index
    return None


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
    arrows = _arrows()
    graph = {name: set(targets) for name, targets in arrows.items()}
    cycles = _cycles(graph)
    described = [
        "circle of "
        + ", ".join(cycle)
        + ": "
        + "; ".join(f"{a} -> {b} ({_where(a)}:{arrows[a][b]})" for a in cycle for b in sorted(graph[a] & set(cycle)))
        for cycle in cycles
    ]
    assert not cycles, "\n".join(described)


def test_every_module_belongs_to_a_layer():
    loose = sorted(name for name in _modules() if _layer(name) is None)
    assert not loose, "modules that no layer of LAYERS names (add their folder or module to one): " + ", ".join(
        f"{name} ({_where(name)})" for name in loose
    )


def _arrows_up(arrows: dict[str, dict[str, int]]) -> list[str]:
    """Each import from a layer to one above it, as ``module (layer) -> module (layer) at file:line``."""
    up = []
    for name, targets in sorted(arrows.items()):
        source_layer = _layer(name)
        for target, line in sorted(targets.items()):
            target_layer = _layer(target)
            if source_layer is not None and target_layer is not None and target_layer < source_layer:
                up.append(
                    f"{name} ({LAYERS[source_layer][0]}) -> {target} ({LAYERS[target_layer][0]}) at {_where(name)}:{line}"
                )
    return up


def test_every_import_points_down_or_within_its_layer():
    up = _arrows_up(_arrows())
    assert not up, f"{len(up)} imports run up the layers:\n" + "\n".join(up)


def test_the_folders_show_the_flow_and_few_modules_are_loose():
    missing = [folder for folder in FOLDERS if not (PACKAGE / folder / "__init__.py").is_file()]
    assert not missing, f"folders missing from stickler_cli/: {missing}"
    loose = sorted(path.stem for path in PACKAGE.glob("*.py") if path.stem not in NOT_LOOSE)
    assert len(loose) <= MAX_LOOSE, (
        f"{len(loose)} loose modules at the top of stickler_cli/ (at most {MAX_LOOSE}): {loose}"
    )


def test_the_checker_sees_an_arrow_up_and_a_type_checking_import():
    """What the checkers are for: an import under ``if TYPE_CHECKING:`` is an arrow (plan.py names
    the comparators' base class so), an arrow from the engine to the run machinery is an arrow up,
    and a module that no layer names has no layer."""
    arrows = _arrows()
    assert "stickler_cli.comparators" in arrows["stickler_cli.plan"]
    arrows["stickler_cli.engine.values"] = {**arrows["stickler_cli.engine.values"], "stickler_cli.run.scoring": 1}
    assert any(
        arrow.startswith("stickler_cli.engine.values (engine) -> stickler_cli.run.scoring (run)")
        for arrow in _arrows_up(arrows)
    )
    assert _layer("stickler_cli.nobody_placed_this") is None and _layer("stickler_cli.new_folder.module") is None


def test_the_checker_sees_a_function_level_circle():
    """What the checker is for: the circle the run machinery had (evaluate imported parallel in a
    function, parallel imported evaluate in another) is found."""
    graph = _graph()
    graph["stickler_cli.run.scoring"] = graph["stickler_cli.run.scoring"] | {"stickler_cli.run.evaluate"}
    assert any({"stickler_cli.run.evaluate", "stickler_cli.run.scoring"} <= set(cycle) for cycle in _cycles(graph))


def test_the_run_machinery_points_down():
    graph = _graph()
    above = {
        "stickler_cli.run.evaluate",
        "stickler_cli.run.parallel",
        "stickler_cli.run.distributed",
        "stickler_cli.cli.app",
    }
    assert not graph["stickler_cli.run.scoring"] & above
    assert (
        "stickler_cli.run.scoring" in graph["stickler_cli.run.parallel"]
        and "stickler_cli.run.scoring" in graph["stickler_cli.run.distributed"]
    )
    assert "stickler_cli.run.evaluate" not in graph["stickler_cli.run.parallel"] | graph["stickler_cli.run.distributed"]


def test_the_comparator_tables_point_down():
    """names.py holds the tables; plugins.py fills them; registry.py looks names up in both."""
    graph = _graph()
    registry, plugins, names = (f"stickler_cli.comparators.{m}" for m in ("registry", "plugins", "names"))
    assert not graph[names] & {registry, plugins}
    assert registry not in graph[plugins]
    assert not any(
        registry in graph[f"stickler_cli.comparators.{m}"]
        for m in (
            "exact",
            "levenshtein",
            "numeric",
            "fuzzy",
            "llm",
            "date",
            "semantic",
            "bert",
            "bbox",
            "anls",
            "normalized",
            "phone",
            "structured",
            "embedding",
            "base",
        )
    )


# -- item 2 of issue 38: options are objects, so no function of run/ takes a dozen loose arguments --

RUN = PACKAGE / "run"
MOST_PARAMETERS = 7


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """A function's parameters, ``self`` and ``cls`` not counted, ``*args`` and ``**kwargs`` counted."""
    a = function.args
    names = [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return names[1:] if names[:1] in (["self"], ["cls"]) else names


def _too_many(source: str) -> list[tuple[str, int]]:
    return [
        (node.name, len(_parameters(node)))
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(_parameters(node)) > MOST_PARAMETERS
    ]


def test_no_function_of_run_takes_more_than_seven_parameters():
    found = {
        f"{path.relative_to(PACKAGE.parent)}:{name}": count
        for path in sorted(RUN.rglob("*.py"))
        for name, count in _too_many(path.read_text(encoding="utf-8"))
    }
    assert found == {}


def test_the_parameter_count_finds_the_evaluate_files_of_before():
    """What the check is for: ``evaluate_files`` took 13 parameters before its options became one object."""
    before = (
        "def evaluate_files(plan, gt_path, pred_path=None, id_field=None, strict=False, workers=1, plugins=(),\n"
        "                   progress=None, dask=None, analysis=None, sinks=None, pair_by_line=False,\n"
        "                   check_ids=None):\n    pass\n"
        "class Pool:\n    def submit(self, a, b, c, d, e, f, g):\n        pass\n"
    )
    assert _too_many(before) == [("evaluate_files", 13)]
