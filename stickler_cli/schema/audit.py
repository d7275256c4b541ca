"""Load-time checks of a schema as JSON Schema: nothing in it may crash, hang or reach out later.

``compile_schema`` runs these on every schema before anything uses it. Each failure is
a SchemaError naming the JSON pointer (exit 2): a schema is untrusted input, and what
it gets wrong must be found here, not by the first record that meets it.

- ``check_document``: ``$schema`` is a string; subschemas nest at most ``schema-depth``
  levels; every ``pattern`` and ``patternProperties`` name compiles (schema/patterns.py).
- ``check_metaschema``: the schema is valid under its draft's metaschema (jsonschema's,
  its error chosen by ``best_match``): ``"minimum": "5"``, ``"multipleOf": 0``,
  ``"type": 5`` are refused here.
- ``check_references``: every ``$ref``, ``$dynamicRef`` and ``$recursiveRef`` resolves through
  the schema's registry (schema/registry.py: the schema, the documents read with it, the
  metaschemas; nothing is fetched); no chain of allOf/anyOf/oneOf/not/if/then/else and references
  leads back to a subschema without descending into a property or an item (``"allOf": [{"$ref":
  "#"}]`` would check one value forever); with its references followed at every use the schema has
  at most ``schema-nodes`` subschemas and ``schema-depth`` levels (exponential ``$ref`` fan-out).
- ``check_resource``: a document read with the schema (a file beside it, a ``--schema-resource``)
  passes the first two checks too, its locations named ``common.json#/$defs/Money``.

Every walk here is iterative: a schema nested a thousand levels deep is refused, not recursed into.
"""

from __future__ import annotations

from typing import Any

from .. import limits
from ..errors import SchemaError
from . import drafts
from .keywords import REFERENCES, subschemas
from .patterns import Patterns
from .refs import References, escape, lookup

# Keywords whose subschemas apply to the value itself (not to a property or an item of it).
IN_PLACE = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"})
UNAPPLIED = frozenset({"$defs", "definitions"})  # only reached through references
MESSAGE_CHARACTERS = 300  # of a metaschema error (it quotes the offending value)


def check_document(
    schema: dict, bounds: limits.Limits | None = None, patterns: Patterns | None = None, where: str = ""
) -> Patterns:
    """Check the nesting and compile the patterns of every subschema; the compiled patterns (``patterns``,
    when given, gathers those of several documents; ``where`` prefixes the pointers of a document read
    with the schema)."""
    bounds = bounds or limits.current()
    limit = bounds.schema_depth
    if not isinstance(schema.get("$schema", ""), str):
        raise SchemaError("'$schema' must be the URI of a JSON Schema draft, a string", f"{where}/$schema")
    patterns = patterns or Patterns(bounds)
    # node, its pointer, its depth, the objects around it, its parent's pointer; popped in document order
    stack: list[tuple[dict, str, int, int, str]] = [(schema, where, 0, 0, where)]
    while stack:
        node, pointer, depth, objects, parent = stack.pop()
        if objects > limit:
            raise SchemaError(
                f"objects nested more than {limit} levels deep; stickler compares at most {limit} "
                f"(--limit schema-depth=N raises it)",
                parent or "/",
            )
        if depth > limit:
            raise SchemaError(
                f"subschemas nested more than {limit} levels deep; stickler reads at most {limit} "
                f"(--limit schema-depth=N raises it)",
                pointer,
            )
        if "$schema" in node and (why := drafts.refused_draft(node["$schema"])):
            raise SchemaError(f"'$schema' {why}", f"{pointer}/$schema")
        compile_patterns(node, pointer, patterns)
        stack.extend(
            reversed(
                [
                    (child, pointer + where, depth + 1, objects + (keyword == "properties"), pointer)
                    for child, where, keyword in subschemas(node)
                    if isinstance(child, dict)
                ]
            )
        )
    return patterns


def compile_patterns(node: dict, pointer: str, patterns: Patterns) -> None:
    """Compile the ``pattern`` and the ``patternProperties`` names of one subschema."""
    if "pattern" in node:
        patterns.compile(node["pattern"], f"{pointer}/pattern")
    names = node.get("patternProperties")
    if isinstance(names, dict):
        for name in names:
            patterns.compile(name, f"{pointer}/patternProperties/{escape(name)}")


def _unique_by_hash(cls: Any, made: dict | None = None) -> Any:
    """``cls`` checking ``uniqueItems`` by hash (conformance.unique_items), in every subschema: a ``$ref``
    into a metaschema that names its ``$schema`` is checked by that draft's class, made alike."""
    import attrs
    import jsonschema

    from .json_values import unique_items

    made = {} if made is None else made
    fast = made[cls] = jsonschema.validators.extend(cls, {"uniqueItems": unique_items})
    standard = fast.evolve

    def evolve(self: Any, **changes: Any) -> Any:
        evolved = standard(self, **changes)
        kind = type(evolved)
        if kind in made.values():
            return evolved
        mine = made.get(kind) or _unique_by_hash(kind, made)
        return mine(**{f.alias: getattr(evolved, f.name) for f in attrs.fields(kind) if f.init})

    fast.evolve = evolve
    return fast


