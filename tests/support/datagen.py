"""Deterministic ground-truth/prediction generator for any compiled schema.

Walks the plan and draws realistic values per JSON type, then derives a
prediction by the mistakes extraction models make: typos, case changes,
dropped/inserted/reordered list items, numeric drift, nulls and empty strings.
Used for the committed fixtures, the parity harness and the benchmark.

    python -m tests.support.datagen SCHEMA N SEED OUT_DIR [--confidence]
"""

from __future__ import annotations

import datetime
import random
import string
import sys
from pathlib import Path
from typing import Any

import orjson

from stickler_cli.plan import FieldPlan, Kind, ModelPlan
from stickler_cli.schema import load_schema

WORDS = (
    "widget gadget bolt screw washer cable adapter mouse keyboard monitor bracket hinge valve "
    "filter pump sensor relay switch panel frame spring gasket bearing coupling nozzle clamp "
    "acme globex initech umbrella stark wayne tyrell cyberdyne soylent hooli vandelay "
    "north south east west main oak pine maple cedar elm lake hill river park"
).split()

# How people and models write a date (the ground truth uses ISO 8601).
DATE_STYLES = (
    lambda d: d.isoformat(),
    lambda d: f"{d.month:02d}/{d.day:02d}/{d.year}",
    lambda d: f"{d.day:02d}.{d.month:02d}.{d.year}",
    lambda d: d.strftime("%B %-d, %Y"),
    lambda d: d.strftime("%d %b %Y"),
    lambda d: d.strftime("%b %Y"),
)


