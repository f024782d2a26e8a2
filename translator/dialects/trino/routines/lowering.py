"""A Trino compound body as one Spark expression that computes the same value.

Spark cannot hold statements in a SQL function, so the body is compiled into an expression:

- **Forward substitution.** Variables are not stored anywhere: at each point of the body the
  lowering knows every variable's current value as an expression (a :class:`Frame`). ``DECLARE``
  starts a value (its DEFAULT, or a typed NULL), ``SET`` replaces it (cast to the variable's
  type, as Trino coerces it), and a use of the variable is replaced by its value.
- **Continuations.** Each statement is lowered with what comes after it (a *continuation*, a
  function of the frame). A RETURN ignores it: that is how an early RETURN cuts the rest off.
  IF and CASE statements become CASE expressions whose branches each continue with the rest.
- **Joins.** The rest of the body is never copied into several branches. When more than one
  branch falls through, either the branches are straight-line code (each changed variable
  becomes ``CASE WHEN c1 THEN v1 ... END``) or the branches compute a *state* struct (an exit
  code, the variables, the RETURN value) that is bound once (``element_at(transform(array(s),
  t -> ...), 1)``, Spark's let) and dispatched on. Each branch is lowered once, with *holes*
  where it falls through, returns or jumps; which of these forms it takes decides what fills
  them, so nested branches cost time linear in the body.
- **Sequences** are lowered one statement after the other, each leaving a hole for the next:
  Python's stack grows with the body's nesting, not with its length.
- **Loops** (WHILE, REPEAT, LOOP, FOR, with LEAVE and ITERATE) become a fold over a bounded
  sequence: ``aggregate(sequence(1, n), init_state, (s, i) -> step, s -> check)``. The step
  runs one iteration unless the state says the loop is over; LEAVE, ITERATE of an outer loop and
  RETURN end it with their exit code, which the code after the fold dispatches on. ``n`` is a
  bound on the number of iterations where one follows from the loop (``FOR i IN a TO b``; a
  counter stepped by a constant toward a loop-invariant limit), else a fixed cap. Either way,
  a loop still running after ``n`` steps raises an error (``raise_error``) instead of
  returning a value: Spark's answer is Trino's answer, or an error, never another value.

Every expression is read with sqlglot and made to mean in Spark what it means in Trino by
:mod:`.meaning`; what cannot be lowered raises :class:`.meaning.Refused` with the reason.
"""

from __future__ import annotations

from functools import lru_cache
from typing import cast

from sqlglot import exp
from sqlglot.errors import SqlglotError

from translator.dialects.trino.routines import syntax as s
from translator.dialects.trino.routines.expr_types import parse_type, spark_type, type_of
from translator.dialects.trino.routines.flow import (
    BIND_ABOVE,
    MAX_SPARK_LAMBDAS,
    PLAIN,
    RETURNED,
    RUNNING,
    Continuation,
    Exits,
    Frame,
    Lowerer,
    call,
    case,
    let,
    num,
    ref,
    size,
    too_deep_form,
    wrap,
)
from translator.dialects.trino.routines.loops import StateShape, lower_loop
from translator.dialects.trino.routines.meaning import Refused, rewrite
from translator.dialects.trino.routines.reading import read_expression
from translator.sqlglot_dialects import GENERIC, SPARK
from translator.sqltrees import copy_tree

__all__ = ["lower_body"]


def lower_body(routine: s.Routine) -> exp.Expr:
    """The compound body of ``routine`` as one expression, to be written as Spark SQL.

    Raises :class:`Refused` with the reason when it cannot be lowered with Trino's meaning.
    """
    if not isinstance(routine.body, s.Block):
        raise Refused("not a compound body")
    return _Lowering(routine).run()