def check_metaschema(schema: Any, where: str = "", default: Any = None) -> None:
    """The schema must be valid under its draft's metaschema (a document read with it: its own draft, else
    ``default``, the schema's); the most relevant error, located."""
    if default is None and drafts.self_contained(schema) and drafts.plainly_valid(schema):
        return  # certainly valid: jsonschema is not imported (schema/drafts.py)
    import jsonschema
    import referencing
    from jsonschema_specifications import REGISTRY as METASCHEMAS

    from .registry import _refuse, validator_class

    cls = validator_class(schema) if default is None else jsonschema.validators.validator_for(schema, default=default)
    cls = _unique_by_hash(cls)  # in linear time: a huge enum of mixed values took minutes
    checker = cls(cls.META_SCHEMA, registry=referencing.Registry(retrieve=_refuse).combine(METASCHEMAS))
    try:
        errors = list(checker.iter_errors(schema))
        if not errors:
            return
        error = jsonschema.exceptions.best_match(errors)
        message = error.message
    except RecursionError:
        raise SchemaError(
            "nested too deeply to be checked against its metaschema within Python's recursion limit; "
            "lower --limit schema-depth",
            "/",
        ) from None
    if len(message) > MESSAGE_CHARACTERS:
        message = message[: MESSAGE_CHARACTERS - 1] + "…"
    pointer = "".join(f"/{escape(str(token))}" for token in error.absolute_path)
    raise SchemaError(f"not a valid JSON Schema: {message}", where + pointer or "/")


def check_resource(uri: str, document: Any, schema: dict, patterns: Patterns, bounds: limits.Limits) -> None:
    """A document read with ``schema``: a schema object or boolean, nested within bounds, its patterns
    compiled, valid under its draft's metaschema (its ``$schema``, else the schema's)."""
    from .registry import validator_class

    where = uri if "#" in uri else uri + "#"
    if isinstance(document, dict):
        check_document(document, bounds, patterns, where)
    check_metaschema(document, where, default=validator_class(schema))


