"""Is a routine body exactly one body? The check every body passes before it is stored or emitted.

A body is written after ``RETURN`` in a ``CREATE FUNCTION`` that an engine's client splits at
``;``. A body holding a top-level ``;`` (``1; DROP TABLE victim``) would therefore smuggle a
second statement into any script emitted from it, so a body must be exactly one expression (a
scalar function), one query (a table function) or one ``BEGIN ... END`` block (Trino), in its
own dialect's lexical rules (Spark's backslash escapes and double-quoted strings, Trino's
doubled quotes only).

The rule on ``;`` is deliberately stricter than the engines: a ``;`` may stand only inside a
string literal or a quoted identifier (as the dialect reads them), or inside the ``BEGIN ...
END`` block of a compound body (comments included: Trino's client splits by its lexer's tokens).
Not in a comment of any other body (clients differ on nested ``/* */`` comments), not in a ``$$``
string (neither engine has them), nowhere else.

A body sqlglot parses must parse to one expression or query, not to a statement such as ``DROP
TABLE``. A body sqlglot cannot parse (sqlglot reads less than the engines: Spark's ``>>>``) is
held to its shape: brackets that close in order, and no operator left without its operand (``1
+``, ``(1``), which no engine accepts either.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Final

from sqlglot import exp

from translator.bodies import parse_body
from translator.dialects import DIALECTS, get_dialect
from translator.dialects.base import stored_body_kind
from translator.errors import SqlSyntaxError
from translator.invisible import invisible_character
from translator.metadata import SqlRepresentation, UdfMetadata
from translator.script import Lexical, Token, span_list, split_statements
from translator.sqltrees import column_name, scoped_columns

__all__ = ["BODY_DIALECTS", "body_problem", "free_references", "representation_problems"]

#: The dialects whose bodies can be checked (by their own lexical rules and sqlglot dialect).
BODY_DIALECTS: Final = frozenset(DIALECTS)

#: sqlglot's statement classes: none of them is a body.
_STATEMENTS: Final = tuple(
    getattr(exp, name)
    for name in (
        "DDL", "DML", "Command", "Block", "Drop", "Use", "Set", "Transaction", "Commit",
        "Rollback", "Alter", "Describe", "Pragma", "Cache", "Uncache", "Refresh", "Create",
        "Insert", "Merge", "Update", "Delete", "Analyze", "Grant", "Revoke", "Kill", "LoadData",
        "Copy", "Show",
    )
    if hasattr(exp, name)
)  # fmt: skip

_OPENERS: Final = {"(": ")", "[": "]", "{": "}"}
_CLOSERS: Final = frozenset(_OPENERS.values())
#: Tokens after which an operand must follow: a body cannot end in one.
_DANGLING_PUNCT: Final = frozenset("+-*/%|&^=<>,.!~:")
_DANGLING_WORDS: Final = frozenset(
    {"AND", "OR", "NOT", "IS", "IN", "LIKE", "BETWEEN", "CASE", "WHEN", "THEN", "ELSE"}
)


def body_problem(text: str, kind: str, dialect: str, ast: Any = None) -> str | None:
    """Why ``text`` is not exactly one ``kind`` body in ``dialect``, or None when it is.

    ``dialect`` must be one of :data:`BODY_DIALECTS`. ``ast``: sqlglot's tree of ``text`` when
    the caller has it already (the front end's :func:`~translator.bodies.parse_body` of the same
    text, kind and dialect), so that the body is not parsed a second time; without one (or
    where that parse failed) the body is parsed here.
    """
    engine = get_dialect(dialect)
    lex, sqlglot_dialect = engine.lexical, engine.sqlglot_dialect
    if not text.strip():
        return "the body is empty"
    if ast is not None and kind != "compound" and _plain_pattern(lex).fullmatch(text):
        # The front end's tree, and nothing outside a string for the lexer to refuse or look
        # at (no ';', comment, $$ string, invisible character): only the tree is left to judge.
        return _tree_problem(ast, kind)
    try:
        spans = span_list(text, lex, None)
    except SqlSyntaxError as e:
        return f"the body has an {e.message}"
    tokens: list[Any] | None = None
    if kind != "compound" and not any(k in _RARE_KINDS for k, _, _ in spans):
        # Most bodies: no comment, invisible character or $$ string, so of _semicolons' checks
        # only the ';' is left, and no token need be built for it.
        if ";" in text and any(k == "punct" and text[i:j] == ";" for k, i, j in spans):
            return (
                "the body holds more than one statement (a ';' outside any string); "
                f"one body is {_wanted(kind)}"
            )
    else:
        tokens = [Token(k, i, j, text[i:j]) for k, i, j in spans]
        problem = _semicolons(text, tokens, kind, lex)
        if problem is not None or kind == "compound":
            return problem
    if ast is None:
        ast, _ = parse_body(text, kind, sqlglot_dialect)
    if ast is None:
        return _shape_problem(tokens or [Token(k, i, j, text[i:j]) for k, i, j in spans])
    return _tree_problem(ast, kind)


def _tree_problem(ast: Any, kind: str) -> str | None:
    """Why sqlglot's tree of a body is not one ``kind`` body, or None."""
    if isinstance(ast, _STATEMENTS):
        return f"the body is a {type(ast).__name__.upper()} statement, not {_wanted(kind)}"
    if kind == "query" and not isinstance(ast, (exp.Query, exp.Values)):
        return "the body of a table function must be one query"
    return None


