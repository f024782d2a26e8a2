"""sqlglot work on routine bodies: parse in the source dialect (and, later, transpile and check).

A body sqlglot cannot parse is not an error: the engine may well accept it. It is kept verbatim
and flagged, so compile can still store it for its own dialect.
"""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot.errors import SqlglotError

__all__ = ["parse_body"]


def parse_body(text: str, kind: str, sqlglot_dialect: str) -> tuple[Any, str | None]:
    """``(ast, None)`` when sqlglot parses ``text``, else ``(None, reason)``.

    Compound ``BEGIN ... END`` bodies are not sqlglot's business (it has no routine-statement
    parser); they are flagged as such.
    """
    if kind == "compound":
        return None, "compound BEGIN ... END bodies are not parsed by sqlglot"
    try:
        ast = sqlglot.parse_one(text, read=sqlglot_dialect)
    except SqlglotError as e:
        return None, f"sqlglot could not parse the body: {_first_line(str(e))}"
    except (RecursionError, ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
        # sqlglot is a third-party parser: any failure inside it flags the body, never crashes us.
        return None, f"sqlglot failed on the body: {type(e).__name__}"
    if ast is None:
        return None, "sqlglot found no expression in the body"
    return ast, None


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "no detail"
