"""lark's LALR tables kept between processes, so that a command does not build them each time.

Building a dialect's parser (the grammar's analysis and its LALR tables) takes about 0.1 s, and a
migration builds three or four: a good part of a short command's start-up. lark can keep a
parser in a file itself (``cache=True``), but as a pickle in the temporary directory, which
another user of the machine could replace with one that runs code when it is loaded. Here the
parser's own serialized form (plain data: dicts, lists, tuples, strings, numbers) is written
with :mod:`marshal` to the user's cache directory (``$XDG_CACHE_HOME/iceberg-udf``, else
``~/.cache/iceberg-udf``), as a file only its owner may read or write. marshal reads plain
values back at C speed (Spark's parser 2.3 -> 0.9 ms against the JSON text this cache kept
before, whose tuples and number keys took a decoding hook for each object) and runs no code.

Nothing read is trusted blindly: the file name and its content carry a key made of lark's version,
the grammar's text, the parser options and the Python version (marshal's format is Python's); the
content's SHA-256 digest is checked before marshal reads a byte of it, so a file cut short or
damaged is never decoded (marshal is not made to read damaged data). A file whose key or digest
differs, that is not its user's own (another user's, or writable by others), or that lark cannot
load, is ignored and the parser built (and written) again. A cache directory that cannot be written
is no error: the parser is built every time, as before. ``ICEBERG_UDF_PARSER_CACHE=0`` turns the
cache off.

Each grammar change, lark or Python upgrade makes a new key and a new file. When a process writes
one (a miss, rare), it removes the files it can tell are dead: the JSON files of this cache's
earlier format, other keys' files not used for :data:`STALE_AFTER_S` (a load marks its file used,
by its modification time, at most once a day), and temporary files a crashed write left; only
files of this user, by this cache's names, are touched.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lark
from lark import Lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

__all__ = ["cache_dir", "cached_parser"]

#: Bumped when the file's layout changes.
_FORMAT = 3
#: A file starts with this, then the SHA-256 digest of the rest (marshal's bytes).
_MAGIC = b"iceberg-udf lark parser\n"
_DIGEST = 32
#: Another key's file not used for this long is taken for a version no longer in use.
STALE_AFTER_S = 30 * 24 * 3600
#: A load marks its file used (its modification time) when it was last marked this long ago.
_MARK_USED_AFTER_S = 24 * 3600
#: Temporary files of a write are gone within a second; older ones were left by a crash.
_TMP_STALE_AFTER_S = 24 * 3600
#: This cache's file names: its parsers, those of its JSON format before, its temporary files.
_OURS = re.compile(r"lark-[0-9a-f]{32}\.(marshal|json)|\.lark-[A-Za-z0-9_]+\.tmp")


def cache_dir() -> Path | None:
    """Where parsers are kept, or None when the cache is off."""
    if os.environ.get("ICEBERG_UDF_PARSER_CACHE", "1") == "0":
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "iceberg-udf"


def cached_parser(grammar: str, options: dict[str, Any], build: Callable[[], Lark]) -> Lark:
    """The parser ``build()`` makes for ``grammar`` with ``options``, loaded from the cache
    when a file there has exactly this key; else built, and kept for the next process."""
    folder = cache_dir()
    if folder is None:
        return build()
    key = _key(grammar, options)
    path = folder / f"lark-{key[:32]}.marshal"
    loaded = _load(path, key)
    if loaded is not None:
        return loaded
    parser = build()
    _store(path, key, parser)
    return parser


def _key(grammar: str, options: dict[str, Any]) -> str:
    material = json.dumps(
        [_FORMAT, lark.__version__, grammar, options, sys.version_info[:2], marshal.version],
        sort_keys=True,
        ensure_ascii=True,
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _load(path: Path, key: str) -> Lark | None:
    try:
        with path.open("rb") as f:
            st = os.fstat(f.fileno())
            if not _written_by_us(st):
                return None
            if time.time() - st.st_mtime > _MARK_USED_AFTER_S and os.utime in os.supports_fd:
                with contextlib.suppress(OSError):  # in use: not stale (module doc)
                    os.utime(f.fileno())
            blob = f.read()
        head = len(_MAGIC) + _DIGEST
        if not blob.startswith(_MAGIC) or len(blob) <= head:
            return None
        if hashlib.sha256(blob[head:]).digest() != blob[len(_MAGIC) : head]:
            return None  # cut short or damaged: not for marshal to read
        document = marshal.loads(blob[head:])
        if not isinstance(document, dict) or document.get("key") != key:
            return None
        parser = Lark.load({"data": document["data"], "memo": document["memo"]})
        # Set by lark's grammar compiler, which a loaded parser skips; its lexer has the list.
        parser.ignore_tokens = list(parser.lexer_conf.ignore)
        return parser
    except Exception:  # missing, unreadable, stale or damaged: built again
        return None


def _written_by_us(st: os.stat_result) -> bool:
    """Whether only this user (or the superuser) can have written the file: it is ours and no
    one else may write it. A digest says a file is whole, not who made it: in a cache folder
    that others can write (a shared ``XDG_CACHE_HOME``), a file of theirs could hand marshal
    data made to crash it, or lark a parser that reads differently."""
    if not hasattr(os, "geteuid"):  # no owners to ask (Windows): the folder is the user's
        return True
    return st.st_uid == os.geteuid() and not st.st_mode & 0o022


def _store(path: Path, key: str, parser: Lark) -> None:
    try:
        data, memo = parser.memo_serialize([TerminalDef, Rule])
        document = {"key": key, "data": data, "memo": memo}
        payload = marshal.dumps(document)
        if marshal.loads(payload) != document:
            return  # something marshal does not carry as it is: not kept
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".lark-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except Exception:  # a cache that cannot be written only costs the next start-up
        return
    _prune(path)


def _prune(kept: Path) -> None:
    """Remove the dead files of ``kept``'s folder (module doc); any error leaves them."""
    now = time.time()
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    with contextlib.suppress(OSError), os.scandir(kept.parent) as entries:
        for entry in entries:
            if entry.name == kept.name or not _OURS.fullmatch(entry.name):
                continue
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                if not entry.is_file(follow_symlinks=False) or uid not in (None, st.st_uid):
                    continue
                age = now - st.st_mtime
                if entry.name.endswith(".json") or age > (
                    _TMP_STALE_AFTER_S if entry.name.endswith(".tmp") else STALE_AFTER_S
                ):
                    os.unlink(entry.path)
