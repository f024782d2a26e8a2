"""body_problem's shortcut for plain texts gives the long way's answer (issue 17)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from translator import body_checks
from translator.body_checks import _plain_pattern, body_problem
from translator.dialects import get_dialect
from translator.script import span_list

#: Characters each of which means something to a lexer, and a few that mean nothing.
_ALPHABET = "a1 _'\"`;-/*$\\\n\t()[].,+é\u200b\x00#"


@settings(max_examples=examples(400), deadline=None)
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


@pytest.mark.parametrize("dialect", ["spark", "trino"])
@pytest.mark.parametrize("text", ["/* c */", "/* a */ /* b */\n", "/**/ "])
def test_a_body_of_only_comments_is_empty(dialect: str, text: str) -> None:
    """A stored body holding only comments is refused as empty (it was an internal error: the
    shape check read the last of no words)."""
    assert body_problem(text, "expression", dialect) == "the body is empty (it holds only comments)"


def test_validate_refuses_a_stored_body_of_only_comments(tmp_path: Any) -> None:
    """The metadata path (validate, emit) reports it as the file's problem, exit 1."""
    import json

    from tests.hardening_cli import run_cli
    from translator.api import compile_script

    meta = compile_script("CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1", "spark")
    doc = json.loads(meta.raise_for_errors().dump())
    doc["definitions"][0]["versions"][0]["representations"][0]["sql"] = "/* c */"
    path = tmp_path / "f.metadata.json"
    path.write_text(json.dumps(doc))
    code, out, err = run_cli("validate", str(path))
    assert code == 1, err
    assert "the body is empty (it holds only comments)" in out
    code, _, err = run_cli("emit", "--dialect", "spark", "--name", "f", str(path))
    assert code == 1 and "the body is empty (it holds only comments)" in err, err


def test_free_references_name_each_stray_by_its_first_spelling() -> None:
    """In the scoped walk's order (a stack fed each node's children in order: the last operand
    first); parameters, lambda variables and columns of a query with a FROM are no strays."""
    from translator.body_checks import free_references

    text = "transform(a, v -> v + X) + (SELECT c FROM t) + b + x + B + V"
    tree = sqlglot.parse_one(text, read="spark")
    assert free_references(tree, ["a"]) == ["B", "x"]
    assert free_references(tree, ["A", "b"]) == ["x"]
    assert free_references(sqlglot.parse_one("a + 1", read="spark"), ["a"]) == []
