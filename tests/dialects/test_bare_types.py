"""A bare primitive type (a name alone) maps through a table of ready-made Iceberg types in both
front ends, skipping the mapper: the result, warnings and errors must be the mapper's."""

from __future__ import annotations

from typing import NoReturn

import pytest

from benchmarks.corpus import generate
from translator.dialects.spark import parser as spark_parser
from translator.dialects.spark.types import PrimitiveSpec, bare_primitive, map_primitive
from translator.dialects.trino import assemble as trino_assemble
from translator.dialects.trino import parser as trino_parser
from translator.dialects.trino.source import Source, Spelled
from translator.dialects.trino.types import _SIMPLE, _TypeMapper, to_iceberg
from translator.errors import Diagnostic, TranslatorError
from translator.frontend import ParsedScript, parse_script

_SPARK_NAMES = [
    *("BOOLEAN", "INT", "INTEGER", "BIGINT", "LONG", "FLOAT", "REAL", "DOUBLE", "DATE"),
    *("TIMESTAMP", "TIMESTAMP_LTZ", "TIMESTAMP_NTZ", "STRING", "BINARY", "VOID", "VARIANT"),
    # names that need a check, a warning or arguments: not in the table
    *("TINYINT", "BYTE", "SMALLINT", "SHORT", "DECIMAL", "DEC", "NUMERIC", "CHAR", "VARCHAR"),
    *("CHARACTER", "GEOMETRY", "GEOGRAPHY", "TIME", "INTERVAL", "NOPE", "int", ""),
]


def _raise(cls: type[TranslatorError], message: str) -> NoReturn:
    raise cls(message)


@pytest.mark.parametrize("name", _SPARK_NAMES)
def test_spark_bare_name_is_what_the_mapper_returns(name: str) -> None:
    bare = bare_primitive(name)
    warnings: list[str] = []
    try:
        spec = PrimitiveSpec(name, None, False, None, name)
        mapped = map_primitive(spec, _raise, warnings.append)
    except TranslatorError:
        assert bare is None
        return
    if bare is not None:  # the table holds only names the mapper takes without a word
        assert not warnings
        assert bare == mapped
        assert type(bare) is type(mapped)


@pytest.mark.parametrize("name", [*_SIMPLE, "varchar", "decimal", "tinyint", "row", "json"])
def test_trino_bare_name_is_what_the_mapper_returns(name: str) -> None:
    source = Source()
    source.text, source.base = name, None
    spelled = Spelled(name, 0, name)
    mine: list[Diagnostic] = []
    theirs: list[Diagnostic] = []
    try:
        expected = _TypeMapper(source, theirs).map(spelled)
    except TranslatorError as e:
        with pytest.raises(type(e)) as raised:
            to_iceberg(spelled, source, mine)
        assert str(raised.value) == str(e)
        return
    assert to_iceberg(spelled, source, mine) == expected
    assert repr(mine) == repr(theirs)


def _summary(parsed: ParsedScript) -> tuple[str, str]:
    errors = [(type(e).__name__, str(e), repr(getattr(e, "position", None))) for e in parsed.errors]
    return repr(parsed.statements), repr(errors)


_EDGE_CASES = {
    "spark": [
        "CREATE FUNCTION f(a int, b String, c TIMESTAMP, d timestamp_ntz, e void) RETURNS "
        "array<struct<x: Bigint, y: map<date, binary>>> RETURN NULL",
        "CREATE FUNCTION f(a INT(3)) RETURNS INT RETURN a",
        "CREATE FUNCTION f(a INT WITHOUT TIME ZONE) RETURNS INT RETURN a",
        "CREATE FUNCTION f(a INT COLLATE UTF8_LCASE) RETURNS INT RETURN a",
        "CREATE FUNCTION f(a STRING COLLATE UTF8_LCASE) RETURNS TINYINT RETURN a",
        "CREATE FUNCTION f(a TIMESTAMP WITHOUT TIME ZONE, b STRING()) RETURNS INT RETURN 1",
        "CREATE FUNCTION f(a tinyint, b SHORT, c varchar(3)) RETURNS decimal RETURN a",
    ],
    "trino": [
        "CREATE FUNCTION f(a integer, b INT, c bigint, d real, e double, f varbinary) RETURNS "
        "array(row(x date, y uuid)) RETURN NULL",
        "CREATE FUNCTION f(a integer(3)) RETURNS integer RETURN a",
        "CREATE FUNCTION f(a integer with time zone) RETURNS integer RETURN a",
        'CREATE FUNCTION f(a "integer", b "DATE") RETURNS map(variant, boolean) RETURN NULL',
        "DROP FUNCTION f(integer, bigint(2))",
        "CREATE FUNCTION f(a tinyint, b smallint, c varchar) RETURNS decimal RETURN a",
    ],
}


def _without_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every type through the mapper, as before the tables."""
    monkeypatch.setattr(spark_parser, "bare_primitive", lambda name: None)

    def mapper_only(t: Spelled, b: Source, warnings: list[Diagnostic]) -> object:
        return _TypeMapper(b, warnings).map(t)

    monkeypatch.setattr(trino_assemble, "to_iceberg", mapper_only)
    monkeypatch.setattr(trino_parser, "to_iceberg", mapper_only)


def test_front_ends_give_the_mappers_results(monkeypatch: pytest.MonkeyPatch) -> None:
    scripts = [(s.text, s.dialect) for s in generate(400, 20240607)]
    scripts += [(sql, dialect) for dialect, sqls in _EDGE_CASES.items() for sql in sqls]
    fast = [_summary(parse_script(text, dialect)) for text, dialect in scripts]
    with monkeypatch.context() as m:
        _without_tables(m)
        slow = [_summary(parse_script(text, dialect)) for text, dialect in scripts]
    assert fast == slow
