"""Case 1's workload as real predictions often differ from it, counted in instructions (docs/performance.md,
"Data the bench does not hold").

    python -m bench.variants OUT_DIR [N] [--count] [--code DIR]

Case 1's files (bench/generate.py) are plain: ASCII text, numbers as JSON numbers, written without escapes.
Each variant changes one thing, deterministically, on the same N pairs (default 1,000):

- ``accents``: line items' descriptions with accented words, written as UTF-8;
- ``escaped-names``: accented names, cities and streets, written as ``json.dumps`` writes them (``\\u`` escapes);
- ``numeric-texts``: ``accents``, written by ``json.dumps``, with half the predictions' numbers as texts
  ("1,130.14", "22");
- ``date-formats``: the predictions' invoice dates in five formats, scored by DateComparator (the variant's
  own schema.json);
- ``extra-keys``: ten keys beside the schema's in each prediction, five in each line item;
- ``all-rich``: every predicted value a rich value with a confidence.

Each folder holds gt.jsonl, pred.jsonl and schema.json. With ``--count``, each is counted as bench/instructions.py
counts (callgrind, one warm evaluation, start-up left out) for the code in ``--code`` (default: this checkout; give
another checkout's folder to count code before a change), and one JSON line per variant is printed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
from pathlib import Path
from typing import Any, Callable

import orjson

from bench import instructions
from bench.generate import generate

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "bench" / "invoice.schema.json"

_ACCENTED_WORDS = (
    ("Box", "Boîte"),
    ("Cable", "Câble"),
    ("Tape", "Ruban adhésif"),
    ("Pump", "Pompe à eau"),
    ("Small", "Petit"),
)
_ACCENTED_NAMES = (
    ("Johnson", "Jöhnsön"),
    ("Madrid", "Málaga"),
    ("Electronics", "Électronique"),
    ("Drive", "Straße"),
    ("Wei", "Wéi"),
    ("Harbor", "Häfen"),
    ("Street", "Rué"),
    ("Smith", "Smîth"),
    ("Garcia", "García"),
    ("Muller", "Müller"),
)
_DATE_FORMATS = ("%Y-%m-%d", "%d/%m/%Y", "%B %d, %Y", "%d %b %Y", "%Y/%m/%d")


def _leaf(value: Any, change: Callable[[Any], Any]) -> Any:
    """``change`` applied to a value, or to a rich value's own value."""
    if type(value) is dict and "_value" in value:
        return {**value, "_value": change(value["_value"])}
    return change(value)


def _change(obj: dict, keys: tuple[str, ...], change: Callable[[Any], Any]) -> None:
    """``change`` applied to the values ``obj`` holds at ``keys``."""
    for key in keys:
        if key in obj:
            obj[key] = _leaf(obj[key], change)


def _replaced(table: tuple[tuple[str, str], ...]) -> Callable[[Any], Any]:
    """Each text with the table's words replaced; other values as they are."""

    def change(value: Any) -> Any:
        if type(value) is str:
            for plain, accented in table:
                value = value.replace(plain, accented)
        return value

    return change


def _objects(value: Any) -> list[dict]:
    """The objects of a field's value: itself, a rich value's object, or a list's."""
    if type(value) is dict and "_value" in value:
        value = value["_value"]
    if type(value) is dict:
        return [value]
    if type(value) is list:
        return [o for item in value for o in _objects(item)]
    return []


def _line_items(doc: dict) -> list[dict]:
    return _objects(doc.get("line_items"))


def _accents(doc: dict) -> dict:
    for item in _line_items(doc):
        _change(item, ("description",), _replaced(_ACCENTED_WORDS))
    return doc


def _names(doc: dict) -> dict:
    change = _replaced(_ACCENTED_NAMES)
    _change(doc, ("customer_name",), change)
    for vendor in _objects(doc.get("vendor")):
        _change(vendor, ("name",), change)
        for address in _objects(vendor.get("address")):
            _change(address, ("street", "city"), change)
    return doc


def _numeric_texts(doc: dict, rng: random.Random) -> dict:
    def change(value: Any) -> Any:
        if type(value) in (int, float) and rng.random() < 0.5:
            return f"{value:,}" if rng.random() < 0.5 else str(value)
        return value

    _change(doc, ("total_amount",), change)
    for item in _line_items(doc):
        _change(item, ("quantity", "unit_price", "amount"), change)
    return doc


