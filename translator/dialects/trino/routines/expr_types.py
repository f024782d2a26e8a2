"""Trino's types of expressions, as far as they can be derived without Trino's catalog.

Types are sqlglot ``DataType`` values built from Trino spellings. :func:`type_of` derives the
Trino type of a sqlglot expression parsed in the Trino dialect, given the types of the names in
scope; it answers None where it cannot tell (an unknown function, a lambda's variable). Every
check and rewrite that depends on a type does nothing, or refuses, on None: a guess is never
taken for a type.

:func:`can_coerce` and :func:`common_super_type` follow Trino's implicit coercions
(``TypeCoercion``) for the types derived here: integers go to other integers (narrowing is left
to Trino: its docs assign integer literals to tinyint variables), decimals, real and double;
decimals to real and double; ``varchar(n)`` to any ``varchar(m)`` with ``m >= n`` (an unbounded
``varchar``, often a function result of unknown length, is not judged); ``unknown``
(NULL) to anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from sqlglot import exp
from sqlglot.errors import SqlglotError

from translator.dialects import get_dialect
from translator.dialects.trino.routines.type_text import composite
from translator.sqlglot_dialects import SPARK, TRINO, write
from translator.sqltrees import ByClass, copy_tree

__all__ = [
    "INTEGER_TYPES",
    "can_coerce",
    "common_super_type",
    "display",
    "parse_type",
    "spark_type",
    "type_of",
]

T = exp.DataType.Type

#: Trino's exact integer types, narrowest first.
INTEGER_TYPES = (T.TINYINT, T.SMALLINT, T.INT, T.BIGINT)
_INTEGER_DIGITS = {T.TINYINT: 3, T.SMALLINT: 5, T.INT: 10, T.BIGINT: 19}
_NUMERIC = (*INTEGER_TYPES, T.DECIMAL, T.FLOAT, T.DOUBLE)
_TEXT = (T.VARCHAR, T.CHAR)
#: The scalar types whose coercions this module judges; a type outside them (nested, temporal)
#: is taken as coercible.
_JUDGED = (*_NUMERIC, *_TEXT, T.BOOLEAN)
#: What a text value does not coerce to.
_NOT_FROM_TEXT = (*_NUMERIC, T.BOOLEAN)


@lru_cache(maxsize=4096)  # keyed by what a script says: bounded
def parse_type(text: str) -> exp.DataType:
    """A Trino type as written (``varchar(4)``, ``row(a int)``) as a sqlglot type.

    A nested type spelled as the type writer spells it is put together from its parts' types
    (:mod:`.type_text`), each read by sqlglot once, as sqlglot's own reading of the whole would
    put them together: most row types are seen once, their parts many times."""
    composed = _composed(text)
    return composed if composed is not None else exp.DataType.build(text, dialect=TRINO)


def _composed(text: str) -> exp.DataType | None:
    parts = composite(text)
    if parts is None:
        return None
    head, items = parts
    children = []
    for _, t in items:
        child = _composed(t) if composite(t) is not None else _part(t)
        if child is None:
            return None  # the whole text is read by sqlglot: its reading, its error
        children.append(child)
    if head != "row":
        dtype = T.ARRAY if head == "array" else T.MAP
        return exp.DataType(this=dtype, expressions=children, nested=True)
    fields = []
    for (name, _), kind in zip(items, children, strict=True):
        field = _row_field(name)
        if field is None:
            return None
        field.set("kind", kind)
        fields.append(field)
    return exp.DataType(this=T.STRUCT, expressions=fields, nested=True)


def _part(text: str) -> exp.DataType | None:
    """A fresh copy of the type ``text`` as sqlglot reads it inside a nested type (alone, it
    may read a little differently: ``unknown`` has no ``nested`` flag there)."""
    part = _part_read(text)
    return None if part is None else copy_tree(part)


@lru_cache(maxsize=4096)  # keyed by what a script says: bounded
def _part_read(text: str) -> exp.DataType | None:
    part = _only_child(f"array({text})", T.ARRAY)
    return part if isinstance(part, exp.DataType) else None


def _row_field(name: str) -> exp.ColumnDef | None:
    """A fresh copy of the field ``name`` as sqlglot reads it in a row type, its ``kind`` to be
    set by the caller (None where that reading is not one plain field)."""
    field = _row_field_read(name)
    return None if field is None else copy_tree(field)


@lru_cache(maxsize=4096)  # keyed by what a script says: bounded
def _row_field_read(name: str) -> exp.ColumnDef | None:
    field = _only_child(f"row({name} integer)", T.STRUCT)
    if not isinstance(field, exp.ColumnDef) or field.args.get("kind") != parse_type("integer"):
        return None
    # The kind every copy has replaced is not copied: its place is kept (a None argument is
    # copied as it is), so that the arguments keep sqlglot's order once the caller sets it.
    field.args["kind"] = None
    return field


def _only_child(text: str, container: object) -> exp.Expression | None:
    """The only child of ``text`` read by sqlglot as a ``container`` type with one child; None
    for any other reading. (``container`` is a ``DataType.Type``, which mypy does not accept as
    an annotation.)"""
    try:
        t = exp.DataType.build(text, dialect=TRINO)
    except (SqlglotError, ValueError):
        return None
    if t.this != container or len(t.expressions) != 1:
        return None
    child: exp.Expression = t.expressions[0]
    return child


def display(t: exp.DataType) -> str:
    """The type as Trino's messages write it: ``integer``, ``varchar(4)``, ``decimal(3,1)``."""
    text: str = copy_tree(t).sql(dialect=TRINO, copy=False)  # our copy: half sqlglot's cost
    return text.lower().replace(", ", ",")


