"""IR -> the pieces of Iceberg UDF metadata: a definition, a version, its representations.

Pure functions: the clock and the uuid come in through :class:`Context`, nothing is read or
written. What a statement says that the spec has no field for is either kept as a function
property under a documented key (:data:`PROPERTY_KEYS`) or reported as a warning.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any, get_args

from translator.bodies import transpile_body
from translator.body_checks import BODY_DIALECTS, body_problem, free_references
from translator.defaults import default_properties, stale_default_properties
from translator.dialects import DIALECTS, get_dialect
from translator.dialects.base import PROPERTY_KEYS
from translator.errors import BodyError, Diagnostic, Position
from translator.ir import CreateFunction
from translator.metadata import (
    Definition,
    DefinitionVersion,
    Parameter,
    SqlRepresentation,
    UdfMetadata,
)
from translator.metadata.index import append_log_entry
from translator.metadata.model import trusted
from translator.names import format_name
from translator.rebuild import Reduced, by_init
from translator.sqltrees import unlink, unlinked
from translator.statement_cache import release
from translator.types import definition_id, type_to_json

__all__ = [
    "PROPERTY_KEYS",
    "CompileOptions",
    "Context",
    "merge_properties",
    "new_definition",
    "new_metadata",
    "new_version",
    "owned_trees",
    "random_uuid",
    "representations",
    "source_representation",
    "sql_representation",
    "statement_properties",
    "wall_clock_ms",
]


def wall_clock_ms() -> int:
    """The time now in milliseconds since the epoch, as Iceberg's metadata records it."""
    return time.time_ns() // 1_000_000


def random_uuid() -> str:
    """A new random (version 4) UUID."""
    return str(uuid.uuid4())


@dataclass(frozen=True, slots=True)
class Context:
    """Injected sources of time and identity, so output is byte-stable under test. The defaults
    are module functions, not lambdas, so that a default context pickles (by their names)."""

    clock: Callable[[], int] = wall_clock_ms
    new_uuid: Callable[[], str] = random_uuid

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class CompileOptions:
    """``targets``: dialects to transpile every new version into (None: every other dialect)."""

    targets: tuple[str, ...] | None = None
    transpile: bool = True
    #: Attach a body to the current version of an existing definition instead of versioning.
    attach: bool = False

    def target_dialects(self, source: str) -> tuple[str, ...]:
        if not self.transpile:
            return ()
        wanted = self.targets if self.targets is not None else tuple(DIALECTS)
        return tuple(d for d in wanted if d != source)

    def __reduce__(self) -> Reduced:
        return by_init(self)


def source_representation(stmt: CreateFunction) -> SqlRepresentation:
    """The body as written, in the statement's own dialect."""
    return sql_representation(stmt.dialect, stmt.body.text)


def sql_representation(dialect: object, sql: object) -> SqlRepresentation:
    """A ``sql`` representation; made without the validator when both texts are plain ``str``
    (:func:`translator.metadata.model.trusted`), as every text our front ends make is. Takes
    objects: what is not a string is the validator's to refuse (compiled by mypyc, a ``str``
    parameter would raise a ``TypeError`` first)."""
    if type(dialect) is str and type(sql) is str:
        return trusted(SqlRepresentation, {"type": "sql", "dialect": dialect, "sql": sql})
    return SqlRepresentation.model_validate({"type": "sql", "dialect": dialect, "sql": sql})


