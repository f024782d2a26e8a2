"""lark's contextual lexer and LALR parser run as one loop, for the front ends' parsers.

lark's pure-Python parse of a header passes each token through a generator, a line counter
object, a lexer thread and ``ParserState.feed_token``, and each reduction through a chain of
wrappers (the child filter that drops anonymous tokens and fills ``[optional]`` placeholders,
the single-child expansion of ``?rules``, then the Transformer's method): most of a header's
lark time. This loop reads the same tables (the parse table, each parser state's lexer, the
callbacks lark made for the rules) and does what those steps do, in one frame: the same tokens,
with the same types, values and positions, reach the same methods with the same children in
the same order.

Each rule's wrapper chain is read once and made into one small function (:func:`_reducer`)
that builds the children list the chain would build and calls the Builder's method, or makes
the ``Tree`` lark would make. A chain of any other shape keeps lark's own callback.

Only success is its business. At the first token the tables do not accept it raises
:class:`NotParsed`, which the callers treat as any syntax error: they let lark parse the text
itself, so messages never depend on this loop. A parser whose parts are not lark's own
(lark-cython's) is run by ``parser.parse``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from lark import Lark, Token, Tree
from lark.grammar import Rule
from lark.lexer import BasicLexer, ContextualLexer
from lark.parse_tree_builder import (
    ChildFilterLALR,
    ChildFilterLALR_NoPlaceholders,
    ExpandSingleChild,
)
from lark.parsers.lalr_analysis import Shift
from lark.parsers.lalr_parser import LALR_Parser
from lark.parsers.lalr_parser import _Parser as LarkLalr

__all__ = ["METHOD", "NotParsed", "parse_inline"]


#: ``Token(...)``'s first step: the string (the loop fills the slots, as ``Token._future_new``).
_new_str: Callable[..., Token] = str.__new__

#: The attribute of a Transformer callback (see ``grammar.inline_parser``) naming the Builder
#: method it calls on the running Builder: the loop then calls that method itself.
METHOD = "_iceberg_udf_method"


class NotParsed(Exception):
    """The text is not in the language (what exactly is wrong, lark's own parse says)."""


#: Per parser state, of that state's lexer: the terminals' regexes (tried in lark's order),
#: its callbacks, the terminals it ignores and those that may hold a line break.
_Lexing = tuple[tuple[Callable[..., Any], ...], dict[str, Any], frozenset[str], frozenset[str]]

#: A reduction: (number of symbols popped, what makes the value, the rule's name for the goto).
_Reduce = tuple[int, Callable[[list[Any], Any], Any], str]


class _Tables:
    """What :func:`parse_inline` reads of one parser, taken out once.

    ``actions[state][terminal]`` is ``(True, next state)`` for a shift and ``(False,
    reduction)`` for a reduce: lark's table with each rule's size, callback and name looked up
    beforehand (a :class:`~lark.grammar.Rule` hashes in Python, once per lookup)."""

    def __init__(self, parser: Lark) -> None:
        frontend = parser.parser
        lexer, lalr = frontend.lexer, frontend.parser
        assert isinstance(lexer, ContextualLexer) and isinstance(lalr, LALR_Parser)
        inner = lalr.parser
        table = inner.parse_table
        (start,) = frontend.parser_conf.start
        self.start_state = table.start_states[start]
        self.end_state = table.end_states[start]
        callbacks = inner.callbacks
        self.token_callbacks = {k: v for k, v in callbacks.items() if isinstance(k, str)}
        reductions: dict[Rule, _Reduce] = {}
        self.actions: dict[Any, dict[str, tuple[bool, Any]]] = {}
        for state, row in table.states.items():
            out: dict[str, tuple[bool, Any]] = {}
            for symbol, (action, arg) in row.items():
                if action is Shift:
                    out[symbol] = (True, arg)
                    continue
                if arg not in reductions:
                    size, name = len(arg.expansion), arg.origin.name
                    reductions[arg] = (size, _reducer(callbacks[arg]), name)
                out[symbol] = (False, reductions[arg])
            self.actions[state] = out
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


def _reducer(callback: Any) -> Callable[[list[Any], Any], Any]:
    """One function doing what lark's callback chain for a rule does with the popped values
    ``s``, given the running Builder ``b``; lark's own callback where the chain has a shape not
    read here (it then finds the Builder through ``grammar.run_inline``'s stack)."""
    chain = callback
    include: list[tuple[int, bool, int]] | None = None
    append_none = 0
    if type(chain) is ChildFilterLALR:
        include = [(i, bool(x), n) for i, x, n in chain.to_include]
        append_none, chain = chain.append_none, chain.node_builder
    elif type(chain) is ChildFilterLALR_NoPlaceholders:
        include = [(i, bool(x), 0) for i, x in chain.to_include]
        chain = chain.node_builder
    expand1 = type(chain) is ExpandSingleChild
    if expand1:
        chain = chain.node_builder
    namespace: dict[str, Any] = {}
    if getattr(chain, METHOD, None) is not None:
        namespace["f"] = getattr(chain, METHOD)
        make = "f(b, {})"
    elif (
        type(chain) is partial
        and chain.func is Tree
        and len(chain.args) == 1
        and not chain.keywords
        and isinstance(chain.args[0], str)
    ):
        namespace["f"], namespace["name"] = Tree, chain.args[0]
        make = "f(name, {})"
    else:
        return lambda s, b: callback(s)
    if include is None:
        children = "s"
    else:
        parts: list[str] = []
        for i, expand, nones in include:
            parts += ["None"] * nones
            parts.append(f"*s[{i}].children" if expand else f"s[{i}]")
        parts += ["None"] * append_none
        children = "[" + ", ".join(parts) + "]"
    if expand1:
        body = f"c = {children}\n    return c[0] if len(c) == 1 else {make.format('c')}"
    else:
        body = "return " + make.format(children)
    exec(f"def reduce(s, b):\n    {body}\n", namespace)  # only indices and fixed names
    reduce: Callable[[list[Any], Any], Any] = namespace["reduce"]
    return reduce


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
        or len(frontend.parser_conf.start) != 1
    ):
        return None
    found = _Tables(parser)
    parser._iceberg_udf_tables = found  # type: ignore[attr-defined]
    return found


