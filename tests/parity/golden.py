"""Regenerate fixtures/*/expected.json from stickler-eval 1.0.0 (the oracle).

    python -m tests.parity.golden --oracle-python .venv-oracle/bin/python

The expected numbers are the oracle's, on the schema rewritten by
transform.for_oracle; tests/project/test_fixtures.py compares our engine, on the schema
rewritten by transform.for_us, with them.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import orjson

from .run_parity import FIXTURES, ROOT, oracle


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--oracle-python", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, schema_path, folder in FIXTURES:
            schema = orjson.loads((ROOT / schema_path).read_bytes())
            result = oracle(
                args.oracle_python, schema, ROOT / folder / "gt.jsonl", ROOT / folder / "pred.jsonl", Path(tmp)
            )
            expected = {
                "source": "stickler-eval 1.0.0 via tests/parity/golden.py",
                "schema": schema_path,
                "document_count": result["document_count"],
                "metrics": result["metrics"],
                "field_metrics": result["field_metrics"],
                "confidence_metrics": result["confidence_metrics"],
                "aggregate": result["aggregate"],
            }
            (ROOT / folder / "expected.json").write_bytes(
                orjson.dumps(expected, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
            )
            print(f"wrote {folder}/expected.json")


if __name__ == "__main__":
    main()
