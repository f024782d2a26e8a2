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


def _split_by_characters(inner: str) -> list[str] | None:
    """The split as a walk over every character (what :func:`.type_text._split_items` does
    over its acting characters only)."""
    items, depth, start, quoted, i = [], 0, 0, False, 0
    while i < len(inner):
        c = inner[i]
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
        elif c == "," and depth == 0:
            if inner[i + 1 : i + 2] != " ":
                return None
            items.append(inner[start:i])
            start = i + 2
            i += 1
        i += 1
    items.append(inner[start:])
    if quoted or depth != 0 or not all(i and i == i.strip() for i in items):
        return None
    return items


@settings(max_examples=examples(500), deadline=None)
@given(st.one_of(_TYPES, st.text(alphabet=st.sampled_from('ab ,()"\n\t'), max_size=40)))
def test_items_split_as_a_walk_over_every_character_splits_them(text: str) -> None:
    from translator.dialects.trino.routines.type_text import _split_items

    assert _split_items(text) == _split_by_characters(text)
    for inner in ("a integer, b row(c varchar, d double)", 'x "p, q" integer', "a, ", ",  a"):
        assert _split_items(inner) == _split_by_characters(inner)
    assert _split_items("a integer, b row(c varchar, d double)") == [
        "a integer",
        "b row(c varchar, d double)",
    ]
