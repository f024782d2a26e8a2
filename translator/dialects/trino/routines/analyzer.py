"""Trino's routine analyzer, redone: the checks Trino makes after parsing a SQL routine.

Trino parses a routine, then analyzes it before it stores or runs it. This module makes the same
checks, in Trino's order, and reports the first failure as Trino does: its error code, its
message as users see it, and the place it points at (:class:`RoutineProblem`).

1. The clauses (when the routine is defined): one clause per characteristic ("Multiple
   language clauses specified"...), no ``WITH (...)`` properties on a SQL routine, parameters
   named once; an inline (``WITH FUNCTION``) routine has no ``SECURITY``.
2. The types named in the header, then "Function must end in a RETURN statement": the body's
   *last statement* must be a RETURN (an IF that returns on every branch does not count).
3. The statements, in order, with scopes: a block opens a scope for its variables, a loop one
   for its label. A name is declared once along a scope chain (a nested block may not redeclare
   an outer variable; sibling blocks may reuse one), a SET target and an ITERATE/LEAVE label
   must be visible. Each expression is read with sqlglot: no query anywhere ("Queries are not
   allowed in functions"), every name known, and its type, where :mod:`.expr_types` can derive
   it, must be what the statement needs (a boolean condition, a value coercible to the variable,
   the DEFAULT, the RETURN type).
4. Determinism: DETERMINISTIC (the default) on a body that calls a non-deterministic function,
   or NOT DETERMINISTIC on one whose every call is known to be deterministic, is an error.

Where a type or a function's determinism cannot be derived, the check is skipped: the analyzer
never rejects what Trino might accept. It is a model of Trino's analyzer, tested against the
corpus of routines Trino accepted and rejected (``tests/test_trino_routine_analyzer.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from sqlglot import exp
from sqlglot.errors import SqlglotError

from translator.dialects.trino.routines import syntax as s
from translator.dialects.trino.routines.expr_types import (
    can_coerce,
    common_super_type,
    display,
    parse_type,
    type_of,
)
from translator.dialects.trino.routines.reading import expression_parts, parse_expression
from translator.errors import Position, position_at
from translator.rebuild import Reduced, by_init

__all__ = ["RoutineProblem", "analyze", "analyze_routine"]


@dataclass(frozen=True, slots=True)
class RoutineProblem:
    """Trino's verdict on a routine it rejects: ``code`` is Trino's error code."""

    code: str
    message: str
    offset: int
    text: str = field(repr=False, compare=False)

    @property
    def position(self) -> Position:
        return position_at(self.text, self.offset)

    def __str__(self) -> str:
        p = self.position
        return f"{self.code}: line {p.line}:{p.column}: {self.message}"

    def __reduce__(self) -> Reduced:
        return by_init(self)


class _Rejected(Exception):
    def __init__(self, code: str, message: str, offset: int) -> None:
        super().__init__(message)
        self.code, self.message, self.offset = code, message, offset


def analyze(text: str, *, inline: bool = False, header: bool = True) -> RoutineProblem | None:
    """Trino's first objection to the ``CREATE FUNCTION`` statement ``text``, or None.

    ``inline``: the routine is a ``WITH FUNCTION`` one (Trino refuses SECURITY there).
    ``header=False`` leaves the clauses and the type names to the caller (the front end judges
    those itself): only the body is analyzed, an unknown type being taken as unknown.
    The statement must parse (:func:`.syntax.parse_routine` raises otherwise).
    """
    try:
        return analyze_routine(s.parse_routine(text), inline=inline, header=header)
    except RecursionError:
        return None  # too deep to judge here: never a rejection Trino might not make


def analyze_routine(
    routine: s.Routine,
    *,
    inline: bool = False,
    header: bool = True,
    determinism: bool = True,
    body_tree: exp.Expr | None = None,
    names_known: bool = False,
) -> RoutineProblem | None:
    """:func:`analyze` of a routine already read; ``determinism=False`` leaves out the check of
    DETERMINISTIC against the body (for a body judged apart from its characteristics);
    ``body_tree`` is sqlglot's tree of a RETURN body, when the caller has one already;
    ``names_known``: every column in it is a parameter or lambda variable (not walked again).

    A body too deep for Python's stack raises ``RecursionError``: what that means is the
    caller's to say (a Trino source is left to Trino; a body written for Trino is refused)."""
    try:
        analyzer = _Analyzer(routine, inline, header)
        analyzer.check_determinism = determinism
        analyzer.body_tree = body_tree
        analyzer.names_known = names_known and body_tree is not None and not determinism
        analyzer.run()
    except _Rejected as e:
        return RoutineProblem(e.code, e.message, e.offset, routine.text)
    return None