def spark_type(t: exp.DataType) -> str:
    """The Spark type a lowered variable of Trino type ``t`` is kept in.

    ``varchar(n)`` and ``char(n)`` become ``STRING``: Trino checks lengths when it analyzes the
    routine, so a value in a variable already fits, and Spark would only add its own checks.
    """
    copy: exp.DataType = copy_tree(t)
    for node in copy.find_all(exp.DataType):
        if node.this in _TEXT:
            node.set("this", T.TEXT)
            node.set("expressions", [])
    return write(copy, SPARK, get_dialect("spark").body_writer)


def _length(t: exp.DataType) -> int | None:
    params = t.expressions
    if not params:
        return None
    try:
        return int(params[0].name)
    except ValueError:
        return None


def _decimal(t: exp.DataType) -> tuple[int, int]:
    if t.this in _INTEGER_DIGITS:
        return _INTEGER_DIGITS[t.this], 0
    params = [int(p.name) for p in t.expressions if p.name.isdigit()]
    if not params:
        return 38, 0
    return params[0], params[1] if len(params) > 1 else 0


def can_coerce(source: exp.DataType, target: exp.DataType) -> bool:
    """Whether Trino coerces a value of ``source`` to ``target`` implicitly.

    Only for the types this module derives; anything else (nested types, dates) counts as
    coercible, so that no check rejects what Trino might accept.
    """
    s, t = source.this, target.this
    if s == T.UNKNOWN or source == target:
        return True
    if s in INTEGER_TYPES:
        if t in INTEGER_TYPES:
            # Narrowing is not judged: Trino's docs assign integer literals to tinyint
            # variables (DECLARE a tinyint DEFAULT 6), so a literal may narrow.
            return True
        # Any decimal: whether a small integer fits a narrow decimal is left to Trino.
        return t in (T.DECIMAL, T.FLOAT, T.DOUBLE) or t not in _JUDGED
    if s == T.DECIMAL:
        if t == T.DECIMAL:
            (p1, s1), (p2, s2) = _decimal(source), _decimal(target)
            return s2 >= s1 and p2 - s2 >= p1 - s1
        return t in (T.FLOAT, T.DOUBLE) or t not in _JUDGED
    if s == T.FLOAT:
        return t in (T.FLOAT, T.DOUBLE) or t not in _JUDGED
    if s in (T.DOUBLE, T.BOOLEAN):
        return t == s or t not in _JUDGED
    if s in _TEXT:
        if t in _TEXT:
            # Only a known length is judged: the lengths of function results (upper(s) keeps
            # s's) are not derived here, so an unbounded varchar may be a short one.
            have, want = _length(source), _length(target)
            return want is None or have is None or have <= want
        return t not in _NOT_FROM_TEXT
    return True


