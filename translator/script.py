"""Split a SQL script into statements, the way the engines' own clients do.

A ``;`` ends a statement only at the top level: not inside a string, a quoted identifier, a
comment, a ``$$`` body, or a ``BEGIN ... END`` routine body (whose statements end in ``;`` too).
The scanner is lexical only; grammar work is the dialect front ends' job.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from translator.errors import Position, SqlSyntaxError, position_at
from translator.invisible import invisible_class
from translator.rebuild import Reduced, by_init

__all__ = [
    "Lexical",
    "StatementText",
    "Token",
    "scan",
    "split_statements",
]


@dataclass(frozen=True, slots=True)
class Lexical:
    """The lexical rules that differ between dialects; each dialect states its own
    (``translator.dialects.<engine>.lexical``). The defaults are the SQL standard's."""

    #: Spark: ``'it\\'s'`` escapes a quote; Trino: only ``''``.
    backslash_escapes: bool = False
    #: Spark: ``"text"`` is a string; Trino: ``"name"`` is an identifier.
    double_quote_is_string: bool = False
    #: Spark: ``\`name\``` is an identifier.
    backquote_identifiers: bool = False
    #: Whether a quoted function name folds to lower case too (both engines' catalogs do).
    quoted_names_fold: bool = True

    def name(self, token: Token) -> str:
        """The name a word or quoted-identifier token stands for."""
        if token.kind != "qident":
            return token.text.lower()
        q = token.text[0]
        inner = token.text[1:-1].replace(q + q, q)
        return inner.lower() if self.quoted_names_fold else inner

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class Token:
    """``kind`` is one of word, number, string, qident, dollar, comment, space, invisible,
    punct."""

    kind: str
    start: int
    end: int
    text: str

    @property
    def upper(self) -> str:
        return self.text.upper()

    def __reduce__(self) -> Reduced:
        return by_init(self)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z]*")
_SPACE = re.compile(r"\s+")
_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")


def scan(text: str, lex: Lexical, *, file: str | None = None) -> Iterator[Token]:
    """Tokens of ``text``. An unterminated string, identifier or comment is a syntax error.

    One regular expression (:func:`_token_pattern`) takes each complete token in one match. A
    character that can open a construct it does not close (a quote, ``/*``, ``$tag$``) goes to
    :func:`_slow_token`, the character-by-character rules, which say where it ends or raise.
    Lazy (a caller may stop at the first token it wants, before an unterminated one), and one
    generator that makes the tokens as :func:`_make_tokens` does.
    """
    match = _token_pattern(lex).match
    new, set_kind, set_start, set_end, set_text = _new, _set_kind, _set_start, _set_end, _set_text
    i, n = 0, len(text)
    while i < n:
        m = match(text, i)
        if m is None:
            kind, j = _slow_token(text, i, lex, file)
        else:
            kind, j = m.lastgroup, m.end()  # type: ignore[assignment]
        tok = new(Token)
        set_kind(tok, kind)
        set_start(tok, i)
        set_end(tok, j)
        set_text(tok, text[i:j])
        yield tok
        i = j


def span_list(text: str, lex: Lexical, file: str | None) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` of every token: :func:`scan`'s loop without building the tokens,
    as a list built without a generator (scripts are long)."""
    match = _token_pattern(lex).match
    out: list[tuple[str, int, int]] = []
    append = out.append
    i, n = 0, len(text)
    while i < n:
        m = match(text, i)
        if m is None:
            kind, j = _slow_token(text, i, lex, file)
        else:
            kind, j = m.lastgroup, m.end()  # type: ignore[assignment]
        append((kind, i, j))
        i = j
    return out


def _quoted_patterns(lex: Lexical) -> tuple[list[str], list[str]]:
    """Complete string literals and quoted identifiers of ``lex``, as regular expressions.

    Quoted text uses possessive repetition, so that (as in :func:`_end_of_quoted`) a doubled
    quote is always an escaped one and is never given back to close the literal early.
    """

    def quoted(q: str, backslash: bool) -> str:
        q = re.escape(q)
        if backslash:
            return rf"{q}(?:[^{q}\\]|\\(?s:.)|{q}{q})*+{q}"
        return rf"{q}(?:[^{q}]|{q}{q})*+{q}"

    strings = [quoted("'", lex.backslash_escapes)]
    if lex.double_quote_is_string:
        strings.append(quoted('"', lex.backslash_escapes))
    idents = [] if lex.double_quote_is_string else [quoted('"', False)]
    if lex.backquote_identifiers:
        idents.append(quoted("`", False))
    return strings, idents


