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
the ``Tree`` lark would make. A chain of any other shape keeps lark's own callback. Where
nothing is left to do between the loop and the Builder, nothing is put there: a ``?rule`` of one
symbol (lark passes that symbol's value up) only moves the state, and a method that takes the
popped values as they are is called by the loop itself.

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
    ParseTreeBuilder,
)
from lark.parser_frontends import _get_lexer_callbacks
from lark.parsers.lalr_analysis import Shift
from lark.parsers.lalr_parser import LALR_Parser
from lark.parsers.lalr_parser import _Parser as LarkLalr

from translator.dialects.lark_tables import LazyParseTable, share_entries
from translator.dialects.state_lexers import Lexings, state_lexings

__all__ = ["METHOD", "NotParsed", "Tables", "builder_tables", "parse_inline", "share_entries"]


#: ``Token(...)``'s first step: the string (the loop fills the slots, as ``Token._future_new``).
_new_str: Callable[..., Token] = str.__new__

#: The attribute of a Transformer callback (see ``grammar.inline_parser``) naming the Builder
#: method it calls on the running Builder: the loop then calls that method itself.
METHOD = "_iceberg_udf_method"


class NotParsed(Exception):
    """The text is not in the language (what exactly is wrong, lark's own parse says)."""


#: What makes a reduction's value from the running Builder and the popped values (lark's
#: callback chain for the rule, made into one function: see :func:`_reducer`).
_Make = Callable[[Any, list[Any]], Any]

#: A reduction: (number of symbols popped, what makes the value, the rule's name for the goto).
#: None in the middle for a ``?rule`` of one symbol, whose value is that symbol's (lark's
#: single-child expansion): the loop leaves the value on the stack and only takes the goto.
_Reduce = tuple[int, _Make | None, str]


class Tables:
    """What :func:`parse_inline` reads of one parser, taken out once.

    ``actions[state][symbol]`` is an int: the next state (>= 0) for a shift or a goto, or
    ``~i`` (< 0) for a reduction by ``reductions[i]``, a rule's size, callback and name looked
    up beforehand (a :class:`~lark.grammar.Rule` hashes in Python, once per lookup).

    Ints, not ``(shift, target)`` tuples: a dict holding only strings and ints, and a tuple of
    ints, are not tracked by CPython's cyclic garbage collector, so the tables (several
    thousand entries a grammar) add nothing to the work of each full collection.
    """

    def __init__(
        self,
        parser: Lark | Tables,
        callbacks: dict[Any, Any] | None = None,
        lexing: Lexings | None = None,
    ) -> None:
        """The tables of lark's ``parser`` (whose lexing is ``lexing``: :func:`_tables`)
        reducing with its callbacks, or those of other tables (their automaton and lexers
        shared) reducing with ``callbacks``: made field by field, not copied, so that the class
        can be a native one (mypyc) with typed slots."""
        if isinstance(parser, Tables):
            self.start_state: int = parser.start_state
            self.end_state: int = parser.end_state
            self.actions: list[dict[str, int]] = parser.actions
            self.rules: tuple[Rule, ...] = parser.rules
            self.states: tuple[int, ...] = parser.states
            self.lexing: Lexings = parser.lexing
            assert callbacks is not None, "tables made from tables reduce with other callbacks"
            self._use(callbacks)
            return
        frontend = parser.parser
        lexer, lalr = frontend.lexer, frontend.parser
        assert isinstance(lexer, ContextualLexer) and isinstance(lalr, LALR_Parser)
        inner = lalr.parser
        table = inner.parse_table
        (start,) = frontend.parser_conf.start
        self.start_state = table.start_states[start]
        self.end_state = table.end_states[start]
        index: dict[Rule, int] = {}
        self.actions = [{} for _ in range(max(table.states) + 1)]
        for state, row in table.states.items():
            out = self.actions[state]
            for symbol, (action, arg) in row.items():
                if action is Shift:
                    out[symbol] = arg
                    continue
                if arg not in index:
                    index[arg] = len(index)
                out[symbol] = ~index[arg]
        self.rules = tuple(index)  # by reduction index
        self._use(inner.callbacks)
        self.states = tuple(table.states)
        if lexing is None:
            lexing = state_lexings(lexer, len(self.actions))
            if lexing is None:
                raise ValueError("the lexer's states do not ignore the same terminals")
        self.lexing = lexing

    def _use(self, callbacks: dict[Any, Any]) -> None:
        """Reduce with ``callbacks`` (lark's, by terminal name and by Rule)."""
        self.token_callbacks = {k: v for k, v in callbacks.items() if isinstance(k, str)}
        chains = {r: _Chain(cb) for r, cb in callbacks.items() if isinstance(r, Rule)}
        inlined = _inlined(chains)
        self.reductions: list[_Reduce] = []
        for i, r in enumerate(self.rules):
            chain = chains[r]
            make: _Make | None = None
            if not chain.passes_child(r):
                make = _FirstReduce(self.reductions, i, r, chain, callbacks[r], inlined)
            self.reductions.append((len(r.expansion), make, r.origin.name))

    def ready(self) -> list[_Reduce]:
        """The reductions, each made (for tests and tools: the loop makes one when it first
        reduces by it)."""
        for _, make, _ in self.reductions:
            if isinstance(make, _FirstReduce):
                make.make()
        return self.reductions

    def with_callbacks(self, callbacks: dict[Any, Any]) -> Tables:
        """These tables reducing with other callbacks: the automaton and the lexers shared."""
        return Tables(self, callbacks)


