"""Spark 4 front end: ``CREATE``/``DROP FUNCTION`` DDL -> the dialect-free IR, and the type mapping.

The header is parsed by ``grammars/spark.lark`` (LALR); the routine body is everything after
``RETURN``, kept as written and handed to sqlglot (:func:`translator.bodies.parse_body`), so a body
sqlglot cannot read is flagged rather than rejected. A parameter ``DEFAULT`` is kept as its source
text too.

Names. Spark's session catalog is case-insensitive and stores function names lower-case (it even
lower-cases a backquoted name). Here an *unquoted* function-name part is lower-cased, and a
backquoted one is kept exactly as written, so a deliberately quoted name survives into catalogs
that do compare case. Parameter, column and struct-field names are kept as written, because a
body refers to them and Spark shows them as written.

Types follow ``type-mapping-facts.md`` (Iceberg's own Spark integration). Where a Spark type lands
on an Iceberg type that does not carry everything (TINYINT, CHAR(n), a collation...), the
statement gets a ``lossy-type`` warning; where Iceberg cannot hold the type at all (INTERVAL,
TIME), it is an :class:`UnsupportedError` naming the type and its position.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain, pairwise
from typing import TYPE_CHECKING, Any, Final, Literal, NoReturn

from lark import Token, Transformer, Tree
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
from translator.grammar import load_parser, parse_with, readable_expected, token_end, token_start
from translator.ir import Body, CreateFunction, DropFunction, Parameter, Statement
from translator.script import SPARK, Lexical, StatementText
from translator.script import Token as ScriptToken
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
    TypeParseError,
)

if TYPE_CHECKING:
    from translator.dialects import Dialect
    from translator.emit import Rendered, RoutineSpec

__all__ = [
    "DIALECT",
    "ONLY_SQL",
    "SparkDialect",
    "iceberg_to_spark_type",
    "parse_statement",
    "render_create",
    "spark_string_literal",
    "spark_type_to_iceberg",
]

#: Why a Python or class-based function is refused: the reason every such message ends with.
ONLY_SQL: Final = "Iceberg UDF metadata has only SQL representations"

#: First words of a body that make it a query (``RETURN SELECT ...``) rather than an expression.
_QUERY_STARTS: Final = frozenset({"SELECT", "WITH", "VALUES", "FROM", "TABLE"})

#: Spark's default decimal when DECIMAL has no arguments (Trino's is (38,0): tricky case 7).
_SPARK_DEFAULT_DECIMAL: Final = (10, 0)

#: Spark 4.1 maps SRID 4326 to the CRS "OGC:CRS84", which is Iceberg's default CRS.
_DEFAULT_SRID: Final = "4326"


# ---------------------------------------------------------------------------------------------
# The dialect object


class SparkDialect:
    """What :func:`translator.dialects.get_dialect` hands out for ``"spark"``."""

    name: str = "spark"
    title: str = "Spark"
    sqlglot_dialect: str = "spark"
    lexical: Lexical = SPARK
    table_functions: bool = True
    return_takes_query: bool = True
    deterministic_default: bool = True  # Spark documents DETERMINISTIC as the default
    use_sets_function_namespace: bool = True
    name_parts: frozenset[int] = frozenset({1, 2, 3})

    def parse_statement(self, stmt: StatementText) -> Statement:
        return parse_statement(stmt)

    def render_create(self, spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
        return render_create(spec, or_replace=or_replace)


DIALECT: Final[Dialect] = SparkDialect()


def parse_statement(stmt: StatementText) -> Statement:
    """Parse one Spark ``CREATE FUNCTION`` / ``DROP FUNCTION`` statement into the IR.

    Raises a positioned :class:`SqlSyntaxError` or :class:`UnsupportedError`; never anything else
    for bad input (lark wraps errors raised inside a Transformer; they are unwrapped here).
    """
    _refuse_non_sql(stmt)
    tree = _parse(stmt.text, stmt.position, "start")
    result = _run_builder(_Builder(stmt.text, stmt.position), tree)
    assert isinstance(result, CreateFunction | DropFunction)
    return result


def spark_type_to_iceberg(text: str) -> tuple[IcebergType, tuple[Diagnostic, ...]]:
    """Map one Spark DDL type (``ARRAY<SMALLINT>``) to its Iceberg type and lossy warnings."""
    tree = _parse(text, None, "single_type")
    builder = _Builder(text, None)
    result = _run_builder(builder, tree)
    assert isinstance(result, IcebergType)
    return result, tuple(builder.warnings)


def _parse(text: str, base: Position | None, start: str) -> Tree[Token]:
    """Parse with the shared error formatting, but list only what can really come next.

    LALR merges states, so lark's own expected set after a type also lists clause keywords that
    only fit elsewhere. On error the parse is replayed and each candidate is tried by lark's
    interactive parser (``accepts``), which leaves exactly the tokens that would be accepted.
    """
    parser = load_parser("spark", start, positions=False)
    try:
        return parser.parse(text)
    except UnexpectedInput as e:
        accepted = _accepted(e)
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


def _accepted(e: UnexpectedInput) -> set[str]:
    interactive = getattr(e, "interactive_parser", None)
    if interactive is None:
        return set()
    try:
        return set(interactive.accepts())
    except UnexpectedInput:  # pragma: no cover - accepts() tries tokens on copies
        return set()


def _run_builder(builder: _Builder, tree: Tree[Token]) -> Any:
    """Transform, turning lark's wrapped exceptions and deep recursion into our errors."""
    try:
        return builder.transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, TranslatorError):
            raise e.orig_exc from None
        raise
    except RecursionError:
        raise SqlSyntaxError(
            "the statement is nested too deeply to parse", builder.position(0)
        ) from None


