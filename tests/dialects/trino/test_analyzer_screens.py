"""The analyzer looks for a query in an expression's masked text (strings, quoted names and
comments blanked out) only where the text holds a query's first word at all: masking only
blanks characters out, so it can never make a query appear that the words do not show."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from translator.dialects.trino.routines import analyze
from translator.dialects.trino.routines.analyzer import _QUERY, _masked, _may_hold_query

_PIECES = st.sampled_from(
    [
        *("(", ")", " ", "\n", "\t", "'", '"', "''", "--", "/*", "*/", "-", "/", "*", "x"),
        *("select", "SELECT", "with", "Values", "table", "tables", "xselect", "select1"),
        *("'select'", '"with"', "-- select\n", "/* table */", "é", "_", "1", ","),
        *("\u017felect", "w\u0130th", "w\u0131th", "TABLE", "VALUES", "\u212a"),
    ]
)


@settings(max_examples=examples(3000), deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_a_text_without_the_words_holds_no_query_once_masked(text: str) -> None:
    if _QUERY.search(_masked(text)) is not None:
        assert _may_hold_query(text)


def test_queries_are_still_found_behind_comments_and_strings() -> None:
    for body in ("(/* c */ SELECT 1)", "x + ( -- c\nselect 1)", "1 + (\tVALUES 1)"):
        problem = analyze(f"CREATE FUNCTION f() RETURNS integer RETURN {body}")
        assert problem is not None and problem.message == "Queries are not allowed in functions"
    assert analyze("CREATE FUNCTION f() RETURNS varchar RETURN '(select 1)'") is None
    # re takes the long s (U+017F) for an s when it ignores case: so does the screen
    problem = analyze("CREATE FUNCTION f() RETURNS integer RETURN (\u017felect 1)")
    assert problem is not None and problem.message == "Queries are not allowed in functions"
    problem = analyze("CREATE FUNCTION f(s varchar) RETURNS varchar RETURN 'a' || y")
    assert problem is not None and problem.message == "Column 'y' cannot be resolved"
    assert problem.position.column == 60
