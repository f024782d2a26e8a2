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
    PatternRE,
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

__all__ = ["BLANKS", "NO_LEXER", "Lexing", "Lexings", "blank_tail", "ready", "state_lexings"]

#: What a token's match also takes after the token, where :func:`blank_tail` allows it: the
#: spaces and tabs before the next token. Never a line break, so that no line is counted there.
BLANKS = r"[ \t]*"

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


class Lexings:
    """Every parser state's lexing, in the shapes the loop reads per token.

    ``by_char[state]``: the state's ``by_char`` (a stand-in until the state's lexer is made).
    ``keywords[state]``: by terminal, the ASCII keywords its matches are retyped to (lower-cased
    word -> keyword's terminal), for the callbacks :func:`_keyword_types` reads.
    ``entries[state]``: the state's :data:`Lexing` (its callbacks among them), for the rest.
    ``called``: the terminals some lexer made so far has a callback for (the loop looks a
    state's callbacks up only for those). ``ignore`` and ``newlines`` are the same in every
    state: lark adds the ignored terminals to every state's lexer, and whether a terminal may
    hold a line break is read from its pattern alone.

    Each list is filled in place as lexers are made, the keywords and callbacks of a lexer
    before its ``by_char``, so that a thread which finds a lexer made finds them too.
    """

    def __init__(self, states: int, ignore: frozenset[str], newlines: frozenset[str]) -> None:
        self.by_char: list[dict[str, Callable[..., Any]]] = [NO_LEXER[0]] * states
        # Any, not Lexing: compiled by mypyc, a typed tuple is unboxed when read and boxed
        # anew when stored, so the states sharing a lexer would each get their own tuple.
        self.entries: list[Any] = [NO_LEXER] * states
        self.keywords: list[dict[str, dict[str, str]]] = [{} for _ in range(states)]
        self.called: set[str] = set()
        self.ignore = ignore
        self.newlines = newlines


def state_lexings(lexer: ContextualLexer, states: int) -> Lexings | None:
    """The lexing of each of ``states`` parser states of ``lexer`` (lark's contextual lexer),
    every distinct lexer a stand-in until first used; None where its states do not ignore the
    same terminals (lark's do). The tests of which characters a terminal may start with are
    shared by the grammar's lexers (one per pattern and flags)."""
    basics = [b for b in lexer.lexers.values() if isinstance(b, BasicLexer)]
    root = lexer.root_lexer
    if not isinstance(root, BasicLexer) or len(basics) < len(lexer.lexers):
        return None
    ignore = frozenset(root.ignore_types)
    if any(b.ignore_types != ignore for b in basics):
        return None
    newlines = frozenset(n for b in basics for n in b.newline_types)
    out = Lexings(states, ignore, newlines)
    starts = StartTests()
    tail = blank_tail(lexer, starts)
    sharing: dict[int, tuple[BasicLexer, list[int]]] = {}
    for state, basic in lexer.lexers.items():
        assert isinstance(basic, BasicLexer)
        sharing.setdefault(id(basic), (basic, []))[1].append(state)
    for basic, where in sharing.values():
        pending = _Pending(basic, where, out, starts, tail)
        entry: Any = (pending, pending.callbacks, ignore, pending.newlines)
        for state in where:
            out.entries[state] = entry
            out.by_char[state] = pending
            out.keywords[state] = pending.keywords
    return out


def blank_tail(lexer: ContextualLexer, starts: StartTests) -> str:
    """:data:`BLANKS` where every lexer state of ``lexer`` would skip spaces and tabs as one
    ignored terminal, else "" (each token's match then ends with the token).

    A header's tokens are mostly separated by spaces, each a match of its own (an ignored
    ``WS``) in the loop: about a third of a header's matches. Taken with the token before them,
    they cost nothing more. That changes nothing where, in every lexer state, the first
    terminal in lark's order that may start with a space or a tab is the same ignored ``\\s+``
    (so it matches there, and the run of spaces and tabs is all in it): skipping part of its
    match with the token before and the rest (from a line break) as a match of its own leaves
    the same tokens, lines and columns. A state's order is the grammar's order (lark sorts
    every lexer by one key), so the grammar's terminals are read, not each state's. No callback
    of the user's may see the ignored terminal (lark's own, a keyword's retyping, changes
    nothing: lark drops an ignored terminal's token whatever its callback makes of it).
    """
    root = lexer.root_lexer
    if type(root) is not BasicLexer or root.use_bytes:
        return ""
    first: TerminalDef | None = None
    for t in root.terminals:  # lark's order
        test = starts[t.pattern.to_regexp(), root.g_regex_flags]
        if test is None or test(" ") or test("\t"):
            first = t
            break
    if (
        first is None
        or first.name not in root.ignore_types
        or first.name in root.user_callbacks
        or not isinstance(first.pattern, PatternRE)
        or first.pattern.to_regexp() != r"\s+"
    ):
        return ""
    return BLANKS