# ---------------------------------------------------------------------------------------------
# Non-SQL functions: refused before the grammar sees them, so even malformed ones get the reason


def _refuse_non_sql(stmt: StatementText) -> None:
    """Refuse ``AS 'class'`` (Hive), ``LANGUAGE PYTHON`` and ``$$`` bodies with the only-SQL reason.

    Only the header is looked at: tokens before the first top-level ``RETURN``. ``AS`` never
    appears at the top level of a SQL function's header, and a ``$$`` string never does either.
    """
    words = stmt.iter_words()
    first = next(words, None)
    if first is None or first.upper != "CREATE":
        return
    depth = 0
    for tok, nxt in pairwise(chain((first,), words, (None,))):
        assert tok is not None  # only the last pair's second is None
        if tok.kind == "punct" and tok.text in "()":
            depth += 1 if tok.text == "(" else -1
            continue
        if depth > 0:
            continue
        reason = _non_sql_reason(tok, nxt)
        if reason == "":
            return
        if reason is not None:
            raise UnsupportedError(
                f"{reason}: {ONLY_SQL}",
                _pos_in(stmt, tok.start),
                source_line=_source_line(stmt.text, tok.start, stmt.position),
            )


def _non_sql_reason(tok: ScriptToken, nxt: ScriptToken | None) -> str | None:
    """The refusal reason for a top-level header token; ``""`` at RETURN (the body starts).

    A word is upper-cased once: this runs on every header token of every statement.
    """
    if tok.kind == "dollar":
        return _DOLLAR_BODY
    if tok.kind != "word":
        return None
    word = tok.upper
    if word == "RETURN":
        return ""
    if word == "AS":
        if nxt is not None and nxt.kind == "dollar":
            return _DOLLAR_BODY
        what = f" {nxt.text}" if nxt is not None else ""
        return f"a function implemented by a class (AS{what}) cannot be translated"
    if word == "LANGUAGE" and nxt is not None:
        is_sql = nxt.kind == "word" and nxt.upper == "SQL"
        return None if is_sql else f"a LANGUAGE {nxt.text} function cannot be translated"
    return None


_DOLLAR_BODY: Final = (
    "a function whose body is a $$...$$ block (not a SQL RETURN) cannot be translated"
)


def _pos_in(stmt: StatementText, offset: int) -> Position:
    return position_at(stmt.text, offset, base=stmt.position)


def _source_line(text: str, offset: int, base: Position | None) -> str:
    """The line of ``offset``, indented as in the script when it is the statement's first line."""
    local = position_at(text, offset)
    lines = text.splitlines() or [""]
    line = lines[min(local.line, len(lines)) - 1]
    if base is not None and local.line == 1:
        line = " " * (base.column - 1) + line
    return line


# ---------------------------------------------------------------------------------------------
# Intermediate values the Transformer passes upwards
#
# Every offset comes from a token or from a child's value: the parser runs without lark's
# position tracking (``propagate_positions``), which would cost about a third of the parse.
# They are not frozen: a frozen dataclass's __init__ costs about four times as much, and these
# live only while one statement is built.


@dataclass(slots=True)
class _Name:
    """One identifier: its text (backquotes removed), whether it was quoted, and where."""

    text: str
    quoted: bool
    offset: int
    end: int


@dataclass(slots=True)
class _Clause:
    """One header clause. ``group`` names what may appear once (Spark's DUPLICATE_CLAUSES)."""

    kind: str
    group: str
    offset: int
    value: Any = None


@dataclass(slots=True)
class _Default:
    text: str
    offset: int


@dataclass(slots=True)
class _NotNull:
    offset: int


@dataclass(slots=True)
class _Typed:
    """A parsed type and where it starts."""

    type: IcebergType
    offset: int


@dataclass(slots=True)
class _TypeArgs:
    """A primitive type's ``(arg, ...)`` and where its ``)`` ends."""

    args: list[Token]
    end: int


#: Where a piece of a DEFAULT expression starts and ends, so the whole can be sliced as written.
_Span = tuple[int, int]


# ---------------------------------------------------------------------------------------------
# The Transformer: parse tree -> IR


