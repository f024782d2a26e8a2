"""What a Trino expression means, written so that Spark computes the same thing.

sqlglot transpiles Trino to Spark text that parses, but not always to the same meaning: a
subscript with a computed index stays 0-based in Spark where Trino's is 1-based, ``bigint /
bigint`` truncates in Trino and gives a double in Spark, ``day_of_week`` becomes an expression
that is off by one... :func:`rewrite` walks the sqlglot tree of a Trino expression, derives the
Trino types of its parts (:mod:`.expr_types`), and replaces each construct whose meaning differs
by one that sqlglot's Spark generator writes with Trino's meaning. Where the types needed to
choose are unknown, or Spark has no equivalent, it raises :class:`Refused` with the reason: the
body then has no Spark form, which is better than one that computes something else.

The differences handled (each tested on a real Spark in ``tests/test_trino_meaning_spark.py``):

================================  =============================  ==============================
Trino                             Trino's meaning                Spark written
================================  =============================  ==============================
``a[i]`` on an array              1-based; out of range: error   ``a[i - 1]``
``m[k]`` on a map                 missing key: error             ``m[k]``, else ``raise_error``
``r[i]`` on a row                 field ``i`` (1-based)          ``r.<name of field i>``
``element_at(a, i)``              NULL when out of range         ``try_element_at(a, int)``
``x / y`` on integers             truncates toward zero          ``CAST(x DIV y AS type)``
``day_of_week(d)``, ``dow(d)``    ISO: Monday 1 .. Sunday 7      ``weekday(d) + 1``
``truncate(x)``, double / real    toward zero, any magnitude     ``x - x % 1`` (guarded)
``CAST(x AS DECIMAL)``            decimal(38,0)                  ``DECIMAL(38,0)``
``DECIMAL '10.5'``                decimal(3,1)                   ``CAST('10.5' AS DECIMAL(3,1))``
================================  =============================  ==============================

Refused: ``AT TIME ZONE`` (Spark has no timestamp with a time zone), a subscript or
``element_at`` on a value whose type is unknown, division where an
operand's type is unknown or decimal (Trino and Spark round decimal quotients differently),
``truncate`` of a decimal, of an unknown type or with a scale.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp

from translator.dialects.trino.routines.expr_types import INTEGER_TYPES, type_of
from translator.rebuild import Reduced, by_init
from translator.sqlglot_dialects import GENERIC, TRINO
from translator.sqltrees import ByClass, column_name, copy_tree, depth_first, has_no_table

__all__ = ["Refused", "Rewritten", "rewrite", "rewritten"]

T = exp.DataType.Type


class Refused(Exception):
    """The expression has no Spark form with Trino's meaning; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def rewrite(
    node: exp.Expr, scope: Mapping[str, exp.DataType], *, private: bool = False
) -> exp.Expr:
    """A copy of ``node`` (parsed as Trino) that sqlglot writes as Spark with Trino's meaning.

    ``scope`` holds the Trino types of the names in scope (parameters, variables), lower case;
    ``private``: ``node`` is the caller's to give up, and is rewritten itself, not a copy.
    """
    return rewritten(node, scope, private=private).tree


@dataclass(frozen=True, slots=True)
class Rewritten:
    """:func:`rewrite`'s tree, and what its walk found on the way, so that a caller does not
    walk the same nodes again.

    ``names``: the names (lower case) of the columns without a table part in the tree given,
    as it was before anything was rewritten (what
    :func:`translator.bodies.parameter_references` reads of it). ``calls``: the calls sqlglot
    does not know (``Anonymous``) in ``tree``, depth first, where no construct was replaced
    (the walk's nodes are then the result's); None where one was, and the result holds nodes
    the walk did not see. ``nodes``: every node of ``tree`` (the walk's list), where none was
    replaced; else None."""

    tree: exp.Expr
    names: frozenset[str]
    calls: tuple[exp.Anonymous, ...] | None
    nodes: list[exp.Expr] | None = None

    def __reduce__(self) -> Reduced:
        return by_init(self)


def rewritten(
    node: exp.Expr, scope: Mapping[str, exp.DataType], *, private: bool = False
) -> Rewritten:
    """:func:`rewrite`, with what its walk found (:class:`Rewritten`)."""
    tree: exp.Expr = node if private else copy_tree(node)
    nodes = depth_first(tree)
    kinds = _KINDS
    marked = [n for n in nodes if kinds[type(n)]]  # most nodes are none of these
    handled = [n for n in marked if kinds[type(n)] == _HANDLED_KIND]
    names = frozenset(
        column_name(n).lower() for n in marked if kinds[type(n)] == _COLUMN_KIND and has_no_table(n)
    )
    # Types are derived before anything is replaced: they are Trino's, of the Trino tree.
    types: dict[int, exp.DataType | None] = {}
    try:
        for n in _needing_types(handled):
            types[id(n)] = type_of(n, scope)
    except RecursionError:
        raise Refused("the expression nests too deeply") from None
    replaced = False
    for n in reversed(handled):  # children before parents
        replacement = _rewrite_one(n, types)
        if replacement is not None:
            replaced = True
            types[id(replacement)] = types.get(id(n))
            if n is tree:
                tree = replacement
            else:
                n.replace(replacement)
    if replaced:
        return Rewritten(tree, names, None)
    calls = tuple(n for n in marked if kinds[type(n)] == _CALL_KIND)
    return Rewritten(tree, names, calls, nodes)  # type: ignore[arg-type]  # the class was asked


