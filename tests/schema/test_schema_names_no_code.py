"""A schema, and the schema a state file embeds, never names code (issue 15, item 7).

``embedding_function: "subprocess:getoutput"`` once ran every data value as a shell command,
and any importable module named there was imported by ``stickler schema check`` and by
``stickler merge``. Now a schema picks only among names the user registered (``--plugin``,
installed entry points); the same holds for a model directory, whose ``modules.json`` names
classes that sentence-transformers would import.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from stickler_cli import compile_schema
from stickler_cli.comparators import registry
from stickler_cli.errors import SchemaError

ROOT = Path(__file__).resolve().parents[2]
POINTER = "/properties/name/x-aws-stickler-comparator-config/embedding_function"
CODE_NAMES = ["subprocess:getoutput", "os:system", "builtins:eval", "stickler_sentinel_mod:embed"]


@pytest.fixture
def sentinel(tmp_path: Path) -> tuple[Path, Path]:
    """(a directory to put on PYTHONPATH, the file its module creates when imported)."""
    site = tmp_path / "site"
    site.mkdir()
    marker = tmp_path / "IMPORTED"
    (site / "stickler_sentinel_mod.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "def embed(texts):\n"
        "    return [[1.0] for _ in texts]\n"
        "class Thing:\n"
        "    pass\n"
    )
    return site, marker


def _schema(tmp_path: Path, config: dict) -> Path:
    path = tmp_path / "schema.json"
    path.write_bytes(
        orjson.dumps(
            {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "x-aws-stickler-comparator": "SemanticComparator",
                        "x-aws-stickler-comparator-config": config,
                    }
                },
            }
        )
    )
    return path


def _run(args: list[str], site: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "stickler_cli", *args], capture_output=True, env=env, cwd=cwd, timeout=300
    )


@pytest.mark.parametrize("name", CODE_NAMES)
def test_compiling_a_schema_that_names_code_imports_nothing(name, sentinel, monkeypatch):
    site, marker = sentinel
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(SchemaError) as err:
        compile_schema(
            {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "x-aws-stickler-comparator": "SemanticComparator",
                        "x-aws-stickler-comparator-config": {"embedding_function": name},
                    }
                },
            }
        )
    assert err.value.pointer == POINTER
    assert f"embedding_function {name!r} is not registered" in err.value.message
    assert "a schema names no code" in err.value.message
    assert "stickler_sentinel_mod" not in sys.modules and not marker.exists()


@pytest.mark.parametrize("name", CODE_NAMES)
def test_schema_check_and_eval_refuse_a_schema_that_names_code(name, sentinel, tmp_path):
    site, marker = sentinel
    shell_marker = tmp_path / "RAN"
    schema = _schema(tmp_path, {"embedding_function": name})
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    command = f"touch {shell_marker}"  # what getoutput / system / eval would run as the data value
    gt.write_bytes(orjson.dumps({"name": command}) + b"\n")
    pred.write_bytes(orjson.dumps({"name": f"__import__('os').system({command!r})"}) + b"\n")
    for args in (
        ["schema", "check", str(schema)],
        ["eval", str(schema), str(gt), str(pred)],
        ["compare", str(schema), gt.read_text(), pred.read_text()],
    ):
        done = _run(args, site, tmp_path)
        err = done.stderr.decode()
        assert done.returncode == 2, (args, err)
        assert err.count("\n") == 1 and POINTER in err and "is not registered" in err, err
    assert not marker.exists(), "the module named by the schema was imported"
    assert not shell_marker.exists(), "a data value was run as code"


def test_merge_refuses_a_state_whose_schema_names_code(sentinel, tmp_path, monkeypatch):
    """A genuine state file (written by stickler, hash and all) of a schema naming code: merging it
    compiles the embedded schema, which must not import anything."""
    from stickler_cli.run import state_file
    from stickler_cli.run.accumulate import Collect
    from stickler_cli.run.evaluate import evaluate_pairs
    from tests.support.embeddings import letter_counts

    site, marker = sentinel
    schema = _schema(tmp_path, {"embedding_function": "stickler_sentinel_mod:embed"})
    # Written the way stickler writes states, with the name smuggled into the registry of this
    # process only (register_embedding itself refuses names with ':').
    monkeypatch.setitem(registry._EMBEDDINGS, "stickler_sentinel_mod:embed", letter_counts)
    from stickler_cli.schema import load_schema

    plan = load_schema(str(schema))
    acc = evaluate_pairs(plan, [({"name": "abc"}, {"name": "abd"})], Collect(index=True))
    state = tmp_path / "run.state.json"
    state_file.save(str(state), acc)
    assert (
        orjson.loads(state.read_bytes())["schema"]["properties"]["name"]["x-aws-stickler-comparator-config"][
            "embedding_function"
        ]
        == "stickler_sentinel_mod:embed"
    )
    assert not marker.exists()

    done = _run(["merge", str(state)], site, tmp_path)
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert err.count("\n") == 1 and POINTER in err and "is not registered" in err, err
    assert not marker.exists(), "merging imported the module the state's schema named"


def test_a_model_directory_named_by_a_schema_is_never_loaded(sentinel, tmp_path):
    """sentence-transformers imports the classes a model directory's modules.json names."""
    site, marker = sentinel
    model = tmp_path / "evil-model"
    model.mkdir()
    (model / "modules.json").write_text(
        orjson.dumps([{"idx": 0, "name": "0", "path": "", "type": "stickler_sentinel_mod.Thing"}]).decode()
    )
    (model / "config_sentence_transformers.json").write_text("{}")
    schema = _schema(tmp_path, {"model": str(model)})
    for args in (["schema", "check", str(schema)],):
        done = _run(args, site, tmp_path)
        err = done.stderr.decode()
        assert done.returncode == 2, err
        assert err.count("\n") == 1 and "/properties/name/x-aws-stickler-comparator-config/model" in err
        assert "is not one stickler knows" in err and "register_model" in err
    assert not marker.exists()


