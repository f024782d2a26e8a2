"""Loops as folds: WHILE, REPEAT, LOOP and FOR lowered to Spark's ``aggregate``.

A loop carries its state in a struct (:class:`StateShape`): an exit code (running, finished,
returned, or a jump to an outer label), the RETURN value if the body returns, and the variables
the body assigns. One fold step runs one iteration of the body from that struct; the code after
the fold reads the variables back from it and dispatches on the code (see
:mod:`.lowering` for the whole picture).

How many steps: a FOR loop's range, or for a counter stepped by a constant toward a limit the
loop does not change (``WHILE i < n DO ... SET i = i + 1``; a LOOP that starts with ``IF cond
THEN LEAVE``; a REPEAT), the number of iterations that follows, capped at
:data:`.flow.DERIVED_CAP`; otherwise :data:`.flow.UNBOUNDED_CAP`. A derived bound
only sizes the fold: the loop's own condition still decides each step, and a loop that has not
finished when the steps run out makes the call fail, so a wrong bound gives an error, never a
different value. Loops without a derivable bound inside one another are refused (their costs
multiply).
"""

from __future__ import annotations

import re

from sqlglot import exp

from translator.dialects.trino.routines import syntax as s
from translator.dialects.trino.routines.expr_types import INTEGER_TYPES, parse_type
from translator.dialects.trino.routines.flow import (
    DERIVED_CAP,
    FINISHED,
    RETURNED,
    RUNNING,
    UNBOUNDED_CAP,
    Continuation,
    Exits,
    Frame,
    Lowerer,
    call,
    case,
    let,
    num,
    ref,
)
from translator.dialects.trino.routines.meaning import Refused, rewrite
from translator.dialects.trino.routines.reading import parse_expression
from translator.sqlglot_dialects import GENERIC

__all__ = ["StateShape", "lower_loop"]

_PLAIN = re.compile(r"[a-z_][a-z0-9_]*")
#: The FOR loop's upper limit, kept in the state (not a name a routine can write).
_HIGH = "#high"

Loop = s.LoopStmt | s.WhileStmt | s.RepeatStmt | s.ForStmt


class StateShape:
    """The struct a fold (or a join) carries: ``code``, ``ret`` and one field per variable."""

    def __init__(
        self, low: Lowerer, frame: Frame, *, has_return: bool, names: list[str] | None = None
    ) -> None:
        self.low = low
        self.names = list(frame.values) if names is None else names
        self.types = {n: frame.types[n] for n in self.names}
        self.has_return = has_return
        self.fields = {
            n: (f"v_{n}" if _PLAIN.fullmatch(n) else f"v{i}") for i, n in enumerate(self.names)
        }

    def build(self, code: exp.Expr, frame: Frame, ret: exp.Expr | None = None) -> exp.Expr:
        args: list[exp.Expr] = [exp.Literal.string("code"), code]
        if self.has_return:
            value = ret if ret is not None else exp.Null()
            args += [exp.Literal.string("ret"), self.low.cast(value, self.low.return_type)]
        for n in self.names:
            args += [
                exp.Literal.string(self.fields[n]),
                self.low.cast(frame.values[n], self.types[n]),
            ]
        return call("named_struct", *args)

    def read(self, var: str, frame: Frame) -> Frame:
        """``frame`` with the carried variables read from the struct named ``var``."""
        out = frame
        for n in self.names:
            out = out.set(n, ref(var, self.fields[n]), self.types[n])
        return out


def _walk(stmts: tuple[s.Statement, ...]) -> list[s.Statement]:
    out: list[s.Statement] = []
    for st in stmts:
        out.append(st)
        if isinstance(st, s.Block):
            out += _walk(st.statements)
        elif isinstance(st, s.IfStmt | s.CaseStmt):
            parts = st.branches if isinstance(st, s.IfStmt) else st.whens
            for _c, body in parts:
                out += _walk(body)
            out += _walk(st.otherwise or ())
        elif isinstance(st, s.LoopStmt | s.WhileStmt | s.RepeatStmt | s.ForStmt):
            out += _walk(st.body)
    return out


