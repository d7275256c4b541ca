"""Our inferred comparator choices equal stickler-eval 1.0.0's ``stickler.auto`` ones: every word
of its name rules (and camelCase, plural and digit variants, and names no rule knows), crossed with
every Python type whose information JSON values carry (bool, Literal, int, float, date, datetime,
str), asked of the library's own ``infer_field_config``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from stickler_cli.schema.inference import RULES, choose

pytestmark = pytest.mark.oracle

# Python annotation (as the oracle script spells it) -> the kind our inference gives such values.
KINDS = {
    "bool": "boolean",
    "Literal['a', 'b']": "enum",
    "int": "integer",
    "float": "number",
    "datetime.date": "date",
    "datetime.datetime": "date-time",
    "str": "string",
}
EXTRA_NAMES = [
    "x",
    "status",
    "invoiceId",
    "postalCode",
    "isbn13",
    "ids",
    "addresses",
    "total_amount",
    "zip_code",
    "phone_number",
    "due_date",
    "unitPrice",
    "ship-to-city",
    "number",
    "type",
    "key",
    "notes2",
]
SCRIPT = """
import datetime, json, sys
from typing import Literal
from pydantic.fields import FieldInfo
from stickler.auto.inference import infer_field_config
out = []
for name, annotation in json.load(sys.stdin):
    spec = infer_field_config(name, FieldInfo(annotation=eval(annotation)))
    out.append([spec.comparator_name, spec.comparator_config, spec.threshold, spec.clip_under_threshold])
print(json.dumps(out))
"""


def _library_config(comparator: str, config: dict) -> dict:
    """The library's options as ours spell them (docs/parity.md row 1: our Exact default differs)."""
    if comparator == "ExactComparator":
        return {"case_sensitive": config.get("case_sensitive", True), "normalize": False}
    return config


def test_every_name_rule_and_type_chooses_as_the_library_does() -> None:
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    names = sorted({token for rule in RULES for token in rule.tokens} | set(EXTRA_NAMES))
    cases = [(name, annotation) for name in names for annotation in KINDS]
    done = subprocess.run([python, "-c", SCRIPT], input=json.dumps(cases), capture_output=True, text=True, check=True)
    theirs = json.loads(done.stdout)
    assert len(theirs) == len(cases) > 400
    phone_missing = "PhoneComparator" not in {t[0] for t in theirs}  # the oracle degrades it without phonenumbers
    for (name, annotation), (comparator, config, threshold, clip) in zip(cases, theirs):
        ours = choose(name, KINDS[annotation], frozenset({"PhoneComparator"}) if phone_missing else frozenset())
        assert (ours.comparator, ours.config, ours.threshold, ours.clip) == (
            comparator,
            _library_config(comparator, config),
            threshold,
            clip,
        ), (name, annotation)


def test_inference_from_data_differs_from_the_library_only_on_identifier_names() -> None:
    """`stickler schema infer` (issue 37) reads more identifier words in a name than the library (docs/parity.md
    row 36): a name one of them decides gets strict Exact for text; every other choice is the library's."""
    from stickler_cli.schema.inference import (
        DATA_RULES,
        IDENTIFIER_HEADS,
        IDENTIFIER_LAST,
        IDENTIFIER_WORDS,
        STRINGY,
        _matching_rule,
    )

    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    ours_only = [
        *IDENTIFIER_WORDS.split(),
        *IDENTIFIER_LAST.split(),
        *(f"invoice_{h}" for h in IDENTIFIER_HEADS.split()),
        "customerNumber",
        "supplier_vat",
        "vat_amount",
        "vat_rate",
        "number_of_items",
        "phone_number",
        "zip_no",
    ]
    names = sorted({token for rule in RULES for token in rule.tokens} | set(EXTRA_NAMES) | set(ours_only))
    cases = [(name, annotation) for name in names for annotation in KINDS]
    done = subprocess.run([python, "-c", SCRIPT], input=json.dumps(cases), capture_output=True, text=True, check=True)
    phone_missing = "PhoneComparator" not in {t[0] for t in json.loads(done.stdout)}
    differ = set()
    for (name, annotation), (comparator, config, threshold, clip) in zip(cases, json.loads(done.stdout)):
        ours = choose(
            name, KINDS[annotation], frozenset({"PhoneComparator"}) if phone_missing else frozenset(), DATA_RULES
        )
        found = _matching_rule(name, DATA_RULES, STRINGY)
        if found and found[0] not in RULES and KINDS[annotation] == "string":
            assert (ours.comparator, ours.config, ours.threshold, ours.clip) == (
                "ExactComparator",
                {"case_sensitive": True, "normalize": False},
                1.0,
                True,
            ), name
            differ.add(name)
            continue
        assert (ours.comparator, ours.config, ours.threshold, ours.clip) == (
            comparator,
            _library_config(comparator, config),
            threshold,
            clip,
        ), (name, annotation)
    assert {"iban", "invoice_number", "invoice_no", "customerNumber", "vat", "supplier_vat"} <= differ
    assert not differ & {"vat_amount", "vat_rate", "number_of_items", "phone_number", "zip_no", "number"}