def ready(lexings: Lexings, state: int) -> Lexing:
    """The lexing of ``state``, made ready if it was not (for tests and tools; the loop makes a
    lexer ready on its first lookup)."""
    by_char = lexings.by_char[state]
    if isinstance(by_char, _Pending):
        by_char.make_ready()
    entry: Lexing = lexings.entries[state]
    return entry


class _Pending(dict[str, Callable[..., Any]]):
    """The ``by_char`` of a lexer not made ready: it holds nothing, so the loop's first lookup
    lands in :meth:`__missing__`, which makes the lexer ready and answers from the real one.
    The callbacks and keywords dicts are the real ones, filled in place (the loop may hold
    them already)."""

    def __init__(
        self,
        basic: BasicLexer,
        states: list[int],
        lexings: Lexings,
        starts: StartTests,
        tail: str = "",
    ) -> None:
        super().__init__()
        self.callbacks: dict[str, Any] = {}
        self.keywords: dict[str, dict[str, str]] = {}
        self.newlines = frozenset(basic.newline_types)
        self._basic: BasicLexer | None = basic
        self._states, self._lexings, self._starts = states, lexings, starts
        self._tail = tail
        self._made: dict[str, Callable[..., Any]] | None = None
        self._lock = threading.Lock()  # the server lexes in several threads

    def __missing__(self, c: str) -> Callable[..., Any]:
        return self.make_ready()[c]

    def make_ready(self) -> dict[str, Callable[..., Any]]:
        with self._lock:
            made = self._made
            if made is None:
                assert self._basic is not None
                lexings = self._lexings
                made, callbacks, keywords = _make(self._basic, self._starts, self._tail)
                self.callbacks.update(callbacks)
                self.keywords.update(keywords)
                lexings.called.update(callbacks)
                entry: Any = (made, self.callbacks, lexings.ignore, self.newlines)  # one tuple
                for state in self._states:
                    lexings.entries[state] = entry
                    lexings.by_char[state] = made
                self._made = made
                self._basic = None  # lark's lexer is not held any longer
        return made


def _make(
    basic: BasicLexer, starts: StartTests, tail: str = ""
) -> tuple[dict[str, Callable[..., Any]], dict[str, Any], dict[str, dict[str, str]]]:
    """What the loop reads of ``basic``: its ``by_char`` (each match followed by ``tail``:
    :func:`blank_tail`), its callbacks (keyword retyping answered by a dict where it can be)
    and those dicts, by terminal."""
    if _create_unless is None or basic.user_callbacks or basic.use_bytes:
        scanner = basic.scanner  # lark's own, which fills basic.callback
        terminals, callbacks = scanner.terminals, basic.callback
        whole: Callable[..., Any] = _first_match(tuple(m.match for m in scanner._mres))
    else:
        flags, re_ = basic.g_regex_flags, basic.re
        terminals, callbacks = _create_unless(basic.terminals, flags, re_, False)
        whole = _Deferred(lambda: Scanner(terminals, flags, re_, False))  # type: ignore[no-untyped-call]
    keywords: dict[str, dict[str, str]] = {}
    keyed: dict[str, Any] = {}
    for name, callback in callbacks.items():
        types = _keyword_types(callback)
        keyed[name] = callback if types is None else _retype(callback, types)
        if types is not None:
            keywords[name] = types
    if basic.use_bytes:
        return _Whole(whole), keyed, keywords
    found = [(t.name, t.pattern.to_regexp()) for t in terminals]
    by_char = ByFirstChar(found, basic.g_regex_flags, whole, basic.re.compile, starts, tail)
    return by_char, keyed, keywords


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


def _keyword_types(callback: Any) -> dict[str, str] | None:
    """For lark's callback that retypes a word which is one of the lexer state's keywords (the
    keyword strings a name's regex also matches: ``UnlessCallback``, a full match against an
    alternation of them), the keyword's terminal by lower-cased ASCII word; None for any other
    callback, or keywords this cannot answer for.

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
        return None
    types: dict[str, str] = {}
    for t in terms:
        types.setdefault(t.pattern.value.lower(), t.name)
    return types


def _retype(callback: Any, types: dict[str, str]) -> Callable[[Token], Token]:
    """lark's keyword ``callback`` answered by ``types`` (:func:`_keyword_types`) for an ASCII
    word, by lark for any other (the loop asks the dict itself, and this only for other
    words)."""

    def retype(tok: Token) -> Token:
        value = tok.value
        if not value.isascii():
            return callback(tok)  # type: ignore[no-any-return]
        found = types.get(value.lower())
        if found is not None:
            tok.type = found
        return tok

    return retype
