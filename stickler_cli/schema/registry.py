"""Where a schema's references are looked up: one ``referencing.Registry`` per schema, nothing fetched.

jsonschema resolves every ``$ref``, ``$dynamicRef`` and ``$recursiveRef`` through a registry; its
default one downloads any URI it does not hold, once per record checked. A schema's registry here
holds:

- the schema itself, under its ``$id`` (with none, under its file name in ``file:///``, a
  directory that is the same on every machine: ``base_uri``);
- the documents it refers to beyond itself, read once when it is loaded (``gather``): files beside
  it (a URI relative to the schema's file, or under the directory of the schema's own ``$id``;
  nothing outside its directory, symbolic links resolved) and the files the user maps URIs to
  (``--schema-resource URL=FILE``), each read under its own ``$schema``, else the schema's draft;
- the JSON Schema metaschemas installed with jsonschema (``jsonschema-specifications``).

Every other URI is refused: a schema can never make stickler open a connection. The scoring
plan, the compiled checker, jsonschema and the load-time audit all resolve through this registry
(``refs.References``), so they cannot disagree about where a reference leads.

The documents read are kept under location-independent URIs (a file beside the schema by its
path relative to the schema's directory; in the registry, that path in ``file:///``): a plan
rebuilt in a worker process, or from a state file on another machine, resolves exactly as it
did where it was loaded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import quote, unquote, urljoin

from .. import limits
from ..limits import TooLarge
from ..errors import SchemaError
from .keywords import REFERENCES

REFUSED = "references are never fetched; copy the schema beside this one and refer to the file"
_REMOTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # http:, https:, urn:, file:…
HIERARCHICAL = ("http:", "https:")  # an $id with a directory that files beside the schema may stand for


def refused(ref: str) -> str:
    """The one line saying that ``ref`` leads outside the schema and will not be fetched."""
    if _REMOTE.match(ref):
        return f"remote reference {ref!r}: {REFUSED}, or map the URL to a local file with --schema-resource URL=FILE"
    return f"reference {ref!r} names a document outside this schema: {REFUSED}"


def _refuse(uri: str) -> Any:
    """The registry's retrieve function: every URI it does not hold is refused, none fetched."""
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)


def validator_class(schema: Any) -> Any:
    """jsonschema's validator class for the draft the schema names in ``$schema`` (2020-12 when none)."""
    import jsonschema

    if isinstance(schema, dict) and not isinstance(schema.get("$schema", ""), str):
        return jsonschema.Draft202012Validator  # refused by the audit; never guessed from
    return jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)


def specification(schema: Any) -> Any:
    """The ``referencing`` specification (draft) the schema is read under."""
    import referencing.jsonschema

    cls = validator_class(schema)
    return referencing.jsonschema.specification_with(
        cls.ID_OF(cls.META_SCHEMA) or "", default=referencing.jsonschema.DRAFT202012
    )


HERE = "file:///"  # the schema's directory, as the registry a schema is compiled with sees it


def own_id(schema: Any) -> str | None:
    """The schema's own ``$id`` (``id`` in draft 4), None when it has none or one that is not a string (which
    the audit refuses; ``referencing`` would fail on it with an AttributeError)."""
    try:
        found = specification(schema).create_resource(schema).id()
    except (AttributeError, TypeError):
        return None
    return found if isinstance(found, str) else None


def base_uri(schema: Any, name: str | None = None) -> str:
    """The URI the schema's own references resolve against: its ``$id``; with none, its file ``name``
    in ``file:///`` (a directory that is the same on every machine: a file beside the schema is
    ``file:///common.json`` wherever the schema was loaded, and every URI stays absolute, as
    ``$dynamicRef`` and ``$recursiveRef`` need); in memory, ``""`` (jsonschema's base)."""
    own = own_id(schema)
    if not name:
        return own or ""
    return urljoin(HERE + quote(name), own or "")


