"""Trino's routine analyzer, redone (``routines.analyzer``), against Trino's verdicts.

Every SQL record of the Trino corpus: one Trino accepted must pass; one Trino rejected must be
rejected with Trino's message, and with its code and position where the corpus has them. The
records nothing shows Trino ran are pinned one by one. Then the rules the corpus does not cover.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.conftest import SHARED
from translator.dialects.trino.routines import analyze
from translator.errors import SqlSyntaxError

CORPUS = SHARED / "corpus" / "trino.jsonl"
RECORDS: list[dict[str, Any]] = (
    [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    if CORPUS.exists()
    else []
)
pytestmark = pytest.mark.skipif(not RECORDS, reason=f"no corpus at {CORPUS}")

SQL = [r for r in RECORDS if r["kind"] == "sql"]
ACCEPTED = [r for r in SQL if r["engine_accepts"] is True]
REJECTED = [r for r in SQL if r["engine_accepts"] is False]
UNKNOWN = [r for r in SQL if r["engine_accepts"] is None]

#: Records nothing shows Trino ran, and what the analyzer says of them (None: accepted).
UNKNOWN_VERDICTS = {
    # NOT DETERMINISTIC on a constant body: the corpus note expects Trino's rejection.
    "sqlglot_trino_f_L230": "INVALID_ARGUMENTS: line 1:8: Deterministic function declared "
    "NOT DETERMINISTIC",
    # The docs' REPEAT without UNTIL: Trino's grammar rejects it, and so does ours.
    "trino_docs_iterate_count": "syntax error",
}

_TRINO_ERROR = re.compile(
    r"^(?:(?P<code>[A-Z_]+): )?(?:line (?P<line>\d+):(?P<col>\d+): )?(?P<msg>.*)$"
)


def _ids(records: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in records]


def _inline(record: dict[str, Any]) -> bool:
    """A routine Trino saw as an inline WITH FUNCTION (where SECURITY is refused)."""
    return (record.get("original") or "").lstrip().upper().startswith("WITH")


def _shift(record: dict[str, Any]) -> int:
    """Columns the corpus added on line 1: Trino's positions count in the original text."""
    original = record.get("original")
    if original and record["sql"] == "CREATE " + original:
        return len("CREATE ")
    return 0


def verdict(record: dict[str, Any]) -> str | None:
    try:
        problem = analyze(record["sql"], inline=_inline(record))
    except SqlSyntaxError:
        return "syntax error"
    return None if problem is None else str(problem)


@pytest.mark.parametrize("record", ACCEPTED, ids=_ids(ACCEPTED))
def test_routines_trino_accepted_pass(record: dict[str, Any]) -> None:
    assert verdict(record) is None


@pytest.mark.parametrize("record", REJECTED, ids=_ids(REJECTED))
def test_routines_trino_rejected_are_rejected_with_its_message(record: dict[str, Any]) -> None:
    problem = analyze(record["sql"], inline=_inline(record))
    assert problem is not None
    # Some records list two reasons ("A / B"): Trino reports the first it meets, either one;
    # a note in parentheses after the message is the corpus's, not Trino's.
    expected = [_TRINO_ERROR.match(e.strip()) for e in record["error"].split(" / ")]
    matches = [
        m
        for m in expected
        if m is not None and re.sub(r" \(per .*\)$", "", m.group("msg")) == problem.message
    ]
    assert matches, (str(problem), record["error"])
    m = matches[0]
    if m.group("code"):
        assert problem.code == m.group("code")
    if m.group("line"):
        p = problem.position
        column = p.column - (_shift(record) if p.line == 1 else 0)
        assert (p.line, column) == (int(m.group("line")), int(m.group("col")))


@pytest.mark.parametrize("record", UNKNOWN, ids=_ids(UNKNOWN))
def test_routines_nothing_shows_trino_ran(record: dict[str, Any]) -> None:
    assert verdict(record) == UNKNOWN_VERDICTS.get(record["id"])


def test_corpus_figures() -> None:
    """Every accepted record passes, every rejected one is rejected (tests above)."""
    assert (len(ACCEPTED), len(REJECTED), len(UNKNOWN)) == (61, 35, 21)
    assert set(UNKNOWN_VERDICTS) <= {r["id"] for r in UNKNOWN}