class _Chain:
    """What lark's callback chain for one rule does, read from its parts: which popped values
    become children (``include``: index, expanded from an inlined rule, Nones before it), the
    Nones after them, a ``?rule``'s single-child expansion, then the Builder's method or a
    ``Tree`` named ``tree``."""

    def __init__(self, callback: Any) -> None:
        chain = callback
        self.include: list[tuple[int, bool, int]] | None = None
        self.append_none = 0
        if type(chain) is ChildFilterLALR:
            self.include = [(i, bool(x), n) for i, x, n in chain.to_include]
            self.append_none, chain = chain.append_none, chain.node_builder
        elif type(chain) is ChildFilterLALR_NoPlaceholders:
            self.include = [(i, bool(x), 0) for i, x in chain.to_include]
            chain = chain.node_builder
        self.expand1 = type(chain) is ExpandSingleChild
        if self.expand1:
            chain = chain.node_builder
        self.method: Any = getattr(chain, METHOD, None)
        self.tree: str | None = None
        if (
            type(chain) is partial
            and chain.func is Tree
            and len(chain.args) == 1
            and not chain.keywords
            and isinstance(chain.args[0], str)
        ):
            self.tree = chain.args[0]
        self.read = self.method is not None or self.tree is not None

    def passes_child(self, rule: Rule) -> bool:
        """Whether the rule's value is its one symbol's value, as lark's chain leaves it: a
        ``?rule`` of one symbol that the child filter keeps as it is."""
        return (
            self.expand1
            and len(rule.expansion) == 1
            and self.include in (None, [(0, False, 0)])
            and not self.append_none
        )


def _reducer(rule: Rule, chain: _Chain, callback: Any, inlined: frozenset[str]) -> _Make:
    """One function doing what lark's callback chain for ``rule`` does with the popped values
    ``s``, given the running Builder ``b``; lark's own callback where the chain has a shape not
    read here (it then finds the Builder through ``grammar.run_inline``'s stack). Where the
    chain passes the popped values as they are to the Builder's method, that method itself
    (``method(b, s)``: no frame between the loop and the method).

    A rule in ``inlined`` (an ``_rule``, always expanded into its parent) gives its children
    list instead of a ``Tree`` around it, and its parents take that list. As in lark, a parent
    whose first child is expanded reuses that child's list (appending to it), so that a long
    left-recursive run (the tokens of an expression) costs linear time, not quadratic.
    """
    if not chain.read:
        return lambda b, s: callback(s)
    if chain.method is not None and chain.include is None and not chain.expand1:
        method: _Make = chain.method
        return method
    namespace: dict[str, Any] = {}
    if chain.method is not None:
        namespace["f"] = chain.method
        make = "f(b, {})"
    elif rule.origin.name in inlined:
        make = "{}"
    else:
        namespace["f"], namespace["name"] = Tree, chain.tree
        make = "f(name, {})"

    def value(i: int) -> str:
        return f"s[{i}]" if rule.expansion[i].name in inlined else f"s[{i}].children"

    lines: list[str] = []
    include = chain.include
    if include is None:
        children = "s"
    else:
        reuse = bool(include) and include[0][1] and include[0][2] == 0
        parts: list[str] = []
        for k, (i, expand, nones) in enumerate(include):
            if k == 0 and reuse:
                lines.append(f"c = {value(i)}")
                continue
            parts += ["None"] * nones
            parts.append(f"*{value(i)}" if expand else f"s[{i}]")
        parts += ["None"] * chain.append_none
        listed = "[" + ", ".join(parts) + "]"
        if reuse:
            if parts:
                lines.append(f"c += {listed}")
        else:
            lines.append(f"c = {listed}")
        children = "c"
    if chain.expand1:
        if children == "s":
            lines.append("c = s")
        lines.append(f"return c[0] if len(c) == 1 else {make.format('c')}")
    else:
        lines.append("return " + make.format(children))
    body = "".join(f"    {line}\n" for line in lines)
    exec(f"def reduce(b, s):\n{body}", namespace)  # only indices and fixed names
    reduce: _Make = namespace["reduce"]
    return reduce