class _Builder(Transformer[Token, Any]):
    """Builds the IR bottom-up. ``warnings`` collects lossy mappings as they are met.

    Methods take only ``children`` (no ``v_args``): lark then calls them directly instead of
    through a wrapper made per node, and tokens are not visited (no method is named after one).
    """

    def __init__(self, text: str, base: Position | None) -> None:
        super().__init__(visit_tokens=False)
        self.text = text
        self.base = base
        self.warnings: list[Diagnostic] = []

    # -- helpers ---------------------------------------------------------------------------

    def position(self, offset: int) -> Position:
        return position_at(self.text, offset, base=self.base)

    def fail(self, cls: type[TranslatorError], message: str, offset: int) -> NoReturn:
        """Raise ``cls`` at ``offset`` with the source line, so the CLI can draw a caret."""
        line = _source_line(self.text, offset, self.base)
        raise cls(message, self.position(offset), source_line=line)

    def local_offset(self, position: Position | None) -> int:
        """Where ``position`` (an absolute script position) falls in this statement's text."""
        if position is None:
            return 0
        return position.offset - (self.base.offset if self.base else 0)

    def warn(self, code: str, message: str, offset: int, *, lossy: bool = True) -> None:
        self.warnings.append(Diagnostic(code, message, self.position(offset), lossy=lossy))

    # -- names -----------------------------------------------------------------------------

    def ident(self, children: list[Token]) -> _Name:
        tok = children[0]
        if tok.type == "BACKQUOTED_IDENTIFIER":
            if tok == "``":  # Spark takes it; an Iceberg name must not be empty
                self.fail(
                    UnsupportedError,
                    "an empty name (``) has no place in Iceberg metadata",
                    token_start(tok),
                )
            return _Name(tok[1:-1].replace("``", "`"), True, token_start(tok), token_end(tok))
        return _Name(str(tok), False, token_start(tok), token_end(tok))

    def function_name(self, children: list[_Name]) -> tuple[_Name, ...]:
        return tuple(children)

    def identifier_clause(self, children: list[Token]) -> tuple[_Name, ...]:
        """``IDENTIFIER('db.fn')``: the string is read as a (possibly qualified) name."""
        keyword, string = children
        parts = _split_name(_unquote(str(string)), token_start(keyword), token_end(string))
        if parts is None:
            self.fail(
                SqlSyntaxError, f"IDENTIFIER({string}) is not a function name", token_start(keyword)
            )
        return parts

    # -- types -----------------------------------------------------------------------------

    def single_type(self, children: list[_Typed]) -> IcebergType:
        return children[0].type

    def array_type(self, children: list[Any]) -> _Typed:
        return _Typed(ListType(children[1].type), token_start(children[0]))

    def map_type(self, children: list[Any]) -> _Typed:
        return _Typed(MapType(children[1].type, children[2].type), token_start(children[0]))

    def struct_type(self, children: list[Any]) -> _Typed:
        """Children keep their punctuation (``!`` in the grammar): the last is the ``>``."""
        start = token_start(children[0])
        fields = [c for c in children if isinstance(c, StructField)]
        try:
            return _Typed(StructType(fields), start)
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

    def not_null(self, children: list[Token]) -> _NotNull:
        return _NotNull(token_start(children[0]))

    def interval_type(self, children: list[Token | None]) -> NoReturn:
        tokens = [t for t in children if t is not None]  # [TO IDENTIFIER] may be two Nones
        start = token_start(tokens[0])
        self.fail(
            UnsupportedError,
            f"Spark type {_squash(self.text[start : token_end(tokens[-1])])} has no Iceberg type "
            "(Iceberg's Spark integration does not support intervals)",
            start,
        )

    def type_args(self, children: list[Token]) -> _TypeArgs:
        """Children keep their punctuation (``!`` in the grammar): ``(``, arg, ``,``, ... ``)``."""
        return _TypeArgs(children[1:-1:2], token_end(children[-1]))

    def without_time_zone(self, children: list[Token]) -> int:
        """Where ``ZONE`` ends (the primitive type's text may end there)."""
        return token_end(children[-1])

    def collate(self, children: list[Any]) -> _Name:
        name: _Name = children[1]
        return name

    def primitive_type(self, children: list[Any]) -> _Typed:
        name_tok: Token = children[0]
        args: _TypeArgs | None = children[1]
        without_tz: int | None = children[2]
        collation: _Name | None = children[3]
        start = token_start(name_tok)
        source = self.text[start : _primitive_end(name_tok, args, without_tz, collation)]
        mapped = _map_primitive(
            _PrimitiveSpec(
                str(name_tok).upper(),
                args.args if args is not None else None,
                without_tz is not None,
                collation,
                source,
            ),
            lambda cls, msg: self.fail(cls, msg, start),
            lambda msg: self.warn("lossy-type", msg, start),
        )
        return _Typed(mapped, start)

    # -- clauses ---------------------------------------------------------------------------

    def comment_clause(self, children: list[Token]) -> _Clause:
        return _Clause("comment", "COMMENT", token_start(children[0]), _unquote(str(children[1])))

    def returns_type(self, children: list[Any]) -> _Clause:
        return _Clause("returns", "RETURNS", token_start(children[0]), children[1])

    def returns_table(self, children: list[Any]) -> _Clause:
        columns = [c for c in children[2:] if c is not None]
        table_at = token_start(children[1])
        return _Clause(
            "returns-table", "RETURNS", token_start(children[0]), (columns or None, table_at)
        )

    def returns_null(self, children: list[Token]) -> _Clause:
        return _Clause("returns-null", "NULL CALL", token_start(children[0]))

    def called_on_null(self, children: list[Token]) -> _Clause:
        return _Clause("called-on-null", "NULL CALL", token_start(children[0]))

    def language(self, children: list[Any]) -> _Clause:
        return _Clause("language", "LANGUAGE", token_start(children[0]), children[1])

    def deterministic(self, children: list[Token]) -> _Clause:
        return _Clause("deterministic", "DETERMINISTIC", token_start(children[0]), True)

    def not_deterministic(self, children: list[Token]) -> _Clause:
        return _Clause("deterministic", "DETERMINISTIC", token_start(children[0]), False)

    def contains_sql(self, children: list[Token]) -> _Clause:
        return _Clause("data-access", "SQL DATA ACCESS", token_start(children[0]), "CONTAINS SQL")

    def reads_sql_data(self, children: list[Token]) -> _Clause:
        return _Clause("data-access", "SQL DATA ACCESS", token_start(children[0]), "READS SQL DATA")

    def modifies_sql_data(self, children: list[Token]) -> _Clause:
        return _Clause(
            "data-access", "SQL DATA ACCESS", token_start(children[0]), "MODIFIES SQL DATA"
        )

    def no_sql(self, children: list[Token]) -> _Clause:
        return _Clause("data-access", "SQL DATA ACCESS", token_start(children[0]), "NO SQL")

    def security(self, children: list[Any]) -> _Clause:
        return _Clause("security", "SQL SECURITY", token_start(children[0]), children[2])

    # -- parameters and columns --------------------------------------------------------------

    def default_expr(self, children: list[_Span]) -> str:
        return self.text[children[0][0] : children[-1][1]]

    def default_clause(self, children: list[Any]) -> _Default:
        return _Default(children[1], token_start(children[0]))

    def plain_token(self, children: list[Token]) -> _Span:
        return token_start(children[0]), token_end(children[0])

    def paren_group(self, children: list[Any]) -> _Span:
        """Children keep their punctuation (``!`` in the grammar): from ``(`` to ``)``."""
        return token_start(children[0]), token_end(children[-1])

    def field_access(self, children: list[Token]) -> _Span:
        """Children keep their punctuation (``!`` in the grammar): from ``.`` to the name."""
        return token_start(children[0]), token_end(children[-1])

    def param(self, children: list[Any]) -> Parameter:
        name, typed, *options = children
        defaults = [o for o in options if isinstance(o, _Default)]
        comments = [o for o in options if isinstance(o, _Clause)]
        for extra in (defaults[1:2], comments[1:2]):
            if extra:
                what = "DEFAULT" if isinstance(extra[0], _Default) else "COMMENT"
                self.fail(
                    SqlSyntaxError,
                    f"parameter {name.text!r} has two {what} clauses",
                    extra[0].offset,
                )
        default = defaults[0] if defaults else None
        if default is not None:
            self.warn(
                "dropped-default",
                f"Iceberg UDF metadata has no field for a parameter DEFAULT: {name.text} DEFAULT "
                f"{default.text} is kept in the IR only, so callers must pass {name.text}",
                default.offset,
            )
        return Parameter(
            name=name.text,
            type=typed.type,
            doc=comments[0].value if comments else None,
            default=default.text if default else None,
            position=self.position(name.offset),
        )

    def column(self, children: list[Any]) -> tuple[StructField, int]:
        name, typed, comment = children
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
            dialect="spark",
            if_exists="IF EXISTS" in flags,
            temporary="TEMPORARY" in flags,
            position=self.position(token_start(children[0])),
        )

    def function_parts(self, name: tuple[_Name, ...]) -> tuple[str, ...]:
        """Spark's case rule for function names (see the module docstring); at most 3 parts."""
        if len(name) > 3:
            self.fail(
                SqlSyntaxError,
                f"function name has {len(name)} parts: at most catalog.schema.function",
                name[0].offset,
            )
        return tuple(n.text if n.quoted else n.text.lower() for n in name)

    def create_function(self, children: list[Any]) -> CreateFunction:
        return _CreateAssembler(self, children).build()


