"""Each parser state's lexing is made on first use: a parse makes ready only the lexers it meets,
every state sharing a lexer then reads the one made, and what is made is lark's lexer for that
state (its terminals in its order, its callbacks, the terminals it ignores); the reductions too
are made when first used. Lexing and reducing themselves are compared with lark's in
test_first_chars, test_inline_loop and test_inline_parse."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from translator.dialects.first_chars import MAX_CHARS, ByFirstChar
from translator.dialects.grammar import load_parser
from translator.dialects.inline_loop import Tables, _FirstReduce, parse_inline
from translator.dialects.state_lexers import NO_LEXER, _Pending, ready


def _fresh(dialect: str) -> tuple[Any, Tables]:
    """A parser loaded afresh (none of its lexers made) and its tables."""
    parser = load_parser.__wrapped__(dialect, "start", positions=False)
    return parser, Tables(parser)


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_a_parse_makes_ready_only_the_lexers_it_meets(dialect: str) -> None:
    parser, tables = _fresh(dialect)
    lexers = parser.parser.lexer.lexers
    assert all(isinstance(entry[0], _Pending) for entry in tables.lexing if entry is not NO_LEXER)
    parse_inline(tables, "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1")
    made = {id(entry[0]) for entry in tables.lexing if isinstance(entry[0], ByFirstChar)}
    pending = {id(entry[0]) for entry in tables.lexing if isinstance(entry[0], _Pending)}
    assert 0 < len(made) < len(pending)
    for state, basic in lexers.items():  # states that share a lexer share what was made
        same = [s for s, b in lexers.items() if b is basic]
        assert len({id(tables.lexing[s]) for s in same}) == 1, state
    assert sum(isinstance(r[1], _FirstReduce) for r in tables.reductions) > len(tables.rules) / 2


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_a_lexer_made_is_lark_s_lexer_for_its_state(dialect: str) -> None:
    parser, tables = _fresh(dialect)
    for state, basic in parser.parser.lexer.lexers.items():
        by_char, callbacks, ignore, newlines = ready(tables.lexing, state)
        scanner = basic.scanner  # lark's own
        assert isinstance(by_char, ByFirstChar)
        assert [name for name, _, _ in by_char._terminals] == [t.name for t in scanner.terminals]
        assert callbacks.keys() == basic.callback.keys()
        assert (ignore, newlines) == (basic.ignore_types, basic.newline_types)


def test_past_the_characters_remembered_the_whole_alternation_is_lark_s() -> None:
    """Past :data:`MAX_CHARS` characters a lexer tries its whole alternation, which it compiles
    only then: what it matches is what lark's scanner matches."""
    parser, tables = _fresh("trino")
    state = next(iter(parser.parser.lexer.lexers))
    by_char = ready(tables.lexing, state)[0]
    assert isinstance(by_char, ByFirstChar)
    (lark_whole,) = parser.parser.lexer.lexers[state].scanner._mres
    text = "".join(chr(0x4E00 + i) for i in range(MAX_CHARS)) + " x 'a' 1 -- c\n"
    for pos, c in enumerate(text):
        m, expected = by_char[c](text, pos), lark_whole.match(text, pos)
        assert (m and (m.lastgroup, m.end())) == (expected and (expected.lastgroup, expected.end()))
    assert len(by_char) == MAX_CHARS


def test_threads_meeting_a_lexer_first_share_the_one_made() -> None:
    parser, tables = _fresh("spark")
    text = "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1"
    expected = parse_inline(load_parser("spark", "start", positions=False), text)
    results: list[Any] = []
    start = threading.Barrier(4)

    def run() -> None:
        start.wait()
        results.append(parse_inline(tables, text))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4
    for state, basic in parser.parser.lexer.lexers.items():
        same = [s for s, b in parser.parser.lexer.lexers.items() if b is basic]
        assert len({id(tables.lexing[s]) for s in same}) == 1, state
