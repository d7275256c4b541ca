"""Our numbers on the bundled fixtures equal stickler-eval 1.0.0's, stored in expected.json.

The expected files were produced by the oracle (tests/parity/golden.py) on the
schema with our defaults written out; we run on the schema with the oracle's
strict ExactComparator written out. Both rewrites are listed in docs/parity.md.
"""

import orjson
import pytest

from tests.parity.run_parity import FIXTURES, confidence_comparable, differences, inside_object_list, ours


@pytest.mark.parametrize("name, schema_path, folder", FIXTURES)
def test_fixture_matches_oracle_numbers(root, name, schema_path, folder):
    schema = orjson.loads((root / schema_path).read_bytes())
    expected = orjson.loads((root / folder / "expected.json").read_bytes())
    report = ours(schema, root / folder / "gt.jsonl", root / folder / "pred.jsonl")
    if not confidence_comparable(schema):  # parity.md row 20
        report["confidence_metrics"] = expected["confidence_metrics"] = None
    assert differences(name, report, expected, inside_object_list(schema)) == []
    assert report["document_count"] == expected["document_count"] > 0