def common_super_type(a: exp.DataType, b: exp.DataType) -> exp.DataType | None:
    """The type both coerce to, or None when Trino has none (``integer`` and ``varchar``)."""
    if can_coerce(a, b):
        return b
    if can_coerce(b, a):
        return a
    if a.this in _NUMERIC and b.this in _NUMERIC:
        return parse_type("double")
    if a.this in _TEXT and b.this in _TEXT:
        return parse_type("varchar")
    if a.this in _JUDGED and b.this in _JUDGED:
        return None
    return a  # nested or temporal types: not judged here


def _numeric_result(a: exp.DataType | None, b: exp.DataType | None) -> exp.DataType | None:
    """The type of ``a + b`` (and -, *, /, %) in Trino, for the numeric types derived here."""
    if a is None or b is None:
        return None
    if a.this == T.UNKNOWN:
        return b
    if b.this == T.UNKNOWN:
        return a
    if a.this in INTEGER_TYPES and b.this in INTEGER_TYPES:
        return a if INTEGER_TYPES.index(a.this) >= INTEGER_TYPES.index(b.this) else b
    kinds = {a.this, b.this}
    if not kinds <= set(_NUMERIC):
        return None
    if T.DOUBLE in kinds:
        return parse_type("double")
    if T.FLOAT in kinds:
        return parse_type("real")
    return None  # decimal arithmetic: precision rules not modelled


def _literal(node: exp.Literal) -> exp.DataType:
    text = node.this
    if node.is_string:
        return parse_type(f"varchar({len(text)})") if text else parse_type("varchar(0)")
    if "e" in text.lower():
        return parse_type("double")
    if "." in text:
        whole, _, frac = text.partition(".")
        digits = len(whole.lstrip("0")) + len(frac)
        return parse_type(f"decimal({max(digits, 1)},{len(frac)})")
    value = int(text)
    return parse_type("integer" if -(2**31) <= value < 2**31 else "bigint")


#: Functions whose Trino result type does not depend on their arguments.
_FIXED: dict[type[exp.Expr], str] = {
    exp.Rand: "double",
    exp.Length: "bigint",
    exp.ArraySize: "bigint",
    exp.DayOfWeekIso: "bigint",
    exp.DayOfWeek: "bigint",
    exp.DayOfMonth: "bigint",
    exp.DayOfYear: "bigint",
    exp.Year: "bigint",
    exp.Month: "bigint",
    exp.Format: "varchar",
    exp.Substring: "varchar",
    exp.Upper: "varchar",
    exp.Lower: "varchar",
    exp.Trim: "varchar",
    exp.Concat: "varchar",
    exp.DPipe: "varchar",
    exp.ArrayToString: "varchar",
    exp.RegexpLike: "boolean",
    exp.Uuid: "uuid",
    exp.Sqrt: "double",
    exp.Pow: "double",
    exp.Ln: "double",
    exp.Exp: "double",
}
_BOOLEAN = (
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.And, exp.Or, exp.Not, exp.Is,
    exp.In, exp.Like, exp.ILike, exp.Between, exp.Exists, exp.Boolean, exp.NullSafeEQ,
    exp.NullSafeNEQ,
)  # fmt: skip
#: Functions whose result has the type of their first argument.
_SAME_AS_ARGUMENT = (exp.Abs, exp.Ceil, exp.Floor, exp.Neg, exp.Paren, exp.Round, exp.Sign)


def type_of(node: exp.Expr, scope: Mapping[str, exp.DataType]) -> exp.DataType | None:
    """The Trino type of ``node``; ``scope`` holds the names in scope (lower case).

    The node's class is asked once (:data:`_KINDS`), not a chain of ``isinstance`` tests; the
    recursion is as deep as that chain's was (a body too deep for it fails alike)."""
    kind = _KINDS[type(node)]
    if kind is _LITERAL:
        return _literal(node)  # type: ignore[arg-type]
    if kind is _COLUMN:
        if not node.table:  # type: ignore[attr-defined]
            return scope.get(node.name.lower())
        base = scope.get(node.table.lower())  # type: ignore[attr-defined]
        return _field(base, node.name) if base is not None and not node.args.get("db") else None
    if kind is _ARITHMETIC:
        return _numeric_result(type_of(node.this, scope), type_of(node.expression, scope))
    if kind is _BRANCHES:
        return _branches(node, scope)
    if kind is _SAME:
        return type_of(node.this, scope)
    if kind is _CAST:
        to = node.args.get("to")
        return to if isinstance(to, exp.DataType) else None
    if kind is _DOT:
        return _field(type_of(node.this, scope), node.name)
    if kind is _ARRAY:
        elements = [type_of(e, scope) for e in node.expressions]
        if elements and all(e is not None for e in elements):
            return exp.DataType(this=T.ARRAY, expressions=[elements[0]], nested=True)
        return None
    if kind is _BRACKET:
        return _subscript(node, scope)  # type: ignore[arg-type]
    if kind is _ARRAY_OF_UNKNOWN:  # an array; its element type is not derived
        return exp.DataType(this=T.ARRAY, expressions=[parse_type("unknown")], nested=True)
    if kind is None:
        return None
    return parse_type(kind)  # a type name: the node's type does not depend on its arguments