#: The constructs :func:`_rewrite_one` rewrites (it leaves every other node as it is).
_HANDLED = (
    exp.Bracket, exp.Div, exp.DayOfWeekIso, exp.DayOfWeek, exp.Trunc, exp.AtTimeZone, exp.Cast,
    exp.TryCast,
)  # fmt: skip
#: What :func:`rewritten`'s walk keeps of a node, by its class (one look-up a node instead of
#: a test per class): a construct it rewrites, a call sqlglot does not know, a column; else 0.
_HANDLED_KIND, _CALL_KIND, _COLUMN_KIND = 1, 2, 3
_KINDS: ByClass[int] = ByClass(
    lambda cls: (
        _HANDLED_KIND
        if issubclass(cls, _HANDLED)
        else _CALL_KIND
        if issubclass(cls, exp.Anonymous)
        else _COLUMN_KIND
        if issubclass(cls, exp.Column)
        else 0
    )
)


def _needing_types(handled: Sequence[exp.Expr]) -> list[exp.Expr]:
    """The nodes whose types a rewrite of ``handled`` may ask for: the operands of subscripts,
    divisions and truncates, and the subscripts and divisions themselves (a nested one is an
    operand)."""
    out: list[exp.Expr] = []
    for n in handled:
        if isinstance(n, exp.Div | exp.Bracket):
            out.append(n)
        if isinstance(n, exp.Div | exp.Bracket | exp.Trunc):
            out.extend(n.iter_expressions())
    return out


def _text(n: exp.Expr) -> str:
    text: str = copy_tree(n).sql(dialect=TRINO, copy=False)  # our copy: half sqlglot's cost
    return text


#: The nodes that stand as one term where an operand goes (a CASE, though a Func, does not).
#: A tuple named once: a local union of classes (``atomic = A | B``) is a type alias to mypy, and
#: mypyc compiles no assignment for it, so the compiled module would read it as unbound.
_ATOMIC = (exp.Column, exp.Literal, exp.Paren, exp.Func, exp.Identifier, exp.Dot, exp.Bracket)


def _paren(n: exp.Expr) -> exp.Expr:
    return n if isinstance(n, _ATOMIC) and not isinstance(n, exp.Case) else exp.Paren(this=n)


