"""The one-loop LALR driver gives what lark's own parse gives: the same tree, with the same
tokens (type, value and every position), for every statement lark accepts, and refuses exactly
the statements lark refuses. Checked on lark's tree-building parsers, whose callbacks record
every token and reduction the loop passes on."""

from __future__ import annotations

from typing import Any

import pytest
from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from tests.dialects.test_inline_parse import _statements
from tests.timing import assert_linear
from translator.dialects.grammar import inline_parser, load_parser
from translator.dialects.inline_loop import NotParsed, Tables, _tables, parse_inline
from translator.dialects.spark import parser as spark_parser
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
        reducers = {r[1] for r in tables.reductions}
        assert len(reducers) > 50
        assert all(r.__name__ == "reduce" for r in reducers)


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