def _primitive_end(
    name: Token, args: _TypeArgs | None, without_tz: int | None, collation: _Name | None
) -> int:
    """Where a primitive type's text ends: at its last part that is there."""
    if collation is not None:
        return collation.end
    if without_tz is not None:
        return without_tz
    return args.end if args is not None else token_end(name)


# ---------------------------------------------------------------------------------------------
# CREATE FUNCTION: checks that span clauses, then the IR


class _CreateAssembler:
    """Turns the children of ``create_function`` into a :class:`CreateFunction`.

    Kept apart from the Transformer because the checks here (clause order and duplicates,
    flags that Spark refuses together, the return type Iceberg needs) each want a small method.
    """

    def __init__(self, b: _Builder, children: list[Any]) -> None:
        self.b = b
        self.start: int = children[0].start_pos  # CREATE
        self.flags = {c for c in children if isinstance(c, str) and not isinstance(c, Token)}
        self.name: tuple[_Name, ...] = next(c for c in children if isinstance(c, tuple))
        self.params = [c for c in children if isinstance(c, Parameter)]
        self.clauses = [c for c in children if isinstance(c, _Clause)]
        body_tok = children[-1]
        self.return_at = children[-2].start_pos
        self.body_text = str(body_tok)
        self.body_at = body_tok.start_pos

    def build(self) -> CreateFunction:
        parts = self.b.function_parts(self.name)
        self.check_flags(parts)
        self.check_params()
        self.check_clauses()
        returns = self.returns_clause()
        return_type, kind = self.return_type(returns)
        by_kind = {c.kind: c for c in self.clauses}
        positions = {"name": self.b.position(self.name[0].offset)}
        positions |= {_POSITION_KEYS[c.kind]: self.b.position(c.offset) for c in self.clauses}
        positions["body"] = self.b.position(self.body_at)
        body = self.body(kind)
        return CreateFunction(
            name=parts,
            parameters=tuple(self.params),
            return_type=return_type,
            body=body,
            dialect="spark",
            kind=kind,
            doc=by_kind["comment"].value if "comment" in by_kind else None,
            deterministic=by_kind["deterministic"].value if "deterministic" in by_kind else None,
            on_null_input="call" if "called-on-null" in by_kind else None,
            security=by_kind["security"].value.text.upper() if "security" in by_kind else None,
            language=by_kind["language"].value.text.upper() if "language" in by_kind else None,
            data_access=by_kind["data-access"].value if "data-access" in by_kind else None,
            or_replace="OR REPLACE" in self.flags,
            if_not_exists="IF NOT EXISTS" in self.flags,
            temporary="TEMPORARY" in self.flags,
            position=self.b.position(self.start),
            positions=positions,
            warnings=tuple(sorted(self.b.warnings, key=_diagnostic_order)),
        )

    def check_flags(self, parts: tuple[str, ...]) -> None:
        """Combinations Spark's parser refuses (INVALID_SQL_SYNTAX.CREATE_*)."""
        at = self.start
        if {"OR REPLACE", "IF NOT EXISTS"} <= self.flags:
            self.b.fail(SqlSyntaxError, "OR REPLACE and IF NOT EXISTS cannot be used together", at)
        if {"TEMPORARY", "IF NOT EXISTS"} <= self.flags:
            self.b.fail(SqlSyntaxError, "CREATE TEMPORARY FUNCTION does not take IF NOT EXISTS", at)
        if "TEMPORARY" in self.flags and len(parts) > 1:
            self.b.fail(
                SqlSyntaxError,
                "a TEMPORARY function cannot be qualified with a schema or catalog",
                self.name[0].offset,
            )

    def check_params(self) -> None:
        """Unique names (case-insensitively, as Spark compares them); DEFAULTs only at the end."""
        seen: set[str] = set()
        after_default: Parameter | None = None
        for p in self.params:
            offset = self.b.local_offset(p.position)
            if p.name.lower() in seen:
                self.b.fail(SqlSyntaxError, f"duplicate parameter name {p.name!r}", offset)
            seen.add(p.name.lower())
            if p.default is not None:
                after_default = p
            elif after_default is not None:
                self.b.fail(
                    SqlSyntaxError,
                    f"parameter {p.name!r} has no DEFAULT but follows {after_default.name!r}, "
                    "which has one",
                    offset,
                )

    def check_clauses(self) -> None:
        """Each clause once; only COMMENT before RETURNS; what Spark refuses, refused here."""
        seen: dict[str, _Clause] = {}
        returns_seen = False
        for c in self.clauses:
            if c.group in seen:
                self.b.fail(SqlSyntaxError, f"duplicate {c.group} clause", c.offset)
            seen[c.group] = c
            if c.group == "RETURNS":
                returns_seen = True
            elif c.kind == "comment" and not returns_seen:
                self.b.warn(
                    "comment-before-returns",
                    "COMMENT before RETURNS is the Iceberg spec's spelling; Spark itself only "
                    "accepts it after RETURNS",
                    c.offset,
                    lossy=False,
                )
            elif not returns_seen and any(x.group == "RETURNS" for x in self.clauses):
                self.b.fail(
                    SqlSyntaxError, f"{c.group} must come after the RETURNS clause", c.offset
                )
            self.check_refused(c)

    def check_refused(self, c: _Clause) -> None:
        """Characteristics Spark's grammar reads but refuses for SQL functions."""
        if c.kind == "returns-null":
            self.b.fail(
                UnsupportedError,
                "Spark does not support RETURNS NULL ON NULL INPUT for SQL functions",
                c.offset,
            )
        if c.kind == "data-access" and c.value in ("MODIFIES SQL DATA", "NO SQL"):
            self.b.fail(
                UnsupportedError, f"Spark does not support {c.value} for SQL functions", c.offset
            )
        if c.kind == "security" and c.value.text.upper() != "DEFINER":
            self.b.fail(
                UnsupportedError,
                f"Spark does not support SQL SECURITY {c.value.text} (only DEFINER)",
                c.offset,
            )
        if c.kind == "language" and c.value.text.upper() != "SQL":
            self.b.fail(
                UnsupportedError,
                f"a LANGUAGE {c.value.text} function cannot be translated: {ONLY_SQL}",
                c.offset,
            )

    def returns_clause(self) -> _Clause:
        for c in self.clauses:
            if c.group == "RETURNS":
                return c
        self.b.fail(
            UnsupportedError,
            "the function has no RETURNS clause: Spark infers the result type, but Iceberg "
            "metadata must declare it; add RETURNS <type> (or RETURNS TABLE (col type, ...))",
            self.return_at,
        )

    def return_type(self, returns: _Clause) -> tuple[IcebergType, Literal["udf", "udtf"]]:
        if returns.kind == "returns":
            return returns.value.type, "udf"
        columns, table_at = returns.value
        if columns is None:
            self.b.fail(
                UnsupportedError,
                "RETURNS TABLE has no column list: Spark infers the columns, but Iceberg metadata "
                "must declare them; write RETURNS TABLE (col type, ...)",
                table_at,
            )
        seen: set[str] = set()
        for field, offset in columns:
            if field.name.lower() in seen:
                self.b.fail(SqlSyntaxError, f"duplicate result column name {field.name!r}", offset)
            seen.add(field.name.lower())
        try:
            return StructType(f for f, _ in columns), "udtf"
        except TypeParseError as e:  # pragma: no cover - names are checked above
            self.b.fail(UnsupportedError, f"RETURNS TABLE: {e.message}", table_at)

    def body(self, kind: str) -> Body:
        body_kind = _body_kind(self.body_text, kind == "udtf")
        ast, error = parse_body(self.body_text, body_kind, "spark")
        return Body(self.body_text, body_kind, self.b.position(self.body_at), ast, error)