class Generator:
    def __init__(self, seed: int, confidence: bool = False, null_rate: float = 0.08) -> None:
        self.rng = random.Random(seed)
        self.confidence = confidence
        self.null_rate = null_rate

    # -- ground truth ---------------------------------------------------------

    def document(self, model: ModelPlan) -> dict:
        out = {}
        for f in model.fields:
            if self.rng.random() < self.null_rate:
                if self.rng.random() < 0.5:
                    out[f.key] = None
                continue
            out[f.key] = self.value(f)
        return out

    def value(self, f: FieldPlan) -> Any:
        if f.kind is Kind.OBJECT:
            return self.document(f.model)
        if f.kind is Kind.OBJECT_LIST:
            return [self.document(f.model) for _ in range(self.rng.choice((0, 1, 2, 3, 3, 4, 5, 6)))]
        if f.kind is Kind.PRIMITIVE_LIST:
            return [self.scalar(f) for _ in range(self.rng.randint(0, 4))]
        return self.scalar(f)

    def scalar(self, f: FieldPlan) -> Any:
        rng = self.rng
        t = f.json_type
        if t == "boolean":
            return rng.random() < 0.5
        if t == "integer":
            return rng.randint(0, 50)
        if t == "number":
            return round(rng.uniform(0, 2000), 2)
        special = self.special_scalar(f)
        if special is not None:
            return special
        if "id" in f.key.split(".")[-1] or f.comparator_name == "ExactComparator":
            return f"{rng.choice(('INV', 'PO', 'SHP', 'TX'))}-{rng.randint(2019, 2026)}-{rng.randint(1, 9999):04d}"
        if "date" in f.key:
            return f"{rng.randint(2019, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        return " ".join(rng.choice(WORDS).capitalize() for _ in range(rng.randint(1, 3)))

    def special_scalar(self, f: FieldPlan) -> Any:
        """Values shaped for comparators that parse them (dates, phone numbers), else None."""
        rng = self.rng
        if f.comparator_name == "DateComparator":
            return datetime.date(rng.randint(2019, 2026), rng.randint(1, 12), rng.randint(1, 28)).isoformat()
        if f.comparator_name == "PhoneComparator":
            return f"({rng.randint(201, 989)}) {rng.randint(201, 989)}-{rng.randint(0, 9999):04d}"
        return None

    def date_text(self, day: datetime.date) -> str:
        style = self.rng.choice(DATE_STYLES)
        return style(day)

    def special_mutation(self, f: FieldPlan, value: Any, roll: float) -> Any:
        """A plausible extraction error for dates and phone numbers, else None."""
        rng = self.rng
        if f.comparator_name == "DateComparator" and isinstance(value, str):
            try:
                day = datetime.datetime.strptime(value, "%Y-%m-%d").date()
            except ValueError:
                return value[::-1] if roll > 0.9 else value.upper()
            if roll < 0.75:
                return self.date_text(day)  # same date, another spelling
            if roll < 0.9:
                return self.date_text(day + datetime.timedelta(days=rng.choice((-3, -1, 1, 2, 40))))
            return rng.choice(("n/a", "2024", f"{day.year}-{day.month:02d}", "31/31/2031"))
        if f.comparator_name == "PhoneComparator" and isinstance(value, str):
            digits = "".join(c for c in value if c.isdigit())
            if roll < 0.75:
                return rng.choice(
                    (
                        f"+1 {digits[:3]} {digits[3:6]} {digits[6:]}",
                        f"{digits[:3]}.{digits[3:6]}.{digits[6:]}",
                        f"1-{digits[:3]}-{digits[3:6]}-{digits[6:]}",
                    )
                )
            if roll < 0.9:
                i = rng.randrange(3, len(digits))
                return f"({digits[:3]}) {digits[3:6]}-{digits[6:i]}{(int(digits[i]) + 1) % 10}{digits[i + 1 :]}"[:14]
            return rng.choice(("555-0100", "n/a", digits[:7]))
        return None

    # -- prediction -----------------------------------------------------------

    def predict(self, model: ModelPlan, gt: dict) -> dict:
        out = {}
        for f in model.fields:
            present = f.key in gt
            value = gt.get(f.key)
            roll = self.rng.random()
            if roll < 0.05:
                continue  # dropped field
            if roll < 0.08:
                out[f.key] = None
                continue
            if not present and roll < 0.12:
                out[f.key] = self.value(f)  # hallucinated value
                continue
            if not present:
                continue
            out[f.key] = self.wrap(self.mutate(f, value), f)
        return out

    def wrap(self, value: Any, f: FieldPlan) -> Any:
        """Attach a confidence to some leaf predictions."""
        if not self.confidence or f.kind is not Kind.PRIMITIVE or self.rng.random() < 0.3:
            return value
        return {"_value": value, "_confidence": round(self.rng.uniform(0.05, 1.0), 3)}

    def mutate(self, f: FieldPlan, value: Any) -> Any:
        if value is None:
            return self.value(f) if self.rng.random() < 0.2 else None
        if f.kind is Kind.OBJECT:
            return self.predict(f.model, value) if isinstance(value, dict) else value
        if f.kind is Kind.OBJECT_LIST:
            items = [self.predict(f.model, item) for item in value]
            return self.reshape(items, lambda: self.document(f.model))
        if f.kind is Kind.PRIMITIVE_LIST:
            items = [self.scalar_mutation(f, v) for v in value]
            return self.reshape(items, lambda: self.scalar(f))
        return self.scalar_mutation(f, value)

    def reshape(self, items: list, make) -> list:
        rng = self.rng
        if items and rng.random() < 0.2:
            del items[rng.randrange(len(items))]
        if rng.random() < 0.15:
            items.insert(rng.randint(0, len(items)), make())
        if rng.random() < 0.5:
            rng.shuffle(items)
        return items

    def scalar_mutation(self, f: FieldPlan, value: Any) -> Any:
        rng = self.rng
        roll = rng.random()
        if roll < 0.55:
            return value
        special = self.special_mutation(f, value, roll)
        if special is not None:
            return special
        t = f.json_type
        if t == "boolean":
            return not value
        if t == "integer":
            return value + rng.choice((-2, -1, 1, 3))
        if t == "number":
            if roll < 0.8:
                return round(value + rng.choice((-0.01, 0.01, 0.02, -0.5, 0.004)), 2)
            return round(value * rng.uniform(0.5, 1.5), 2)
        text = str(value)
        if roll < 0.7:
            return self.typo(text)
        if roll < 0.8:
            return text.upper() if rng.random() < 0.5 else text.lower()
        if roll < 0.9:
            return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
        if roll < 0.95:
            return ""
        return text + " " + rng.choice(WORDS)

    def typo(self, text: str) -> str:
        if not text:
            return "x"
        chars = list(text)
        for _ in range(self.rng.randint(1, 2)):
            i = self.rng.randrange(len(chars))
            op = self.rng.random()
            if op < 0.4:
                chars[i] = self.rng.choice(string.ascii_lowercase)
            elif op < 0.7 and len(chars) > 1:
                del chars[i]
            else:
                chars.insert(i, self.rng.choice(string.ascii_lowercase))
        return "".join(chars)


def generate(schema_path: str, n: int, seed: int, confidence: bool = False) -> tuple[list[dict], list[dict]]:
    plan = load_schema(schema_path)
    gen = Generator(seed, confidence)
    gts, preds = [], []
    for _ in range(n):
        gt = gen.document(plan.root)
        gts.append(gt)
        preds.append(gen.predict(plan.root, gt))
    return gts, preds


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))


def main(argv: list[str]) -> None:
    schema, n, seed, out = argv[0], int(argv[1]), int(argv[2]), Path(argv[3])
    gts, preds = generate(schema, n, seed, confidence="--confidence" in argv)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "gt.jsonl", gts)
    write_jsonl(out / "pred.jsonl", preds)


if __name__ == "__main__":
    main(sys.argv[1:])
