"""The one-loop LALR driver gives what lark's own parse gives: the same tree, with the same
tokens (type, value and every position), for every statement lark accepts, and refuses exactly
the statements lark refuses. Checked on lark's tree-building parsers, whose callbacks record
every token and reduction the loop passes on."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from tests.dialects.test_inline_parse import _statements
from tests.timing import assert_linear
from translator.dialects.grammar import inline_parser, load_parser
from translator.dialects.inline_loop import (
    NotParsed,
    Tables,
    _tables,
    parse_inline,
)
from translator.dialects.lark_tables import LazyParseTable
from translator.dialects.spark import parser as spark_parser
from translator.dialects.state_lexers import ready
from translator.dialects.trino import parser as trino_parser


def _flat(node: Any) -> Any:
    if isinstance(node, Token):
        return (
            node.type, node.value, node.start_pos, node.line, node.column,
            node.end_line, node.end_column, node.end_pos,
        )  # fmt: skip
    if isinstance(node, Tree):
        return (node.data, [_flat(c) for c in node.children])
    return node


def _outcome(f: Any, parser: Any, text: str) -> Any:
    try:
        return _flat(f(parser, text))
    except (UnexpectedInput, NotParsed):
        return "refused"


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_the_loop_parses_as_lark_does(dialect: str) -> None:
    parser = load_parser(dialect, "start", positions=False)
    texts = [s.text for s in _statements(dialect)]
    # broken variants too: cut short, a token doubled, a stray character
    texts += [t[: len(t) // 2] for t in texts[:200]] + [t + " )" for t in texts[:100]]
    texts += [t.replace("(", "((", 1) for t in texts[:100]] + ["", " ", "create", "\u00e9"]
    # blanks of every kind between tokens: the token before takes spaces and tabs, not lines
    texts += [t.replace(" ", " \t ").replace("\n", " \n\t") for t in texts[:100]]
    texts += [t.replace(" ", "  /* c */\t", 3).replace("(", "( -- c\n", 1) for t in texts[:100]]
    refused = 0
    for text in texts:
        lark_says = _outcome(lambda p, t: p.parse(t), parser, text)
        assert _outcome(parse_inline, parser, text) == lark_says, text
        refused += lark_says == "refused"
    assert 100 < refused < len(texts) - 100  # both outcomes are exercised


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_every_rule_is_reduced_by_the_loop_itself(
    dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each rule's lark callback chain (child filter, ``?rule`` expansion, then the Builder's
    method or a ``Tree``) is read into one function; a chain of a shape the loop does not read
    would still work through lark's callback, only slower: this says when lark changed them."""
    module = spark_parser if dialect == "spark" else trino_parser
    monkeypatch.setenv("ICEBERG_UDF_LARK_CYTHON", "0")  # lark's own tables, which the loop reads
    inline_parser.cache_clear()
    try:
        parsers = [load_parser(dialect, "start", positions=False)]
        parsers.append(inline_parser(dialect, "start", module.Builder))
    finally:
        inline_parser.cache_clear()
    for parser in parsers:
        tables = parser if isinstance(parser, Tables) else _tables(parser)
        assert tables is not None
        reducers = {r[1] for r in tables.ready() if r[1] is not None}  # None: a ?rule's child
        assert len(reducers) > 50
        methods = set(vars(module.Builder).values())  # a method the popped values go to as are
        assert all(r.__name__ == "reduce" or r in methods for r in reducers)


def test_time_is_linear_in_a_long_run_of_tokens() -> None:
    """An expression in a compound body is one long left-recursive run of tokens: each step
    must append to the run's list, not copy it (a copy per token took 15 s at 40k terms)."""
    parser = load_parser("trino", "start", positions=False)

    def parse(n: int) -> object:
        terms = " + ".join(["1"] * n)
        text = (
            f"CREATE FUNCTION f() RETURNS int BEGIN DECLARE x int; SET x = {terms}; RETURN x; END"
        )
        return parse_inline(parser, text)

    assert_linear(parse, 5000, warm=500)


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_the_tables_are_nothing_for_the_garbage_collector(dialect: str) -> None:
    """Each full collection traverses every tracked object: the loop's tables (one dict of
    ints a parser state) are not tracked, and lark's own table (a tuple an entry) is let go
    until lark's parser runs."""
    parser = load_parser(dialect, "start", positions=False)
    tables = _tables(parser)
    assert tables is not None
    assert len(tables.actions) > 300
    assert not any(gc.is_tracked(row) for row in tables.actions)
    assert isinstance(parser.parser.parser.parser.parse_table, LazyParseTable)


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_an_inline_parser_is_the_plain_parser_s_tables(
    dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without lark-cython no second Lark is loaded for a Builder: the plain parser's automaton
    and lexers run with the Builder's callbacks (the parses are compared in test_inline_parse)."""
    module = spark_parser if dialect == "spark" else trino_parser
    monkeypatch.setenv("ICEBERG_UDF_LARK_CYTHON", "0")
    inline_parser.cache_clear()
    try:
        inline = inline_parser(dialect, "start", module.Builder)
    finally:
        inline_parser.cache_clear()
    plain = _tables(load_parser(dialect, "start", positions=False))
    assert isinstance(inline, Tables) and plain is not None
    assert inline.actions is plain.actions and inline.lexing is plain.lexing
    assert inline.reductions != plain.reductions


def test_keyword_retyping_is_lark_s_for_every_word() -> None:
    """Spark's keywords are strings a name's regex also matches: lark retypes such a word by a
    full match against the state's keywords (``UnlessCallback``); the loop asks a dict for an
    ASCII word. Every state's answer is lark's, for keywords in any case, near misses and words
    whose characters fold onto ASCII ones (U+017F, the long s, is ``s`` to a case-insensitive
    regex)."""
    parser = load_parser("spark", "start", positions=False)
    tables = _tables(parser)
    assert tables is not None
    lexers = parser.parser.lexer.lexers
    keywords = sorted({t.pattern.value for t in parser.terminals if t.pattern.type == "str"})
    words = [w for k in keywords if k.isalpha() for w in (k, k.lower(), k.title(), k + "s")]
    words += ["x", "_if", "\u017fql", "\u017fecurity", "\u212aey", "caf\u00e9", "if\u0130"]
    fast = 0
    for state, basic in lexers.items():
        mine = ready(tables.lexing, state)[1]
        assert basic.scanner is not None  # lark's own scanner, which makes basic.callback
        assert mine.keys() == basic.callback.keys()
        for name, lark_callback in basic.callback.items():
            fast += mine[name] is not lark_callback
            for word in words:
                expected = lark_callback(Token(name, word)).type
                assert mine[name](Token(name, word)).type == expected, (state, word)
    assert fast > 10  # the dict answers in the states that have keywords
