"""The Trino front end: ``CREATE FUNCTION`` / ``DROP FUNCTION`` DDL -> the dialect-free IR.

The grammar (``grammars/trino.lark``) recognises the statement; :class:`_Builder`, a lark
Transformer, turns the tree into IR values with Iceberg types and script positions. Trino types
are mapped to Iceberg types the way Trino's own Iceberg connector does (see
``docs/type-mapping-facts.md``); every mapping that loses information is reported as a
``lossy-type`` warning instead of being silently accepted. :func:`iceberg_to_trino_type` is the
reverse mapping, for emitting Trino DDL from metadata.

Besides Trino's own syntax, the statements the Iceberg UDF spec's appendix labels as Trino are
accepted (a parameter ``COMMENT``, ``COMMENT`` before ``RETURNS``, ``RETURNS TABLE (...)``),
each with a ``not-trino-syntax`` warning, since Trino itself rejects them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import UnexpectedInput, VisitError

from translator.bodies import parse_body
from translator.errors import (
    Diagnostic,
    Position,
    SqlSyntaxError,
    TranslatorError,
    UnsupportedError,
    UnsupportedNameError,
    position_at,
)
from translator.grammar import load_parser, parse_with, token_end, token_start
from translator.ir import Body, CreateFunction, DropFunction, Parameter, Statement
from translator.script import TRINO, Lexical, StatementText
from translator.types import (
    DecimalType,
    FixedType,
    GeographyType,
    GeometryType,
    IcebergType,
    ListType,
    MapType,
    PrimitiveType,
    StructField,
    StructType,
)

if TYPE_CHECKING:
    from translator.dialects import Dialect
    from translator.emit import Rendered, RoutineSpec

__all__ = [
    "DIALECT",
    "TrinoDialect",
    "iceberg_to_trino_type",
    "parse_statement",
    "render_create",
    "trino_type_to_iceberg",
]

#: The metadata dialect identifier and sqlglot's name for the dialect.
NAME: Final = "trino"


# ---------------------------------------------------------------------------------------------
# Entry points


def parse_statement(stmt: StatementText) -> Statement:
    """Parse one ``CREATE FUNCTION`` or ``DROP FUNCTION`` statement of a Trino script.

    Raises a :class:`~translator.errors.TranslatorError` subclass, positioned in the script,
    for anything it cannot turn into IR; never another exception.
    """
    builder = _Builder(stmt.text, stmt.position)
    result = _run(builder, stmt.text, stmt.position, "start")
    if not isinstance(result, CreateFunction | DropFunction):  # pragma: no cover - grammar
        raise SqlSyntaxError("not a CREATE FUNCTION or DROP FUNCTION statement", stmt.position)
    return result


def trino_type_to_iceberg(text: str) -> tuple[IcebergType, tuple[Diagnostic, ...]]:
    """The Iceberg type of a Trino type written as ``text``, and the warnings of the mapping."""
    builder = _Builder(text, None)
    spelled = _run(builder, text, None, "type_only")
    warnings: list[Diagnostic] = []
    result = _to_iceberg(spelled, builder, warnings)
    return result, tuple(warnings)


def _run(builder: _Builder, text: str, base: Position | None, start: str) -> Any:
    """Parse and transform, turning lark's wrapped exceptions back into our own errors."""
    parser = load_parser(NAME, start, positions=False)
    try:
        tree = parse_with(parser, text, base)
        return builder.transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, TranslatorError):
            raise e.orig_exc from None
        if isinstance(e.orig_exc, RecursionError):
            raise _too_deep(base) from None
        raise
    except SqlSyntaxError as e:
        raise _readable(e, parser, text, base) from None
    except RecursionError:
        raise _too_deep(base) from None


def _too_deep(base: Position | None) -> SqlSyntaxError:
    return SqlSyntaxError("the statement nests too deeply to be parsed", base)


def _readable(e: SqlSyntaxError, parser: Lark, text: str, base: Position | None) -> SqlSyntaxError:
    """The same error, saying exactly what could come next, keywords in upper case.

    lark's own list for an LALR parser is the union of lookaheads of merged states, which names
    tokens that cannot actually follow (a ``)`` after a return type). When the lark error is at
    hand (``parse_with`` raises from it), its interactive parser tells what really fits.

    One case gets its own message: a DECLARE after a block's first statement (Trino wants
    declarations first), which the parser can only read as a label named ``declare``.
    """
    offset = (e.position.offset - (base.offset if base else 0)) if e.position else 0
    if e.expected == (":",) and re.search(r"(?i)\bdeclare\s+$", text[:offset]):
        declare = text.lower().rfind("declare", 0, offset)
        message = "DECLARE must come before the other statements of its BEGIN block"
        return _error(SqlSyntaxError, message, text, declare, base)
    names = _acceptable(e.__context__)
    expected = (
        tuple(sorted({_display(parser, n) for n in names})) if names is not None else e.expected
    )
    return SqlSyntaxError(e.message, e.position, source_line=e.source_line, expected=expected)


def _acceptable(lark_error: BaseException | None) -> set[str] | None:
    """The terminals the parser would have taken where it failed, or None if unknown."""
    interactive = getattr(lark_error, "interactive_parser", None)
    if not isinstance(lark_error, UnexpectedInput) or interactive is None:
        return None
    try:
        return set(interactive.accepts())
    except Exception:  # a better message is optional: lark's own list stays
        return None


_DISPLAY: Final = {
    "$END": "end of statement",
    "NAME": "identifier",
    "QUOTED_IDENT": "quoted identifier",
    "STRING": "string literal",
    "NUMBER": "number",
    "OP": "operator",
    "DOLLAR_STRING": "$$ body",
    "BODY": "body",  # a RETURN body, as the Spark front end names it too
}