def check_body(stmt: CreateFunction) -> None:
    """Raise :class:`BodyError` for a lone surrogate in any text or a body no engine would
    take: not exactly one expression or query (:func:`translator.body_checks.body_problem`), or
    an expression naming what is not a parameter (``RETURN y``: both engines refuse such a
    function when it is created)."""
    for what, text, at in _texts(stmt):
        m = _LONE_SURROGATE.search(text)
        if m is not None:
            raise BodyError(
                f"the {what} holds a lone surrogate (U+{ord(m.group()):04X}, from a \\u escape "
                "of half a UTF-16 pair), which is no character and no file can hold",
                at or stmt.position,
            )
    body = stmt.body
    problem = None
    if stmt.dialect in BODY_DIALECTS:
        problem = body_problem(body.text, body.kind, stmt.dialect, body.ast)
    if problem is None and body.kind == "expression" and body.ast is not None:
        strays = free_references(body.ast, [p.name for p in stmt.parameters])
        if strays:
            which = "is not a parameter" if len(strays) == 1 else "are not parameters"
            problem = f"the body refers to {', '.join(strays)}, which {which}"
    if problem is not None:
        raise BodyError(problem, body.position)


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _texts(stmt: CreateFunction) -> Iterator[tuple[str, str, Position | None]]:
    """Every text of ``stmt`` that is stored: names, docs, properties, the body."""
    yield "name", format_name(stmt.name), stmt.position
    yield "comment", stmt.doc or "", stmt.positions.get("comment")
    for p in stmt.parameters:
        yield f"parameter {p.name!r}", p.name + (p.doc or ""), p.position
    for k, v in stmt.properties:
        yield f"property {k!r}", k + v, stmt.position
    yield "body", stmt.body.text, stmt.body.position


#: The bodies (by id) whose sqlglot trees the running compile owns: see :func:`owned_trees`.
_owned: ContextVar[frozenset[int]] = ContextVar("owned_trees", default=frozenset())


def owned_trees(statements: Iterable[object]) -> _OwnedTrees:
    """Within the span (a ``with`` block), the last transpile of a body of ``statements`` may
    rewrite, type and write the body's sqlglot tree itself instead of a copy of it (one
    whole-tree copy a body fewer, about 5% of a compile's instructions).

    For a caller that holds ``statements`` for the span only and reads no tree after it:
    :func:`translator.api.compile_script`, whose statements were parsed for that call. Where
    a :func:`translator.statement_cache.run_scope` keeps parses (a migration, an apply: the
    plan and the lock's names read the same statements before), they are taken out of it first
    (:func:`translator.statement_cache.release`), so a later read parses the statement again
    instead of getting a tree used up.

    When the span ends, the trees are unlinked (:func:`translator.sqltrees.unlink`): no one
    reads them again, and reference counts then free them with their statements instead of
    the cyclic collector."""
    return _OwnedTrees(statements)


class _OwnedTrees:
    """:func:`owned_trees`' span: a plain class, not ``contextlib``'s generator (every
    ``compile_script`` opens one)."""

    __slots__ = ("_bodies", "_statements", "_token")

    def __init__(self, statements: Iterable[object]) -> None:
        self._statements = statements
        self._bodies: list[Any] | None = None
        self._token: Token[frozenset[int]] | None = None

    def __enter__(self) -> None:
        statements = list(self._statements)
        release(statements)
        bodies = [s.body for s in statements if isinstance(s, CreateFunction)]
        self._bodies = bodies
        self._token = _owned.set(frozenset(map(id, bodies)))

    def __exit__(self, *exc: object) -> None:
        bodies, token = self._bodies, self._token
        if bodies is None or token is None:
            return
        self._bodies = self._token = None
        _owned.reset(token)
        for body in bodies:
            ast = body.ast
            # The last transpile unlinks the tree it wrote where it was the body's own, given
            # up (a Trino body's Spark form; a Spark body's Trino form): not walked twice.
            if ast is not None and not unlinked(ast):
                unlink(ast)


