"""lark's LALR tables kept between processes, so that a command does not build them each time.

Building a dialect's parser (the grammar's analysis and its LALR tables) takes about 0.1 s, and a
migration builds three or four: a good part of a short command's start-up. lark can keep a
parser in a file itself (``cache=True``), but as a pickle in the temporary directory, which
another user of the machine could replace with one that runs code when it is loaded. Here the
parser's own serialized form (plain data: lists, strings, numbers) is written as JSON to the
user's cache directory (``$XDG_CACHE_HOME/iceberg-udf``, else ``~/.cache/iceberg-udf``).

Nothing read is trusted blindly: the file name and its content carry a key made of lark's
version, the grammar's text and the parser options, and a file whose key differs, that does not
parse as JSON, or that lark cannot load is ignored and the parser built (and written) again. A
cache directory that cannot be written is no error: the parser is built every time, as before.
``ICEBERG_UDF_PARSER_CACHE=0`` turns the cache off.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lark
from lark import Lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

__all__ = ["cache_dir", "cached_parser"]

#: Bumped when the file's layout changes.
_FORMAT = 2
#: JSON has neither tuples nor non-string keys: such values are written as one-key objects.
#: A dict whose values are all tuples (each state of lark's LALR table: terminal -> action and
#: argument) is one object of rows ``[key, *items]``: a JSON object a tuple would make the
#: decoder build about 3,000 objects a grammar and call the hook for each, half of a load's
#: decoding (Spark's parser 4.9 -> 2.8 ms).
_TUPLE, _DICT, _TUPLE_VALUES = "\x00tuple", "\x00dict", "\x00tuples"


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
    path = folder / f"lark-{key[:32]}.json"
    loaded = _load(path, key)
    if loaded is not None:
        return loaded
    parser = build()
    _store(path, key, parser)
    return parser


def _key(grammar: str, options: dict[str, Any]) -> str:
    material = json.dumps(
        [_FORMAT, lark.__version__, grammar, options], sort_keys=True, ensure_ascii=True
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _load(path: Path, key: str) -> Lark | None:
    try:
        document = json.loads(path.read_text("utf-8"), object_hook=_decode)
        if not isinstance(document, dict) or document.get("key") != key:
            return None
        parser = Lark.load({"data": document["data"], "memo": document["memo"]})
        # Set by lark's grammar compiler, which a loaded parser skips; its lexer has the list.
        parser.ignore_tokens = list(parser.lexer_conf.ignore)
        return parser
    except Exception:  # missing, unreadable, stale or damaged: built again
        return None


def _store(path: Path, key: str, parser: Lark) -> None:
    try:
        data, memo = parser.memo_serialize([TerminalDef, Rule])
        document = {"key": key, "data": data, "memo": memo}
        text = json.dumps(_encode(document), ensure_ascii=True)
        if json.loads(text, object_hook=_decode) != document:
            return  # something this encoding does not carry: not kept
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".lark-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except Exception:  # a cache that cannot be written only costs the next start-up
        return


def _encode(value: Any) -> Any:
    if isinstance(value, tuple):
        return {_TUPLE: [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        if value and all(isinstance(v, tuple) for v in value.values()):
            return {_TUPLE_VALUES: [[_encode(k), *map(_encode, v)] for k, v in value.items()]}
        if all(isinstance(k, str) and not k.startswith("\x00") for k in value):
            return {k: _encode(v) for k, v in value.items()}
        return {_DICT: [[_encode(k), _encode(v)] for k, v in value.items()]}
    return value


def _decode(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        if _TUPLE in obj:
            return tuple(obj[_TUPLE])
        if _DICT in obj:
            return {_hashable(k): v for k, v in obj[_DICT]}
        if _TUPLE_VALUES in obj:
            return {_hashable(row[0]): tuple(row[1:]) for row in obj[_TUPLE_VALUES]}
    return obj


def _hashable(key: Any) -> Any:
    return tuple(_hashable(k) for k in key) if isinstance(key, list) else key
