"""Spark's own SQL-function tests, through Iceberg metadata and back, on a real Spark.

Every SQL-bodied statement of ``shared/corpus/spark.jsonl`` that Spark accepted is compiled into
Iceberg metadata, emitted back as Spark DDL, executed (after its ``setup`` views), and its
recorded ``calls`` are run and compared with ``expected``. Statements run in corpus order in one
database, since later ones call earlier ones. Every record that does not round-trip is listed in
:data:`EXPLAINED` with the reason; the test fails on any record that is not where this file says.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.conftest import SHARED
from tests.spark_results import error_class, rows_as_strings
from translator.api import compile_script
from translator.emit import emit_ddl
from translator.errors import TranslatorError

CORPUS = SHARED / "corpus" / "spark.jsonl"

#: Records that do not round-trip, each with the reason (checked against what happens).
_ANSI = (
    "created under spark.sql.ansi.enabled=false: Spark captures session settings with a SQL "
    "function, Iceberg metadata cannot hold them, and the session here runs ANSI (Spark 4's "
    "default), so 1 / 0 raises DIVIDE_BY_ZERO instead of returning NULL"
)


def _missing(what: str) -> str:
    return f"depends on {what}, which no Spark-accepted SQL record of the corpus defines"


#: Records that do not round-trip, each with the reason (checked against what happens).
EXPLAINED: dict[str, str] = {
    "spark_sqludf_foo1d5_v1": _missing("foo1d4, which its DEFAULT calls"),
    "spark_sqludf_foo1d5_v2": _missing("foo1d4 (its records are not SQL-accepted ones)"),
    "spark_sqludf_foo9c": (
        "RETURNS SHORT: Iceberg has no 16-bit integer, so the return type becomes int (reported "
        "as lossy-type at compile) and the result no longer overflows with CAST_OVERFLOW"
    ),
    "spark_sqludf_foo3_1b": _missing("foo3_1a"),
    "spark_sqludf_foo3_1c": _missing("foo3_1d"),
    "spark_sqludf_foo3_3at_v2": _ANSI,
    "spark_sqludf_foo3_3b_v2": _ANSI,
    "spark_sqludf_foo4_1": _missing("the table function foo4_2"),
    "spark_docs_square": _missing("area(x, y) of the docs (the corpus has no such record)"),
    "spark_docs_roll_dice": "calls rand(): the documented result 3 was one roll of the dice",
    "spark_sqlfunctionsuite_area": "its call reads a table t that the record's setup lacks",
    "spark_sqlfunctionsuite_test_lower_udf": (
        "the expected error class comes from a newer Spark "
        "(UNSUPPORTED_FEATURE.LAMBDA_FUNCTION_WITH_SQL_UDF); Spark 4.1.1 fails the same call "
        "with MISSING_ATTRIBUTES (4.3 with the expected one)"
    ),
    "spark_sqlfunctionsuite_bar_reads_nondet": _missing("the table function foo()"),
    "spark_sqlfunctionsuite_frozen_fn": "its body reads a table that the record's setup lacks",
    "spark_sqlfunctionsuite_f_scalar_ctx": _missing("the helper functions of its test's schema"),
    "spark_sqlfunctionsuite_f_table_ctx": _missing("the helper functions of its test's schema"),
    "spark_sqlpath_pick": (
        "its call relies on Spark's SQL PATH setting to find sql_path_routines.pick unqualified; "
        "the session here has the default path"
    ),
}


#: Records in EXPLAINED that round-trip on Spark 4.3 (the version pyproject pins): Spark 4.1
#: lacks what their calls use (the helper functions' context, 4.3's error class for a SQL UDF in
#: a lambda). The suite runs on either.
BEFORE_SPARK_4_3 = {
    "spark_sqlfunctionsuite_f_scalar_ctx",
    "spark_sqlfunctionsuite_f_table_ctx",
    "spark_sqlfunctionsuite_test_lower_udf",
}


def _explained() -> dict[str, str]:
    import pyspark

    major, minor = (int(x) for x in pyspark.__version__.split(".")[:2])
    if (major, minor) >= (4, 3):
        return {k: v for k, v in EXPLAINED.items() if k not in BEFORE_SPARK_4_3}
    return EXPLAINED


#: Records whose result is random: one of six rolls matches the documented one.
RANDOM = {"spark_docs_roll_dice"}


@dataclass
class Outcome:
    id: str
    status: str  # "ok", "compile-refused", "emit-refused", "spark-refused", "call-mismatch"
    detail: str = ""
    calls: int = 0
    matched: int = 0
    notes: list[str] = field(default_factory=list)


def accepted_records() -> list[dict[str, Any]]:
    records = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    records = [r for r in records if r["kind"] == "sql" and r["engine_accepts"] is True]
    return sorted(records, key=lambda r: r["seq"])


def _matches(spark: Any, sql: str, expected: str | None) -> tuple[bool, str]:
    try:
        rows = rows_as_strings(spark, sql, nested_as_json=True)
    except Exception as e:  # Spark's error is the result being compared
        got = f"ERROR: {error_class(e)}"
        if expected is not None and expected.startswith("ERROR: "):
            want = expected.removeprefix("ERROR: ")
            return got.removeprefix("ERROR: ").startswith(want.split(".")[0]), got
        return False, got + f" ({str(e).splitlines()[0][:160]})"
    lines = ["\t".join(r) for r in rows]
    if expected is not None and not re.search(r"(?i)\bORDER\s+BY\b", sql):
        # Spark's golden-file suite sorts the rows of a query without ORDER BY; so do we.
        want = expected.split("\n") if expected else []
        return sorted(lines) == sorted(want), "\n".join(lines)
    return expected is None or "\n".join(lines) == expected, "\n".join(lines)


def run_record(spark: Any, r: dict[str, Any]) -> Outcome:
    result = compile_script(r["sql"], "spark", spark=spark)
    if result.errors:
        return Outcome(r["id"], "compile-refused", result.errors[0].message)
    ddl: list[str] = []
    for key, meta in result.functions.items():
        if meta is None:
            continue
        try:
            ddl += emit_ddl(meta, "spark", tuple(key.split(".")), or_replace=True).ddl
        except TranslatorError as e:
            return Outcome(r["id"], "emit-refused", e.message)
    for view in r.get("setup") or []:
        spark.sql(view.replace("CREATE VIEW", "CREATE OR REPLACE VIEW", 1))
    for key in result.functions:
        parts = key.split(".")
        if len(parts) > 1:  # the schema a qualified name lives in must exist, as in Spark's tests
            spark.sql(f"CREATE DATABASE IF NOT EXISTS `{parts[-2]}`")
    for s in ddl:
        try:
            spark.sql(s)
        except Exception as e:
            return Outcome(r["id"], "spark-refused", f"{error_class(e)}: {s}")
    out = Outcome(r["id"], "ok", calls=len(r["calls"]))
    for call in r["calls"]:
        ok, got = _matches(spark, call["sql"], call.get("expected"))
        if ok:
            out.matched += 1
        else:
            out.status = "call-mismatch"
            out.notes.append(f"{call['sql']} -> {got!r}, expected {call.get('expected')!r}")
    return out


@pytest.fixture(scope="module")
def outcomes(spark: Any) -> list[Outcome]:
    spark.sql("CREATE DATABASE IF NOT EXISTS iceberg_udf_corpus")
    spark.sql("USE iceberg_udf_corpus")
    try:
        return [run_record(spark, r) for r in accepted_records()]
    finally:
        spark.sql("USE default")
        spark.sql("DROP DATABASE IF EXISTS iceberg_udf_corpus CASCADE")


def test_corpus_round_trip_share(
    outcomes: list[Outcome], capsys: pytest.CaptureFixture[str]
) -> None:
    ok = [o for o in outcomes if o.status == "ok"]
    with capsys.disabled():
        print(f"\nSpark corpus round trip: {len(ok)}/{len(outcomes)} records")
        for o in outcomes:
            if o.status != "ok":
                print(f"  {o.id}: {o.status}: {o.detail or '; '.join(o.notes)}"[:300])
    unexplained = {o.id: f"{o.status}: {o.detail or o.notes}" for o in outcomes if o.status != "ok"}
    explained = _explained()
    unexplained = {k: v for k, v in unexplained.items() if k not in explained}
    assert unexplained == {}
    stale = set(explained) - {o.id for o in outcomes if o.status != "ok"} - RANDOM
    assert stale == set(), "these records now round-trip: remove them from EXPLAINED"