class _Lowering:
    def __init__(self, routine: s.Routine) -> None:
        self.r = routine
        self.counter = 0
        #: The Trino type text each type object of this lowering was read from (by id: they
        #: are parse_type's, alive as long as its cache), so that a cast finds its Spark type
        #: by text (:func:`_spark_type_of`) instead of writing and reading the type again.
        self.type_texts: dict[int, str] = {}
        self.return_type: exp.DataType = self.trino_type(routine.return_type)
        self.trino_type("bigint")  # the type of loop counters (:mod:`.loops`)
        self.unbounded_depth: int = 0
        #: Each value's size and text, by identity (the value is kept, so the id stays its).
        self.sizes: dict[int, tuple[exp.Expr, int]] = {}
        self.texts: dict[int, tuple[exp.Expr, str]] = {}

    def size(self, value: exp.Expr) -> int:
        """:func:`.flow.size` of a variable's value, measured once: a value stays in the frames
        of many statements (each assignment sizes them all), and is never changed in place."""
        known = self.sizes.get(id(value))
        if known is None:
            known = self.sizes[id(value)] = (value, size(value))
        return known[1]

    def text(self, value: exp.Expr) -> str:
        """``value.sql()``, written once (as :meth:`size`)."""
        known = self.texts.get(id(value))
        if known is None:
            known = self.texts[id(value)] = (value, copy_tree(value).sql(GENERIC, copy=False))
        return known[1]

    def trino_type(self, text: str) -> exp.DataType:
        t = parse_type(text)
        self.type_texts[id(t)] = text
        return t

    def lowerer(self) -> Lowerer:
        """This lowering as :mod:`.loops` sees it (mypy does not match the protocol itself)."""
        return cast(Lowerer, self)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"__{prefix}{self.counter}"

    def run(self) -> exp.Expr:
        values: dict[str, exp.Expr] = {}
        types: dict[str, exp.DataType] = {}
        for name, type_text in self.r.parameters:
            try:
                types[name.value.lower()] = self.trino_type(type_text)
            except (SqlglotError, ValueError):
                raise Refused(f"sqlglot cannot read the type {type_text}") from None
            values[name.value.lower()] = exp.column(
                exp.to_identifier(name.value, quoted=not PLAIN.fullmatch(name.value))
            )
        exits = Exits(self.returned, self.no_jump)
        assert isinstance(self.r.body, s.Block)
        return self.statement(self.r.body, Frame(values, types), exits, self.fell_off)

    def returned(self, value: exp.Expr) -> exp.Expr:
        return value

    def no_jump(self, kind: str, label: str, frame: Frame) -> exp.Expr:
        raise Refused(f"{kind} {label} outside its loop")  # the analyzer rejects this first

    def fell_off(self, frame: Frame) -> exp.Expr:
        raise Refused("the body can end without a RETURN")

    # -- values -------------------------------------------------------------------------------

    def value(self, e: s.Expr, frame: Frame) -> exp.Expr:
        """``e`` in Spark with Trino's meaning, each variable replaced by its current value."""
        node = read_expression(e.text)
        if node is None:
            raise Refused(f"sqlglot cannot read {e.text!r}")
        spark = rewrite(node, frame.types)
        return self.substitute(spark, frame)

    def typed_value(self, e: s.Expr, frame: Frame, target: exp.DataType) -> exp.Expr:
        """``e`` coerced to ``target`` as Trino coerces on SET, DEFAULT and RETURN."""
        node = read_expression(e.text)
        actual = type_of(node, frame.types) if node is not None else None
        value = self.value(e, frame)
        if actual is not None and actual == target:
            return value
        return self.cast(value, target)

    def substitute(self, tree: exp.Expr, frame: Frame) -> exp.Expr:
        def visit(node: exp.Expr) -> exp.Expr:
            if isinstance(node, exp.Column) and not node.args.get("db"):
                if not node.table and node.name.lower() in frame.values:
                    return wrap(copy_tree(frame.values[node.name.lower()]))
                if node.table and node.table.lower() in frame.values:
                    base = wrap(copy_tree(frame.values[node.table.lower()]))
                    return exp.Dot(this=base, expression=copy_tree(node.this))
            return node

        copied: exp.Expr = copy_tree(tree)  # sqlglot's own copy, at half its cost
        return copied.transform(visit, copy=False)

    def cast(self, value: exp.Expr, t: exp.DataType) -> exp.Expr:
        """``CAST(value AS <Spark type of t>)``, unless ``value`` is such a cast already."""
        text = self.type_texts.get(id(t))
        to = (
            copy_tree(_spark_type_of(text))
            if text is not None
            else exp.DataType.build(spark_type(t), dialect=SPARK)
        )
        if isinstance(value, exp.Cast) and value.args.get("to") == to:
            return value
        return exp.Cast(this=value, to=to)

    # -- statements ---------------------------------------------------------------------------

    def statements(
        self, stmts: tuple[s.Statement, ...], frame: Frame, exits: Exits, k: Continuation
    ) -> exp.Expr:
        """``stmts`` then ``k``, one statement after the other (not one call inside the next,
        which would use Python's stack in proportion to the body's length): each statement is
        lowered with a hole where what follows it goes (:class:`_Holes`), filled by the next.
        A statement falls through at most once (a join lowers the rest once), and what it
        does after its continuation is only to build its tree, so the pieces are lowered, and
        fresh names drawn, in the same order as by recursion."""
        root: exp.Expr | None = None
        hole: _Hole | None = None
        lets = 0  # lets and folds around the hole, within this list
        for stmt in stmts:
            holes = _Holes()
            tree = self.statement(stmt, frame, exits, holes.fall)
            root = tree if hole is None else hole.fill(root, tree)
            if not holes.made:  # it never falls through: the rest is never reached
                return root
            (hole,) = holes.made
            frame = hole.fall_frame()
            lets += _lambdas_between(hole.node, tree)
            if lets > MAX_SPARK_LAMBDAS:  # a long list: refused before the rest is lowered
                raise Refused(too_deep_form(lets))
        rest = k(frame)
        return rest if hole is None else hole.fill(root, rest)

    def statement(self, stmt: s.Statement, frame: Frame, exits: Exits, k: Continuation) -> exp.Expr:
        if isinstance(stmt, s.Return):
            return exits.on_return(self.typed_value(stmt.value, frame, self.return_type))
        if isinstance(stmt, s.SetStmt):
            name = stmt.target.value.lower()
            value = self.typed_value(stmt.value, frame, frame.types[name])
            return self.bound(frame.set(name, value), k)
        if isinstance(stmt, s.Leave | s.Iterate):
            kind = "LEAVE" if isinstance(stmt, s.Leave) else "ITERATE"
            return exits.on_jump(kind, stmt.label.value.lower(), frame)
        if isinstance(stmt, s.Block):
            return self.block(stmt, frame, exits, k)
        if isinstance(stmt, s.IfStmt):
            return self.branches(list(stmt.branches), stmt.otherwise, frame, exits, k)
        if isinstance(stmt, s.CaseStmt):
            whens = list(stmt.whens)
            if stmt.operand is not None:
                operand = stmt.operand
                whens = [
                    (s.Expr(f"({operand.text}) = ({w.text})", w.offset), body) for w, body in whens
                ]
            return self.branches(whens, stmt.otherwise, frame, exits, k)
        return lower_loop(self.lowerer(), stmt, frame, exits, k)

    def block(self, block: s.Block, frame: Frame, exits: Exits, k: Continuation) -> exp.Expr:
        """The block's declarations, each bound like an assignment (a default may double an
        earlier one's value: unbound, a chain of them would grow the expression
        exponentially), then its statements, then ``k`` with the block's variables gone."""
        outer = set(frame.values)
        # The variables in scope, grown in place as each name is declared (a frame a name, as
        # ``Frame.set`` makes, would copy them all: n declarations, n squared steps). A default
        # is read against a frame over them that nothing keeps (:meth:`typed_value` only reads
        # it); after a binding they are copied afresh, so a frame a binding kept over the old
        # ones never sees them change.
        values, types = dict(frame.values), dict(frame.types)
        root: exp.Expr | None = None
        hole: _Hole | None = None
        lets = 0
        for d in block.declarations:
            t = self.trino_type(d.type)
            for name in d.names:
                if d.default is not None:  # evaluated with the block's earlier declarations
                    value = self.typed_value(d.default, Frame(values, types), t)
                else:
                    value = self.cast(exp.Null(), t)
                values[name.value.lower()] = value
                types[name.value.lower()] = t
            if d.default is None or all(
                isinstance(values[n.value.lower()], _SMALL) for n in d.names
            ):
                continue
            holes = _Holes()
            tree = self.bound(Frame(values, types), holes.fall)
            root = tree if hole is None else hole.fill(root, tree)
            (hole,) = holes.made
            fall = hole.fall_frame()
            values, types = dict(fall.values), dict(fall.types)
            lets += _lambdas_between(hole.node, tree)
            if lets > MAX_SPARK_LAMBDAS:  # as in :meth:`statements`
                raise Refused(too_deep_form(lets))
        inner = Frame(values, types)
        rest = self.statements(block.statements, inner, exits, lambda f: k(f.only(outer)))
        return rest if hole is None else hole.fill(root, rest)

    def bound(self, frame: Frame, k: Continuation) -> exp.Expr:
        """``k(frame)``, with large values bound once (a let) instead of copied at every use."""
        big = [n for n, v in frame.values.items() if not isinstance(v, _SMALL)]
        if sum(self.size(frame.values[n]) for n in big) <= BIND_ABOVE:
            return k(frame)
        var = self.fresh("t")
        fields = {n: f"v{i}" for i, n in enumerate(big)}
        args: list[exp.Expr] = []
        for n in big:
            args += [exp.Literal.string(fields[n]), self.cast(frame.values[n], frame.types[n])]
        values = dict(frame.values)  # one copy for every name bound, not one a name
        for n in big:
            values[n] = ref(var, fields[n])
        return let(call("named_struct", *args), var, k(Frame(values, frame.types)))

    def branches(
        self,
        branches: list[tuple[s.Expr, tuple[s.Statement, ...]]],
        otherwise: tuple[s.Statement, ...] | None,
        frame: Frame,
        exits: Exits,
        k: Continuation,
    ) -> exp.Expr:
        """IF / CASE statements: a CASE expression; the rest of the body is lowered once.

        Each branch is lowered once, with holes where it falls through, returns or jumps
        (:class:`_Holes`); how many fall through decides what fills them: the enclosing
        construct's exits and the rest of the body (one), each changed variable as a CASE
        (straight-line branches), or a state struct dispatched on (:meth:`join`)."""
        conditions = [self.value(c, frame) for c, _ in branches]
        bodies = [body for _, body in branches] + [otherwise or ()]
        holes = _Holes()
        lowered = [self.statements(body, frame, holes.exits, holes.fall) for body in bodies]
        falls = [h for h in holes.made if h.frame is not None]
        if len(falls) <= 1:
            roots = _Roots(lowered)
            for h in holes.made:
                if h.frame is None:
                    roots.fill(h, h.exit(exits))
            if falls:
                roots.fill(falls[0], k(falls[0].fall_frame()))
            lowered = roots.items
            return case(list(zip(conditions, lowered[:-1], strict=True)), lowered[-1])
        if all(r is h.node for r, h in zip(lowered, falls, strict=False)) and len(falls) == len(
            lowered
        ):  # straight-line branches: each is its one fall-through
            merged = frame
            for name in frame.values:
                values = [f.fall_frame().values[name] for f in falls]
                if all(self.text(v) == self.text(values[-1]) for v in values):
                    merged = merged.set(name, values[-1])
                else:
                    merged = merged.set(
                        name, case(list(zip(conditions, values[:-1], strict=True)), values[-1])
                    )
            return self.bound(merged, k)
        return self.join(conditions, lowered, holes, frame, exits, k)

    def join(
        self,
        conditions: list[exp.Expr],
        lowered: list[exp.Expr],
        holes: _Holes,
        frame: Frame,
        exits: Exits,
        k: Continuation,
    ) -> exp.Expr:
        """Branches that both exit and fall through in several places: each computes a state
        struct; the struct is bound once and dispatched on."""
        shape = StateShape(self.lowerer(), frame, has_return=True)
        jumps: dict[tuple[str, str], int] = {}

        def jump(kind: str, label: str, f: Frame) -> exp.Expr:
            code = jumps.setdefault((kind, label), 3 + len(jumps))
            return shape.build(num(code), f)

        inner = Exits(lambda v: shape.build(num(RETURNED), frame, ret=v), jump)
        roots = _Roots(lowered)
        for h in holes.made:
            filler = shape.build(num(RUNNING), h.frame) if h.frame is not None else h.exit(inner)
            roots.fill(h, filler)
        lowered = roots.items
        var = self.fresh("t")
        after = shape.read(var, frame)
        code = ref(var, "code")
        dispatch = [
            (exp.EQ(this=code.copy(), expression=num(RETURNED)), exits.on_return(ref(var, "ret")))
        ]
        for (kind, label), c in jumps.items():
            dispatch.append(
                (exp.EQ(this=code.copy(), expression=num(c)), exits.on_jump(kind, label, after))
            )
        body = case(dispatch, k(after))
        return let(case(list(zip(conditions, lowered[:-1], strict=True)), lowered[-1]), var, body)


