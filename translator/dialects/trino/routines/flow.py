"""The pieces the lowering of statements is made of (see :mod:`.lowering` for the approach).

A :class:`Frame` is the variables' current values; a continuation (:data:`Continuation`) lowers
what follows a statement; :class:`Exits` says what RETURN, LEAVE and ITERATE become where they
occur; :class:`Lowerer` is what :mod:`.loops` needs of the lowering. The helpers build the Spark
expressions (calls, CASE, a let) as sqlglot trees.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlglot import exp

from translator.dialects import get_dialect
from translator.dialects.trino.routines import syntax as s
from translator.rebuild import Reduced, by_init
from translator.sqlglot_dialects import SPARK, write
from translator.sqltrees import copy_tree

#: Iterations a loop without a derivable bound may run in Spark before the call fails.
UNBOUNDED_CAP = 10_000
#: Iterations a loop with a derived bound may run (its sequence is built in memory).
DERIVED_CAP = 1_000_000
#: Above this size (characters of SQL), the variables' values are bound once with a let.
BIND_ABOVE = 1_500

RUNNING, FINISHED, RETURNED = 0, 1, 2

#: How many lets and folds (calls with a lambda) deep a lowered body's Spark form may nest.
#: Each binding, loop and branch that joins holds the rest of the body in one, so a long body
#: nests deeply; sqlglot reads a lambda by trying and backing off, so the parse back of such a
#: form costs time that grows faster than its text (800 bound declarations, ~130 lets deep:
#: 10 s), and past a few hundred levels sqlglot cannot write it at all (Python's stack). A
#: fixed limit refuses such a body the same way wherever it is compiled; a long statement list
#: is refused as soon as it passes the limit, before the rest of it is lowered.
MAX_SPARK_LAMBDAS = 64


def too_deep_form(lets: int) -> str:
    """Why a body whose Spark form nests ``lets`` lets and folds deep has none."""
    return (
        f"the body's Spark form nests {lets} lets and folds deep, more than {MAX_SPARK_LAMBDAS} "
        "(each binding, loop and branch that joins holds the rest of the body in one): the "
        "body is too long or too deeply nested to be one Spark expression"
    )


@dataclass(frozen=True, slots=True)
class Frame:
    """The variables in scope at one point: their current values and their Trino types."""

    values: Mapping[str, exp.Expr]
    types: Mapping[str, exp.DataType]

    def set(self, name: str, value: exp.Expr, t: exp.DataType | None = None) -> Frame:
        values, types = dict(self.values), dict(self.types)
        values[name] = value
        if t is not None:
            types[name] = t
        return Frame(values, types)

    def only(self, names: Iterable[str]) -> Frame:
        keep = set(names)
        return Frame(
            {k: v for k, v in self.values.items() if k in keep},
            {k: v for k, v in self.types.items() if k in keep},
        )

    def __reduce__(self) -> Reduced:
        return by_init(self)


Continuation = Callable[[Frame], exp.Expr]


@dataclass(slots=True)
class Exits:
    """What a statement list does on RETURN, LEAVE and ITERATE (the enclosing construct)."""

    on_return: Callable[[exp.Expr], exp.Expr]
    on_jump: Callable[[str, str, Frame], exp.Expr]  # (LEAVE|ITERATE, label, frame)


def call(name: str, *args: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this=name, expressions=list(args))


def ref(var: str, name: str) -> exp.Expr:
    """``var.name``: a field of a lambda's state struct."""
    return exp.Column(this=exp.to_identifier(name), table=exp.to_identifier(var))


def num(value: int) -> exp.Expr:
    return exp.Literal.number(value)


def let(value: exp.Expr, var: str, body: exp.Expr) -> exp.Expr:
    """``let var = value in body``, as Spark writes it: a one-element transform."""
    lam = exp.Lambda(this=body, expressions=[exp.to_identifier(var)])
    return call("element_at", call("transform", call("array", value), lam), num(1))


def case(branches: Sequence[tuple[exp.Expr, exp.Expr]], default: exp.Expr) -> exp.Expr:
    if not branches:
        return default
    ifs = [exp.If(this=c, true=v) for c, v in branches]
    return exp.Case(ifs=ifs, default=default)


#: The nodes that stand as one term where an operand goes (a CASE, though a Func, does not).
#: A tuple named once, not a local union of classes, which mypyc would compile as unbound (see
#: ``meaning._ATOMIC``).
_ATOMIC = (exp.Column, exp.Literal, exp.Paren, exp.Func, exp.Dot, exp.Bracket, exp.Null)


def wrap(e: exp.Expr) -> exp.Expr:
    """``e`` where an operand goes: in parentheses unless it is one term already."""
    return e if isinstance(e, _ATOMIC) and not isinstance(e, exp.Case) else exp.Paren(this=e)


def size(e: exp.Expr) -> int:
    return len(write(copy_tree(e), SPARK, get_dialect("spark").body_writer))


PLAIN = re.compile(r"[a-z_][a-z0-9_]*")


class Lowerer(Protocol):
    """What a loop's lowering asks of the statement lowering (:class:`.lowering._Lowering`)."""

    return_type: exp.DataType
    unbounded_depth: int

    def fresh(self, prefix: str) -> str: ...

    def value(self, e: s.Expr, frame: Frame) -> exp.Expr: ...

    def typed_value(self, e: s.Expr, frame: Frame, target: exp.DataType) -> exp.Expr: ...

    def substitute(self, tree: exp.Expr, frame: Frame) -> exp.Expr: ...

    def cast(self, value: exp.Expr, t: exp.DataType) -> exp.Expr: ...

    def statements(
        self, stmts: tuple[s.Statement, ...], frame: Frame, exits: Exits, k: Continuation
    ) -> exp.Expr: ...
