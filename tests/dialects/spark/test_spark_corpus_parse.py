"""Real-world Spark / Databricks function DDL (shared/corpus/spark.jsonl) through the front end.

What holds (asserted below, figures as of this corpus):

- every SQL record Spark accepted parses, except the 8 that give no return type (Spark infers it,
  Iceberg metadata needs it): those are refused with an UnsupportedError asking for RETURNS;
- every Python or class-based record is refused with the only-SQL reason, except one whose
  ``$foo$ ... $$`` body never closes, which cannot even be split into statements;
- of the 15 SQL records Spark rejected, the 8 it rejects while parsing are rejected here too; the
  other 7 fail in Spark's analyzer (unresolved columns, bad subqueries), which a front end cannot
  see, and parse here;
- the 34 SQL records no engine was seen to run (Databricks docs and test fixtures) all parse
  except 7 refused for a known reason (no return type, or an INTERVAL parameter);
- where a record is tagged ``return_query`` / ``return_expression`` the body kind agrees.

``test_corpus_report`` prints the whole table (run with ``-s``).
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

import pytest

from tests.dialects import harness
from translator.dialects.spark import ONLY_SQL
from translator.errors import SqlSyntaxError, TranslatorError, UnsupportedError
from translator.frontend import ParsedScript, parse_script
from translator.ir import CreateFunction

CORPUS = harness.corpus_path("spark")

pytestmark = pytest.mark.skipif(not CORPUS.exists(), reason=f"no corpus at {CORPUS}")

#: Accepted by Spark, which infers the result type; Iceberg metadata needs it declared.
NEEDS_RETURN_TYPE = {
    "spark_sqludf_foo1_11e", "spark_sqludf_foo1_11f", "spark_sqludf_foo1_11g",
    "spark_sqludf_foo1_11h", "spark_sqludf_foo1_11i", "spark_sqludf_foo1_11j",
    "spark_sqludf_foo1_11k", "spark_sqludf_foo1_11o",
}  # fmt: skip

#: Rejected by Spark's parser (or its parse-time checks): rejected here too.
SPARK_PARSE_REJECTS = {
    "spark_sqludf_foo1e1",  # NOT NULL parameter
    "spark_sqludf_foo1e3",  # NOT NULL result column
    "spark_sqludf_foo1f1",  # GENERATED ALWAYS AS parameter
    "spark_sqludf_foo1f2",  # GENERATED ALWAYS AS IDENTITY parameter
    "spark_sqludf_foo2b1",  # duplicate result columns (case-insensitive)
    "spark_parsersuite_temp_if_not_exists",
    "spark_parsersuite_no_sql_contains_sql",
    "spark_parsersuite_returns_null_on_null_input",
}

#: A Python record whose dollar-quoted body never closes ($foo$ ... $$): a lexical error.
UNSPLITTABLE = {"sqlglot_databricks_python_mismatched_tag"}


@cache
def records() -> list[dict[str, Any]]:
    return harness.corpus("spark")


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in rows]


def select(kind: str | None = None, accepts: object = "any") -> list[dict[str, Any]]:
    return [
        r
        for r in records()
        if (kind is None or r["kind"] == kind)
        and (accepts == "any" or r["engine_accepts"] is accepts)
    ]


def parse(record: dict[str, Any]) -> ParsedScript:
    return parse_script(record["sql"], "spark", file=record["id"])


def outcome(record: dict[str, Any]) -> str:
    result = parse(record)
    if not result.errors:
        return "ok"
    err = result.errors[0]
    return f"{type(err).__name__}: {err.message}"


ACCEPTED_SQL = select("sql", True)


@pytest.mark.parametrize("record", ACCEPTED_SQL, ids=ids(ACCEPTED_SQL))
def test_accepted_sql_parses(record: dict[str, Any]) -> None:
    result = parse(record)
    if record["id"] in NEEDS_RETURN_TYPE:
        [err] = result.errors
        assert isinstance(err, UnsupportedError)
        assert "RETURNS" in err.message and "Iceberg metadata must declare" in err.message
        return
    assert not result.errors, [str(e) for e in result.errors]
    [stmt] = result.statements
    assert isinstance(stmt, CreateFunction)
    check_body_kind(record, stmt)


def check_body_kind(record: dict[str, Any], stmt: CreateFunction) -> None:
    features = set(record.get("features") or ())
    if "return_query" in features:
        assert stmt.body.kind == "query"
    if "return_expression" in features:
        assert stmt.body.kind == "expression"


NOT_SQL = [r for r in records() if r["kind"] in ("python", "class")]


@pytest.mark.parametrize("record", NOT_SQL, ids=ids(NOT_SQL))
def test_python_and_class_functions_are_refused(record: dict[str, Any]) -> None:
    result = parse(record)
    [err] = result.errors
    assert not result.statements
    if record["id"] in UNSPLITTABLE:
        assert isinstance(err, SqlSyntaxError) and "unterminated $$ body" in err.message
        return
    assert isinstance(err, UnsupportedError)
    assert err.message.endswith(ONLY_SQL)


REJECTED_SQL = select("sql", False)


@pytest.mark.parametrize("record", REJECTED_SQL, ids=ids(REJECTED_SQL))
def test_rejected_sql(record: dict[str, Any]) -> None:
    """Parse-time rejections are ours too; analysis-time ones cannot be seen from the text."""
    result = parse(record)
    if record["id"] in SPARK_PARSE_REJECTS:
        [err] = result.errors
        assert isinstance(err, SqlSyntaxError | UnsupportedError)
        assert err.position is not None
    else:
        assert not result.errors, [str(e) for e in result.errors]


UNKNOWN_SQL = select("sql", None)


@pytest.mark.parametrize("record", UNKNOWN_SQL, ids=ids(UNKNOWN_SQL))
def test_unrun_sql_parses_or_is_refused_for_a_known_reason(record: dict[str, Any]) -> None:
    result = parse(record)
    for err in result.errors:
        assert isinstance(err, UnsupportedError), str(err)
        assert "Iceberg metadata must declare" in err.message or "INTERVAL" in err.message
    for stmt in result.statements:
        if isinstance(stmt, CreateFunction):
            check_body_kind(record, stmt)


def test_corpus_report() -> None:
    """How every record fares, as a table and as pinned counts."""
    table: Counter[tuple[str, object, str]] = Counter()
    for r in records():
        result = outcome(r)
        table[(r["kind"], r["engine_accepts"], result.split(":")[0])] += 1
    print("\nkind    engine_accepts  outcome            records")
    for (kind, accepts, result), n in sorted(table.items(), key=str):
        print(f"{kind:7} {accepts!s:15} {result:18} {n}")
    assert table == {
        ("sql", True, "ok"): 69,
        ("sql", True, "UnsupportedError"): 8,
        ("sql", False, "ok"): 7,
        ("sql", False, "SqlSyntaxError"): 6,
        ("sql", False, "UnsupportedError"): 2,
        ("sql", None, "ok"): 27,
        ("sql", None, "UnsupportedError"): 7,
        ("python", None, "UnsupportedError"): 31,
        ("python", None, "SqlSyntaxError"): 1,
        ("class", None, "UnsupportedError"): 7,
    }


def test_no_record_crashes() -> None:
    for r in records():
        result = parse(r)
        assert all(isinstance(e, TranslatorError) for e in result.errors)
