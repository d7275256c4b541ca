"""The official JSON Schema Test Suite, run through stickler's schema loader and conformance checker.

The suite is the copy shipped in jsonschema's source distribution (folder ``json``: ``tests`` and
``remotes``), fetched with pip into a cache directory the first time and never committed:

    pip download --no-deps --no-binary :all: jsonschema==4.26.0

Each test group's schema is written to a file, ``group.json``, and a record schema refers to it
from one property, ``v`` (``{"type": [every type], "allOf": [{"$ref": "group.json"}]}``: the
type list only gives the scoring plan a comparator, it accepts every value). A group whose
schema has an absolute ``$id`` is embedded there instead (``"allOf": [schema]``), a schema
resource of its own: jsonschema, and so stickler, resolves the references inside a document
reached by ``$ref`` against the URI it was reached by, not against the document's own ``$id``,
and keeps a dynamic scope that depends on it. Each test's data is then the value of ``v`` in one prediction record. The suite's remote
documents are given as ``--schema-resource http://localhost:1234/=json/remotes/``, as
jsonschema's own runner registers them. A test is *agreed* when the record is schema-valid
exactly when the suite says the data is valid; *refused* when the schema cannot be loaded
(exit 2).

``python -m tests.support.json_schema_suite`` prints the agreement and every test not agreed
(``optional/format`` as argument: the format tests, formats asserted); ``--fetch`` only fetches
the suite into the cache (``make test`` does, first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

VERSION = "4.26.0"  # of jsonschema, whose source distribution ships the suite
REMOTE = "http://localhost:1234/"  # where the suite's tests expect its remotes
DRAFTS = {
    "draft6": "http://json-schema.org/draft-06/schema#",
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
}
EVERY_TYPE = ["array", "boolean", "null", "number", "object", "string"]
PIP_SECONDS = 300


class Unavailable(Exception):
    """The suite is not cached and pip could not fetch it (no registry reachable)."""


def cache_dir() -> Path:
    """Where the suite is kept: $STICKLER_TEST_CACHE, else ~/.cache/stickler-tests."""
    configured = os.environ.get("STICKLER_TEST_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "stickler-tests"


def suite(fetch: bool = True) -> Path:
    """The suite's ``json`` folder, fetched with pip and unpacked into the cache when absent."""
    root = cache_dir() / f"jsonschema-{VERSION}" / "json"
    if (root / "tests").is_dir() and (root / "remotes").is_dir():
        return root
    if not fetch:
        raise Unavailable(f"the JSON Schema Test Suite is not in {root}")
    with tempfile.TemporaryDirectory() as download:
        try:
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    f"jsonschema=={VERSION}",
                    "-d",
                    download,
                ],
                capture_output=True,
                text=True,
                timeout=PIP_SECONDS,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise Unavailable(f"pip download jsonschema=={VERSION} failed: {exc}") from None
        archives = list(Path(download).glob(f"jsonschema-{VERSION}.tar.gz"))
        if done.returncode or not archives:
            last = (done.stderr.strip().splitlines() or ["no archive"])[-1]
            raise Unavailable(f"pip download jsonschema=={VERSION} failed: {last[-300:]}")
        _unpack(archives[0], cache_dir())
    return root


def suite_or_skip() -> Path:
    """``suite()`` for a test: skipped when no registry is reachable, except in CI (``CI=true``, or
    ``STICKLER_REQUIRE_TEST_SUITE=1`` as .ci/run sets), where a missing suite fails."""
    import pytest

    try:
        return suite()
    except Unavailable as exc:
        if os.environ.get("CI", "").lower() == "true" or os.environ.get("STICKLER_REQUIRE_TEST_SUITE") == "1":
            pytest.fail(f"the JSON Schema Test Suite must run in CI: {exc}")
        pytest.skip(f"{exc} (no package registry reachable)")


def _unpack(archive: Path, into: Path) -> None:
    """Only the sdist's ``json/tests`` and ``json/remotes`` (regular files), written to a temporary
    folder first and renamed: an interrupted fetch leaves no half suite behind."""
    prefix = f"jsonschema-{VERSION}/json/"
    into.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=into) as staging, tarfile.open(archive) as tar:
        members = [
            m
            for m in tar.getmembers()
            if m.isfile()
            and m.name.startswith((prefix + "tests/", prefix + "remotes/"))
            and ".." not in Path(m.name).parts
        ]
        tar.extractall(staging, members=members, filter="data")
        target = into / f"jsonschema-{VERSION}"
        if not (target / "json" / "tests").is_dir():
            target.mkdir(exist_ok=True)
            os.replace(Path(staging) / f"jsonschema-{VERSION}" / "json", target / "json")


