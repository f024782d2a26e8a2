"""The regular expressions that screen a whole statement for a word (Spark's AS, LANGUAGE, $ and
RETURN, Trino's BEGIN) are written to start with the word's first character, so that the regex
engine skips to where that character is; they find exactly what the plain spelling
(a word boundary, then the word) finds, at the same place."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.dialects.test_inline_parse import _texts
from translator.dialects.spark.assemble import _MAYBE_NOT_SQL, _RETURN_WORD
from translator.dialects.trino.parser import _BEGIN

_WORD = "[A-Za-z0-9_$]"
#: (the screen, its plain spelling, the dialect whose statements it reads)
_SCREENS = [
    (_MAYBE_NOT_SQL, re.compile(rf"(?ai)(?<!{_WORD})(?:as|language)(?!{_WORD})|\$"), "spark"),
    (_RETURN_WORD, re.compile(rf"(?ai)(?<!{_WORD})return(?!{_WORD})"), "spark"),
    (_BEGIN, re.compile(r"\bbegin\b", re.IGNORECASE), "trino"),
]


def _found(pattern: re.Pattern[str], text: str) -> int | None:
    m = pattern.search(text)
    return None if m is None else m.start()


@pytest.mark.parametrize(("screen", "plain", "dialect"), _SCREENS)
def test_a_screen_finds_what_its_plain_spelling_finds(
    screen: re.Pattern[str], plain: re.Pattern[str], dialect: str
) -> None:
    texts = _texts(dialect)
    assert any(_found(plain, t) is not None for t in texts)
    assert any(_found(plain, t) is None for t in texts)
    for text in texts:
        assert _found(screen, text) == _found(plain, text), text


_PIECES = [
    "as", "AS", "aS", "a", "s", "language", "LANGUAGE", "lang", "return", "RETURN", "begin",
    "BEGIN", "beg", "in", "$", "_", "x", "1", " ", "\n", ".", "(", "\u017f", "\u0131", "\u0130",
    "\u00e9", "\u212a",
]  # fmt: skip


@settings(max_examples=examples(3000), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_screens_agree_on_random_text(text: str) -> None:
    for screen, plain, _dialect in _SCREENS:
        assert _found(screen, text) == _found(plain, text)
