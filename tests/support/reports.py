"""Comparing two reports the way the scale-out tests need: counts exact, floats to 1e-12."""

from __future__ import annotations

import math
import subprocess
import sys

STICKLER = [sys.executable, "-m", "stickler_cli"]


def run(*args, cwd=None, timeout=120):
    """``stickler ARGS`` in a subprocess (text output captured)."""
    return subprocess.run([*STICKLER, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=timeout)


# Where documents are numbered differently (shards restart their line numbers, merges add
# states in another order), the worst documents are compared by their scores: which of two
# equally bad documents is kept may differ, the figures may not. The failing comparisons kept
# per field are the same ones, in the same order; only the names of their documents differ. When
# the parts were merged in another order (``in_order=False``), they are the first of that order:
# as many per field, not the same ones.
# The lists kept as examples of what went wrong in lists are likewise the same ones (names aside) when the parts
# come in order, else as bad (the same numbers of labelled rows), ties taken from another order.
def assert_same_reordered(a, b, ignore=("elapsed_seconds",), in_order=True):
    assert_same(a, b, ignore=(*ignore, "worst_documents", "field_failures", "list_errors", "cosmetic_errors"))
    assert_same(a["list_errors"], b["list_errors"], ignore=("examples",))
    for path, block in a["list_errors"]["fields"].items():
        other = b["list_errors"]["fields"][path]["examples"]
        if in_order:
            assert_same(block["examples"], other, ignore=("doc_id",))
        else:

            def weights(examples):
                return [e["events_total"] + (e["tau"] is not None) + e["unclassified"] for e in examples]

            assert weights(block["examples"]) == weights(other)
    assert_same([d["score"] for d in a["worst_documents"]], [d["score"] for d in b["worst_documents"]])
    # The examples of cosmetic FDs are kept like the failing comparisons: the same ones, their documents
    # named by part, when the parts come in order; as many, when they do not.
    if in_order:
        assert_same(a["cosmetic_errors"], b["cosmetic_errors"], ignore=("doc_id",))
    else:
        assert_same(a["cosmetic_errors"], b["cosmetic_errors"], ignore=("examples",))
        for path, entry in a["cosmetic_errors"]["fields"].items():
            other = b["cosmetic_errors"]["fields"][path]["examples"]
            assert {k: len(v) for k, v in entry["examples"].items()} == {k: len(v) for k, v in other.items()}
    if in_order:
        assert_same(a["field_failures"], b["field_failures"], ignore=("doc_id",))
    else:
        sizes = [{path: len(rows) for path, rows in r["field_failures"]["fields"].items()} for r in (a, b)]
        assert sizes[0] == sizes[1]
        assert a["field_failures"]["kept_per_field"] == b["field_failures"]["kept_per_field"]


def assert_same(a, b, ignore=("elapsed_seconds",), path="$"):
    """Equal structure; ints, bools and strings exactly, floats within 1e-12."""
    if isinstance(a, dict):
        assert isinstance(b, dict), f"{path}: dict vs {type(b).__name__}"
        keys_a = {k for k in a if k not in ignore}
        keys_b = {k for k in b if k not in ignore}
        assert keys_a == keys_b, f"{path}: keys differ: {sorted(keys_a ^ keys_b)}"
        for key in keys_a:
            assert_same(a[key], b[key], ignore, f"{path}.{key}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{path}: lists differ in length"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, ignore, f"{path}[{i}]")
    elif isinstance(a, bool) or isinstance(b, bool):
        assert a is b, f"{path}: {a!r} != {b!r}"
    elif isinstance(a, int) and isinstance(b, int):
        assert a == b, f"{path}: {a} != {b}"
    elif isinstance(a, float) or isinstance(b, float):
        assert isinstance(a, float) and isinstance(b, float), f"{path}: {a!r} vs {b!r} (types differ)"
        if math.isnan(a) or math.isnan(b):
            assert math.isnan(a) and math.isnan(b), f"{path}: {a!r} != {b!r}"
        else:
            assert abs(a - b) <= 1e-12, f"{path}: {a!r} != {b!r}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"