def groups(root: Path, draft: str, where: str = "") -> Iterator[tuple[str, dict]]:
    """(file name without .json, group) for every group of ``draft`` in ``where`` ("", "optional",
    "optional/format"), files in name order."""
    for path in sorted((root / "tests" / draft / where).glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            yield path.stem, group


def record_schema(draft: str, group: Any) -> dict:
    """The record schema a group is wrapped in: one property, ``v``, holding the group's schema (by
    reference to ``group.json``, or embedded when it names itself by an absolute ``$id``)."""
    held = group if own_id(draft, group) else {"$ref": "group.json"}
    return {"$schema": DRAFTS[draft], "type": "object", "properties": {"v": {"type": EVERY_TYPE, "allOf": [held]}}}


def own_id(draft: str, schema: Any) -> str | None:
    """The absolute URI a group's schema names itself by (its ``$id``, which draft 6 and 7 ignore beside
    ``$ref``), if any."""
    from urllib.parse import urlsplit

    if not isinstance(schema, dict) or not isinstance(schema.get("$id"), str):
        return None
    if draft in ("draft6", "draft7") and "$ref" in schema:
        return None
    parts = urlsplit(schema["$id"])
    return schema["$id"].rstrip("#") if parts.scheme and not parts.fragment else None


def stickler_verdicts(root: Path, draft: str, group: dict, directory: Path, assert_formats: bool = False) -> list[bool]:
    """Whether each test's data is schema-valid, as stickler's loader and checker decide; SchemaError
    when the schema is refused."""
    from stickler_cli.schema import load_schema
    from stickler_cli.schema.conformance import Conformance

    (directory / "group.json").write_text(json.dumps(group["schema"]), encoding="utf-8")
    (directory / "schema.json").write_text(json.dumps(record_schema(draft, group["schema"])), encoding="utf-8")
    plan = load_schema(
        directory / "schema.json", resources={REMOTE: str(root / "remotes")}, assert_formats=assert_formats
    )
    checker = Conformance.of(plan)
    return [not checker.violations({"v": test["data"]}) for test in group["tests"]]


def jsonschema_verdicts(root: Path, draft: str, group: dict, assert_formats: bool = False) -> list[bool]:
    """jsonschema's own verdicts on the group's schema as written, the remotes registered as its own
    test runner registers them."""
    import jsonschema

    cls = jsonschema.validators.validator_for({"$schema": DRAFTS[draft]})
    checker = cls(
        group["schema"], registry=_remotes(root, draft), format_checker=cls.FORMAT_CHECKER if assert_formats else None
    )
    return [checker.is_valid(test["data"]) for test in group["tests"]]


_REMOTES: dict[tuple[Path, str], Any] = {}


def _remotes(root: Path, draft: str) -> Any:
    """jsonschema's test runner's registry of remotes (``jsonschema/tests/_suite.py``)."""
    key = (root, draft)
    if key not in _REMOTES:
        import referencing
        import referencing.jsonschema

        specification = referencing.jsonschema.specification_with(DRAFTS[draft].rstrip("#"))
        pairs = []
        for path in sorted((root / "remotes").rglob("*.json")):
            relative = path.relative_to(root / "remotes").as_posix()
            contents = json.loads(path.read_text(encoding="utf-8"))
            if "$schema" not in contents and relative.startswith("draft") and not relative.startswith(draft):
                continue
            pairs.append((REMOTE + relative, contents))
        _REMOTES[key] = referencing.Registry().with_contents(pairs, default_specification=specification)
    return _REMOTES[key]


@dataclass
class Outcome:
    """One test: where it is, what the suite says, jsonschema's and stickler's verdicts (or refusal)."""

    draft: str
    file: str
    group: str
    test: str
    valid: bool
    jsonschema: bool | None
    stickler: bool | None
    refusal: str | None = None

    @property
    def name(self) -> str:
        return f"{self.draft}/{self.file}: {self.group} / {self.test}"


@dataclass
class Measure:
    """The outcomes of a run, counted."""

    outcomes: list[Outcome] = field(default_factory=list)

    def counts(self) -> Counter:
        counted: Counter = Counter()
        for o in self.outcomes:
            counted["tests"] += 1
            counted["jsonschema agrees"] += o.jsonschema == o.valid
            if o.stickler is None:
                counted["refused"] += 1
                counted["refused where jsonschema agrees"] += o.jsonschema == o.valid
            elif o.stickler == o.valid:
                counted["agree"] += 1
            else:
                counted["wrong"] += 1
                counted["wrong where jsonschema agrees"] += o.jsonschema == o.valid
            counted["differs from jsonschema"] += o.stickler is not None and o.stickler != o.jsonschema
        return counted


def measure(
    root: Path, drafts: tuple[str, ...] = tuple(DRAFTS), where: str = "", assert_formats: bool = False
) -> Measure:
    """Every test of ``drafts`` in ``where`` through stickler and through jsonschema."""
    from stickler_cli.errors import SchemaError

    result = Measure()
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        for draft in drafts:
            for file, group in groups(root, draft, where):
                expected = [t["valid"] for t in group["tests"]]
                try:
                    theirs: list[Any] = jsonschema_verdicts(root, draft, group, assert_formats)
                except Exception:  # noqa: BLE001  # jsonschema refuses the schema: no verdict
                    theirs = [None] * len(expected)
                refusal = None
                try:
                    ours: list[Any] = stickler_verdicts(root, draft, group, directory, assert_formats)
                except SchemaError as exc:
                    ours, refusal = [None] * len(expected), str(exc)
                for test, valid, mine, other in zip(group["tests"], expected, ours, theirs):
                    result.outcomes.append(
                        Outcome(draft, file, group["description"], test["description"], valid, other, mine, refusal)
                    )
    return result


def main() -> None:
    if sys.argv[1:] == ["--fetch"]:
        try:
            print(f"JSON Schema Test Suite: {suite()}")
        except Unavailable as exc:
            sys.exit(f"JSON Schema Test Suite: {exc}")
        return
    root = suite()
    where = sys.argv[1] if len(sys.argv) > 1 else ""
    result = measure(root, where=where, assert_formats=where.startswith("optional"))
    for key, value in sorted(result.counts().items()):
        print(f"{key}: {value}")
    for o in result.outcomes:
        if o.stickler is None or o.stickler != o.valid:
            print(
                f"{'REFUSED' if o.stickler is None else 'WRONG'} {o.name}: {o.refusal or ''} "
                f"(suite {o.valid}, jsonschema {o.jsonschema})"
            )


if __name__ == "__main__":
    main()