def representations(
    stmt: CreateFunction, options: CompileOptions
) -> tuple[list[SqlRepresentation], list[Diagnostic]]:
    """The source body as written, plus every target dialect it validly transpiles to."""
    reps = [source_representation(stmt)]
    warnings: list[Diagnostic] = []
    names = [p.name for p in stmt.parameters]
    targets = options.target_dialects(stmt.dialect)
    # The body's tree may be used up by the last transpile only (see owned_trees).
    owned = id(stmt.body) in _owned.get()
    for i, target in enumerate(targets):
        result_sql: str | None
        reason: str | None
        engine = get_dialect(target)
        if stmt.kind == "udtf" and not engine.table_functions:
            result_sql, reason = None, f"{engine.title} has no SQL table functions"
        else:
            t = transpile_body(
                stmt.body.text,
                stmt.body.ast,
                kind=stmt.body.kind,
                source=stmt.dialect,
                target=target,
                parameters=names,
                parameter_types={p.name: p.type for p in stmt.parameters},
                name=stmt.function_name,
                return_type=stmt.return_type,
                prepare=engine.prepare_body,
                ast_private=owned and i == len(targets) - 1,
            )
            result_sql, reason = t.sql, t.reason
            warnings += [
                Diagnostic("transpile-note", f"{target} representation: {n}", stmt.body.position)
                for n in t.notes
            ]
        if result_sql is None:
            warnings.append(
                Diagnostic(
                    "no-representation",
                    f"no {target} representation for {format_name(stmt.name)}"
                    f"({definition_id(stmt.parameter_types)}): {reason}",
                    stmt.body.position,
                )
            )
        else:
            if stmt.body.kind == "query" and not engine.return_takes_query:
                # RETURN takes an expression there: a scalar query is a scalar subquery.
                result_sql = f"({result_sql})"
            reps.append(sql_representation(target, result_sql))
    return reps, warnings


def new_version(
    stmt: CreateFunction,
    version_id: int,
    timestamp_ms: int,
    reps: Sequence[SqlRepresentation],
    deterministic_default: bool,
) -> DefinitionVersion:
    """A version; ``on-null-input`` is written only when the statement states it."""
    deterministic = deterministic_default if stmt.deterministic is None else stmt.deterministic
    fields: dict[str, object] = {
        "version_id": version_id,
        "representations": list(reps),
        "deterministic": deterministic,
        "timestamp_ms": timestamp_ms,
    }
    on_null = stmt.on_null_input
    if on_null is not None:
        fields["on_null_input"] = on_null
    if (
        type(version_id) is int
        and type(timestamp_ms) is int
        and type(deterministic) is bool
        and (on_null is None or (type(on_null) is str and on_null in _NULL_HANDLING))
        and all(type(r) is SqlRepresentation for r in reps)
    ):
        return trusted(DefinitionVersion, fields)
    return DefinitionVersion(**fields)  # type: ignore[arg-type]


#: The values the model's literal fields take: a value among them is stored as given.
_NULL_HANDLING = frozenset(get_args(DefinitionVersion.model_fields["on_null_input"].annotation))
_FUNCTION_TYPES = frozenset(get_args(Definition.model_fields["function_type"].annotation))


def _plain_text(value: object) -> bool:
    """None or a plain ``str``: what a validated optional text field holds as given."""
    return value is None or type(value) is str


def _plain_type(value: object) -> bool:
    """What :func:`translator.types.type_to_json` returns: a plain ``str`` or a fresh ``dict``
    (the validator would copy its top level and keep what is inside)."""
    return type(value) is str or type(value) is dict


def new_parameters(stmt: CreateFunction) -> list[Parameter]:
    out = []
    for p in stmt.parameters:
        kw: dict[str, object] = {"name": p.name, "type": type_to_json(p.type)}
        if p.doc is not None:
            kw["doc"] = p.doc
        if type(p.name) is str and _plain_type(kw["type"]) and _plain_text(p.doc):
            out.append(trusted(Parameter, kw))
        else:
            out.append(Parameter(**kw))  # type: ignore[arg-type]
    return out


