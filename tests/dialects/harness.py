"""What the dialects' test modules share: their fixtures and corpus, parsing a script, and the
checks every front end must pass (a lone CREATE FUNCTION, never a crash on any input)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES, SHARED
from translator.errors import TranslatorError
from translator.frontend import ParsedScript, parse_script
from translator.ir import CreateFunction

__all__ = [
    "check_never_crashes",
    "corpus",
    "corpus_path",
    "fixtures",
    "only_function",
    "parse",
]


def fixtures(dialect: str, kind: str) -> list[Path]:
    """``fixtures/<dialect>/<kind>/*.sql`` (kind: ``valid`` or ``invalid``), sorted."""
    return sorted((FIXTURES / dialect / kind).glob("*.sql"))


def corpus_path(dialect: str) -> Path:
    """The shared corpus of real function DDL for ``dialect`` (it may be absent)."""
    return SHARED / "corpus" / f"{dialect}.jsonl"


def corpus(dialect: str) -> list[dict[str, Any]]:
    """The corpus records of ``dialect``, or none if the corpus is absent."""
    path = corpus_path(dialect)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def parse(sql: str, dialect: str, file: str | None = None) -> ParsedScript:
    return parse_script(sql, dialect, file=file)


def only_function(sql: str, dialect: str) -> CreateFunction:
    """The single CREATE FUNCTION of ``sql``, failing on any error."""
    parsed = parse(sql, dialect)
    assert parsed.errors == [], [str(e) for e in parsed.errors]
    (stmt,) = parsed.statements
    assert isinstance(stmt, CreateFunction)
    return stmt


def check_never_crashes(sql: str, dialect: str) -> None:
    """Any text parses to statements and positioned errors: nothing else is raised, and every
    error and statement can be shown."""
    parsed = parse(sql, dialect, "fuzz.sql")
    for err in parsed.errors:
        assert isinstance(err, TranslatorError)
        assert str(err)  # formatting an error never fails either
    for stmt in parsed.statements:
        stmt.to_dict()
