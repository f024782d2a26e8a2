"""A lexer state's regular expression, cut down to the terminals that can start at a character.

lark's lexer matches one alternation of every terminal a state accepts, in its priority order,
and takes the first alternative that matches. At a given character most alternatives cannot
match at all (a keyword starting with another letter, a quote, a number), yet the regex engine
enters each of them in turn: in a Trino state that accepts thirty keywords, every name tries
thirty of them first. :class:`ByFirstChar` keeps, per character met, the alternation of only
the terminals whose pattern may start with it, in the same order: the first of them that
matches is the first of the whole alternation that matches (every alternative left out cannot
match there), with the same group name, so the token is lark's.

Whether a pattern may start with a character is read from the pattern's parse by Python's own
regex parser, conservatively: any construct not read here (a backreference, a conditional)
counts as "may start with anything", as does a pattern that can match the empty string, and
so does every pattern where that parser (a private module) is not what this reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final

__all__ = ["ByFirstChar", "StartTests", "may_start"]

#: Characters each lexer state remembers its alternation for (a script in some other alphabet
#: would meet many more; past this, the state's whole alternation serves them).
MAX_CHARS: Final = 256

try:  # Python's regex parser: private modules (as they are since 3.11)
    import re._constants as sre_c  # type: ignore[import-not-found]
    import re._parser as sre_parse  # type: ignore[import-not-found]

    #: The class escapes of the regex parser's categories, for writing a class back.
    _CATEGORIES: dict[Any, str] = {
        sre_c.CATEGORY_DIGIT: r"\d",
        sre_c.CATEGORY_NOT_DIGIT: r"\D",
        sre_c.CATEGORY_SPACE: r"\s",
        sre_c.CATEGORY_NOT_SPACE: r"\S",
        sre_c.CATEGORY_WORD: r"\w",
        sre_c.CATEGORY_NOT_WORD: r"\W",
    }
except (ImportError, AttributeError):  # pragma: no cover - then every pattern may start anywhere
    sre_c = sre_parse = None

_Test = Callable[[str], bool]


class _AnyStart(Exception):
    """The pattern may start with any character (or the analysis cannot say which)."""


def may_start(pattern: str, flags: int = 0) -> _Test | None:
    """A test of whether ``pattern`` (with ``flags``) may match a text starting with a given
    character: False only where it surely cannot. None where it may start with anything."""
    try:
        parsed = sre_parse.parse(pattern, flags)
        tests, nullable = _first(list(parsed), parsed.state.flags)
    except Exception:  # _AnyStart, or a regex parser not as read here: the whole alternation
        return None
    if nullable:
        return None
    return _either(tests)


def _either(tests: list[tuple[str, int]]) -> _Test:
    """Whether a character matches one of the one-character ``tests``.

    Most tests are one ASCII character (a keyword's first letter, a punctuation mark), and a
    compile of each (about 0.2 ms: the regex parser and compiler are Python) was most of what
    reading a grammar's terminals cost a short command. An ASCII character matches such a test
    exactly when it is that character or, case-insensitively, its other case; so those are
    looked up in a set, and only the other tests are compiled. A character beyond ASCII gets
    every test compiled, when one first meets one: Unicode's case folding lets some match an
    ASCII letter (``\u212a``, the Kelvin sign, matches ``k``), which the regex engine knows.
    """
    chars: set[str] = set()
    others: list[tuple[str, int]] = []
    for source, f in tests:
        c = _ascii_literal(source)
        if c is None:
            others.append((source, f))
        else:
            chars.update((c.lower(), c.upper()) if f & re.IGNORECASE else c)
    compiled = [re.compile(source, f).fullmatch for source, f in others]
    every: list[list[Callable[[str], Any]]] = []  # made once, and set whole (threads)

    def test(c: str) -> bool:
        if c.isascii():
            return c in chars or any(m(c) is not None for m in compiled)
        if not every:
            every.append([re.compile(source, f).fullmatch for source, f in tests])
        return any(m(c) is not None for m in every[0])

    return test


def _ascii_literal(source: str) -> str | None:
    """The ASCII character a test of :func:`_first` matches literally (``re.escape`` of it),
    or None for any other test (a class, ``.``)."""
    if len(source) == 2 and source[0] == "\\" and source[1].isascii() and not source[1].isalnum():
        return source[1]
    if len(source) == 1 and source.isascii() and source != ".":  # not escaped: not special
        return source
    return None


def _first(items: Sequence[tuple[Any, Any]], flags: int) -> tuple[list[tuple[str, int]], bool]:
    """The one-character patterns (source, flags) one of which the first character of a
    match of ``items`` matches, and whether ``items`` can match the empty string."""
    tests: list[tuple[str, int]] = []
    for op, av in items:
        if op in (sre_c.AT, sre_c.ASSERT, sre_c.ASSERT_NOT):
            continue  # zero width: it only narrows what follows
        if op is sre_c.LITERAL:
            tests.append((re.escape(chr(av)), flags))
        elif op is sre_c.NOT_LITERAL:
            tests.append(("[^" + re.escape(chr(av)) + "]", flags))
        elif op is sre_c.IN:
            tests.append((_charset(av), flags))
        elif op is sre_c.ANY:
            tests.append((".", flags))
        elif op is sre_c.SUBPATTERN:
            _group, add, remove, sub = av
            inner, nullable = _first(list(sub), (flags | add) & ~remove)
            tests += inner
            if nullable:
                continue
        elif op is sre_c.BRANCH:
            nullable = False
            for branch in av[1]:
                inner, empty = _first(list(branch), flags)
                tests += inner
                nullable = nullable or empty
            if nullable:
                continue
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            low, high, sub = av
            if high == 0:
                continue
            inner, nullable = _first(list(sub), flags)
            tests += inner
            if nullable or low == 0:
                continue
        elif op is sre_c.ATOMIC_GROUP:
            inner, nullable = _first(list(av), flags)
            tests += inner
            if nullable:
                continue
        else:
            raise _AnyStart
        return tests, False
    return tests, True


def _charset(items: Sequence[tuple[Any, Any]]) -> str:
    """A character class of the regex parser's ``IN`` items, written back as a pattern."""
    out: list[str] = []
    for op, av in items:
        if op is sre_c.NEGATE:
            out.insert(0, "^")
        elif op is sre_c.LITERAL:
            out.append(re.escape(chr(av)))
        elif op is sre_c.RANGE:
            out.append(re.escape(chr(av[0])) + "-" + re.escape(chr(av[1])))
        elif op is sre_c.CATEGORY and av in _CATEGORIES:
            out.append(_CATEGORIES[av])
        else:
            raise _AnyStart
    return "[" + "".join(out) + "]"


class StartTests(dict[tuple[str, int], _Test | None]):
    """``tests[pattern, flags]``: :func:`may_start` of them, read once for the lexers of one
    grammar (a terminal is in many of its lexer states; reading a pattern costs a parse by
    Python's regex parser and a compile per alternative). Its keys are the grammar's own
    terminals, so it holds at most one entry each."""

    def __missing__(self, key: tuple[str, int]) -> _Test | None:
        test = self[key] = may_start(*key)
        return test


class ByFirstChar(dict[str, Callable[..., Any]]):
    """``by_char[c]``: the match of the alternation of the terminals that may start with
    ``c`` (``terminals``: (name, pattern) in the lexer's order, compiled with ``flags``;
    ``starts``: the tests of the grammar's terminals, where other lexers share them).

    ``tail``, a pattern that always matches (``[ \\t]*``), follows the alternation: what it
    takes after the token is in the match but not in the token's group. The caller vouches
    that the next lexer state would have skipped it as an ignored terminal anyway
    (:mod:`~translator.dialects.state_lexers`); past :data:`MAX_CHARS` the whole alternation
    serves, without it."""

    def __init__(
        self,
        terminals: Sequence[tuple[str, str]],
        flags: int,
        whole: Callable[..., Any],
        compile_: Callable[..., Any] = re.compile,
        starts: StartTests | None = None,
        tail: str = "",
    ) -> None:
        super().__init__()
        tests = StartTests() if starts is None else starts
        self._terminals = [(name, pattern, tests[pattern, flags]) for name, pattern in terminals]
        self._flags = flags
        self._whole = whole
        self._compile = compile_
        self._tail = tail

    def __missing__(self, c: str) -> Callable[..., Any]:
        if len(self) >= MAX_CHARS:
            return self._whole
        kept = [(n, p) for n, p, test in self._terminals if test is None or test(c)]
        if not kept:
            found: Callable[..., Any] = _no_match
        else:
            source = "|".join(f"(?P<{name}>{pattern})" for name, pattern in kept)
            if self._tail:
                source = f"(?:{source}){self._tail}"
            found = self._compile(source, self._flags).match
        self[c] = found
        return found


def _no_match(text: str, pos: int) -> None:
    """No terminal of the state may start here: the whole alternation would not match either."""
    return None
