"""What every dialect is: the :class:`Dialect` base class, the values it exchanges with the
rest of the package (:class:`RoutineSpec` in, :class:`Rendered` out), and the engine-independent
pieces both front ends use.

A dialect subclass sets the documented class attributes below and implements
:meth:`Dialect.parse_statement` and :meth:`Dialect.render_create`; everything else has a default
that a dialect overrides only where its engine differs (Spark's ``IDENTIFIER('...')`` name, for
instance). The IR, metadata, merge and history never ask an engine anything but through here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

from translator.errors import Diagnostic
from translator.names import format_name
from translator.query_free import QueryFree
from translator.rebuild import Reduced, by_init
from translator.types import IcebergType, ListType, MapType, StructType

if TYPE_CHECKING:
    from translator.ir import Statement
    from translator.script import Lexical, StatementText, Token

__all__ = [
    "QUERY_WORDS",
    "BodyKind",
    "Dialect",
    "Rendered",
    "RoutineSpec",
    "by_offset",
    "first_word",
    "stored_body_kind",
    "version_label",
    "walk_type",
]

BodyKind = Literal["expression", "query", "compound"]


# ---------------------------------------------------------------------------------------------
# What a dialect renders, and what it returns


#: Asks an engine for the type it derives for a function that does not declare one:
#: (parameters, body, whether it is a table function) -> the type (for a table function, the
#: struct of its columns). Raises UnsupportedError with the engine's reason.
TypeInference = Callable[[Sequence[tuple[str, IcebergType]], str, bool], IcebergType]


#: Where compile keeps characteristics the spec has no field for, as function properties
#: (hints): the generators read them back for their own dialect.
PROPERTY_KEYS: Final = {
    "security": "{dialect}.security",  # Trino SECURITY DEFINER|INVOKER, Spark SQL SECURITY
    "data_access": "{dialect}.data-access",  # Spark CONTAINS SQL / READS SQL DATA
    "property": "{dialect}.property.{name}",  # Trino WITH (name = value), value as written
}


@dataclass(frozen=True, slots=True)
class RoutineSpec:
    """Everything a dialect needs to write one CREATE FUNCTION, body already in its dialect."""

    name: tuple[str, ...]
    parameters: tuple[tuple[str, IcebergType, str | None], ...]
    return_type: IcebergType
    kind: Literal["udf", "udtf"]
    doc: str | None
    deterministic: bool
    on_null_input: Literal["call", "return-null"]
    body: str
    body_kind: BodyKind
    definition_id: str
    version_id: int
    #: Each parameter's DEFAULT as written, for an engine that has them (empty: none).
    defaults: tuple[str | None, ...] = ()
    #: The function's properties (the spec's string map), where characteristics without a
    #: metadata field are kept (``trino.security``...): the dialect reads its own keys.
    properties: tuple[tuple[str, str], ...] = ()
    #: sqlglot's tree of ``body`` (:func:`translator.bodies.parse_body`'s, in this dialect) where
    #: the caller has read it already, so the dialect does not parse the body again; None: not
    #: read, or unreadable. Read only, never changed.
    body_tree: Any = field(default=None, compare=False, repr=False)

    @property
    def label(self) -> str:
        """How messages name it: a batch emits many functions, so the name comes first."""
        return version_label(self.name, self.definition_id, self.version_id)

    def __reduce__(self) -> Reduced:
        return by_init(self)


def version_label(name: tuple[str, ...], definition_id: str, version_id: int) -> str:
    """``cat.db.fn(definition-id) version 3``: how a message names one definition version."""
    return f"{format_name(name)}({definition_id}) version {version_id}"


@dataclass(frozen=True, slots=True)
class Rendered:
    """A dialect's CREATE FUNCTION text, what it loses (refused unless allowed), and notes."""

    text: str
    lossy: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def __reduce__(self) -> Reduced:
        return by_init(self)


# ---------------------------------------------------------------------------------------------
# Bodies: expression or query


#: Words that open a query in a function body, in either engine. A dialect's
#: :attr:`Dialect.query_words` is the part of this its own grammar reads.
QUERY_WORDS: Final = frozenset({"SELECT", "WITH", "VALUES", "FROM", "TABLE"})

#: A body's first word (a body that opens with "(" has none: it is an expression).
_FIRST_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\b")
_LEADING_WORD: Final = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\b")


