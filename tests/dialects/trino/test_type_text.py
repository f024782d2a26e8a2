"""Nested Trino types are judged and read by their parts (:mod:`.routines.type_text`): the
answers must be the ones the grammar and sqlglot give for the whole text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tests.conftest import examples
from translator.dialects.trino.routines import _grammar_reads, _type_as_written
from translator.dialects.trino.routines.expr_types import parse_type

_LEAVES = st.sampled_from(
    [
        *("integer", "varchar", "varchar(5)", "decimal(18,2)", "decimal(38, 0)", "date"),
        *("timestamp(6)", "timestamp(6) with time zone", "time(3)", "double", "real"),
        *("boolean", "varbinary", "json", "uuid", "unknown", "double precision"),
        *("interval day to second", "x y", "bigint -- c", "", " date", "array(", ")"),
        *("integer)", "BIGINT", "int", "geometry"),
        # number parameters: judged once for all numbers (routines._numbers_as_one)
        *("decimal(7,3)", "decimal(0,0)", "decimal(123, 45)", "varchar(1234)", "time(0)"),
        *("int8(3)", "char(2,3)", "decimal(1.5,2)", "decimal(1e3,2)", "decimal(01,2)"),
    ]
)
_FIELD_NAMES = st.sampled_from(
    [
        *("a", "label", "row", "map", "array", "interval", "double", "with", "returns"),
        *("comment", "key", "value", "order", "select", "from", "time", "zone", "_x1"),
        *('"a b"', '"x, y"', '"p(q"', '"q"" r"', '"Up"', '"', "A", "1a", ""),
    ]
)


def _nested(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    field = st.tuples(_FIELD_NAMES, inner).map(lambda p: f"{p[0]} {p[1]}")
    return st.one_of(
        inner.map(lambda t: f"array({t})"),
        st.tuples(inner, inner).map(lambda p: f"map({p[0]}, {p[1]})"),
        st.lists(field, min_size=1, max_size=3).map(lambda f: f"row({', '.join(f)})"),
        st.tuples(inner, inner).map(lambda p: f"row({p[0]},{p[1]})"),
    )


_TYPES = st.recursive(_LEAVES, _nested, max_leaves=6)


@settings(max_examples=examples(300), deadline=None)
@given(_TYPES)
def test_type_judged_by_parts_as_by_the_grammar(type_text: str) -> None:
    assert _type_as_written(type_text) == _grammar_reads(type_text)


def _read(read: object, text: str) -> object:
    try:
        t = read(text)  # type: ignore[operator]
    except (SqlglotError, ValueError, IndexError) as e:
        # sqlglot's parser can fail with IndexError on unbalanced quotes inside a type
        # (`array(row(" array(, "a b" integer, " integer))`); parse_type must fail alike
        return type(e)
    assert isinstance(t, exp.DataType)
    return (repr(t), t.sql("trino"), t.sql("spark"), hash(t))


@settings(max_examples=examples(300), deadline=None)
@given(_TYPES)
def test_type_read_by_parts_as_sqlglot_reads_it(type_text: str) -> None:
    parse_type.cache_clear()  # the parts are read afresh, in this example's order
    whole = _read(lambda t: exp.DataType.build(t, dialect="trino"), type_text)
    assert _read(parse_type, type_text) == whole
