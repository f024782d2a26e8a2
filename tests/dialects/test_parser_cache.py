"""Parsers kept between processes (translator/dialects/parser_cache.py): a loaded parser gives the
built one's results and errors, and a file the cache cannot vouch for is not used."""

from __future__ import annotations

import hashlib
import marshal
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lark import Lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

from translator.dialects import parser_cache
from translator.dialects.grammar import grammar_text, load_parser
from translator.frontend import parse_script

_SCRIPTS = [
    ("spark", "CREATE FUNCTION f(x INT, s STRUCT<a: ARRAY<STRING>>) RETURNS INT RETURN x + 1"),
    ("spark", "CREATE FUNCTION f(x INT RETURNS INT RETURN x"),  # a syntax error, expected list
    ("spark", "CREATE TEMPORARY FUNCTION g() RETURNS TABLE (a INT) RETURN SELECT 1 AS a"),
    ("trino", "CREATE FUNCTION f(x bigint) RETURNS bigint RETURN x + 1"),
    ("trino", "CREATE FUNCTION f(x bigint) RETURNS bigint BEGIN DECLARE y bigint; RETURN y; END"),
    ("trino", "CREATE FUNCTION f(x bigint) RETURNS bigint RETURN x::int"),  # the shape check
    ("trino", "CREATE FUNCTION f(x bigint RETURNS bigint RETURN x"),
    ("trino", "CREATE FUNCTION f(x row(a varchar)) RETURNS varchar RETURN x.a"),
]


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("ICEBERG_UDF_PARSER_CACHE", raising=False)
    load_parser.cache_clear()
    yield tmp_path / "iceberg-udf"
    load_parser.cache_clear()


def _results() -> list[str]:
    out = []
    for dialect, text in _SCRIPTS:
        parsed = parse_script(text, dialect)
        out.append(repr(parsed.statements))
        out.extend(f"{e!r} {e.expected!r}" for e in parsed.errors)  # type: ignore[attr-defined]
    return out


def test_a_loaded_parser_gives_the_built_ones_results(cache_home: Path) -> None:
    built = _results()
    assert len(list(cache_home.glob("lark-*.marshal"))) >= 2
    load_parser.cache_clear()
    calls: list[str] = []
    real = parser_cache.cached_parser

    def counting(grammar: str, options: dict[str, object], build: object) -> Lark:
        def counted() -> Lark:
            calls.append("built")
            return build()  # type: ignore[operator, no-any-return]

        return real(grammar, options, counted)

    parser_cache.cached_parser = counting  # type: ignore[assignment]
    try:
        loaded = _results()
    finally:
        parser_cache.cached_parser = real
    assert calls == []
    assert loaded == built


def _options() -> dict[str, object]:
    return {"parser": "lalr", "lexer": "contextual", "start": "type_only"}


def _text() -> str:
    return grammar_text("trino")


def test_a_damaged_or_stale_file_is_not_used(cache_home: Path) -> None:
    def build() -> Lark:
        built.append(1)
        return Lark(_text(), **_options())  # type: ignore[arg-type]

    built: list[int] = []
    first = parser_cache.cached_parser(_text(), _options(), build)
    (path,) = cache_home.glob("lark-*.marshal")
    parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1]  # the second came from the file

    whole = path.read_bytes()
    path.write_bytes(whole[:-100])  # cut short
    parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1, 1]

    damaged = bytearray(path.read_bytes())
    damaged[len(damaged) // 2] ^= 0x40  # one bit flipped: the digest differs, nothing decoded
    path.write_bytes(bytes(damaged))
    parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1, 1, 1]

    # another grammar's file, whole and with a right digest: its key is not this one
    document = marshal.loads(path.read_bytes()[len(parser_cache._MAGIC) + 32 :])
    document["key"] = "0" + document["key"]
    payload = marshal.dumps(document)
    path.write_bytes(parser_cache._MAGIC + hashlib.sha256(payload).digest() + payload)
    again = parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1, 1, 1, 1]
    assert again.parse("array(bigint)") == first.parse("array(bigint)")

    path.write_bytes(b"not a cache file at all")
    parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1, 1, 1, 1, 1]
    assert path.read_bytes().startswith(parser_cache._MAGIC)  # written again
    assert path.stat().st_mode & 0o077 == 0  # its owner's only