def _call(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _rewrite_one(n: exp.Expr, types: Mapping[int, exp.DataType | None]) -> exp.Expr | None:
    if isinstance(n, exp.Bracket):
        return _subscript(n, types)
    if isinstance(n, exp.Div):
        return _divide(n, types)
    if isinstance(n, exp.DayOfWeekIso | exp.DayOfWeek):
        return exp.Paren(
            this=exp.Add(this=_call("weekday", n.this), expression=exp.Literal.number(1))
        )
    if isinstance(n, exp.Trunc):
        return _truncate(n, types)
    if isinstance(n, exp.AtTimeZone):
        raise Refused(
            f"{_text(n)}: Trino's AT TIME ZONE gives a timestamp with time zone, which Spark "
            "does not have"
        )
    if isinstance(n, exp.Cast | exp.TryCast):
        to = n.args.get("to")
        if isinstance(to, exp.DataType) and to.this == T.DECIMAL and not to.expressions:
            # Trino's bare DECIMAL is decimal(38,0); Spark's is decimal(10,0).
            n.set("to", exp.DataType.build("DECIMAL(38, 0)", dialect=GENERIC))
    return None


def _subscript(n: exp.Bracket, types: Mapping[int, exp.DataType | None]) -> exp.Expr:
    base, index = n.this, n.expressions[0] if len(n.expressions) == 1 else None
    if index is None:
        raise Refused(f"{_text(n)}: a subscript takes one index")
    base_type = types.get(id(base))
    kind = base_type.this if base_type is not None else None
    if isinstance(base, exp.Array):
        kind = T.ARRAY
    if isinstance(base, exp.Struct):
        kind = T.STRUCT
    if n.args.get("safe"):  # element_at(...)
        if kind == T.ARRAY:
            index_type = types.get(id(index))
            if index_type is None or index_type.this not in INTEGER_TYPES:
                raise Refused(f"{_text(n)}: the index's type is unknown")
            if index_type.this == T.BIGINT:  # Spark's element_at takes an int index
                index = exp.Cast(this=index, to=exp.DataType.build("INT", dialect=GENERIC))
            return _call("try_element_at", base, index)
        if kind == T.MAP:
            return _call("element_at", base, index)
        raise Refused(f"{_text(n)}: cannot tell whether element_at is applied to an array or a map")
    if kind == T.ARRAY:
        if isinstance(index, exp.Literal) and index.is_int:
            shifted: exp.Expr = exp.Literal.number(int(index.this) - 1)
        else:
            shifted = exp.Sub(this=_paren(index), expression=exp.Literal.number(1))
        return exp.Bracket(this=base, expressions=[shifted], offset=0)
    if kind == T.MAP:
        missing = exp.Not(this=_call("map_contains_key", base.copy(), index.copy()))
        error = _call("raise_error", exp.Literal.string("Key not present in map"))
        found = exp.Bracket(this=base, expressions=[index], offset=0)
        return exp.Case(ifs=[exp.If(this=missing, true=error)], default=found)
    if kind == T.STRUCT:
        return _row_field(n, base, index, base_type)
    raise Refused(
        f"{_text(n)}: cannot tell whether {_text(base)} is an array, a map or a row (Trino and "
        "Spark index them differently)"
    )


def _row_field(
    n: exp.Bracket, base: exp.Expr, index: exp.Expr, base_type: exp.DataType | None
) -> exp.Expr:
    if not (isinstance(index, exp.Literal) and index.is_int):
        raise Refused(f"{_text(n)}: a row field is taken by a constant position")
    position = int(index.this)
    if isinstance(base, exp.Struct):
        names = [None for _ in base.expressions]
        if not 1 <= position <= len(names):
            raise Refused(f"{_text(n)}: the row has no field {position}")
        # Spark names the fields of struct(a, b, ...) col1, col2, ...
        return exp.Dot(this=exp.Paren(this=base), expression=exp.to_identifier(f"col{position}"))
    fields = [
        f for f in (base_type.expressions if base_type else []) if isinstance(f, exp.ColumnDef)
    ]
    if not 1 <= position <= len(fields):
        raise Refused(f"{_text(n)}: the row has no field {position}")
    return exp.Dot(this=_paren(base), expression=exp.to_identifier(fields[position - 1].name))


def _divide(n: exp.Div, types: Mapping[int, exp.DataType | None]) -> exp.Expr | None:
    left, right = types.get(id(n.this)), types.get(id(n.expression))
    if left is None or right is None:
        raise Refused(
            f"{_text(n)}: cannot tell whether it divides integers (Trino truncates) or not"
        )
    kinds = {left.this, right.this} - {T.UNKNOWN}
    if kinds and kinds <= set(INTEGER_TYPES):
        result = _wider(left, right)
        quotient = exp.IntDiv(this=_paren(n.this), expression=_paren(n.expression))
        return exp.Cast(this=quotient, to=result.copy())  # a type may be shared (cached)
    if kinds & {T.DOUBLE, T.FLOAT}:
        return None
    raise Refused(
        f"{_text(n)}: decimal division rounds differently in Trino and Spark (the result scale)"
    )


def _wider(a: exp.DataType, b: exp.DataType) -> exp.DataType:
    if a.this not in INTEGER_TYPES:
        return b
    if b.this not in INTEGER_TYPES:
        return a
    return a if INTEGER_TYPES.index(a.this) >= INTEGER_TYPES.index(b.this) else b


#: From these magnitudes on, every double (real) is a whole number: truncate returns it as is.
_WHOLE_FROM = {T.DOUBLE: "4503599627370496D", T.FLOAT: "8388608"}


def _truncate(n: exp.Trunc, types: Mapping[int, exp.DataType | None]) -> exp.Expr:
    if n.args.get("decimals") is not None:
        raise Refused(f"{_text(n)}: truncate to a number of digits is not translated")
    arg_type = types.get(id(n.this))
    kind = arg_type.this if arg_type is not None else None
    if kind in INTEGER_TYPES:
        whole: exp.Expr = n.this
        return whole
    if kind in _WHOLE_FROM:
        x = _paren(n.this)
        whole = exp.GTE(
            this=_call("abs", x.copy()), expression=exp.Literal.number(_WHOLE_FROM[kind])
        )
        fraction = exp.Mod(this=x.copy(), expression=exp.Literal.number(1))
        return exp.Case(
            ifs=[exp.If(this=whole, true=x.copy())],
            default=exp.Sub(this=x.copy(), expression=exp.Paren(this=fraction)),
        )
    raise Refused(f"{_text(n)}: truncate of {'an unknown type' if kind is None else kind.value}")
