"""Each parser state's lexing for the inline loop, made ready the first time the loop lexes there.

A grammar's contextual lexer has one lexer per distinct set of terminals a parser state accepts
(Spark 77, Trino 116). Making one ready compiles regular expressions: lark's keyword checks,
the per-character alternations of :class:`~translator.dialects.first_chars.ByFirstChar` and the
tests of which terminals may start with a character. All of them at once took about 60 ms of a
one-statement command's CPU, while a run meets a fraction of them (a one-statement migration a
dozen, a 300-file one 40 of Spark's 77). So each lexer starts as a stand-in: a ``by_char``
mapping that holds nothing, whose first lookup makes the lexer ready, puts the real entry in
place for every parser state sharing that lexer, and answers the lookup. The loop reads the
entry as before: once ready, a lexer costs nothing more per token.

What is made is what lark's ``BasicLexer`` makes for itself (its terminals after the keyword
strings a name's regex also matches are folded into that regex's callback, in its order, and its
callbacks), without the one alternation of all of the state's terminals lark compiles for its
scanner: the loop needs that only past :data:`~translator.dialects.first_chars.MAX_CHARS`
distinct characters, so it is compiled then. lark's own lexers are left alone: lark's parser
(which reports syntax errors) makes its scanners itself when it runs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from lark import Token
from lark.lexer import (
    BasicLexer,
    ContextualLexer,
    PatternStr,
    Scanner,
    TerminalDef,
    UnlessCallback,
)

from translator.dialects.first_chars import ByFirstChar, StartTests

#: What ``BasicLexer._build_scanner`` calls for a lexer's terminals and keyword callbacks
#: (None: each lexer is made by lark's own scanner).
_create_unless: Callable[..., tuple[list[TerminalDef], dict[str, Any]]] | None
try:
    from lark.lexer import _create_unless as _lark_create_unless

    _create_unless = _lark_create_unless
except ImportError:  # pragma: no cover - a lark without it
    _create_unless = None

__all__ = ["NO_LEXER", "Lexing", "ready", "state_lexings"]

#: Per parser state, of that state's lexer: by the character at the position, the match of
#: its terminals' regexes that may start there (tried in lark's order), its callbacks, the
#: terminals it ignores and those that may hold a line break.
Lexing = tuple[dict[str, Callable[..., Any]], dict[str, Any], frozenset[str], frozenset[str]]


class _Whole(dict[str, Callable[..., Any]]):
    """The whole alternation at every character."""

    def __init__(self, whole: Callable[..., Any]) -> None:
        super().__init__()
        self._whole = whole

    def __missing__(self, c: str) -> Callable[..., Any]:
        return self._whole


#: The lexer of a state lark has none for (none today): it matches nothing.
NO_LEXER: Lexing = (_Whole(lambda text, pos: None), {}, frozenset(), frozenset())


def state_lexings(lexer: ContextualLexer, states: int) -> list[Lexing]:
    """The lexing of each of ``states`` parser states of ``lexer`` (lark's contextual lexer),
    every distinct lexer a stand-in until first used. The tests of which characters a terminal
    may start with are shared by the grammar's lexers (one per pattern and flags)."""
    # Any, not Lexing: compiled by mypyc, a typed tuple is unboxed when read and boxed anew
    # when stored, so the states sharing a lexer would each get their own tuple.
    out: list[Any] = [NO_LEXER] * states
    starts = StartTests()
    sharing: dict[int, tuple[BasicLexer, list[int]]] = {}
    for state, basic in lexer.lexers.items():
        assert isinstance(basic, BasicLexer)
        sharing.setdefault(id(basic), (basic, []))[1].append(state)
    for basic, where in sharing.values():
        pending = _Pending(basic, where, out, starts)
        entry: Any = (pending, pending.callbacks, pending.ignore, pending.newlines)
        for state in where:
            out[state] = entry
    return out


def ready(lexings: list[Lexing], state: int) -> Lexing:
    """The lexing of ``state``, made ready if it was not (for tests and tools; the loop makes a
    lexer ready on its first lookup)."""
    by_char = lexings[state][0]
    if isinstance(by_char, _Pending):
        by_char.make_ready()
    return lexings[state]


class _Pending(dict[str, Callable[..., Any]]):
    """The ``by_char`` of a lexer not made ready: it holds nothing, so the loop's first lookup
    lands in :meth:`__missing__`, which makes the lexer ready and answers from the real one.
    The callbacks dict is the real entry's, filled in place (the loop may hold it already)."""

    def __init__(
        self, basic: BasicLexer, states: list[int], lexings: list[Any], starts: StartTests
    ) -> None:
        super().__init__()
        self.callbacks: dict[str, Any] = {}
        self.ignore = frozenset(basic.ignore_types)
        self.newlines = frozenset(basic.newline_types)
        self._basic: BasicLexer | None = basic
        self._states, self._lexings, self._starts = states, lexings, starts
        self._made: dict[str, Callable[..., Any]] | None = None
        self._lock = threading.Lock()  # the server lexes in several threads

    def __missing__(self, c: str) -> Callable[..., Any]:
        return self.make_ready()[c]

    def make_ready(self) -> dict[str, Callable[..., Any]]:
        with self._lock:
            made = self._made
            if made is None:
                assert self._basic is not None
                made, callbacks = _make(self._basic, self._starts)
                self.callbacks.update(callbacks)
                entry: Any = (made, self.callbacks, self.ignore, self.newlines)  # one tuple
                for state in self._states:
                    self._lexings[state] = entry
                self._made = made
                self._basic = None  # lark's lexer and the list are not held any longer
                self._lexings = []
        return made


def _make(
    basic: BasicLexer, starts: StartTests
) -> tuple[dict[str, Callable[..., Any]], dict[str, Any]]:
    """What the loop reads of ``basic``: its ``by_char`` and its callbacks (keyword retyping
    answered by a dict where it can be)."""
    if _create_unless is None or basic.user_callbacks or basic.use_bytes:
        scanner = basic.scanner  # lark's own, which fills basic.callback
        terminals, callbacks = scanner.terminals, basic.callback
        whole: Callable[..., Any] = _first_match(tuple(m.match for m in scanner._mres))
    else:
        flags, re_ = basic.g_regex_flags, basic.re
        terminals, callbacks = _create_unless(basic.terminals, flags, re_, False)
        whole = _Deferred(lambda: Scanner(terminals, flags, re_, False))  # type: ignore[no-untyped-call]
    keyed = {name: _keywords(callback) for name, callback in callbacks.items()}
    if basic.use_bytes:
        return _Whole(whole), keyed
    found = [(t.name, t.pattern.to_regexp()) for t in terminals]
    return ByFirstChar(found, basic.g_regex_flags, whole, basic.re.compile, starts), keyed


class _Deferred:
    """The match of a scanner's whole alternation, compiled when first called."""

    def __init__(self, scanner: Callable[[], Scanner]) -> None:
        self._scanner = scanner
        self._match: Callable[..., Any] | None = None

    def __call__(self, text: str, pos: int) -> Any:
        if self._match is None:
            self._match = _first_match(tuple(m.match for m in self._scanner()._mres))
        return self._match(text, pos)


def _first_match(matchers: tuple[Callable[..., Any], ...]) -> Callable[..., Any]:
    """The match of a lexer's regexes: lark splits its terminals into several only where one
    would have too many groups (the grammars here have one a state)."""
    if len(matchers) == 1:
        return matchers[0]

    def first(text: str, pos: int) -> Any:
        for match in matchers:
            m = match(text, pos)
            if m:
                return m
        return None

    return first


def _keywords(callback: Any) -> Any:
    """lark's callback that retypes a word which is one of the lexer state's keywords (the
    keyword strings a name's regex also matches: ``UnlessCallback``, a full match against an
    alternation of them), answered by a dict for an ASCII word; anything else, lark's own.

    For ASCII text and ASCII keywords, a case-insensitive full match is equality of the
    lower-cased strings, and the first keyword of the alternation that matches is the first
    one with that lower-cased spelling. A word with other characters (U+017F, the long s,
    matches ``s`` case-insensitively) takes lark's regex.
    """
    scanner: Any = getattr(callback, "scanner", None)
    terms = getattr(scanner, "terminals", None)
    if (
        type(callback) is not UnlessCallback
        or not terms
        or scanner.g_regex_flags
        or not all(
            isinstance(t.pattern, PatternStr)
            and set(t.pattern.flags) == {"i"}
            and t.pattern.value.isascii()
            for t in terms
        )
    ):
        return callback
    types: dict[str, str] = {}
    for t in terms:
        types.setdefault(t.pattern.value.lower(), t.name)

    def retype(tok: Token) -> Token:
        value = tok.value
        if not value.isascii():
            return callback(tok)  # type: ignore[no-any-return]
        found = types.get(value.lower())
        if found is not None:
            tok.type = found
        return tok

    return retype
