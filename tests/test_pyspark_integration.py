"""translator.spark on a real local Spark: functions registered from a warehouse, and Spark
compiling a DataFrame of DDL texts with the same results as the single-process path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from translator.api import compile_script
from translator.errors import UnsupportedError
from translator.spark import compile_dataframe, register_functions, row_context
from translator.warehouse import Warehouse, WarehouseError

T0 = 1_750_000_000_000


def _warehouse(tmp_path: Path) -> Warehouse:
    wh = Warehouse(tmp_path / "wh")
    wh.apply(
        "CREATE FUNCTION pipe_add(x INT) RETURNS INT COMMENT 'v1' RETURN x + 1", "spark"
    ).raise_for_errors()
    return wh


def test_importing_translator_does_not_import_pyspark() -> None:
    code = (
        "import sys, translator, translator.api, translator.cli, translator.spark;"
        "assert 'pyspark' not in sys.modules, 'pyspark was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_register_current_versions_and_as_of(spark: Any, tmp_path: Path) -> None:
    wh = _warehouse(tmp_path)
    first = wh.load("pipe_add").metadata.definition_log[-1].timestamp_ms
    wh.apply(
        "CREATE OR REPLACE FUNCTION pipe_add(x INT) RETURNS INT RETURN x + 100", "spark"
    ).raise_for_errors()
    wh.apply(
        "CREATE FUNCTION pipe_loop(n bigint) RETURNS bigint BEGIN DECLARE i bigint DEFAULT 0; "
        "WHILE i < n DO SET i = i + 1; END WHILE; RETURN i; END",
        "trino",
    ).raise_for_errors()
    wh.apply(
        "CREATE FUNCTION pipe_div(a decimal(10,2), b decimal(10,2)) RETURNS decimal(10,2) "
        "RETURN a / b",
        "trino",
    ).raise_for_errors()
    try:
        reg = register_functions(spark, tmp_path / "wh")
        # A compound Trino body is lowered to one Spark expression.
        assert reg.created == ["default.pipe_add", "default.pipe_loop"]
        # A Trino body with no Spark form: reported, never skipped silently.
        assert "default.pipe_div" in reg.failed
        assert "decimal division" in reg.failed["default.pipe_div"]
        assert spark.sql("SELECT default.pipe_add(1)").collect()[0][0] == 101
        assert spark.sql("SELECT default.pipe_loop(5)").collect()[0][0] == 5

        old = register_functions(spark, wh, names=["pipe_add"], as_of=first)
        assert old.created == ["pipe_add"] and not old.failed
        assert spark.sql("SELECT default.pipe_add(1)").collect()[0][0] == 2
    finally:
        spark.sql("DROP FUNCTION IF EXISTS default.pipe_add")
        spark.sql("DROP FUNCTION IF EXISTS default.pipe_loop")


def test_register_refuses_what_it_cannot_find(spark: Any, tmp_path: Path) -> None:
    """A mistyped path or name is an error, never an empty registration; one name is a name."""
    with pytest.raises(WarehouseError, match=r"no warehouse at .*nope: not a folder"):
        register_functions(spark, tmp_path / "nope")
    _warehouse(tmp_path)
    with pytest.raises(WarehouseError, match=r"default\.nope does not exist"):
        register_functions(spark, tmp_path / "wh", ["nope"])
    meta = compile_script("CREATE FUNCTION one_name() RETURNS INT RETURN 1", "spark").metadata
    with pytest.raises(ValueError, match="no metadata for 'other' in the mapping"):
        register_functions(spark, {"one_name": meta}, ["other"])
    try:
        reg = register_functions(spark, {"one_name": meta}, "one_name")
        assert reg.created == ["one_name"] and not reg.failed
    finally:
        spark.sql("DROP FUNCTION IF EXISTS one_name")


def test_register_from_metadata_mapping(spark: Any) -> None:
    meta = compile_script(
        "CREATE FUNCTION mapped_twice(x DOUBLE) RETURNS DOUBLE RETURN x * 2", "spark"
    ).metadata
    try:
        reg = register_functions(spark, {"mapped_twice": meta})
        assert reg.created == ["mapped_twice"]
        assert spark.sql("SELECT mapped_twice(2.5)").collect()[0][0] == 5.0
    finally:
        spark.sql("DROP FUNCTION IF EXISTS mapped_twice")


def test_register_never_lets_one_overload_replace_another(spark: Any) -> None:
    """The spec's add_one (int and float): Spark has no overloading, so neither is created
    unless one is chosen; the one chosen is the one Spark calls."""
    meta = compile_script((FIXTURES / "examples" / "add_one.sql").read_text(), "trino").metadata
    try:
        reg = register_functions(spark, {"add_one": meta})
        assert reg.created == [] and list(reg.failed) == ["add_one"]
        assert "2 definitions (int; float)" in reg.failed["add_one"]
        reg = register_functions(spark, {"add_one": meta}, definitions={"add_one": "int"})
        assert reg.created == ["add_one"] and not reg.failed
        assert spark.sql("SELECT add_one(1)").collect()[0][0] == 2  # an INT, not 2.0
    finally:
        spark.sql("DROP FUNCTION IF EXISTS add_one")


def test_register_keeps_parameter_defaults(spark: Any) -> None:
    meta = compile_script(
        "CREATE FUNCTION scaled(x INT, k INT DEFAULT 10) RETURNS INT RETURN x * k", "spark"
    ).metadata
    assert meta is not None and [d.definition_id for d in meta.definitions] == ["int,int", "int"]
    try:
        reg = register_functions(spark, {"scaled": meta})
        assert reg.created == ["scaled"] and not reg.failed
        assert spark.sql("SELECT scaled(2), scaled(2, 3)").collect()[0][:] == (20, 6)
    finally:
        spark.sql("DROP FUNCTION IF EXISTS scaled")


def _fixture_rows(dialect: str) -> list[tuple[str, str]]:
    return [(p.stem, p.read_text()) for p in sorted((FIXTURES / dialect / "valid").glob("*.sql"))]


def test_compile_dataframe_equals_the_single_process_path(spark: Any) -> None:
    ns = "6ba7b811-9dad-11d1-80b4-00c04fd430c8"
    for dialect in ("trino", "spark"):
        rows = _fixture_rows(dialect)
        df = spark.createDataFrame(rows, "id string, sql string").repartition(2)
        out = compile_dataframe(df, dialect, timestamp_ms=T0, uuid_namespace=ns).collect()
        got = {r["id"]: (json.loads(r["metadata"]), list(r["errors"])) for r in out}
        assert len(got) == len(rows)
        for key, sql in rows:
            local = compile_script(sql, dialect, context=row_context(key, T0, ns))
            docs = {
                n: (None if m is None else json.loads(local.dump(n)))
                for n, m in local.functions.items()
            }
            assert got[key] == (docs, [str(e) for e in local.errors]), key


def test_compile_dataframe_names_the_columns_it_needs(spark: Any) -> None:
    df = spark.createDataFrame(
        [("a", "CREATE FUNCTION f() RETURNS INT RETURN 1")], "k string, ddl string"
    )
    with pytest.raises(ValueError, match=r"'id' \(a row key\) and 'sql'.*'id', 'sql' missing"):
        compile_dataframe(df, "spark")
    with pytest.raises(UnsupportedError, match="unknown dialect 'hive'"):
        compile_dataframe(df, "hive", key_column="k", sql_column="ddl")
    (row,) = compile_dataframe(df, "spark", key_column="k", sql_column="ddl").collect()
    assert row["k"] == "a" and list(json.loads(row["metadata"])) == ["f"] and not row["errors"]
