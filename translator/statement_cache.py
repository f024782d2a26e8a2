"""Within one run (a migration, a warehouse apply), each function statement is parsed once.

A migration reads a statement three times: its plan classifies it and names its function, the
warehouse takes the function's lock by name, and the compile merges it. Each read ran the whole
front end (the lark grammar, the Transformer, sqlglot's parse of the body): two thirds of a
migration's parsing was repeated work.

The IR a front end returns is a pure function of the statement's text, its place (file, line,
column, offset: every position in the result derives from it) and the dialect, and nothing
changes it afterwards (frozen dataclasses; the transpiler works on a copy of a body's sqlglot
tree). So inside :func:`run_scope` parses are kept, keyed by exactly those, and a later read
returns the same objects. Outside a scope nothing is kept (a library call compiles what it is
given, and holds no memory afterwards). A statement that fails is not kept: errors are mutable
(callers fill in a missing position) and rare, so it is parsed again.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Iterator
from contextvars import ContextVar

from translator.dialects import Dialect
from translator.dialects.base import TypeInference
from translator.errors import Position
from translator.ir import Statement
from translator.script import StatementText

__all__ = ["MAX_ENTRIES", "parse_statement", "run_scope"]

#: Parses a scope keeps (the least recently used go first): more than a migration file has
#: statements between its plan and its commit, few enough that bodies' trees stay small.
MAX_ENTRIES = 1024

_Key = tuple[str, str, Position]
_scope: ContextVar[OrderedDict[_Key, Statement] | None] = ContextVar(
    "statement_cache", default=None
)


@contextlib.contextmanager
def run_scope() -> Iterator[None]:
    """Keep parses until the outermost scope ends (a nested scope shares the outer one)."""
    if _scope.get() is not None:
        yield
        return
    token = _scope.set(OrderedDict())
    try:
        yield
    finally:
        _scope.reset(token)


def parse_statement(
    dialect: Dialect, piece: StatementText, infer: TypeInference | None = None
) -> Statement:
    """``dialect.parse_statement(piece, infer)``, reusing an earlier parse of the same statement
    in the current :func:`run_scope` (not with ``infer``: a session's answer may change)."""
    entries = _scope.get()
    if entries is None or infer is not None:
        return dialect.parse_statement(piece, infer)
    key = (dialect.name, piece.text, piece.position)
    hit = entries.get(key)
    if hit is not None:
        entries.move_to_end(key)
        return hit
    stmt = dialect.parse_statement(piece)
    entries[key] = stmt
    if len(entries) > MAX_ENTRIES:
        entries.popitem(last=False)
    return stmt