def new_definition(
    stmt: CreateFunction, version: DefinitionVersion, def_id: str | None = None
) -> Definition:
    """``def_id``: the statement's definition-id, where the caller has it already."""
    kw: dict[str, object] = {
        "definition_id": definition_id(stmt.parameter_types) if def_id is None else def_id,
        "parameters": new_parameters(stmt),
        "return_type": type_to_json(stmt.return_type),
        "versions": [version],
        "current_version_id": version.version_id,
        "function_type": stmt.kind,
    }
    if stmt.doc is not None:
        kw["doc"] = stmt.doc
    if (
        type(kw["definition_id"]) is str
        and all(type(p) is Parameter for p in kw["parameters"])  # type: ignore[attr-defined]
        and _plain_type(kw["return_type"])
        and type(version) is DefinitionVersion
        and type(version.version_id) is int
        and type(stmt.kind) is str
        and stmt.kind in _FUNCTION_TYPES
        and _plain_text(stmt.doc)
    ):
        return trusted(Definition, kw)
    return Definition(**kw)  # type: ignore[arg-type]


def new_metadata(
    stmt: CreateFunction, uuid: object, definition: Definition, props: dict[str, str], ts: int
) -> UdfMetadata:
    """A new function's metadata: ``definition`` and the log entry that names it, made without
    the validator when every value is already what it would store
    (:func:`translator.metadata.model.trusted`; the entry by
    :func:`~translator.metadata.index.append_log_entry`, which checks its own values). ``uuid``
    is what the caller's :class:`Context` gave, any object: the validator refuses a non-string
    (as a ``str`` parameter, compiled by mypyc, would not)."""
    fields: dict[str, object] = {
        "function_uuid": uuid,
        "format_version": 1,
        "definitions": [definition],
        "definition_log": [],
    }
    if props:
        fields["properties"] = props
    fields["secure"] = False
    if stmt.doc is not None:
        fields["doc"] = stmt.doc
    plain = (
        type(uuid) is str
        and type(definition) is Definition
        and type(props) is dict
        and all(type(k) is str and type(v) is str for k, v in props.items())
        and _plain_text(stmt.doc)
    )
    meta = trusted(UdfMetadata, fields) if plain else UdfMetadata(**fields)  # type: ignore[arg-type]
    append_log_entry(meta, ts)  # its entry and reference made without the validator too
    return meta


def statement_properties(stmt: CreateFunction) -> dict[str, str]:
    """Characteristics with no metadata field, under :data:`PROPERTY_KEYS`."""
    out: dict[str, str] = {}
    if stmt.security is not None:
        out[PROPERTY_KEYS["security"].format(dialect=stmt.dialect)] = stmt.security
    if stmt.data_access is not None:
        out[PROPERTY_KEYS["data_access"].format(dialect=stmt.dialect)] = stmt.data_access
    for name, value in stmt.properties:
        out[PROPERTY_KEYS["property"].format(dialect=stmt.dialect, name=name)] = value
    out.update(default_properties(stmt))
    return out


def same_properties(meta: UdfMetadata | None, stmt: CreateFunction) -> bool:
    """Whether ``meta`` already holds every function property ``stmt`` states, as it states it."""
    held = (meta.properties if meta is not None else None) or {}
    if stale_default_properties(held, stmt):
        return False
    return all(held.get(k) == v for k, v in statement_properties(stmt).items())


def merge_properties(
    meta: UdfMetadata, props: dict[str, str], stmt: CreateFunction
) -> list[Diagnostic]:
    """Add the statement's properties; a changed function-wide value is reported (and taken).
    The DEFAULTs its definition no longer has are removed (``default-removed``), so an engine
    that writes DEFAULTs does not write a stale one."""
    current = dict(meta.properties or {})
    warnings = []
    for k in stale_default_properties(current, stmt):
        warnings.append(
            Diagnostic("default-removed", f"function property {k} removed", stmt.position)
        )
        del current[k]
    for k, v in props.items():
        if k in current and current[k] != v:
            warnings.append(
                Diagnostic(
                    "property-changed",
                    f"function property {k} was {current[k]!r}, now {v!r} (properties are "
                    "function-wide, not per definition)",
                    stmt.position,
                )
            )
        current[k] = v
    if current != (meta.properties or {}):
        meta.properties = current
        meta.model_fields_set.add("properties")
    return warnings