@cache
def _token_pattern(lex: Lexical) -> re.Pattern[str]:
    """Complete tokens only; an opener the construct does not close matches nothing here."""
    strings, idents = _quoted_patterns(lex)
    # A quote always opens a literal or identifier: alone (unterminated) it is left to the slow
    # rules, which raise. So are "/*" and "$tag$" that the patterns above could not close.
    openers = "'\"" + ("`" if lex.backquote_identifiers else "")
    alternatives = [
        r"(?P<space>\s+)",
        rf"(?P<invisible>{invisible_class()}+)",
        r"(?P<comment>--[^\n]*|/\*(?s:.*?)\*/)",
        rf"(?P<string>{'|'.join(strings)})",
        *([rf"(?P<qident>{'|'.join(idents)})"] if idents else []),
        r"(?P<dollar>(?P<tag>\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$)(?s:.*?)(?P=tag))",
        r"(?P<word>[A-Za-z_][A-Za-z0-9_$]*)",
        r"(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z]*)",
        rf"(?P<punct>(?!/\*|\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$)[^{re.escape(openers)}])",
    ]
    return re.compile("|".join(alternatives))


def _slow_token(text: str, i: int, lex: Lexical, file: str | None) -> tuple[str, int]:
    """The kind and end of the token at ``i``, character by character (see :func:`scan`)."""
    c = text[i]
    n = len(text)
    if c.isspace():
        m = _SPACE.match(text, i)
        assert m is not None
        return "space", m.end()
    if c == "-" and text.startswith("--", i):
        j = text.find("\n", i)
        return "comment", (n if j < 0 else j)
    if c == "/" and text.startswith("/*", i):
        j = text.find("*/", i + 2)
        if j < 0:
            raise _unterminated(text, i, "block comment", "*/", file)
        return "comment", j + 2
    if c == "'" or (c == '"' and lex.double_quote_is_string):
        j = _end_of_quoted(text, i, c, lex.backslash_escapes)
        if j < 0:
            raise _unterminated(text, i, "string literal", c, file)
        return "string", j
    if c == '"' or (c == "`" and lex.backquote_identifiers):
        j = _end_of_quoted(text, i, c, False)
        if j < 0:
            raise _unterminated(text, i, "quoted identifier", c, file)
        return "qident", j
    if c == "$" and (m := _DOLLAR_TAG.match(text, i)) is not None:
        tag = m.group()
        j = text.find(tag, m.end())
        if j < 0:
            raise _unterminated(text, i, "$$ body", tag, file)
        return "dollar", j + len(tag)
    if unicodedata.category(c) in ("Cf", "Cc"):
        return "invisible", i + 1
    if (c.isalpha() or c == "_") and (m := _WORD.match(text, i)) is not None:
        # (a non-ASCII letter such as "é" is no word start: it falls through to punct)
        return "word", m.end()
    if (c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit())) and (
        m := _NUMBER.match(text, i)
    ) is not None:
        return "number", m.end()
    return "punct", i + 1


def _end_of_quoted(text: str, i: int, quote: str, backslash: bool) -> int:
    """Index just past the closing quote (a doubled quote is an escaped one), or -1."""
    j, n = i + 1, len(text)
    while j < n:
        c = text[j]
        if backslash and c == "\\":
            j += 2
            continue
        if c == quote:
            if j + 1 < n and text[j + 1] == quote:
                j += 2
                continue
            return j + 1
        j += 1
    return -1


def _unterminated(text: str, i: int, what: str, closer: str, file: str | None) -> SqlSyntaxError:
    pos = position_at(text, i, file)
    line = text.splitlines()[pos.line - 1] if text else ""
    return SqlSyntaxError(
        f"unterminated {what}: no closing {closer}", pos, source_line=line, expected=(closer,)
    )


