"""Trino -> Spark meaning differences, each on a real Spark against Trino's documented result.

One test per row of the table in translator/dialects/trino/routines/meaning.py (and the README): the
Trino body is written in Spark by translator.dialects.trino.routines.spark_form, created on the test
Spark and called; the expected values are Trino's, from its docs (cited per case). Then the
differences that are refused, with their reasons.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.dialects.trino.spark_calls import call
from translator.dialects.trino.routines import routine_from_parts, spark_form
from translator.dialects.trino.routines.syntax import parse_routine

pytestmark = pytest.mark.spark


def test_array_subscript_is_one_based(spark: Any) -> None:
    # Trino docs, array functions: "The [] operator is used to access an element of an array
    # and is indexed starting from one"; an index out of range fails the query.
    ddl = "CREATE FUNCTION pick(p bigint) RETURNS bigint RETURN ARRAY[3, 4, 5, 6, 7][p]"
    assert call(spark, ddl, "pick(1)", "pick(2)", "pick(5)", "pick(6)", "pick(0)", "pick(-1)") == [
        "3", "4", "7", "ERROR: INVALID_ARRAY_INDEX", "ERROR: INVALID_ARRAY_INDEX",
        "ERROR: INVALID_ARRAY_INDEX",
    ]  # fmt: skip


def test_array_subscript_with_a_literal_index(spark: Any) -> None:
    ddl = "CREATE FUNCTION second_of(a array(varchar)) RETURNS varchar RETURN a[2]"
    assert call(spark, ddl, "second_of(array('x', 'y', 'z'))") == ["y"]


def test_vertical_bar_from_trino_docs(spark: Any) -> None:
    # Trino docs, SQL UDF examples: vertical_bar(0.0) is the blank, (1.0) the full block.
    ddl = (
        "CREATE FUNCTION vertical_bar(value DOUBLE) RETURNS VARCHAR "
        "RETURN ARRAY[' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'][cast(value * 8 + 1 as int)]"
    )
    assert call(spark, ddl, "vertical_bar(0.0D)", "vertical_bar(0.5D)", "vertical_bar(1.0D)") == [
        " ", "▄", "█",
    ]  # fmt: skip


def test_map_subscript_fails_on_a_missing_key(spark: Any) -> None:
    # Trino docs, map functions: "subscript operator []: ... map[key]"; a key that is not
    # there fails ("Key not present in map"), where Spark's [] gives NULL.
    ddl = "CREATE FUNCTION get_key(m map(varchar, bigint), k varchar) RETURNS bigint RETURN m[k]"
    m = "map('a', CAST(1 AS BIGINT))"
    assert call(spark, ddl, f"get_key({m}, 'a')", f"get_key({m}, 'b')", "get_key(NULL, 'a')") == [
        "1", "ERROR: USER_RAISED_EXCEPTION", "NULL",
    ]  # fmt: skip


def test_row_field_by_position(spark: Any) -> None:
    # Trino docs, row subscript: row(1, 'a', 5)[2] is 'a' (1-based); Spark rejects
    # STRUCT(...)[2] (INVALID_EXTRACT_FIELD_TYPE).
    ddl = "CREATE FUNCTION second_field() RETURNS varchar RETURN row(1, 'a', 5)[2]"
    assert call(spark, ddl, "second_field()") == ["a"]
    typed = "CREATE FUNCTION y_of(r row(x int, y varchar)) RETURNS varchar RETURN r[2]"
    assert call(spark, typed, "y_of(named_struct('x', 1, 'y', 'b'))") == ["b"]


def test_element_at_is_null_out_of_range_and_takes_a_bigint(spark: Any) -> None:
    # Trino docs: element_at(array(E), index) -> E "If index >= 0 ... If index < 0 ... from the
    # last to the first ... returns NULL if the index exceeds the length"; 0 fails.
    ddl = "CREATE FUNCTION at(p bigint) RETURNS bigint RETURN element_at(ARRAY[3, 4, 5], p)"
    assert call(spark, ddl, "at(2)", "at(-1)", "at(6)", "at(0)") == [
        "4", "5", "NULL", "ERROR: INVALID_INDEX_OF_ZERO",
    ]  # fmt: skip


def test_integer_division_truncates(spark: Any) -> None:
    # Trino docs, mathematical operators: "Division of integers truncates", toward zero.
    ddl = "CREATE FUNCTION quotient(a bigint, b bigint) RETURNS bigint RETURN a / b"
    assert call(spark, ddl, "quotient(5, 2)", "quotient(-7, 2)", "quotient(7, -2)") == [
        "2", "-3", "-3",
    ]  # fmt: skip
    assert call(spark, ddl, "quotient(1, 0)") == ["ERROR: DIVIDE_BY_ZERO"]
    doubled = "CREATE FUNCTION ratio(a double, b bigint) RETURNS double RETURN a / b"
    assert call(spark, doubled, "ratio(5.0D, 2)") == ["2.5"]


def test_day_of_week_is_iso(spark: Any) -> None:
    # Trino docs: day_of_week(x) "The ISO day of the week ... from 1 (Monday) to 7 (Sunday)".
    ddl = "CREATE FUNCTION dw(d date) RETURNS bigint RETURN day_of_week(d)"
    sunday, monday = "DATE'2024-01-07'", "DATE'2024-01-08'"
    assert call(spark, ddl, f"dw({sunday})", f"dw({monday})") == ["7", "1"]
    short = "CREATE FUNCTION dw2(d date) RETURNS bigint RETURN dow(d)"
    assert call(spark, short, f"dw2({sunday})") == ["7"]


def test_truncate_of_doubles_of_any_size(spark: Any) -> None:
    # Trino docs: truncate(x) -> double "Returns x rounded to integer by dropping digits after
    # decimal point"; a cast to bigint (sqlglot's form) overflows beyond 2^63.
    ddl = "CREATE FUNCTION tr(x double) RETURNS double RETURN truncate(x)"
    assert call(spark, ddl, "tr(2.7D)", "tr(-2.5D)", "tr(1e20D)", "tr(-1e300D)") == [
        "2.0", "-2.0", "1.0E20", "-1.0E300",
    ]  # fmt: skip


def test_decimal_literals_and_bare_decimal(spark: Any) -> None:
    # Trino docs, data types: DECIMAL '10.5' is a decimal(3,1) literal; a bare DECIMAL type is
    # decimal(38,0) (Spark's bare DECIMAL is decimal(10,0), and sqlglot reads the literal as a
    # cast to it, which rounds 10.5 to 11).
    ddl = "CREATE FUNCTION dec_lit() RETURNS double RETURN DECIMAL '10.5' * 2"
    assert call(spark, ddl, "dec_lit()") == ["21.0"]
    wide = "CREATE FUNCTION dec_wide(x varchar) RETURNS decimal(38,0) RETURN CAST(x AS DECIMAL)"
    assert call(spark, wide, "dec_wide('12345678901')") == ["12345678901"]


@pytest.mark.parametrize(
    ("body", "params", "reason"),
    [
        ("a / b", [("a", "decimal(10,2)"), ("b", "decimal(10,2)")], "decimal division rounds"),
        ("f(a) / 2", [("a", "bigint")], "cannot tell whether it divides integers"),
        ("f(a)[1]", [("a", "bigint")], "is an array, a map or a row"),
        ("element_at(f(a), 1)", [("a", "bigint")], "applied to an array or a map"),
        ("truncate(a)", [("a", "decimal(10,2)")], "truncate of"),
    ],
)
def test_differences_not_handled_are_refused(
    body: str, params: list[tuple[str, str]], reason: str
) -> None:
    form = spark_form(routine_from_parts("g", params, "bigint", body, "expression"))
    assert form.sql is None
    assert form.reason is not None and reason in form.reason


def test_a_function_calling_its_own_name_is_refused() -> None:
    # Trino's docs define dots(input) as dots(input, 15): another overload. Spark has none.
    routine = parse_routine(
        "CREATE FUNCTION dots(input varchar) RETURNS varchar RETURN dots(input, 15)"
    )
    form = spark_form(routine)
    assert form.sql is None and form.reason is not None and "own name" in form.reason