# ---------------------------------------------------------------------------------------------
# Rules the corpus does not show


def _check(body: str, header: str = "CREATE FUNCTION f(p bigint) RETURNS bigint") -> str | None:
    problem = analyze(f"{header}\n{body}")
    return None if problem is None else str(problem)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # A nested block may not redeclare a variable of an enclosing one.
        (
            "BEGIN\n  DECLARE x int;\n  BEGIN\n    DECLARE x int;\n  END;\n  RETURN 1;\nEND",
            "ALREADY_EXISTS: line 5:13: Variable already declared in this scope: x",
        ),
        # ...nor a parameter.
        (
            "BEGIN\n  DECLARE p int;\n  RETURN 1;\nEND",
            "ALREADY_EXISTS: line 3:11: Variable already declared in this scope: p",
        ),
        # A variable of a block is not known after it.
        (
            "BEGIN\n  BEGIN\n    DECLARE x int DEFAULT 1;\n  END;\n  RETURN x;\nEND",
            "COLUMN_NOT_FOUND: line 6:10: Column 'x' cannot be resolved",
        ),
        # Labels: reusable one after another (the docs' test()), not nested.
        (
            "BEGIN\n  a: LOOP LEAVE a; END LOOP;\n  a: LOOP LEAVE a; END LOOP;\n  RETURN 1;\nEND",
            None,
        ),
        (
            "BEGIN\n  a: LOOP\n    LEAVE b;\n  END LOOP;\n  RETURN 1;\nEND",
            "NOT_FOUND: line 4:11: Label not defined: b",
        ),
        # Types of DEFAULT and SET values.
        (
            "BEGIN\n  DECLARE x boolean DEFAULT 1.5e0;\n  RETURN 1;\nEND",
            "TYPE_MISMATCH: line 3:29: Value of DEFAULT must evaluate to boolean (actual: double)",
        ),
        (
            "BEGIN\n  DECLARE x bigint;\n  SET x = 'a';\n  RETURN x;\nEND",
            "TYPE_MISMATCH: line 4:11: Value of SET 'x' must evaluate to bigint "
            "(actual: varchar(1))",
        ),
        (
            "BEGIN\n  REPEAT SET p = p + 1; UNTIL 1 END REPEAT;\n  RETURN p;\nEND",
            "TYPE_MISMATCH: line 3:31: Condition of REPEAT statement must evaluate to boolean "
            "(actual: integer)",
        ),
        # A query anywhere, not only in a RETURN.
        (
            "BEGIN\n  IF EXISTS (SELECT 1) THEN RETURN 1; END IF;\n  RETURN 2;\nEND",
            "NOT_SUPPORTED: line 3:13: Queries are not allowed in functions",
        ),
        # The last statement, not every path, must be a RETURN.
        (
            "BEGIN\n  IF p > 0 THEN RETURN 1; ELSE RETURN 2; END IF;\nEND",
            "MISSING_RETURN: line 2:1: Function must end in a RETURN statement",
        ),
        # Widening is implicit; an unknown function's result is not judged.
        ("BEGIN\n  DECLARE x double DEFAULT p;\n  RETURN my_udf(x);\nEND", None),
    ],
)
def test_rules(body: str, expected: str | None) -> None:
    assert _check(body) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            "CREATE FUNCTION f() RETURNS int COMMENT 'a' COMMENT 'b'",
            "SYNTAX_ERROR: line 1:8: Multiple comment clauses specified",
        ),
        (
            "CREATE FUNCTION f() RETURNS int SECURITY DEFINER SECURITY INVOKER",
            "SYNTAX_ERROR: line 1:8: Multiple security clauses specified",
        ),
        (
            "CREATE FUNCTION f(x int, x int) RETURNS int",
            "INVALID_ARGUMENTS: line 1:26: Duplicate function parameter name: x",
        ),
        ("CREATE FUNCTION f() RETURNS int SECURITY DEFINER", None),
        ("CREATE FUNCTION f() RETURNS double NOT DETERMINISTIC", None),
    ],
)
def test_clauses(header: str, expected: str | None) -> None:
    body = "RETURN random()" if "double" in header else "RETURN 1"
    assert _check(body, header) == expected