def _lambdas_between(node: exp.Expr, top: exp.Expr) -> int:
    """The lambdas ``node`` is inside, up to ``top`` (one statement's tree)."""
    count = 0
    while node is not top and node.parent is not None:
        node = node.parent
        count += isinstance(node, exp.Lambda)
    return count


#: Values never bound with a let: a use copies them at no cost.
_SMALL = (exp.Column, exp.Literal)


class _Hole:
    """A place in a lowered tree still to be filled: where a statement falls through (with the
    frame there), returns (the value) or jumps (kind, label and frame)."""

    __slots__ = ("frame", "jump", "node", "value")

    def __init__(
        self,
        frame: Frame | None,
        value: exp.Expr | None = None,
        jump: tuple[str, str, Frame] | None = None,
    ) -> None:
        self.node: exp.Expr = exp.Placeholder(this="hole")
        self.frame, self.value, self.jump = frame, value, jump

    def fall_frame(self) -> Frame:
        assert self.frame is not None, "a RETURN or a jump, not a fall-through"
        return self.frame

    def exit(self, exits: Exits) -> exp.Expr:
        """What ``exits`` make of this RETURN or jump."""
        if self.jump is not None:
            return exits.on_jump(*self.jump)
        assert self.value is not None
        return exits.on_return(self.value)

    def fill(self, root: exp.Expr | None, tree: exp.Expr) -> exp.Expr:
        """``root`` (the tree this hole is in) with ``tree`` in the hole."""
        if self.node is root or root is None:
            return tree
        self.node.replace(tree)
        return root