def lower_loop(low: Lowerer, stmt: Loop, frame: Frame, exits: Exits, k: Continuation) -> exp.Expr:
    label = stmt.label.value.lower() if stmt.label else None
    inner = _walk(stmt.body)
    assigned = {st.target.value.lower() for st in inner if isinstance(st, s.SetStmt)}
    names = [n for n in frame.values if n in assigned]
    has_return = any(isinstance(st, s.Return) for st in inner)
    entry = frame
    bigint = parse_type("bigint")
    if isinstance(stmt, s.ForStmt):
        var = stmt.variable.value.lower()
        if var in assigned:
            raise Refused(f"the FOR loop assigns its own variable {var}")
        entry = entry.set(var, low.typed_value(stmt.low, frame, bigint), bigint)
        entry = entry.set(_HIGH, low.typed_value(stmt.high, frame, bigint), bigint)
        names += [var, _HIGH]
    shape = StateShape(low, entry, has_return=has_return, names=names)
    s_var, i_var = low.fresh("s"), low.fresh("i")
    inside = shape.read(s_var, entry)
    outer: dict[tuple[str, str], int] = {}

    def next_iteration(f: Frame) -> exp.Expr:
        if isinstance(stmt, s.RepeatStmt):
            until = low.value(stmt.until, f)
            return case([(until, shape.build(num(FINISHED), f))], shape.build(num(RUNNING), f))
        if isinstance(stmt, s.ForStmt):
            step = exp.Add(this=f.values[stmt.variable.value.lower()], expression=num(1))
            return shape.build(num(RUNNING), f.set(stmt.variable.value.lower(), step))
        return shape.build(num(RUNNING), f)

    def jump(kind: str, target: str, f: Frame) -> exp.Expr:
        if target == label:
            return shape.build(num(FINISHED), f) if kind == "LEAVE" else next_iteration(f)
        code = outer.setdefault((kind, target), 3 + len(outer))
        return shape.build(num(code), f)

    bound = _derive_bound(low, stmt, label, names, entry, inner)
    if bound is None and low.unbounded_depth:
        raise Refused("a loop without a derivable bound inside another one")
    low.unbounded_depth += bound is None
    try:
        body_exits = Exits(lambda v: shape.build(num(RETURNED), inside, ret=v), jump)
        body = low.statements(stmt.body, inside, body_exits, next_iteration)
    finally:
        low.unbounded_depth -= bound is None
    current = exp.column(exp.to_identifier(s_var))
    busy = exp.NEQ(this=ref(s_var, "code"), expression=num(RUNNING))
    steps: list[tuple[exp.Expr, exp.Expr]] = [(busy, current)]
    if isinstance(stmt, s.WhileStmt):
        steps.append((low.value(stmt.condition, inside), body))
        step = case(steps, shape.build(num(FINISHED), inside))
    elif isinstance(stmt, s.ForStmt):
        more = exp.LTE(
            this=inside.values[stmt.variable.value.lower()], expression=inside.values[_HIGH]
        )
        steps.append((more, body))
        step = case(steps, shape.build(num(FINISHED), inside))
    else:
        step = case(steps, body)
    if bound is None:
        count: exp.Expr = num(UNBOUNDED_CAP)
        limit = UNBOUNDED_CAP
    else:
        clamped = call(
            "least",
            call("greatest", call("coalesce", bound, num(0)), num(0)),
            num(DERIVED_CAP),
        )
        count = exp.Add(
            this=exp.Cast(this=clamped, to=exp.DataType.build("INT", dialect=GENERIC)),
            expression=num(1),
        )
        limit = DERIVED_CAP
    what = f"loop {label}" if label else "a loop"
    message = f"Trino routine: {what} did not finish within {limit} iterations in Spark"
    unfinished = exp.EQ(this=ref(s_var, "code"), expression=num(RUNNING))
    check = case([(unfinished, call("raise_error", exp.Literal.string(message)))], current.copy())
    fold = call(
        "aggregate",
        call("sequence", num(1), count),
        shape.build(num(RUNNING), entry),
        exp.Lambda(this=step, expressions=[exp.to_identifier(s_var), exp.to_identifier(i_var)]),
        exp.Lambda(this=check, expressions=[exp.to_identifier(s_var)]),
    )
    t_var = low.fresh("t")
    after = shape.read(t_var, entry).only(set(frame.values))
    code = ref(t_var, "code")
    dispatch: list[tuple[exp.Expr, exp.Expr]] = []
    if has_return:
        returned = exits.on_return(ref(t_var, "ret"))
        dispatch.append((exp.EQ(this=code.copy(), expression=num(RETURNED)), returned))
    for (kind, target), c in outer.items():
        dispatch.append(
            (exp.EQ(this=code.copy(), expression=num(c)), exits.on_jump(kind, target, after))
        )
    return let(fold, t_var, case(dispatch, k(after)))


