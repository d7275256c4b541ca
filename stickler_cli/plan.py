"""The compiled comparison plan: everything that depends only on the schema.

Built once by ``schema.compile_schema``; the engine walks it for every document
without looking anything up. Frozen so that a plan can be shared by threads and
pickled to worker processes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # an annotation only: the plan's types load no comparator (nor numpy)
    from .comparators import Comparator


# The keys of a rich value ({"_value": v, "_confidence": c, "_bbox": b, "_alternatives": […]}). Where an object's
# schema declares one of them as a property, such an object is that object's data, never a rich value.
RICH_KEYS = frozenset(("_value", "_confidence", "_bbox", "_alternatives"))


class Kind(Enum):
    PRIMITIVE = "primitive"  # string, number, integer, boolean (or untyped)
    PRIMITIVE_LIST = "primitive_list"  # array whose items are primitives
    OBJECT = "object"  # nested object, compared field by field
    OBJECT_LIST = "object_list"  # array of objects, Hungarian-matched


@dataclass(frozen=True, slots=True)
class FieldPlan:
    key: str  # property name in the JSON document
    index: int  # position in Plan.fields; DocResult arrays are indexed by it
    path: str  # dotted path used in reports: line_items.unit_price
    kind: Kind
    json_type: str  # the (non-null) JSON type, or the item type for lists
    pointer: str  # JSON pointer of the property in the schema, for messages
    threshold: float
    weight: float
    clip: bool
    aggregate: bool
    comparator: Comparator | None = None  # primitives and primitive lists
    comparator_name: str = ""
    model: "ModelPlan | None" = None  # objects and lists of objects
    required: bool = False
    nullable: bool = False
    default: Any = None
    # What inference chose and why (x-aws-stickler-infer-unspecified or comparator "auto"), as
    # `stickler schema check` shows it; "" when the schema configured the field itself.
    inferred: str = ""
    # Whether a value here (a list's item too) of the form {"_value": v, ...} is a rich value, read as v: False
    # where this object (a list's item object) declares a key of RICH_KEYS as a property (it is then data).
    rich: bool = True
    # How a list's items are paired before Hungarian matching (x-aws-stickler-match-key, -match-order): the key
    # properties of an array of objects, or "position"; () and "" pair by similarity alone.
    match_key: tuple[str, ...] = ()
    match_order: str = ""

    @property
    def pairing(self) -> str:
        """The pairing rule of a list field as `stickler schema check` shows it (key sku, key sku+line_no,
        position, hungarian); "-" for a field that is no list."""
        if self.kind not in (Kind.PRIMITIVE_LIST, Kind.OBJECT_LIST):
            return "-"
        if self.match_key:
            return "key " + "+".join(self.match_key)
        return self.match_order or "hungarian"

    @property
    def deciding_threshold(self) -> float:
        """The threshold this field's verdicts are decided by, as reports show it: a list of objects
        is decided by its items' match threshold, not by its own ``threshold``."""
        if self.kind is Kind.OBJECT_LIST and self.model is not None:
            return self.model.match_threshold
        return self.threshold


@dataclass(frozen=True, slots=True)
class ModelPlan:
    name: str
    fields: tuple[FieldPlan, ...]
    match_threshold: float
    pointer: str
    total_weight: float = field(default=0.0)

    def field(self, key: str) -> FieldPlan | None:
        for f in self.fields:
            if f.key == key:
                return f
        return None

    def declares_rich_keys(self) -> bool:
        """Whether this object's schema declares ``_value`` (or another key of RICH_KEYS) as a property."""
        return any(f.key in RICH_KEYS for f in self.fields)

    def walk(self):
        """Every FieldPlan below this model, depth first, parents before children."""
        for f in self.fields:
            yield f
            if f.model is not None:
                yield from f.model.walk()


@dataclass(frozen=True, slots=True)
class Plan:
    root: ModelPlan
    schema: dict  # the schema as loaded, refs unresolved (for validation/reporting)
    source: str  # file path or "<memory>"
    sha256: str  # hash of the schema file's bytes, carried into reports and states
    source_files: tuple[str, ...] = ()  # files read: the schema's, then those its $refs name (load_schema)
    # The documents read with the schema (files its references name, --schema-resource), by the URI its
    # registry holds each under: what a worker or a state file needs to resolve as the loader did.
    resources: dict[str, Any] = field(default_factory=dict)
    references: Any = field(default=None, repr=False, compare=False)  # schema.refs.References, built once
    assert_formats: bool = False  # `format` checked as an assertion (--assert-formats), not an annotation
    # (pointer, why) of schema settings that decide nothing where they stand: warnings of schema check and the
    # commands that score (x-aws-stickler-threshold on a list of objects).
    unread: tuple[tuple[str, str], ...] = ()

    @property
    def model_name(self) -> str:
        return self.root.name

    @property
    def fields(self) -> tuple[FieldPlan, ...]:
        """Every field of the plan, ordered by ``FieldPlan.index``."""
        return tuple(sorted(self.root.walk(), key=lambda f: f.index))

    def judged_fields(self) -> list[FieldPlan]:
        """The fields whose comparator keeps a judge's bill (``Comparator.bills``: an LLM), in plan order: the ones
        the engine hands the bill of, the run's parent asks first (run/judge_first.py) and the report bills."""
        return [f for f in self.fields if f.comparator is not None and f.comparator.bills]

    def data_paths(self) -> frozenset[str]:
        """The field paths where an object holding ``_value`` is data, not a rich value (FieldPlan.rich): ""
        for the record itself when its schema declares ``_value``. For the readers that walk records by path
        (the conformance fallback, slicing), as the engine reads each field's ``rich``."""
        found = {f.path for f in self.root.walk() if not f.rich}
        if self.root.declares_rich_keys():
            found.add("")
        return frozenset(found)
