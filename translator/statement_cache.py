"""Each function statement is parsed once per process, however many steps read it.

A migration reads a statement three times: its plan classifies it and names its function, the
warehouse takes the function's lock by name, and the compile merges it. Each read ran the whole
front end (the lark grammar, the Transformer, sqlglot's parse of the body): about two thirds
of a migration's parsing was repeated work.

The IR a front end returns is a pure function of the statement's text, its place (file, line,
column, offset: every position in the result derives from it) and the dialect, and nothing
changes it afterwards (frozen dataclasses; the transpiler works on a copy of a body's sqlglot
tree). So parses are kept in a small LRU keyed by exactly those, and a later read returns the
same objects. A statement that fails is not kept: errors are mutable (callers fill in a missing
position) and rare, so it is parsed again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from translator.dialects import Dialect
from translator.errors import Position
from translator.ir import Statement
from translator.script import StatementText

__all__ = ["clear", "parse_statement"]

#: Enough for every statement of a big migration file between its plan and its commit.
MAX_ENTRIES = 2048

_Key = tuple[str, str, Position]
_entries: OrderedDict[_Key, Statement] = OrderedDict()
_lock = threading.Lock()


def parse_statement(dialect: Dialect, piece: StatementText) -> Statement:
    """``dialect.parse_statement(piece)``, reusing an earlier parse of the same statement."""
    key = (dialect.name, piece.text, piece.position)
    with _lock:
        hit = _entries.get(key)
        if hit is not None:
            _entries.move_to_end(key)
            return hit
    stmt = dialect.parse_statement(piece)
    with _lock:
        _entries[key] = stmt
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)
    return stmt


def clear() -> None:
    with _lock:
        _entries.clear()