def _display(parser: Lark, name: str) -> str:
    """A terminal as a reader knows it: ``(``, ``RETURNS``, ``WITH TIME ZONE``, identifier."""
    if name in _DISPLAY:
        return _DISPLAY[name]
    try:
        pattern = parser.get_terminal(name).pattern
    except KeyError:
        return name
    if pattern.type == "str":
        return str(pattern.value)
    return name.replace("_", " ")  # a keyword, named after itself


class TrinoDialect:
    """The Trino dialect as :func:`translator.dialects.get_dialect` hands it out."""

    name: str = NAME
    title: str = "Trino"
    sqlglot_dialect: str = NAME
    lexical: Lexical = TRINO
    table_functions: bool = False
    return_takes_query: bool = False  # RETURN takes an expression: (SELECT ...) is one
    # Trino documents DETERMINISTIC as the default (its analyzer even rejects a non-deterministic
    # body that does not say NOT DETERMINISTIC).
    deterministic_default: bool = True
    # Unqualified functions live in the configured default function schema, not the session's.
    use_sets_function_namespace: bool = False
    # An inline or session function by its name alone, a stored one as catalog.schema.name.
    name_parts: frozenset[int] = frozenset({1, 3})

    def parse_statement(self, stmt: StatementText) -> Statement:
        return parse_statement(stmt)

    def render_create(self, spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
        return render_create(spec, or_replace=or_replace)


DIALECT: Dialect = TrinoDialect()


# ---------------------------------------------------------------------------------------------
# Intermediate values the Transformer builds, before they become IR. Not frozen: a frozen
# dataclass is three times as slow to make, and every type and name of a statement makes one.


@dataclass(slots=True)
class _Ident:
    """An identifier as Trino reads it: unquoted ones lower-cased, quoted ones unescaped."""

    value: str
    offset: int
    #: Where its token ends: a qualified name's text ends with its last part.
    end: int


@dataclass(slots=True)
class _QName:
    parts: tuple[str, ...]
    offset: int
    text: str


@dataclass(slots=True)
class _Spelled:
    """A Trino type as written: ``name`` is lower case (``varchar``, ``row``, ``interval``...).

    ``args`` holds whole-number parameters or nested types; ``fields`` a row's fields (name,
    type, offset); ``time_zone`` is True for ``WITH TIME ZONE``, False for ``WITHOUT``.
    """

    name: str
    offset: int
    text: str
    args: tuple[int | _Spelled, ...] = ()
    fields: tuple[tuple[str | None, _Spelled, int], ...] = ()
    time_zone: bool | None = None


@dataclass(slots=True)
class _TypeArgs:
    """A type's parenthesised parameters, and where the closing parenthesis ends."""

    values: tuple[int | _Spelled, ...]
    end: int


@dataclass(slots=True)
class _Param:
    name: _Ident | None
    type: _Spelled
    doc: str | None
    offset: int
    doc_offset: int | None


@dataclass(slots=True)
class _Returns:
    offset: int
    type: _Spelled | None = None
    #: For ``RETURNS TABLE``: the columns, and where ``TABLE`` is.
    columns: tuple[_Param, ...] | None = None
    table_offset: int = 0


@dataclass(slots=True)
class _Characteristic:
    """One routine characteristic. ``key`` names the IR field it sets."""

    key: str
    value: Any
    offset: int
    #: How it reads in an error message about duplicates.
    label: str


@dataclass(slots=True)
class _Span:
    """A slice of the statement text (an expression, a block)."""

    start: int
    end: int
    #: An expression's tokens, flat (parentheses included as tokens).
    tokens: tuple[Token, ...] = ()
    #: For a block: whether its last statement is a RETURN.
    ends_in_return: bool = False


@dataclass(slots=True)
class _BodyPart:
    kind: str  # "expression", "query", "compound" or "external"
    span: _Span
    offset: int


# ---------------------------------------------------------------------------------------------
# The Transformer


class _Builder(Transformer[Token, Any]):
    """Builds IR from a parse tree of one statement (or of a lone type, for ``type_only``).

    Offsets are relative to ``text``; :meth:`position` turns them into script positions using
    ``base``, where the statement starts in the script. Every offset comes from a token or from
    a value a child returned, so the parser need not track positions (lark's
    ``propagate_positions`` costs a third of the parse). Methods take only ``children``: lark
    calls them directly, without a ``v_args`` wrapper made per node.
    """

    def __init__(self, text: str, base: Position | None) -> None:
        super().__init__(visit_tokens=False)
        self.text = text
        self.base = base

    def position(self, offset: int) -> Position:
        return position_at(self.text, offset, base=self.base)

    def syntax_error(self, message: str, offset: int) -> SqlSyntaxError:
        return _error(SqlSyntaxError, message, self.text, offset, self.base)

    def unsupported(self, message: str, offset: int) -> UnsupportedError:
        return _error(UnsupportedError, message, self.text, offset, self.base)

    # -- names ----------------------------------------------------------------------------

    def ident(self, children: list[Token]) -> _Ident:
        tok = children[0]
        if tok.type == "QUOTED_IDENT":
            value = tok.value[1:-1].replace('""', '"')
            if not value:
                raise self.syntax_error("a quoted identifier must not be empty", token_start(tok))
            return _Ident(value, token_start(tok), token_end(tok))
        return _Ident(tok.value.lower(), token_start(tok), token_end(tok))

    def field_name(self, children: list[Any]) -> _Ident:
        child = children[0]
        if isinstance(child, Token):  # a type keyword used as a name: ROW, ARRAY, MAP
            return _Ident(child.value.lower(), token_start(child), token_end(child))
        assert isinstance(child, _Ident)
        return child

    def qualified_name(self, children: list[_Ident]) -> _QName:
        start, end = children[0].offset, children[-1].end
        return _QName(tuple(c.value for c in children), start, self.text[start:end])

    def string(self, children: list[Token]) -> str:
        return str(children[0].value)[1:-1].replace("''", "'")

    # -- types ----------------------------------------------------------------------------

    def _spelled(self, name: str, start: int, end: int, **kw: Any) -> _Spelled:
        return _Spelled(name, start, self.text[start:end], **kw)

    def generic_type(self, children: list[Any]) -> _Spelled:
        name_tok: Token = children[0]
        params: _TypeArgs | None = children[1]
        tz: Token | None = children[2]
        if name_tok.type == "QUOTED_IDENT":
            name = name_tok.value[1:-1].replace('""', '"').lower()
        else:
            name = name_tok.value.lower()
        args: tuple[int | _Spelled, ...] = ()
        end = token_end(name_tok)
        if params is not None:
            args, end = params.values, params.end
        zone = None
        if tz is not None:
            zone, end = tz.type == "WITH_TIME_ZONE", token_end(tz)
        return self._spelled(name, token_start(name_tok), end, args=args, time_zone=zone)

    def type_name(self, children: list[Token]) -> Token:
        return children[0]

    def time_zone(self, children: list[Token]) -> Token:
        return children[0]

    def type_params(self, children: list[Any]) -> _TypeArgs:
        args: list[int | _Spelled] = []
        for c in children[:-1]:  # the last is the closing RPAR
            if isinstance(c, Token):
                if not c.value.isdigit():
                    raise self.syntax_error(
                        f"a type parameter must be a whole number, not {c.value!r}", token_start(c)
                    )
                args.append(int(c.value))
            else:
                args.append(c)
        return _TypeArgs(tuple(args), token_end(children[-1]))

    def double_precision(self, children: list[Token]) -> _Spelled:
        tok = children[0]
        return self._spelled("double", token_start(tok), token_end(tok))

    def row_field(self, children: list[Any]) -> tuple[str | None, _Spelled, int]:
        name, spelled = children
        return (None if name is None else name.value, spelled, (name or spelled).offset)

    def row_type(self, children: list[Any]) -> _Spelled:
        return self._keyword_type("row", children, fields=tuple(children[1:-1]))

    def array_type(self, children: list[Any]) -> _Spelled:
        return self._keyword_type("array", children, args=(children[1],))

    def legacy_array_type(self, children: list[Any]) -> _Spelled:
        return self._keyword_type("array", children, args=(children[2],))

    def map_type(self, children: list[Any]) -> _Spelled:
        return self._keyword_type("map", children, args=(children[1], children[2]))

    def legacy_map_type(self, children: list[Any]) -> _Spelled:
        return self._keyword_type("map", children, args=(children[2], children[3]))

    def _keyword_type(self, name: str, children: list[Any], **kw: Any) -> _Spelled:
        """ROW, ARRAY or MAP: from the keyword to the closing RPAR or GT, both tokens."""
        return self._spelled(name, token_start(children[0]), token_end(children[-1]), **kw)

    def interval_type(self, children: list[Any]) -> _Spelled:
        keyword, first_end, to, last_end = children
        if to is not None and to.value.lower() != "to":
            raise self.syntax_error(f"expected TO, not {to.value!r}", token_start(to))
        return self._spelled(
            "interval", token_start(keyword), first_end if to is None else last_end
        )

    def interval_field(self, children: list[Any]) -> int:
        """``day`` or ``second(3)``: only where it ends is needed."""
        name: Token = children[0]
        rpar: Token | None = children[2]
        return token_end(name if rpar is None else rpar)

    def for_stmt(self, children: list[Any]) -> Tree[Any]:
        """``FOR i IN a TO b DO``: the range is one opaque expression that must say TO."""
        span = next(c for c in children if isinstance(c, _Span))
        words = _top_level(span.tokens)
        if not any(t.type == "NAME" and t.value.lower() == "to" for t in words[1:-1]):
            raise self.syntax_error(
                "a FOR loop needs a range: FOR <variable> IN <from> TO <to> DO", span.start
            )
        return Tree("for_stmt", children)

    def type_only(self, children: list[_Spelled]) -> _Spelled:
        return children[0]

    # -- parameters and returns -------------------------------------------------------------

    def parameter(self, children: list[Any]) -> _Param:
        name, spelled, comment, doc = children
        offset = name.offset if name is not None else spelled.offset
        return _Param(name, spelled, doc, offset, None if comment is None else token_start(comment))

    table_column = parameter

    def parameters(self, children: list[_Param]) -> list[_Param]:
        return list(children)

    def returns_type(self, children: list[Any]) -> _Returns:
        return _Returns(token_start(children[0]), type=children[1])

    def returns_table(self, children: list[Any]) -> _Returns:
        returns, table, *columns = children
        return _Returns(
            token_start(returns), columns=tuple(columns), table_offset=token_start(table)
        )

    # -- characteristics ----------------------------------------------------------------------

    def early_comment(self, children: list[Any]) -> _Characteristic:
        return _Characteristic("comment", children[1], token_start(children[0]), "COMMENT")

    def comment(self, children: list[Any]) -> _Characteristic:
        return _Characteristic("comment", children[1], token_start(children[0]), "COMMENT")

    def language(self, children: list[Any]) -> _Characteristic:
        return _Characteristic(
            "language", children[1].value.upper(), token_start(children[0]), "LANGUAGE"
        )

    def deterministic(self, children: list[Any]) -> _Characteristic:
        negated, word = children
        first = negated if negated is not None else word
        return _Characteristic(
            "deterministic", negated is None, token_start(first), "DETERMINISTIC"
        )

    def returns_null_on_null_input(self, children: list[Token]) -> _Characteristic:
        return _Characteristic(
            "on-null-input", "return-null", token_start(children[0]), "null-input"
        )

    def called_on_null_input(self, children: list[Token]) -> _Characteristic:
        return _Characteristic("on-null-input", "call", token_start(children[0]), "null-input")

    def security(self, children: list[Token]) -> _Characteristic:
        return _Characteristic(
            "security", children[1].value.upper(), token_start(children[0]), "SECURITY"
        )

    def properties(self, children: list[Any]) -> _Characteristic:
        props = tuple(children[1:])
        return _Characteristic("properties", props, token_start(children[0]), "WITH")

    def property(self, children: list[Any]) -> tuple[str, str, int]:
        key, _eq, value = children
        return (key.value, self.text[value.start : value.end], key.offset)

    # -- bodies -------------------------------------------------------------------------------

    def expr(self, children: list[Token]) -> _Span:
        """An opaque expression: its children are its tokens, flat (the grammar inlines the
        nesting), so it spans from the first to the last."""
        return _Span(token_start(children[0]), token_end(children[-1]), tuple(children))

    query_expr = expr

    def block(self, children: list[Any]) -> _Span:
        start, end = token_start(children[0]), token_end(children[-1])  # BEGIN ... END
        lists = [c for c in children if isinstance(c, Tree) and c.data == "statement_list"]
        last = lists[0].children[-1] if lists else None
        ends_in_return = isinstance(last, Tree) and last.data == "return_stmt"
        return _Span(start, end, ends_in_return=ends_in_return)

    def return_body(self, children: list[Token]) -> _BodyPart:
        keyword, body = children
        first = _FIRST_WORD.match(body.value)
        is_query = first is not None and first.group().upper() in _QUERY_WORDS
        span = _Span(token_start(body), token_end(body))
        return _BodyPart("query" if is_query else "expression", span, token_start(keyword))

    def compound_body(self, children: list[_Span]) -> _BodyPart:
        return _BodyPart("compound", children[0], children[0].start)

    def external_body(self, children: list[Token]) -> _BodyPart:
        tok = children[1]
        return _BodyPart(
            "external", _Span(token_start(tok), token_end(tok)), token_start(children[0])
        )

    # -- statements ---------------------------------------------------------------------------

    def start(self, children: list[Statement]) -> Statement:
        return children[0]

    def create_function(self, children: list[Any]) -> CreateFunction:
        return _FunctionAssembler(self, children).build()

    def drop_function(self, children: list[Any]) -> DropFunction:
        if_exists = children[2] is not None
        qname: _QName = children[4]
        params: list[_Param] = children[5]
        warnings: list[Diagnostic] = []
        name = _check_name(self, qname)
        types = tuple(_to_iceberg(p.type, self, warnings) for p in params)
        return DropFunction(
            name=name,
            parameter_types=types,
            dialect=NAME,
            if_exists=if_exists,
            position=self.base or self.position(0),
            warnings=tuple(warnings),
        )


_OPENERS: Final = frozenset({"LPAR", "LSQB", "CASE"})
_CLOSERS: Final = frozenset({"RPAR", "RSQB", "END"})


def _top_level(tokens: tuple[Token, ...]) -> list[Token]:
    """The tokens outside any (), [] or CASE ... END."""
    out: list[Token] = []
    depth = 0
    for tok in tokens:
        if tok.type in _CLOSERS:
            depth -= 1
        elif depth == 0:
            out.append(tok)
        if tok.type in _OPENERS:
            depth += 1
    return out


_QUERY_WORDS = frozenset({"SELECT", "WITH", "VALUES", "TABLE"})
#: A RETURN body's first word (a body that opens with "(" is an expression: no match).
_FIRST_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\b")


_E = TypeVar("_E", bound=TranslatorError)


def _error(cls: type[_E], message: str, text: str, offset: int, base: Position | None) -> _E:
    """An error at ``offset`` with the source line and caret, as syntax errors have them."""
    pos = position_at(text, offset, base=base)
    local = position_at(text, offset)
    lines = text.splitlines() or [""]
    line = lines[min(local.line, len(lines)) - 1]
    if base is not None and local.line == 1:
        line = " " * (base.column - 1) + line
    return cls(message, pos, source_line=line)


# ---------------------------------------------------------------------------------------------
# CREATE FUNCTION: from the statement's parts to the IR


class _FunctionAssembler:
    """Checks a parsed CREATE FUNCTION and builds its :class:`CreateFunction`.

    The checks run in order of how useful their message is: a non-SQL routine is refused for
    that reason first, before any complaint about its types.
    """

    def __init__(self, b: _Builder, children: list[Any]) -> None:
        self.b = b
        self.or_replace = children[1] is not None
        self.qname: _QName = children[4]
        self.params: list[_Param] = children[5]
        self.early: _Characteristic | None = children[6]
        self.returns: _Returns = children[7]
        self.characteristics: list[_Characteristic] = list(children[8:-1])
        self.body: _BodyPart = children[-1]
        self.warnings: list[Diagnostic] = []

    def build(self) -> CreateFunction:
        chars = self.characteristics_by_key()
        self.refuse_non_sql(chars)
        name = _check_name(self.b, self.qname)
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
            # Trino's default is DETERMINISTIC (its analyzer even rejects a non-deterministic
            # body that does not say NOT DETERMINISTIC), and the spec's appendix maps the Trino
            # add_one, which says nothing, to "deterministic": true. So silence means true here.
            deterministic=_value(chars, "deterministic", True),
            on_null_input=_value(chars, "on-null-input"),
            security=_value(chars, "security"),
            language=_value(chars, "language"),
            properties=tuple((k, v) for k, v, _ in props.value) if props else (),
            or_replace=self.or_replace,
            position=self.b.base or self.b.position(0),
            positions=positions,
            warnings=tuple(sorted(self.warnings, key=_offset_of)),
        )

    def characteristics_by_key(self) -> dict[str, _Characteristic]:
        """Each characteristic once: Trino rejects a repeated one ("Multiple ... clauses")."""
        out: dict[str, _Characteristic] = {}
        given = ([self.early] if self.early else []) + self.characteristics
        for c in given:
            if c.key in out:
                first = self.b.position(out[c.key].offset)
                raise self.b.syntax_error(
                    f"multiple {c.label} clauses: the first is at line {first.line}, "
                    f"column {first.column}",
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

    def refuse_non_sql(self, chars: dict[str, _Characteristic]) -> None:
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
            t = _to_iceberg(p.type, self.b, self.warnings)
            out.append(Parameter(p.name.value, t, p.doc, position=self.b.position(p.offset)))
        return tuple(out)

    def return_type(self) -> tuple[IcebergType, Literal["udf", "udtf"]]:
        r = self.returns
        if r.type is not None:
            return _to_iceberg(r.type, self.b, self.warnings), "udf"
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
            t = _to_iceberg(col.type, self.b, self.warnings)
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
        if part.kind == "compound" and not part.span.ends_in_return:
            self.warnings.append(
                Diagnostic(
                    "trino-rejects",
                    "the body does not end in a RETURN statement: Trino rejects it "
                    '("Function must end in a RETURN statement")',
                    self.b.position(part.span.end - len("END")),
                )
            )
        ast, parse_error = parse_body(text, part.kind, NAME)
        if part.kind != "compound" and (ast is None or not _plainly_shaped(text)):
            _check_return_shape(self.b, part.span)
        return Body(
            text=text,
            kind=part.kind,  # type: ignore[arg-type]  # expression, query or compound here
            position=self.b.position(part.span.start),
            ast=ast,
            parse_error=parse_error,
        )

    def warn_not_trino(self, message: str, offset: int) -> None:
        self.warnings.append(Diagnostic("not-trino-syntax", message, self.b.position(offset)))


#: Strings, quoted names and comments: what may hold any character (masked before the screen).
_QUOTED_OR_COMMENT: Final = re.compile(
    r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*[\s\S]*?\*/"
)
#: The characters of the grammar's expression tokens outside strings, quoted names and comments
#: (NAME, NUMBER, OP, ".", ",", ":", "(", ")", "[", "]").
_PLAIN_CHARACTERS: Final = re.compile(r"[A-Za-z0-9_\s.,:()\[\]|<>!=\-+*/%?&^~@]*")
#: What the shape depends on: brackets, ":" and words; a number (which may end in letters) is
#: one token, read as the grammar's NUMBER reads it, so that no word is read inside it.
_SHAPE_TOKEN: Final = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\w*|[A-Za-z_]\w*|[()\[\]:]")
#: Words the expression rule reads as keywords (CASE ... WHEN ... THEN ... ELSE ... END) or
#: that may end an expression elsewhere in the grammar (DO).
_SHAPE_WORDS: Final = frozenset({"CASE", "WHEN", "THEN", "ELSE", "END", "DO"})


def _plainly_shaped(text: str) -> bool:
    """Whether the grammar's opaque expression rule (``return_check``) surely takes ``text``.

    sqlglot's Trino parser reads more than Trino does (``x::int``, ``{1}``, ``x END``), so its
    parse alone does not prove the body is Trino's, and walking every body token through lark
    would cost as much as the rest of the header. This screen follows the rule's shape (``(``,
    ``[`` and ``CASE`` nest; ``WHEN``/``THEN``/``ELSE`` only directly inside a CASE, ``:`` only
    inside brackets) and says no at anything else; then :func:`_check_return_shape` asks the
    grammar itself. ``tests/test_trino_frontend.py`` checks it against the grammar.
    """
    masked = _QUOTED_OR_COMMENT.sub(" ", text)
    if _PLAIN_CHARACTERS.fullmatch(masked) is None or not masked.strip():
        return False
    open_: list[str] = []
    for m in _SHAPE_TOKEN.finditer(masked):
        tok = m.group()
        if tok in ("(", "["):
            open_.append(tok)
        elif tok in (")", "]"):
            if not open_ or open_.pop() != ("(" if tok == ")" else "["):
                return False
        elif tok == ":":
            if not open_ or open_[-1] == "CASE":
                return False
        elif tok[0].isalpha() or tok[0] == "_":
            word = tok.upper() if len(tok) <= 4 else ""
            if word in _SHAPE_WORDS and not _shape_word(word, open_):
                return False
    return not open_


def _shape_word(word: str, open_: list[str]) -> bool:
    """Apply a keyword to the open brackets; False where the rule would not take it here."""
    if word == "CASE":
        open_.append(word)
        return True
    if word == "DO" or not open_ or open_[-1] != "CASE":
        return False
    if word == "END":
        open_.pop()
    return True


def _check_return_shape(b: _Builder, span: _Span) -> None:
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
        readable = _readable(e, parser, text, None)
        local = readable.position.offset if readable.position else 0
        error = _error(SqlSyntaxError, readable.message, b.text, span.start + local, b.base)
        error.expected = readable.expected
        raise error from None
    except RecursionError:
        raise _too_deep(b.base) from None


def _offset_of(d: Diagnostic) -> int:
    return d.position.offset if d.position else 0


def _value(chars: dict[str, _Characteristic], key: str, default: Any = None) -> Any:
    c = chars.get(key)
    return default if c is None else c.value


def _check_name(b: _Builder, qname: _QName) -> tuple[str, ...]:
    """One part (an inline or session function) or three (catalog.schema.name)."""
    if len(qname.parts) in (1, 3):
        return qname.parts
    raise b.unsupported(
        f"function name {qname.text} has {len(qname.parts)} parts: Trino names a stored "
        "function catalog.schema.name (three parts), an inline one by its name alone",
        qname.offset,
    )


# ---------------------------------------------------------------------------------------------
# Trino -> Iceberg types


#: Trino types with no Iceberg counterpart (facts: json, ipaddress, interval, time with time
#: zone, number; the rest are Trino's sketch and geometry-index types).
_NOT_IN_ICEBERG: Final = frozenset(
    {
        "json", "ipaddress", "number", "hyperloglog", "p4hyperloglog", "khyperloglog", "qdigest",
        "tdigest", "setdigest", "color", "bingtile", "kdbtree", "jsonpath", "jsonpath2016",
        "regressor", "classifier", "likepattern", "function", "codepoints", "joniregexp",
        "re2jregexp", "interval",
    }
)  # fmt: skip

_SIMPLE: Final = {
    "boolean": "boolean",
    "integer": "int",
    "int": "int",
    "bigint": "long",
    "real": "float",
    "double": "double",
    "varbinary": "binary",
    "date": "date",
    "uuid": "uuid",
    "variant": "variant",
}


def _to_iceberg(t: _Spelled, b: _Builder, warnings: list[Diagnostic]) -> IcebergType:
    """Map a Trino type to Iceberg as Trino's Iceberg connector does; report what is lost."""
    return _TypeMapper(b, warnings).map(t)


@dataclass(slots=True)
class _TypeMapper:
    b: _Builder
    warnings: list[Diagnostic]

    def lossy(self, t: _Spelled, message: str) -> None:
        self.warnings.append(
            Diagnostic("lossy-type", message, self.b.position(t.offset), lossy=True)
        )

    def unsupported(self, t: _Spelled, message: str, offset: int | None = None) -> UnsupportedError:
        return self.b.unsupported(message, t.offset if offset is None else offset)

    def map(self, t: _Spelled) -> IcebergType:
        if t.time_zone is not None and t.name not in ("time", "timestamp"):
            raise self.unsupported(t, f"{t.text}: only time and timestamp take a time zone")
        if t.name in _SIMPLE:
            self.no_args(t)
            return PrimitiveType(_SIMPLE[t.name])
        handler = _HANDLERS.get(t.name)
        if handler is not None:
            return handler(self, t)
        if t.name in _NOT_IN_ICEBERG:
            raise self.unsupported(t, f"Trino type {t.text} has no Iceberg equivalent")
        raise self.unsupported(t, f"unknown Trino type {t.text}")

    def no_args(self, t: _Spelled) -> None:
        if t.args:
            raise self.unsupported(t, f"Trino type {t.name} takes no parameters: {t.text}")

    def int_args(self, t: _Spelled, most: int) -> tuple[int, ...]:
        if len(t.args) > most or not all(isinstance(a, int) for a in t.args):
            what = "no parameters" if most == 0 else f"at most {most} whole-number parameter(s)"
            raise self.unsupported(t, f"Trino type {t.name} takes {what}: {t.text}")
        return tuple(a for a in t.args if isinstance(a, int))

    def type_args(self, t: _Spelled, count: int) -> tuple[_Spelled, ...]:
        args = tuple(a for a in t.args if isinstance(a, _Spelled))
        if len(args) != count or len(t.args) != count:
            raise self.unsupported(t, f"{t.name} takes {count} type parameter(s): {t.text}")
        return args

    # -- one method per Trino type family ------------------------------------------------------

    def float_(self, t: _Spelled) -> IcebergType:
        # Not a Trino type (Trino's 32-bit float is real), but the spec appendix's Trino example
        # writes FLOAT and its metadata says "float": accepted as Iceberg float, with a warning.
        self.no_args(t)
        self.warnings.append(
            Diagnostic(
                "not-trino-syntax",
                f"{t.text} is not a Trino type (Trino calls it real); read as Iceberg float, as "
                "the Iceberg spec appendix does",
                self.b.position(t.offset),
            )
        )
        return PrimitiveType("float")

    def narrow_int(self, t: _Spelled) -> IcebergType:
        self.no_args(t)
        self.lossy(t, f"{t.name} widens to Iceberg int; written back to Trino it is integer")
        return PrimitiveType("int")

    def decimal(self, t: _Spelled) -> IcebergType:
        args = self.int_args(t, 2)
        precision = args[0] if args else 38  # bare DECIMAL is decimal(38,0) in Trino
        scale = args[1] if len(args) > 1 else 0
        if not 1 <= precision <= 38 or not 0 <= scale <= precision:
            raise self.unsupported(
                t, f"{t.text}: decimal precision must be 1..38 and scale 0..precision"
            )
        return DecimalType(precision, scale)

    def varchar(self, t: _Spelled) -> IcebergType:
        args = self.int_args(t, 1)
        if args and args[0] < 1:
            raise self.unsupported(t, f"{t.text}: the length must be at least 1")
        if args:
            self.lossy(t, f"{t.text} becomes Iceberg string: the length {args[0]} is dropped")
        return PrimitiveType("string")

    def char(self, t: _Spelled) -> IcebergType:
        args = self.int_args(t, 1)
        length = args[0] if args else 1  # bare CHAR is char(1)
        if length < 1:
            raise self.unsupported(t, f"{t.text}: the length must be at least 1")
        self.lossy(
            t,
            f"{t.text} becomes Iceberg string (Trino coerces char to varchar): the length "
            f"{length} and the blank padding are dropped",
        )
        return PrimitiveType("string")

    def time(self, t: _Spelled) -> IcebergType:
        if t.time_zone:
            raise self.unsupported(t, f"Trino type {t.text} has no Iceberg equivalent")
        args = self.int_args(t, 1)
        precision = args[0] if args else 3  # bare TIME is time(3) in Trino
        self.check_precision(t, precision)
        if precision != 6:
            self.lossy(
                t,
                f"{_with_precision(t, precision)} becomes Iceberg time, which is time(6): "
                "the precision changes",
            )
        return PrimitiveType("time")

    def timestamp(self, t: _Spelled) -> IcebergType:
        args = self.int_args(t, 1)
        precision = args[0] if args else 3  # bare TIMESTAMP is timestamp(3) in Trino
        self.check_precision(t, precision)
        nanos = precision > 6  # timestamp_ns needs Iceberg format v3
        name = ("timestamptz" if t.time_zone else "timestamp") + ("_ns" if nanos else "")
        if precision not in (6, 9):
            back = 9 if nanos else 6
            self.lossy(
                t,
                f"{_with_precision(t, precision)} becomes Iceberg {name}, which is "
                f"precision {back}: the precision changes",
            )
        return PrimitiveType(name)

    def check_precision(self, t: _Spelled, precision: int) -> None:
        if not 0 <= precision <= 12:
            raise self.unsupported(t, f"{t.text}: the precision must be 0..12")

    def array(self, t: _Spelled) -> IcebergType:
        (element,) = self.type_args(t, 1)
        return ListType(self.map(element))

    def map_(self, t: _Spelled) -> IcebergType:
        key, value = self.type_args(t, 2)
        return MapType(self.map(key), self.map(value))

    def row(self, t: _Spelled) -> IcebergType:
        fields: list[StructField] = []
        seen: set[str] = set()
        for i, (name, ftype, offset) in enumerate(t.fields, 1):
            if name is None:
                raise self.unsupported(
                    t,
                    f"field {i} of {t.text} has no name: Iceberg struct fields must be named",
                    offset,
                )
            if name in seen:
                raise self.unsupported(
                    t,
                    f"{t.text} has duplicate field name {name!r}: Iceberg struct field names "
                    "must be unique",
                    offset,
                )
            seen.add(name)
            fields.append(StructField(name, self.map(ftype)))
        return StructType(fields)

    def geometry(self, t: _Spelled) -> IcebergType:
        # The facts list Geometry only for Iceberg -> Trino (from geometry with the default
        # CRS); its inverse is taken here, so a Trino Geometry reads as Iceberg geometry.
        self.no_args(t)
        return GeometryType()

    def spherical_geography(self, t: _Spelled) -> IcebergType:
        # Likewise the inverse of geography(OGC:CRS84, spherical) -> SphericalGeography; the
        # default CRS and edge algorithm of Iceberg's geography are those.
        self.no_args(t)
        return GeographyType()

    def unknown(self, t: _Spelled) -> IcebergType:
        # Trino's type of NULL. Iceberg (format v3) has the same notion; but Trino's Iceberg
        # connector refuses it, so the signature cannot be written back as Trino DDL.
        self.no_args(t)
        self.warnings.append(
            Diagnostic(
                "one-way-type",
                "Trino unknown (the type of NULL) becomes Iceberg unknown, which has no Trino "
                "type to be written back as",
                self.b.position(t.offset),
            )
        )
        return PrimitiveType("unknown")


def _with_precision(t: _Spelled, precision: int) -> str:
    """``timestamp (precision 3)`` for a bare type, the text as written otherwise."""
    return t.text if t.args else f"{t.text} (precision {precision})"


_HANDLERS: Final[dict[str, Callable[[_TypeMapper, _Spelled], IcebergType]]] = {
    "float": _TypeMapper.float_,
    "tinyint": _TypeMapper.narrow_int,
    "smallint": _TypeMapper.narrow_int,
    "decimal": _TypeMapper.decimal,
    "varchar": _TypeMapper.varchar,
    "char": _TypeMapper.char,
    "time": _TypeMapper.time,
    "timestamp": _TypeMapper.timestamp,
    "array": _TypeMapper.array,
    "map": _TypeMapper.map_,
    "row": _TypeMapper.row,
    "geometry": _TypeMapper.geometry,
    "sphericalgeography": _TypeMapper.spherical_geography,
    "unknown": _TypeMapper.unknown,
}


# ---------------------------------------------------------------------------------------------
# Iceberg -> Trino types


_PRIMITIVE_TO_TRINO: Final = {
    "boolean": "boolean",
    "int": "integer",
    "long": "bigint",
    "float": "real",
    "double": "double",
    "date": "date",
    "time": "time(6)",
    "timestamp": "timestamp(6)",
    "timestamptz": "timestamp(6) with time zone",
    "timestamp_ns": "timestamp(9)",
    "timestamptz_ns": "timestamp(9) with time zone",
    "string": "varchar",
    "uuid": "uuid",
    "binary": "varbinary",
    "variant": "variant",
}

#: Trino's reserved words: a row field named like one must be quoted.
_RESERVED: Final = frozenset(
    {
        "alter", "and", "as", "between", "by", "case", "cast", "constraint", "create", "cross",
        "cube", "current_catalog", "current_date", "current_path", "current_role", "current_schema",
        "current_time", "current_timestamp", "current_user", "deallocate", "delete", "describe",
        "distinct", "drop", "else", "end", "escape", "except", "exists", "extract", "false", "for",
        "from", "full", "group", "grouping", "having", "in", "inner", "insert", "intersect", "into",
        "is", "join", "json_array", "json_exists", "json_object", "json_query", "json_table",
        "json_value", "left", "like", "listagg", "localtime", "localtimestamp", "natural",
        "normalize", "not", "null", "on", "or", "order", "outer", "prepare", "recursive", "right",
        "rollup", "select", "skip", "table", "then", "trim", "true", "uescape", "union", "unnest",
        "using", "values", "when", "where", "with",
    }
)  # fmt: skip

_PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_GEOMETRY_CRS: Final = frozenset({"OGC:CRS84", "CRS84"})
_GEOGRAPHY_CRS: Final = frozenset({"OGC:CRS84", "EPSG:4326"})


def iceberg_to_trino_type(t: IcebergType) -> str:
    """The Trino spelling of an Iceberg type, as Trino's Iceberg connector reads it.

    ``fixed[L]`` becomes ``varbinary`` (the length is lost); ``unknown``, and geo types whose
    CRS or edge algorithm Trino cannot represent, raise :class:`UnsupportedError`.
    """
    if isinstance(t, PrimitiveType):
        if t.name == "unknown":
            raise UnsupportedError(
                "Iceberg type unknown has no Trino equivalent (Trino's Iceberg connector "
                "rejects it)"
            )
        return _PRIMITIVE_TO_TRINO[t.name]
    if isinstance(t, DecimalType):
        return f"decimal({t.precision},{t.scale})"
    if isinstance(t, FixedType):
        return "varbinary"
    if isinstance(t, ListType):
        return f"array({iceberg_to_trino_type(t.element)})"
    if isinstance(t, MapType):
        return f"map({iceberg_to_trino_type(t.key)}, {iceberg_to_trino_type(t.value)})"
    if isinstance(t, StructType):
        if not t.fields:
            raise UnsupportedError("Iceberg struct<> has no Trino type: a Trino row needs a field")
        fields = ", ".join(
            f"{_trino_name(f.name)} {iceberg_to_trino_type(f.type)}" for f in t.fields
        )
        return f"row({fields})"
    if isinstance(t, GeometryType):
        return _trino_geometry(t)
    if isinstance(t, GeographyType):
        return _trino_geography(t)
    raise UnsupportedError(f"Iceberg type {t} has no Trino equivalent")  # pragma: no cover


def _trino_name(name: str) -> str:
    """A name as Trino reads it back: quoted unless plain lower case and not reserved.

    ``interval`` is quoted too: before a type it would read as an interval type.
    """
    if _PLAIN_NAME.fullmatch(name) and name not in _RESERVED and name != "interval":
        return name
    return '"' + name.replace('"', '""') + '"'


def _trino_geometry(t: GeometryType) -> str:
    crs = t.crs
    if crs is None or crs.upper() in _GEOMETRY_CRS or re.fullmatch(r"(?i)EPSG:\d+", crs):
        return "Geometry"
    raise UnsupportedError(f"Iceberg type {t}: Trino's Geometry has no CRS {crs!r}")


def _trino_geography(t: GeographyType) -> str:
    crs_ok = t.crs is None or t.crs.upper() in _GEOGRAPHY_CRS
    algorithm_ok = t.algorithm is None or t.algorithm.lower() == "spherical"
    if crs_ok and algorithm_ok:
        return "SphericalGeography"
    raise UnsupportedError(
        f"Iceberg type {t}: Trino's SphericalGeography is OGC:CRS84 (or EPSG:4326) with "
        "spherical edges"
    )


# ---------------------------------------------------------------------------------------------
# Emission: a routine spec -> Trino CREATE FUNCTION


def render_create(spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
    """Trino's ``CREATE FUNCTION`` for ``spec``; what Trino cannot say is reported as lossy.

    Refused (:class:`UnsupportedError`): a table function (Trino has none), a two-part name, a
    type Trino has no equivalent for. A scalar function whose body is a query returns it as a
    scalar subquery, ``RETURN (SELECT ...)``. Parameter docs are left out with a note: the
    metadata keeps them, and Trino has nowhere to put them.
    """
    from translator.emit import Rendered

    if len(spec.name) not in DIALECT.name_parts:
        raise UnsupportedNameError(
            f"{'.'.join(spec.name)}: Trino names a stored function catalog.schema.name (three "
            "parts), an inline one by its name alone"
        )
    if spec.kind == "udtf":
        raise UnsupportedError(
            f"{spec.label} is a table function: Trino has no SQL table functions"
        )
    lossy: list[str] = []
    notes: list[str] = []
    params = []
    for name, ptype, doc in spec.parameters:
        params.append(f"{_trino_name(name)} {_emit_type(ptype, f'parameter {name}', lossy)}")
        if doc is not None:
            notes.append(f"parameter {name}'s doc is left out: Trino has no parameter comments")
    lines = [
        f"CREATE {'OR REPLACE ' if or_replace else ''}FUNCTION "
        f"{'.'.join(_trino_name(p) for p in spec.name)}({', '.join(params)})",
        f"  RETURNS {_emit_type(spec.return_type, 'the return type', lossy)}",
    ]
    if spec.doc is not None:
        lines.append("  COMMENT '" + spec.doc.replace("'", "''") + "'")
    if spec.deterministic:
        lines.append("  DETERMINISTIC")
    else:
        lines.append("  NOT DETERMINISTIC")
        notes.append(
            "Trino rejects NOT DETERMINISTIC on a body it finds deterministic (and DETERMINISTIC "
            "on one it does not)"
        )
    if spec.on_null_input == "return-null":
        lines.append("  RETURNS NULL ON NULL INPUT")
    if spec.body_kind == "compound":
        body = spec.body
    elif spec.body_kind == "query":
        body = f"RETURN ({spec.body})"
    else:
        body = f"RETURN {spec.body}"
    lines.append("  " + body)
    return Rendered("\n".join(lines), tuple(lossy), tuple(notes))


def _emit_type(t: IcebergType, where: str, lossy: list[str]) -> str:
    """The Trino type of ``t``; a ``fixed[L]`` loses its length, a geometry CRS is not kept."""
    if _contains(t, lambda x: isinstance(x, FixedType)):
        lossy.append(f"{where}: Iceberg {t} becomes Trino varbinary, which has no fixed length")
    if _contains(t, lambda x: isinstance(x, GeometryType | GeographyType) and x.crs is not None):
        lossy.append(f"{where}: Trino's geospatial types carry no CRS, so {t}'s is not kept")
    return iceberg_to_trino_type(t)


def _contains(t: IcebergType, test: Callable[[IcebergType], bool]) -> bool:
    if test(t):
        return True
    if isinstance(t, ListType):
        return _contains(t.element, test)
    if isinstance(t, MapType):
        return _contains(t.key, test) or _contains(t.value, test)
    if isinstance(t, StructType):
        return any(_contains(f.type, test) for f in t.fields)
    return False