# -- Expressions ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Scope:
    variables: dict[str, exp.DataType]
    labels: set[str]

    def child(self) -> _Scope:
        return _Scope(dict(self.variables), set(self.labels))


_QUERY = re.compile(r"(?i)\(\s*(?:select|with|values|table)\b")
_MASK = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*[\s\S]*?\*/")

#: Trino built-ins that are not deterministic.
NON_DETERMINISTIC = frozenset({"rand", "random", "uuid", "shuffle"})
#: Type names Trino knows (a name outside these is "Unknown type").
KNOWN_TYPES = frozenset(
    {
        "boolean", "tinyint", "smallint", "integer", "int", "bigint", "real", "double",
        "decimal", "numeric", "varchar", "char", "varbinary", "json", "date", "time",
        "timestamp", "interval", "array", "map", "row", "uuid", "ipaddress", "hyperloglog",
        "p4hyperloglog", "qdigest", "tdigest", "setdigest", "geometry", "sphericalgeography",
        "unknown", "color", "bingtile", "kdbtree", "variant", "number", "double precision",
    }
)  # fmt: skip


@lru_cache(maxsize=4096)
def _known_type(text: str) -> bool:
    """Whether Trino knows the type ``text`` names (by its base name)."""
    base = re.split(r"[\s(<]", text.strip().lower(), maxsplit=1)[0].strip('"')
    if text.strip().lower().startswith("double precision"):
        base = "double"
    return base in KNOWN_TYPES


def _may_hold_query(text: str) -> bool:
    """False where :data:`_QUERY` cannot match ``text`` masked (most expressions, which are
    then not masked at all): masking only blanks characters out, so the word a match needs is
    in the text as written. Case is folded by ``lower`` for ASCII text only: ``re``'s
    case-insensitive match also takes a few non-ASCII letters for ASCII ones (the long s,
    U+017F, for ``s``). Four substring searches cost a tenth of the mask; a case-insensitive
    regular expression of the words cost several times it."""
    if not text.isascii():
        return True
    low = text.lower()
    return "select" in low or "with" in low or "values" in low or "table" in low


def _masked(text: str) -> str:
    """``text`` with strings, quoted names and comments blanked out (same length)."""
    return _MASK.sub(lambda m: " " * len(m.group()), text)


@dataclass(slots=True)
class _Facts:
    """What the expressions of a routine tell about determinism."""

    nondeterministic: bool = False
    #: A call whose determinism is unknown (a user function, a lambda's function).
    unknown: bool = False


def _function_name(node: exp.Expr) -> str:
    return str(node.name if isinstance(node, exp.Anonymous) else node.key).lower()


# -- The analyzer -----------------------------------------------------------------------------


