"""Compile an annotated JSON Schema into an immutable comparison ``Plan``.

All schema interpretation happens here, once: type resolution (nullable types,
``anyOf`` with null, ``$ref``), the defaults by JSON type, and validation of
every ``x-aws-stickler-*`` value with the JSON pointer of the offending node.
Before and after, ``audit`` checks the schema as JSON Schema (nesting, metaschema,
patterns, references), so that nothing a schema says can crash or hang a run later.
References are followed through the schema's registry (``refs.References``), the one
the conformance checker and jsonschema use.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
from pathlib import Path
from typing import Any, Mapping

import orjson

from .. import comparators, limits
from ..errors import SchemaError, suggest
from ..plan import FieldPlan, Kind, ModelPlan, Plan
from . import audit, extensions as ext
from .conformance import ROOT
from .refs import References, escape
from .registry import TooLarge, gather, schema_file_bytes

PRIMITIVE_TYPES = ("string", "number", "integer", "boolean")

# JSON type -> (default comparator, default threshold), as the seeds' table gives.
TYPE_DEFAULTS: dict[str, tuple[str, float]] = {
    "string": ("LevenshteinComparator", 0.5),
    "number": ("NumericComparator", 0.5),
    "integer": ("NumericComparator", 0.5),
    "boolean": ("ExactComparator", 1.0),
}
EXACT_DEFAULT = ("ExactComparator", 1.0)  # enum, const, mixed types, null
# String formats that say how to compare (as stickler-eval reads them).
FORMAT_DEFAULTS: dict[str, tuple[str, float]] = {
    "date": ("DateComparator", 1.0),
    "date-time": ("DateComparator", 1.0),
    "uri": EXACT_DEFAULT,
    "uuid": EXACT_DEFAULT,
    "time": EXACT_DEFAULT,
}
OBJECT_THRESHOLD = 0.7
STRUCTURED = "StructuredModelComparator"
WHOLE_VALUE_THRESHOLD = 0.5  # an array/object scored as one value (e.g. a bounding box)
# An object schema with no properties is a free-form mapping (a Dict[str, Any] field): compared as one
# value, by default equal or not as JSON (keys in any order, strings and numbers as written), and
# classified at 1.0 whatever its comparator, as in stickler-eval 1.0.0.
MAPPING_DEFAULT = ("ExactComparator", {"case_sensitive": True, "normalize": False})
MAPPING_THRESHOLD = 1.0
NAMED_COMPARATOR_THRESHOLD = 0.5  # a comparator named without a threshold
DEFAULT_MATCH_THRESHOLD = 0.7
DEFAULT_MODEL_NAME = "DynamicModel"


def load_schema(path: str | Path, resources: Mapping[str, str] | None = None, assert_formats: bool = False) -> Plan:
    """Read a schema file, and the documents its references name, and compile it; every failure is a
    SchemaError naming the file. ``resources`` maps URLs to files (``--schema-resource``; a URL ending
    in ``/`` to a directory)."""
    source = str(path)
    try:
        data = schema_file_bytes(path)
    except TooLarge as exc:
        raise SchemaError(f"schema file {exc}", "/", source) from None
    except FileNotFoundError:
        raise SchemaError("schema file not found", "/", source) from None
    except OSError as exc:
        raise SchemaError(f"cannot read schema: {exc.strerror}", "/", source) from None
    try:
        schema = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise SchemaError(f"not valid JSON: {exc}", "/", source) from None
    found: dict[str, Any] = {}
    referenced: tuple[Path, ...] = ()
    try:
        if isinstance(schema, dict):
            found, referenced = gather(schema, Path(path).parent, Path(path).name, resources)
        sha256 = _digest(schema, found) if found else hashlib.sha256(data).hexdigest()
        plan = compile_schema(schema, source=source, sha256=sha256, resources=found, assert_formats=assert_formats)
    except SchemaError as exc:
        raise exc.with_source(source) from None
    return dataclasses.replace(plan, source_files=(source, *map(str, referenced)))


def compile_schema(
    schema: Any,
    source: str = "<memory>",
    sha256: str | None = None,
    resources: Mapping[str, Any] | None = None,
    assert_formats: bool = False,
) -> Plan:
    """Compile an already parsed schema (checked first: see ``audit``). ``resources`` (URI -> document)
    are the documents read with it (``load_schema``, or a state file); nothing else is ever read."""
    if not isinstance(schema, dict):
        raise SchemaError("a schema must be a JSON object")
    bounds = limits.current()
    patterns = audit.check_document(schema, bounds)  # nesting bounded before anything recurses into it
    audit.check_metaschema(schema)
    resources = dict(resources or {})
    for uri, document in resources.items():
        audit.check_resource(uri, document, schema, patterns, bounds)
    if sha256 is None:
        sha256 = _digest(schema, resources) if resources else hashlib.sha256(_canonical(schema)).hexdigest()
    try:
        references = References(schema, resources, _file_name(source))
        compiler = _Compiler(schema, bounds, references)
        node, pointer = references.merged(schema, ""), ""
        ext.refuse_field_keys("/", "a property, not on the root object", node)
        root = compiler.model(node, pointer or "", prefix="", refs=(), infer=False)
        audit.check_references(schema, patterns, bounds, references)
    except RecursionError:  # only when a limit was raised past what Python's stack allows
        raise SchemaError("nested too deeply for Python's recursion limit; lower --limit schema-depth", "/") from None
    return Plan(
        root=root,
        schema=schema,
        source=source,
        sha256=sha256,
        resources=resources,
        references=references,
        assert_formats=assert_formats,
        unread=tuple(compiler.unread),
    )


def check_ready(plan: Plan, install: bool = True) -> None:
    """Before scoring: every comparator has what only the user can give it (an LLM endpoint).

    Compiling a schema (``schema check``, ``merge``) needs none of it; scoring does, and a
    comparator that lacks it stops the run here, before any data is read, naming the
    field's JSON pointer. Here, not in comparators/: the pointer is the schema's
    (``x-aws-stickler-comparator``), and comparators/ sits below the plan and the schema.
    ``install`` False (``eval --dry-run``): the settings are checked, nothing is opened or installed.
    """
    if f"{comparators.__name__}.llm" not in sys.modules:  # no LLMComparator was built: nothing to check
        return
    from ..comparators.llm import AccessError, LLMComparator, current_access

    for f in plan.fields:
        if not isinstance(f.comparator, LLMComparator):
            continue
        try:
            f.comparator.ready() if install else f.comparator.settings(current_access())
        except AccessError as exc:
            if exc.key is None:  # the user's own setting (a key variable, a cache file): no schema pointer
                raise
            where = f"{f.pointer}/{ext.PREFIX}comparator" + (f"-config/{exc.key}" if exc.key else "")
            raise SchemaError(str(exc), where, plan.source) from None


def _file_name(source: str) -> str | None:
    """The schema file's name, under which the documents it references may refer back to it."""
    return None if source.startswith("<") else Path(source).name


