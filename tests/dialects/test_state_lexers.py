"""Each parser state's lexing is made on first use: a parse makes ready only the lexers it meets,
every state sharing a lexer then reads the one made, and what is made is lark's lexer for that
state (its terminals in its order, its callbacks, the terminals it ignores); the reductions too
are made when first used. Lexing and reducing themselves are compared with lark's in
test_first_chars, test_inline_loop and test_inline_parse."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from lark import Lark
from lark.exceptions import UnexpectedInput

from translator.dialects.first_chars import MAX_CHARS, ByFirstChar, StartTests
from translator.dialects.grammar import load_parser
from translator.dialects.inline_loop import NotParsed, Tables, _FirstReduce, parse_inline
from translator.dialects.state_lexers import BLANKS, NO_LEXER, _Pending, blank_tail, ready


def _fresh(dialect: str) -> tuple[Any, Tables]:
    """A parser loaded afresh (none of its lexers made) and its tables."""
    parser = load_parser.__wrapped__(dialect, "start", positions=False)
    return parser, Tables(parser)


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_a_parse_makes_ready_only_the_lexers_it_meets(dialect: str) -> None:
    parser, tables = _fresh(dialect)
    lexers = parser.parser.lexer.lexers
    lexing = tables.lexing
    entries = lexing.entries
    assert all(isinstance(entry[0], _Pending) for entry in entries if entry is not NO_LEXER)
    assert all(b is e[0] for b, e in zip(lexing.by_char, entries, strict=True))
    assert not lexing.called
    parse_inline(tables, "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1")
    made = {id(entry[0]) for entry in entries if isinstance(entry[0], ByFirstChar)}
    pending = {id(entry[0]) for entry in entries if isinstance(entry[0], _Pending)}
    assert 0 < len(made) < len(pending)
    for state, basic in lexers.items():  # states that share a lexer share what was made
        same = [s for s, b in lexers.items() if b is basic]
        assert len({id(entries[s]) for s in same}) == 1, state
        assert len({id(lexing.keywords[s]) for s in same}) == 1, state
        assert lexing.by_char[state] is entries[state][0], state
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
        assert callbacks.keys() <= tables.lexing.called
        # the loop's sets, the same in every state, say of the state's terminals what its own do
        names = {t.name for t in basic.terminals}
        assert tables.lexing.ignore == ignore
        assert tables.lexing.newlines & names == newlines


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
        assert len({id(tables.lexing.entries[s]) for s in same}) == 1, state


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_a_token_s_match_takes_the_spaces_and_tabs_after_it(dialect: str) -> None:
    """In both grammars the first terminal that may start with a blank is the ignored ``WS``,
    in every state: the match of a token goes on over the blanks after it, up to a line break
    or the next token; the token itself ends where it ends."""
    parser, tables = _fresh(dialect)
    assert blank_tail(parser.parser.lexer, StartTests()) == BLANKS
    by_char = ready(tables.lexing, tables.start_state)[0]
    text = "CREATE \t  \tFUNCTION\n"
    m = by_char[text[0]](text, 0)
    assert (m.lastgroup, m.end(m.lastgroup), m.end()) == ("CREATE", 6, 11)
    m = by_char["C"]("CREATE\n  FUNCTION", 0)
    assert (m.end(m.lastgroup), m.end()) == (6, 6)


#: Grammars where the blanks after a token are not the next state's ignored WS, each with a text
#: whose parse would come out otherwise if the match of a token took them.
_NOT_BLANK = {
    "a terminal before WS starts with a space": (
        "start: (WORD | GAP)+\nWORD: /\\w+/\nGAP.5: / +-/\n%import common.WS\n%ignore WS",
        "a  -b",
    ),
    "WS is not ignored": ("start: WORD (WS WORD)*\nWORD: /\\w+/\nWS: /\\s+/", "a \t b"),
    "the ignored terminal takes spaces only": (
        "start: WORD (TAB WORD)*\nWORD: /\\w+/\nSP: / +/\nTAB: /\\t/\n%ignore SP",
        "a \tb",
    ),
    "a callback of the user's sees WS": (
        "start: WORD+\nWORD: /\\w+/\n%import common.WS\n%ignore WS",
        "a  b",
    ),
}


@pytest.mark.parametrize("case", list(_NOT_BLANK))
def test_no_blanks_are_taken_where_the_next_state_may_not_skip_them(case: str) -> None:
    grammar, text = _NOT_BLANK[case]
    seen: list[str] = []
    callbacks = {"WS": lambda t: seen.append(t) or t} if "callback" in case else {}
    parser = Lark(grammar, parser="lalr", lexer="contextual", lexer_callbacks=callbacks)
    assert blank_tail(parser.parser.lexer, StartTests()) == ""

    def tokens(parse: Any) -> Any:
        try:
            return [(t.type, t.start_pos, t.end_pos) for t in parse(text).scan_values(bool)]
        except (UnexpectedInput, NotParsed):
            return "refused"

    assert tokens(lambda t: parse_inline(parser, t)) == tokens(parser.parse)
    if callbacks:
        assert seen == ["  ", "  "]  # lark's parse, then the loop's
