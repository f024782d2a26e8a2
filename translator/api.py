"""The small public surface deploy scripts use.

A deploy script needs three lines::

    from translator import compile_script
    result = compile_script(open("add_one.sql").read(), dialect="trino").raise_for_errors()
    open("add_one.metadata.json", "w").write(result.dump())
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from translator.collector import spaced_collections
from translator.compile import CompileOptions, Context, check_body, owned_trees
from translator.errors import (
    Diagnostic,
    LossyError,
    NameSyntaxError,
    TranslatorError,
    UnsupportedError,
)
from translator.frontend import parse_script
from translator.ir import CreateFunction, SkippedStatement, Statement
from translator.merge import Change, function_key, merge_statements
from translator.metadata import UdfMetadata, dump_metadata
from translator.names import parse_name

__all__ = ["CompileResult", "compile_script"]


@dataclass(slots=True)
class CompileResult:
    """Metadata per function (None: the script dropped it), and everything that happened."""

    functions: dict[str, UdfMetadata | None] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    errors: list[TranslatorError] = field(default_factory=list)
    skipped: list[SkippedStatement] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def raise_for_errors(self) -> CompileResult:
        """Raise the first error (all of them are in ``errors``); else return self."""
        if self.errors:
            raise self.errors[0]
        return self

    @property
    def metadata(self) -> UdfMetadata | None:
        """The one function's metadata; a script naming several functions must use ``functions``."""
        if len(self.functions) != 1:
            raise ValueError(
                f"the script names {len(self.functions)} functions "
                f"({', '.join(sorted(self.functions)) or 'none'}): use .functions"
            )
        return next(iter(self.functions.values()))

    def dump(self, name: str | None = None) -> str:
        """The metadata file text of ``name`` (default: the only function)."""
        meta = self.metadata if name is None else self.functions[name]
        if meta is None:
            raise ValueError("the function was dropped: there is no metadata to write")
        return dump_metadata(meta)


@spaced_collections()
def compile_script(
    sql: str,
    dialect: str,
    *,
    into: UdfMetadata | Mapping[str, UdfMetadata | None] | None = None,
    file: str | None = None,
    options: CompileOptions | None = None,
    context: Context | None = None,
    strict: bool = False,
    into_name: str | None = None,
    spark: Any = None,
) -> CompileResult:
    """Parse ``sql`` in ``dialect`` and merge every statement, in order, into ``into``.

    ``into`` is one function's existing metadata (the script must then name one function) or a
    mapping from function name (its parts as one text, :func:`translator.names.format_name`) to
    metadata. A metadata document holds no name: ``into_name`` says which function ``into`` is,
    and a statement naming another one is refused instead of merged into it. ``strict``
    refuses statements whose translation would lose information. A failing statement is
    reported in ``errors`` and the others are still applied.

    ``into`` is never changed. The result shares the definitions, versions and log entries no
    statement changed with it (a merge into big metadata costs little more than the statements);
    :func:`translator.metadata.deep_copy` separates them if either is to be changed in place.

    ``spark``: a SparkSession. A Spark function without RETURNS (or with ``RETURNS TABLE`` and
    no columns) then gets the type Spark's own analysis derives in that session, with its
    tables and views (:mod:`translator.spark_infer`); without one it is refused.
    """
    infer = None
    if spark is not None:
        from translator.spark_infer import SparkTypeInference

        infer = SparkTypeInference(spark)
    parsed = parse_script(sql, dialect, file=file, infer=infer)
    result = CompileResult(errors=list(parsed.errors))
    statements: list[Statement] = []
    for stmt in parsed.statements:
        if isinstance(stmt, SkippedStatement):
            result.skipped.append(stmt)
            continue
        if isinstance(stmt, CreateFunction):
            try:
                check_body(stmt)  # a body no engine would take is this statement's error
            except TranslatorError as e:
                result.errors.append(e.without_frames())
                continue
        if strict and isinstance(stmt, CreateFunction):
            lossy = [w for w in stmt.warnings if w.lossy]
            if lossy:
                result.errors.extend(
                    LossyError(w.message, w.position, refused_by="strict") for w in lossy
                )
                continue
        statements.append(stmt)
    existing = _existing(into, statements, into_name)
    with owned_trees(statements):  # parsed for this call: its transpiles may use the trees up
        merged = merge_statements(statements, existing, ctx=context, options=options)
    result.functions = merged.functions
    result.changes = merged.changes
    result.warnings = merged.warnings
    result.errors.extend(merged.errors)
    result.errors.sort(key=_error_order)
    return result


def _existing(
    into: UdfMetadata | Mapping[str, UdfMetadata | None] | None,
    statements: list[Statement],
    into_name: str | None = None,
) -> Mapping[str, UdfMetadata | None]:
    if into is None:
        return {}
    if not isinstance(into, UdfMetadata):
        return into
    named = [s.name for s in statements if not isinstance(s, SkippedStatement)]
    names = {function_key(n) for n in named}
    wanted = None if into_name is None else _last_part(into_name).lower()
    for parts in sorted(named):
        if wanted is not None and parts[-1].lower() != wanted:
            raise UnsupportedError(
                f"the script names function {function_key(parts)}, but the metadata merged into "
                f"is function {into_name}: a statement for another function is not merged into it"
            )
    if len(names) > 1:
        raise UnsupportedError(
            "existing metadata describes one function, but the script names "
            f"{len(names)}: {', '.join(sorted(names))}"
        )
    return {name: into for name in names}


def _last_part(name: str) -> str:
    """The function name part of ``name`` (:func:`translator.names.parse_name`), or ``name``
    itself when it is no well-formed name."""
    try:
        return parse_name(name)[-1]
    except NameSyntaxError:
        return name


def _error_order(e: TranslatorError) -> tuple[str, int, int]:
    p = e.position
    return ("", 0, 0) if p is None else (p.file or "", p.line, p.column)