class _FirstReduce:
    """A rule's reduction until the loop first reduces by it: then it makes the rule's function
    (:func:`_reducer`, a small compile), puts it in its place and runs it. A grammar has
    hundreds of rules (all of them made took ~15 ms of a command's start-up) and a run reduces
    by a part of them; once made, a reduction costs the loop nothing more."""

    __slots__ = ("callback", "chain", "i", "inlined", "reductions", "rule")

    def __init__(
        self,
        reductions: list[_Reduce],
        i: int,
        rule: Rule,
        chain: _Chain,
        callback: Any,
        inlined: frozenset[str],
    ) -> None:
        self.reductions, self.i, self.rule = reductions, i, rule
        self.chain, self.callback, self.inlined = chain, callback, inlined

    def make(self) -> _Make:
        reduce = _reducer(self.rule, self.chain, self.callback, self.inlined)
        size, _, origin = self.reductions[self.i]
        self.reductions[self.i] = (size, reduce, origin)
        return reduce

    def __call__(self, b: Any, s: list[Any]) -> Any:
        return self.make()(b, s)


def _inlined(chains: dict[Rule, _Chain]) -> frozenset[str]:
    """The ``_rules`` whose values may be bare children lists: every rule of that name makes a
    plain ``Tree`` (which lark only ever expands into the parent), and every chain of the
    parser is read here (a parent left to lark's callback would want the ``Tree``)."""
    if not all(c.read for c in chains.values()):
        return frozenset()
    by_name: dict[str, list[_Chain]] = {}
    for rule, chain in chains.items():
        by_name.setdefault(rule.origin.name, []).append(chain)
    return frozenset(
        name
        for name, found in by_name.items()
        if name.startswith("_") and all(c.tree is not None and not c.expand1 for c in found)
    )


def _tables(parser: Lark) -> Tables | None:
    """The tables of ``parser``, or None where its lexer or parser is not lark's Python one."""
    found: Tables | None = getattr(parser, "_iceberg_udf_tables", None)
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
    lexing = state_lexings(frontend.lexer, max(frontend.parser.parser.parse_table.states) + 1)
    if lexing is None:
        return None
    found = Tables(parser, lexing=lexing)
    parser._iceberg_udf_tables = found  # type: ignore[attr-defined]
    lalr = frontend.parser
    table = lalr.parser.parse_table
    lazy = LazyParseTable(
        found.actions, found.rules, found.states, table.start_states, table.end_states
    )
    lalr.parser.parse_table = lalr._parse_table = lazy  # lark's own is let go
    return found


def builder_tables(parser: Lark, transformer: object) -> Tables | None:
    """The tables of ``parser`` reducing with the callbacks lark makes for ``transformer`` (its
    ``transformer=`` option): what a second parser loaded with that option would run, without
    loading one. None where ``parser`` is not lark's Python one."""
    tables = _tables(parser)
    if tables is None:
        return None
    options = parser.options
    tree_builder = ParseTreeBuilder(  # type: ignore[no-untyped-call]  # as Lark._prepare_callbacks
        parser.rules,
        options.tree_class or Tree,
        options.propagate_positions,
        False,  # ambiguous: only for Earley
        options.maybe_placeholders,
    )
    callbacks: dict[Any, Any] = tree_builder.create_callback(transformer)  # type: ignore[no-untyped-call]
    callbacks.update(_get_lexer_callbacks(transformer, parser.terminals))  # type: ignore[no-untyped-call]
    return tables.with_callbacks(callbacks)


