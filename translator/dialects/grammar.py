"""The lark side of the front ends: load a dialect's grammar, run a Transformer, and turn lark's
exceptions into positioned errors that show the source line and say what could come next.

It lives with the dialects because only they use lark; each dialect's parser module calls it.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from typing import Any, TypeVar

from lark import Lark, Token, Tree
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.grammar import Rule
from lark.lexer import TerminalDef

from translator.dialects import parser_cache
from translator.dialects.inline_loop import (
    NotParsed,
    Tables,
    builder_tables,
    parse_inline,
    share_entries,
)
from translator.dialects.transformers import Callbacks, Walk
from translator.errors import Position, SqlSyntaxError, TranslatorError, position_at

__all__ = [
    "accepted_terminals",
    "error_at",
    "fast_tree",
    "grammar_text",
    "inline_parser",
    "load_parser",
    "parse_with",
    "readable_expected",
    "run_inline",
    "run_inline_settled",
    "shallow",
    "source_line",
    "token_end",
    "token_start",
    "transform",
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

    Building the LALR tables takes about 0.1 s a parser, a good part of a command's start-up;
    :mod:`.parser_cache` keeps them between processes (keyed by lark's version, the grammar's
    text and these options; anything it cannot vouch for is built again).
    """
    options: dict[str, Any] = {
        "parser": "lalr",
        "lexer": "contextual",
        "start": list(start) if isinstance(start, tuple) else start,
        "propagate_positions": positions,
        "maybe_placeholders": True,
    }
    text = grammar_text(name)
    return parser_cache.cached_parser(text, options, lambda: Lark(text, cache=False, **options))


#: The Transformer instances whose methods the inline parsers' callbacks call, innermost last,
#: per thread (a parse may start another, and the server parses in several threads).
_running = threading.local()


def _builders() -> list[Any]:
    stack: list[Any] | None = getattr(_running, "stack", None)
    if stack is None:
        stack = _running.stack = []
    return stack


@cache
def inline_parser(name: str, start: str, builder: type) -> Lark | Tables:
    """The parser of :func:`load_parser` (no positions) that runs ``builder``'s methods as it
    reduces each rule (lark's ``transformer=`` for LALR): no parse tree is built and none is
    walked afterwards, which saves about a third of a header's lark time.

    The methods are those of the instance :func:`run_inline` is given, so one parser serves
    every statement. Each method sees exactly the children it sees when the Transformer walks
    the tree (the same rule shaping runs), in the same order (a rule is reduced after its
    children, left to right: the tree walk's post-order). A rule without a method becomes a
    ``Tree`` as in the walk. What differs is when an error surfaces, which the callers settle:
    see :func:`run_inline`.

    Unless lark-cython is asked for (:func:`_lark_cython`), what runs is the plain parser's
    own tables (the automaton and the lexers, which
    :func:`~translator.dialects.inline_loop.parse_inline` has read already) with these
    callbacks: no second copy of the grammar is loaded, and none stays in the heap for each
    full garbage collection to traverse (about 4,500 objects a dialect).
    """
    plain = load_parser(name, start, positions=False)
    callbacks = Callbacks(builder, {r.alias or r.origin.name for r in plain.rules}, _running)
    plugins = _lark_cython()
    if plugins is None:
        tables = builder_tables(plain, callbacks)
        if tables is not None:
            return tables
    data, memo = plain.memo_serialize([TerminalDef, Rule])
    options: dict[str, Any] = {"transformer": callbacks}
    if plugins is not None:
        options["_plugins"] = plugins
    parser: Lark = Lark.__new__(Lark)._load({"data": data, "memo": memo}, **options)
    parser.ignore_tokens = list(plain.ignore_tokens)
    share_entries(parser)
    return parser


def _lark_cython() -> dict[str, Any] | None:
    """lark-cython's LALR parser and lexer (the ``fast`` extra), only where installed and asked
    for with ``ICEBERG_UDF_LARK_CYTHON=1``: the same tables, run in compiled code, with the
    same results. Otherwise :mod:`~translator.dialects.inline_loop` runs lark's tables.

    Not the default, though compiled: the loop and its generated reducers cost fewer
    instructions than lark-cython's parser, which calls lark's Python callback chain (child
    filter, placeholders, the stand-in Transformer's method) for every reduction. On the
    benchmark corpus's headers (the body's parse left out) a header took 1.67M instructions
    with lark-cython against 1.33M with the loop, and 20-30% more CPU time.

    Only the inline parsers use it. Its tokens are not ``str`` (the Builders read ``.value``);
    every error takes the tree path, which lark itself parses, so messages do not depend on it.
    """
    if os.environ.get("ICEBERG_UDF_LARK_CYTHON", "0") != "1":
        return None
    try:
        import lark_cython  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        return None
    plugins: dict[str, Any] = lark_cython.plugins
    return plugins


def run_inline(parser: Lark | Tables, builder: Any, text: str) -> Any:
    """What ``builder.transform(parser.parse(text))`` gives, with ``parser`` from
    :func:`inline_parser`, when the text parses and no method raises.

    Otherwise the error may differ from the tree walk's: a method's error comes out before a
    syntax error later in the text would have been found (the walk starts after a whole parse),
    and exceptions are not wrapped in lark's ``VisitError``. Callers take the tree path in
    those cases (see the dialects' ``parse_statement``), so messages stay those of the walk.
    """
    stack = _builders()
    stack.append(builder)
    try:
        return parse_inline(parser, text, builder)
    finally:
        stack.pop()