def first_word(text: str) -> str | None:
    """The word ``text`` opens with, upper case, or None if it opens with anything else."""
    m = _FIRST_WORD.match(text)
    return None if m is None else m.group().upper()


def stored_body_kind(text: str, function_type: str) -> BodyKind:
    """The kind of a body kept in metadata: a ``BEGIN`` block, a query, or an expression.

    A table function's body is always a query. Any word of :data:`QUERY_WORDS` makes a scalar
    function's body a query, whichever dialect the body is in: a stored body was accepted by its
    own front end already, so no engine's narrower list needs to be applied here.
    """
    m = _LEADING_WORD.match(text)
    word = m.group(1).upper() if m is not None else ""
    if word == "BEGIN":
        return "compound"
    if function_type == "udtf" or word in QUERY_WORDS:
        return "query"
    return "expression"


# ---------------------------------------------------------------------------------------------
# Small pieces both front ends use


def walk_type(t: IcebergType) -> Iterator[IcebergType]:
    """``t`` and every type nested in it, parents before children, fields in order."""
    yield t
    if isinstance(t, ListType):
        yield from walk_type(t.element)
    elif isinstance(t, MapType):
        yield from walk_type(t.key)
        yield from walk_type(t.value)
    elif isinstance(t, StructType):
        for f in t.fields:
            yield from walk_type(f.type)


def by_offset(d: Diagnostic) -> int:
    """Sort key for a statement's warnings: where in the script they point (unplaced first)."""
    return d.position.offset if d.position else 0


# ---------------------------------------------------------------------------------------------
# The base class