def parse_inline(parser: Lark | Tables, text: str, builder: Any = None) -> Any:
    """``parser.parse(text)``, or :class:`NotParsed` where that would raise a syntax error.

    ``builder`` is the Builder whose methods the parser's callbacks call (None for a parser
    that builds a tree); ``parser`` may be :func:`builder_tables`'."""
    t = parser if isinstance(parser, Tables) else _tables(parser)
    if t is None:
        assert isinstance(parser, Lark)
        return parser.parse(text)
    actions, reductions, end_state = t.actions, t.reductions, t.end_state
    lexing = t.lexing
    by_chars, keywords, entries = lexing.by_char, lexing.keywords, lexing.entries
    called, ignore, newlines = lexing.called, lexing.ignore, lexing.newlines
    token_callbacks = t.token_callbacks
    new_str = _new_str
    state = t.start_state
    # Each stack ends with the top; a reduction of one symbol or more overwrites the top of
    # both in place (no pop and push), one of several deletes the rest first.
    state_stack = [state]
    value_stack: list[Any] = []
    pos, line, line_start, n = 0, 1, 0, len(text)
    while pos < n:
        m = by_chars[state][text[pos]](text, pos)
        if m is None:
            raise NotParsed
        type_ = m.lastgroup
        if type_ in ignore and type_ not in called:  # spaces, comments: lines only
            if type_ in newlines:
                value = m.group(0)
                count = value.count("\n")
                if count:
                    line += count
                    line_start = pos + value.rindex("\n") + 1
            pos = m.end()
            continue
        value = m.group(type_)  # the match may go on past it: see state_lexers.BLANKS
        tok = new_str(Token, value)  # Token(type_, value, pos, ...), without a call
        tok.type = type_
        tok.start_pos = pos
        tok.value = value
        tok.line = line
        tok.column = pos - line_start + 1
        if type_ in newlines:
            count = value.count("\n")
            if count:
                line += count
                line_start = pos + value.rindex("\n") + 1
        end = pos + len(value)
        tok.end_line = line
        tok.end_column = end - line_start + 1
        tok.end_pos = end
        pos = m.end()
        if type_ in called:  # a keyword's retyping, or another callback of the state's
            types = keywords[state].get(type_)
            if types is not None and value.isascii():
                found = types.get(value.lower())
                if found is not None:
                    tok.type = found
            else:
                callback = entries[state][1].get(type_)
                if callback is not None:
                    tok = callback(tok)
            if type_ in ignore:  # an ignored terminal's callback has seen it
                continue
        kind = tok.type
        while True:  # lark's ParserState.feed_token: reduce as the table says, then shift
            try:
                step = actions[state][kind]
            except KeyError:
                raise NotParsed from None
            if step >= 0:
                state = step
                state_stack.append(state)
                if kind in token_callbacks:
                    tok = token_callbacks[kind](tok)
                value_stack.append(tok)
                break
            # a reduction, as _reduce does it, inline: no call of our own per reduction
            size, make, origin = reductions[~step]
            if make is None:  # a ?rule's one symbol: its value stays, only the state moves
                state = actions[state_stack[-2]][origin]
                state_stack[-1] = state
            elif size == 1:  # the most common size
                value = make(builder, value_stack[-1:])
                state = actions[state_stack[-2]][origin]
                state_stack[-1] = state
                value_stack[-1] = value
            elif size:
                value = make(builder, value_stack[-size:])
                del state_stack[1 - size :]
                del value_stack[1 - size :]
                state = actions[state_stack[-2]][origin]
                state_stack[-1] = state
                value_stack[-1] = value
            else:
                value = make(builder, [])
                state = actions[state][origin]
                state_stack.append(state)
                value_stack.append(value)
    while True:  # lark's $END token: only its type is read (the tables never shift it)
        step = actions[state].get("$END", 0)
        if step >= 0:  # not accepted here (lark's tables never shift $END)
            raise NotParsed
        state = _reduce(reductions[~step], actions, state_stack, value_stack, builder)
        if state == end_state:
            return value_stack[-1]


def _reduce(
    reduction: _Reduce,
    actions: list[dict[str, int]],
    state_stack: list[int],
    value_stack: list[Any],
    builder: Any,
) -> int:
    """Reduce by ``reduction`` (lark's ``ParserState.feed_token`` for a reduce action): pop
    its symbols, push the value its callbacks make of them (a ``?rule`` of one symbol keeps
    its symbol's) and the state the goto table gives; that state."""
    size, make, origin = reduction
    popped = value_stack[len(value_stack) - size :]
    del state_stack[len(state_stack) - size :]
    del value_stack[len(value_stack) - size :]
    value = popped[0] if make is None else make(builder, popped)
    state = actions[state_stack[-1]][origin]
    state_stack.append(state)
    value_stack.append(value)
    return state
