"""Load a dialect's lark grammar and turn lark's exceptions into positioned syntax errors."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from translator.errors import Position, SqlSyntaxError, position_at

__all__ = [
    "grammar_text",
    "load_parser",
    "parse_with",
    "readable_expected",
    "token_end",
    "token_start",
]


def grammar_text(name: str) -> str:
    """The text of ``grammars/<name>.lark`` as shipped in the package."""
    return resources.files("translator.grammars").joinpath(f"{name}.lark").read_text("utf-8")


@cache
def load_parser(
    name: str, start: str | tuple[str, ...] = "start", *, positions: bool = True
) -> Lark:
    """An LALR parser for ``grammars/<name>.lark``, built once per process.

    With several ``start`` rules, one automaton serves them all (``parse_with(..., start=)``
    names one): a rule parsed on its own then lexes exactly as it does inside the others.

    ``positions`` (lark's ``propagate_positions``) gives every tree node its line, column and
    offsets, which the Transformers turn into :class:`~translator.errors.Position` values. It
    costs about a third of the parse: a Transformer that takes positions from its tokens and
    its children's values does without it.
    """
    return Lark(
        grammar_text(name),
        parser="lalr",
        lexer="contextual",
        start=list(start) if isinstance(start, tuple) else start,
        propagate_positions=positions,
        maybe_placeholders=True,
        cache=False,
    )


def token_start(tok: Token) -> int:
    """Where ``tok`` starts: lark types token offsets as optional; its lexer always sets them."""
    return tok.start_pos or 0


def token_end(tok: Token) -> int:
    """Where ``tok`` ends (see :func:`token_start`)."""
    return tok.end_pos or 0


def parse_with(
    parser: Lark, text: str, base: Position | None = None, *, start: str | None = None
) -> Tree[Token]:
    """Parse ``text``; a failure becomes a :class:`SqlSyntaxError` at its place in the script."""
    try:
        return parser.parse(text, start=start)
    except UnexpectedInput as e:
        raise _syntax_error(parser, text, e, base) from None


def _syntax_error(
    parser: Lark, text: str, e: UnexpectedInput, base: Position | None
) -> SqlSyntaxError:
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        offset = len(text.rstrip())
        found = "end of statement"
    elif isinstance(e, UnexpectedToken):
        offset = e.token.start_pos or 0
        found = repr(_token_at(parser, text, offset) if e.token.type == BODY else str(e.token))
    elif isinstance(e, UnexpectedCharacters):
        offset = e.pos_in_stream or 0
        found = repr(text[offset])
    else:  # pragma: no cover - lark has no other kinds today
        offset = getattr(e, "pos_in_stream", 0) or 0
        found = "input"
    expected = readable_expected(
        parser, getattr(e, "expected", None) or getattr(e, "allowed", None)
    )
    pos = position_at(text, offset, base=base)
    local = position_at(text, offset)
    line = text.splitlines()[local.line - 1] if text.strip() else ""
    if base is not None and local.line == 1:
        # The statement's first line is shown as it stands in the script, so the caret lines up.
        line = " " * (base.column - 1) + line
    return SqlSyntaxError(f"unexpected {found}", pos, source_line=line, expected=expected)


#: The catch-all terminal of a routine body (the rest of the statement). Out of its place, lark's
#: error lexer still takes it (it outranks every other terminal of its priority), so the token
#: really there is read again without it.
BODY = "BODY"


def _token_at(parser: Lark, text: str, offset: int) -> str:
    """The token the grammar's other terminals read at ``offset`` (higher priority first, then
    the longest, as lark chooses), or the one character there if none does."""
    best: tuple[int, int] = (0, 0)
    found = text[offset : offset + 1]
    for term in parser.terminals:
        if term.name == BODY or term.name in parser.ignore_tokens:
            continue
        m = _compiled(term.pattern.to_regexp()).match(text, offset)
        if m is not None and m.end() > offset and (term.priority, m.end()) > best:
            best, found = (term.priority, m.end()), m.group()
    return found


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def readable_expected(parser: Lark, names: object) -> tuple[str, ...]:
    """Terminal names as a reader knows them (keywords, punctuation); every dialect uses it."""
    if not names:
        return ()
    out: set[str] = set()
    for name in names:  # type: ignore[attr-defined]
        try:
            term = parser.get_terminal(name)
        except KeyError:
            out.add(str(name))
            continue
        pattern = term.pattern
        if pattern.type == "str":
            out.add(pattern.value.upper() if pattern.value.isalpha() else repr(pattern.value)[1:-1])
        else:
            out.add(name.lower().replace("_", " "))
    return tuple(sorted(out))