def _diagnostic_order(d: Diagnostic) -> int:
    return d.position.offset if d.position else 0


#: IR ``positions`` keys per clause kind.
_POSITION_KEYS: Final = {
    "comment": "comment",
    "returns": "returns",
    "returns-table": "returns",
    "returns-null": "on-null-input",
    "called-on-null": "on-null-input",
    "language": "language",
    "deterministic": "deterministic",
    "data-access": "data-access",
    "security": "security",
}


#: A body's opening parentheses and first word (compiled once: every statement has a body).
_BODY_START: Final = re.compile(r"\s*(\(*)\s*([A-Za-z_]+)")


def _body_kind(text: str, table_function: bool) -> Literal["expression", "query"]:
    """``query`` for ``RETURN SELECT/WITH/VALUES/FROM/TABLE ...``, else ``expression``.

    A parenthesised body is an expression (a scalar subquery) in a scalar function and a query
    in a table function, which is how Spark reads ``RETURN (SELECT ...)`` in each.
    """
    m = _BODY_START.match(text)
    if m is None:
        return "expression"
    if m.group(1):
        return "query" if table_function and m.group(2).upper() in _QUERY_STARTS else "expression"
    return "query" if m.group(2).upper() in _QUERY_STARTS else "expression"


# ---------------------------------------------------------------------------------------------
# Spark type -> Iceberg type


