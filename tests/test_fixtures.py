"""Our numbers on the bundled fixtures equal stickler-eval 1.0.0's, stored in expected.json.

The expected files were produced by the oracle (tests/parity/golden.py) on the
schema with our defaults written out; we run on the schema with the oracle's
strict ExactComparator written out. Both rewrites are listed in docs/parity.md.
"""

import orjson
import pytest

from stickler_cli.evaluate import evaluate_files
from stickler_cli.report import build_report
from stickler_cli.schema import compile_schema
from tests.parity.run_parity import FIXTURES, differences
from tests.parity.transform import for_us


@pytest.mark.parametrize("name, schema_path, folder", FIXTURES)
def test_fixture_matches_oracle_numbers(root, name, schema_path, folder):
    schema = orjson.loads((root / schema_path).read_bytes())
    expected = orjson.loads((root / folder / "expected.json").read_bytes())
    plan = compile_schema(for_us(schema))
    report = build_report(evaluate_files(plan, str(root / folder / "gt.jsonl"), str(root / folder / "pred.jsonl")))
    in_lists = {g.path for f in plan.fields if f.model is not None and f.kind.value == "object_list" for g in f.model.walk()}
    assert differences(name, report, expected, in_lists) == []
    assert report["document_count"] == expected["document_count"] > 0
