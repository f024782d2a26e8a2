"""Trino type texts as the type writer spells them (``array(T)``, ``map(K, V)``,
``row(name T, ...)``), split into their parts.

A nested type is judged part by part (does the grammar read it as written? what is its sqlglot
type?), each part's answer cached: most row types of a migration are seen once, their parts
(``bigint``, a field name) many times. A text not spelled exactly so is left to the whole-text
path by its callers.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["composite"]

#: A row field's name as :func:`translator.dialects.trino.lexical.quote_name` writes it.
_FIELD = re.compile(r'([a-z_][a-z0-9_]*|"(?:[^"]|"")*") (.+)', re.S)


@lru_cache(maxsize=4096)
def composite(t: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """``(head, ((field name or "", type), ...))`` of ``array(T)``, ``map(K, V)`` or
    ``row(n T, ...)`` written exactly so (lower case, ``", "`` between items, no comment: a
    part read alone ends where its comment would swallow the rest of the whole); else None.

    Cached (an immutable answer): the grammar check and the sqlglot type of a nested type
    split the same texts."""
    if "--" in t or "/*" in t:
        return None
    for head in ("array", "map", "row"):
        if t.startswith(head + "(") and t.endswith(")"):
            break
    else:
        return None
    items = _split_items(t[len(head) + 1 : -1])
    arity = {"array": 1, "map": 2}.get(head)
    if items is None or (arity is not None and len(items) != arity):
        return None
    if head != "row":
        return head, tuple(("", i) for i in items)
    fields = []
    for item in items:
        m = _FIELD.fullmatch(item)
        if m is None or m.group(2) != m.group(2).lstrip():
            return None
        fields.append((m.group(1), m.group(2)))
    return head, tuple(fields)


def _split_items(inner: str) -> list[str] | None:
    """``inner`` split at its top-level ``", "`` (outside parentheses and quoted names), or
    None where it is not balanced or an item is empty or has space around it.

    Only the characters that change the split's state are visited (found by
    :data:`_SPLITTING`, in C): a row type's text is mostly names and type words."""
    items, depth, start, quoted = [], 0, 0, False
    for m in _SPLITTING.finditer(inner):
        c = m.group()
        if quoted:
            quoted = c != '"'
        elif c == '"':
            quoted = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0:  # a comma
            i = m.start()
            if inner[i + 1 : i + 2] != " ":
                return None
            items.append(inner[start:i])
            start = i + 2
    items.append(inner[start:])
    if quoted or depth != 0 or not all(i and i == i.strip() for i in items):
        return None
    return items


#: The characters :func:`_split_items` acts on; every other one leaves its state as it is.
_SPLITTING = re.compile(r'[",()]')
