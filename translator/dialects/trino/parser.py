"""Trino ``CREATE FUNCTION`` / ``DROP FUNCTION`` DDL -> the dialect-free IR: the Transformer.

The grammar (``grammars/trino.lark``) recognises the statement; :class:`Builder`, a lark
Transformer, turns the tree into intermediate values (:mod:`.source`) with script positions;
:mod:`.assemble` checks a CREATE FUNCTION as a whole and makes its IR, and :mod:`.types` maps
its types to Iceberg.

Besides Trino's own syntax, the statements the Iceberg UDF spec's appendix labels as Trino are
accepted (a parameter ``COMMENT``, ``COMMENT`` before ``RETURNS``, ``RETURNS TABLE (...)``),
each with a ``not-trino-syntax`` warning, since Trino itself rejects them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from lark import Token, Tree

from translator.dialects.base import first_word
from translator.dialects.grammar import (
    inline_parser,
    load_parser,
    parse_with,
    run_inline_settled,
    shallow,
    token_end,
    token_start,
    transform,
)
from translator.dialects.trino.assemble import FunctionAssembler, Site, check_name
from translator.dialects.trino.lexical import NAME, QUERY_WORDS
from translator.dialects.trino.routines import check_routine, check_statement
from translator.dialects.trino.routines import syntax as routine_syntax
from translator.dialects.trino.source import (
    BodyPart,
    Characteristic,
    Ident,
    Param,
    QName,
    Returns,
    Span,
    Spelled,
    TypeArgs,
    readable,
    too_deep,
)
from translator.dialects.trino.types import to_iceberg
from translator.errors import Diagnostic, Position, SqlSyntaxError
from translator.ir import CreateFunction, DropFunction, Statement
from translator.types import IcebergType

if TYPE_CHECKING:
    from translator.dialects.base import Dialect
    from translator.script import StatementText

__all__ = ["Builder", "parse_statement", "trino_type_to_iceberg"]


def parse_statement(stmt: StatementText, dialect: Dialect) -> Statement:
    """Parse one ``CREATE FUNCTION`` or ``DROP FUNCTION`` statement of a Trino script.

    Raises a :class:`~translator.errors.TranslatorError` subclass, positioned in the script,
    for anything it cannot turn into IR; never another exception.
    """
    if shallow(stmt.text) and _BEGIN.search(stmt.text) is None:
        inline = _inline(stmt, dialect)
        if inline is not None:
            return inline
    builder = Builder(stmt.text, stmt.position, dialect)
    tree = _parse(stmt.text, stmt.position, "start")
    result = transform(builder, tree, lambda: too_deep(stmt.position))
    if not isinstance(result, CreateFunction | DropFunction):  # None: take the tree path
        raise SqlSyntaxError("not a CREATE FUNCTION or DROP FUNCTION statement", stmt.position)
    statement: CreateFunction | DropFunction = result
    if isinstance(statement, CreateFunction) and not any(
        w.code == "not-trino-syntax" for w in statement.warnings
    ):
        # What Trino's analyzer rejects after parsing (the spec appendix's statements, which
        # Trino does not parse at all, are accepted with their warning instead).
        body_tree = statement.body.ast if statement.body.kind == "expression" else None
        check_statement(stmt.text, tree, stmt.position, body_tree)
    return statement


#: A compound body may be there: such a statement takes the tree path, whose tree the routine
#: checks read (a word in a string or a name only costs that statement the tree path). The word
#: ``\bbegin\b``, its start checked once its first letter is read: the regex engine then skips
#: to the places where that letter is (tests/dialects/test_word_screens.py).
_BEGIN: Final = re.compile(r"b(?<!\w.)egin\b", re.IGNORECASE)


def _inline(stmt: StatementText, dialect: Dialect) -> Statement | None:
    """The statement built while it is parsed and checked by the routine rules from the
    Builder's values; None where only the tree path gives the error it gives
    (:func:`~translator.dialects.grammar.run_inline_settled`)."""
    builder = Builder(stmt.text, stmt.position, dialect)
    result: Any = run_inline_settled(
        inline_parser(NAME, "start", Builder),
        builder,
        stmt.text,
        lambda: _parse(stmt.text, stmt.position, "start"),
    )
    if not isinstance(result, CreateFunction | DropFunction):  # None: take the tree path
        return None
    statement: CreateFunction | DropFunction = result
    if isinstance(statement, CreateFunction) and not any(
        w.code == "not-trino-syntax" for w in statement.warnings
    ):
        assert builder.assembler is not None and builder.function_at is not None
        body_tree = statement.body.ast if statement.body.kind == "expression" else None
        routine = _routine(builder, builder.assembler, builder.function_at)
        check_routine(stmt.text, routine, stmt.position, body_tree)
    return statement


#: The routine rules' names for the Builder's characteristic keys.
_ROUTINE_KINDS: Final = {
    "language": "language",
    "deterministic": "deterministic",
    "on-null-input": "null-call",
    "security": "security",
    "comment": "comment",
    "properties": "properties",
}


def _routine(b: Builder, a: FunctionAssembler, function_at: int) -> routine_syntax.Routine:
    """What :func:`~translator.dialects.trino.routines.syntax.read_routine` reads from the tree
    of a statement with a RETURN body, made from the values the Builder made of it (checked
    against the tree reader in ``tests/dialects/test_inline_parse.py``)."""
    chars = []
    for c in ([a.early] if a.early else []) + a.characteristics:
        value: Any = None
        if c.key == "deterministic":
            value = c.value
        elif c.key == "language":
            value = b.language_text
        elif c.key == "on-null-input":
            value = c.value == "call"
        elif c.key == "security":
            value = c.value
        elif c.key == "properties":
            value = c.value[0][2]
        chars.append(routine_syntax.Characteristic(_ROUTINE_KINDS[c.key], value, c.offset))
    params = []
    for p in a.params:
        assert p.name is not None  # the assembler refuses a nameless parameter
        params.append((routine_syntax.Name(p.name.value, p.name.offset), p.type.text))
    body = a.body.span
    returns = a.returns.type
    return routine_syntax.Routine(
        name=a.qname.parts,
        parameters=tuple(params),
        return_type=returns.text if returns is not None else "",
        characteristics=tuple(chars),
        body=routine_syntax.Return(
            routine_syntax.Expr(b.text[body.start : body.end], body.start), a.body.offset
        ),
        function_offset=function_at,
        text=b.text,
    )


def trino_type_to_iceberg(text: str) -> tuple[IcebergType, tuple[Diagnostic, ...]]:
    """The Iceberg type of a Trino type written as ``text``, and the warnings of the mapping."""
    builder = Builder(text, None, None)
    spelled = _run(builder, text, None, "type_only")
    warnings: list[Diagnostic] = []
    result = to_iceberg(spelled, builder, warnings)
    return result, tuple(warnings)


def _run(builder: Builder, text: str, base: Position | None, start: str) -> Any:
    """Parse and transform, turning lark's exceptions into our own positioned errors."""
    return transform(builder, _parse(text, base, start), lambda: too_deep(base))


