"""Spark 4 ``CREATE``/``DROP FUNCTION`` DDL -> the dialect-free IR: the Transformer.

The header is parsed by ``grammars/spark.lark`` (LALR) and :class:`Builder` turns the tree into
IR values bottom-up; :mod:`.assemble` checks a CREATE FUNCTION as a whole, and :mod:`.types`
maps its primitive types. A parameter ``DEFAULT`` is kept as its source text.

Names. Spark's session catalog is case-insensitive and stores function names lower-case (it even
lower-cases a backquoted name): so does this front end, so that two names differing only in case
are one function here as there. Parameter, column and struct-field names are kept as written,
because a body refers to them and Spark shows them as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NoReturn

from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from translator.dialects.grammar import (
    accepted_terminals,
    fast_tree,
    inline_parser,
    load_parser,
    parse_with,
    readable_expected,
    run_inline_settled,
    shallow,
    token_end,
    token_start,
    transform,
)
from translator.dialects.spark.assemble import CreateAssembler, refuse_non_sql
from translator.dialects.spark.lexical import NAME, Name, split_name, squash, unquote
from translator.dialects.spark.source import (
    Clause,
    Default,
    NotNull,
    Source,
    Span,
    TypeArgs,
    Typed,
)
from translator.dialects.spark.types import PrimitiveSpec, bare_primitive, map_primitive
from translator.errors import (
    Diagnostic,
    Position,
    SqlSyntaxError,
    UnsupportedError,
)
from translator.ir import CreateFunction, DropFunction, Parameter, Statement
from translator.types import (
    MAX_TYPE_NESTING,
    TOO_DEEP,
    IcebergType,
    ListType,
    MapType,
    StructField,
    StructType,
    TypeNestingError,
    TypeParseError,
)

if TYPE_CHECKING:
    from translator.dialects.base import Dialect, TypeInference
    from translator.script import StatementText

__all__ = ["Builder", "parse_statement", "spark_type_to_iceberg"]


@dataclass(frozen=True, slots=True)
class _TooDeep(IcebergType):
    """Stands for a list, map or struct nested past the limit while the types around it are
    built (each fails on it in turn), until :meth:`Builder.whole` refuses the whole type. An
    Iceberg type in name only, so that the types around it take it as their child where the
    type classes check their fields' types (compiled); one that escaped would fail loudly
    (it has no text), never be stored."""

    nesting: int = MAX_TYPE_NESTING + 1


_TOO_DEEP: Final = _TooDeep()


def parse_statement(
    stmt: StatementText, dialect: Dialect, infer: TypeInference | None = None
) -> Statement:
    """Parse one Spark ``CREATE FUNCTION`` / ``DROP FUNCTION`` statement into the IR.

    Raises a positioned :class:`SqlSyntaxError` or :class:`UnsupportedError`; never anything else
    for bad input (lark wraps errors raised inside a Transformer; they are unwrapped here).
    """
    refuse_non_sql(stmt)
    result = _inline(stmt, dialect, infer) if shallow(stmt.text) else None
    if result is None:  # the tree path: parse, then walk the tree with the Builder
        tree = _parse(stmt.text, stmt.position, "start")
        result = _run_builder(Builder(stmt.text, stmt.position, dialect, infer), tree)
    assert isinstance(result, CreateFunction | DropFunction)
    return result


def _inline(
    stmt: StatementText, dialect: Dialect, infer: TypeInference | None
) -> CreateFunction | DropFunction | None:
    """The statement built while it is parsed, or None where only the tree path gives the error
    it gives (:func:`~translator.dialects.grammar.run_inline_settled`)."""
    result: CreateFunction | DropFunction | None = run_inline_settled(
        inline_parser(NAME, "start", Builder),
        Builder(stmt.text, stmt.position, dialect, infer),
        stmt.text,
        lambda: _parse(stmt.text, stmt.position, "start"),
    )
    return result


def spark_type_to_iceberg(text: str) -> tuple[IcebergType, tuple[Diagnostic, ...]]:
    """Map one Spark DDL type (``ARRAY<SMALLINT>``) to its Iceberg type and lossy warnings."""
    tree = _parse(text, None, "single_type")
    builder = Builder(text, None, None)
    result = _run_builder(builder, tree)
    assert isinstance(result, IcebergType)
    return result, tuple(builder.warnings)


def _parse(text: str, base: Position | None, start: str) -> Tree[Token]:
    """Parse with the shared error formatting, but list only what can really come next.

    LALR merges states, so lark's own expected set after a type also lists clause keywords that
    only fit elsewhere. On error the parse is replayed and the error's interactive parser
    (:func:`~translator.dialects.grammar.accepted_terminals`) leaves exactly the tokens that
    would be accepted.
    """
    parser = load_parser(NAME, start, positions=False)
    tree = fast_tree(parser, text)
    if tree is not None:
        return tree
    try:
        return parser.parse(text)
    except UnexpectedInput as e:
        accepted = accepted_terminals(e)
    try:
        return parse_with(parser, text, base)  # raises the positioned SqlSyntaxError
    except SqlSyntaxError as err:
        if accepted:
            shown = [_show_expected(n) for n in readable_expected(parser, accepted)]
            if "identifier" in shown:  # IF is only there as a word usable as a name
                shown = [n for n in shown if n != "IF"]
            err.expected = tuple(shown)
        raise


def _show_expected(name: str) -> str:
    return "end of statement" if name == "$END" else name


def _run_builder(builder: Builder, tree: Tree[Token]) -> Any:
    """Transform, turning lark's wrapped exceptions and deep recursion into our errors."""
    return transform(
        builder,
        tree,
        lambda: SqlSyntaxError("the statement is nested too deeply to parse", builder.position(0)),
    )


