"""A file's function statements as units to apply, and the file text that applies only some
of them (the others blanked out, every position kept)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from translator.migrate.report import StatementReport
from translator.script import StatementText
from translator.warehouse.layout import FunctionRef


@dataclass(slots=True)
class Item:
    """A function statement to apply."""

    piece: StatementText
    report: StatementReport
    ref: FunctionRef
    #: The name as the statement wrote it (dotted), to attribute unpositioned warnings.
    key: str
    ledger_key: str

    @property
    def start(self) -> int:
        return self.piece.position.offset

    @property
    def end(self) -> int:
        return self.piece.position.offset + len(self.piece.text)


@dataclass(slots=True)
class Unit:
    """Consecutive function statements of one file whose unqualified names share a namespace."""

    namespace: str
    items: list[Item] = field(default_factory=list)


def ledger_statements(items: Sequence[Item]) -> list[tuple[str, str]]:
    """What the ledger records of applied ``items``: (statement key, function)."""
    return [(it.ledger_key, str(it.ref)) for it in items]


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def mask(text: str, keep: Sequence[Item], pieces: Sequence[StatementText], tail: int) -> str:
    """``text`` with every statement but ``keep`` (and everything from ``tail`` on) blanked:
    the kept statements stay at their offsets, lines and columns, with their ``;``."""
    kept = {id(it.piece) for it in keep}
    out: list[str] = []
    pos = 0
    for p in pieces:
        if id(p) in kept:
            continue
        start, end = p.position.offset, p.position.offset + len(p.text)
        out.append(text[pos:start])
        out.append(_blank(text[start:end]))
        pos = end
    out.append(text[pos:tail])
    out.append(_blank(text[tail:]))
    return "".join(out)


def head_line(text: str) -> str:
    first = text.split("\n", 1)[0].strip()
    return first if len(first) <= 80 else first[:77] + "..."
