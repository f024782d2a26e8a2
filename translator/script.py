"""Split a SQL script into statements, the way the engines' own clients do.

A ``;`` ends a statement only at the top level: not inside a string, a quoted identifier, a
comment, a ``$$`` body, or a ``BEGIN ... END`` routine body (whose statements end in ``;`` too).
The scanner is lexical only; grammar work is the dialect front ends' job.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from translator.errors import Position, SqlSyntaxError, position_at

__all__ = ["Lexical", "StatementText", "Token", "scan", "split_statements"]


@dataclass(frozen=True, slots=True)
class Lexical:
    """The lexical rules that differ between dialects."""

    #: Spark: ``'it\\'s'`` escapes a quote; Trino: only ``''``.
    backslash_escapes: bool = False
    #: Spark: ``"text"`` is a string; Trino: ``"name"`` is an identifier.
    double_quote_is_string: bool = False
    #: Spark: ``\`name\``` is an identifier.
    backquote_identifiers: bool = False


TRINO = Lexical()
SPARK = Lexical(backslash_escapes=True, double_quote_is_string=True, backquote_identifiers=True)


@dataclass(frozen=True, slots=True)
class Token:
    """``kind`` is one of word, number, string, qident, dollar, comment, space, punct."""

    kind: str
    start: int
    end: int
    text: str

    @property
    def upper(self) -> str:
        return self.text.upper()


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z]*")
_SPACE = re.compile(r"\s+")
_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")


def scan(text: str, lex: Lexical = TRINO, *, file: str | None = None) -> Iterator[Token]:
    """Tokens of ``text``. An unterminated string, identifier or comment is a syntax error."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            m = _SPACE.match(text, i)
            assert m is not None
            yield Token("space", i, m.end(), m.group())
            i = m.end()
        elif c == "-" and text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield Token("comment", i, j, text[i:j])
            i = j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise _unterminated(text, i, "block comment", "*/", file)
            yield Token("comment", i, j + 2, text[i : j + 2])
            i = j + 2
        elif c == "'" or (c == '"' and lex.double_quote_is_string):
            j = _end_of_quoted(text, i, c, lex.backslash_escapes)
            if j < 0:
                raise _unterminated(text, i, "string literal", c, file)
            yield Token("string", i, j, text[i:j])
            i = j
        elif c == '"' or (c == "`" and lex.backquote_identifiers):
            j = _end_of_quoted(text, i, c, False)
            if j < 0:
                raise _unterminated(text, i, "quoted identifier", c, file)
            yield Token("qident", i, j, text[i:j])
            i = j
        elif c == "$" and (m := _DOLLAR_TAG.match(text, i)) is not None:
            tag = m.group()
            j = text.find(tag, m.end())
            if j < 0:
                raise _unterminated(text, i, "$$ body", tag, file)
            yield Token("dollar", i, j + len(tag), text[i : j + len(tag)])
            i = j + len(tag)
        elif (c.isalpha() or c == "_") and (m := _WORD.match(text, i)) is not None:
            # (a non-ASCII letter such as "é" is no word start: it falls through to punct)
            yield Token("word", i, m.end(), m.group())
            i = m.end()
        elif (c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit())) and (
            m := _NUMBER.match(text, i)
        ) is not None:
            yield Token("number", i, m.end(), m.group())
            i = m.end()
        else:
            yield Token("punct", i, i + 1, c)
            i += 1


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


@dataclass(frozen=True, slots=True)
class StatementText:
    """One statement's text (without its ``;``) and where it starts in the script."""

    text: str
    position: Position
    #: The statement's tokens (offsets relative to ``text``), comments and spaces included.
    tokens: tuple[Token, ...]

    @property
    def words(self) -> list[Token]:
        """Significant tokens only: no spaces, no comments."""
        return [t for t in self.tokens if t.kind not in ("space", "comment")]


# After END these words close a compound statement of that kind, not a BEGIN block.
_END_QUALIFIERS = frozenset({"IF", "WHILE", "LOOP", "REPEAT", "CASE", "FOR"})


def split_statements(
    script: str, lex: Lexical = TRINO, *, file: str | None = None
) -> list[StatementText]:
    """Statements of ``script`` in order; empty ones (``;;``, comments only) are left out.

    Inside a statement that has said ``FUNCTION``, ``BEGIN`` opens a block that only its ``END``
    closes; ``CASE`` opens one too (closed by ``END`` or ``END CASE``), since an expression
    ``CASE ... END`` can sit inside a block.
    """
    out: list[StatementText] = []
    tokens = list(scan(script, lex, file=file))
    start = 0  # token index where the current statement starts
    depth: list[str] = []
    in_function = False
    prev_word = ""
    for k, tok in enumerate(tokens):
        if tok.kind == "word":
            w = tok.upper
            if w == "FUNCTION":
                in_function = True
            elif in_function and w == "BEGIN":
                depth.append("BEGIN")
            elif depth and w == "CASE" and prev_word != "END":
                depth.append("CASE")
            elif depth and w == "END":
                nxt = _next_word(tokens, k)
                if nxt == "CASE" or nxt not in _END_QUALIFIERS:
                    depth.pop()
            prev_word = w
        elif tok.kind == "punct" and tok.text == ";" and not depth:
            _emit(out, script, tokens[start:k], file)
            start, in_function, prev_word = k + 1, False, ""
        elif tok.kind not in ("space", "comment"):
            prev_word = ""
    _emit(out, script, tokens[start:], file)
    return out


def _next_word(tokens: list[Token], k: int) -> str:
    for t in tokens[k + 1 :]:
        if t.kind in ("space", "comment"):
            continue
        return t.upper if t.kind == "word" else ""
    return ""


def _emit(out: list[StatementText], script: str, toks: list[Token], file: str | None) -> None:
    significant = [t for t in toks if t.kind not in ("space", "comment")]
    if not significant:
        return
    # A statement starts at its first significant token: leading comments belong to no one.
    first, last = significant[0], significant[-1]
    text = script[first.start : last.end]
    rel = tuple(
        Token(t.kind, t.start - first.start, t.end - first.start, t.text)
        for t in toks
        if t.start >= first.start and t.end <= last.end
    )
    out.append(StatementText(text, position_at(script, first.start, file), rel))