def _digest(schema: dict, resources: Mapping[str, Any]) -> str:
    """The hash of a schema read with other documents: the schema and every document, by URI, canonical."""
    return hashlib.sha256(_canonical({"schema": schema, "resources": dict(sorted(resources.items()))})).hexdigest()


def _canonical(schema: dict) -> bytes:
    """The schema's bytes for its hash: keys sorted (Python's json past the 254 levels orjson writes)."""
    try:
        return orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        import json

        return json.dumps(schema, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


class _Compiler:
    def __init__(self, root: dict, bounds: limits.Limits, references: References) -> None:
        self.root = root
        self.refs = references
        self.bounds = bounds
        self.next_index = 0
        self.visited = 0  # subschemas visited: each use of a $ref visits its target again
        self.unread: list[tuple[str, str]] = []  # (pointer, why) of settings that decide nothing where they stand
        # Report path -> JSON pointer of the field reported there: two fields must never share a row.
        self.paths: dict[str, str] = {}
        self.unavailable: frozenset[str] | None = None  # comparators inference cannot choose here, when first asked

    def _visit(self, pointer: str) -> None:
        """Count one more subschema visited; refuse once the bound is passed (while compiling, not after)."""
        self.visited += 1
        if self.visited > self.bounds.schema_nodes:
            raise SchemaError(
                f"expands to more than {self.bounds.schema_nodes:,} subschemas once its references are "
                "followed at every use; --limit schema-nodes=N raises the bound",
                pointer,
            )

    def _claim(self, path: str, pointer: str) -> None:
        """Give report path ``path`` to the field at ``pointer``, unless another field reports there."""
        if path == ROOT:
            raise SchemaError(
                f"a top-level property named {ROOT!r} would report as the document itself (where "
                "violations of the whole record are counted); rename it",
                pointer,
            )
        other = self.paths.get(path)
        if other is not None:
            raise SchemaError(
                f"two fields would report as {path!r}: {other} and {pointer} (a '.' in a property "
                "name reads as nesting); rename one",
                pointer,
            )
        self.paths[path] = pointer

    def model(self, node: dict, pointer: str, prefix: str, refs: tuple[tuple[str, int], ...], infer: bool) -> ModelPlan:
        """The plan of an object schema; ``infer`` is the inference scope it inherits (its own
        ``x-aws-stickler-infer-unspecified`` sets it for its subtree)."""
        depth = self.bounds.schema_depth
        if pointer.count("/properties/") >= depth:
            raise SchemaError(
                f"objects nested more than {depth} levels deep; stickler compares at most {depth} "
                "(--limit schema-depth=N raises it)",
                pointer,
            )
        self._visit(pointer or "/")
        ext.check_keys(node, pointer or "/")
        properties = node.get("properties")
        if not isinstance(properties, dict) or not properties:
            raise SchemaError("an object schema needs a non-empty 'properties' object", pointer or "/")
        required = node.get("required", [])
        if not isinstance(required, list):
            raise SchemaError("'required' must be an array of property names", f"{pointer}/required")
        name = ext.get(node, "model-name", pointer) or DEFAULT_MODEL_NAME
        match = ext.get(node, "match-threshold", pointer)
        match = DEFAULT_MATCH_THRESHOLD if match is None else match
        scoped = ext.get(node, "infer-unspecified", pointer)
        infer = infer if scoped is None else scoped
        fields = []
        for key, sub in properties.items():
            sub_pointer = f"{pointer}/properties/{escape(key)}"
            if not isinstance(sub, dict):
                raise SchemaError("a property schema must be an object", sub_pointer)
            path = f"{prefix}{key}"
            self._claim(path, sub_pointer)
            fields.append(self.field(key, sub, sub_pointer, path, key in required, refs, infer, match))
        return ModelPlan(
            name=name,
            fields=tuple(fields),
            match_threshold=match,
            pointer=pointer or "/",
            total_weight=sum(f.weight for f in fields),
        )

    def field(
        self,
        key: str,
        raw: dict,
        pointer: str,
        path: str,
        required: bool,
        refs: tuple[tuple[str, int], ...],
        infer: bool = False,
        match: float = DEFAULT_MATCH_THRESHOLD,
    ) -> FieldPlan:
        refs = self._enter(raw, pointer, refs)
        index = self.next_index
        self.next_index += 1
        if self.next_index > self.bounds.plan_fields:
            raise SchemaError(
                f"more than {self.bounds.plan_fields:,} fields once references are followed; stickler "
                "compares at most that many (--limit plan-fields=N raises it)",
                pointer,
            )
        self._visit(pointer)
        node = self.refs.merged(raw, pointer)
        ext.check_keys(raw, pointer)
        ext.check_keys(node, pointer)
        json_type, nullable, node, refs = self._type(node, pointer, refs)
        for key_name in ext.MODEL_KEYS:
            if json_type != "object" and ext.PREFIX + key_name in raw:
                raise SchemaError(
                    f"'{ext.PREFIX}{key_name}' belongs on an object schema, not on a {json_type}",
                    pointer,
                )
        match_key = ext.get(node, "match-key", pointer)
        match_order = ext.get(node, "match-order", pointer)
        if match_key is not None and match_order is not None:
            raise SchemaError(
                f"'{ext.PREFIX}match-key' and '{ext.PREFIX}match-order' both say how this list's items pair: keep one",
                pointer,
            )

        def unpaired(what: str) -> None:
            """Refuse a pairing keyword on a field whose items are not paired one by one (``what`` it is)."""
            if match_key is not None:
                raise SchemaError(f"'{ext.PREFIX}match-key' belongs on an array of objects, not on {what}", pointer)
            if match_order is not None:
                raise SchemaError(f"'{ext.PREFIX}match-order' belongs on an array, not on {what}", pointer)

        weight = ext.get(node, "weight", pointer)
        common = dict(
            key=key,
            index=index,
            path=path,
            pointer=pointer,
            weight=1.0 if weight is None else weight,
            clip=bool(ext.get(node, "clip-under-threshold", pointer)),
            aggregate=bool(ext.get(node, "aggregate", pointer)),
            required=required,
            nullable=nullable,
            default=node.get("default"),
        )
        threshold = ext.get(node, "threshold", pointer)
        asked = ext.get(node, "comparator", pointer)
        auto = asked == ext.AUTO
        wants = auto or (infer and asked is None)  # a named comparator is the author's whole choice

        def inferred(kind: Kind, item_type: str, choice: Any, values: dict | None = None) -> FieldPlan:
            """``values``: the schema naming the values' enum/const (the list's items), else the property's."""
            planned = self._inferred(node, pointer, kind, item_type, choice, threshold, common)
            _keep_apart(planned.comparator, node if values is None else values)
            return planned

        named = self._named_class(node, pointer) if json_type in ("object", "array") and not auto else None
        if named is not None and named.whole_value:
            unpaired(f"{_a(json_type)} compared as one value by its comparator")
            comparator, name = self._comparator(node, pointer, "")
            return FieldPlan(
                kind=Kind.PRIMITIVE,
                json_type=json_type,
                comparator=comparator,
                comparator_name=name,
                threshold=WHOLE_VALUE_THRESHOLD if threshold is None else threshold,
                **common,
            )

        def mapping(kind: Kind) -> FieldPlan:
            """A free-form mapping (or a list of them), compared as one value."""
            if wants:
                return inferred(kind, "object", _inference().choose_for_mapping(match))
            comparator, name = self._comparator(node, pointer, MAPPING_DEFAULT[0], default_config=MAPPING_DEFAULT[1])
            return FieldPlan(
                kind=kind,
                json_type="object",
                comparator=comparator,
                comparator_name=name,
                threshold=MAPPING_THRESHOLD if threshold is None else threshold,
                **common,
            )

        if json_type != "array":
            unpaired(_a(json_type))
        if json_type == "object" and _free_form(node):
            return mapping(Kind.PRIMITIVE)

        if json_type == "object":
            if auto:
                raise SchemaError(
                    f"'{ext.PREFIX}comparator': 'auto' has nothing to infer on an object compared "
                    f"field by field; set '{ext.PREFIX}infer-unspecified': true on it to infer its "
                    "fields",
                    pointer,
                )
            self._no_comparator(node, pointer, named, "an object is compared field by field")
            model = self.model(node, pointer, prefix=f"{path}.", refs=refs, infer=infer)
            return FieldPlan(
                kind=Kind.OBJECT,
                json_type="object",
                model=model,
                rich=not model.declares_rich_keys(),
                threshold=OBJECT_THRESHOLD if threshold is None else threshold,
                **common,
            )

        if json_type == "array":
            items = node.get("items", {})
            if not isinstance(items, dict):
                raise SchemaError("'items' must be a single schema object", f"{pointer}/items")
            item_pointer = f"{pointer}/items"
            refs = self._enter(items, item_pointer, refs)
            item_node = self.refs.merged(items, item_pointer)
            # Read on the list field only: refused on its items, not dropped (as stickler-eval 1.0.0 does).
            ext.refuse_field_keys(
                item_pointer, "the list field, not on its 'items', where it would not be read", items, item_node
            )
            item_type, _, item_node, refs = self._type(item_node, item_pointer, refs)
            if match_key is not None and (item_type != "object" or _free_form(item_node)):
                unpaired(f"an array of {'free-form objects' if item_type == 'object' else item_type + 's'}")
            if item_type == "object" and _free_form(item_node):
                return dataclasses.replace(mapping(Kind.PRIMITIVE_LIST), match_order=match_order or "")
            if item_type == "object":
                if auto:
                    raise SchemaError(
                        f"'{ext.PREFIX}comparator': 'auto' has nothing to infer on a list of objects "
                        f"(its items are paired by Hungarian matching); set '{ext.PREFIX}"
                        "infer-unspecified': true on its 'items' to infer their fields",
                        pointer,
                    )
                self._no_comparator(node, pointer, named, "list items are matched object by object")
                model = self.model(item_node, item_pointer, prefix=f"{path}.", refs=refs, infer=infer)
                if threshold is not None:  # stickler-eval 1.0.0 decides by the items' match threshold too: said
                    self.unread.append(
                        (
                            f"{pointer}/{ext.PREFIX}threshold",
                            "decides nothing on a list of objects: its "
                            f"items are paired and decided at {ext.PREFIX}match-threshold "
                            f"({model.match_threshold:g} here), on its 'items'",
                        )
                    )
                for name in match_key or ():
                    if model.field(name) is None:
                        known = [f.key for f in model.fields]
                        hint = suggest(name, known)
                        raise SchemaError(
                            f"'{ext.PREFIX}match-key' names {name!r}, which is no property of the items{hint}; "
                            f"their properties: {', '.join(known)}",
                            pointer,
                        )
                return FieldPlan(
                    kind=Kind.OBJECT_LIST,
                    json_type="object",
                    model=model,
                    rich=not model.declares_rich_keys(),
                    threshold=DEFAULT_MATCH_THRESHOLD if threshold is None else threshold,
                    match_key=match_key or (),
                    match_order=match_order or "",
                    **common,
                )
            if item_type == "array":
                raise SchemaError("arrays of arrays are not supported", item_pointer)
            if wants:
                planned = inferred(
                    Kind.PRIMITIVE_LIST, item_type, self._choose(key, _schema_kind(item_type, item_node)), item_node
                )
                return dataclasses.replace(planned, match_order=match_order or "")
            name, default_threshold = self._default_comparator(item_type, item_node, node)
            comparator, name = self._comparator(node, pointer, name)
            _keep_apart(comparator, item_node)
            return FieldPlan(
                kind=Kind.PRIMITIVE_LIST,
                json_type=item_type,
                comparator=comparator,
                comparator_name=name,
                threshold=default_threshold if threshold is None else threshold,
                match_order=match_order or "",
                **common,
            )

        if wants:
            return inferred(Kind.PRIMITIVE, json_type, self._choose(key, _schema_kind(json_type, node)))
        name, default_threshold = self._default_comparator(json_type, node)
        comparator, name = self._comparator(node, pointer, name)
        _keep_apart(comparator, node)
        return FieldPlan(
            kind=Kind.PRIMITIVE,
            json_type=json_type,
            comparator=comparator,
            comparator_name=name,
            threshold=default_threshold if threshold is None else threshold,
            **common,
        )

    # -- pieces -----------------------------------------------------------------

    def _choose(self, key: str, kind: str) -> Any:
        """The inferred choice for property ``key`` of schema kind ``kind``."""
        inference = _inference()
        if self.unavailable is None:
            self.unavailable = inference.unavailable_comparators()
        return inference.choose_for_property(key, kind, self.unavailable)

    def _inferred(
        self,
        node: dict,
        pointer: str,
        kind: Kind,
        json_type: str,
        choice: Any,
        threshold: float | None,
        common: dict[str, Any],
    ) -> FieldPlan:
        """The plan of a field whose comparator is inferred: the author's threshold, clip and comparator
        options still win (the options merged over the inferred ones), as in stickler-eval 1.0.0."""
        author = ext.get(node, "comparator-config", pointer) or {}
        config = {**choice.config, **author}
        comparator = self._build(choice.comparator, config, node, pointer)
        clip = ext.get(node, "clip-under-threshold", pointer)
        kept = [
            what
            for what, given in (("options", author), ("threshold", threshold is not None), ("clip", clip is not None))
            if given
        ]
        threshold = choice.threshold if threshold is None else threshold
        clip = choice.clip if clip is None else clip
        shown = _options(choice.comparator, config)
        each = "each item: " if kind is Kind.PRIMITIVE_LIST else ""
        inferred = (
            f"{choice.comparator}{f' ({shown})' if shown else ''}, threshold {float(threshold)}"
            f"{'' if clip else ', not clipped'} — inferred: {each}{choice.reason}"
            + (f"; yours: {', '.join(kept)}" if kept else "")
        )
        return FieldPlan(
            kind=kind,
            json_type=json_type,
            comparator=comparator,
            comparator_name=comparator.name,
            threshold=threshold,
            inferred=inferred,
            **{**common, "clip": clip},
        )

    def _enter(self, node: dict, pointer: str, refs: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
        """Track the $refs open above this node, by what they lead to, so that recursion is an error, not
        a hang (a recursive schema cannot be a finite plan; conformance checking follows it)."""
        ref = node.get("$ref")
        if ref is None:
            return refs
        target, _ = self.refs.follow(node, "$ref", pointer)
        if any(id(target) == opened for _, opened in refs):
            chain = " -> ".join((*(r for r, _ in refs), str(ref)))
            raise SchemaError(f"recursive reference {chain}: recursive schemas cannot be compared", pointer)
        return (*refs, (str(ref), id(target)))

    def _type(self, node: dict, pointer: str, refs: tuple[tuple[str, int], ...]):
        """(json type, nullable, effective node, refs) of a property schema."""
        nullable = False
        for combinator in ("anyOf", "oneOf"):
            options = node.get(combinator)
            if not isinstance(options, list):
                continue
            resolved = []
            for i, option in enumerate(options):
                if not isinstance(option, dict):
                    raise SchemaError("each alternative must be a schema object", f"{pointer}/{combinator}/{i}")
                self._visit(f"{pointer}/{combinator}/{i}")
                opt_refs = self._enter(option, f"{pointer}/{combinator}/{i}", refs)
                opt = self.refs.merged(option, f"{pointer}/{combinator}/{i}")
                resolved.append((opt, opt_refs))
            non_null = [(o, r) for o, r in resolved if o.get("type") != "null"]
            nullable = len(non_null) < len(resolved)
            if len(non_null) == 1:
                inner, refs = non_null[0]
                merged = {**inner, **{k: v for k, v in node.items() if k != combinator}}
                json_type, inner_nullable, merged, refs = self._type(merged, pointer, refs)
                return json_type, nullable or inner_nullable, merged, refs
            types = [o.get("type") for o, _ in non_null]
            same = bool(types) and isinstance(types[0], str) and all(t == types[0] for t in types)
            return (types[0] if same else "mixed"), nullable, node, refs

        declared = node.get("type")
        if isinstance(declared, list):
            kinds = [t for t in declared if t != "null"]
            nullable = len(kinds) < len(declared)
            if len(kinds) == 1:
                declared = kinds[0]
            elif set(kinds) <= {"number", "integer"} and kinds:
                declared = "number"
            else:
                declared = "mixed" if kinds else "null"
        if declared is None:
            if "properties" in node:
                declared = "object"
            elif "items" in node:
                declared = "array"
            elif "enum" in node or "const" in node:
                declared = "mixed"
            else:
                raise SchemaError("property has no 'type' (give one, or 'properties'/'items'/'enum')", pointer)
        if declared not in (*PRIMITIVE_TYPES, "object", "array", "mixed", "null"):
            raise SchemaError(f"unknown JSON type {declared!r}", f"{pointer}/type")
        return declared, nullable, node, refs

    @staticmethod
    def _default_comparator(json_type: str, node: dict, prop: dict | None = None) -> tuple[str, float]:
        """(comparator, threshold) when the schema is silent. ``prop`` is the property node
        (for list items it differs from ``node``): naming a comparator there without a
        threshold gives 0.5, as in stickler-eval; a comparator's own default is not adopted."""
        named = prop if prop is not None else node
        if named.get(ext.PREFIX + "comparator") is not None and json_type != "boolean":
            return "", NAMED_COMPARATOR_THRESHOLD
        if "enum" in node or "const" in node or json_type in ("mixed", "null"):
            return EXACT_DEFAULT
        if json_type == "string" and isinstance(node.get("format"), str) and node["format"] in FORMAT_DEFAULTS:
            return FORMAT_DEFAULTS[node["format"]]
        return TYPE_DEFAULTS[json_type]

    @staticmethod
    def _comparator(
        node: dict, pointer: str, default_name: str, on_object: bool = False, default_config: dict | None = None
    ):
        named = ext.get(node, "comparator", pointer)
        name = named or default_name
        config = ext.get(node, "comparator-config", pointer) or ({} if named else default_config or {})
        comparator = _Compiler._build(name, config, node, pointer)
        if not on_object and getattr(comparator, "strict_types", False) and comparator.name == STRUCTURED:
            raise SchemaError(
                f"{STRUCTURED} with strict_types compares only objects; this property is not one",
                f"{pointer}/{ext.PREFIX}comparator-config/strict_types",
            )
        return comparator, comparator.name

    @staticmethod
    def _build(name: str, config: dict, node: dict, pointer: str) -> comparators.Comparator:
        """Comparator ``name`` with ``config``; a bad name or option is a SchemaError at its pointer."""
        try:
            return comparators.build(name, config)
        except comparators.ComparatorConfigError as exc:
            if exc.key is not None:
                where = f"{pointer}/{ext.PREFIX}comparator-config/{escape(exc.key)}"
            elif ext.PREFIX + "comparator" in node:
                where = f"{pointer}/{ext.PREFIX}comparator"
            else:
                where = f"{pointer}/{ext.PREFIX}comparator-config"
            raise SchemaError(str(exc), where) from None

    @staticmethod
    def _named_class(node: dict, pointer: str) -> type[comparators.Comparator] | None:
        """The comparator class the property names, or None when it names none."""
        name = ext.get(node, "comparator", pointer)
        if not name:
            return None
        try:
            return comparators.lookup(name)
        except comparators.ComparatorConfigError as exc:
            raise SchemaError(str(exc), f"{pointer}/{ext.PREFIX}comparator") from None

    @classmethod
    def _no_comparator(cls, node: dict, pointer: str, named: type | None, why: str) -> None:
        """Objects are compared field by field; naming StructuredModelComparator says just that."""
        if named is not None and named.name == STRUCTURED:
            cls._comparator(node, pointer, named.name, on_object=True)  # still validates its config
            return
        for key in ("comparator", "comparator-config"):
            if ext.PREFIX + key in node:
                raise SchemaError(f"'{ext.PREFIX}{key}' has no effect here: {why}", pointer)


def _a(noun: str) -> str:
    """``noun`` with its indefinite article: "an object", "a string"."""
    return f"{'an' if noun[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {noun}"


def _inference() -> Any:
    """The inference rules, imported only by a schema that asks for them."""
    from . import inference

    return inference


def _schema_kind(json_type: str, node: dict) -> str:
    """What inference reads from a property: its JSON type and format as stickler-eval's importer types
    them (a key of ``inference.SCHEMA_RULES``)."""
    declared = node.get("type")
    if isinstance(declared, list) and len([t for t in declared if t != "null"]) > 1:
        return "union"  # ["integer", "number"] too: a union to the library, compared exactly
    if "enum" in node or "const" in node:
        return "enum"
    if json_type == "mixed":
        return "union"
    if json_type == "string":
        fmt = node.get("format")
        return _inference().SCHEMA_FORMATS.get(fmt, "string") if isinstance(fmt, str) else "string"
    return json_type  # boolean, integer, number, null


def _options(comparator: str, config: dict[str, Any]) -> str:
    """A comparator's options in a few words, for ``schema check``."""
    if comparator == "ExactComparator":
        words = ["case-sensitive" if config.get("case_sensitive") else "case-insensitive"]
        if config.get("normalize"):
            words.append("normalized")
        return ", ".join(words)
    words = []
    for key, value in config.items():
        if key == "tolerance" and comparator == "DateComparator" and isinstance(value, (int, float)) and value < 1:
            words.append(f"tolerance {value * 24 * 60:g} min")
        else:
            words.append(f"{key} {value:g}" if isinstance(value, float) else f"{key} {value}")
    return ", ".join(words)


def _keep_apart(comparator: comparators.Comparator, node: dict) -> None:
    """Give the comparator the field's ``enum`` or ``const`` (compiled once): distinct allowed values are
    never equal, whatever its normalisation (docs/comparators/index.md, "Exact and Numeric: when two values are the same")."""
    if "const" in node:
        comparator.keep_apart([node["const"]], exclusive=True)
    elif isinstance(node.get("enum"), list):
        comparator.keep_apart(node["enum"], exclusive=False)


def _free_form(node: dict) -> bool:
    """An object schema that names no properties: a free-form mapping, compared as one value."""
    properties = node.get("properties")
    return not isinstance(properties, dict) or not properties
