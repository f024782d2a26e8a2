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
from itertools import repeat

__all__ = ["composite"]

#: A row field's name as :func:`translator.dialects.trino.lexical.quote_name` writes it, one
#: space, and its type, which does not start with a space (``\S``: no character that
#: ``str.lstrip`` strips).
_FIELD = re.compile(r'([a-z_][a-z0-9_]*|"(?:[^"]|"")*") (\S.*)', re.S)

#: The heads of a nested type, and how many items each takes (a row: any number).
_ARITY: dict[str, int | None] = {"array": 1, "map": 2, "row": None}


@lru_cache(maxsize=4096)
def composite(t: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """``(head, ((field name or "", type), ...))`` of ``array(T)``, ``map(K, V)`` or
    ``row(n T, ...)`` written exactly so (lower case, ``", "`` between items, no comment: a
    part read alone ends where its comment would swallow the rest of the whole); else None.

    Cached (an immutable answer): the grammar check and the sqlglot type of a nested type
    split the same texts."""
    if "--" in t or "/*" in t:
        return None
    head, paren, _ = t.partition("(")  # a head is followed by its "("
    if not paren or head not in _ARITY or not t.endswith(")"):
        return None
    items = _split_items(t[len(head) + 1 : -1])
    arity = _ARITY[head]
    if items is None or (arity is not None and len(items) != arity):
        return None
    if head != "row":
        return head, tuple(zip(repeat(""), items))
    fields = list(map(_FIELD.fullmatch, items))
    if None in fields:
        return None
    return head, tuple(map(re.Match.groups, fields))  # type: ignore[arg-type]  # no None


def _split_items(inner: str) -> list[str] | None:
    """``inner`` split at its top-level ``", "`` (outside parentheses and quoted names), or
    None where it is not balanced or an item is empty or has space around it.

    Most texts hold no quote and no parenthesis inside another (:data:`_FLAT`: the type of
    every item of most rows is a name or one with numbers, ``decimal(18,2)``): their items
    are found by one regular expression. Elsewhere only the characters that change the
    split's state are visited (found by :data:`_SPLITTING`, in C): a row type's text is mostly
    names and type words."""
    if _FLAT.fullmatch(inner) is not None:
        items = _FLAT_ITEMS.findall(inner)
        return items if items == list(map(str.strip, items)) else None
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
    if quoted or depth != 0 or not all(items) or items != list(map(str.strip, items)):
        return None
    return items


#: The characters :func:`_split_items` acts on; every other one leaves its state as it is.
_SPLITTING = re.compile(r'[",()]')

#: Items between ", "s, of no quote, no comma and no parenthesis but one holding neither (a
#: type's numbers): their only top-level commas are those of the ", "s, and the depth never
#: passes 1 (possessive: no backtracking, linear where it fails).
_FLAT = re.compile(r'(?:[^()",]++|\([^()"]*+\))++(?:, (?:[^()",]++|\([^()"]*+\))++)*+')
#: The items of a :data:`_FLAT` text, each after its start or a ", " (an item ends at a comma
#: outside its parentheses, which starts the next ", ").
_FLAT_ITEMS = re.compile(r'(?:^|, )((?:[^()",]++|\([^()"]*+\))++)')
