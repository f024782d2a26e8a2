"""A parsed Trino CREATE FUNCTION, checked as a whole and turned into the IR.

The Transformer (:mod:`.parser`) hands over the statement's parts; the checks that span them
(characteristics given once, a SQL routine, named and distinct parameters, the shape of a RETURN
body) live here, in order of how useful their message is.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final, Literal

from translator.bodies import parse_body
from translator.dialects.base import by_offset
from translator.dialects.grammar import error_at, load_parser, parse_with
from translator.dialects.trino.lexical import NAME, NAME_PARTS
from translator.dialects.trino.source import (
    BodyPart,
    Characteristic,
    Param,
    QName,
    Returns,
    Source,
    Span,
    readable,
    too_deep,
)
from translator.dialects.trino.types import to_iceberg
from translator.errors import Diagnostic, SqlSyntaxError
from translator.ir import Body, CreateFunction, Parameter
from translator.types import IcebergType, StructField, StructType

if TYPE_CHECKING:
    from translator.dialects.base import Dialect

__all__ = ["FunctionAssembler", "Site", "check_name"]


class Site(Source):
    """What the assembler needs of the Transformer: the statement, and the dialect whose
    policies apply (always set when a statement is parsed)."""

    dialect: Dialect | None


class FunctionAssembler:
    """Checks a parsed CREATE FUNCTION and builds its :class:`CreateFunction`.

    The checks run in order of how useful their message is: a non-SQL routine is refused for
    that reason first, before any complaint about its types.
    """

    def __init__(self, b: Site, children: list[Any]) -> None:
        self.b = b
        assert b.dialect is not None  # set whenever a statement (not a lone type) is parsed
        self.dialect = b.dialect
        self.or_replace = children[1] is not None
        self.qname: QName = children[4]
        self.params: list[Param] = children[5]
        self.early: Characteristic | None = children[6]
        self.returns: Returns = children[7]
        self.characteristics: list[Characteristic] = list(children[8:-1])
        self.body: BodyPart = children[-1]
        self.warnings: list[Diagnostic] = []

    def build(self) -> CreateFunction:
        chars = self.characteristics_by_key()
        self.refuse_non_sql(chars)
        name = check_name(self.b, self.qname)
        parameters = self.parameters()
        return_type, kind = self.return_type()
        body = self.make_body(kind)
        positions = {"name": self.b.position(self.qname.offset)}
        positions["returns"] = self.b.position(self.returns.offset)
        positions["body"] = body.position or self.b.position(0)
        for key, c in chars.items():
            positions[key] = self.b.position(c.offset)
        props = chars.get("properties")
        return CreateFunction(
            name=name,
            parameters=parameters,
            return_type=return_type,
            body=body,
            dialect=NAME,
            kind=kind,
            doc=_value(chars, "comment"),
            # Silence is DETERMINISTIC in Trino, and its analyzer holds a body to it (the spec's
            # appendix maps the Trino add_one, which says nothing, to "deterministic": true).
            deterministic=self.dialect.deterministic_said(_value(chars, "deterministic")),
            on_null_input=_value(chars, "on-null-input"),
            security=_value(chars, "security"),
            language=_value(chars, "language"),
            properties=tuple((k, v) for k, v, _ in props.value) if props else (),
            or_replace=self.or_replace,
            position=self.b.base or self.b.position(0),
            positions=positions,
            warnings=tuple(sorted(self.warnings, key=by_offset)),
        )

    def characteristics_by_key(self) -> dict[str, Characteristic]:
        """Each characteristic once: Trino's analyzer rejects a repeated one, in its words
        ("Multiple language clauses specified"); the error points at the repeat and says where
        the first one is."""
        out: dict[str, Characteristic] = {}
        given = ([self.early] if self.early else []) + self.characteristics
        for c in given:
            if c.key in out:
                first = self.b.position(out[c.key].offset)
                family = _TRINO_CLAUSE.get(c.key, c.label)
                raise self.b.syntax_error(
                    f"Multiple {family} clauses specified (the first is at line {first.line}, "
                    f"column {first.column})",
                    c.offset,
                )
            out[c.key] = c
        if self.early is not None:
            self.warn_not_trino(
                "COMMENT before RETURNS is the Iceberg spec appendix's order; Trino only "
                "accepts COMMENT after RETURNS",
                self.early.offset,
            )
        return out

    def refuse_non_sql(self, chars: dict[str, Characteristic]) -> None:
        """LANGUAGE PYTHON, a handler property or a ``$$`` body: not representable."""
        lang = chars.get("language")
        if lang is not None and lang.value != "SQL":
            raise self.b.unsupported(
                f"LANGUAGE {lang.value} routines cannot be translated: the Iceberg UDF spec "
                "has only SQL representations",
                lang.offset,
            )
        props = chars.get("properties")
        for key, _value_text, offset in props.value if props else ():
            if key == "handler":
                raise self.b.unsupported(
                    "a routine with a 'handler' property is not SQL-bodied: the Iceberg UDF "
                    "spec has only SQL representations",
                    offset,
                )
        if self.body.kind == "external":
            raise self.b.unsupported(
                "an AS $$...$$ body is not SQL: the Iceberg UDF spec has only SQL representations",
                self.body.offset,
            )

    def parameters(self) -> tuple[Parameter, ...]:
        out: list[Parameter] = []
        seen: dict[str, int] = {}
        for i, p in enumerate(self.params, 1):
            if p.name is None:
                raise self.b.unsupported(
                    f"parameter {i} has no name: Iceberg UDF parameters must be named",
                    p.offset,
                )
            if p.name.value in seen:
                raise self.b.syntax_error(f"duplicate parameter name {p.name.value!r}", p.offset)
            seen[p.name.value] = p.offset
            if p.doc_offset is not None:
                self.warn_not_trino(
                    "a parameter COMMENT is the Iceberg spec appendix's syntax; Trino rejects it",
                    p.doc_offset,
                )
            t = to_iceberg(p.type, self.b, self.warnings)
            out.append(Parameter(p.name.value, t, p.doc, None, self.b.position(p.offset)))
        return tuple(out)

    def return_type(self) -> tuple[IcebergType, Literal["udf", "udtf"]]:
        r = self.returns
        if r.type is not None:
            return to_iceberg(r.type, self.b, self.warnings), "udf"
        assert r.columns is not None
        self.warn_not_trino(
            "RETURNS TABLE comes from the Iceberg spec appendix: Trino has no SQL table "
            "functions and would reject this statement",
            r.table_offset,
        )
        fields: list[StructField] = []
        seen: set[str] = set()
        for col in r.columns:
            assert col.name is not None  # the grammar requires column names
            if col.name.value in seen:
                raise self.b.unsupported(
                    f"RETURNS TABLE has duplicate column name {col.name.value!r}", col.offset
                )
            seen.add(col.name.value)
            t = to_iceberg(col.type, self.b, self.warnings)
            fields.append(StructField(col.name.value, t, col.doc))
        return StructType(fields), "udtf"

    def make_body(self, kind: str) -> Body:
        part = self.body
        text = self.b.text[part.span.start : part.span.end]
        if part.kind == "query" and kind == "udf":
            self.warn_not_trino(
                "RETURN followed by a query: Trino accepts only an expression here",
                part.span.start,
            )
        ast, parse_error = parse_body(text, part.kind, NAME)
        if part.kind != "compound" and (ast is None or not _plainly_shaped(text)):
            _check_return_shape(self.b, part.span)
        kind_: Any = part.kind  # expression, query or compound here
        return Body(text, kind_, self.b.position(part.span.start), ast, parse_error)

    def warn_not_trino(self, message: str, offset: int) -> None:
        self.warnings.append(Diagnostic("not-trino-syntax", message, self.b.position(offset)))


#: Strings, quoted names and comments: what may hold any character (masked before the screen).
_QUOTED_OR_COMMENT: Final = re.compile(
    r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*[\s\S]*?\*/"
)
#: The characters of the grammar's expression tokens outside strings, quoted names and comments
#: (NAME, NUMBER, OP, ".", ",", ":", "(", ")", "[", "]").
_PLAIN_CHARACTERS: Final = re.compile(r"[A-Za-z0-9_\s.,:()\[\]|<>!=\-+*/%?&^~@]*")
#: What the shape depends on, in an upper-cased text: brackets, ":" and the rule's keywords,
#: each a whole token (group 1). A number (which may end in letters) and every other word are
#: tokens too, read as the grammar's NUMBER and NAME read them, so that no keyword is read inside
#: one; they are outside the group (``findall`` gives ``""`` for them).
_SHAPE_TOKEN: Final = re.compile(
    r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\w*"
    r"|((?:CASE|WHEN|THEN|ELSE|END|DO)(?!\w)|[()\[\]:])"
    r"|[A-Za-z_]\w*"
)
#: Words the expression rule reads as keywords (CASE ... WHEN ... THEN ... ELSE ... END) or
#: that may end an expression elsewhere in the grammar (DO), standing alone: every word token
#: starts and ends at a word boundary (a token takes every word character after its start), so
#: where this finds none, the token loop meets none either.
_SHAPE_WORD: Final = re.compile(r"\b(?:CASE|WHEN|THEN|ELSE|END|DO)\b", re.IGNORECASE)
_PARENS: Final = re.compile(r"[()]")


def _plainly_shaped(text: str) -> bool:
    """Whether the grammar's opaque expression rule (``return_check``) surely takes ``text``.

    sqlglot's Trino parser reads more than Trino does (``x::int``, ``{1}``, ``x END``), so its
    parse alone does not prove the body is Trino's, and walking every body token through lark
    would cost as much as the rest of the header. This screen follows the rule's shape (``(``,
    ``[`` and ``CASE`` nest; ``WHEN``/``THEN``/``ELSE`` only directly inside a CASE, ``:`` only
    inside brackets) and says no at anything else; then :func:`_check_return_shape` asks the
    grammar itself. ``tests/dialects/trino/test_trino_frontend.py`` checks it against the grammar.
    """
    masked = _QUOTED_OR_COMMENT.sub(" ", text)
    if _PLAIN_CHARACTERS.fullmatch(masked) is None or not masked.strip():
        return False
    if (
        "[" not in masked
        and "]" not in masked
        and ":" not in masked
        and _SHAPE_WORD.search(masked) is None
    ):
        # Most bodies: no keyword of the rule, no ``[`` and no ``:``: the shape is the
        # parentheses' alone (no token of :func:`_shaped_tokens` holds one).
        depth = 0
        for paren in _PARENS.findall(masked):
            depth += 1 if paren == "(" else -1
            if depth < 0:
                return False
        return depth == 0
    return _shaped_tokens(masked)


def _shaped_tokens(masked: str) -> bool:
    """:func:`_plainly_shaped`'s screen token by token, on a text whose strings, quoted names
    and comments are masked and whose characters are all plain (ASCII letters: upper-casing
    keeps every token where it is). Only the tokens the shape depends on reach the loop."""
    open_: list[str] = []
    for tok in filter(None, _SHAPE_TOKEN.findall(masked.upper())):
        if tok in _OPENERS:
            open_.append(tok)
        elif tok in _CLOSERS:
            if not open_ or open_.pop() != _CLOSERS[tok]:
                return False
        elif tok == ":":
            if not open_ or open_[-1] == "CASE":
                return False
        elif tok == "DO" or not open_ or open_[-1] != "CASE":
            return False  # WHEN, THEN and ELSE only directly inside a CASE; DO nowhere
    return not open_


#: What opens a level of the shape, and what closes one (with what it must close).
_OPENERS: Final = frozenset({"(", "[", "CASE"})
_CLOSERS: Final = {")": "(", "]": "[", "END": "CASE"}


def _check_return_shape(b: Site, span: Span) -> None:
    """The grammar's opaque expression rule on a RETURN body sqlglot cannot read, or which has
    characters outside the plain ones (:func:`_plainly_shaped`): a body of the wrong shape (an
    unbalanced parenthesis, a stray character) is a syntax error placed in the script, as for
    any other part of the statement. A body of the right shape passes as it is.
    """
    text = b.text[span.start : span.end]
    # One automaton with the statement's rule, so that the body is lexed as it was inside it.
    parser = load_parser(NAME, ("start", "return_check"), positions=False)
    try:
        parse_with(parser, text, start="return_check")
    except SqlSyntaxError as e:
        better = readable(e, parser, text, None)
        local = better.position.offset if better.position else 0
        error = error_at(SqlSyntaxError, better.message, b.text, span.start + local, b.base)
        error.expected = better.expected
        raise error from None
    except RecursionError:
        raise too_deep(b.base) from None


def _value(chars: dict[str, Characteristic], key: str, default: Any = None) -> Any:
    c = chars.get(key)
    return default if c is None else c.value


def check_name(b: Site, qname: QName) -> tuple[str, ...]:
    """One part (an inline or session function) or three (catalog.schema.name), folded to
    lower case quoted or not, as Trino's QualifiedName folds every part of a function's name
    (``"My.Fn"`` and ``my.fn`` are one function there and here)."""
    if len(qname.parts) in NAME_PARTS:
        return tuple(p.lower() for p in qname.parts)
    raise b.unsupported(
        f"function name {qname.text} has {len(qname.parts)} parts: Trino names a stored "
        "function catalog.schema.name (three parts), an inline one by its name alone",
        qname.offset,
    )


#: How Trino's analyzer names each clause family in "Multiple ... clauses specified".
_TRINO_CLAUSE = {
    "comment": "comment",
    "language": "language",
    "deterministic": "deterministic",
    "on-null-input": "null-call",
    "security": "security",
    "properties": "properties",
}
