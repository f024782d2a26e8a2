"""A parsed Spark CREATE FUNCTION, checked as a whole and turned into the IR; and the refusal of
functions that are not SQL, before the grammar sees them.

The routine body is everything after ``RETURN``, kept as written and handed to sqlglot
(:func:`translator.bodies.parse_body`), so a body sqlglot cannot read is flagged rather than
rejected.
"""

from __future__ import annotations

import re
from itertools import chain, pairwise
from typing import Any, Final, Literal

from lark import Token

from translator.bodies import parse_body
from translator.dialects.base import by_offset
from translator.dialects.grammar import error_at
from translator.dialects.spark.lexical import NAME, ONLY_SQL, Name
from translator.dialects.spark.read_parser import READ_PARSER
from translator.dialects.spark.source import Clause, Source
from translator.errors import Position, SqlSyntaxError, UnsupportedError
from translator.ir import Body, CreateFunction, Parameter
from translator.script import StatementText
from translator.script import Token as ScriptToken
from translator.types import IcebergType, StructType, TypeParseError

__all__ = ["CreateAssembler", "refuse_non_sql"]


# ---------------------------------------------------------------------------------------------
# Non-SQL functions: refused before the grammar sees them, so even malformed ones get the reason


def refuse_non_sql(stmt: StatementText) -> None:
    """Refuse ``AS 'class'`` (Hive), ``LANGUAGE PYTHON`` and ``$$`` bodies with the only-SQL reason.

    Only the header is looked at: tokens before the first top-level ``RETURN``. ``AS`` never
    appears at the top level of a SQL function's header, and a ``$$`` string never does either.
    """
    if _MAYBE_NOT_SQL.search(stmt.text) is None:
        return  # no AS, LANGUAGE or $ anywhere (strings and comments included): nothing to refuse
    if _plain_header(stmt.text):
        return  # the AS, LANGUAGE or $ are in the body: the look would stop at RETURN before
    words = stmt.iter_words()
    first = next(words, None)
    if first is None or first.upper != "CREATE":
        return
    depth = 0
    for tok, nxt in pairwise(chain((first,), words, (None,))):
        assert tok is not None  # only the last pair's second is None
        if tok.kind == "punct" and tok.text in "()":
            depth += 1 if tok.text == "(" else -1
            continue
        if depth > 0:
            continue
        reason = _non_sql_reason(tok, nxt)
        if reason == "":
            return
        if reason is not None:
            raise error_at(
                UnsupportedError, f"{reason}: {ONLY_SQL}", stmt.text, tok.start, stmt.position
            )


#: What a refusal needs somewhere in the text: the word AS or LANGUAGE (as the splitter's
#: words are: ASCII, any case, whole), or a ``$``. Most statements have none, and are not
#: tokenised for the look at their header. Written to start with a character class (the word's
#: start is checked once that character is read), which lets the regex engine skip to the
#: places where one of those characters is: about half the cost of a search that tries the
#: word boundary at every character (the same matches: tests/dialects/test_word_screens.py).
_MAYBE_NOT_SQL: Final = re.compile(
    r"(?ai)[$al](?:(?<=\$)|(?<![A-Za-z0-9_$].)(?:(?<=a)s|(?<=l)anguage)(?![A-Za-z0-9_$]))"
)


#: The word RETURN as the splitter's words are (ASCII, any case, whole); its start is checked
#: once its first letter is read (see :data:`_MAYBE_NOT_SQL`).
_RETURN_WORD: Final = re.compile(r"(?ai)r(?<![A-Za-z0-9_$]r)eturn(?![A-Za-z0-9_$])")

#: A string or quoted name without backslashes (a doubled quote is two of them side by side).
_SIMPLE_QUOTED: Final = re.compile(r"'[^'\\]*'|\"[^\"\\]*\"|`[^`]*`")

#: What may make the text before a RETURN more than plain words and punctuation.
_NOT_PLAIN: Final = re.compile(r"['\"`]|--|/\*")