def test_a_file_another_user_wrote_or_could_write_is_not_used(cache_home: Path) -> None:
    def build() -> Lark:
        built.append(1)
        return Lark(_text(), **_options())  # type: ignore[arg-type]

    built: list[int] = []
    parser_cache.cached_parser(_text(), _options(), build)
    (path,) = cache_home.glob("lark-*.marshal")
    path.chmod(0o622)  # whole and right, but others may write it
    parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1, 1]
    assert path.stat().st_mode & 0o077 == 0  # written again, its owner's only
    parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1, 1]
    if os.geteuid() != 0:
        return  # only the superuser can give a file away
    os.chown(path, 65534, -1)  # another user's, even if only they may write it
    parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1, 1, 1]
    assert path.stat().st_uid == os.geteuid()


def test_no_cache_when_turned_off_or_unwritable(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ICEBERG_UDF_PARSER_CACHE", "0")
    parser_cache.cached_parser(_text(), _options(), lambda: Lark(_text(), **_options()))  # type: ignore[arg-type]
    assert not cache_home.exists()
    monkeypatch.delenv("ICEBERG_UDF_PARSER_CACHE")
    cache_home.parent.joinpath("iceberg-udf").write_text("a file, not a folder")
    parser = parser_cache.cached_parser(_text(), _options(), lambda: Lark(_text(), **_options()))  # type: ignore[arg-type]
    assert parser.parse("bigint") is not None


def test_a_file_gives_back_lark_s_serialized_parser_equal_and_of_the_same_types(
    cache_home: Path,
) -> None:
    """What lark's serialized parser holds (tuples, dicts keyed by numbers, LALR states whose
    values are tuples) comes back from the file equal, tuples as tuples."""
    parser = Lark(_text(), **_options())  # type: ignore[arg-type]
    parser_cache.cached_parser(_text(), _options(), lambda: parser)
    (path,) = cache_home.glob("lark-*.marshal")
    document = marshal.loads(path.read_bytes()[len(parser_cache._MAGIC) + 32 :])
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    assert document == {"key": parser_cache._key(_text(), _options()), "data": data, "memo": memo}
    states = document["data"]["parser"]["parser"]["states"]
    assert all(type(action) is tuple for row in states.values() for action in row.values())


def test_a_write_removes_the_dead_files_of_this_cache_only(cache_home: Path) -> None:
    """Old-format JSON files, other keys' files not written for a month and temporary files a
    crash left go when a parser is written; a key still in use, a fresh temporary file, files
    of other names, links and (as root) another user's files stay."""
    cache_home.mkdir(parents=True)
    month_ago = time.time() - parser_cache.STALE_AFTER_S - 60
    two_days_ago = time.time() - 2 * 24 * 3600

    def made(name: str, mtime: float | None = None) -> Path:
        path = cache_home / name
        path.write_bytes(b"x")
        if mtime is not None:
            os.utime(path, (mtime, mtime))
        return path

    gone = [
        made("lark-" + "a" * 32 + ".json"),
        made("lark-" + "b" * 32 + ".marshal", month_ago),
        made(".lark-x1y2.tmp", two_days_ago),
    ]
    kept = [
        made("lark-" + "c" * 32 + ".marshal"),
        made(".lark-fresh.tmp"),
        made("notes.json", month_ago),
        made("lark-" + "d" * 31 + ".marshal", month_ago),
    ]
    link = cache_home / ("lark-" + "e" * 32 + ".json")
    link.symlink_to(kept[2])
    kept.append(link)
    if os.geteuid() == 0:
        theirs = made("lark-" + "f" * 32 + ".json")
        os.chown(theirs, 65534, -1)
        kept.append(theirs)

    parser_cache.cached_parser(_text(), _options(), lambda: Lark(_text(), **_options()))  # type: ignore[arg-type]
    assert not any(p.exists() for p in gone)
    assert all(p.is_symlink() or p.exists() for p in kept)
    assert len(list(cache_home.glob("lark-*.marshal"))) == 3  # the new one, c..., d...


def test_a_load_marks_its_file_used_at_most_once_a_day(cache_home: Path) -> None:
    """Another installation's write removes files not used for a month: one loaded from marks
    itself used (a month-old file comes back to now; a file marked today is not touched)."""
    parser_cache.cached_parser(_text(), _options(), lambda: Lark(_text(), **_options()))  # type: ignore[arg-type]
    (path,) = cache_home.glob("lark-*.marshal")
    old = time.time() - parser_cache.STALE_AFTER_S - 60
    os.utime(path, (old, old))
    parser_cache.cached_parser(_text(), _options(), lambda: pytest.fail("built again"))
    assert time.time() - path.stat().st_mtime < 60
    recent = time.time() - 3600
    os.utime(path, (recent, recent))
    parser_cache.cached_parser(_text(), _options(), lambda: pytest.fail("built again"))
    assert path.stat().st_mtime == pytest.approx(recent, abs=1)
