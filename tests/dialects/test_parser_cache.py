"""Parsers kept between processes (translator/dialects/parser_cache.py): a loaded parser gives the
built one's results and errors, and a file the cache cannot vouch for is not used."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from lark import Lark

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
    assert len(list(cache_home.glob("lark-*.json"))) >= 2
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
    (path,) = cache_home.glob("lark-*.json")
    parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1]  # the second came from the file

    path.write_text(path.read_text()[:-100])  # cut short
    parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1, 1]

    other = path.read_text().replace('"key": "', '"key": "0', 1)  # another grammar's file
    path.write_text(other)
    again = parser_cache.cached_parser(_text(), _options(), build)
    assert built == [1, 1, 1]
    assert again.parse("array(bigint)") == first.parse("array(bigint)")


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


def test_the_encoding_round_trips_tuples_dicts_and_tables_of_tuples() -> None:
    """What lark's serialized parser holds (tuples, dicts keyed by numbers, LALR states whose
    values are all tuples) comes back equal and of the same types from the JSON text."""
    value = {
        "states": {0: {3: (0, 12), 7: (1, {"@": 4})}, 1: {}},
        "by_name": {"a": (1, ("x", [2, 3])), "b": ()},
        "keyed": {(1, "t"): ["u", (2,)], "\x00tuple": 1},
        "plain": [1, "s", None, 2.5, True],
    }
    text = json.dumps(parser_cache._encode(value), ensure_ascii=True)
    back = json.loads(text, object_hook=parser_cache._decode)
    assert back == value
    assert type(back["states"][0][3]) is tuple and type(back["by_name"]["a"][1]) is tuple
    assert list(back["keyed"]) == [(1, "t"), "\x00tuple"]
    assert "\\u0000tuples" in text  # the states' rows, not an object a tuple


def test_a_grammars_file_keeps_its_table_rows_compact(cache_home: Path) -> None:
    load_parser("spark", positions=False)
    (path,) = cache_home.glob("lark-*.json")
    text = path.read_text("utf-8")
    assert text.count("\\u0000tuples") > 300  # one a parser state
    assert text.count('\\u0000tuple"') < 200  # not one a table action