_ARRAY_RESULT = (
    exp.Transform, exp.ArrayFilter, exp.ArraySort, exp.Split,
    exp.ArrayDistinct,
)  # fmt: skip


def _field(base: exp.DataType | None, name: str) -> exp.DataType | None:
    if base is None or base.this != T.STRUCT:
        return None
    for f in base.expressions:
        if isinstance(f, exp.ColumnDef) and f.name.lower() == name.lower():
            kind = f.args.get("kind")
            return kind if isinstance(kind, exp.DataType) else None
    return None


def _branches(node: exp.Expr, scope: Mapping[str, exp.DataType]) -> exp.DataType | None:
    values: list[exp.Expr] = []
    if isinstance(node, exp.Case):
        values = [i.args["true"] for i in node.args.get("ifs") or []]
    else:
        values = [node.args["true"]]
    if node.args.get("default") is not None:
        values.append(node.args["default"])
    result: exp.DataType | None = None
    for v in values:
        t = type_of(v, scope)
        if t is None:
            return None
        if t.this == T.UNKNOWN:
            continue
        result = t if result is None else common_super_type(result, t)
        if result is None:
            return None
    return result or parse_type("unknown")


def _subscript(node: exp.Bracket, scope: Mapping[str, exp.DataType]) -> exp.DataType | None:
    base = type_of(node.this, scope)
    if base is None:
        return None
    if base.this == T.ARRAY and base.expressions:
        element = base.expressions[0]
        return element if isinstance(element, exp.DataType) else None
    if base.this == T.MAP and len(base.expressions) == 2:
        value = base.expressions[1]
        return value if isinstance(value, exp.DataType) else None
    return None


#: :func:`type_of`'s kinds of nodes (unique objects, compared by identity); a kind that is a
#: type name (``"boolean"``) is the type of every node of the class.
_LITERAL, _COLUMN, _ARITHMETIC, _BRANCHES, _SAME, _CAST, _DOT, _ARRAY, _BRACKET = (
    object() for _ in range(9)
)
_ARRAY_OF_UNKNOWN = object()


def _kind(cls: type) -> object:
    """The kind of the nodes of class ``cls``: the first of these tests that the class passes,
    in the order :func:`type_of` once asked them of every node."""
    if issubclass(cls, exp.Literal):
        return _LITERAL
    if issubclass(cls, exp.Null):
        return "unknown"
    if issubclass(cls, _BOOLEAN):
        return "boolean"
    if issubclass(cls, exp.Column):
        return _COLUMN
    if issubclass(cls, exp.Dot):
        return _DOT
    if issubclass(cls, exp.Cast | exp.TryCast):
        return _CAST
    if issubclass(cls, exp.Add | exp.Sub | exp.Mul | exp.Div | exp.Mod):
        return _ARITHMETIC
    if issubclass(cls, _SAME_AS_ARGUMENT):
        return _SAME
    if issubclass(cls, exp.Case | exp.If):
        return _BRANCHES
    for fixed, name in _FIXED.items():
        if issubclass(cls, fixed):
            return name
    if issubclass(cls, exp.Array):
        return _ARRAY
    if issubclass(cls, exp.Bracket):
        return _BRACKET
    if issubclass(cls, _ARRAY_RESULT):
        return _ARRAY_OF_UNKNOWN
    return None


_KINDS: ByClass[object] = ByClass(_kind)