class _Roots:
    """The lowered trees of a construct's branches, their holes filled one after the other.

    A hole is in one of the trees, or is one of them (a branch that only returns); the second is
    found by identity in a table, not by a pass over every tree, so an IF with n ELSEIFs fills
    its n holes in n steps, not n squared."""

    __slots__ = ("_at", "items")

    def __init__(self, trees: list[exp.Expr]) -> None:
        self.items = list(trees)
        #: id -> positions of each tree in ``items`` (they hold it, so the id stays its own).
        self._at: dict[int, list[int]] = {}
        for i, tree in enumerate(self.items):
            self._at.setdefault(id(tree), []).append(i)

    def fill(self, hole: _Hole, tree: exp.Expr) -> None:
        """``tree`` in ``hole``: in place in the tree that holds it, or in place of every root
        that is the hole itself."""
        if hole.node.parent is not None:
            hole.node.replace(tree)
            return
        for i in self._at.pop(id(hole.node), ()):
            self.items[i] = tree
            self._at.setdefault(id(tree), []).append(i)


class _Holes:
    """The holes a piece of the lowering leaves, in the order they are made."""

    __slots__ = ("exits", "made")

    def __init__(self) -> None:
        self.made: list[_Hole] = []
        self.exits = Exits(
            lambda v: self.add(_Hole(None, value=v)),
            lambda kind, label, f: self.add(_Hole(None, jump=(kind, label, f))),
        )

    def add(self, hole: _Hole) -> exp.Expr:
        self.made.append(hole)
        return hole.node

    def fall(self, frame: Frame) -> exp.Expr:
        """The continuation that leaves a hole: what follows is lowered later, once."""
        return self.add(_Hole(frame))


@lru_cache(maxsize=4096)  # keyed by what a script says: bounded
def _spark_type_of(trino_type: str) -> exp.DataType:
    """The Spark type a value of the Trino type ``trino_type`` is cast to (callers copy it)."""
    return exp.DataType.build(spark_type(parse_type(trino_type)), dialect=SPARK)