def registry(schema: Any, resources: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
    """The registry of ``schema`` (held under ``base_uri``): the ``resources`` (URI -> document; a
    relative URI is a file beside the schema) read with it, the metaschemas; crawled once (every
    ``$id`` and anchor indexed), refusing every other URI."""
    import referencing
    from jsonschema_specifications import REGISTRY as METASCHEMAS

    spec = specification(schema)
    root = spec.create_resource(schema)
    here = HERE if name else ""
    pairs = [
        (urljoin(here, uri), referencing.Resource.from_contents(document, default_specification=spec))
        for uri, document in (resources or {}).items()
    ]
    pairs.append((base_uri(schema, name), root))
    return referencing.Registry(retrieve=_refuse).with_resources(pairs).combine(METASCHEMAS).crawl()


def schema_file_bytes(path: str | Path) -> bytes:
    """A schema file's bytes, or a file its references read: at most ``--limit schema-bytes`` of them
    (limits.read_within). OSError as ``open`` raises it; TooLarge past the bound."""
    return limits.read_within(path, "schema-bytes")


class Unreadable(Exception):
    """A document a reference names that may be read, but cannot be: the reason, said of the reference."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def message(self, ref: str) -> str:
        name = ref.partition("#")[0] or ref
        return self.reason.replace("{name}", repr(name))


class _Reader:
    """The retrieve function of the registry a schema is loaded with: a URI that stands for a file
    the schema may read is read from it, once; every other URI is refused."""

    def __init__(
        self, directory: Path, file_base: str, own_base: str | None, mapped: Mapping[str, str], spec: Any
    ) -> None:
        self.spec = spec  # the draft a document without $schema is read under: the schema's
        self.top = directory.resolve()
        self.file_prefix = file_base.rpartition("/")[0] + "/"
        # (URI prefix, directory, whether its documents keep their URI): files beside the schema by a
        # URI relative to it (kept by relative path) or under its own $id's directory; the user's mappings.
        self.roots: list[tuple[str, Path, bool]] = [(self.file_prefix, self.top, False)]
        if own_base and own_base.startswith(HIERARCHICAL):
            self.roots.append((urljoin(own_base, "."), self.top, True))
        self.files: dict[str, Path] = {}
        for url, target in mapped.items():
            if Path(target).is_dir():
                self.roots.append((url, Path(target).resolve(), True))
            else:
                self.files[url] = Path(target)
        self.roots.sort(key=lambda root: -len(root[0]))  # the longest prefix first
        self.documents: dict[str, Any] = {}  # location-independent URI -> document
        self.read: list[Path] = []

    def __call__(self, uri: str) -> Any:
        import referencing

        key, path, given = self._where(uri)
        document = self._load(path, given)
        self.documents[key] = document
        self.read.append(path)
        return referencing.Resource.from_contents(document, default_specification=self.spec)

    def _where(self, uri: str) -> tuple[str, Path, bool]:
        """(the URI to keep the document under, its file, whether the user named the file)."""
        if uri in self.files:
            return uri, self.files[uri], True
        for prefix, directory, keep in self.roots:
            if uri.startswith(prefix):
                relative = unquote(uri[len(prefix) :].partition("?")[0])
                target = (directory / relative).resolve()
                if not relative or not target.is_relative_to(directory):
                    raise Unreadable(
                        "reference to {name} leaves the schema's directory; only files beside the "
                        "schema (or below it) are read"
                        if directory == self.top
                        else "reference to {name} leaves " + f"{directory}, the directory it is mapped to"
                    )
                return (uri if keep else uri[len(prefix) :]), target, directory != self.top
        if uri.startswith("file:"):
            raise Unreadable(
                "reference to {name} leaves the schema's directory; only files beside the schema (or below it) are read"
            )
        return _refuse(uri)

    @staticmethod
    def _load(path: Path, given: bool) -> Any:
        import orjson

        what = f"file {path}" if given else "file {name}"
        if path.exists() and not path.is_file():  # a directory, a pipe that would block the read forever
            raise Unreadable(f"referenced {what} is not a regular file")
        try:
            document = orjson.loads(schema_file_bytes(path))
        except TooLarge as exc:
            raise Unreadable(f"referenced {what} {exc}") from None
        except FileNotFoundError:
            raise Unreadable(f"referenced {what} not found") from None
        except OSError as exc:
            raise Unreadable(f"referenced {what} cannot be read: {exc.strerror}") from None
        except orjson.JSONDecodeError as exc:
            raise Unreadable(f"referenced {what} is not valid JSON: {exc}") from None
        if not isinstance(document, (dict, bool)):
            raise Unreadable(f"referenced {what} does not hold a schema (an object, true or false)")
        return document


def unreadable(exc: BaseException) -> Unreadable | None:
    """The ``Unreadable`` behind a referencing error (raised by the reader, wrapped by referencing)."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, Unreadable):
            return exc
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        seen += 1
    return None


def gather(
    schema: dict, directory: Path, name: str, mapped: Mapping[str, str] | None = None
) -> tuple[dict[str, Any], tuple[Path, ...]]:
    """(URI -> document, files read) for every document beyond ``schema`` its references reach.

    Followed as jsonschema would resolve them, against the schema's file (or its ``$id``): a file
    that cannot be read is a SchemaError naming the reference; a reference that cannot be
    resolved at all is left for the audit, which refuses it against the registry the schema is
    compiled with."""
    from .drafts import self_contained

    if self_contained(schema):
        return {}, ()  # it refers to nothing, and names a draft's own metaschema or none
    import referencing
    from jsonschema_specifications import REGISTRY as METASCHEMAS
    from referencing.exceptions import Unresolvable

    from .keywords import subschemas

    spec = specification(schema)
    root = spec.create_resource(schema)
    file_base = directory.resolve().as_uri() + "/" + quote(name)
    own = own_id(schema)
    base = urljoin(file_base, own or "")
    reader = _Reader(directory, file_base, base if own else None, mapped or {}, spec)
    start = referencing.Registry(retrieve=reader).with_resource(base, root).combine(METASCHEMAS)
    stack: list[tuple[Any, Any, str]] = [(schema, start.resolver(base_uri=base), "")]
    seen: set[int] = set()
    while stack:
        node, resolver, where = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        try:
            for child, below, _ in subschemas(node):
                if isinstance(child, dict):
                    stack.append((child, resolver.in_subresource(spec.create_resource(child)), where + below))
        except (TypeError, ValueError, AttributeError):  # an $id that is no URI: the audit refuses it
            continue
        declared = node.get("$schema")
        custom = isinstance(declared, str) and declared.partition("#")[0] not in METASCHEMAS
        for keyword in (*REFERENCES, *(("$schema",) if custom else ())):  # a metaschema of the user's is read too
            ref = node.get(keyword)
            if not isinstance(ref, str):
                continue
            try:
                resolved = resolver.lookup(ref)
            except Unresolvable as exc:
                problem = unreadable(exc)
                if problem is not None:
                    raise SchemaError(problem.message(ref), f"{where}/{keyword}") from None
                continue
            except (LookupError, TypeError, ValueError, AttributeError):
                continue
            stack.append((resolved.contents, resolved.resolver, locate(where, ref)))
    return reader.documents, tuple(dict.fromkeys(reader.read))


def locate(where: str, ref: str) -> str:
    """Where the target of ``ref``, written at ``where``, is, for messages: a JSON pointer into the
    schema (``/$defs/Money``), else the reference itself (``common.json#/$defs/Money``)."""
    if ref.startswith("#"):
        document = where.partition("#")[0] if "#" in where else ""
        if not document and ref[1:2] in ("", "/"):
            return ref[1:]
        return document + ref
    return ref if "#" in ref else ref + "#"


def mapping(
    items: list[str] | None, table: Mapping[str, Any] | None = None, origin: str = "[tool.stickler.schema-resources]"
) -> dict[str, str]:
    """URL -> file (or directory) from a ``[tool.stickler.schema-resources]`` table, then the command
    line's ``--schema-resource URL=FILE`` items (later wins). The URL must be absolute (a scheme:
    ``https:``, ``urn:``…), the file must exist, and a directory stands for the URLs below one ending
    in ``/``. The user's own configuration: these files may be anywhere."""
    from ..errors import UsageError

    given = [(str(url), path, origin) for url, path in (table or {}).items()]
    for item in items or []:
        url, sep, path = item.partition("=")
        if not sep or not url.strip() or not path.strip():
            raise UsageError(f"--schema-resource takes URL=FILE, got {item!r}")
        given.append((url.strip(), path.strip(), "--schema-resource"))
    found: dict[str, str] = {}
    for url, path, where in given:
        if not isinstance(path, str):
            raise UsageError(f"{where}: {url!r} must name a file, got {path!r}")
        if not _REMOTE.match(url) or url.startswith("file:"):
            raise UsageError(
                f"{where}: {url!r} is not an absolute URL (https://…, urn:…): a file beside the schema needs no mapping"
            )
        target = Path(path)
        if target.is_dir() and not url.endswith("/"):
            raise UsageError(f"{where}: {path} is a directory: map it to a URL ending in '/' ({url}/={path})")
        if not target.exists():
            raise UsageError(f"{where}: {url}={path}: no such file")
        found[url] = path
    return found
