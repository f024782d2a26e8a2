"""Warehouse.apply (translator.warehouse.apply): what it commits, what it refuses, and how it
retries when another writer commits first."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from tests.warehouse.helpers import (
    CREATE_DOUBLE,
    CREATE_INT,
    T0,
    assert_every_file_valid,
    fixed_context,
    metadata_files,
    replace_int,
    warehouse,
)
from translator.metadata import UdfMetadata, load_metadata
from translator.warehouse import (
    FunctionNotFoundError,
    FunctionRef,
    RetryPolicy,
)
from translator.warehouse.layout import parse_metadata_name


def test_apply_writes_one_new_numbered_file_per_change(tmp_path: Path) -> None:
    wh = warehouse(tmp_path)
    first = wh.apply(CREATE_INT + CREATE_DOUBLE, "trino").raise_for_errors()
    assert [c.version for c in first.committed] == [1]
    assert [c.action for c in first.changes] == ["created-function", "added-definition"]
    one = tmp_path / first.committed[0].path
    before = (one.read_bytes(), one.stat().st_mtime_ns)

    second = wh.apply(replace_int(2), "trino").raise_for_errors()
    assert [(c.ref, c.version) for c in second.committed] == [
        (FunctionRef("default", "add_one"), 2)
    ]
    names = metadata_files(tmp_path)
    assert [parse_metadata_name(n).version for n in names] == [1, 2]  # type: ignore[union-attr]
    assert (one.read_bytes(), one.stat().st_mtime_ns) == before  # never rewritten

    current = load_metadata((tmp_path / second.committed[0].path).read_text())
    assert current.location == str(tmp_path / "default" / "add_one")
    int_def = current.definition("int")
    assert int_def is not None and int_def.current_version_id == 2
    assert [e.timestamp_ms for e in current.definition_log] == sorted(
        e.timestamp_ms for e in current.definition_log
    )
    assert assert_every_file_valid(tmp_path) == 2


def test_deploying_the_same_ddl_twice_commits_nothing(tmp_path: Path) -> None:
    wh = warehouse(tmp_path)
    wh.apply(replace_int(1), "trino").raise_for_errors()
    again = wh.apply(replace_int(1), "trino").raise_for_errors()
    assert again.committed == [] and [c.action for c in again.changes] == ["unchanged"]
    assert len(metadata_files(tmp_path)) == 1


def test_a_failing_statement_commits_nothing(tmp_path: Path) -> None:
    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    other = "CREATE FUNCTION other(x integer) RETURNS integer RETURN x;"
    script = f"{replace_int(5)}\n{other}\n{CREATE_INT}"
    result = wh.apply(script, "trino", file="deploy.sql")
    assert not result.ok and result.committed == []
    assert "already exists" in result.errors[0].message
    assert result.errors[0].position is not None and result.errors[0].position.line == 3
    assert len(metadata_files(tmp_path)) == 1
    assert not (tmp_path / "default" / "other").exists()


def test_namespaces_from_the_option_and_from_qualified_names(tmp_path: Path) -> None:
    wh = warehouse(tmp_path)
    result = wh.apply(
        CREATE_INT + "CREATE FUNCTION iceberg.finance.tax(p double) RETURNS double RETURN p * 0.2;",
        "trino",
        namespace="sales",
    ).raise_for_errors()
    assert [w.code for w in result.warnings] == ["catalog-ignored"]
    assert sorted(str(c.ref) for c in result.committed) == ["finance.tax", "sales.add_one"]
    assert metadata_files(tmp_path, "sales", "add_one")
    assert metadata_files(tmp_path, "finance", "tax")
    assert [str(i.ref) for i in wh.functions()] == ["finance.tax", "sales.add_one"]


def test_one_function_named_two_ways_is_refused(tmp_path: Path) -> None:
    wh = warehouse(tmp_path)
    result = wh.apply(
        "CREATE FUNCTION add_one(x INT) RETURNS INT RETURN x + 1;"
        "CREATE FUNCTION default.add_one(x DOUBLE) RETURNS DOUBLE RETURN x + 1.0;",
        "spark",
    )
    assert not result.ok and "both as" in result.errors[0].message
    assert not (tmp_path / "default").exists()


def test_spark_drop_function_removes_it_and_it_can_come_back(tmp_path: Path) -> None:
    wh = warehouse(tmp_path)
    spark_create = "CREATE FUNCTION add_one(x INT) RETURNS INT RETURN x + 1;"
    wh.apply(spark_create, "spark").raise_for_errors()
    wh.apply(spark_create.replace("OR REPLACE ", "").replace("x + 1", "x + 1"), "spark")
    dropped = wh.apply("DROP FUNCTION add_one;", "spark").raise_for_errors()
    assert [d.ref for d in dropped.dropped] == [FunctionRef("default", "add_one")]
    assert dropped.dropped[0].moved_to is not None
    assert ".dropped" in dropped.dropped[0].moved_to
    assert wh.functions() == []
    with pytest.raises(FunctionNotFoundError):
        wh.load("add_one")
    back = wh.apply(spark_create, "spark").raise_for_errors()
    assert [c.version for c in back.committed] == [1]
    assert assert_every_file_valid(tmp_path) == 2  # the dropped generation is kept


def test_dropping_one_definition_is_a_normal_commit(tmp_path: Path) -> None:
    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT + CREATE_DOUBLE, "trino").raise_for_errors()
    result = wh.apply("DROP FUNCTION add_one(double);", "trino").raise_for_errors()
    assert [c.version for c in result.committed] == [2]
    assert [d.definition_id for d in wh.load("add_one").metadata.definitions] == ["int"]


def test_apply_retries_only_the_function_that_lost_its_race(tmp_path: Path) -> None:
    """Another writer commits ``add_one`` between our read and our commit: our ``add_one`` is
    re-merged on top of theirs; ``tax``, committed in the first attempt, is not committed again."""
    wh = warehouse(tmp_path, lock_timeout_s=0)
    other = warehouse(tmp_path, lock_timeout_s=0, context=fixed_context(T0 + 10**6))
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    real_commit = wh.committer.commit
    calls: list[str] = []

    def commit(ref: FunctionRef, base: Any, meta: UdfMetadata, *staged: Any) -> Any:
        calls.append(str(ref))
        if calls.count("default.add_one") == 1 and ref.name == "add_one":
            other.apply(replace_int(50), "trino").raise_for_errors()  # wins the race
        return real_commit(ref, base, meta, *staged)

    wh.committer.commit = commit  # type: ignore[method-assign]
    result = wh.apply(
        replace_int(60) + "CREATE FUNCTION tax(p double) RETURNS double RETURN p * 0.2;", "trino"
    ).raise_for_errors()
    assert result.conflicts == 1
    assert calls == ["default.add_one", "default.tax", "default.add_one"]
    assert sorted((str(c.ref), c.version) for c in result.committed) == [
        ("default.add_one", 3),
        ("default.tax", 1),
    ]
    int_def = wh.load("add_one").metadata.definition("int")
    assert int_def is not None
    assert [v.representations[0].sql for v in int_def.versions] == [  # type: ignore[union-attr]
        "x + 1",
        "x + 50",
        "x + 60",
    ]
    assert len(metadata_files(tmp_path, "default", "tax")) == 1
    assert assert_every_file_valid(tmp_path) == 4


def test_retries_are_bounded_and_the_error_says_so(tmp_path: Path) -> None:
    from translator.warehouse import CommitConflictError

    wh = warehouse(tmp_path, lock_timeout_s=0, retry=RetryPolicy(3, 0.0, 0.0))
    other = warehouse(tmp_path, lock_timeout_s=0, context=fixed_context(T0 + 10**6))
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    real_commit = wh.committer.commit
    bodies = itertools.count(100)

    def always_beaten(ref: FunctionRef, base: Any, meta: UdfMetadata, *staged: Any) -> Any:
        other.apply(replace_int(next(bodies)), "trino").raise_for_errors()
        return real_commit(ref, base, meta, *staged)

    wh.committer.commit = always_beaten  # type: ignore[method-assign]
    result = wh.apply(replace_int(2), "trino")
    assert result.conflicts == 3 and result.committed == []
    assert isinstance(result.errors[0], CommitConflictError)
    assert "3 times in a row" in result.errors[0].message
