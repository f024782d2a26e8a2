"""reading: the plain Trino reading of a body stands for the routine rules' own re-parse only
where nothing the re-parse reads otherwise (a typed decimal, a shifted subscript) can be in it.
The subscript screen looks at the text first: it may pass over a text only where sqlglot's Trino
tokens of it hold no ``[``, which is what these tests hold it to."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot.errors import SqlglotError
from sqlglot.tokenizer_core import TokenType

from tests.conftest import examples
from translator.dialects.trino.routines.reading import (
    _may_subscript,
    parse_expression,
    reads_as_written,
)
from translator.sqlglot_dialects import TRINO, parse_one, tokenize

#: Pieces of bodies around the screen's edges: brackets in and out of strings and quoted
#: names, doubled quotes, comments, prefixes that start other kinds of string.
_PIECES = [
    "x", "a[1]", "[", "]", "'", "''", '"', '""', "'[0-9]+'", '"a[b"', "--", "/*", "*/", "\n",
    " ", "1", "+", "(", ")", ",", "regexp_like(s, ", "U&'", "X'", "element_at(m, 1)", "row(1)",
]  # fmt: skip

_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)


@settings(max_examples=examples(3000), deadline=None)
@given(_TEXTS)
def test_the_screen_passes_over_no_text_whose_tokens_hold_a_bracket(text: str) -> None:
    try:
        tokens = tokenize(text, TRINO)
    except (SqlglotError, ValueError):
        return  # not tokenized: sqlglot has no tree of it, and nothing is screened
    if any(t.token_type == TokenType.L_BRACKET for t in tokens):
        assert _may_subscript(text)


@settings(max_examples=examples(1500), deadline=None)
@given(_TEXTS)
def test_a_tree_taken_as_written_is_the_re_parse(text: str) -> None:
    try:
        tree = parse_one(text, TRINO)
    except (SqlglotError, RecursionError, ValueError):
        return
    taken = reads_as_written(text, tree)
    if taken is not None:
        assert taken == parse_expression(text)


def test_brackets_in_strings_and_names_need_no_walk() -> None:
    assert not _may_subscript("regexp_like(s, '[0-9]+')")
    assert not _may_subscript('"a[b" + 1')
    assert not _may_subscript("'it''s [x]'")
    assert _may_subscript("a[1]")
    assert _may_subscript("'x' || a[1]")
    assert _may_subscript("x -- [\n")  # a comment is not stepped over: walked
