"""Entity tags of loaded functions, and the preconditions that read them (RFC 9110, 8.8.3, 13.1).

The official REST document gives loadTable an ``ETag`` and an ``If-None-Match`` (a client that
holds the current metadata gets a 304 instead of the body again). This server does the same for
loadFunction, and honours ``If-Match`` on dropFunction, which neither the official document nor
our reading of apache/iceberg PR #17966 has: without it, a client that read a function, decided
to drop it and sent DELETE would also drop whatever another writer put there meanwhile (a lost
update). With ``If-Match: <the tag it read>`` the drop happens only if the function is still
what the client read, else 412. A server that ignores ``If-Match`` (as RFC 9110 lets one that does
not support it) drops unconditionally, as before.

A tag names one metadata file's exact bytes at one location: a hash of both, so a function
dropped and created again at the same file name (its version 1) gets a new tag when its content
differs. Tags are strong: the bytes served are the file's bytes.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

__all__ = ["ANY", "entity_tag", "matches", "parse_tags"]

#: ``*`` in a precondition: any current representation.
ANY: Final = "*"

#: One member of an If-Match / If-None-Match list: ``*``, ``"tag"`` or ``W/"tag"``.
_MEMBER: Final = re.compile(r'\s*(\*|(?:W/)?"[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)')


def entity_tag(location: str, raw: bytes) -> str:
    """The strong entity tag (quotes included) of the metadata file ``raw`` at ``location``."""
    digest = hashlib.sha256(location.encode("utf-8") + b"\0" + raw).hexdigest()
    return f'"{digest[:40]}"'


def parse_tags(value: str | None) -> list[str] | None:
    """The entity tags (or ``*``) of an ``If-Match`` / ``If-None-Match`` header; None without
    one. ValueError where it is not a list of entity tags."""
    if value is None:
        return None
    tags: list[str] = []
    pos = 0
    text = value.strip()
    while pos < len(text):
        m = _MEMBER.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError("not a list of entity tags")
        tags.append(m.group(1))
        pos = m.end()
    if not tags:
        raise ValueError("not a list of entity tags")
    return tags


def matches(tags: list[str], current: str, *, weak: bool) -> bool:
    """Whether ``current`` (a strong tag) is among ``tags``: strong comparison for If-Match
    (``weak=False``: a ``W/`` tag never matches), weak for If-None-Match."""
    for tag in tags:
        if tag in (ANY, current):
            return True
        if weak and tag.startswith("W/") and tag[2:] == current:
            return True
    return False