class StatementText:
    """One statement's text (without its ``;``) and where it starts in the script.

    Its tokens are made only when asked for, by scanning its own text (lexing is context-free
    from a token's start, and a statement starts at one): most of a statement is a routine body
    that the front end hands on as text, so tokenising it into objects would be wasted work.
    """

    __slots__ = ("_file", "_invisible", "_lex", "_tokens", "position", "text")

    def __init__(
        self,
        text: str,
        position: Position,
        lex: Lexical,
        file: str | None = None,
        invisible: int = -1,
    ) -> None:
        self.text = text
        self.position = position
        self._lex = lex
        self._file = file
        #: Where the first invisible character outside strings and comments is (-1: none).
        self._invisible = invisible
        self._tokens: tuple[Token, ...] | None = None

    def __repr__(self) -> str:
        return f"StatementText({self.text!r}, {self.position!r})"

    def __reduce__(self) -> Reduced:
        """Its constructor's arguments (compiled, the class cannot be made without them); its
        tokens are made again when asked for."""
        return StatementText, (self.text, self.position, self._lex, self._file, self._invisible)

    @property
    def tokens(self) -> tuple[Token, ...]:
        """The statement's tokens (offsets relative to ``text``), comments and spaces included."""
        if self._tokens is None:
            spans = span_list(self.text, self._lex, self._file)
            self._tokens = tuple(_make_tokens(self.text, spans, 0))
        return self._tokens

    @property
    def words(self) -> list[Token]:
        """Significant tokens only: no spaces, no comments."""
        return list(self.iter_words())

    def first_invisible(self) -> Token | None:
        """The first invisible character outside strings and comments (see :func:`scan`)."""
        at = self._invisible
        if at < 0:
            return None
        m = _token_pattern(self._lex).match(self.text, at)
        assert m is not None and m.lastgroup == "invisible"
        return Token("invisible", at, m.end(), m.group())

    def iter_words(self) -> Iterator[Token]:
        """:attr:`words` one at a time, made as they are taken: for looking at a header only."""
        if self._tokens is not None:
            return (t for t in self._tokens if t.kind not in _INSIGNIFICANT)
        tokens = scan(self.text, self._lex, file=self._file)
        return (t for t in tokens if t.kind not in _INSIGNIFICANT)


def _make_tokens(text: str, spans: Iterable[tuple[str, int, int]], base: int) -> Iterator[Token]:
    new, set_kind, set_start, set_end, set_text = _new, _set_kind, _set_start, _set_end, _set_text
    for kind, s, e in spans:
        # Token(kind, s - base, e - base, ...), without the frozen dataclass's __init__
        s, e = s - base, e - base
        tok = new(Token)
        set_kind(tok, kind)
        set_start(tok, s)
        set_end(tok, e)
        set_text(tok, text[s:e])
        yield tok


# After END these words close a compound statement of that kind, not a BEGIN block.
_END_QUALIFIERS = frozenset({"IF", "WHILE", "LOOP", "REPEAT", "CASE", "FOR"})
#: The words the splitter acts on (the rest of a statement passes in runs, unexamined).
_SPLIT_WORDS = ("FUNCTION", "BEGIN", "CASE", "END")


@cache
def _split_pattern(lex: Lexical) -> re.Pattern[str]:
    """The splitter's scanner: :func:`_token_pattern`'s tokens, except that a ``run`` takes any
    number of tokens the splitter need not look at one by one (words other than
    :data:`_SPLIT_WORDS`, numbers, complete strings and quoted names, punctuation other than
    ``;``, spaces between them) in one match. A run starts and ends with a significant token.
    Whatever is no complete token here matches nothing, as in :func:`_token_pattern`, and goes
    to :func:`_slow_token`.
    """
    base = _token_pattern(lex).pattern
    openers = "'\"" + ("`" if lex.backquote_identifiers else "")
    invisible = invisible_class()[1:-1]
    keyword = "|".join(w.lower() for w in _SPLIT_WORDS)
    strings, idents = _quoted_patterns(lex)
    one = (
        rf"(?:{'|'.join(strings + idents)}"
        r"|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z]*"
        rf"|(?!(?ai:{keyword})(?![A-Za-z0-9_$]))[A-Za-z_][A-Za-z0-9_$]*"
        r"|(?!/\*|--|\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$)"
        rf"[^\sA-Za-z0-9_;{re.escape(openers)}{invisible}])"
    )
    return re.compile(rf"(?P<run>{one}(?:\s*{one})*)|{base}")


