"""Deterministic generator of ground-truth / prediction JSONL pairs for bench/invoice.schema.json.

Ground truth is a realistic invoice; the prediction is derived from it by the mistakes
extraction models make: line items reordered, dropped or hallucinated; typos and case changes
in strings; numeric drift (small and occasionally large); tags dropped, reordered or misspelt;
fields null or missing on either side; and, on about 60% of predicted primitive leaves, a
confidence ``{"_value": v, "_confidence": c}`` that is informative (higher when the value was
left unchanged, lower when it was mutated, with noise).

Only ``random.Random(seed)`` drives the output, so the same arguments give byte-identical files.

    python -m bench.generate OUT_DIR N [--seed S] [--items K]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

# --------------------------------------------------------------------------- vocabularies

_FIRST = (
    "Northwind",
    "Contoso",
    "Fabrikam",
    "Globex",
    "Initech",
    "Umbrella",
    "Stark",
    "Wayne",
    "Acme",
    "Hooli",
    "Vandelay",
    "Soylent",
    "Cyberdyne",
    "Tyrell",
    "Wonka",
    "Oceanic",
    "Pied",
    "Blue",
    "Silver",
    "Golden",
    "Red",
    "Green",
    "Atlas",
    "Summit",
    "Pioneer",
    "Evergreen",
    "Harbor",
    "Cedar",
    "Maple",
    "Granite",
    "Horizon",
    "Liberty",
)
_SECOND = (
    "Traders",
    "Industries",
    "Logistics",
    "Systems",
    "Supplies",
    "Holdings",
    "Labs",
    "Manufacturing",
    "Foods",
    "Textiles",
    "Electronics",
    "Partners",
    "Solutions",
    "Works",
    "Trading",
    "Distribution",
    "Engineering",
    "Analytics",
    "Outfitters",
    "Components",
)
_SUFFIX = ("Ltd", "Inc", "LLC", "GmbH", "Corp", "Co", "PLC", "S.A.", "AG", "")
_PEOPLE_FIRST = (
    "James",
    "Maria",
    "Wei",
    "Fatima",
    "Lukas",
    "Aisha",
    "Carlos",
    "Yuki",
    "Olga",
    "Noah",
    "Priya",
    "Ahmed",
    "Emma",
    "Mateo",
    "Sofia",
    "Ivan",
    "Chloe",
    "Kenji",
    "Amara",
    "Liam",
)
_PEOPLE_LAST = (
    "Smith",
    "Garcia",
    "Chen",
    "Khan",
    "Muller",
    "Okafor",
    "Rossi",
    "Tanaka",
    "Petrova",
    "Johnson",
    "Patel",
    "Hassan",
    "Dubois",
    "Silva",
    "Novak",
    "Kowalski",
    "Nguyen",
    "Brown",
)
_STREET = (
    "Oak",
    "Maple",
    "Pine",
    "Elm",
    "Cedar",
    "Lake",
    "Hill",
    "Church",
    "Mill",
    "Station",
    "Victoria",
    "King",
    "Queen",
    "Park",
    "River",
    "Bridge",
    "Market",
    "High",
    "Union",
    "Washington",
    "Lincoln",
    "Harbour",
    "Meadow",
    "Orchard",
    "Chestnut",
    "Willow",
)
_STREET_KIND = ("Street", "Avenue", "Road", "Lane", "Boulevard", "Drive", "Way", "Court", "Place")
_CITIES = (
    "Springfield",
    "Rivertown",
    "London",
    "Manchester",
    "Berlin",
    "Munich",
    "Hamburg",
    "Paris",
    "Lyon",
    "Madrid",
    "Barcelona",
    "Amsterdam",
    "Rotterdam",
    "Chicago",
    "Boston",
    "Seattle",
    "San Francisco",
    "Los Angeles",
    "New York",
    "Toronto",
    "Vancouver",
    "Dublin",
    "Vienna",
    "Zurich",
    "Milan",
    "Lisbon",
    "Stockholm",
    "Copenhagen",
    "Oslo",
    "Warsaw",
    "Prague",
)
_CURRENCIES = ("USD", "EUR", "GBP", "CHF", "CAD", "SEK", "JPY")
_CURRENCY_WRONG = ("$", "US$", "€", "EURO", "Pounds", "USD.", "CAD$")
_ADJ = (
    "Stainless",
    "Heavy",
    "Duty",
    "Premium",
    "Industrial",
    "Compact",
    "Wireless",
    "Ergonomic",
    "Galvanized",
    "Recycled",
    "Organic",
    "Portable",
    "Adjustable",
    "Reinforced",
    "Standard",
    "Large",
    "Small",
    "Blue",
    "Black",
    "White",
    "Steel",
    "Copper",
    "Plastic",
    "Cotton",
)
_NOUN = (
    "Bolt",
    "Washer",
    "Bracket",
    "Cable",
    "Monitor",
    "Keyboard",
    "Chair",
    "Desk",
    "Filter",
    "Sensor",
    "Valve",
    "Pump",
    "Hinge",
    "Panel",
    "Bearing",
    "Gasket",
    "Fan",
    "Lamp",
    "Adapter",
    "Printer",
    "Toner",
    "Paper",
    "Gloves",
    "Helmet",
    "Ladder",
    "Drill",
    "Battery",
    "Router",
    "Switch",
    "Hose",
    "Clamp",
    "Screws",
    "Nails",
    "Tape",
    "Labels",
    "Boxes",
    "Pallet",
)
_UNIT = ("Set", "Pack", "Kit", "Roll", "Box", "Case", "Unit", "Assembly", "Module", "Pair")
_TAGS = (
    "urgent",
    "recurring",
    "domestic",
    "international",
    "taxable",
    "tax-exempt",
    "paid",
    "overdue",
    "disputed",
    "approved",
    "pending",
    "hardware",
    "software",
    "services",
    "consulting",
    "shipping",
    "maintenance",
    "subscription",
    "refund",
    "credit-note",
    "net-30",
    "net-60",
    "prepaid",
    "wholesale",
    "retail",
    "priority",
)
_TERMS = (
    "Net 30",
    "Net 15",
    "Net 45",
    "Net 60",
    "Due on receipt",
    "2/10 Net 30",
    "Payment due within 30 days",
    "Payment due within 14 days of invoice date",
    "COD",
    "50% upfront, balance on delivery",
    "End of month",
)
_NOTE_HEAD = (
    "Please reference the invoice number",
    "Thank you for your business",
    "Goods remain our property until paid",
    "Late payments incur 1.5% monthly interest",
    "Deliver to loading dock B",
    "Partial shipment",
    "Prices include VAT",
    "Contact accounts payable with questions",
    "Backordered items ship separately",
    "Signed delivery note required",
)
_NOTE_TAIL = (
    "",
    "",
    " on your remittance",
    " within 30 days",
    " before the due date",
    " to avoid delays",
    " per the framework agreement",
    " as agreed by phone",
)

_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
_DIGITS = "0123456789"

_MISSING = object()  # a prediction (or ground-truth) key left out entirely

# --------------------------------------------------------------------------- rates

CONFIDENCE_RATE = 0.60  # predicted primitive leaves that carry a confidence
GT_ABSENT_RATE = 0.04  # ground-truth scalar fields null or missing
PRED_ABSENT_RATE = 0.04  # predicted scalar fields null or missing (where the truth has a value)
EMPTY_STRING_RATE = 0.004  # predicted strings emitted as ""
SHUFFLE_RATE = 0.50
DROP_RATE = 0.20
INSERT_RATE = 0.15


# --------------------------------------------------------------------------- ground truth


def _pick(rng: random.Random, seq):
    """rng.choice, faster (one rng.random() call)."""
    return seq[int(rng.random() * len(seq))]


def _int(rng: random.Random, a: int, b: int) -> int:
    """rng.randint, faster (one rng.random() call)."""
    return a + int(rng.random() * (b - a + 1))


def _company(rng: random.Random) -> str:
    suffix = _pick(rng, _SUFFIX)
    name = f"{_pick(rng, _FIRST)} {_pick(rng, _SECOND)}"
    return f"{name} {suffix}" if suffix else name


def _customer(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return _company(rng)
    return f"{_pick(rng, _PEOPLE_FIRST)} {_pick(rng, _PEOPLE_LAST)}"


def _description(rng: random.Random) -> str:
    k = _int(rng, 2, 4)
    if k == 2:
        words = (_pick(rng, _ADJ), _pick(rng, _NOUN))
    elif k == 3:
        words = (_pick(rng, _ADJ), _pick(rng, _NOUN), _pick(rng, _UNIT))
    else:
        words = (_pick(rng, _ADJ), _pick(rng, _ADJ), _pick(rng, _NOUN), _pick(rng, _UNIT))
    return " ".join(words)


def _line_item(rng: random.Random) -> dict:
    quantity = _int(rng, 1, 50)
    r = rng.random()
    if r < 0.6:
        unit_price = round(rng.uniform(0.5, 99.99), 2)
    elif r < 0.95:
        unit_price = round(rng.uniform(100.0, 999.99), 2)
    else:
        unit_price = round(rng.uniform(1000.0, 9999.99), 2)
    return {
        "description": _description(rng),
        "sku": f"SKU-{_int(rng, 10000, 99999)}",
        "quantity": quantity,
        "unit_price": unit_price,
        "amount": round(quantity * unit_price, 2),
    }


def _tax_id(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.4:
        return f"{_pick(rng, ('DE', 'FR', 'GB', 'NL', 'IT', 'ES'))}{_int(rng, 100000000, 999999999)}"
    if r < 0.8:
        return f"{_int(rng, 10, 99)}-{_int(rng, 1000000, 9999999)}"
    return f"CHE-{_int(rng, 100, 999)}.{_int(rng, 100, 999)}.{_int(rng, 100, 999)}"


def _postcode(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.5:
        return f"{_int(rng, 10000, 99999)}"
    if r < 0.8:
        return f"{_int(rng, 1000, 9999)}"
    return (
        f"{_pick(rng, _UPPER)}{_pick(rng, _UPPER)}{_int(rng, 1, 20)} "
        f"{_int(rng, 1, 9)}{_pick(rng, _UPPER)}{_pick(rng, _UPPER)}"
    )


def _absent_gt(rng: random.Random, value):
    """The ground truth leaves a scalar field null or out in GT_ABSENT_RATE of documents."""
    r = rng.random()
    if r < GT_ABSENT_RATE:
        return None if r < GT_ABSENT_RATE / 2 else _MISSING
    return value


def _ground_truth(rng: random.Random, index: int, items: int | None) -> dict:
    year = _int(rng, 2019, 2025)
    n_items = _int(rng, 3, 7) if items is None else items
    line_items = [_line_item(rng) for _ in range(n_items)]
    total = round(sum(li["amount"] for li in line_items), 2)
    n_tags = _int(rng, 0, 4)
    fields = (
        ("invoice_id", f"INV-{year}-{index % 100000:05d}"),
        ("invoice_date", f"{year}-{_int(rng, 1, 12):02d}-{_int(rng, 1, 28):02d}"),
        ("customer_name", _customer(rng)),
        ("total_amount", total),
        ("currency", _pick(rng, _CURRENCIES)),
        (
            "vendor",
            {
                "name": _company(rng),
                "tax_id": _tax_id(rng),
                "address": {
                    "street": f"{_int(rng, 1, 999)} {_pick(rng, _STREET)} {_pick(rng, _STREET_KIND)}",
                    "city": _pick(rng, _CITIES),
                    "postcode": _postcode(rng),
                },
            },
        ),
        ("tags", rng.sample(_TAGS, n_tags)),
        ("line_items", line_items),
        ("payment_terms", _pick(rng, _TERMS) if rng.random() < 0.8 else None),
        (
            "notes",
            _pick(rng, _NOTE_HEAD) + _pick(rng, _NOTE_TAIL) + "." if rng.random() < 0.5 else None,
        ),
    )
    doc: dict = {}
    for key, value in fields:
        if key not in ("vendor", "tags", "line_items"):
            value = _absent_gt(rng, value)
        if value is not _MISSING:
            doc[key] = value
    vendor = doc["vendor"]
    for key in ("name", "tax_id"):
        value = _absent_gt(rng, vendor[key])
        if value is _MISSING:
            del vendor[key]
        else:
            vendor[key] = value
    return doc


# --------------------------------------------------------------------------- mutations


def _typo(rng: random.Random, s: str) -> str:
    """One or two character edits (substitute, delete, insert, transpose), keeping char classes."""
    if not s:
        return s
    chars = list(s)
    for _ in range(1 if rng.random() < 0.7 else 2):
        n = len(chars)
        if n == 0:
            break
        i = int(rng.random() * n)
        c = chars[i]
        pool = _DIGITS if c.isdigit() else (_UPPER if c.isupper() else _LOWER)
        op = rng.random()
        if op < 0.4:
            chars[i] = _pick(rng, pool)
        elif op < 0.65:
            del chars[i]
        elif op < 0.85:
            chars.insert(i, _pick(rng, pool))
        elif n > 1:
            j = i + 1 if i + 1 < n else i - 1
            chars[i], chars[j] = chars[j], chars[i]
    return "".join(chars)


def _recase(rng: random.Random, s: str) -> str:
    r = rng.random()
    if r < 0.4:
        return s.upper()
    if r < 0.8:
        return s.lower()
    return s.title()


def _mistake(rng: random.Random, rate: float) -> float | None:
    """None with probability 1 - rate (no mistake), else a uniform draw in [0, 1) choosing which."""
    r = rng.random()
    return None if r >= rate else r / rate


Mistakes = tuple[tuple[float, Callable[[random.Random, Any], Any]], ...]


def _mutate(rng: random.Random, value: Any, rate: float, mistakes: Mistakes) -> Any:
    """``value`` unchanged with probability 1 - rate, else the first mistake whose cut the roll is under."""
    r = _mistake(rng, rate)
    if r is None:
        return value
    for cut, change in mistakes:
        if r < cut:
            return change(rng, value)
    return mistakes[-1][1](rng, value)


def _shuffled_words(rng: random.Random, text: str) -> str:
    words = text.split()
    rng.shuffle(words)
    return " ".join(words)


def _date_mistake(kind: str) -> Callable[[random.Random, str], str]:
    def change(rng: random.Random, d: str) -> str:
        y, m, day = d.split("-")
        if kind == "day":
            return f"{y}-{m}-{int(day) % 28 + 1:02d}"  # off by one day
        if kind == "swap":
            return f"{y}-{day}-{m}"  # day and month swapped
        return f"{day}/{m}/{y}"  # reformatted

    return change


STRING_MISTAKES: Mistakes = ((0.65, _typo), (1.0, _recase))
NUMBER_MISTAKES: Mistakes = (
    (0.4, lambda rng, x: round(x + _pick(rng, (-0.01, 0.01)), 2)),
    (0.7, lambda rng, x: round(x + _pick(rng, (-0.5, 0.5)), 2)),
    (0.85, lambda rng, x: round(x * _pick(rng, (10, 0.1)), 2)),
    (1.0, lambda rng, x: round(x * rng.uniform(0.5, 1.5), 2)),
)
QUANTITY_MISTAKES: Mistakes = (
    (0.6, lambda rng, q: max(0, q + _pick(rng, (-1, 1)))),
    (0.8, lambda rng, q: q * 10),
    (1.0, lambda rng, q: _int(rng, 1, 50)),
)
DATE_MISTAKES: Mistakes = (
    (0.4, _date_mistake("day")),
    (0.6, _date_mistake("swap")),
    (0.8, _date_mistake("format")),
    (1.0, _typo),
)
CURRENCY_MISTAKES: Mistakes = (
    (0.5, lambda rng, c: c.lower()),
    (0.8, lambda rng, c: _pick(rng, _CURRENCY_WRONG)),
    (1.0, lambda rng, c: _pick(rng, _CURRENCIES)),
)
TERMS_MISTAKES: Mistakes = ((0.5, _typo), (0.7, lambda rng, t: t.upper()), (1.0, lambda rng, t: _pick(rng, _TERMS)))
NOTES_MISTAKES: Mistakes = (
    (0.5, _typo),
    (0.75, _shuffled_words),
    (1.0, lambda rng, t: t.split(".")[0]),  # trailing punctuation dropped
)


def _mutator(mistakes: Mistakes) -> Callable[[random.Random, Any, float], Any]:
    return lambda rng, value, rate: _mutate(rng, value, rate, mistakes)


_mutate_string = _mutator(STRING_MISTAKES)
_mutate_number = _mutator(NUMBER_MISTAKES)
_mutate_quantity = _mutator(QUANTITY_MISTAKES)
_mutate_date = _mutator(DATE_MISTAKES)
_mutate_currency = _mutator(CURRENCY_MISTAKES)
_mutate_terms = _mutator(TERMS_MISTAKES)
_mutate_notes = _mutator(NOTES_MISTAKES)


# --------------------------------------------------------------------------- prediction


def _confidence(rng: random.Random, changed: bool) -> float:
    r = rng.random
    noise = r() + r() + r() - 1.5  # near-normal, standard deviation 0.5
    c = 0.5 + 0.4 * noise if changed else 0.85 + 0.24 * noise
    return round(min(1.0, max(0.0, c)), 3)


def _emit(rng: random.Random, gt_value, pred_value):
    """Wrap a predicted leaf with a confidence in CONFIDENCE_RATE of cases (never a null)."""
    if pred_value is None or pred_value is _MISSING or rng.random() >= CONFIDENCE_RATE:
        return pred_value
    return {"_value": pred_value, "_confidence": _confidence(rng, pred_value != gt_value)}


def _leaf(rng: random.Random, gt_value, mutate, rate: float, absent_rate: float = PRED_ABSENT_RATE):
    """Predicted value for one scalar leaf: null/missing, "" (strings), mutated or copied."""
    r = rng.random()
    if gt_value is None:
        return None if r < 0.5 else _MISSING  # the truth has nothing, nor does the model
    if r < absent_rate:
        return None if r < absent_rate / 2 else _MISSING
    if isinstance(gt_value, str) and r < absent_rate + EMPTY_STRING_RATE:
        return ""
    return _emit(rng, gt_value, mutate(rng, gt_value, rate))


def _put(doc: dict, key: str, value) -> None:
    if value is not _MISSING:
        doc[key] = value


def _predict_item(rng: random.Random, li: dict) -> dict:
    out: dict = {}
    _put(out, "description", _leaf(rng, li["description"], _mutate_string, 0.15, 0.02))
    _put(out, "sku", _leaf(rng, li["sku"], _mutate_string, 0.10, 0.03))
    _put(out, "quantity", _leaf(rng, li["quantity"], _mutate_quantity, 0.08, 0.02))
    _put(out, "unit_price", _leaf(rng, li["unit_price"], _mutate_number, 0.10, 0.02))
    _put(out, "amount", _leaf(rng, li["amount"], _mutate_number, 0.10, 0.03))
    return out


def _hallucinated_item(rng: random.Random) -> dict:
    li = _line_item(rng)
    return {k: _emit(rng, None, v) for k, v in li.items()}


def _predict_tags(rng: random.Random, tags: list):
    r = rng.random()
    if r < 0.04:
        return None if r < 0.02 else _MISSING
    out = []
    for t in tags:
        r = rng.random()
        if r < 0.10:
            continue  # dropped
        p = _typo(rng, t) if r < 0.20 else t
        out.append(_emit(rng, t, p))
    if len(out) > 1 and rng.random() < 0.30:
        rng.shuffle(out)
    if rng.random() < 0.05:
        out.insert(_int(rng, 0, len(out)), _emit(rng, None, _pick(rng, _TAGS)))
    return out


def _predict_line_items(rng: random.Random, items: list):
    if rng.random() < 0.02:
        return _MISSING
    out = [_predict_item(rng, li) for li in items]
    if out and rng.random() < DROP_RATE:
        for _ in range(1 if rng.random() < 0.7 or len(out) < 3 else 2):
            del out[int(rng.random() * len(out))]
    if rng.random() < INSERT_RATE:
        for _ in range(1 if rng.random() < 0.8 else 2):
            out.insert(_int(rng, 0, len(out)), _hallucinated_item(rng))
    if len(out) > 1 and rng.random() < SHUFFLE_RATE:
        rng.shuffle(out)
    return out


def _predict_vendor(rng: random.Random, vendor: dict):
    r = rng.random()
    if r < 0.03:
        return None if r < 0.015 else _MISSING
    out: dict = {}
    _put(out, "name", _leaf(rng, vendor.get("name"), _mutate_string, 0.15))
    _put(out, "tax_id", _leaf(rng, vendor.get("tax_id"), _mutate_string, 0.10))
    address = vendor["address"]
    r = rng.random()
    if r < 0.03:
        if r < 0.015:
            out["address"] = None
    else:
        a: dict = {}
        _put(a, "street", _leaf(rng, address["street"], _mutate_string, 0.15))
        _put(a, "city", _leaf(rng, address["city"], _mutate_string, 0.10))
        _put(a, "postcode", _leaf(rng, address["postcode"], _mutate_string, 0.10))
        out["address"] = a
    return out


def _prediction(rng: random.Random, gt: dict) -> dict:
    pred: dict = {}
    _put(pred, "invoice_id", _leaf(rng, gt.get("invoice_id"), _mutate_string, 0.08))
    _put(pred, "invoice_date", _leaf(rng, gt.get("invoice_date"), _mutate_date, 0.12))
    _put(pred, "customer_name", _leaf(rng, gt.get("customer_name"), _mutate_string, 0.15))
    _put(pred, "total_amount", _leaf(rng, gt.get("total_amount"), _mutate_number, 0.15))
    _put(pred, "currency", _leaf(rng, gt.get("currency"), _mutate_currency, 0.08))
    _put(pred, "vendor", _predict_vendor(rng, gt["vendor"]))
    _put(pred, "tags", _predict_tags(rng, gt["tags"]))
    _put(pred, "line_items", _predict_line_items(rng, gt["line_items"]))
    _put(pred, "payment_terms", _leaf(rng, gt.get("payment_terms"), _mutate_terms, 0.20))
    _put(pred, "notes", _leaf(rng, gt.get("notes"), _mutate_notes, 0.30, 0.15))
    return pred


# --------------------------------------------------------------------------- public API


def generate(n: int, seed: int = 0, items: int | None = None) -> Iterator[tuple[dict, dict]]:
    """Yield ``n`` (ground truth, prediction) pairs, deterministically from ``seed``.

    ``items`` forces the ground truth's line-item count (default: 3 to 7 per document).
    """
    if n < 0:
        raise ValueError("n must be >= 0")
    if items is not None and items < 0:
        raise ValueError("items must be >= 0")
    rng = random.Random(seed)
    for i in range(n):
        gt = _ground_truth(rng, i, items)
        yield gt, _prediction(rng, gt)


def write(out_dir: Path, n: int, seed: int = 0, items: int | None = None) -> tuple[Path, Path]:
    """Write ``gt.jsonl`` and ``pred.jsonl`` (one object per line) into ``out_dir``, streaming."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    gt_path, pred_path = out_dir / "gt.jsonl", out_dir / "pred.jsonl"
    dumps = orjson.dumps
    with open(gt_path, "wb", buffering=1 << 20) as fg, open(pred_path, "wb", buffering=1 << 20) as fp:
        for gt, pred in generate(n, seed, items):
            fg.write(dumps(gt) + b"\n")
            fp.write(dumps(pred) + b"\n")
    return gt_path, pred_path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--items", type=int, default=None, help="exact line-item count per document")
    args = ap.parse_args(argv)
    if args.n < 0 or (args.items is not None and args.items < 0):
        ap.error("N and --items must be >= 0")
    t0 = time.perf_counter()
    gt_path, pred_path = write(args.out_dir, args.n, args.seed, args.items)
    sys.stderr.write(f"wrote {args.n} documents to {gt_path} and {pred_path} in {time.perf_counter() - t0:.2f}s\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