@dataclass(slots=True)
class _PrimitiveSpec:
    """A primitive type as written: upper-case name, arguments, suffixes, and its source text."""

    name: str
    args: list[Token] | None
    without_time_zone: bool
    collation: _Name | None
    source: str

    @property
    def spelled(self) -> str:
        """The type as written, on one line: only messages need it, so it is made on demand."""
        return _squash(self.source)


Fail = Callable[[type[TranslatorError], str], NoReturn]
Warn = Callable[[str], None]

#: Spark names (with aliases) that map to one Iceberg primitive without arguments or loss.
_EXACT: Final = {
    "BOOLEAN": "boolean",
    "INT": "int",
    "INTEGER": "int",
    "BIGINT": "long",
    "LONG": "long",
    "FLOAT": "float",
    "REAL": "float",
    "DOUBLE": "double",
    "DATE": "date",
    # Spark TIMESTAMP is TIMESTAMP_LTZ by default: an instant, i.e. Iceberg timestamptz.
    "TIMESTAMP_LTZ": "timestamptz",
    "TIMESTAMP_NTZ": "timestamp",
    "BINARY": "binary",
    "VOID": "unknown",
    "VARIANT": "variant",
}

#: Narrow integers widen to Iceberg int (tricky case 3): lossy on the way back.
_NARROW_INTS: Final = frozenset({"TINYINT", "BYTE", "SMALLINT", "SHORT"})
_DECIMALS: Final = frozenset({"DECIMAL", "DEC", "NUMERIC"})
_CHARS: Final = frozenset({"CHAR", "CHARACTER", "VARCHAR"})
_GEO: Final = frozenset({"GEOMETRY", "GEOGRAPHY"})


def _map_primitive(spec: _PrimitiveSpec, fail: Fail, warn: Warn) -> IcebergType:
    """One Spark primitive -> Iceberg; argument and suffix checks mirror Spark's own."""
    if spec.without_time_zone and spec.name != "TIMESTAMP":
        fail(SqlSyntaxError, f"WITHOUT TIME ZONE only follows TIMESTAMP, not {spec.name}")
    if spec.collation is not None and spec.name != "STRING":
        fail(SqlSyntaxError, f"COLLATE only follows STRING, not {spec.name}")
    if spec.name == "TIMESTAMP":
        _no_args(spec, fail)
        return PrimitiveType("timestamp" if spec.without_time_zone else "timestamptz")
    if spec.name == "STRING":
        return _map_string(spec, fail, warn)
    if spec.name in _EXACT:
        _no_args(spec, fail)
        return PrimitiveType(_EXACT[spec.name])
    if spec.name in _NARROW_INTS:
        _no_args(spec, fail)
        warn(f"Spark {spec.name} is stored as Iceberg int and comes back as INT (range lost)")
        return PrimitiveType("int")
    if spec.name in _DECIMALS:
        return _map_decimal(spec, fail)
    if spec.name in _CHARS:
        return _map_char(spec, fail, warn)
    if spec.name in _GEO:
        return _map_geo(spec, fail)
    if spec.name == "TIME":
        fail(
            UnsupportedError,
            f"Spark type {spec.spelled} has no Iceberg type here (Iceberg's Spark integration "
            "does not support TIME)",
        )
    fail(UnsupportedError, f"unknown or unsupported Spark type {spec.spelled}")


def _no_args(spec: _PrimitiveSpec, fail: Fail) -> None:
    if spec.args:
        fail(SqlSyntaxError, f"Spark type {spec.name} takes no arguments: {spec.spelled}")


def _int_args(spec: _PrimitiveSpec, fail: Fail, allowed: Sequence[int]) -> list[int]:
    args = spec.args or []
    if len(args) not in allowed or not all(str(a).isdigit() for a in args):
        counts = " or ".join(str(n) for n in allowed)
        fail(
            SqlSyntaxError,
            f"Spark type {spec.name} takes {counts} whole-number argument(s): {spec.spelled}",
        )
    return [int(str(a)) for a in args]


def _map_string(spec: _PrimitiveSpec, fail: Fail, warn: Warn) -> IcebergType:
    _no_args(spec, fail)
    if spec.collation is not None and spec.collation.text.upper() != "UTF8_BINARY":
        # UTF8_BINARY is Spark's default collation: nothing is lost by dropping it.
        warn(f"the collation of {spec.spelled} is lost: Iceberg string has none")
    return PrimitiveType("string")


def _map_decimal(spec: _PrimitiveSpec, fail: Fail) -> IcebergType:
    args = _int_args(spec, fail, (0, 1, 2))
    precision, scale = (*args, 0)[:2] if args else _SPARK_DEFAULT_DECIMAL
    try:
        return DecimalType(precision, scale)
    except TypeParseError as e:
        fail(UnsupportedError, f"{spec.spelled}: {e.message}")


def _map_char(spec: _PrimitiveSpec, fail: Fail, warn: Warn) -> IcebergType:
    if not spec.args:
        fail(SqlSyntaxError, f"Spark type {spec.name} needs a length, e.g. {spec.name}(10)")
    (length,) = _int_args(spec, fail, (1,))
    what = "fixed length and padding" if spec.name != "VARCHAR" else "length limit"
    warn(f"Spark {spec.spelled} is stored as Iceberg string: its {what} ({length}) is lost")
    return PrimitiveType("string")


