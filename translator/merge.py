"""Merge statements into existing metadata, the way a deploy script needs.

* a new signature -> a new definition at version 1;
* ``CREATE OR REPLACE`` of a known signature -> a new current version, unless body,
  characteristics and docs are all unchanged (then nothing changes: deploying twice is a no-op);
* plain ``CREATE`` of a known signature -> no change if it is the current version as it is,
  else :class:`MergeError`; ``IF NOT EXISTS`` -> no change;
* a different return type for a known signature -> :class:`MergeError` (immutable);
* ``DROP FUNCTION`` -> the definition (Spark: every definition of the name) is removed;
* every change appends one definition-log entry mapping every definition to its current version;
  version-ids and timestamps only increase; unknown fields are carried along untouched.

Pure: no I/O; the caller's metadata is never mutated (a script works on one private copy).
Beside the metadata it merges into and the metadata it makes, a merge keeps where each
definition sits (:mod:`translator.metadata.index`): the next merge into either then works only on
the definitions its statements touch, instead of reading 100k of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from translator.compile import (
    CompileOptions,
    Context,
    merge_properties,
    new_definition,
    new_metadata,
    new_parameters,
    new_version,
    representations,
    same_properties,
    source_representation,
    sql_representation,
    statement_properties,
)
from translator.defaults import with_default_forms
from translator.dialects import get_dialect
from translator.errors import Diagnostic, MergeError, TranslatorError, UnsupportedError
from translator.ir import CreateFunction, DropFunction, Statement
from translator.merge_owned import OwnedDefinitions
from translator.metadata import (
    Definition,
    DefinitionVersion,
    Parameter,
    SqlRepresentation,
    UdfMetadata,
)
from translator.metadata.index import (
    DefinitionIndex,
    append_log_entry,
    find_definition,
    index_of,
    keep_index,
)
from translator.metadata.model import EDITS, quiet_assign
from translator.names import format_name
from translator.rebuild import Reduced, by_init
from translator.types import IcebergType, TypeParseError, definition_id, parse_type_json

__all__ = ["Change", "ScriptMerge", "apply_statement", "function_key", "merge_statements"]

Action = Literal[
    "created-function",
    "added-definition",
    "new-version",
    "attached-representation",
    "unchanged",
    "dropped-definition",
    "dropped-function",
]


@dataclass(frozen=True, slots=True)
class Change:
    """What one statement did to one function."""

    action: Action
    function: str
    definition_id: str | None = None
    version_id: int | None = None
    detail: str = ""

    def __str__(self) -> str:
        sig = f"({self.definition_id})" if self.definition_id is not None else ""
        ver = f" v{self.version_id}" if self.version_id is not None else ""
        extra = f": {self.detail}" if self.detail else ""
        return f"{self.action} {self.function}{sig}{ver}{extra}"

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(slots=True)
class ScriptMerge:
    """Per function key its metadata after the script (None: dropped), and what happened."""

    functions: dict[str, UdfMetadata | None] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    errors: list[TranslatorError] = field(default_factory=list)

    def changed(self, key: str) -> bool:
        return any(c.function == key and c.action != "unchanged" for c in self.changes)


def function_key(name: tuple[str, ...]) -> str:
    """The name a function's metadata is kept under: its parts as one text, a part holding a
    dot quoted (:func:`translator.names.format_name`: ``s."my.fn"``)."""
    return format_name(name)


def merge_statements(
    statements: Iterable[Statement],
    existing: Mapping[str, UdfMetadata | None] | None = None,
    *,
    ctx: Context | None = None,
    options: CompileOptions | None = None,
) -> ScriptMerge:
    """Apply ``statements`` in order; a failing statement is reported and the rest go on."""
    ctx = ctx or _DEFAULT_CONTEXT
    options = options or _DEFAULT_OPTIONS
    out = ScriptMerge()
    working: dict[str, UdfMetadata | None] = {}
    indexes: dict[str, DefinitionIndex | None] = {}  # translator.metadata.index
    owned = OwnedDefinitions()  # the definitions this run copied (translator.merge_owned)
    edits = EDITS[0]
    for stmt in with_default_forms(statements, out.warnings):
        key = function_key(stmt.name)
        if key not in working:
            base = (existing or {}).get(key)
            index = None if base is None else index_of(base)
            working[key] = None if base is None else _private(base, index)
            indexes[key] = index
        try:
            meta, change, warnings = apply_statement(
                working[key],
                stmt,
                ctx=ctx,
                options=options,
                index=indexes[key],
                key=key,
                owned=owned,
            )
        except TranslatorError as e:
            out.errors.append(e.without_frames())
            continue
        if meta is None or isinstance(stmt, DropFunction):
            indexes[key] = None  # a drop moves the definitions: the next merge reads them again
        working[key] = meta
        out.changes.append(change)
        out.warnings.extend(warnings)
    for key, meta in working.items():
        index = indexes.get(key)
        if meta is not None and index is not None:
            keep_index(meta, index, edits)
    out.functions = working
    return out


#: A merge's defaults: frozen, holding nothing a merge changes, so one of each serves every call.
_DEFAULT_CONTEXT = Context()
_DEFAULT_OPTIONS = CompileOptions()


def _private(meta: UdfMetadata, index: DefinitionIndex | None = None) -> UdfMetadata:
    """The copy of ``meta`` a script's statements change; the caller's is never changed.

    Made in time proportional to the number of definitions and log entries, not to the size of the
    whole tree: the top level and the two lists statements append to are new, while definitions,
    versions and log entries stay shared until a statement changes one (the run's
    :class:`~translator.merge_owned.OwnedDefinitions` copies it first). So a result shares what did
    not change with the metadata it was merged into; :func:`translator.metadata.deep_copy`
    separates them. An index made by reading every definition hands over its copy of the list.
    """
    out = meta.model_copy()
    spare = None
    if index is not None:
        spare, index.spare_definitions = index.spare_definitions, None
    out.definitions = list(meta.definitions) if spare is None else spare
    out.definition_log = list(meta.definition_log)
    return out


def apply_statement(
    metadata: UdfMetadata | None,
    stmt: CreateFunction | DropFunction,
    *,
    ctx: Context,
    options: CompileOptions,
    index: DefinitionIndex | None = None,
    key: str | None = None,
    owned: OwnedDefinitions | None = None,
) -> tuple[UdfMetadata | None, Change, list[Diagnostic]]:
    """Apply one statement to ``metadata``, whose top level and lists it changes in place
    (callers pass a :func:`_private` copy); definitions are copied before they are changed.
    ``index``: where ``metadata``'s definitions sit (:mod:`translator.metadata.index`), kept up to
    date here; a drop leaves it wrong (the caller drops it). ``key``: the statement's
    :func:`function_key`, where the caller has it. ``owned``: the definitions the caller's run
    has copied so far (a run's statements share one; without it this statement is a run)."""
    if isinstance(stmt, DropFunction):
        meta, change = _drop(metadata, stmt, ctx)
        return meta, change, list(stmt.warnings)
    return _create(
        metadata,
        stmt,
        ctx,
        options,
        index,
        function_key(stmt.name) if key is None else key,
        OwnedDefinitions() if owned is None else owned,
    )


# -- CREATE ----------------------------------------------------------------------------------


def _create(
    meta: UdfMetadata | None,
    stmt: CreateFunction,
    ctx: Context,
    options: CompileOptions,
    index: DefinitionIndex | None,
    key: str,
    owned: OwnedDefinitions,
) -> tuple[UdfMetadata | None, Change, list[Diagnostic]]:
    def_id = _definition_id(stmt.parameter_types, stmt)
    warnings = list(stmt.warnings)
    if stmt.temporary:
        warnings.append(
            Diagnostic(
                "temporary-ignored",
                "TEMPORARY is ignored: Iceberg metadata describes a persistent function",
                stmt.position,
            )
        )
    existing = None if meta is None else find_definition(meta, def_id, index)
    deterministic_default = get_dialect(stmt.dialect).deterministic_default

    if existing is not None:
        _check_return_type(existing, stmt, key, def_id)
        if options.attach:
            return _attach(meta, existing, stmt, ctx, key, warnings, index, owned)  # type: ignore[arg-type]
        if stmt.if_not_exists:
            return (
                meta,
                Change(
                    "unchanged",
                    key,
                    def_id,
                    existing.current_version_id,
                    "IF NOT EXISTS and the definition exists",
                ),
                warnings,
            )
        if not stmt.or_replace and not (
            same_properties(meta, stmt) and _unchanged(existing, stmt, deterministic_default, owned)
        ):
            raise MergeError(
                f"function {key}({def_id}) already exists; use CREATE OR REPLACE to make a new "
                "version, or DROP FUNCTION first",
                stmt.position,
            )
    elif options.attach:
        raise MergeError(
            f"cannot attach a {stmt.dialect} body: function {key} has no definition ({def_id})",
            stmt.position,
        )

    props = statement_properties(stmt)
    prop_warnings = [] if meta is None else merge_properties(meta, props, stmt)
    if (
        existing is not None
        and not prop_warnings
        and _unchanged(existing, stmt, deterministic_default, owned)
    ):
        # CREATE OR REPLACE of what is already current (a deploy run twice): no new version,
        # so nothing is transpiled either.
        detail = "body, characteristics and docs are unchanged"
        change = Change("unchanged", key, def_id, existing.current_version_id, detail)
        return meta, change, warnings

    reps, rep_warnings = representations(stmt, options)
    warnings += rep_warnings

    if meta is None:
        ts = ctx.clock()
        version = new_version(stmt, 1, ts, reps, deterministic_default)
        new_uuid: Callable[[], object] = ctx.new_uuid  # not a str: new_metadata refuses it
        meta = new_metadata(stmt, new_uuid(), new_definition(stmt, version, def_id), props, ts)
        return meta, Change("created-function", key, def_id, 1), warnings

    if existing is None:
        ts = _next_timestamp(meta, ctx)
        version = new_version(stmt, 1, ts, reps, deterministic_default)
        meta.definitions.append(new_definition(stmt, version, def_id))
        if index is not None:
            index.appended(def_id, 1)
        append_log_entry(meta, ts, index)
        return meta, Change("added-definition", key, def_id, 1), warnings + prop_warnings

    # CREATE OR REPLACE of a known signature, with something changed.
    existing = owned.own(meta, existing, index)
    ts = _next_timestamp(meta, ctx)
    next_id = owned.next_version_id(existing)
    existing.versions.append(new_version(stmt, next_id, ts, reps, deterministic_default))
    quiet_assign(existing, "current_version_id", next_id)  # our own copy: no caller's edit
    owned.appended_current(existing)
    quiet_assign(existing, "parameters", _updated_parameters(existing, stmt))
    if stmt.doc is not None:
        quiet_assign(existing, "doc", stmt.doc)
    elif "doc" in existing.model_fields_set:
        quiet_assign(existing, "doc", None)
        existing.model_fields_set.discard("doc")
    if index is not None:
        index.changed(def_id, next_id)
    append_log_entry(meta, ts, index)
    return meta, Change("new-version", key, def_id, next_id), warnings + prop_warnings


def _definition_id(types: tuple[IcebergType, ...], stmt: Statement) -> str:
    """The definition-id, or a positioned error when the spec's id format cannot hold a type."""
    try:
        return definition_id(types)
    except TypeParseError as e:
        raise UnsupportedError(
            f"{e.message}: Iceberg identifies a definition by its parameter types, and this "
            "one cannot be written in a definition-id",
            stmt.position,
        ) from None


def _check_return_type(existing: Definition, stmt: CreateFunction, key: str, def_id: str) -> None:
    old = parse_type_json(existing.return_type)
    if old != stmt.return_type or existing.function_type != stmt.kind:
        raise MergeError(
            f"function {key}({def_id}) returns {existing.function_type} {old}; this statement "
            f"returns {stmt.kind} {stmt.return_type}. Return types are immutable: DROP FUNCTION "
            f"{key}({def_id}) and create it again, or give the new body a different signature",
            stmt.positions.get("returns", stmt.position),
        )


def _attach(
    meta: UdfMetadata,
    existing: Definition,
    stmt: CreateFunction,
    ctx: Context,
    key: str,
    warnings: list[Diagnostic],
    index: DefinitionIndex | None,
    owned: OwnedDefinitions,
) -> tuple[UdfMetadata, Change, list[Diagnostic]]:
    """Put ``stmt``'s body into the current version as its representation for its dialect."""
    current = owned.current(existing)
    def_id = existing.definition_id
    old = current.representation(stmt.dialect)
    if old is not None and old.sql == stmt.body.text:
        return (
            meta,
            Change(
                "unchanged",
                key,
                def_id,
                current.version_id,
                f"the {stmt.dialect} representation is already this body",
            ),
            warnings,
        )
    rep = sql_representation(stmt.dialect, stmt.body.text)
    existing = owned.own(meta, existing, index)
    shared, current = current, current.model_copy()
    quiet_assign(existing, "versions", [current if v is shared else v for v in existing.versions])
    current.representations = [
        r
        for r in current.representations
        if not (isinstance(r, SqlRepresentation) and r.dialect.lower() == stmt.dialect.lower())
    ] + [rep]
    stated = stmt.deterministic, stmt.on_null_input
    if (stated[0] is not None and stated[0] != current.deterministic) or (
        stated[1] is not None and stated[1] != current.on_null_input
    ):
        warnings.append(
            Diagnostic(
                "attach-characteristics",
                f"the attached {stmt.dialect} body states characteristics that differ from "
                f"version {current.version_id}'s; the version's are kept",
                stmt.position,
            )
        )
    append_log_entry(meta, _next_timestamp(meta, ctx), index)
    detail = "replaced the earlier one" if old is not None else "added"
    return (
        meta,
        Change(
            "attached-representation",
            key,
            def_id,
            current.version_id,
            f"{stmt.dialect} representation {detail}",
        ),
        warnings,
    )


def _unchanged(
    existing: Definition, stmt: CreateFunction, deterministic_default: bool, owned: OwnedDefinitions
) -> bool:
    """Whether re-running ``stmt`` would write what the current version and docs already say.

    Only the statement's own dialect is compared (its body as written, its characteristics), so
    the question is answered before any transpiling.
    """
    current = owned.current(existing)
    candidate = new_version(
        stmt,
        current.version_id,
        current.timestamp_ms,
        [source_representation(stmt)],
        deterministic_default,
    )
    return _same_version(current, candidate, stmt.dialect) and _same_docs(existing, stmt)


def _same_version(current: DefinitionVersion, candidate: DefinitionVersion, dialect: str) -> bool:
    mine, theirs = current.representation(dialect), candidate.representation(dialect)
    return (
        mine is not None
        and theirs is not None
        and mine.sql == theirs.sql
        and current.deterministic == candidate.deterministic
        and current.on_null_input == candidate.on_null_input
    )


def _same_docs(existing: Definition, stmt: CreateFunction) -> bool:
    if existing.doc != stmt.doc:
        return False
    return [(p.name, p.doc) for p in existing.parameters] == [
        (p.name, p.doc) for p in stmt.parameters
    ]


def _updated_parameters(existing: Definition, stmt: CreateFunction) -> list[Parameter]:
    """New names and docs; a parameter's stored type JSON (and unknown keys) stays as it was."""
    fresh = new_parameters(stmt)
    out = []
    for old, new in zip(existing.parameters, fresh, strict=True):
        p = old.model_copy(deep=True)
        p.name = new.name
        if new.doc is None:
            p.doc = None
            p.model_fields_set.discard("doc")
        else:
            p.doc = new.doc
            p.model_fields_set.add("doc")
        out.append(p)
    return out


# -- DROP ------------------------------------------------------------------------------------


def _drop(
    meta: UdfMetadata | None, stmt: DropFunction, ctx: Context
) -> tuple[UdfMetadata | None, Change]:
    key = function_key(stmt.name)
    if stmt.parameter_types is None:
        doomed = [] if meta is None else [d.definition_id for d in meta.definitions]
        def_id = None
    else:
        def_id = _definition_id(stmt.parameter_types, stmt)
        doomed = [def_id] if meta is not None and meta.definition(def_id) is not None else []
    if not doomed:
        if stmt.if_exists:
            return meta, Change("unchanged", key, def_id, None, "IF EXISTS and nothing to drop")
        known = "" if meta is None else ", ".join(f"({d.definition_id})" for d in meta.definitions)
        raise MergeError(
            f"function {key}{'' if def_id is None else f'({def_id})'} does not exist"
            + (f"; its signatures are {known}" if known else ""),
            stmt.position,
        )
    assert meta is not None
    remaining = [d for d in meta.definitions if d.definition_id not in doomed]
    if not remaining:
        return None, Change("dropped-function", key, def_id, None, "no definition is left")
    meta.definitions = remaining
    append_log_entry(meta, _next_timestamp(meta, ctx))
    return meta, Change("dropped-definition", key, def_id)


# -- The log ---------------------------------------------------------------------------------


def _next_timestamp(meta: UdfMetadata, ctx: Context) -> int:
    """Now, but strictly after the last log entry: the log never goes backwards."""
    last = meta.definition_log[-1].timestamp_ms if meta.definition_log else -1
    return max(ctx.clock(), last + 1)
