"""The sqlglot dialects our code names, one instance each, made once and shared.

sqlglot takes a dialect as a name or as an instance. Given a name (``parse_one(text,
read="trino")``, ``tree.sql(dialect="spark")``, ``DataType.build(text, dialect="trino")``) or a
class, it makes a new instance on every call (``Dialect.get_or_raise``), a few microseconds
each, several a statement; given an instance it uses that one. So every call into sqlglot from
our code passes one of these.

Sharing one instance between calls and threads is safe because a sqlglot dialect instance is
settings only: in sqlglot 30.30.0 (the version pinned) ``Dialect.__init__`` sets ``version``,
``normalization_strategy`` and ``settings``, and nothing in sqlglot assigns to an instance
after that (its parsers, tokenizers and generators read the dialect and keep their own per-call
state). Everything else a dialect holds belongs to its class, which every instance shares
anyway. ``tests/test_sqlglot_dialects.py`` holds this to sqlglot's source.

sqlglot also makes a new tokenizer and parser for every parse (a few microseconds each, two
parses a body). :func:`tokenize` and :func:`parse_one` keep one of each per thread and shared
dialect instead (and a parser of each other class a check parses with), because in sqlglot
30.30.0 every field either holds changes while it works is reset when it starts:
``Tokenizer.tokenize`` begins with ``reset()``, which sets anew every per-call field its
``__init__`` sets (text, position, line, column, comments, the token list);
``Parser.parse`` begins with ``reset()`` likewise (text, errors, tokens, position, comments,
chunks, counters), and the one setting a parse changes while it works (``error_level``, in
``_try_parse``) is put back in a ``finally``. The rest of either is settings fixed when it is
made. Each is taken from its thread's spare slot while it works and put back only when it
returns normally, so a call that raised, or one made while another is under way (there is none
today), uses a new one. Generators are not kept: ``Generator.generate`` resets its unsupported
messages but not the counter behind generated table aliases (``_next_name``: ``_t0``, ``_t1``...),
and ``no_identify`` puts ``identify`` back without a ``finally``, so a kept generator could
write what a new one would not. ``ICEBERG_UDF_SQLGLOT_REUSE=0`` (read at import) turns the
keeping off: every call makes its own, as sqlglot's functions do.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any, TypeVar

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.spark import Spark
from sqlglot.dialects.trino import Trino
from sqlglot.errors import ParseError
from sqlglot.generator import Generator
from sqlglot.parser import Parser
from sqlglot.tokenizer_core import Token, TokenType
from sqlglot.tokens import Tokenizer

__all__ = [
    "GENERIC",
    "MAX_BRACKET_DEPTH",
    "SPARK",
    "SQLGLOT_FAILURES",
    "TRINO",
    "dialect_named",
    "first_line",
    "parse_one",
    "parse_one_with_tokens",
    "shared",
    "tokenize",
    "usable",
    "write",
]

#: sqlglot's Spark and Trino dialects.
SPARK: Dialect = Spark()
TRINO: Dialect = Trino()
#: sqlglot's base dialect: what ``tree.sql()`` writes and ``DataType.build(text)`` reads when no
#: dialect is named.
GENERIC: Dialect = Dialect()

_BY_NAME: dict[str, Dialect] = {"spark": SPARK, "trino": TRINO}


def dialect_named(name: str) -> Dialect:
    """The shared instance of the sqlglot dialect ``name`` (our dialects' ``sqlglot_dialect``);
    another name gets what sqlglot makes of it (a new instance, or sqlglot's error)."""
    found = _BY_NAME.get(name)
    return found if found is not None else Dialect.get_or_raise(name)


#: Whether tokenizers and parsers are kept per thread (``ICEBERG_UDF_SQLGLOT_REUSE=0``: not).
REUSE = os.environ.get("ICEBERG_UDF_SQLGLOT_REUSE", "1") != "0"

#: The instances whose tokenizers and parsers are kept, by ``id`` (they live as long as the
#: process, so no other object can have their ids).
_KEPT: dict[int, Dialect] = {}


def shared(dialect: Dialect) -> Dialect:
    """``dialect``, made one whose tokenizer and parser are kept (see the module docstring):
    for an instance made once and used for the process's life, as :data:`SPARK` is."""
    if REUSE:
        _KEPT[id(dialect)] = dialect
    return dialect


for _made in (SPARK, TRINO, GENERIC):
    shared(_made)


class _Spare(threading.local):
    """This thread's tokenizer and parser of each kept dialect, while no call is using them."""

    def __init__(self) -> None:
        self.tokenizers: dict[int, Tokenizer] = {}
        #: By the dialect's ``id``; by ``(id, class)`` for a parser of another class.
        self.parsers: dict[object, Parser] = {}


_spare = _Spare()


def tokenize(sql: str, dialect: Dialect) -> list[Token]:
    """``sqlglot.tokenize(sql, read=dialect)`` (the same tokens, the same errors)."""
    key = id(dialect)
    if key not in _KEPT:
        return dialect.tokenize(sql)
    spare = _spare.tokenizers
    tokenizer = spare.pop(key, None)
    if tokenizer is None:
        tokenizer = dialect.tokenizer()
    tokens = tokenizer.tokenize(sql)  # a new list each call: the tokenizer never changes it again
    spare[key] = tokenizer
    return tokens


def parse_one(sql: str, dialect: Dialect, parser_class: type[Parser] | None = None) -> exp.Expr:
    """``sqlglot.parse_one(sql, read=dialect)`` (the same tree, the same errors); with
    ``parser_class`` as :func:`parse_one_with_tokens` takes it."""
    return parse_one_with_tokens(sql, dialect, parser_class)[0]


#: The deepest nesting of brackets handed to sqlglot's parser, and the longest chain of
#: subscripts (``x[1][2]``, ``x[1].a[2]``: each wraps the chain before it, a nesting without
#: brackets around it). Pure-Python sqlglot stops far below the first at the default recursion
#: limit (RecursionError from about 50 nested parentheses, 150 nested subqueries), so no text it
#: could parse is refused by it; the compiled sqlglot of the fast extra counts its own depth for
#: most forms but not for nested subqueries, which it follows until the C stack overflows and
#: the process dies (about 30,000 levels on an 8 MiB stack, 2,000 on a thread's 2 MiB). A chain
#: costs time: for a dialect whose arrays start at 1 (Trino), sqlglot's parser types the whole
#: chain again at each subscript, so a chain of n takes n squared steps (pure sqlglot: 800
#: subscripts 2.7 s, about 1,000 a RecursionError after ~4 s; compiled: 4,000 took 20 s, with no
#: end). Beyond this bound a text is "too deep", as sqlglot's own RecursionError says everywhere
#: our callers parse.
MAX_BRACKET_DEPTH = 256

_OPENING = frozenset((TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE))
_CLOSING = frozenset((TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE))


def _check_depth(sql: str, tokens: list[Token]) -> None:
    """Raise ``RecursionError`` where ``tokens`` nest brackets deeper than
    :data:`MAX_BRACKET_DEPTH`, or chain more subscripts than that at one level (a text with
    fewer opening brackets than that can do neither: one count at C speed decides for nearly
    every text)."""
    if sql.count("(") + sql.count("[") + sql.count("{") <= MAX_BRACKET_DEPTH:
        return
    depth = 0
    # Per open level: subscripts in the chain being read, and where the chain stands: 0 not in
    # one, 1 after a subscript's "]" (a "[" or "." goes on), 2 after its "." (a name goes on).
    chain, state = [0], [0]
    opening, closing = _OPENING, _CLOSING
    for token in tokens:
        kind = token.token_type
        if kind in opening:
            if kind == TokenType.L_BRACKET:
                chain[depth] = chain[depth] + 1 if state[depth] == 1 else 1
                if chain[depth] > MAX_BRACKET_DEPTH:
                    raise RecursionError(f"more than {MAX_BRACKET_DEPTH} subscripts in a chain")
            depth += 1
            if depth > MAX_BRACKET_DEPTH:
                raise RecursionError(f"nested deeper than {MAX_BRACKET_DEPTH} brackets")
            if depth == len(chain):
                chain.append(0)
                state.append(0)
            chain[depth], state[depth] = 0, 0
        elif kind in closing:
            depth = max(depth - 1, 0)
            state[depth] = 1 if kind == TokenType.R_BRACKET else 0
        elif state[depth] == 1:
            state[depth] = 2 if kind == TokenType.DOT else 0
        elif state[depth] == 2:
            state[depth] = 1  # the field's name, whatever token it is


def parse_one_with_tokens(
    sql: str, dialect: Dialect, parser_class: type[Parser] | None = None
) -> tuple[exp.Expr, list[Token]]:
    """:func:`parse_one`, and the tokens it parsed (sqlglot's parser never changes a token's
    type or text). A text nested deeper than :data:`MAX_BRACKET_DEPTH` raises
    ``RecursionError`` before it is parsed. ``parser_class``: parse with this class (made for
    ``dialect``) instead of the dialect's own, as a dialect's ``check_parser`` asks
    (:attr:`translator.dialects.base.Dialect.check_parser`)."""
    tokens = tokenize(sql, dialect)
    _check_depth(sql, tokens)
    if id(dialect) in _KEPT:
        # Kept by dialect, and by dialect and class for another class.
        key: object = id(dialect) if parser_class is None else (id(dialect), parser_class)
        spare = _spare.parsers
        parser = spare.pop(key, None)
        if parser is None:
            parser = _new_parser(dialect, parser_class)
        result = parser.parse(tokens, sql)
        spare[key] = parser
    else:
        result = _new_parser(dialect, parser_class).parse(tokens, sql)
    if not result or result[0] is None:
        raise ParseError(f"No expression was parsed from '{sql}'")
    return (exp.Block(expressions=result) if len(result) > 1 else result[0]), tokens


def write(
    tree: exp.Expr, dialect: Dialect, generator_class: type[Generator] | None = None, **opts: Any
) -> str:
    """``tree.sql(dialect=dialect, copy=False, **opts)``: the same text and errors, written with
    ``generator_class`` (made for ``dialect``) where given, as a dialect's ``body_writer`` asks
    (:attr:`translator.dialects.base.Dialect.body_writer`)."""
    if generator_class is None:
        return dialect.generate(tree, copy=False, **opts)
    return generator_class(dialect=dialect, **opts).generate(tree, copy=False)


_C = TypeVar("_C", bound=type)


def usable(cls: _C) -> _C | None:
    """``cls``, a subclass of one of sqlglot's parser or generator classes, or None where no
    instance of it can be made: with sqlglotc those classes are compiled, and mypyc makes no
    instance of an interpreted class derived from a compiled one ("interpreted classes cannot
    inherit from compiled"). Our subclasses of them then give way to sqlglot's own classes."""
    try:
        cls()
    except TypeError:
        return None
    return cls


def _new_parser(dialect: Dialect, parser_class: type[Parser] | None) -> Parser:
    """``dialect.parser()``, or a ``parser_class`` made as that makes the dialect's own."""
    return dialect.parser() if parser_class is None else parser_class(dialect=dialect)


def first_line(message: str) -> str:
    """sqlglot's message, first line. Which of several missing arguments sqlglot names depends
    on set order, which changes from run to run (hash seeds): the name is left out, so the
    same body always gets the same message."""
    first = message.strip().splitlines()[0] if message.strip() else "no detail"
    return _MISSING_ARGUMENT.sub("Required keyword missing", first)


_MISSING_ARGUMENT = re.compile(r"Required keyword: '\w+' missing")


#: What sqlglot may raise besides its own errors (RecursionError: a deeply nested body): any of
#: them inside sqlglot flags the body it was given, never crashes us.
SQLGLOT_FAILURES = (RecursionError, ValueError, TypeError, KeyError, IndexError, AttributeError)
