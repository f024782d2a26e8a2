"""Secrets never appear in a message: passwords in URLs, ``password=`` style parameters, and any
secret a caller names are masked before text reaches an error, a warning or a report.

A SQLAlchemy URL (``postgresql+psycopg://alice:SECRET@host/db``) is the usual carrier: drivers
and SQLAlchemy itself echo the URL, or parts of it, in their errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

__all__ = ["MASK", "mask_secrets", "url_secrets"]

MASK = "***"

#: ``scheme://user:password@`` (the password runs to the last '@' before the host part).
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s]*:)(?P<secret>[^\s/]*)@")
#: ``password=...``, ``pwd: ...``, ``secret-key=...``, ``token=...`` in a query string or a DSN.
_KEY_VALUE = re.compile(
    r"(?P<head>\b(?:password|passwd|pwd|secret|token|access[_-]?key|secret[_-]?key|api[_-]?key)"
    r"\s*[=:]\s*)(?P<secret>'[^']*'|\"[^\"]*\"|[^\s&;,)]*[^\s&;,):])",
    re.IGNORECASE,
)


def url_secrets(url: str) -> list[str]:
    """The password of a ``scheme://user:password@host`` URL, as written and URL-decoded."""
    out: list[str] = []
    for m in _URL_PASSWORD.finditer(url):
        secret = m.group("secret")
        if secret:
            out += [secret, unquote(secret)]
    for m in _KEY_VALUE.finditer(url):
        out += [m.group("secret").strip("'\""), unquote(m.group("secret").strip("'\""))]
    return [s for s in out if s]


def mask_secrets(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with URL passwords, ``password=`` values and every one of ``secrets`` masked."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= 3:  # masking "a" would garble the message and hide nothing
            text = text.replace(secret, MASK)
    text = _URL_PASSWORD.sub(lambda m: f"{m.group('head')}{MASK}@", text)
    return _KEY_VALUE.sub(lambda m: f"{m.group('head')}{MASK}", text)