def parse_inline(parser: Lark, text: str, builder: Any = None) -> Any:
    """``parser.parse(text)``, or :class:`NotParsed` where that would raise a syntax error.

    ``builder`` is the Builder whose methods the parser's callbacks call (None for a parser
    that builds a tree)."""
    t = _tables(parser)
    if t is None:
        return parser.parse(text)
    actions, lexing, end_state = t.actions, t.lexing, t.end_state
    token_callbacks = t.token_callbacks
    new_str = _new_str
    state = t.start_state
    state_stack = [state]
    value_stack: list[Any] = []
    pos, line, line_start, n = 0, 1, 0, len(text)
    last: Token | None = None
    while True:
        if pos < n:
            matchers, lexer_callbacks, ignore, newlines = lexing[state]
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
            tok = new_str(Token, value)  # Token(type_, value, start, ...), without a call
            tok.type, tok.start_pos, tok.value, tok.line, tok.column = (
                type_,
                start,
                value,
                start_line,
                column,
            )
            tok.end_line, tok.end_column, tok.end_pos = line, pos - line_start + 1, pos
            if type_ in lexer_callbacks:
                tok = lexer_callbacks[type_](tok)
            if type_ in ignore:
                continue
            last = tok
            at_end = False
        else:
            tok = Token.new_borrow_pos("$END", "", last) if last else Token("$END", "", 0, 1, 1)
            at_end = True
        kind = tok.type
        while True:  # lark's ParserState.feed_token: reduce as the table says, then shift
            step = actions[state].get(kind)
            if step is None:
                raise NotParsed
            if step[0]:
                if at_end:  # pragma: no cover - lark's tables never shift $END
                    raise NotParsed
                state = step[1]
                state_stack.append(state)
                if kind in token_callbacks:
                    tok = token_callbacks[kind](tok)
                value_stack.append(tok)
                break
            size, reduce, origin = step[1]
            if size:
                s = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                s = []
            value = reduce(s, builder)
            state = actions[state_stack[-1]][origin][1]
            state_stack.append(state)
            value_stack.append(value)
            if at_end and state == end_state:
                return value
