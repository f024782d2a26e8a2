"""Within one run (a migration, a warehouse apply), each function statement is parsed once.

A migration reads a statement three times: its plan classifies it and names its function, the
warehouse takes the function's lock by name, and the compile merges it. Each read ran the whole
front end (the lark grammar, the Transformer, sqlglot's parse of the body): two thirds of a
migration's parsing was repeated work.

The IR a front end returns is a pure function of the statement's text, its place (file, line,
column, offset: every position in the result derives from it) and the dialect, and nothing
changes it afterwards (frozen dataclasses) but the one compile that uses up a body's sqlglot
tree (:func:`translator.compile.owned_trees`), which first takes its statements out of the
scope (:func:`release`). So inside :func:`run_scope` parses are kept, keyed by exactly those,
and a later read returns the same objects until a compile has used them; a read after that
parses the statement again (a retry of a commit that lost a race). The split of a script
into statements is kept too (the warehouse's lock names and the compile split the same text):
a split is a pure function of the text, the dialect's lexical rules and the file name, and its
statements are never changed. Outside a scope nothing is kept (a library call compiles what
it is given, and holds no memory afterwards). A statement that fails is not kept: errors are
mutable (callers fill in a missing position) and rare, so it is parsed again.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextvars import ContextVar

from translator.dialects import Dialect
from translator.dialects.base import TypeInference
from translator.errors import Position
from translator.ir import Statement
from translator.script import Lexical, StatementText
from translator.script import split_statements as _split

__all__ = [
    "MAX_ENTRIES",
    "parse_statement",
    "release",
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


class _Parses:
    """A scope's parses: by key, least recently used first, and each kept statement's key (by
    the statement's ``id``: it is alive while it is kept) for :func:`release`."""

    __slots__ = ("by_key", "key_of")

    def __init__(self) -> None:
        self.by_key: OrderedDict[_Key, Statement] = OrderedDict()
        self.key_of: dict[int, _Key] = {}

    def drop(self, key: _Key) -> None:
        self.key_of.pop(id(self.by_key.pop(key)), None)


_scope: ContextVar[_Parses | None] = ContextVar("statement_cache", default=None)
_splits: ContextVar[OrderedDict[tuple[str, Lexical, str | None], list[StatementText]] | None] = (
    ContextVar("split_cache", default=None)
)


@contextlib.contextmanager
def run_scope() -> Iterator[None]:
    """Keep parses until the outermost scope ends (a nested scope shares the outer one)."""
    if _scope.get() is not None:
        yield
        return
    token = _scope.set(_Parses())
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
    parses = _scope.get()
    if parses is None or infer is not None:
        return dialect.parse_statement(piece, infer)
    entries = parses.by_key
    key = (dialect.name, piece.text, piece.position)
    hit = entries.get(key)
    if hit is not None:
        entries.move_to_end(key)
        return hit
    stmt = dialect.parse_statement(piece)
    entries[key] = stmt
    parses.key_of[id(stmt)] = key
    if len(entries) > MAX_ENTRIES:
        parses.drop(next(iter(entries)))
    return stmt


def release(statements: Iterable[object]) -> None:
    """Take ``statements`` out of the current :func:`run_scope` (none open, or not kept:
    nothing to do): their caller is about to use up their bodies' sqlglot trees, so a later
    read of the same statement must parse it again. Whoever still holds one of them keeps its
    fields, but not its body's tree."""
    parses = _scope.get()
    if parses is None:
        return
    for stmt in statements:
        key = parses.key_of.get(id(stmt))
        if key is not None and parses.by_key.get(key) is stmt:
            parses.drop(key)