def split_statements(script: str, lex: Lexical, *, file: str | None = None) -> list[StatementText]:
    """Statements of ``script`` in order; empty ones (``;;``, comments only) are left out.

    Inside a statement that has said ``FUNCTION``, ``BEGIN`` opens a block that only its ``END``
    closes; ``CASE`` opens one too (closed by ``END`` or ``END CASE``), since an expression
    ``CASE ... END`` can sit inside a block.

    One scan (:func:`_split_pattern`): the text between the words that matter passes in runs,
    so that a long routine body costs a few matches, not a Python step per token.
    """
    out: list[StatementText] = []
    match = _split_pattern(lex).match
    lines = _LineCounter(script, file)
    first = last = invisible = -1  # the statement's first and last significant offsets
    depth: list[str] = []
    in_function = False
    prev_word = ""
    i, n = 0, len(script)
    while i < n:
        m = match(script, i)
        if m is None:
            kind, j = _slow_token(script, i, lex, file)
        else:
            kind, j = m.lastgroup, m.end()  # type: ignore[assignment]
        if kind in _INSIGNIFICANT:
            if kind == "invisible" and first >= 0 and invisible < 0:
                invisible = i
            i = j
            continue
        if kind == "punct" and not depth and script[i] == ";":
            _emit(out, script, first, last, invisible, lines, lex, file)
            first = last = invisible = -1
            in_function, prev_word = False, ""
            i = j
            continue
        if first < 0:
            first = i
        last = j
        if kind == "word":
            w = script[i:j].upper() if j - i in _KEYWORD_LENGTHS else ""
            if w == "FUNCTION":
                in_function = True
            elif in_function and w == "BEGIN":
                depth.append("BEGIN")
            elif depth and w == "CASE" and prev_word != "END":
                depth.append("CASE")
            elif depth and w == "END":
                nxt = _after_end().match(script, j)
                word = nxt.group(1).upper() if nxt is not None and nxt.group(1) else ""
                if word == "CASE" or word not in _END_QUALIFIERS:
                    depth.pop()
            prev_word = w
        else:
            prev_word = ""
        i = j
    _emit(out, script, first, last, invisible, lines, lex, file)
    return out


_INSIGNIFICANT = frozenset({"space", "comment", "invisible"})
_KEYWORD_LENGTHS = frozenset(len(w) for w in _SPLIT_WORDS)


@cache
def _after_end() -> re.Pattern[str]:
    """After END: spaces, comments and invisible characters, then the next word if a word is
    next (an unterminated comment stops it; the scan raises when it gets there)."""
    return re.compile(
        rf"(?:\s+|--[^\n]*|/\*(?s:.*?)\*/|{invisible_class()})*([A-Za-z_][A-Za-z0-9_$]*)?"
    )


class _LineCounter:
    """:func:`position_at` for increasing offsets of one text, without counting from the start
    each time (a script of many statements would otherwise cost time quadratic in its size)."""

    __slots__ = ("file", "line", "offset", "text")

    def __init__(self, text: str, file: str | None) -> None:
        self.text, self.file, self.offset, self.line = text, file, 0, 0

    def position(self, offset: int) -> Position:
        if offset < self.offset:
            return position_at(self.text, offset, self.file)
        text = self.text
        self.line += text.count("\n", self.offset, offset)
        self.offset = offset
        col = offset - (text.rfind("\n", 0, offset) + 1)
        return Position(self.line + 1, col + 1, offset, self.file)


def _emit(
    out: list[StatementText],
    script: str,
    first: int,
    last: int,
    invisible: int,
    lines: _LineCounter,
    lex: Lexical,
    file: str | None,
) -> None:
    """The statement from its first significant token (``first``; -1: there is none) to the
    end of its last (``last``): leading comments belong to no one."""
    if first < 0:
        return
    hidden = invisible - first if 0 <= invisible < last else -1
    out.append(StatementText(script[first:last], lines.position(first), lex, file, hidden))


# Tokens are made by the million: their slots are filled directly, which is what the generated
# __init__ of a frozen dataclass does through object.__setattr__, at half the cost. Through the
# class's own __new__ and vars(): the same object.__new__ and slot descriptors interpreted, and
# what works when mypyc compiles Token as a native class (whose instances object.__new__ refuses
# to make, and whose __dict__ a compiled module cannot read through the class).
_new = Token.__new__
_set_kind = vars(Token)["kind"].__set__
_set_start = vars(Token)["start"].__set__
_set_end = vars(Token)["end"].__set__
_set_text = vars(Token)["text"].__set__