_FLIP = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE}
_NEGATE = {exp.GT: exp.LTE, exp.GTE: exp.LT, exp.LT: exp.GTE, exp.LTE: exp.GT}


def _derive_bound(
    low: Lowerer,
    stmt: Loop,
    label: str | None,
    names: list[str],
    entry: Frame,
    inner: list[s.Statement],
) -> exp.Expr | None:
    """The number of iterations, as an expression of the values on entry, or None."""
    if isinstance(stmt, s.ForStmt):
        high, start = entry.values[_HIGH], entry.values[stmt.variable.value.lower()]
        return exp.Add(this=exp.Sub(this=high, expression=start), expression=num(1))
    negate, extra, body = False, 0, stmt.body
    if isinstance(stmt, s.WhileStmt):
        condition = stmt.condition
    elif isinstance(stmt, s.RepeatStmt):
        condition, negate, extra = stmt.until, True, 1
    else:
        first = body[0] if body else None
        if not (
            isinstance(first, s.IfStmt)
            and len(first.branches) == 1
            and first.otherwise is None
            and len(first.branches[0][1]) == 1
            and isinstance(first.branches[0][1][0], s.Leave)
            and first.branches[0][1][0].label.value.lower() == label
        ):
            return None
        condition, negate = first.branches[0][0], True
    node = parse_expression(condition.text)
    while isinstance(node, exp.Paren):
        node = node.this
    op = type(node)
    if node is None or op not in _FLIP:
        return None
    left, right = node.this, node.expression
    if _counter(left, names) is None:
        left, right, op = right, left, _FLIP[op]
    counter = _counter(left, names)
    if counter is None or any(
        isinstance(c, exp.Column) and c.name.lower() in names for c in right.find_all(exp.Column)
    ):
        return None
    if negate:
        op = _NEGATE[op]
    if entry.types.get(counter) is None or entry.types[counter].this not in INTEGER_TYPES:
        return None
    delta = _step(counter, label, stmt.body, inner)
    if delta is None or (delta > 0) != (op in (exp.LT, exp.LTE)):
        return None
    limit = low.substitute(rewrite(right, entry.types), entry)
    start = entry.values[counter]
    gap: exp.Expr = (
        exp.Sub(this=limit, expression=start)
        if delta > 0
        else exp.Sub(this=start, expression=limit)
    )
    if op in (exp.GTE, exp.LTE):
        gap = exp.Add(this=gap, expression=num(1))
    size = abs(delta)
    steps: exp.Expr = gap
    if size > 1:  # ceil(gap / size), for a positive gap
        rounded = exp.Paren(this=exp.Add(this=gap, expression=num(size - 1)))
        steps = exp.IntDiv(this=rounded, expression=num(size))
    return exp.Add(this=steps, expression=num(extra)) if extra else steps


def _counter(node: exp.Expr, names: list[str]) -> str | None:
    if isinstance(node, exp.Column) and not node.table and node.name.lower() in names:
        return node.name.lower()
    return None


def _step(
    counter: str, label: str | None, body: tuple[s.Statement, ...], inner: list[s.Statement]
) -> int | None:
    """``k`` when the body's only assignment of ``counter`` is ``SET counter = counter + k`` (or
    ``- k``), unconditional (a statement of the body itself), and no ITERATE of this loop can
    skip it (none comes before it)."""
    sets = [st for st in inner if isinstance(st, s.SetStmt) and st.target.value.lower() == counter]
    if len(sets) != 1 or sets[0] not in body:
        return None
    before = _walk(body[: body.index(sets[0])])
    if any(isinstance(st, s.Iterate) and st.label.value.lower() == label for st in before):
        return None
    node = parse_expression(sets[0].value.text)
    if not isinstance(node, exp.Add | exp.Sub) or _counter(node.this, [counter]) is None:
        return None
    amount = node.expression
    if not (isinstance(amount, exp.Literal) and amount.is_int and int(amount.this) > 0):
        return None
    return int(amount.this) if isinstance(node, exp.Add) else -int(amount.this)