class _Graph:
    """The subschemas reachable from the root, references resolved, and how each leads to the next."""

    def __init__(self, schema: dict, patterns: Patterns, references: References) -> None:
        from .registry import validator_class

        self.patterns = patterns
        self.references = references
        root: Any = None  # a self-contained schema has nothing to resolve: no resolvers
        if references.contained:
            draft = drafts.draft(schema) or drafts.DEFAULT
            self.known, self.legacy = drafts.KEYWORDS[draft], draft in drafts.LEGACY
        else:
            self.spec = references.spec
            cls = validator_class(schema)
            self.known = frozenset(cls.VALIDATORS)  # the keywords the draft applies (jsonschema ignores the rest)
            self.legacy = cls.__name__ in (
                "Draft3Validator",
                "Draft4Validator",
                "Draft6Validator",
                "Draft7Validator",
            )  # $ref hides its siblings
            root = references.root
        self.pointers = _pointers(schema)
        # id(subschema) -> [(child id, kind, pointer of the keyword that leads there)]; kind: "in place",
        # "below" (a property or an item), "unapplied" ($defs: not applied, but its references must resolve).
        self.edges: dict[int, list[tuple[int, str, str]]] = {}
        self.where: dict[int, str] = {id(schema): "/"}
        self.root = id(schema)
        pending: list[tuple[Any, Any, str]] = [(schema, root, "")]
        self.edges[id(schema)] = []
        while pending:
            node, resolver, pointer = pending.pop()
            for child, child_resolver, child_pointer, kind, via in self._children(node, resolver, pointer):
                self.edges[id(node)].append((id(child), kind, via))
                if id(child) not in self.edges:
                    self.edges[id(child)] = []
                    self.where[id(child)] = child_pointer or "/"
                    pending.append((child, child_resolver, child_pointer))

    def _children(self, node: dict, resolver: Any, pointer: str):
        """(child, its resolver, its pointer, kind, pointer of the keyword leading there) for each subschema
        ``node`` applies or holds; references resolved."""
        if id(node) not in self.pointers:
            compile_patterns(node, pointer, self.patterns)  # a subschema reached only through a reference
        hidden = self.legacy and "$ref" in node  # before 2019-09, $ref's siblings are not applied
        for child, where, keyword in subschemas(node):
            if isinstance(child, dict):
                applied = keyword in self.known and keyword not in UNAPPLIED and not hidden
                kind = "unapplied" if not applied else "in place" if keyword in IN_PLACE else "below"
                below = None if resolver is None else resolver.in_subresource(self.spec.create_resource(child))
                yield child, below, pointer + where, kind, pointer + where
        for keyword in ("$ref",) if hidden else REFERENCES:
            if keyword not in node or keyword not in self.known:
                continue
            ref, via = node[keyword], f"{pointer}/{keyword}"
            if not isinstance(ref, str):
                raise SchemaError(f"'{keyword}' must be a string, got {ref!r}"[:MESSAGE_CHARACTERS], via)
            resolved = lookup(resolver, ref, via)
            target = resolved.contents
            if isinstance(target, dict):
                target_pointer = (
                    self.pointers.get(id(target))
                    or self.references.where(target)
                    or (ref[1:] if ref.startswith("#/") else via)
                )
                yield target, resolved.resolver, target_pointer, "in place", via

    def check_cycles(self) -> None:
        """No subschema may lead back to itself through keywords that apply to the same value."""
        state: dict[int, int] = {}  # 1: on the current path, 2: done
        for start in self.edges:
            if start in state:
                continue
            state[start] = 1
            path = [start]
            stack = [iter([(c, via) for c, kind, via in self.edges[start] if kind == "in place"])]
            while stack:
                for child, via in stack[-1]:
                    seen = state.get(child)
                    if seen == 1:
                        chain = " → ".join(self.where[n] for n in path[path.index(child) :]) + " → " + self.where[child]
                        raise SchemaError(
                            f"leads back to {self.where[child]} without descending into a property or "
                            f"an item ({chain}): the same value would be checked against it forever",
                            via,
                        )
                    if seen is None:
                        state[child] = 1
                        path.append(child)
                        stack.append(iter([(c, v) for c, kind, v in self.edges[child] if kind == "in place"]))
                        break
                else:
                    state[path.pop()] = 2
                    stack.pop()

    def check_size(self, bounds: limits.Limits) -> None:
        """With references followed at every use: at most ``schema-nodes`` subschemas, ``schema-depth`` levels.

        Counted once per subschema (memoised), so an exponential expansion is found in linear time; a
        reference back to a subschema still being counted (a recursive schema) counts once."""
        size: dict[int, int] = {}
        depth: dict[int, int] = {}
        open_ = {self.root}
        stack = [(self.root, iter(self._applied(self.root)))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if child not in size and child not in open_:
                    open_.add(child)
                    stack.append((child, iter(self._applied(child))))
                    break
            else:
                stack.pop()
                open_.discard(node)
                below = self._applied(node)
                size[node] = 1 + sum(size.get(c, 1) for c in below)
                depth[node] = 1 + max((depth.get(c, 0) for c in below), default=0)
                if size[node] > bounds.schema_nodes:
                    raise SchemaError(
                        f"expands to more than {bounds.schema_nodes:,} subschemas once its references are followed "
                        "at every use (definitions that each refer to the next more than once grow exponentially); "
                        "--limit schema-nodes=N raises the bound",
                        self.where[node],
                    )
                if depth[node] > bounds.schema_depth + 1:
                    raise SchemaError(
                        f"subschemas nested more than {bounds.schema_depth} levels deep once references are "
                        f"followed; stickler reads at most {bounds.schema_depth} (--limit schema-depth=N raises it)",
                        self.where[node],
                    )

    def _applied(self, node: int) -> list[int]:
        return [child for child, kind, _ in self.edges[node] if kind != "unapplied"]


def check_references(
    schema: dict, patterns: Patterns, bounds: limits.Limits | None = None, references: References | None = None
) -> None:
    """Resolve every reference (nothing fetched), refuse cycles on one value and exponential expansion."""
    graph = _Graph(schema, patterns, references or References(schema))
    graph.check_cycles()
    graph.check_size(bounds or limits.current())


def _pointers(schema: dict) -> dict[int, str]:
    """id(subschema) -> its JSON pointer, for every subschema where the document places one."""
    found: dict[int, str] = {}
    stack = [(schema, "")]
    while stack:
        node, pointer = stack.pop()
        found[id(node)] = pointer or "/"
        stack.extend((child, pointer + where) for child, where, _ in subschemas(node) if isinstance(child, dict))
    return found


def audit(schema: dict, bounds: limits.Limits | None = None, resources: dict[str, Any] | None = None) -> Patterns:
    """Every check of this module, cheapest first; the schema's compiled patterns."""
    bounds = bounds or limits.current()
    patterns = check_document(schema, bounds)
    check_metaschema(schema)
    for uri, document in (resources or {}).items():
        check_resource(uri, document, schema, patterns, bounds)
    check_references(schema, patterns, bounds, References(schema, resources))
    return patterns