def run_inline_settled(
    parser: Lark | Tables, builder: Any, text: str, parse_tree: Callable[[], object]
) -> Any | None:
    """:func:`run_inline` with its errors settled as the tree path settles them, or None where
    only the tree path gives the error it gives.

    A Builder's error raised before the parse reached the end (``builder.complete`` false)
    yields to a syntax error later in the text, as in the tree path (which walks only a complete
    parse): ``parse_tree`` (the tree path's parse) runs to raise it. Anything else unexpected
    (a syntax error, or deeper trouble) is None: the caller takes the tree path.
    """
    try:
        return run_inline(parser, builder, text)
    except TranslatorError:
        if not builder.complete:
            parse_tree()  # a syntax error, if any, wins
        raise
    except Exception:
        return None


#: More brackets than this and a statement takes the tree path: the tree walk recurses once
#: per level and reports a statement nested too deeply (at a depth that depends on the stack),
#: which the inline parser, not recursing, would let through.
_SHALLOW_BRACKETS = 40


def shallow(text: str) -> bool:
    """Whether ``text`` cannot nest deeply enough for the tree walk to run out of stack (so
    that :func:`run_inline` gives what the walk gives)."""
    return text.count("(") + text.count("<") + text.count("[") < _SHALLOW_BRACKETS


def token_start(tok: Token) -> int:
    """Where ``tok`` starts: lark types token offsets as optional; its lexer always sets them."""
    return tok.start_pos or 0


def token_end(tok: Token) -> int:
    """Where ``tok`` ends (see :func:`token_start`)."""
    return tok.end_pos or 0


def fast_tree(parser: Lark, text: str) -> Tree[Token] | None:
    """lark's tree of ``text`` as :func:`~translator.dialects.inline_loop.parse_inline` builds it
    (the same tree, at about 60% of lark's cost), or None where the loop refuses the text or
    cannot run this parser: the caller lets lark parse it then, so any error is lark's."""
    with contextlib.suppress(NotParsed, UnexpectedInput):
        tree: Tree[Token] = parse_inline(parser, text)
        return tree
    return None


def parse_with(
    parser: Lark, text: str, base: Position | None = None, *, start: str | None = None
) -> Tree[Token]:
    """Parse ``text``; a failure becomes a :class:`SqlSyntaxError` at its place in the script.

    The tree is :func:`fast_tree`'s where it has one; otherwise lark parses the text itself, so
    the error is lark's.
    """
    if start is None and (tree := fast_tree(parser, text)) is not None:
        return tree
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
    line = source_line(text, offset, base)
    return SqlSyntaxError(f"unexpected {found}", pos, source_line=line, expected=expected)


def source_line(text: str, offset: int, base: Position | None = None) -> str:
    """The line of ``text`` that ``offset`` is on, for drawing a caret under it.

    ``text`` is one statement and ``base`` where it starts in the script: the statement's first
    line is indented as it stands in the script, so that the caret at the script column lines up.
    """
    local = position_at(text, offset)
    lines = text.splitlines() if text.strip() else []
    line = lines[min(local.line, len(lines)) - 1] if lines else ""
    if base is not None and local.line == 1:
        line = " " * (base.column - 1) + line
    return line


_E = TypeVar("_E", bound=TranslatorError)


def error_at(cls: type[_E], message: str, text: str, offset: int, base: Position | None) -> _E:
    """An error at ``offset`` of a statement, with the source line and caret syntax errors have."""
    pos = position_at(text, offset, base=base)
    return cls(message, pos, source_line=source_line(text, offset, base))


def transform(builder: object, tree: Tree[Token], too_deep: Callable[[], TranslatorError]) -> Any:
    """Walk ``tree`` with ``builder``'s methods (what a Transformer with those methods does);
    our own errors raised inside come out unwrapped (lark wraps them in ``VisitError``) and a
    tree too deep for Python's stack becomes ``too_deep()``."""
    try:
        return Walk(builder).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, TranslatorError):
            raise e.orig_exc from None
        if isinstance(e.orig_exc, RecursionError):
            raise too_deep() from None
        raise
    except RecursionError:
        raise too_deep() from None


def accepted_terminals(lark_error: BaseException | None) -> set[str] | None:
    """The terminals the parser would have taken where ``lark_error`` happened, or None if it
    cannot tell.

    lark's own list for an LALR parser is the union of lookaheads of merged states, which names
    tokens that cannot actually follow; the error's interactive parser knows what really fits.
    """
    interactive = getattr(lark_error, "interactive_parser", None)
    if not isinstance(lark_error, UnexpectedInput) or interactive is None:
        return None
    try:
        return set(interactive.accepts())
    except Exception:  # a better message is optional: lark's own list stays
        return None


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


def readable_expected(
    parser: Lark,
    names: object,
    *,
    renames: Mapping[str, str] | None = None,
    lower_names: bool = True,
) -> tuple[str, ...]:
    """Terminal names as a reader knows them (keywords, punctuation), sorted; every dialect
    uses it.

    ``renames`` names terminals the dialect calls otherwise (``NAME``: ``identifier``). A
    terminal defined by a string is shown as that string (a word upper case); one defined by a
    pattern by its name, ``_`` read as a space, lower-cased unless ``lower_names`` is False (a
    grammar whose keywords are patterns named after themselves: ``WITH TIME ZONE``).
    """
    if not names:
        return ()
    out: set[str] = set()
    for name in names:  # type: ignore[attr-defined]
        if renames is not None and name in renames:
            out.add(renames[name])
            continue
        try:
            term = parser.get_terminal(name)
        except KeyError:
            out.add(str(name))
            continue
        pattern = term.pattern
        if pattern.type == "str":
            out.add(pattern.value.upper() if pattern.value.isalpha() else repr(pattern.value)[1:-1])
        else:
            out.add((name.lower() if lower_names else name).replace("_", " "))
    return tuple(sorted(out))