def _date_format(doc: dict, rng: random.Random) -> dict:
    def change(value: Any) -> Any:
        try:
            day = datetime.date.fromisoformat(value) if type(value) is str else None
        except ValueError:
            day = None
        return value if day is None else day.strftime(rng.choice(_DATE_FORMATS))

    _change(doc, ("invoice_date",), change)
    return doc


def _extra_keys(doc: dict) -> dict:
    doc.update({f"extra_{k}": f"value {k}" for k in range(10)})
    for item in _line_items(doc):
        item.update({f"x{k}": k for k in range(5)})
    return doc


def _rich(value: Any, rng: random.Random) -> Any:
    if type(value) is dict:
        return value if "_value" in value else {k: _rich(v, rng) for k, v in value.items()}
    if type(value) is list:
        return [_rich(v, rng) for v in value]
    return {"_value": value, "_confidence": round(rng.random(), 3)}


def _escaped(value: Any) -> bytes:
    return json.dumps(value).encode()  # as Python writes JSON by default: every character beyond ASCII escaped


# name: (change to the ground truth, change to the prediction, writer, comparator of invoice_date or None)
Change = Callable[[dict, random.Random], dict]
_SAME: Change = lambda doc, rng: doc  # noqa: E731
VARIANTS: dict[str, tuple[Change, Change, Callable[[Any], bytes], str | None]] = {
    "accents": (lambda d, r: _accents(d), lambda d, r: _accents(d), orjson.dumps, None),
    "escaped-names": (lambda d, r: _names(d), lambda d, r: _names(d), _escaped, None),
    "numeric-texts": (lambda d, r: _accents(d), lambda d, r: _numeric_texts(_accents(d), r), _escaped, None),
    "date-formats": (_SAME, _date_format, orjson.dumps, "DateComparator"),
    "extra-keys": (_SAME, lambda d, r: _extra_keys(d), orjson.dumps, None),
    "all-rich": (_SAME, lambda d, r: _rich(d, r), orjson.dumps, None),
}


def schema_for(date_comparator: str | None) -> dict:
    """Case 1's schema; invoice_date scored by ``date_comparator`` when one is named."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    if date_comparator:
        date = schema["properties"]["invoice_date"]
        date["x-aws-stickler-comparator"] = date_comparator
        date.pop("x-aws-stickler-comparator-config", None)
    return schema


def write(out_dir: Path, n: int = 1000, seed: int = 0) -> dict[str, Path]:
    """Each variant's folder (gt.jsonl, pred.jsonl, schema.json) under ``out_dir``, and ``plain``: case 1's own."""
    out_dir = Path(out_dir)
    folders = {"plain": out_dir / "plain", **{name: out_dir / name for name in VARIANTS}}
    changes = {"plain": (_SAME, _SAME, orjson.dumps, None), **VARIANTS}
    for name, folder in folders.items():
        to_gt, to_pred, dumps, date_comparator = changes[name]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "schema.json").write_text(json.dumps(schema_for(date_comparator), indent=2) + "\n", encoding="utf-8")
        rng = random.Random(seed)
        with open(folder / "gt.jsonl", "wb") as gt_file, open(folder / "pred.jsonl", "wb") as pred_file:
            for gt, pred in generate(n, seed=seed):
                gt_file.write(dumps(to_gt(gt, rng)) + b"\n")
                pred_file.write(dumps(to_pred(pred, rng)) + b"\n")
    return folders


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.variants")
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("n", type=int, nargs="?", default=1000)
    ap.add_argument("--count", action="store_true", help="count each variant's instructions (callgrind)")
    ap.add_argument("--code", type=Path, default=ROOT, help="the stickler checkout whose code is counted")
    args = ap.parse_args(argv)
    folders = write(args.out_dir, args.n)
    if not args.count:
        print("\n".join(str(folder) for folder in folders.values()))
        return 0
    missing = instructions.available()
    if missing:
        print(f"bench.variants: {missing}", file=sys.stderr)
        return 2
    code = str(args.code.resolve())
    for name, folder in folders.items():
        gt, pred, schema = str(folder / "gt.jsonl"), str(folder / "pred.jsonl"), str(folder / "schema.json")
        instructions.compile_first(gt, pred, True, schema=schema, code=code)
        counted = instructions.count(gt, pred, True, 1, schema=schema, code=code, warm=1)  # one warm evaluation
        print(json.dumps({"variant": name, "instructions": counted}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
