"""Metadata -> engine DDL: pick the versions, get a body for the target, hand it to the dialect.

The dialect-free half of emission: which definition versions to emit (current, a version id, or
what the definition-log says was current at a time), and a body valid in the target dialect (its
own representation, or one transpiled with the same checks compile uses). The dialects render
the ``CREATE FUNCTION`` text itself, from a :class:`~translator.dialects.base.RoutineSpec`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from translator.bodies import parse_body, transpile_body
from translator.body_checks import BODY_DIALECTS, body_problem
from translator.collector import spaced_collections
from translator.defaults import DEFAULT_FORM, PARAMETER_DEFAULT
from translator.dialects import get_dialect
from translator.dialects.base import RoutineSpec, stored_body_kind, version_label
from translator.errors import (
    BodyError,
    Diagnostic,
    HistoryError,
    LossyError,
    OverloadError,
    UnsupportedError,
)
from translator.history import dropped_since, entry_index, version_at, versions_at
from translator.metadata import Definition, DefinitionVersion, SqlRepresentation, UdfMetadata
from translator.names import format_name

__all__ = [
    "EmitResult",
    "emit_ddl",
    "routine_spec",
    "select_versions",
]


@dataclass(frozen=True, slots=True)
class EmitResult:
    ddl: list[str]
    warnings: list[Diagnostic]

    @property
    def text(self) -> str:
        return "".join(s + ";\n" for s in self.ddl)


def select_versions(
    meta: UdfMetadata,
    *,
    definition: str | None = None,
    version: int | None = None,
    as_of: int | None = None,
) -> tuple[list[tuple[Definition, DefinitionVersion]], list[Diagnostic]]:
    """The (definition, version) pairs to emit, in the metadata's definition order: the current
    versions, version ``version`` of each, or those current at ``as_of``
    (:mod:`translator.history`)."""
    if version is not None and as_of is not None:
        raise UnsupportedError("give version or as_of, not both")
    defs = meta.definitions
    if definition is not None:
        found = meta.definition(definition)
        if found is None:
            known = ", ".join(repr(d.definition_id) for d in defs)
            raise UnsupportedError(f"no definition {definition!r}; the definitions are {known}")
        defs = [found]
    warnings: list[Diagnostic] = []
    if as_of is not None:
        try:
            index = entry_index(meta, as_of=as_of)
            chosen = versions_at(meta, index)
            out = [
                (d, version_at(d, chosen[d.definition_id], index))
                for d in defs
                if d.definition_id in chosen  # else created after that time
            ]
        except HistoryError as e:
            raise UnsupportedError(e.message) from None
        return out, dropped_since(meta, index)
    if version is not None:
        out = []
        for d in defs:
            v = d.version(version)
            if v is None:
                ids = ", ".join(str(x.version_id) for x in d.versions)
                raise UnsupportedError(
                    f"definition {d.definition_id!r} has no version {version} (it has {ids})"
                )
            out.append((d, v))
        return out, warnings
    return [(d, d.current_version) for d in defs], warnings


def routine_spec(
    name: tuple[str, ...],
    d: Definition,
    v: DefinitionVersion,
    target: str,
    properties: Mapping[str, str] | None = None,
) -> tuple[RoutineSpec, list[Diagnostic]]:
    """The spec to render, transpiling the body when ``v`` has none for ``target``.
    ``properties``: the function's (its characteristics and DEFAULTs are kept there)."""
    warnings: list[Diagnostic] = []
    rep = v.representation(target)
    tree = None  # sqlglot's tree of the body, read once for the check and the dialect
    if rep is None:
        rep = _transpiled(name, d, v, target, warnings)
    else:
        # The body is written into a script a client splits at ';': it must be one body.
        kind = stored_body_kind(rep.sql, d.function_type)
        if target in BODY_DIALECTS:
            tree, _ = parse_body(rep.sql, kind, get_dialect(target).sqlglot_dialect)
        problem = body_problem(rep.sql, kind, target, tree)
        if problem is not None:
            label = version_label(name, d.definition_id, v.version_id)
            raise BodyError(f"{label}: the {target} representation is refused: {problem}")
    props = dict(properties or {})
    defaults: tuple[str | None, ...] = ()
    if get_dialect(target).parameter_defaults:
        keys = [
            PARAMETER_DEFAULT.format(dialect=target, definition=d.definition_id, name=p.name)
            for p in d.parameters
        ]
        if any(k in props for k in keys):
            defaults = tuple(props.get(k) for k in keys)
        for key, default in zip(keys, defaults, strict=False):
            # Written into the DDL as it is: it must be one expression, like a body.
            problem = None if default is None else body_problem(default, "expression", target)
            if problem is not None:
                label = version_label(name, d.definition_id, v.version_id)
                raise BodyError(f"{label}: the DEFAULT in property {key} is refused: {problem}")
    spec = RoutineSpec(
        name=name,
        parameters=tuple((p.name, p.iceberg_type, p.doc) for p in d.parameters),
        return_type=d.iceberg_return_type,
        kind=d.function_type,
        doc=d.doc,
        deterministic=v.deterministic,
        on_null_input=v.on_null_input,
        body=rep.sql,
        body_kind=stored_body_kind(rep.sql, d.function_type),
        definition_id=d.definition_id,
        version_id=v.version_id,
        defaults=defaults,
        properties=tuple(sorted(props.items())),
        body_tree=tree,
    )
    return spec, warnings


