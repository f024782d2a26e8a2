"""body_problem's shortcut for plain texts gives the long way's answer (issue 17)."""

from __future__ import annotations

import re

import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st

from translator import body_checks
from translator.body_checks import _plain_pattern, body_problem
from translator.dialects import get_dialect
from translator.script import span_list

#: Characters each of which means something to a lexer, and a few that mean nothing.
_ALPHABET = "a1 _'\"`;-/*$\\\n\t()[].,+é\u200b\x00#"


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=_ALPHABET, max_size=14), dialect=st.sampled_from(["spark", "trino"]))
def test_a_plain_text_scans_to_nothing_body_problem_looks_for(text: str, dialect: str) -> None:
    lex = get_dialect(dialect).lexical
    if _plain_pattern(lex).fullmatch(text) is None:
        return
    spans = span_list(text, lex, None)  # raises on an unterminated string or comment
    assert not any(kind in ("comment", "dollar", "invisible") for kind, _, _ in spans)
    assert not any(kind == "punct" and text[i:j] == ";" for kind, i, j in spans)


@pytest.mark.parametrize(
    ("dialect", "text", "plain"),
    [
        ("spark", "x + 1", True),
        ("spark", "concat('a;b', \"c--d\", `e/*f`)", True),
        ("trino", "'it''s' || \"a\"\"b\"", True),
        ("trino", "`a;b`", False),  # no quoted identifier in Trino: the ';' is outside
        ("spark", "'a\\';' || x", False),  # a backslash escape: left to the lexer
        ("spark", "x -- c", False),
        ("spark", "x /* c */", False),
        ("spark", "1; DROP TABLE t", False),
        ("trino", "$$a$$", False),
        ("spark", "'open", False),
        ("spark", "x\u200b+ 1", False),
    ],
)
def test_which_texts_are_plain(dialect: str, text: str, plain: bool) -> None:
    lex = get_dialect(dialect).lexical
    assert (_plain_pattern(lex).fullmatch(text) is not None) is plain


@pytest.mark.parametrize(
    ("dialect", "kind", "text"),
    [
        ("spark", "expression", "x + 1"),
        ("spark", "query", "SELECT a FROM t"),
        ("spark", "query", "x + 1"),
        ("spark", "expression", "DROP TABLE t"),
        ("trino", "expression", "'a;b' || x"),
        ("trino", "query", "VALUES (1)"),
    ],
)
def test_the_shortcut_answers_as_the_long_way(
    dialect: str, kind: str, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = get_dialect(dialect)
    ast = sqlglot.parse_one(text, read=engine.sqlglot_dialect)
    assert _plain_pattern(engine.lexical).fullmatch(text) is not None
    short = body_problem(text, kind, dialect, ast)
    monkeypatch.setattr(body_checks, "_plain_pattern", lambda lex: re.compile(r"(?!)"))
    assert body_problem(text, kind, dialect, ast) == short