class Builder(Source):
    """Builds the IR bottom-up. ``warnings`` collects lossy mappings as they are met.

    Methods take only ``children`` (no ``v_args``): lark then calls them directly instead of
    through a wrapper made per node, and tokens are not visited (no method is named after one).
    """

    def __init__(
        self,
        text: str,
        base: Position | None,
        dialect: Dialect | None,
        infer: TypeInference | None = None,
    ) -> None:
        self.text = text
        self.base = base
        self.warnings = []
        self.dialect = dialect
        #: asked for the type of a function without RETURNS (None: such a function is refused)
        self.infer = infer
        #: Set when the statement's own rule is reduced, which lark's LALR tables do only at
        #: the end of the input: an error raised from then on has no syntax error after it.
        self.complete = False

    # -- names -----------------------------------------------------------------------------

    def ident(self, children: list[Token]) -> Name:
        tok = children[0]
        if tok.type == "BACKQUOTED_IDENTIFIER":
            if tok.value == "``":  # Spark takes it; an Iceberg name must not be empty
                self.fail(
                    UnsupportedError,
                    "an empty name (``) has no place in Iceberg metadata",
                    token_start(tok),
                )
            name = tok.value[1:-1].replace("``", "`")
            return Name(name, True, token_start(tok), token_end(tok))
        return Name(str(tok), False, token_start(tok), token_end(tok))

    def function_name(self, children: list[Name]) -> tuple[Name, ...]:
        return tuple(children)

    def identifier_clause(self, children: list[Token]) -> tuple[Name, ...]:
        """``IDENTIFIER('db.fn')``: the string is read as a (possibly qualified) name."""
        keyword, string = children
        parts = split_name(unquote(str(string)), token_start(keyword), token_end(string))
        if parts is None:
            self.fail(
                SqlSyntaxError, f"IDENTIFIER({string}) is not a function name", token_start(keyword)
            )
        return parts

    # -- types -----------------------------------------------------------------------------

    def whole(self, typed: Typed) -> Typed:
        """``typed`` as a whole type (a parameter's, a column's, the return type): one nested
        past the limit is refused here, at its outermost level's start, where a reader looks
        for it (types are built from the inside out: the level that counted past the limit is
        64 levels in from the innermost, anywhere in the middle)."""
        if typed.type is _TOO_DEEP:
            self.fail(UnsupportedError, TOO_DEEP, typed.offset)
        return typed

    def single_type(self, children: list[Typed]) -> IcebergType:
        return self.whole(children[0]).type

    def array_type(self, children: list[Any]) -> Typed:
        start = token_start(children[0])
        try:
            return Typed(ListType(children[1].type), start)
        except TypeNestingError:  # refused as a whole (:meth:`whole`)
            return Typed(_TOO_DEEP, start)

    def map_type(self, children: list[Any]) -> Typed:
        start = token_start(children[0])
        try:
            return Typed(MapType(children[1].type, children[2].type), start)
        except TypeNestingError:
            return Typed(_TOO_DEEP, start)

    def struct_type(self, children: list[Any]) -> Typed:
        """Children keep their punctuation (``!`` in the grammar): the last is the ``>``."""
        start = token_start(children[0])
        fields = [c for c in children if isinstance(c, StructField)]
        try:
            return Typed(StructType(fields), start)
        except TypeNestingError:
            return Typed(_TOO_DEEP, start)
        except TypeParseError as e:
            source = self.text[start : token_end(children[-1])]
            self.fail(UnsupportedError, f"{source}: {e.message}", start)

    def struct_field(self, children: list[Any]) -> StructField:
        name, typed, not_null, comment = children
        if not_null is not None:
            self.warn(
                "lossy-type",
                f"NOT NULL on struct field {name.text!r} is dropped: the UDF spec's struct "
                "types carry no required flag",
                not_null.offset,
            )
        return StructField(name.text, typed.type, comment.value if comment else None)

    def not_null(self, children: list[Token]) -> NotNull:
        return NotNull(token_start(children[0]))

    def interval_type(self, children: list[Token | None]) -> NoReturn:
        tokens = [t for t in children if t is not None]  # [TO IDENTIFIER] may be two Nones
        start = token_start(tokens[0])
        self.fail(
            UnsupportedError,
            f"Spark type {squash(self.text[start : token_end(tokens[-1])])} has no Iceberg type "
            "(Iceberg's Spark integration does not support intervals)",
            start,
        )

    def type_args(self, children: list[Token]) -> TypeArgs:
        """Children keep their punctuation (``!`` in the grammar): ``(``, arg, ``,``, ... ``)``."""
        return TypeArgs(children[1:-1:2], token_end(children[-1]))

    def without_time_zone(self, children: list[Token]) -> int:
        """Where ``ZONE`` ends (the primitive type's text may end there)."""
        return token_end(children[-1])

    def collate(self, children: list[Any]) -> Name:
        name: Name = children[1]
        return name

    def primitive_type(self, children: list[Any]) -> Typed:
        name_tok: Token = children[0]
        args: TypeArgs | None = children[1]
        without_tz: int | None = children[2]
        collation: Name | None = children[3]
        start = token_start(name_tok)
        if args is None and without_tz is None and collation is None:
            bare = bare_primitive(str(name_tok).upper())
            if bare is not None:  # nothing to check, say or spell out
                return Typed(bare, start)
        source = self.text[start : _primitive_end(name_tok, args, without_tz, collation)]
        mapped = map_primitive(
            PrimitiveSpec(
                str(name_tok).upper(),
                args.args if args is not None else None,
                without_tz is not None,
                collation,
                source,
            ),
            lambda cls, msg: self.fail(cls, msg, start),
            lambda msg: self.warn("lossy-type", msg, start),
        )
        return Typed(mapped, start)

    # -- clauses ---------------------------------------------------------------------------

    def comment_clause(self, children: list[Token]) -> Clause:
        return Clause("comment", "COMMENT", token_start(children[0]), unquote(str(children[1])))

    def returns_type(self, children: list[Any]) -> Clause:
        return Clause("returns", "RETURNS", token_start(children[0]), self.whole(children[1]))

    def returns_table(self, children: list[Any]) -> Clause:
        columns = [c for c in children[2:] if c is not None]
        table_at = token_start(children[1])
        return Clause(
            "returns-table", "RETURNS", token_start(children[0]), (columns or None, table_at)
        )

    def returns_null(self, children: list[Token]) -> Clause:
        return Clause("returns-null", "NULL CALL", token_start(children[0]))

    def called_on_null(self, children: list[Token]) -> Clause:
        return Clause("called-on-null", "NULL CALL", token_start(children[0]))

    def language(self, children: list[Any]) -> Clause:
        return Clause("language", "LANGUAGE", token_start(children[0]), children[1])

    def deterministic(self, children: list[Token]) -> Clause:
        return Clause("deterministic", "DETERMINISTIC", token_start(children[0]), True)

    def not_deterministic(self, children: list[Token]) -> Clause:
        return Clause("deterministic", "DETERMINISTIC", token_start(children[0]), False)

    def contains_sql(self, children: list[Token]) -> Clause:
        return Clause("data-access", "SQL DATA ACCESS", token_start(children[0]), "CONTAINS SQL")

    def reads_sql_data(self, children: list[Token]) -> Clause:
        return Clause("data-access", "SQL DATA ACCESS", token_start(children[0]), "READS SQL DATA")

    def modifies_sql_data(self, children: list[Token]) -> Clause:
        return Clause(
            "data-access", "SQL DATA ACCESS", token_start(children[0]), "MODIFIES SQL DATA"
        )

    def no_sql(self, children: list[Token]) -> Clause:
        return Clause("data-access", "SQL DATA ACCESS", token_start(children[0]), "NO SQL")

    def security(self, children: list[Any]) -> Clause:
        return Clause("security", "SQL SECURITY", token_start(children[0]), children[2])

    # -- parameters and columns --------------------------------------------------------------

    def default_expr(self, children: list[Span]) -> str:
        return self.text[children[0][0] : children[-1][1]]

    def default_clause(self, children: list[Any]) -> Default:
        return Default(children[1], token_start(children[0]))

    def plain_token(self, children: list[Token]) -> Span:
        return token_start(children[0]), token_end(children[0])

    def paren_group(self, children: list[Any]) -> Span:
        """Children keep their punctuation (``!`` in the grammar): from ``(`` to ``)``."""
        return token_start(children[0]), token_end(children[-1])

    def field_access(self, children: list[Token]) -> Span:
        """Children keep their punctuation (``!`` in the grammar): from ``.`` to the name."""
        return token_start(children[0]), token_end(children[-1])

    def param(self, children: list[Any]) -> Parameter:
        name, typed, *options = children
        typed = self.whole(typed)
        doc = default = None
        if options:  # most parameters have none
            defaults = [o for o in options if isinstance(o, Default)]
            comments = [o for o in options if isinstance(o, Clause)]
            for extra in (defaults[1:2], comments[1:2]):
                if extra:
                    what = "DEFAULT" if isinstance(extra[0], Default) else "COMMENT"
                    self.fail(
                        SqlSyntaxError,
                        f"parameter {name.text!r} has two {what} clauses",
                        extra[0].offset,
                    )
            # a DEFAULT is kept (translator/defaults.py)
            default = defaults[0].text if defaults else None
            doc = comments[0].value if comments else None
        return Parameter(name.text, typed.type, doc, default, self.position(name.offset))

    def column(self, children: list[Any]) -> tuple[StructField, int]:
        name, typed, comment = children
        typed = self.whole(typed)
        doc = comment.value if comment is not None else None
        return StructField(name.text, typed.type, doc), name.offset

    # -- statements --------------------------------------------------------------------------

    def or_replace(self, children: list[Token]) -> str:
        return "OR REPLACE"

    def temporary(self, children: list[Token]) -> str:
        return "TEMPORARY"

    def if_not_exists(self, children: list[Token]) -> str:
        return "IF NOT EXISTS"

    def if_exists(self, children: list[Token]) -> str:
        return "IF EXISTS"

    def drop_function(self, children: list[Any]) -> DropFunction:
        self.complete = True
        flags = {c for c in children if isinstance(c, str) and not isinstance(c, Token)}
        name = next(c for c in children if isinstance(c, tuple))
        parts = self.function_parts(name)
        if "TEMPORARY" in flags and len(parts) > 1:
            self.fail(
                SqlSyntaxError, "DROP TEMPORARY FUNCTION takes an unqualified name", name[0].offset
            )
        return DropFunction(
            name=parts,
            parameter_types=None,
            dialect=NAME,
            if_exists="IF EXISTS" in flags,
            temporary="TEMPORARY" in flags,
            position=self.position(token_start(children[0])),
        )

    def create_function(self, children: list[Any]) -> CreateFunction:
        self.complete = True
        return CreateAssembler(self, children).build()


def _primitive_end(
    name: Token, args: TypeArgs | None, without_tz: int | None, collation: Name | None
) -> int:
    """Where a primitive type's text ends: at its last part that is there."""
    if collation is not None:
        return collation.end
    if without_tz is not None:
        return without_tz
    return args.end if args is not None else token_end(name)