def test_model_names_are_the_bundled_one_or_registered(monkeypatch):
    pytest.importorskip("sentence_transformers")
    for name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        compile_schema(
            {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "x-aws-stickler-comparator": "BERTComparator",
                        "x-aws-stickler-comparator-config": {"model": name},
                    }
                },
            }
        )
    with pytest.raises(SchemaError) as err:
        compile_schema(
            {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "x-aws-stickler-comparator": "SemanticComparator",
                        "x-aws-stickler-comparator-config": {"model_id": "/models/x"},
                    }
                },
            }
        )
    assert err.value.pointer == "/properties/name/x-aws-stickler-comparator-config/model_id"
    monkeypatch.setitem(registry._MODELS, "local-minilm", "/models/x")
    compile_schema(
        {
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "x-aws-stickler-comparator": "SemanticComparator",
                    "x-aws-stickler-comparator-config": {"model": "local-minilm"},
                }
            },
        }
    )


# Where a string may become code, and why each is safe: a constant module name, the built-in
# comparator modules, and --plugin (the user's command line). Anything new here needs a reason.
ALLOWED_IMPORTS = {
    ("comparators/registry.py", 'importlib.import_module(f"{__package__}.{module_name}")'),
    ("comparators/embedding.py", "importlib.import_module(BUNDLED_PACKAGE)"),
    ("comparators/plugins.py", "importlib.import_module(spec)"),
    ("comparators/plugins.py", "importlib.util.spec_from_file_location(module_name, path)"),
    # scipy's compiled assignment module: a constant name in the installed scipy's own directory.
    ("engine/scipy_lsap.py", "spec = importlib.util.spec_from_file_location(MODULE, path, loader=loader)"),
    # _EntryPoints.group is one of the two constant groups (made only at import time).
    ("comparators/plugins.py", "metadata.entry_points(group=self.group)"),
}
DYNAMIC = re.compile(
    r"import_module\(|__import__\(|spec_from_file_location\(|pydoc|\.locate\(|"
    # The builtins eval/exec, not a method of that name (the pytest plugin's ``stickler.eval``, its ``def eval``).
    r"(?<![\w.])(?<!def )eval\(|(?<![\w.])(?<!def )exec\(|entry_points\(group=(?!ENTRY_POINT_GROUP\)|EMBEDDING_ENTRY_POINT_GROUP\))"
)


def test_the_package_turns_no_other_string_into_code():
    package = ROOT / "stickler_cli"
    unexpected = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).as_posix()
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not DYNAMIC.search(line) or line.lstrip().startswith("#"):
                continue
            if not any(where == allowed_file and allowed in line for allowed_file, allowed in ALLOWED_IMPORTS):
                unexpected.append(f"{where}:{number}: {line.strip()}")
    assert not unexpected, unexpected