def _map_geo(spec: _PrimitiveSpec, fail: Fail) -> IcebergType:
    """GEOMETRY(srid) / GEOGRAPHY(srid), as Spark 4.1 names their CRS.

    Spark maps SRID 4326 to OGC:CRS84 (Iceberg's default CRS, so no parameter), 0 to SRID:0 and
    any other SRID N to EPSG:N. ``ANY`` (mixed SRIDs in one column) has no Iceberg CRS. Spark
    geography is always spherical, Iceberg's default edge algorithm.
    """
    args = spec.args or []
    if len(args) != 1:
        fail(SqlSyntaxError, f"Spark type {spec.name} takes one SRID argument: {spec.spelled}")
    srid = str(args[0])
    if not srid.isdigit():
        fail(UnsupportedError, f"Spark type {spec.spelled} has no Iceberg type (no single CRS)")
    if spec.name == "GEOGRAPHY":
        if srid != _DEFAULT_SRID:
            fail(UnsupportedError, f"Spark supports only GEOGRAPHY(4326), not {spec.spelled}")
        return GeographyType()
    if srid == _DEFAULT_SRID:
        return GeometryType()
    return GeometryType("SRID:0" if srid == "0" else f"EPSG:{int(srid)}")


# ---------------------------------------------------------------------------------------------
# Iceberg type -> Spark type (for the emitter)

_TO_SPARK: Final = {
    "boolean": "BOOLEAN",
    "int": "INT",
    "long": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "date": "DATE",
    "timestamp": "TIMESTAMP_NTZ",
    "timestamptz": "TIMESTAMP",
    "string": "STRING",
    # Spark has no UUID type: Iceberg's Spark integration reads uuid as STRING (tricky case 5).
    "uuid": "STRING",
    "binary": "BINARY",
    "variant": "VARIANT",
    "unknown": "VOID",
}

_NO_SPARK_TYPE: Final = frozenset({"time", "timestamp_ns", "timestamptz_ns"})

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def iceberg_to_spark_type(t: IcebergType) -> str:
    """The Spark DDL spelling of an Iceberg type, as Iceberg's Spark integration maps it.

    ``time``, ``timestamp_ns`` and ``timestamptz_ns`` have no Spark type: UnsupportedError.
    """
    if isinstance(t, PrimitiveType):
        if t.name in _NO_SPARK_TYPE:
            raise UnsupportedError(f"Spark has no type for Iceberg {t.name}")
        return _TO_SPARK[t.name]
    if isinstance(t, DecimalType):
        return f"DECIMAL({t.precision},{t.scale})"
    if isinstance(t, FixedType):
        return "BINARY"  # the length is lost, as in Iceberg's Spark integration
    if isinstance(t, ListType):
        return f"ARRAY<{iceberg_to_spark_type(t.element)}>"
    if isinstance(t, MapType):
        return f"MAP<{iceberg_to_spark_type(t.key)}, {iceberg_to_spark_type(t.value)}>"
    if isinstance(t, StructType):
        return "STRUCT<" + ", ".join(_spark_field(f) for f in t.fields) + ">"
    if isinstance(t, GeometryType | GeographyType):
        return _spark_geo(t)
    raise UnsupportedError(f"Spark has no type for Iceberg {t}")  # pragma: no cover


def _spark_field(f: StructField) -> str:
    out = f"{_render_ident(f.name)}: {iceberg_to_spark_type(f.type)}"
    if f.doc is not None:
        out += " COMMENT " + spark_string_literal(f.doc)
    return out


def _spark_geo(t: GeometryType | GeographyType) -> str:
    """Only the CRSs Spark 4.1 can name map back (see :func:`_map_geo`)."""
    crs = (t.crs or "OGC:CRS84").upper()
    if isinstance(t, GeographyType):
        if crs in ("OGC:CRS84", "EPSG:4326") and (t.algorithm or "spherical") == "spherical":
            return f"GEOGRAPHY({_DEFAULT_SRID})"
        raise UnsupportedError(f"Spark has no type for Iceberg {t} (only GEOGRAPHY(4326))")
    if crs in ("OGC:CRS84", "EPSG:4326"):
        return f"GEOMETRY({_DEFAULT_SRID})"
    m = re.fullmatch(r"(?:EPSG|SRID):(\d+)", crs)
    if m is None:
        raise UnsupportedError(f"Spark has no type for Iceberg {t} (no SRID for that CRS)")
    return f"GEOMETRY({int(m.group(1))})"