def _parse(text: str, base: Position | None, start: str) -> Tree[Token]:
    parser = load_parser(NAME, start, positions=False)
    try:
        return parse_with(parser, text, base)
    except SqlSyntaxError as e:
        raise readable(e, parser, text, base) from None
    except RecursionError:
        raise too_deep(base) from None


class Builder(Site):
    """Builds IR from a parse tree of one statement (or of a lone type, for ``type_only``).

    Offsets are relative to ``text``; :class:`Source` turns them into script positions and
    placed errors. Every offset comes from a token or from
    a value a child returned, so the parser need not track positions (lark's
    ``propagate_positions`` costs a third of the parse). Methods take only ``children``: lark
    calls them directly, without a ``v_args`` wrapper made per node.
    """

    def __init__(self, text: str, base: Position | None, dialect: Dialect | None) -> None:
        self.text = text
        self.base = base
        #: The dialect whose policies apply (None when only a type is read).
        self.dialect = dialect
        #: What the routine rules read besides the IR (see :func:`_routine`): the assembler of
        #: a CREATE FUNCTION, where its FUNCTION keyword is, and its LANGUAGE as written.
        self.assembler: FunctionAssembler | None = None
        self.function_at: int | None = None
        self.language_text = ""
        #: Set when the statement's own rule is reduced, which lark's LALR tables do only at
        #: the end of the input: an error raised from then on has no syntax error after it.
        self.complete = False

    # -- names ----------------------------------------------------------------------------

    def ident(self, children: list[Token]) -> Ident:
        tok = children[0]
        if tok.type == "QUOTED_IDENT":
            value = tok.value[1:-1].replace('""', '"')
            if not value:
                raise self.syntax_error("a quoted identifier must not be empty", token_start(tok))
            return Ident(value, token_start(tok), token_end(tok))
        return Ident(tok.value.lower(), token_start(tok), token_end(tok))

    def field_name(self, children: list[Any]) -> Ident:
        child = children[0]
        if isinstance(child, Ident):
            return child
        # a type keyword used as a name: ROW, ARRAY, MAP (a token, lark's or lark-cython's)
        return Ident(child.value.lower(), token_start(child), token_end(child))

    def qualified_name(self, children: list[Ident]) -> QName:
        start, end = children[0].offset, children[-1].end
        return QName(tuple(c.value for c in children), start, self.text[start:end])

    def string(self, children: list[Token]) -> str:
        return str(children[0].value)[1:-1].replace("''", "'")

    # -- types ----------------------------------------------------------------------------

    def _spelled(
        self,
        name: str,
        start: int,
        end: int,
        args: tuple[int | Spelled, ...] = (),
        fields: tuple[tuple[str | None, Spelled, int], ...] = (),
        time_zone: bool | None = None,
    ) -> Spelled:
        """The type ``name`` written from ``start`` to ``end`` (positional: a Builder makes one
        for every type it reads)."""
        return Spelled(name, start, self.text[start:end], args, fields, time_zone)

    def generic_type(self, children: list[Any]) -> Spelled:
        name_tok: Token = children[0]
        params: TypeArgs | None = children[1]
        tz: Token | None = children[2]
        if name_tok.type == "QUOTED_IDENT":
            name = name_tok.value[1:-1].replace('""', '"').lower()
        else:
            name = name_tok.value.lower()
        args: tuple[int | Spelled, ...] = ()
        end = token_end(name_tok)
        if params is not None:
            args, end = params.values, params.end
        zone = None
        if tz is not None:
            zone, end = tz.type == "WITH_TIME_ZONE", token_end(tz)
        return self._spelled(name, token_start(name_tok), end, args, (), zone)

    def type_name(self, children: list[Token]) -> Token:
        return children[0]

    def time_zone(self, children: list[Token]) -> Token:
        return children[0]

    def type_params(self, children: list[Any]) -> TypeArgs:
        args: list[int | Spelled] = []
        for c in children[:-1]:  # the last is the closing RPAR
            if not isinstance(c, Spelled):  # a NUMBER token
                if not c.value.isdigit():
                    raise self.syntax_error(
                        f"a type parameter must be a whole number, not {c.value!r}", token_start(c)
                    )
                args.append(int(c.value))
            else:
                args.append(c)
        return TypeArgs(tuple(args), token_end(children[-1]))

    def double_precision(self, children: list[Token]) -> Spelled:
        tok = children[0]
        return self._spelled("double", token_start(tok), token_end(tok))

    def row_field(self, children: list[Any]) -> tuple[str | None, Spelled, int]:
        name, spelled = children
        return (None if name is None else name.value, spelled, (name or spelled).offset)

    def row_type(self, children: list[Any]) -> Spelled:
        return self._keyword_type("row", children, (), tuple(children[1:-1]))

    def array_type(self, children: list[Any]) -> Spelled:
        return self._keyword_type("array", children, (children[1],))

    def legacy_array_type(self, children: list[Any]) -> Spelled:
        return self._keyword_type("array", children, (children[2],))

    def map_type(self, children: list[Any]) -> Spelled:
        return self._keyword_type("map", children, (children[1], children[2]))

    def legacy_map_type(self, children: list[Any]) -> Spelled:
        return self._keyword_type("map", children, (children[2], children[3]))

    def _keyword_type(
        self,
        name: str,
        children: list[Any],
        args: tuple[Spelled, ...],
        fields: tuple[tuple[str | None, Spelled, int], ...] = (),
    ) -> Spelled:
        """ROW, ARRAY or MAP: from the keyword to the closing RPAR or GT, both tokens."""
        return self._spelled(name, token_start(children[0]), token_end(children[-1]), args, fields)

    def interval_type(self, children: list[Any]) -> Spelled:
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
        span = next(c for c in children if isinstance(c, Span))
        words = _top_level(span.tokens)
        if not any(t.type == "NAME" and t.value.lower() == "to" for t in words[1:-1]):
            raise self.syntax_error(
                "a FOR loop needs a range: FOR <variable> IN <from> TO <to> DO", span.start
            )
        return Tree("for_stmt", children)

    def type_only(self, children: list[Spelled]) -> Spelled:
        return children[0]

    # -- parameters and returns -------------------------------------------------------------

    def parameter(self, children: list[Any]) -> Param:
        name, spelled, comment, doc = children
        offset = name.offset if name is not None else spelled.offset
        return Param(name, spelled, doc, offset, None if comment is None else token_start(comment))

    def table_column(self, children: list[Any]) -> Param:
        """A column of ``RETURNS TABLE(...)``: read as a parameter is (a method of its own,
        not an alias of the class's: mypyc's native classes do not keep such aliases)."""
        return self.parameter(children)

    def parameters(self, children: list[Param]) -> list[Param]:
        return list(children)

    def returns_type(self, children: list[Any]) -> Returns:
        return Returns(token_start(children[0]), type=children[1])

    def returns_table(self, children: list[Any]) -> Returns:
        returns, table, *columns = children
        return Returns(
            token_start(returns), columns=tuple(columns), table_offset=token_start(table)
        )

    # -- characteristics ----------------------------------------------------------------------

    def early_comment(self, children: list[Any]) -> Characteristic:
        return Characteristic("comment", children[1], token_start(children[0]), "COMMENT")

    def comment(self, children: list[Any]) -> Characteristic:
        return Characteristic("comment", children[1], token_start(children[0]), "COMMENT")

    def language(self, children: list[Any]) -> Characteristic:
        self.language_text = self.text[children[1].offset : children[1].end].upper()
        return Characteristic(
            "language", children[1].value.upper(), token_start(children[0]), "LANGUAGE"
        )

    def deterministic(self, children: list[Any]) -> Characteristic:
        negated, word = children
        first = negated if negated is not None else word
        return Characteristic("deterministic", negated is None, token_start(first), "DETERMINISTIC")

    def returns_null_on_null_input(self, children: list[Token]) -> Characteristic:
        return Characteristic(
            "on-null-input", "return-null", token_start(children[0]), "null-input"
        )

    def called_on_null_input(self, children: list[Token]) -> Characteristic:
        return Characteristic("on-null-input", "call", token_start(children[0]), "null-input")

    def security(self, children: list[Token]) -> Characteristic:
        return Characteristic(
            "security", children[1].value.upper(), token_start(children[0]), "SECURITY"
        )

    def properties(self, children: list[Any]) -> Characteristic:
        props = tuple(children[1:])
        return Characteristic("properties", props, token_start(children[0]), "WITH")

    def property(self, children: list[Any]) -> tuple[str, str, int]:
        key, _eq, value = children
        return (key.value, self.text[value.start : value.end], key.offset)

    # -- bodies -------------------------------------------------------------------------------

    def expr(self, children: list[Token]) -> Span:
        """An opaque expression: its children are its tokens, flat (the grammar inlines the
        nesting), so it spans from the first to the last."""
        return Span(token_start(children[0]), token_end(children[-1]), tuple(children))

    def query_expr(self, children: list[Token]) -> Span:
        """A query body: spanned as an opaque expression is."""
        return self.expr(children)

    def block(self, children: list[Any]) -> Span:
        start, end = token_start(children[0]), token_end(children[-1])  # BEGIN ... END
        return Span(start, end)

    def return_body(self, children: list[Token]) -> BodyPart:
        keyword, body = children
        is_query = first_word(body.value) in QUERY_WORDS
        span = Span(token_start(body), token_end(body))
        return BodyPart("query" if is_query else "expression", span, token_start(keyword))

    def compound_body(self, children: list[Span]) -> BodyPart:
        return BodyPart("compound", children[0], children[0].start)

    def external_body(self, children: list[Token]) -> BodyPart:
        tok = children[1]
        return BodyPart(
            "external", Span(token_start(tok), token_end(tok)), token_start(children[0])
        )

    # -- statements ---------------------------------------------------------------------------

    def start(self, children: list[Statement]) -> Statement:
        return children[0]

    def create_function(self, children: list[Any]) -> CreateFunction:
        self.complete = True
        self.assembler = FunctionAssembler(self, children)
        self.function_at = token_start(children[3])
        return self.assembler.build()

    def drop_function(self, children: list[Any]) -> DropFunction:
        self.complete = True
        if_exists = children[2] is not None
        qname: QName = children[4]
        params: list[Param] = children[5]
        warnings: list[Diagnostic] = []
        name = check_name(self, qname)
        types = tuple(to_iceberg(p.type, self, warnings) for p in params)
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
