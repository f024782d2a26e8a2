"""The Spark front end's quick screen before its look for non-SQL functions (AS 'class',
LANGUAGE PYTHON, $$ bodies) never skips a statement the look would refuse."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.dialects.test_inline_parse import _statements
from translator.dialects import get_dialect
from translator.dialects.spark import assemble
from translator.errors import TranslatorError
from translator.script import split_statements


def _refusal(text: str) -> list[str | None]:
    out: list[str | None] = []
    for stmt in split_statements(text, get_dialect("spark").lexical):
        try:
            assemble.refuse_non_sql(stmt)
            out.append(None)
        except TranslatorError as e:
            out.append(str(e))
    return out


def _both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str | None], ...]:
    screened = _refusal(text)
    with monkeypatch.context() as m:
        m.setattr(assemble, "_MAYBE_NOT_SQL", re.compile(""))  # always "maybe": no screen
        m.setattr(assemble, "_plain_header", lambda text: False)  # nor the header screen
        plain = _refusal(text)
    return screened, plain


def test_screen_on_every_statement(monkeypatch: pytest.MonkeyPatch) -> None:
    for stmt in _statements("spark"):
        screened, plain = _both(stmt.text, monkeypatch)
        assert screened == plain, stmt.text


_PIECES = [
    "CREATE FUNCTION f(x INT) ", "RETURNS INT ", "RETURN x", " AS ", "as", "'com.X'", "LANGUAGE ",
    "PYTHON ", "SQL ", "$$ x $$", "$", "1as", "x$as ", "é", "(", ")", " ", "/* as */", "`as`",
    "RETURN ", "return", "1return ", "x.return ", "return$", "'return' ", "-- return\n", "\"",
    "'", "/* ", "CAST(x AS INT)", "LANGUAGE SQL ", "language  sql", "LANGUAGE SQLX ",
    "'it''s (' ", "'a\\' ", "COMMENT 'as' ", "\"as\" ",
]  # fmt: skip


@settings(max_examples=examples(2000), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_screen_on_any_header(pieces: list[str]) -> None:
    text = "".join(pieces)
    try:
        _refusal(text)
    except TranslatorError:  # an unterminated quote: not this test's business
        return
    with pytest.MonkeyPatch.context() as m:
        screened, plain = _both(text, m)
    assert screened == plain, text


@pytest.mark.parametrize(
    "text",
    [
        "CREATE FUNCTION f(x INT) RETURNS INT x'com.X'as RETURN CAST(x AS INT)",
        "CREATE FUNCTION f(x INT) RETURNS INT COMMENT 'a(' AS 'X' RETURN x",
        "CREATE FUNCTION f(x INT) RETURNS INT COMMENT 'return' AS 'X' RETURN x",
        "CREATE FUNCTION f(x INT) RETURNS INT LANGUAGE SQL RETURN CAST(x AS INT)",
        "CREATE FUNCTION f(x INT) RETURNS INT LANGUAGE SQLX RETURN x",
        "CREATE FUNCTION f(x INT) RETURNS INT LANGUAGE PYTHON RETURN x",
        "CREATE FUNCTION f(x INT) RETURNS INT `a``s` RETURN x AS y",
        "CREATE FUNCTION f(x INT COMMENT 'it''s') RETURNS INT LANGUAGE SQL RETURN x AS y",
        "CREATE FUNCTION f(x INT) RETURNS INT ('(') AS 'X' RETURN x",
        "CREATE FUNCTION f(x INT) RETURNS INT return$ AS 'X' RETURN x",
    ],
)
def test_screen_on_tricky_headers(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    screened, plain = _both(text, monkeypatch)
    assert screened == plain
