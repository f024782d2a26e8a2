"""A lexer state's alternation cut down by the character at the position matches what the
whole alternation matches (the same terminal, the same length), everywhere: at every position
of the grammars' statements and of random text, in every lexer state of both grammars. What
the match takes past the token (``state_lexers.BLANKS``) is the run of spaces and tabs there."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.dialects.test_inline_parse import _texts
from translator.dialects.first_chars import MAX_CHARS, ByFirstChar, may_start
from translator.dialects.grammar import load_parser
from translator.dialects.inline_loop import _tables
from translator.dialects.state_lexers import ready


def _outcome(m: re.Match[str] | None) -> tuple[str | None, int] | None:
    """The terminal matched and where its token ends; for a match that takes the blanks after
    the token too, that they are the whole run of spaces and tabs there."""
    if m is None:
        return None
    end = m.end(m.lastgroup) if m.lastgroup else m.end()
    blanks = m.string[end : m.end()]
    assert blanks.strip(" \t") == "", blanks
    assert m.end() == end or m.end() == len(m.string) or m.string[m.end()] not in " \t"
    return (m.lastgroup, end)


def _lexers(dialect: str) -> list[tuple[ByFirstChar, Callable[..., Any]]]:
    """Each distinct lexer of the grammar as the loop runs it (made ready), with the match of
    lark's own scanner for that lexer state: the whole alternation, as lark makes it."""
    parser = load_parser(dialect, "start", positions=False)
    tables = _tables(parser)
    assert tables is not None
    found: dict[int, tuple[ByFirstChar, Callable[..., Any]]] = {}
    for state, basic in parser.parser.lexer.lexers.items():
        by_char = ready(tables.lexing, state)[0]
        assert isinstance(by_char, ByFirstChar)
        (whole,) = basic.scanner._mres
        found[id(by_char)] = (by_char, whole.match)
    assert len(found) > 10
    return list(found.values())


#: Text around the places where a choice between terminals is made: quotes, comments, numbers
#: with letters, keywords glued to names, operators, characters that fold onto ASCII ones.
_TRICKY = (
    "x--y /*c*/ 'a''b' \"q\"\"r\" `b``c` 1e5end 1.e3 .5x $$ $t$ with time zone, "
    "double  precision returns_ RETURNS\u017fql \u212aey caf\u00e9 <= => -> || != <> :: ?"
)


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_every_position_of_the_grammars_statements_lexes_as_before(dialect: str) -> None:
    texts = [*_texts(dialect)[::7], _TRICKY, _TRICKY.upper()]
    text = "\n".join(texts)
    for by_char, whole in _lexers(dialect):
        for pos in range(len(text)):
            assert _outcome(by_char[text[pos]](text, pos)) == _outcome(whole(text, pos)), pos


_ALPHABET = st.sampled_from(
    list("aAcCeEnNrRsStTdD_019 .,()<>[]:;'\"`$-/*+=|!\n\t\u017f\u212a\u00e9")
)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(_ALPHABET, min_size=1, max_size=30).map("".join))
def test_random_text_lexes_as_before(text: str) -> None:
    for dialect in ("spark", "trino"):
        for by_char, whole in _lexers(dialect):
            for pos in range(len(text)):
                expected = _outcome(whole(text, pos))
                assert _outcome(by_char[text[pos]](text, pos)) == expected, (text, pos)


def test_may_start_reads_what_a_pattern_can_start_with() -> None:
    def starts(pattern: str, chars: str = "aAsS\u017fk\u212a1 -+'\n") -> str | None:
        test = may_start(pattern)
        return None if test is None else "".join(c for c in chars if test(c))

    assert starts(r"(?i:sk\b)") == "sS\u017f"  # case-insensitive, with Unicode's folding
    assert starts(r"k") == "k"
    assert starts(r"(?i:k)") == "k\u212a"
    assert starts(r"(?!--)[^\s\w'(),.]") == "-+"  # a lookahead only narrows
    assert starts(r"a?s+") == "as"  # an optional first part, then what follows it
    assert starts(r"(?:\d+|-)x") == "1-"
    assert starts(r"\S(?s:.)*") == "aAsS\u017fk\u212a1-+'"
    assert starts(r"a*") is None  # may match the empty string: any place
    assert starts(r"(a)\1") == "a"  # only the first part that cannot be empty is read
    assert starts(r"(a)?(?(1)c|d)") is None  # a construct not read: any place
    assert starts(r"(a)?\1b") is None
    assert starts(r"\b") is None


def test_a_state_remembers_a_bounded_number_of_characters() -> None:
    terminals = [("A", "a"), ("W", r"\w+")]
    whole = re.compile("(?P<A>a)|(?P<W>\\w+)").match
    by_char = ByFirstChar(terminals, 0, whole)
    for i in range(MAX_CHARS + 50):
        c = chr(0x4E00 + i)
        assert _outcome(by_char[c](c, 0)) == ("W", 1)
    assert len(by_char) == MAX_CHARS
    assert by_char[" "](" ", 0) is None


def test_a_literal_first_character_is_tested_as_the_regex_engine_would() -> None:
    """ASCII literals are looked up, not compiled: the same answer as the compiled test for
    every ASCII character and for those beyond ASCII that case folding relates to one."""
    chars = [chr(i) for i in range(0x250)] + ["\u0130", "\u0131", "\u1e9e", "\u2126", "\u212a"]
    for code in range(128):
        for flags in (0, re.IGNORECASE):
            source = re.escape(chr(code))
            test = may_start(source + "x", flags)
            engine = re.compile(source, flags)
            assert test is not None
            for c in chars:
                assert test(c) == (engine.fullmatch(c) is not None), (chr(code), flags, c)
    mixed = may_start(r"(?i:k)|[0-9]|\.|.")
    assert mixed is not None and all(mixed(c) for c in "kK\u212a5.x\u00e9")