def spark_string_literal(value: str) -> str:
    """A Spark single-quoted literal for ``value`` (backslash escapes, as Spark reads them)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


# ---------------------------------------------------------------------------------------------
# CREATE FUNCTION text (emission)


def render_create(spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
    """Spark's ``CREATE FUNCTION`` for ``spec``, in the form this front end reads back exactly.

    Spark refuses ``RETURNS NULL ON NULL INPUT`` on SQL functions, so a scalar function with
    ``on-null-input: return-null`` keeps its meaning through a guard around the body:
    ``RETURN CASE WHEN p1 IS NULL OR ... THEN NULL ELSE (body) END``. A table function with it
    is refused: returning no rows is not returning NULL.

    Reported as lossy: a uuid or fixed type (Spark reads them as STRING / BINARY).
    Refused (:class:`UnsupportedError`): a ``BEGIN ... END`` body, a name of more than three
    parts, a table function whose return type is not a struct, a type Spark has none for.
    """
    from translator.emit import Rendered

    if spec.body_kind == "compound":
        raise UnsupportedError(
            f"{spec.label} has a BEGIN ... END body: Spark SQL functions take RETURN"
        )
    if len(spec.name) not in DIALECT.name_parts:
        raise UnsupportedNameError(
            f"{'.'.join(spec.name)}: Spark names a function with 1 to 3 parts"
        )
    lossy: list[str] = []
    params = ", ".join(
        _render_column(name, tp, doc, f"parameter {name}", lossy)
        for name, tp, doc in spec.parameters
    )
    lines = [
        f"CREATE {'OR REPLACE ' if or_replace else ''}FUNCTION "
        f"{'.'.join(_render_function_name(p) for p in spec.name)}({params})",
        "  RETURNS " + _render_returns(spec, lossy),
    ]
    if spec.doc is not None:
        lines.append("  COMMENT " + spark_string_literal(spec.doc))
    lines.append("  DETERMINISTIC" if spec.deterministic else "  NOT DETERMINISTIC")
    body = spec.body
    if spec.on_null_input == "return-null" and spec.parameters:
        if spec.kind == "udtf":
            raise UnsupportedError(
                f"{spec.label} is a table function that returns null on null input: Spark has no "
                "RETURNS NULL ON NULL INPUT and no faithful rewrite for a table"
            )
        guard = " OR ".join(f"{_render_ident(n)} IS NULL" for n, _, _ in spec.parameters)
        body = f"CASE WHEN {guard} THEN NULL ELSE ({body}) END"
    lines.append(f"  RETURN {body}")
    return Rendered("\n".join(lines), tuple(lossy))


def _render_returns(spec: RoutineSpec, lossy: list[str]) -> str:
    if spec.kind == "udf":
        return _render_type(spec.return_type, "the return type", lossy)
    if not isinstance(spec.return_type, StructType) or not spec.return_type.fields:
        raise UnsupportedError(f"{spec.label} is a table function without result columns")
    columns = ", ".join(
        _render_column(f.name, f.type, f.doc, f"result column {f.name}", lossy)
        for f in spec.return_type.fields
    )
    return f"TABLE ({columns})"


def _render_column(
    name: str, tp: IcebergType, doc: str | None, where: str, lossy: list[str]
) -> str:
    out = f"{_render_ident(name)} {_render_type(tp, where, lossy)}"
    if doc is not None and "\\" in doc:
        # Spark stores parameter and column comments as DDL text and re-reads it without its
        # escapes: backslashes vanish, and one before a quote corrupts the catalog entry.
        lossy.append(f"{where}: its doc holds a backslash, which Spark cannot keep; left out")
        return out
    return out if doc is None else f"{out} COMMENT {spark_string_literal(doc)}"


def _render_type(tp: IcebergType, where: str, lossy: list[str]) -> str:
    """The Spark type, noting where Iceberg says more than Spark can (uuid, fixed[L])."""
    try:
        spelled = iceberg_to_spark_type(tp)
    except UnsupportedError as e:
        raise UnsupportedError(f"{where}: {e.message}") from None
    for inner in _walk(tp):
        if inner == PrimitiveType("uuid"):
            lossy.append(f"{where}: Iceberg uuid becomes Spark STRING")
        elif isinstance(inner, FixedType):
            lossy.append(f"{where}: Iceberg {inner} becomes Spark BINARY, which has no length")
    return spelled


def _walk(tp: IcebergType) -> list[IcebergType]:
    if isinstance(tp, ListType):
        return [tp, *_walk(tp.element)]
    if isinstance(tp, MapType):
        return [tp, *_walk(tp.key), *_walk(tp.value)]
    if isinstance(tp, StructType):
        return [tp, *(x for f in tp.fields for x in _walk(f.type))]
    return [tp]


_LOWER_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")


def _render_function_name(part: str) -> str:
    """Bare only when reading it back gives the same part (unquoted names are lower-cased)."""
    if _LOWER_NAME.match(part) and part != "identifier":
        return part
    return "`" + part.replace("`", "``") + "`"


def _render_ident(name: str) -> str:
    return name if _PLAIN_NAME.match(name) else "`" + name.replace("`", "``") + "`"


# ---------------------------------------------------------------------------------------------
# Lexical helpers

_ESCAPES: Final = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}
_ESCAPE_RE = re.compile(r"\\(u[0-9A-Fa-f]{4}|[0-3][0-7]{2}|.)|('')|(\"\")", re.DOTALL)


def _unquote(literal: str) -> str:
    """The value of a Spark string literal: ``'it\\'s'``, ``'it''s'``, ``"a"``, raw ``r'\\d'``."""
    if literal[:1] in "rR":
        return literal[2:-1]
    quote, inner = literal[0], literal[1:-1]
    return _ESCAPE_RE.sub(lambda m: _unescape_one(m, quote), inner)


def _unescape_one(m: re.Match[str], quote: str) -> str:
    """Spark's unescapeSQLString for one escape: unknown escapes stand for the character."""
    code = m.group(1)
    if code is None:  # a doubled quote: one quote if it is this literal's quote character
        doubled = m.group(0)
        return quote if doubled[0] == quote else doubled
    if code.startswith("u") and len(code) == 5:
        return chr(int(code[1:], 16))
    if len(code) == 3 and code.isdigit():
        return chr(int(code, 8))
    if code in "%_":
        return "\\" + code  # kept with the backslash: they are LIKE-pattern escapes
    return _ESCAPES.get(code, code)


_NAME_PART = re.compile(r"\s*(?:`((?:[^`]|``)+)`|([^\W\d]\w*))\s*")


def _split_name(value: str, offset: int, end: int) -> tuple[_Name, ...] | None:
    """``db.`Fn`` -> parts, as ``IDENTIFIER('...')`` reads its string; None if malformed."""
    parts: list[_Name] = []
    pos = 0
    while True:
        m = _NAME_PART.match(value, pos)
        if m is None:
            return None
        quoted = m.group(1) is not None
        text = m.group(1).replace("``", "`") if quoted else m.group(2)
        parts.append(_Name(text, quoted, offset, end))
        pos = m.end()
        if pos == len(value):
            return tuple(parts)
        if value[pos] != ".":
            return None
        pos += 1


def _squash(text: str) -> str:
    """A type as written, on one line (for messages)."""
    return " ".join(text.split())
