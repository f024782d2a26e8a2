"""Within one run (a migration, a warehouse apply), each function statement is parsed once.

A migration reads a statement three times: its plan classifies it and names its function, the
warehouse takes the function's lock by name, and the compile merges it. Each read ran the whole
front end (the lark grammar, the Transformer, sqlglot's parse of the body): two thirds of a
migration's parsing was repeated work.

The IR a front end returns is a pure function of the statement's text, its place (file, line,
column, offset: every position in the result derives from it) and the dialect, and nothing
changes it afterwards (frozen dataclasses; the transpiler works on a copy of a body's sqlglot
tree). So inside :func:`run_scope` parses are kept, keyed by exactly those, and a later read
returns the same objects. The split of a script into statements is kept too (the warehouse's
lock names and the compile split the same text): a split is a pure function of the text, the
dialect's lexical rules and the file name, and its statements are never changed. Outside a
scope nothing is kept (a library call compiles what it is given, and holds no memory
afterwards). A statement that fails is not kept: errors are mutable
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
from translator.script import Lexical, StatementText
from translator.script import split_statements as _split

__all__ = [
    "MAX_ENTRIES",
    "keeps_parses",
    "parse_statement",
    "remember_split",
    "run_scope",
    "split_statements",
]

#: Parses a scope keeps (the least recently used go first): more than a migration file has
#: statements between its plan and its commit, few enough that bodies' trees stay small.
MAX_ENTRIES = 1024

#: Splits a scope keeps: the latest few (a script is split again right after its first split).
MAX_SPLITS = 4

_Key = tuple[str, str, Position]
_scope: ContextVar[OrderedDict[_Key, Statement] | None] = ContextVar(
    "statement_cache", default=None
)
_splits: ContextVar[OrderedDict[tuple[str, Lexical, str | None], list[StatementText]] | None] = (
    ContextVar("split_cache", default=None)
)


def keeps_parses() -> bool:
    """Whether a :func:`run_scope` is open here, so that a statement parsed now may be handed
    out again (with its body's sqlglot tree) to a later parse of the same text."""
    return _scope.get() is not None


@contextlib.contextmanager
def run_scope() -> Iterator[None]:
    """Keep parses until the outermost scope ends (a nested scope shares the outer one)."""
    if _scope.get() is not None:
        yield
        return
    token = _scope.set(OrderedDict())
    split_token = _splits.set(OrderedDict())
    try:
        yield
    finally:
        _splits.reset(split_token)
        _scope.reset(token)


def split_statements(script: str, lex: Lexical, *, file: str | None = None) -> list[StatementText]:
    """:func:`translator.script.split_statements`, reusing a split of the same text in the
    current :func:`run_scope` (a script that does not split is split again: errors are not
    kept). The list returned is a copy; its statements are shared."""
    entries = _splits.get()
    if entries is None:
        return _split(script, lex, file=file)
    key = (script, lex, file)
    hit = entries.get(key)
    if hit is None:
        hit = _split(script, lex, file=file)
        entries[key] = hit
        if len(entries) > MAX_SPLITS:
            entries.popitem(last=False)
    else:
        entries.move_to_end(key)
    return list(hit)


def remember_split(
    script: str, lex: Lexical, file: str | None, statements: list[StatementText]
) -> None:
    """Keep ``statements`` as the split of ``script`` in the current :func:`run_scope` (none
    open: nothing is kept), where the caller knows the split without scanning ``script`` again:
    a migration's script with some statements blanked out (spaces, every newline kept) splits
    into the other statements, unchanged and at their places (tests/migrate/test_units.py holds
    it to :func:`translator.script.split_statements`)."""
    entries = _splits.get()
    if entries is None:
        return
    entries[(script, lex, file)] = list(statements)
    if len(entries) > MAX_SPLITS:
        entries.popitem(last=False)


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
