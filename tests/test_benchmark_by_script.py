"""benchmarks/by_script.py: the kinds a script is put under, the table its figures make, and a
small run of the tool itself in a process of its own (it loads pure-Python sqlglot)."""

from __future__ import annotations

import json
import subprocess
import sys

from benchmarks.by_script import Script, kinds_of, table
from tests.conftest import ROOT

COMPOUND = """CREATE FUNCTION f(n bigint) RETURNS bigint
BEGIN
  DECLARE r bigint DEFAULT 1;
  RETURN r;
END;"""


def test_a_script_is_put_under_every_kind_it_holds() -> None:
    assert kinds_of(COMPOUND, "trino") == ("compound",)
    assert kinds_of(COMPOUND, "spark") == ("plain",)  # BEGIN is no Spark body
    table_fn = "CREATE FUNCTION t() RETURNS TABLE (a INT) RETURN SELECT a FROM (SELECT 1 AS a)"
    assert kinds_of(table_fn, "spark") == ("table", "subquery")
    assert kinds_of("CREATE FUNCTION f(a ARRAY<INT>) RETURN transform(a, x -> x)", "spark") == (
        "lambda",
    )
    many = "CASE " + " ".join(f"WHEN x = {i} THEN {i}" for i in range(16)) + " END"
    assert kinds_of(f"CREATE FUNCTION f(x INT) RETURNS INT RETURN {many}", "spark") == ("big case",)
    assert kinds_of("CREATE FUNCTION f(x INT) RETURNS INT RETURN x", "spark") == ("plain",)


def test_the_table_sums_own_time_by_dialect_and_kind() -> None:
    scripts = [
        Script("trino_1.sql", "trino", 2, ("compound",), 0.010, 0.001),
        Script("spark_1.sql", "spark", 4, ("plain",), 0.004, 0.002),
        Script("spark_2.sql", "spark", 1, ("table", "subquery"), 0.002, 0.001),
    ]
    out = table(scripts, top=2)
    assert out.startswith("3 scripts, 7 statements: compile 0.02 s of CPU, our own 0.01 s")
    rows = [line for line in out.splitlines() if line.startswith("| trino") or "| spark |" in line]
    # the compound script's 9 ms of 12 ms own time come first
    assert rows[0] == "| trino | compound | 1 | 2 | 75.0% | 4500 | 62.5% |"
    assert "| spark | plain | 1 | 4 | 16.7% | 500 | 25.0% |" in rows
    assert "| trino_1.sql | compound | 2 | 10.0 | 1.0 | 4500 |" in out
    assert "spark_1.sql" not in out.split("The most a statement:")[1]  # only the top 2


def test_the_tool_runs_on_a_small_corpus() -> None:
    args = ["--statements", "40", "--repeat", "1", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.by_script", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    scripts = json.loads(done.stdout)
    assert sum(s["statements"] for s in scripts) >= 40
    assert all(s["compile"] > 0 and s["floor"] >= 0 and s["kinds"] for s in scripts)
