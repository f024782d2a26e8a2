"""The AST of a Trino routine: its header and its statements, built from the lark parse.

The Trino grammar (``grammars/trino.lark``) already reads compound bodies as real structure
(blocks, IF, CASE, loops, labels) and keeps expressions opaque: a run of tokens. This module
turns that tree into small frozen dataclasses, one per statement kind, each with the offset
Trino would report an error at. Expressions stay text (:class:`Expr`); the analyzer and the
lowering read them with sqlglot when they need their structure.

Offsets count from the start of the statement text; :func:`translator.errors.position_at`
turns them into line and column.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from lark import Token, Tree

from translator.dialects.grammar import load_parser, parse_with, token_end, token_start
from translator.rebuild import Reduced, by_init

__all__ = [
    "Block",
    "CaseStmt",
    "Characteristic",
    "Declare",
    "Expr",
    "ForStmt",
    "IfStmt",
    "Iterate",
    "Leave",
    "LoopStmt",
    "Name",
    "RepeatStmt",
    "Return",
    "Routine",
    "SetStmt",
    "Statement",
    "WhileStmt",
    "parse_routine",
    "read_routine",
]


@dataclass(frozen=True, slots=True)
class Name:
    """An identifier as Trino compares it (lower case unless quoted) and where it is."""

    value: str
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class Expr:
    """An expression exactly as written, and where it starts."""

    text: str
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class Declare:
    names: tuple[Name, ...]
    type: str
    default: Expr | None
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class Block:
    declarations: tuple[Declare, ...]
    statements: tuple[Statement, ...]
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class Return:
    value: Expr
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class SetStmt:
    target: Name
    value: Expr
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class IfStmt:
    """``IF c1 THEN ... ELSEIF c2 THEN ... ELSE ... END IF``: ``branches`` in order."""

    branches: tuple[tuple[Expr, tuple[Statement, ...]], ...]
    otherwise: tuple[Statement, ...] | None
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class CaseStmt:
    """A simple CASE (``operand`` set: each WHEN is a value) or a searched one (conditions)."""

    operand: Expr | None
    whens: tuple[tuple[Expr, tuple[Statement, ...]], ...]
    otherwise: tuple[Statement, ...] | None
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class Leave:
    label: Name
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class Iterate:
    label: Name
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class LoopStmt:
    label: Name | None
    body: tuple[Statement, ...]
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class WhileStmt:
    label: Name | None
    condition: Expr
    body: tuple[Statement, ...]
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class RepeatStmt:
    label: Name | None
    body: tuple[Statement, ...]
    until: Expr
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class ForStmt:
    """``FOR v IN low TO high DO ... END FOR`` (newer Trino; not in every Trino release)."""

    label: Name | None
    variable: Name
    low: Expr
    high: Expr
    body: tuple[Statement, ...]
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


Statement = (
    Block | Return | SetStmt | IfStmt | CaseStmt | Leave | Iterate | LoopStmt | WhileStmt
    | RepeatStmt | ForStmt
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Characteristic:
    """``kind`` is Trino's clause family (``language``, ``deterministic``, ``null-call``,
    ``security``, ``comment``, ``properties``); ``value`` what it says."""

    kind: str
    value: Any
    offset: int

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class Routine:
    """One ``CREATE FUNCTION``: ``body`` is a :class:`Block` or the RETURN of a plain body.

    ``function_offset`` is where ``FUNCTION`` stands: Trino reports errors about the whole
    routine (determinism, duplicate clauses) at its function specification, which starts there.
    """

    name: tuple[str, ...]
    parameters: tuple[tuple[Name, str], ...]
    return_type: str
    characteristics: tuple[Characteristic, ...]
    body: Block | Return
    function_offset: int
    text: str

    def __reduce__(self) -> Reduced:
        return by_init(self)


def parse_routine(text: str) -> Routine:
    """The routine of one Trino ``CREATE FUNCTION`` statement.

    Raises :class:`translator.errors.SqlSyntaxError` where the grammar does not take the text,
    and ``ValueError`` for a statement that is not a CREATE FUNCTION.
    """
    return read_routine(text, parse_with(load_parser("trino", "start", positions=False), text))


def read_routine(text: str, tree: Tree[Token]) -> Routine:
    """The routine of ``tree``, the grammar's parse of the statement ``text`` (the front end
    hands over the tree it parsed: the statement is not parsed twice)."""
    create = tree.children[0]
    if not isinstance(create, Tree) or create.data != "create_function":
        raise ValueError("not a CREATE FUNCTION statement")
    return _Reader(text).routine(create)


def _tokens(node: Any) -> list[Token]:
    if isinstance(node, Token):
        return [node]
    if isinstance(node, Tree):
        return [t for t in node.scan_values(lambda v: isinstance(v, Token))]
    return []


def _first(node: Any) -> Token:
    """``_tokens(node)[0]`` without listing every token under ``node`` (a statement's start is
    asked for at each level of nesting: listing them all would cost the nesting depth times)."""
    found = _edge(node, last=False)
    if found is None:
        raise IndexError("no token")
    return found


def _last(node: Any) -> Token:
    """``_tokens(node)[-1]``, likewise."""
    found = _edge(node, last=True)
    if found is None:
        raise IndexError("no token")
    return found


def _edge(node: Any, last: bool) -> Token | None:
    if isinstance(node, Token):
        return node
    if isinstance(node, Tree):
        for child in reversed(node.children) if last else node.children:
            found = _edge(child, last)
            if found is not None:
                return found
    return None


def _trees(children: list[Any], name: str) -> list[Tree[Any]]:
    return [c for c in children if isinstance(c, Tree) and c.data == name]


class _Reader:
    """Reads the lark tree of one statement; ``text`` is the statement it was parsed from.

    Its recursion, a statement inside another, takes three Python frames a level or more
    (``statement``, ``statements`` and its generator): the interpreted reader of a body nested
    past a third of Python's recursion limit raises ``RecursionError``, which its callers take
    for "too deep". Compiled by mypyc a call takes no Python frame, so nothing would stop it
    before the C stack overflows (a crash): ``levels`` counts what is left of that third, and
    the reader raises the same ``RecursionError`` itself where it runs out. (The front end's
    tree has passed lark's interpreted transformer first, which bounds it; a statement read
    alone, :func:`parse_routine`, has not.)"""

    def __init__(self, text: str) -> None:
        self.text = text
        self.levels = sys.getrecursionlimit() // 3

    def span(self, node: Any) -> tuple[int, int]:
        return token_start(_first(node)), token_end(_last(node))

    def source(self, node: Any) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def expr(self, node: Any) -> Expr:
        start, end = self.span(node)
        return Expr(self.text[start:end], start)

    def name(self, node: Any) -> Name:
        tok = _first(node)
        if tok.type == "QUOTED_IDENT":
            return Name(tok.value[1:-1].replace('""', '"'), token_start(tok))
        return Name(tok.value.lower(), token_start(tok))

    def routine(self, create: Tree[Any]) -> Routine:
        children = create.children
        function_tok = children[3]
        qname = children[4]
        params = []
        for p in _trees(children[5].children, "parameter"):
            pname, ptype = p.children[0], p.children[1]
            name = self.name(pname) if pname is not None else Name("", self.span(ptype)[0])
            params.append((name, self.source(ptype)))
        returns = children[7]
        return_type = self.source(returns.children[1]) if returns.data == "returns_type" else ""
        chars: list[Characteristic] = []
        if children[6] is not None:  # COMMENT before RETURNS (the spec appendix's order)
            chars.append(self.characteristic(children[6]))
        for c in children[8:-1]:
            chars.append(self.characteristic(c))
        body_node = children[-1]
        body: Block | Return
        if body_node.data == "compound_body":
            body = self.block(body_node.children[0])
        else:
            keyword, rest = _first(body_node), _last(body_node)
            body = Return(Expr(str(rest.value), token_start(rest)), token_start(keyword))
        return Routine(
            name=tuple(self.name(p).value for p in qname.children),
            parameters=tuple(params),
            return_type=return_type,
            characteristics=tuple(chars),
            body=body,
            function_offset=token_start(_first(function_tok)),
            text=self.text,
        )

    def characteristic(self, node: Tree[Any]) -> Characteristic:
        first = _first(node)
        kind = {
            "language": "language",
            "deterministic": "deterministic",
            "returns_null_on_null_input": "null-call",
            "called_on_null_input": "null-call",
            "security": "security",
            "comment": "comment",
            "early_comment": "comment",
            "properties": "properties",
        }[str(node.data)]
        value: Any = None
        if kind == "deterministic":
            value = node.children[0] is None
        elif kind == "language":
            value = self.source(node.children[1]).upper()
        elif kind == "null-call":
            value = node.data == "called_on_null_input"
        elif kind == "security":
            value = str(node.children[1]).upper()
        elif kind == "properties":  # where the first property is: Trino's error points there
            value = token_start(_first(node.children[1]))
        return Characteristic(kind, value, token_start(first))

    def block(self, node: Tree[Any]) -> Block:
        decls = tuple(self.declare(d) for d in _trees(node.children, "declaration"))
        lists = _trees(node.children, "statement_list")
        stmts = self.statements(lists[0]) if lists else ()
        return Block(decls, stmts, token_start(_first(node)))

    def declare(self, node: Tree[Any]) -> Declare:
        names: list[Name] = []
        type_node: Any = None
        default: Expr | None = None
        after_default = False
        for c in node.children:
            if isinstance(c, Token) and c.type == "DEFAULT":
                after_default = True
            elif isinstance(c, Tree) and c.data == "ident" and type_node is None:
                names.append(self.name(c))
            elif isinstance(c, Tree) and c.data == "expr" and after_default:
                default = self.expr(c)
            elif isinstance(c, Tree) and type_node is None:
                type_node = c
        return Declare(tuple(names), self.source(type_node), default, token_start(_first(node)))

    def statements(self, node: Tree[Any]) -> tuple[Statement, ...]:
        return tuple(self.statement(c) for c in node.children if isinstance(c, Tree))

    def label(self, node: Any) -> Name | None:
        if node is None:
            return None
        return self.name(node.children[0])

    def statement(self, node: Tree[Any]) -> Statement:
        if self.levels <= 0:
            raise RecursionError("maximum recursion depth exceeded reading nested statements")
        self.levels -= 1
        try:
            kind = node.data
            ch = node.children
            start = token_start(_first(node))
            if kind == "block":
                return self.block(node)
            if kind == "return_stmt":
                return Return(self.expr(ch[1]), start)
            if kind == "set_stmt":
                return SetStmt(self.name(ch[1]), self.expr(ch[3]), start)
            if kind == "leave_stmt":
                return Leave(self.name(ch[1]), start)
            if kind == "iterate_stmt":
                return Iterate(self.name(ch[1]), start)
            if kind == "if_stmt":
                branches = [(self.expr(ch[1]), self.statements(ch[3]))]
                for e in _trees(ch, "elseif_clause"):
                    branches.append((self.expr(e.children[1]), self.statements(e.children[3])))
                return IfStmt(tuple(branches), self.otherwise(ch), start)
            if kind == "case_stmt":
                operand = self.expr(ch[1]) if ch[1] is not None else None
                whens = tuple(
                    (self.expr(w.children[1]), self.statements(w.children[3]))
                    for w in _trees(ch, "case_when")
                )
                return CaseStmt(operand, whens, self.otherwise(ch), start)
            label = self.label(ch[0])
            body = self.statements(_trees(ch, "statement_list")[0])
            if kind == "loop_stmt":
                return LoopStmt(label, body, start)
            exprs = _trees(ch, "expr")
            if kind == "while_stmt":
                return WhileStmt(label, self.expr(exprs[0]), body, start)
            if kind == "repeat_stmt":
                return RepeatStmt(label, body, self.expr(exprs[0]), start)
            if kind == "for_stmt":
                variable = self.name(_trees(ch, "ident")[0])
                low, high = self.range(exprs[0])
                return ForStmt(label, variable, low, high, body, start)
            raise ValueError(f"unknown routine statement {kind}")  # pragma: no cover - grammar
        finally:
            self.levels += 1

    def otherwise(self, children: list[Any]) -> tuple[Statement, ...] | None:
        found = _trees(children, "else_clause")
        return self.statements(found[0].children[1]) if found else None

    def range(self, node: Tree[Any]) -> tuple[Expr, Expr]:
        """``low TO high``: split at the top-level ``TO`` (the grammar checked it is there)."""
        toks = _tokens(node)
        depth = 0
        for i, tok in enumerate(toks):
            if tok.type in ("LPAR", "LSQB", "CASE"):
                depth += 1
            elif tok.type in ("RPAR", "RSQB", "END"):
                depth -= 1
            elif depth == 0 and tok.type == "NAME" and tok.value.lower() == "to" and i > 0:
                lo_end, hi_start = token_end(toks[i - 1]), token_start(toks[i + 1])
                lo_start, hi_end = token_start(toks[0]), token_end(toks[-1])
                return (
                    Expr(self.text[lo_start:lo_end], lo_start),
                    Expr(self.text[hi_start:hi_end], hi_start),
                )
        raise ValueError("a FOR range without TO")  # pragma: no cover - the builder checks
