"""The function or namespace a statement names, read from its tokens, for statements the
front end does not parse (``USE``) or fails to parse (a broken ``CREATE FUNCTION``)."""

from __future__ import annotations

from collections.abc import Sequence

from translator.dialects import get_dialect
from translator.script import StatementText, Token
from translator.warehouse.errors import WarehouseError
from translator.warehouse.layout import FunctionRef


def _use_target(piece: StatementText, dialect: str) -> list[str] | None:
    """The name parts of a ``USE`` statement; None if it is no USE, [] if it names none."""
    words = piece.words
    if not words or words[0].kind != "word" or words[0].upper != "USE":
        return None
    rest = words[1:]
    if len(rest) > 1 and rest[0].kind == "word":
        if rest[0].upper == "CATALOG":
            return []
        if rest[0].upper in ("NAMESPACE", "DATABASE", "SCHEMA"):
            rest = rest[1:]
    parts, after = _name_parts(rest, dialect)
    return parts if parts and not after else []


def _name_parts(tokens: Sequence[Token], dialect: str) -> tuple[list[str], list[Token]]:
    """A dotted name at the start of ``tokens`` (significant ones), as the dialect reads it
    (Spark keeps a backquoted name's case), and the tokens after it."""
    parts: list[str] = []
    for i, t in enumerate(tokens):
        if len(parts) == i // 2 and i % 2 == 0 and t.kind in ("word", "qident"):
            parts.append(get_dialect(dialect).lexical.name(t))
        elif i % 2 == 1 and t.kind == "punct" and t.text == ".":
            continue
        else:
            return (parts if i % 2 == 1 else []), list(tokens[i:])
    return (parts if len(tokens) % 2 == 1 else []), []


def _guess_ref(piece: StatementText, dialect: str, namespace: str) -> FunctionRef | None:
    """The function a statement that does not parse names, read from its tokens, if it can be
    told: ``CREATE ... FUNCTION [IF [NOT] EXISTS] name (`` or ``DROP ... FUNCTION ...``."""
    words = piece.words
    at = next((i for i, t in enumerate(words) if t.upper == "FUNCTION"), None)
    if at is None:
        return None
    rest = words[at + 1 :]
    while rest and rest[0].kind == "word" and rest[0].upper in ("IF", "NOT", "EXISTS"):
        rest = rest[1:]
    parts, after = _name_parts(rest, dialect)
    if not parts or (after and after[0].text != "("):
        return None
    if parts == ["identifier"] and after:  # Spark's IDENTIFIER('name') clause
        return None
    try:
        return FunctionRef.parse(".".join(parts), namespace)
    except WarehouseError:
        return None