def _plain_header(text: str) -> bool:
    """Whether the look for non-SQL functions finds nothing to refuse, judged without
    tokenising: the first RETURN in the text is a top-level token (before it, outside simple
    strings and quoted names, nothing but words and punctuation, as many ``(`` as ``)``), and
    before it there is no AS, LANGUAGE other than LANGUAGE SQL, or ``$`` outside those strings.
    A body's ``CAST(x AS INT)`` or a ``LANGUAGE SQL`` clause then costs no tokenising."""
    found = _RETURN_WORD.search(text)
    if found is None:
        return False
    head = _SIMPLE_QUOTED.sub(" ", text[: found.start()])
    return (
        _NOT_PLAIN.search(head) is None
        and head.count("(") == head.count(")")
        and _NOT_SQL_HEAD.search(head) is None
    )


#: In a plain header: what the look for non-SQL functions could refuse (``LANGUAGE SQL`` is
#: the one LANGUAGE it takes: the word SQL follows after spaces).
_NOT_SQL_HEAD: Final = re.compile(
    r"(?ai)(?<![A-Za-z0-9_$])(?:as|language(?!\s+sql(?![A-Za-z0-9_$])))(?![A-Za-z0-9_$])|\$"
)


def _non_sql_reason(tok: ScriptToken, nxt: ScriptToken | None) -> str | None:
    """The refusal reason for a top-level header token; ``""`` at RETURN (the body starts).

    A word is upper-cased once: this runs on every header token of every statement.
    """
    if tok.kind == "dollar":
        return _DOLLAR_BODY
    if tok.kind != "word":
        return None
    word = tok.upper
    if word == "RETURN":
        return ""
    if word == "AS":
        if nxt is not None and nxt.kind == "dollar":
            return _DOLLAR_BODY
        what = f" {nxt.text}" if nxt is not None else ""
        return f"a function implemented by a class (AS{what}) cannot be translated"
    if word == "LANGUAGE" and nxt is not None:
        is_sql = nxt.kind == "word" and nxt.upper == "SQL"
        return None if is_sql else f"a LANGUAGE {nxt.text} function cannot be translated"
    return None


_DOLLAR_BODY: Final = (
    "a function whose body is a $$...$$ block (not a SQL RETURN) cannot be translated"
)


# ---------------------------------------------------------------------------------------------
# CREATE FUNCTION: checks that span clauses, then the IR