def _transpiled(
    name: tuple[str, ...],
    d: Definition,
    v: DefinitionVersion,
    target: str,
    warnings: list[Diagnostic],
) -> SqlRepresentation:
    engine = get_dialect(target)
    if d.function_type == "udtf" and not engine.table_functions:
        raise UnsupportedError(
            f"{version_label(name, d.definition_id, v.version_id)} is a table function: "
            f"{engine.title} has no SQL table functions"
        )
    sources = [r for r in v.representations if isinstance(r, SqlRepresentation)]
    reasons = []
    for src in sources:
        try:
            src_dialect = get_dialect(src.dialect)
        except UnsupportedError:
            reasons.append(f"{src.dialect}: not a dialect this tool reads")
            continue
        kind = stored_body_kind(src.sql, d.function_type)
        if src_dialect.name in BODY_DIALECTS:
            problem = body_problem(src.sql, kind, src_dialect.name)
            if problem is not None:
                reasons.append(f"{src.dialect}: {problem}")
                continue
        ast, _ = parse_body(src.sql, kind, src_dialect.sqlglot_dialect)
        t = transpile_body(
            src.sql,
            ast,
            kind=kind,
            source=src_dialect.name,
            target=target,
            parameters=[p.name for p in d.parameters],
            parameter_types={p.name: p.iceberg_type for p in d.parameters},
            name=name[-1],
            # A table function's body is not a routine body (the target refuses it itself).
            return_type=d.iceberg_return_type if d.function_type == "udf" else None,
            prepare=engine.prepare_body,
        )
        if t.sql is not None:
            warnings.append(
                Diagnostic(
                    "transpiled",
                    f"definition {d.definition_id!r} version {v.version_id} has no {target} "
                    f"representation; transpiled from {src.dialect} with sqlglot",
                )
            )
            return SqlRepresentation(type="sql", dialect=target, sql=t.sql)
        reasons.append(f"{src.dialect}: {t.reason}")
    raise UnsupportedError(
        f"{version_label(name, d.definition_id, v.version_id)} has no {target} representation "
        f"and none can be made: {'; '.join(reasons) or 'it has no SQL representation'}"
    )


@spaced_collections()
def emit_ddl(
    meta: UdfMetadata,
    target: str,
    name: tuple[str, ...],
    *,
    definition: str | None = None,
    version: int | None = None,
    as_of: int | None = None,
    allow_lossy: bool = False,
    or_replace: bool = False,
) -> EmitResult:
    """One ``CREATE FUNCTION`` per selected definition, in ``target``'s own syntax."""
    dialect = get_dialect(target)
    pairs, warnings = select_versions(meta, definition=definition, version=version, as_of=as_of)
    properties = meta.properties or {}
    if dialect.parameter_defaults:
        pairs = _without_default_forms(pairs, properties, dialect.name, warnings)
    if not dialect.overloading and len(pairs) > 1:
        ids = [d.definition_id for d, _ in pairs]
        raise OverloadError(
            f"{format_name(name)} has {len(ids)} definitions ({'; '.join(ids)}), and "
            f"{dialect.title} has no overloading: each CREATE FUNCTION would replace the one "
            "before. Choose one definition to write",
            ids,
        )
    ddl = []
    for d, v in pairs:
        spec, w = routine_spec(name, d, v, dialect.name, properties)
        warnings += w
        rendered = dialect.render_create(spec, or_replace=or_replace)
        if rendered.lossy and not allow_lossy:
            raise LossyError(
                f"emitting {format_name(name)}({d.definition_id}) for {target} would lose "
                "information: " + "; ".join(rendered.lossy)
            )
        warnings += [Diagnostic("lossy", m, lossy=True) for m in rendered.lossy]
        warnings += [Diagnostic("emit-note", m) for m in rendered.notes]
        ddl.append(rendered.text)
    return EmitResult(ddl, warnings)


def _without_default_forms(
    pairs: list[tuple[Definition, DefinitionVersion]],
    properties: Mapping[str, str],
    dialect: str,
    warnings: list[Diagnostic],
) -> list[tuple[Definition, DefinitionVersion]]:
    """``pairs`` less the shortened definitions a selected definition's DEFAULTs stand for
    (translator/defaults.py): the engine writes the DEFAULTs instead."""
    selected = {d.definition_id for d, _ in pairs}
    out = []
    for d, v in pairs:
        full = properties.get(DEFAULT_FORM.format(dialect=dialect, definition=d.definition_id))
        if full is not None and full in selected and full != d.definition_id:
            warnings.append(
                Diagnostic(
                    "default-form",
                    f"definition {d.definition_id!r} is not written: it is definition {full!r} "
                    "called without its DEFAULT arguments, which that definition's DEFAULTs give",
                )
            )
            continue
        out.append((d, v))
    return out