@cache
def _plain_pattern(lex: Lexical) -> re.Pattern[str]:
    """Texts in which :func:`~translator.script.span_list` finds nothing :func:`body_problem`
    looks for: ASCII letters, digits, spaces and plain punctuation, and complete quoted runs
    (strings and quoted identifiers as ``lex`` has them) with no backslash inside, which every
    dialect's lexer ends at the same quote (a doubled quote is two runs here, one there: the
    same characters are inside). No ``;``, ``--``, ``/*``, ``$`` or backslash outside them:
    such a text scans without an error and with no comment, ``$$`` string, invisible
    character or ``;`` token."""
    runs = [r"'[^'\\]*+'", r'"[^"\\]*+"']
    if lex.backquote_identifiers:
        runs.append(r"`[^`\\]*+`")
    safe = r"[A-Za-z0-9_ \t\r\n()\[\]{}+*%|&^=<>,.!~:?@#]"
    return re.compile(rf"(?:{safe}|-(?!-)|/(?!\*)|{'|'.join(runs)})*+")


#: Token kinds that only :func:`_semicolons`' slow path looks at.
_RARE_KINDS: Final = frozenset({"invisible", "dollar", "comment"})


def _wanted(kind: str) -> str:
    return "a query" if kind == "query" else "an expression"


def _semicolons(text: str, tokens: list[Any], kind: str, lex: Lexical) -> str | None:
    for tok in tokens:
        if tok.kind == "invisible":
            return (
                f"the body has an invisible character {invisible_character(tok.text)} outside "
                "any string"
            )
        if tok.kind == "dollar":
            return "the body has a $$ string, which neither engine reads as a string"
        if tok.kind == "comment" and ";" in tok.text and kind != "compound":
            return "the body has a ';' in a comment: a client could end the statement there"
    tail = [t for t in tokens if t.kind not in ("space", "invisible")]
    if tail and tail[-1].kind == "comment" and tail[-1].text.startswith("--"):
        return "the body ends in a -- comment, which would hide the ';' written after it"
    if kind != "compound":
        if any(tok.kind == "punct" and tok.text == ";" for tok in tokens):
            return (
                "the body holds more than one statement (a ';' outside any string); "
                f"one body is {_wanted(kind)}"
            )
        return None
    # A compound body is one BEGIN ... END block: read as a routine's body would be.
    pieces = split_statements("FUNCTION " + text, lex)
    if len(pieces) != 1:
        return "the body holds more than one statement after its BEGIN ... END block"
    words = [t for t in tokens if t.kind not in ("space", "comment", "invisible")]
    if not words or words[-1].upper != "END":
        return "a BEGIN ... END body must end with END"
    return None


def _shape_problem(tokens: list[Any]) -> str | None:
    """A body sqlglot could not parse: brackets closing in order, nothing left dangling."""
    open_: list[str] = []
    words = [t for t in tokens if t.kind not in ("space", "comment", "invisible")]
    if not words:
        return "the body is empty (it holds only comments)"
    for tok in words:
        if tok.kind != "punct":
            continue
        if tok.text in _OPENERS:
            open_.append(_OPENERS[tok.text])
        elif tok.text in _CLOSERS and (not open_ or open_.pop() != tok.text):
            return f"the body has an unmatched {tok.text!r}"
    if open_:
        return f"the body is missing a closing {open_[-1]!r}"
    last = words[-1]
    if (last.kind == "punct" and last.text in _DANGLING_PUNCT) or (
        last.kind == "word" and last.upper in _DANGLING_WORDS
    ):
        return f"the body ends in {last.text!r}, with no operand after it"
    return None


def free_references(ast: Any, parameters: list[str]) -> list[str]:
    """Names an expression body refers to as bare columns that are no parameter, no lambda
    variable, and sit in no query with a FROM (whose tables could bind them)."""
    _, free, lambda_vars, _ = scoped_columns(ast)
    if not free:
        return []
    bound = {p.lower() for p in parameters} | lambda_vars
    seen: dict[str, str] = {}
    for col in free:
        name = column_name(col)
        low = name.lower()
        if low not in bound:
            seen.setdefault(low, name)
    return sorted(seen.values())


def representation_problems(meta: UdfMetadata) -> list[tuple[str, str]]:
    """``(JSON path, why)`` for every SQL representation in a dialect this tool reads whose
    body is not exactly one body (:func:`body_problem`): what ``validate`` adds to the spec's
    rules, which know no dialect."""
    out = []
    for i, d in enumerate(meta.definitions):
        for j, v in enumerate(d.versions):
            for k, rep in enumerate(v.representations):
                if not isinstance(rep, SqlRepresentation):
                    continue
                dialect = rep.dialect.lower()
                if dialect not in BODY_DIALECTS:
                    continue
                problem = body_problem(rep.sql, stored_body_kind(rep.sql, d.function_type), dialect)
                if problem is not None:
                    path = f"$.definitions[{i}].versions[{j}].representations[{k}].sql"
                    out.append((path, problem))
    return out