class Dialect:
    """One SQL engine: how it reads and writes function DDL, and the facts that differ.

    Settings are class attributes, each documented here with what it changes; a subclass states
    only its own values. :func:`translator.dialects.get_dialect` hands out one instance per engine.
    """

    #: The identifier stored in a representation's ``dialect`` field (``"trino"``).
    name: ClassVar[str]
    #: The engine's name in messages (``"Trino"``).
    title: ClassVar[str]
    #: sqlglot's name for the dialect, used to parse and transpile bodies.
    sqlglot_dialect: ClassVar[str]
    #: The sqlglot parser class that reads a body written for this engine back, to check it
    #: (:func:`translator.bodies.transpile_body`); None: the sqlglot dialect's own parser. Set
    #: only to a parser that accepts exactly what the dialect's own accepts and gives the check
    #: the same names and tokens, doing less (Spark's: :mod:`.spark.check_parser`).
    check_parser: ClassVar[type[Any] | None] = None
    #: The sqlglot generator class that writes a body in this engine's SQL; None: the sqlglot
    #: dialect's own generator. Set only to a generator that writes exactly what the dialect's
    #: own writes (the same text, the same errors), doing less (Spark's: :mod:`.spark.writer`).
    body_writer: ClassVar[type[Any] | None] = None
    #: How the engine's scripts are lexed (quotes, escapes, name folding): what
    #: :func:`translator.script.split_statements` needs to find the statements.
    lexical: ClassVar[Lexical]
    #: Whether the engine has SQL table functions (``RETURNS TABLE``).
    table_functions: ClassVar[bool]
    #: Whether ``RETURN`` takes a query; if not, a scalar query body is written as a subquery.
    return_takes_query: ClassVar[bool]
    #: Words that make a ``RETURN`` body a query rather than an expression, in this engine's
    #: grammar (a subset of :data:`QUERY_WORDS`).
    query_words: ClassVar[frozenset[str]] = QUERY_WORDS
    #: What a function that does not say [NOT] DETERMINISTIC is, by the engine's documentation.
    #: Merge writes it into the metadata when a statement says nothing.
    deterministic_default: ClassVar[bool] = True
    #: Whether the engine holds a function to the default when it says nothing (Trino's analyzer
    #: rejects a non-deterministic body that does not say NOT DETERMINISTIC). If so, silence is a
    #: statement: the IR records the default as said (see :meth:`deterministic_said`), and an
    #: attached body that says nothing can differ from a version that is not deterministic.
    default_deterministic_is_checked: ClassVar[bool] = False
    #: Whether a script's ``USE ns`` moves its unqualified function names to ``ns``.
    use_sets_function_namespace: ClassVar[bool]
    #: How many parts a function name the engine creates may have.
    name_parts: ClassVar[frozenset[int]]
    #: Whether several functions of one name may differ by signature. If not, emit refuses to
    #: write several definitions at once (one would replace the other), naming them.
    overloading: ClassVar[bool] = True
    #: Whether parameters take DEFAULTs: then emit writes a definition's DEFAULTs (kept in the
    #: function's properties, translator/defaults.py) and leaves out the shortened definitions
    #: they stand for.
    parameter_defaults: ClassVar[bool] = False

    # -- what each dialect implements ---------------------------------------------------------

    def parse_statement(self, stmt: StatementText, infer: TypeInference | None = None) -> Statement:
        """Parse one CREATE/DROP FUNCTION statement; raise a positioned TranslatorError.
        ``infer``: asked for the type of a function that leaves it to the engine (Spark without
        RETURNS); without it such a function is refused."""
        raise NotImplementedError

    def render_create(self, spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
        """The engine's CREATE FUNCTION for ``spec``; raise UnsupportedError if it has none."""
        raise NotImplementedError

    # -- policies with a default --------------------------------------------------------------

    def prepare_body(
        self, ast: Any, parameters: Sequence[str], *, private: bool = False
    ) -> QueryFree:
        """A body's sqlglot tree from another dialect, rewritten into what this engine accepts
        before sqlglot writes it, or the reason it has no form here (Trino: no query in a
        routine, its date_trunc units...). ``private``: ``ast`` is the caller's to give up, so
        it may be rewritten itself rather than a copy. The base class takes the tree as it is."""
        return QueryFree(ast, private=private)

    def deterministic_said(self, said: bool | None) -> bool | None:
        """What a statement's DETERMINISTIC clause (None: no clause) states, for the IR."""
        if said is None and self.default_deterministic_is_checked:
            return self.deterministic_default
        return said

    def use_target(self, piece: StatementText) -> list[str] | None:
        """The name parts of a ``USE`` statement; None if it is no USE, [] if it names none.

        ``USE CATALOG c`` names no namespace; ``USE [NAMESPACE|DATABASE|SCHEMA] a.b`` names one.
        """
        words = piece.words
        if not words or words[0].kind != "word" or words[0].upper != "USE":
            return None
        rest = words[1:]
        if len(rest) > 1 and rest[0].kind == "word":
            if rest[0].upper == "CATALOG":
                return []
            if rest[0].upper in ("NAMESPACE", "DATABASE", "SCHEMA"):
                rest = rest[1:]
        parts, after = self.dotted_name(rest)
        return parts if parts and not after else []

    def function_name_of(self, piece: StatementText) -> list[str] | None:
        """The name parts a CREATE/DROP FUNCTION statement names, read from its tokens alone
        (for a statement that does not parse), or None if they cannot be told.

        Reads ``... FUNCTION [IF [NOT] EXISTS] name (`` or ``... FUNCTION name`` at the end.
        """
        parts, after = self.function_name_tokens(piece)
        if not parts or (after and after[0].text != "("):
            return None
        return parts

    def function_name_tokens(self, piece: StatementText) -> tuple[list[str], list[Token]]:
        """The dotted name after ``FUNCTION [IF [NOT] EXISTS]``, and the tokens after it."""
        words = piece.words
        at = next((i for i, t in enumerate(words) if t.upper == "FUNCTION"), None)
        if at is None:
            return [], []
        rest = words[at + 1 :]
        while rest and rest[0].kind == "word" and rest[0].upper in ("IF", "NOT", "EXISTS"):
            rest = rest[1:]
        return self.dotted_name(rest)

    def dotted_name(self, tokens: Sequence[Token]) -> tuple[list[str], list[Token]]:
        """A dotted name at the start of ``tokens`` (significant ones), as this engine reads
        names (:attr:`lexical`), and the tokens after it; ``[]`` if no name starts there."""
        parts: list[str] = []
        for i, t in enumerate(tokens):
            if len(parts) == i // 2 and i % 2 == 0 and t.kind in ("word", "qident"):
                parts.append(self.lexical.name(t))
            elif i % 2 == 1 and t.kind == "punct" and t.text == ".":
                continue
            else:
                return (parts if i % 2 == 1 else []), list(tokens[i:])
        return (parts if len(tokens) % 2 == 1 else []), []
