"""lark's contextual lexer and LALR parser run as one loop, for the inline parsers.

lark's pure-Python parse of a header passes each token through a generator, a line counter
object, a lexer thread and ``ParserState.feed_token``: most of a header's lark time. This loop
reads the same tables (the parse table, each parser state's lexer, the callbacks lark made for
the rules) and does what those steps do, in one frame: the same tokens, with the same types,
values and positions, reach the same callbacks in the same order.

Only success is its business. At the first token the tables do not accept it raises
:class:`NotParsed`, which the inline callers treat as any syntax error: they take the tree
path, whose parse lark runs itself, so messages never depend on this loop. A parser whose
parts are not lark's own (lark-cython's) is run by ``parser.parse``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lark import Lark, Token
from lark.lexer import BasicLexer, ContextualLexer
from lark.parsers.lalr_analysis import Shift
from lark.parsers.lalr_parser import LALR_Parser
from lark.parsers.lalr_parser import _Parser as LarkLalr

__all__ = ["NotParsed", "parse_inline"]


#: ``Token(...)`` without its check for a deprecated keyword argument.
_new_token: Callable[..., Token] = Token._future_new


class NotParsed(Exception):
    """The text is not in the language (what exactly is wrong, the tree path's parse says)."""


#: Per parser state, of that state's lexer: the terminals' regexes (tried in lark's order),
#: its callbacks, the terminals it ignores and those that may hold a line break.
_Lexing = tuple[tuple[Callable[..., Any], ...], dict[str, Any], frozenset[str], frozenset[str]]


class _Tables:
    """What :func:`parse_inline` reads of one parser, taken out once."""

    def __init__(self, parser: Lark) -> None:
        frontend = parser.parser
        lexer, lalr = frontend.lexer, frontend.parser
        assert isinstance(lexer, ContextualLexer) and isinstance(lalr, LALR_Parser)
        inner = lalr.parser
        table = inner.parse_table
        (start,) = frontend.parser_conf.start
        self.start_state = table.start_states[start]
        self.end_state = table.end_states[start]
        self.states = table.states
        self.callbacks = inner.callbacks
        by_lexer: dict[int, _Lexing] = {}
        self.lexing: dict[Any, _Lexing] = {}
        for state, basic in lexer.lexers.items():
            assert isinstance(basic, BasicLexer)
            if id(basic) not in by_lexer:
                scanner = basic.scanner  # built on first use; it also fills basic.callback
                by_lexer[id(basic)] = (
                    tuple(m.match for m in scanner._mres),
                    basic.callback,
                    frozenset(basic.ignore_types),
                    frozenset(basic.newline_types),
                )
            self.lexing[state] = by_lexer[id(basic)]


def _tables(parser: Lark) -> _Tables | None:
    """The tables of ``parser``, or None where its lexer or parser is not lark's Python one."""
    found: _Tables | None = getattr(parser, "_iceberg_udf_tables", None)
    if found is not None:
        return found
    frontend = parser.parser
    if (
        type(getattr(frontend, "lexer", None)) is not ContextualLexer
        or type(getattr(frontend, "parser", None)) is not LALR_Parser
        or type(frontend.parser.parser) is not LarkLalr
        or frontend.lexer.root_lexer.__class__ is not BasicLexer
    ):
        return None
    found = _Tables(parser)
    parser._iceberg_udf_tables = found  # type: ignore[attr-defined]
    return found


def parse_inline(parser: Lark, text: str) -> Any:
    """``parser.parse(text)``, or :class:`NotParsed` where that would raise a syntax error."""
    t = _tables(parser)
    if t is None:
        return parser.parse(text)
    states, callbacks, lexing = t.states, t.callbacks, t.lexing
    new_token = _new_token
    state_stack = [t.start_state]
    value_stack: list[Any] = []
    pos, line, line_start, n = 0, 1, 0, len(text)
    token: Token | None = None
    while pos < n:
        matchers, lexer_callbacks, ignore, newlines = lexing[state_stack[-1]]
        for match in matchers:
            m = match(text, pos)
            if m:
                break
        else:
            raise NotParsed
        value, type_ = m.group(0), m.lastgroup
        column = pos - line_start + 1
        start, start_line = pos, line
        if type_ in newlines:
            count = value.count("\n")
            if count:
                line += count
                line_start = pos + value.rindex("\n") + 1
        pos += len(value)
        if type_ in ignore and type_ not in lexer_callbacks:
            continue
        tok = new_token(type_, value, start, start_line, column, line, pos - line_start + 1, pos)
        if tok.type in lexer_callbacks:
            tok = lexer_callbacks[tok.type](tok)
        if type_ in ignore:
            continue
        token = tok
        _feed(states, callbacks, state_stack, value_stack, tok, None)
    end = Token.new_borrow_pos("$END", "", token) if token else Token("$END", "", 0, 1, 1)
    return _feed(states, callbacks, state_stack, value_stack, end, t.end_state)


def _feed(
    states: Any,
    callbacks: Any,
    state_stack: list[Any],
    value_stack: list[Any],
    token: Token,
    end_state: Any,
) -> Any:
    """lark's ``ParserState.feed_token``: reduce as the table says, then shift ``token``; at
    the end (``end_state`` given) reduce until it is reached and return the result."""
    while True:
        try:
            action, arg = states[state_stack[-1]][token.type]
        except KeyError:
            raise NotParsed from None
        if action is Shift:
            if end_state is not None:  # pragma: no cover - lark's tables never shift $END
                raise NotParsed
            state_stack.append(arg)
            value_stack.append(
                token if token.type not in callbacks else callbacks[token.type](token)
            )
            return None
        size = len(arg.expansion)
        if size:
            s = value_stack[-size:]
            del state_stack[-size:]
            del value_stack[-size:]
        else:
            s = []
        value = callbacks[arg](s)
        _action, new_state = states[state_stack[-1]][arg.origin.name]
        state_stack.append(new_state)
        value_stack.append(value)
        if end_state is not None and new_state == end_state:
            return value