class CreateAssembler:
    """Turns the children of ``create_function`` into a :class:`CreateFunction`.

    Kept apart from the Transformer because the checks here (clause order and duplicates,
    flags that Spark refuses together, the return type Iceberg needs) each want a small method.
    """

    def __init__(self, b: Source, children: list[Any]) -> None:
        self.b = b
        assert b.dialect is not None  # set whenever a statement (not a lone type) is parsed
        self.dialect = b.dialect
        self.start: int = children[0].start_pos  # CREATE
        self.flags = {c for c in children if isinstance(c, str) and not isinstance(c, Token)}
        self.name: tuple[Name, ...] = next(c for c in children if isinstance(c, tuple))
        self.params = [c for c in children if isinstance(c, Parameter)]
        self.clauses = [c for c in children if isinstance(c, Clause)]
        body_tok = children[-1]
        self.return_at = children[-2].start_pos
        self.body_text = str(body_tok)
        self.body_at = body_tok.start_pos

    def build(self) -> CreateFunction:
        parts = self.b.function_parts(self.name)
        self.check_flags(parts)
        self.check_params()
        self.check_clauses()
        returns = self.returns_clause()
        return_type, kind = self.return_type(returns)
        by_kind = {c.kind: c for c in self.clauses}
        positions = {"name": self.b.position(self.name[0].offset)}
        positions |= {_POSITION_KEYS[c.kind]: self.b.position(c.offset) for c in self.clauses}
        positions["body"] = body_at = self.b.position(self.body_at)
        body = self.body(kind, body_at)  # a Position is immutable: one for both
        return CreateFunction(
            name=parts,
            parameters=tuple(self.params),
            return_type=return_type,
            body=body,
            dialect=NAME,
            kind=kind,
            doc=by_kind["comment"].value if "comment" in by_kind else None,
            deterministic=self.dialect.deterministic_said(
                by_kind["deterministic"].value if "deterministic" in by_kind else None
            ),
            on_null_input="call" if "called-on-null" in by_kind else None,
            security=by_kind["security"].value.text.upper() if "security" in by_kind else None,
            language=by_kind["language"].value.text.upper() if "language" in by_kind else None,
            data_access=by_kind["data-access"].value if "data-access" in by_kind else None,
            or_replace="OR REPLACE" in self.flags,
            if_not_exists="IF NOT EXISTS" in self.flags,
            temporary="TEMPORARY" in self.flags,
            position=self.b.position(self.start),
            positions=positions,
            warnings=tuple(sorted(self.b.warnings, key=by_offset)),
        )

    def check_flags(self, parts: tuple[str, ...]) -> None:
        """Combinations Spark's parser refuses (INVALID_SQL_SYNTAX.CREATE_*)."""
        at = self.start
        if {"OR REPLACE", "IF NOT EXISTS"} <= self.flags:
            self.b.fail(SqlSyntaxError, "OR REPLACE and IF NOT EXISTS cannot be used together", at)
        if {"TEMPORARY", "IF NOT EXISTS"} <= self.flags:
            self.b.fail(SqlSyntaxError, "CREATE TEMPORARY FUNCTION does not take IF NOT EXISTS", at)
        if "TEMPORARY" in self.flags and len(parts) > 1:
            self.b.fail(
                SqlSyntaxError,
                "a TEMPORARY function cannot be qualified with a schema or catalog",
                self.name[0].offset,
            )

    def check_params(self) -> None:
        """Unique names (case-insensitively, as Spark compares them); DEFAULTs only at the end."""
        seen: set[str] = set()
        after_default: Parameter | None = None
        for p in self.params:
            folded = p.name.lower()
            if folded in seen:
                self.b.fail(
                    SqlSyntaxError,
                    f"duplicate parameter name {p.name!r}",
                    self.b.local_offset(p.position),
                )
            seen.add(folded)
            if p.default is not None:
                after_default = p
            elif after_default is not None:
                self.b.fail(
                    SqlSyntaxError,
                    f"parameter {p.name!r} has no DEFAULT but follows {after_default.name!r}, "
                    "which has one",
                    self.b.local_offset(p.position),
                )

    def check_clauses(self) -> None:
        """Each clause once; only COMMENT before RETURNS; what Spark refuses, refused here."""
        seen: dict[str, Clause] = {}
        returns_seen = False
        for c in self.clauses:
            if c.group in seen:
                self.b.fail(SqlSyntaxError, f"duplicate {c.group} clause", c.offset)
            seen[c.group] = c
            if c.group == "RETURNS":
                returns_seen = True
            elif c.kind == "comment" and not returns_seen:
                self.b.warn(
                    "comment-before-returns",
                    "COMMENT before RETURNS is the Iceberg spec's spelling; Spark itself only "
                    "accepts it after RETURNS",
                    c.offset,
                    lossy=False,
                )
            elif not returns_seen and any(x.group == "RETURNS" for x in self.clauses):
                self.b.fail(
                    SqlSyntaxError, f"{c.group} must come after the RETURNS clause", c.offset
                )
            self.check_refused(c)

    def check_refused(self, c: Clause) -> None:
        """Characteristics Spark's grammar reads but refuses for SQL functions."""
        if c.kind == "returns-null":
            self.b.fail(
                UnsupportedError,
                "Spark does not support RETURNS NULL ON NULL INPUT for SQL functions",
                c.offset,
            )
        if c.kind == "data-access" and c.value in ("MODIFIES SQL DATA", "NO SQL"):
            self.b.fail(
                UnsupportedError, f"Spark does not support {c.value} for SQL functions", c.offset
            )
        if c.kind == "security" and c.value.text.upper() != "DEFINER":
            self.b.fail(
                UnsupportedError,
                f"Spark does not support SQL SECURITY {c.value.text} (only DEFINER)",
                c.offset,
            )
        if c.kind == "language" and c.value.text.upper() != "SQL":
            self.b.fail(
                UnsupportedError,
                f"a LANGUAGE {c.value.text} function cannot be translated: {ONLY_SQL}",
                c.offset,
            )

    def returns_clause(self) -> Clause | None:
        """The RETURNS clause; None when there is none and the type can be asked for."""
        for c in self.clauses:
            if c.group == "RETURNS":
                return c
        if self.b.infer is not None:
            return None
        self.b.fail(
            UnsupportedError,
            "the function has no RETURNS clause: Spark infers the result type, but Iceberg "
            "metadata must declare it; add RETURNS <type> (or RETURNS TABLE (col type, ...))",
            self.return_at,
        )

    def return_type(self, returns: Clause | None) -> tuple[IcebergType, Literal["udf", "udtf"]]:
        if returns is None:
            return self.inferred(table=False, at=self.return_at), "udf"
        if returns.kind == "returns":
            return returns.value.type, "udf"
        columns, table_at = returns.value
        if columns is None and self.b.infer is not None:
            return self.inferred(table=True, at=table_at), "udtf"
        if columns is None:
            self.b.fail(
                UnsupportedError,
                "RETURNS TABLE has no column list: Spark infers the columns, but Iceberg metadata "
                "must declare them; write RETURNS TABLE (col type, ...)",
                table_at,
            )
        seen: set[str] = set()
        for field, offset in columns:
            if field.name.lower() in seen:
                self.b.fail(SqlSyntaxError, f"duplicate result column name {field.name!r}", offset)
            seen.add(field.name.lower())
        try:
            return StructType(f for f, _ in columns), "udtf"
        except TypeParseError as e:  # pragma: no cover - names are checked above
            self.b.fail(UnsupportedError, f"RETURNS TABLE: {e.message}", table_at)

    def inferred(self, *, table: bool, at: int) -> IcebergType:
        """The type Spark derives for the body (``self.b.infer``), noted as a warning."""
        assert self.b.infer is not None
        parameters = [(p.name, p.type) for p in self.params]
        try:
            found = self.b.infer(parameters, self.body_text, table)
        except UnsupportedError as e:
            self.b.fail(UnsupportedError, e.message, at)
        what = "the columns" if table else "the return type"
        self.b.warn(
            "inferred-type",
            f"{what} ({found}) derived by Spark's analysis in the given session: "
            f"the statement does not declare {'them' if table else 'it'}",
            at,
            lossy=False,
        )
        return found

    def body(self, kind: str, at: Position) -> Body:
        body_kind = _body_kind(self.body_text, kind == "udtf", self.dialect.query_words)
        ast, error = parse_body(self.body_text, body_kind, NAME, READ_PARSER)
        return Body(self.body_text, body_kind, at, ast, error)


#: IR ``positions`` keys per clause kind.
_POSITION_KEYS: Final = {
    "comment": "comment",
    "returns": "returns",
    "returns-table": "returns",
    "returns-null": "on-null-input",
    "called-on-null": "on-null-input",
    "language": "language",
    "deterministic": "deterministic",
    "data-access": "data-access",
    "security": "security",
}


#: A body's opening parentheses and first word (compiled once: every statement has a body).
_BODY_START: Final = re.compile(r"\s*(\(*)\s*([A-Za-z_]+)")


def _body_kind(
    text: str, table_function: bool, query_words: frozenset[str]
) -> Literal["expression", "query"]:
    """``query`` for a body that opens with a query word (``RETURN SELECT ...``), else
    ``expression``.

    A parenthesised body is an expression (a scalar subquery) in a scalar function and a query
    in a table function, which is how Spark reads ``RETURN (SELECT ...)`` in each.
    """
    m = _BODY_START.match(text)
    if m is None:
        return "expression"
    if m.group(1):
        return "query" if table_function and m.group(2).upper() in query_words else "expression"
    return "query" if m.group(2).upper() in query_words else "expression"
