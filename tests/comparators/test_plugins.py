"""Custom comparators without forking: an installed entry-point package and --plugin modules."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from stickler_cli import compile_schema
from stickler_cli.cli.app import main
from stickler_cli.comparators import lookup, plugins, registry
from stickler_cli.errors import SchemaError

SUPPORT = Path(__file__).parents[1] / "support"


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    """Install tests/support/plugin_package with pip into a directory of its own."""
    work = tmp_path_factory.mktemp("plugin")
    source = work / "src"
    shutil.copytree(SUPPORT / "plugin_package", source)
    site = work / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(site),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert (site / "stickler_plugin_demo-0.1.0.dist-info" / "entry_points.txt").is_file()
    return site


@pytest.fixture
def installed(plugin_site, monkeypatch):
    """The plugin package importable and discoverable in this process, as if pip-installed here."""
    monkeypatch.syspath_prepend(str(plugin_site))
    plugins.reset_entry_points()
    yield plugin_site
    plugins.reset_entry_points()
    for key in [k for k, v in registry._BY_NAME.items() if v.__module__ == "stickler_plugin_demo"]:
        del registry._BY_NAME[key]
    registry._EMBEDDINGS.pop("demo-vowels", None)


def _schema(tmp_path: Path, comparator: str, config: dict | None = None) -> Path:
    node = {"type": "string", "x-aws-stickler-comparator": comparator, "x-aws-stickler-threshold": 1.0}
    if config is not None:
        node["x-aws-stickler-comparator-config"] = config
    path = tmp_path / "schema.json"
    path.write_bytes(orjson.dumps({"type": "object", "properties": {"code": node}}))
    return path


def _data(tmp_path: Path, pairs: list[tuple[str, str]]) -> tuple[Path, Path]:
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text("".join(orjson.dumps({"code": a}).decode() + "\n" for a, _ in pairs))
    pred.write_text("".join(orjson.dumps({"code": b}).decode() + "\n" for _, b in pairs))
    return gt, pred


def _cli(args: list[str], env_path: Path | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if env_path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(env_path), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "stickler_cli", *args], capture_output=True, env=env, cwd=cwd, timeout=120
    )


def test_entry_point_comparator_is_found_by_name_in_a_schema(installed):
    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "x-aws-stickler-comparator": "PrefixComparator",
                    "x-aws-stickler-comparator-config": {"length": 2},
                }
            },
        }
    )
    comparator = plan.fields[0].comparator
    assert comparator.similarity("INV-1", "in-2") == 1.0
    assert comparator.similarity("INV-1", "IX") == 0.0
    assert lookup("prefix") is type(comparator)


def test_entry_point_comparator_config_is_validated(installed):
    with pytest.raises(SchemaError) as err:
        compile_schema(
            {
                "type": "object",
                "properties": {
                    "code": {
                        "type": "string",
                        "x-aws-stickler-comparator": "PrefixComparator",
                        "x-aws-stickler-comparator-config": {"lenght": 2},
                    }
                },
            }
        )
    assert "did you mean 'length'" in str(err.value)
    assert err.value.pointer == "/properties/code/x-aws-stickler-comparator-config/lenght"


def test_installed_plugin_in_the_cli(plugin_site, tmp_path):
    schema = _schema(tmp_path, "PrefixComparator", {"length": 3})
    gt, pred = _data(tmp_path, [("INV-001", "inv-999"), ("PO-1", "INV-1")])
    done = _cli(["eval", str(schema), str(gt), str(pred), "--format", "json"], env_path=plugin_site)
    assert done.returncode == 0, done.stderr.decode()
    code = orjson.loads(done.stdout)["field_metrics"]["code"]
    assert (code["tp"], code["fd"]) == (1, 1)
    listing = _cli(["comparators", "--format", "json"], env_path=plugin_site)
    entry = next(e for e in orjson.loads(listing.stdout) if e["name"] == "PrefixComparator")
    assert entry["builtin"] is False and entry["module"] == "stickler_plugin_demo"
    assert entry["options"] == [
        {
            "name": "length",
            "type": "int",
            "default": 3,
            "nullable": False,
            "choices": None,
            "help": "how many leading characters must agree",
        }
    ]


def test_without_the_package_the_name_is_unknown(tmp_path):
    schema = _schema(tmp_path, "PrefixComparator")
    gt, pred = _data(tmp_path, [("a", "a")])
    done = _cli(["eval", str(schema), str(gt), str(pred)])
    assert done.returncode == 2
    assert done.stderr.decode().count("\n") == 1
    assert "unknown comparator 'PrefixComparator'" in done.stderr.decode()


@pytest.mark.parametrize("spec", ["tests.support.shout_plugin", "tests/support/shout_plugin.py"])
def test_plugin_option_by_module_or_file(spec, tmp_path):
    root = Path(__file__).parents[2]
    schema = _schema(tmp_path, "ShoutComparator")
    gt, pred = _data(tmp_path, [("abc", "ABC"), ("abc", "xyz"), ("abc", "toolong")])
    done = _cli(["eval", str(schema), str(gt), str(pred), "--plugin", spec, "--format", "json"], cwd=root)
    assert done.returncode == 0, done.stderr.decode()
    report = orjson.loads(done.stdout)
    code = report["field_metrics"]["code"]
    # 1.0 (tp), 0.5 (fd, below 1.0), 0.0 (fd)
    assert (code["tp"], code["fd"]) == (1, 2)
    assert code["mean_score"] == pytest.approx(0.5)  # clip is off: (1.0 + 0.5 + 0.0) / 3


@pytest.mark.parametrize(
    "spec, message",
    [
        ("no_such_plugin_module", "cannot import plugin 'no_such_plugin_module': ModuleNotFoundError"),
        ("missing/file.py", "plugin file not found: missing/file.py"),
        (
            "json",
            "plugin 'json' defines no Comparator subclass with a 'name' and registers no embedding function or model",
        ),
    ],
)
def test_bad_plugins_are_usage_errors(spec, message, tmp_path, capsys):
    schema = _schema(tmp_path, "ExactComparator")
    gt, pred = _data(tmp_path, [("a", "a")])
    assert main(["eval", str(schema), str(gt), str(pred), "--plugin", spec]) == 2
    err = capsys.readouterr().err
    assert err == f"stickler: error: {message}\n" or (message in err and err.count("\n") == 1)


def test_a_plugin_cannot_take_a_builtin_name(tmp_path, capsys):
    module = tmp_path / "impostor.py"
    module.write_text(
        "from stickler_cli.comparators import Comparator\n"
        "class Impostor(Comparator):\n"
        "    name = 'ExactComparator'\n"
        "    def similarity(self, gt, pred):\n"
        "        return 1.0\n"
    )
    schema = _schema(tmp_path, "ExactComparator")
    gt, pred = _data(tmp_path, [("a", "b")])
    assert main(["eval", str(schema), str(gt), str(pred), "--plugin", str(module)]) == 2
    err = capsys.readouterr().err
    assert "comparator name 'ExactComparator'" in err and "already taken by stickler_cli.comparators.exact" in err
    assert lookup("ExactComparator").__module__ == "stickler_cli.comparators.exact"


def test_a_broken_entry_point_does_not_stop_other_runs(tmp_path, monkeypatch):
    site = tmp_path / "site"
    dist = site / "broken_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[stickler.comparators]\nbroken = no_such_module_here\n")
    monkeypatch.syspath_prepend(str(site))
    plugins.reset_entry_points()
    try:
        assert lookup("ExactComparator")  # built-ins need no plugin loading
        with pytest.raises(Exception) as err:
            lookup("SomethingElse")
        assert "entry point 'broken' (no_such_module_here) failed to load: ModuleNotFoundError" in str(err.value)
    finally:
        plugins.reset_entry_points()


def test_the_documented_example_plugin_works(tmp_path):
    """The plugin of docs/comparators/index.md, "Custom comparators", as the page shows it."""
    page = (Path(__file__).parents[2] / "docs" / "comparators" / "index.md").read_text()
    start = page.index("# my_comparators/__init__.py")
    code = page[start : page.index("```", start)]
    package = tmp_path / "my_comparators"
    package.mkdir()
    (package / "__init__.py").write_text(code)
    schema = tmp_path / "schema.json"
    schema.write_bytes(
        orjson.dumps(
            {
                "type": "object",
                "properties": {
                    "sku": {
                        "type": "string",
                        "x-aws-stickler-comparator": "SkuComparator",
                        "x-aws-stickler-comparator-config": {"prefix": "ACME-"},
                        "x-aws-stickler-threshold": 1.0,
                    }
                },
            }
        )
    )
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text('{"sku": "ACME-AB-12"}\n{"sku": "ACME-AB-12"}\n')
    pred.write_text('{"sku": "ab12"}\n{"sku": "AB-13"}\n')
    done = _cli(
        ["eval", "schema.json", "gt.jsonl", "pred.jsonl", "--plugin", "my_comparators", "--format", "json"],
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr.decode()
    sku = orjson.loads(done.stdout)["field_metrics"]["sku"]
    assert (sku["tp"], sku["fd"]) == (1, 1)


# -- embedding functions and models: registered by the user's code, named by schemas ------------


def _semantic_schema(tmp_path: Path, config: dict) -> Path:
    path = tmp_path / "schema.json"
    path.write_bytes(
        orjson.dumps(
            {
                "type": "object",
                "properties": {
                    "code": {
                        "type": "string",
                        "x-aws-stickler-comparator": "SemanticComparator",
                        "x-aws-stickler-comparator-config": config,
                        "x-aws-stickler-threshold": 0.9,
                    }
                },
            }
        )
    )
    return path


def test_entry_point_embedding_function_is_found_by_name(installed):
    import math

    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "x-aws-stickler-comparator": "SemanticComparator",
                    "x-aws-stickler-comparator-config": {"embedding_function": "demo-vowels"},
                }
            },
        }
    )
    comparator = plan.fields[0].comparator
    # vowels (a, e, i, o, u): "aei" (1,1,1,0,0) vs "aa" (2,0,0,0,0): 2 / (sqrt 3 * 2)
    assert comparator.similarity("aei", "aa") == pytest.approx(1 / math.sqrt(3), abs=1e-12)
    assert comparator.similarity("xyz", "aei") == 0.0


def test_installed_embedding_function_in_the_cli(plugin_site, tmp_path):
    schema = _semantic_schema(tmp_path, {"embedding_function": "demo-vowels"})
    gt, pred = _data(tmp_path, [("banana", "bandana"), ("oui", "ax")])
    done = _cli(["eval", str(schema), str(gt), str(pred), "--format", "json"], env_path=plugin_site)
    assert done.returncode == 0, done.stderr.decode()
    code = orjson.loads(done.stdout)["field_metrics"]["code"]
    assert (code["tp"], code["fd"]) == (1, 1)  # (3 a) vs (3 a): 1.0; (0,0,1,1,1) vs (1,0,0,0,0): 0.0
    assert code["mean_score"] == pytest.approx(0.5)


def test_a_plugin_module_registers_an_embedding_function_by_decorator(tmp_path):
    module = tmp_path / "my_embeddings.py"
    module.write_text(
        "from stickler_cli.comparators import register_embedding\n"
        "@register_embedding('lengths')\n"
        "def lengths(texts):\n"
        "    return [[float(len(t)), 1.0] for t in texts]\n"
    )
    schema = _semantic_schema(tmp_path, {"embedding_function": "lengths"})
    gt, pred = _data(tmp_path, [("abc", "xyz"), ("a", "abc")])
    done = _cli(["eval", str(schema), str(gt), str(pred), "--plugin", str(module), "--format", "json"])
    assert done.returncode == 0, done.stderr.decode()
    code = orjson.loads(done.stdout)["field_metrics"]["code"]
    # (3, 1) vs (3, 1): 1.0; (1, 1) vs (3, 1): 4 / (sqrt 2 * sqrt 10) = 0.894 < 0.9
    assert (code["tp"], code["fd"]) == (1, 1)
    assert code["mean_score"] == pytest.approx((1.0 + 4 / 20**0.5) / 2, abs=1e-12)
    without = _cli(["eval", str(schema), str(gt), str(pred)])
    assert without.returncode == 2
    err = without.stderr.decode()
    assert err.count("\n") == 1 and "/properties/code/x-aws-stickler-comparator-config/embedding_function" in err
    assert "embedding_function 'lengths' is not registered" in err


def test_an_embedding_name_cannot_be_taken_twice():
    from stickler_cli.comparators import register_embedding

    def first(texts):
        return [[1.0] for _ in texts]

    def second(texts):
        return [[2.0] for _ in texts]

    try:
        register_embedding("twice-test", first)
        register_embedding("twice-test", first)  # the same function again (a plugin loaded twice): fine
        with pytest.raises(ValueError, match="'twice-test' .* is already taken by"):
            register_embedding("twice-test", second)
        with pytest.raises(ValueError, match="must not contain ':'"):
            register_embedding("os:system", first)
    finally:
        registry._EMBEDDINGS.pop("twice-test", None)


def test_a_model_name_cannot_be_taken_twice_nor_be_the_bundled_one():
    from stickler_cli.comparators import register_model

    try:
        register_model("twice-model", "/models/a")
        register_model("twice-model", "/models/a")
        with pytest.raises(ValueError, match="'twice-model' .* is already taken by /models/a"):
            register_model("twice-model", "/models/b")
        with pytest.raises(ValueError, match="is the bundled model's"):
            register_model("all-MiniLM-L6-v2", "/models/b")
    finally:
        registry._MODELS.pop("twice-model", None)


def test_a_broken_embedding_entry_point_is_named_when_a_schema_needs_one(tmp_path, monkeypatch):
    site = tmp_path / "site"
    dist = site / "broken_embeddings-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-embeddings\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[stickler.embeddings]\nbroken-emb = no_such_module_here:f\n")
    monkeypatch.syspath_prepend(str(site))
    plugins.reset_entry_points()
    try:
        with pytest.raises(SchemaError) as err:
            compile_schema(
                {
                    "type": "object",
                    "properties": {
                        "code": {
                            "type": "string",
                            "x-aws-stickler-comparator": "SemanticComparator",
                            "x-aws-stickler-comparator-config": {"embedding_function": "broken-emb"},
                        }
                    },
                }
            )
        assert "embedding entry point 'broken-emb' (no_such_module_here:f) failed to load" in str(err.value)
    finally:
        plugins.reset_entry_points()
