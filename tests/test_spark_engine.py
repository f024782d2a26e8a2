"""Emitted Spark DDL on a real Spark: every fixture's function is created and called.

For each valid front-end fixture (Spark and Trino) that compiles and has a Spark form: compile,
emit Spark DDL from the metadata, execute it on the session's Spark, run the fixture's
``-- call:`` lines and compare with their expected results. Trino-sourced fixtures thereby check
that the transpiled Spark body computes what the Trino body does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.spark_results import rows_as_strings
from translator.api import compile_script
from translator.emit import emit_ddl
from translator.errors import UnsupportedError

HEADER = re.compile(r"^-- (call|setup|spark-conf|spark-rejects): (.*)$", re.MULTILINE)


def headers(path: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in HEADER.finditer(path.read_text()):
        out.setdefault(m.group(1), []).append(m.group(2).strip())
    return out


def fixtures_with_calls() -> list[tuple[str, Path]]:
    return [
        (d, p)
        for d in ("spark", "trino")
        for p in sorted((FIXTURES / d / "valid").glob("*.sql"))
        if "call" in headers(p)
    ]


def rendered(rows: list[list[str]]) -> str:
    """Rows as the fixtures write them: columns joined by ``, ``, rows by `` | ``."""
    return " | ".join(", ".join(row) for row in rows)


def expected_text(text: str) -> str:
    """A Trino fixture writes a string result as its SQL literal (``'x'``): compare the value."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def call_sql(call: str) -> str:
    return call if re.match(r"(?i)\s*(SELECT|WITH|FROM)\b", call) else f"SELECT {call}"


@pytest.mark.parametrize(
    ("dialect", "path"), fixtures_with_calls(), ids=lambda x: getattr(x, "stem", x)
)
def test_fixture_functions_run_on_spark(spark: Any, dialect: str, path: Path) -> None:
    h = headers(path)
    result = compile_script(path.read_text(), dialect, file=path.name)
    assert result.errors == [], [str(e) for e in result.errors]
    ddl: list[str] = []
    for key, meta in result.functions.items():
        assert meta is not None
        try:
            ddl += emit_ddl(meta, "spark", tuple(key.split(".")), or_replace=True).ddl
        except UnsupportedError as e:
            pytest.fail(f"a fixture with calls has no Spark form: {e.message}")
    confs = [c.split("=", 1) for c in h.get("spark-conf", [])]
    for k, v in confs:
        spark.conf.set(k, v)
    try:
        for s in h.get("setup", []):
            spark.sql(s)
        for s in ddl:
            spark.sql(s)
        checked = 0
        for line in h["call"]:
            call, _, expected = line.partition(" => ")
            got = rendered(rows_as_strings(spark, call_sql(call)))
            assert got == expected_text(expected), (call, ddl)
            checked += 1
        assert checked == len(h["call"])  # parameter DEFAULTs too: they are kept
    finally:
        for key in result.functions:
            spark.sql(f"DROP FUNCTION IF EXISTS {_spark_name(key)}")
        for k, _ in confs:
            spark.conf.unset(k)


def _spark_name(key: str) -> str:
    return ".".join("`" + p.replace("`", "``") + "`" for p in key.split("."))


HOSTILE = [
    ("'); DROP TABLE victim; --", "f_plain"),
    ("it's \\' a \\\\ test", "we`ird"),
    ('quote " and ` backquote; DROP TABLE victim', "se lect"),
]


@pytest.mark.parametrize(("doc", "name"), HOSTILE)
def test_hostile_docs_and_names_are_inert_on_spark(spark: Any, doc: str, name: str) -> None:
    """Emitted DDL with a hostile doc and name creates exactly one function and drops nothing."""
    from tests.test_emit import _hostile

    spark.sql("CREATE TABLE IF NOT EXISTS victim (x INT) USING parquet")
    # A backslash in a parameter doc is lossy on Spark (its catalog drops it): allowed here.
    ddl = emit_ddl(_hostile(doc, "p"), "spark", (name,), allow_lossy=True).ddl
    assert len(ddl) == 1
    try:
        spark.sql(ddl[0])
        assert rows_as_strings(spark, f"SELECT {_spark_name(name)}(1)") == [["1"]]
        described = " ".join(
            r[0] for r in spark.sql(f"DESCRIBE FUNCTION EXTENDED {_spark_name(name)}").collect()
        )
        assert "DROP TABLE victim" not in doc or "DROP TABLE victim" in described
        assert spark.catalog.tableExists("victim")
    finally:
        spark.sql(f"DROP FUNCTION IF EXISTS {_spark_name(name)}")