class _Analyzer:
    def __init__(self, routine: s.Routine, inline: bool, header: bool = True) -> None:
        self.r = routine
        self.inline = inline
        self.header = header
        self.check_determinism = True
        self.body_tree: exp.Expr | None = None
        self.names_known = False  # every name in body_tree is known (analyze_routine)
        self.facts = _Facts()
        self.return_type: exp.DataType | None = None

    def reject(self, code: str, message: str, offset: int) -> _Rejected:
        return _Rejected(code, message, offset)

    def run(self) -> None:
        if self.header:
            self.clauses()
        self.return_type = self.type_named(self.r.return_type, None)
        scope = _Scope({}, set())
        for name, type_text in self.r.parameters:
            t = self.type_named(type_text, name.offset)
            scope.variables[name.value.lower()] = t if t is not None else parse_type("unknown")
        body = self.r.body
        if isinstance(body, s.Block):
            if not body.statements or not isinstance(body.statements[-1], s.Return):
                raise self.reject(
                    "MISSING_RETURN", "Function must end in a RETURN statement", body.offset
                )
            self.block(body, scope)
        else:
            self.expect(body.value, scope, self.return_type, "Value of RETURN", self.body_tree)
        if self.check_determinism:
            self.determinism()

    def return_offset(self) -> int:
        m = re.search(r"(?i)\breturns\b", _masked(self.r.text))
        return m.start() if m else self.r.function_offset

    # -- clauses ------------------------------------------------------------------------------

    def clauses(self) -> None:
        by_kind: dict[str, list[s.Characteristic]] = {}
        for c in self.r.characteristics:
            by_kind.setdefault(c.kind, []).append(c)
        at = self.r.function_offset
        if len(by_kind.get("language", [])) > 1:
            raise self.reject("SYNTAX_ERROR", "Multiple language clauses specified", at)
        language = by_kind.get("language", [None])[0]
        if language is not None and language.value != "SQL":
            raise self.reject("NOT_SUPPORTED", f"Unsupported language: {language.value}", at)
        props = by_kind.get("properties", [])
        if len(props) > 1:
            raise self.reject("SYNTAX_ERROR", "Multiple properties clauses specified", at)
        if props:
            raise self.reject(
                "INVALID_FUNCTION_PROPERTY",
                "Function language 'SQL' does not support properties",
                props[0].value,
            )
        seen: set[str] = set()
        for name, _type in self.r.parameters:
            if not name.value:
                raise self.reject(
                    "INVALID_ARGUMENTS", "Function parameters must have a name", name.offset
                )
            if name.value.lower() in seen:
                raise self.reject(
                    "INVALID_ARGUMENTS",
                    f"Duplicate function parameter name: {name.value}",
                    name.offset,
                )
            seen.add(name.value.lower())
        for kind, label in (
            ("null-call", "null-call"),
            ("comment", "comment"),
            ("deterministic", "deterministic"),
            ("security", "security"),
        ):
            if len(by_kind.get(kind, [])) > 1:
                raise self.reject("SYNTAX_ERROR", f"Multiple {label} clauses specified", at)
        if self.inline and by_kind.get("security"):
            raise self.reject(
                "NOT_SUPPORTED", "Security mode not supported for inline functions", at
            )

    def type_named(self, text: str, offset: int | None) -> exp.DataType | None:
        """The type ``text`` names; an unknown one is rejected at ``offset`` (None: the
        routine's RETURNS, found only then)."""
        if not _known_type(text):
            if not self.header:
                return None
            at = self.return_offset() if offset is None else offset
            raise self.reject("TYPE_MISMATCH", f"Unknown type: {text}", at)
        try:
            return parse_type(text)
        except (SqlglotError, ValueError):
            return None

    # -- statements ---------------------------------------------------------------------------

    def statements(self, stmts: tuple[s.Statement, ...], scope: _Scope) -> None:
        for stmt in stmts:
            self.statement(stmt, scope)

    def block(self, block: s.Block, outer: _Scope) -> None:
        scope = outer.child()
        for d in block.declarations:
            t = self.type_named(d.type, d.offset)
            if d.default is not None:
                self.expect(d.default, scope, t, "Value of DEFAULT")
            for name in d.names:
                if name.value.lower() in scope.variables:
                    raise self.reject(
                        "ALREADY_EXISTS",
                        f"Variable already declared in this scope: {name.value}",
                        name.offset,
                    )
                scope.variables[name.value.lower()] = t if t is not None else parse_type("unknown")
        self.statements(block.statements, scope)

    def statement(self, stmt: s.Statement, scope: _Scope) -> None:
        boolean = parse_type("boolean")
        if isinstance(stmt, s.Block):
            self.block(stmt, scope)
        elif isinstance(stmt, s.Return):
            self.expect(stmt.value, scope, self.return_type, "Value of RETURN")
        elif isinstance(stmt, s.SetStmt):
            target = scope.variables.get(stmt.target.value.lower())
            if stmt.target.value.lower() not in scope.variables:
                raise self.reject(
                    "NOT_FOUND",
                    f"Variable cannot be resolved: {stmt.target.value}",
                    stmt.target.offset,
                )
            self.expect(stmt.value, scope, target, f"Value of SET '{stmt.target.value}'")
        elif isinstance(stmt, s.IfStmt):
            for i, (cond, body) in enumerate(stmt.branches):
                what = "Condition of IF statement" if i == 0 else "Condition of ELSEIF clause"
                self.expect(cond, scope, boolean, what)
                self.statements(body, scope)
            if stmt.otherwise is not None:
                self.statements(stmt.otherwise, scope)
        elif isinstance(stmt, s.CaseStmt):
            self.case(stmt, scope)
        elif isinstance(stmt, s.Leave | s.Iterate):
            if stmt.label.value.lower() not in scope.labels:
                raise self.reject(
                    "NOT_FOUND", f"Label not defined: {stmt.label.value}", stmt.label.offset
                )
        else:
            self.loop(stmt, scope)

    def case(self, stmt: s.CaseStmt, scope: _Scope) -> None:
        if stmt.operand is not None:
            value = self.expression(stmt.operand, scope)
            for when, _body in stmt.whens:
                when_type = self.expression(when, scope)
                if value is None or when_type is None:
                    continue
                if common_super_type(value, when_type) is None:
                    raise self.reject(
                        "TYPE_MISMATCH",
                        f"WHEN clause value must evaluate to CASE value type {display(value)} "
                        f"(actual: {display(when_type)})",
                        when.offset,
                    )
        else:
            for when, _body in stmt.whens:
                self.expect(when, scope, parse_type("boolean"), "Condition of WHEN clause")
        for _when, body in stmt.whens:
            self.statements(body, scope)
        if stmt.otherwise is not None:
            self.statements(stmt.otherwise, scope)

    def loop(
        self, stmt: s.LoopStmt | s.WhileStmt | s.RepeatStmt | s.ForStmt, outer: _Scope
    ) -> None:
        scope = outer.child()
        if stmt.label is not None:
            if stmt.label.value.lower() in scope.labels:
                raise self.reject(
                    "ALREADY_EXISTS",
                    f"Label already declared in this scope: {stmt.label.value}",
                    stmt.label.offset,
                )
            scope.labels.add(stmt.label.value.lower())
        boolean = parse_type("boolean")
        if isinstance(stmt, s.WhileStmt):
            self.expect(stmt.condition, scope, boolean, "Condition of WHILE statement")
        elif isinstance(stmt, s.RepeatStmt):
            self.expect(stmt.until, scope, boolean, "Condition of REPEAT statement")
        elif isinstance(stmt, s.ForStmt):
            bigint = parse_type("bigint")
            self.expect(stmt.low, scope, bigint, "Start of FOR range")
            self.expect(stmt.high, scope, bigint, "End of FOR range")
            if stmt.variable.value.lower() in scope.variables:
                raise self.reject(
                    "ALREADY_EXISTS",
                    f"Variable already declared in this scope: {stmt.variable.value}",
                    stmt.variable.offset,
                )
            scope.variables[stmt.variable.value.lower()] = bigint
        self.statements(stmt.body, scope)

    # -- expressions --------------------------------------------------------------------------

    def expect(
        self,
        e: s.Expr,
        scope: _Scope,
        expected: exp.DataType | None,
        what: str,
        tree: exp.Expr | None = None,
    ) -> None:
        actual = self.expression(e, scope, tree)
        if actual is None or expected is None or can_coerce(actual, expected):
            return
        raise self.reject(
            "TYPE_MISMATCH",
            f"{what} must evaluate to {display(expected)} (actual: {display(actual)})",
            e.offset,
        )

    def expression(
        self, e: s.Expr, scope: _Scope, tree: exp.Expr | None = None
    ) -> exp.DataType | None:
        """Check ``e`` (queries, names, calls) and return its type where it can be derived;
        ``tree`` is sqlglot's reading of it, when there is one already."""
        if _may_hold_query(e.text):
            query = _QUERY.search(_masked(e.text))
            if query is not None:
                raise self.reject(
                    "NOT_SUPPORTED",
                    "Queries are not allowed in functions",
                    e.offset + query.start(),
                )
        node = tree if tree is not None else parse_expression(e.text)
        if node is None:
            self.facts.unknown = True
            return None
        if tree is not None and self.names_known:  # calls tell determinism only: not judged
            return type_of(node, scope.variables)
        columns, lambdas, calls = expression_parts(node)
        self.names(columns, lambdas, e, scope.variables)
        self.calls(calls, lambdas is not None)
        return type_of(node, scope.variables)

    def names(
        self,
        columns: list[exp.Column],
        lambdas: set[str] | None,
        e: s.Expr,
        variables: Mapping[str, object],
    ) -> None:
        lambda_names = lambdas or set()
        for col in columns:
            name = (col.table or col.name).lower()
            if name in variables or name in lambda_names or col.args.get("db"):
                continue
            raise self.reject(
                "COLUMN_NOT_FOUND",
                f"Column '{col.table or col.name}' cannot be resolved",
                e.offset + _find_name(_masked(e.text), col.table or col.name),
            )

    def calls(self, calls: list[exp.Func], lambdas: bool) -> None:
        if lambdas:
            self.facts.unknown = True
        for call in calls:
            if isinstance(call, _NO_CALLS):
                continue
            name = _function_name(call)
            if name in NON_DETERMINISTIC or isinstance(call, _RANDOM):
                self.facts.nondeterministic = True
            elif isinstance(call, _UNKNOWN_DETERMINISM):
                self.facts.unknown = True

    def determinism(self) -> None:
        declared = True
        for c in self.r.characteristics:
            if c.kind == "deterministic":
                declared = bool(c.value)
        at = self.r.function_offset
        if declared and self.facts.nondeterministic:
            raise self.reject(
                "INVALID_ARGUMENTS", "Non-deterministic function declared DETERMINISTIC", at
            )
        if not declared and not self.facts.nondeterministic and not self.facts.unknown:
            raise self.reject(
                "INVALID_ARGUMENTS", "Deterministic function declared NOT DETERMINISTIC", at
            )


#: Calls whose determinism Trino decides by its own rules (the current time): not judged.
_TIME_DEPENDENT = (
    exp.CurrentTimestamp, exp.CurrentDate, exp.CurrentTime, exp.CurrentUser,
)  # fmt: skip
#: :meth:`_Analyzer.calls`' classes: no call, non-deterministic, unknown (made once).
_NO_CALLS = (exp.Cast, exp.TryCast, exp.Case, exp.If, exp.Array)
_RANDOM, _UNKNOWN_DETERMINISM = (exp.Rand, exp.Uuid), (exp.Anonymous, *_TIME_DEPENDENT)


def _find_name(masked: str, name: str) -> int:
    """Where ``name`` is used as a name (not a call, not after a dot) in the masked text."""
    for m in re.finditer(rf"(?i)(?<![\w.]){re.escape(name)}(?!\w)", masked):
        if not masked[m.end() :].lstrip().startswith("("):
            return m.start()
    return 0
