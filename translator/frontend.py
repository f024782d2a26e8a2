"""Script -> statements: split, classify, hand function DDL to the dialect, keep going on errors."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from itertools import islice

from translator.collector import spaced_collections
from translator.dialects import get_dialect
from translator.dialects.base import TypeInference
from translator.errors import SqlSyntaxError, TranslatorError, position_at
from translator.invisible import insignificant_pattern, invisible_character
from translator.ir import SkippedStatement, Statement
from translator.script import StatementText
from translator.statement_cache import parse_statement, split_statements

__all__ = ["ParsedScript", "is_function_ddl", "parse_script"]


@dataclass(slots=True)
class ParsedScript:
    """Every statement that parsed, in order, and every error; one bad statement stops nothing."""

    statements: list[Statement] = field(default_factory=list)
    errors: list[TranslatorError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


@cache
def _function_ddl() -> re.Pattern[str]:
    """CREATE or DROP, at most three of OR, REPLACE, TEMPORARY, TEMP, then FUNCTION: each a
    whole word (ASCII, any case, as the splitter's words are), separated by spaces, comments or
    invisible characters."""
    gap = insignificant_pattern()
    return re.compile(
        rf"(?ai:create|drop)(?:{gap}(?ai:or|replace|temporary|temp)){{0,3}}"
        rf"{gap}(?ai:function)(?![A-Za-z0-9_$])"
    )


def is_function_ddl(stmt: StatementText) -> bool:
    """``CREATE [OR REPLACE] [TEMPORARY] FUNCTION`` or ``DROP [TEMPORARY] FUNCTION``: the first
    word CREATE or DROP, and FUNCTION among the next four words, after modifiers only.

    A regular expression on the text (which starts at its first word): every statement of a
    script is asked, and making its first tokens costs more than the answer.
    """
    return _function_ddl().match(stmt.text) is not None


@spaced_collections()
def parse_script(
    sql: str, dialect: str, *, file: str | None = None, infer: TypeInference | None = None
) -> ParsedScript:
    """Parse every statement of ``sql``. Statements that are not function DDL are skipped.
    ``infer``: asked for the types a statement leaves to the engine (Spark without RETURNS)."""
    d = get_dialect(dialect)
    result = ParsedScript()
    try:
        pieces = split_statements(sql, d.lexical, file=file)
    except TranslatorError as e:
        result.errors.append(e.without_frames())
        return result
    for piece in pieces:
        if not is_function_ddl(piece):
            words = islice(piece.iter_words(), 2)
            head = " ".join(t.upper for t in words if t.kind == "word") or piece.text[:20]
            result.statements.append(
                SkippedStatement(piece.text, f"not function DDL ({head})", piece.position)
            )
            continue
        hidden = piece.first_invisible()
        if hidden is not None:
            # Ignored between statements; inside one, a reader cannot see what the engine reads.
            at = position_at(piece.text, hidden.start, base=piece.position)
            line = piece.text.splitlines()[at.line - piece.position.line] if piece.text else ""
            result.errors.append(
                SqlSyntaxError(
                    f"invisible character {invisible_character(hidden.text)} in the statement: "
                    "remove it (it is allowed only inside strings and comments)",
                    at,
                    source_line=line if at.line == piece.position.line else None,
                )
            )
            continue
        try:
            result.statements.append(parse_statement(d, piece, infer))
        except TranslatorError as e:
            result.errors.append(e.without_frames())
    return result
