"""The function warehouse: layout, commits, resolution, time travel, rollback, drop, cache, CLI.

Concurrency (real processes) is in test_warehouse_concurrency.py, the SQL catalog in
test_warehouse_catalog.py.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import assert_rest_schema_valid
from translator.cli import main
from translator.compile import Context
from translator.errors import MetadataError
from translator.metadata import UdfMetadata, dump_metadata, load_metadata, validate_metadata
from translator.warehouse import (
    CACHE_ENV,
    FunctionNotFoundError,
    FunctionRef,
    MetadataCache,
    ResolveOptions,
    RetryPolicy,
    TimeTravelError,
    UnsupportedStorageError,
    Warehouse,
    WarehouseError,
)
from translator.warehouse.layout import derived_file_uuid, metadata_path, parse_metadata_name
from translator.warehouse.summary import REDACTED

T0 = 1734507000000

CREATE_INT = "CREATE FUNCTION add_one(x integer) RETURNS integer RETURN x + 1;"
CREATE_DOUBLE = "CREATE FUNCTION add_one(x double) RETURNS double RETURN x + 1.0;"


def replace_int(n: int) -> str:
    return f"CREATE OR REPLACE FUNCTION add_one(x integer) RETURNS integer RETURN x + {n};"


def fixed_context(start: int = T0, step: int = 1000) -> Context:
    ticks = itertools.count(start, step)
    uuids = (f"00000000-0000-4000-8000-{n:012d}" for n in itertools.count(1))
    return Context(clock=lambda: next(ticks), new_uuid=lambda: next(uuids))


def warehouse(root: Path, **kw: Any) -> Warehouse:
    kw.setdefault("context", fixed_context())
    kw.setdefault("cache", MetadataCache())
    return Warehouse(root, **kw)


def metadata_files(root: Path, ns: str = "default", fn: str = "add_one") -> list[str]:
    folder = root / ns / fn / "metadata"
    return sorted(p.name for p in folder.iterdir() if parse_metadata_name(p.name))


def assert_every_file_valid(root: Path) -> int:
    """Every metadata file under ``root`` (dropped ones included) passes both validators."""
    count = 0
    for path in root.rglob("*.metadata.json"):
        if not parse_metadata_name(path.name):
            continue
        doc = json.loads(path.read_text())
        assert validate_metadata(doc) == [], path
        assert_rest_schema_valid(doc)
        count += 1
    return count


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def normalize(text: str, root: Path) -> str:
    return text.replace(str(root), "<WH>")


# --------------------------------------------------------------------------------------------
# Layout


def test_metadata_file_names() -> None:
    assert parse_metadata_name("00001-6f1f4b53-2c1e-5a43-9d0e-1c3b8e4a7d21.metadata.json") == (
        parse_metadata_name("00001-6f1f4b53-2c1e-5a43-9d0e-1c3b8e4a7d21.metadata.json")
    )
    named = parse_metadata_name("00012-6F1F4B53-2C1E-5A43-9D0E-1C3B8E4A7D21.metadata.json")
    assert named is not None and named.version == 12 and named.file_uuid is not None
    assert parse_metadata_name("7.metadata.json").version == 7  # type: ignore[union-attr]
    assert parse_metadata_name("v3.metadata.json").version == 3  # type: ignore[union-attr]
    for not_metadata in (
        ".00002-x.metadata.json.abc.tmp",
        "00002-notauuid.metadata.json",
        "version-hint.text",
        "00002.metadata.json.tmp",
        "x.metadata.json",
    ):
        assert parse_metadata_name(not_metadata) is None, not_metadata


def test_file_uuids_are_derived_so_racing_writers_aim_at_one_name() -> None:
    ref = FunctionRef("default", "add_one")
    assert derived_file_uuid(ref, 2) == derived_file_uuid(FunctionRef("default", "add_one"), 2)
    assert derived_file_uuid(ref, 2) != derived_file_uuid(ref, 3)
    assert derived_file_uuid(ref, 2) != derived_file_uuid(FunctionRef("other", "add_one"), 2)
    assert re.fullmatch(
        r"default/add_one/metadata/00002-[0-9a-f-]{36}\.metadata\.json",
        metadata_path(ref, 2, derived_file_uuid(ref, 2)),
    )


def test_function_names() -> None:
    assert FunctionRef.parse("add_one") == FunctionRef("default", "add_one")
    assert FunctionRef.parse("add_one", "sales") == FunctionRef("sales", "add_one")
    assert FunctionRef.parse("iceberg.sales.f") == FunctionRef("sales", "f")  # catalog dropped
    assert FunctionRef.catalog_part("iceberg.sales.f") == "iceberg"
    assert FunctionRef.parse("cat.a.b.f") == FunctionRef("a.b", "f")
    assert FunctionRef("a.b", "f").parts == ("a", "b", "f")
    for bad in ("", ".hidden", "x/y", "..", "a\\b"):
        with pytest.raises(WarehouseError):
            FunctionRef("default", bad)


# --------------------------------------------------------------------------------------------
# apply and commits


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


def test_cli_apply_reports_errors_with_position_and_caret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sql = tmp_path / "broken.sql"
    sql.write_text(f"{CREATE_INT}\nCREATE FUNCTION f(x integer RETURNS integer RETURN x;\n")
    code, _, err = run_cli(
        capsys, "apply", "--warehouse", str(tmp_path / "wh"), "--dialect", "trino", str(sql)
    )
    assert code == 1
    assert f"{sql}:2:" in err and "^" in err
    assert "nothing committed" in err
    assert not (tmp_path / "wh").exists() or not any((tmp_path / "wh").rglob("*.json"))


def test_dry_run_prints_the_plan_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot: Any
) -> None:
    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    sql = tmp_path / "plan.sql"
    sql.write_text(
        replace_int(3)
        + CREATE_DOUBLE
        + "CREATE FUNCTION iceberg.sales.tax(p double) RETURNS double RETURN p * 0.2;"
        + "CREATE OR REPLACE FUNCTION add_one(x double) RETURNS double RETURN x + 1.0;"
    )
    code, out, err = run_cli(
        capsys, "apply", "--warehouse", str(tmp_path), "--dialect", "trino", "--dry-run", str(sql)
    )
    assert code == 0, err
    assert out == snapshot
    assert len(metadata_files(tmp_path)) == 1
    assert not (tmp_path / "sales").exists()


def test_cli_apply_commits_and_prints_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot: Any
) -> None:
    sql = tmp_path / "a.sql"
    sql.write_text(CREATE_INT + CREATE_DOUBLE)
    wh = str(tmp_path / "wh")
    code, out, err = run_cli(capsys, "apply", "--warehouse", wh, "--dialect", "trino", str(sql))
    assert code == 0, err
    sql.write_text(replace_int(2))
    code, out2, err = run_cli(capsys, "apply", "--warehouse", wh, "--dialect", "trino", str(sql))
    assert code == 0, err
    code, out3, err = run_cli(capsys, "apply", "--warehouse", wh, "--dialect", "trino", str(sql))
    assert code == 0, err
    assert {"first": out, "second": out2, "again": out3} == snapshot


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


# --------------------------------------------------------------------------------------------
# drop command


def test_drop_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    warehouse(tmp_path).apply(CREATE_INT, "trino").raise_for_errors()
    code, out, err = run_cli(capsys, "drop", "--warehouse", str(tmp_path), "add_one")
    assert code == 0, err
    assert out.startswith("dropped default.add_one: its files are kept at ")
    assert not (tmp_path / "default" / "add_one").exists()
    kept = list((tmp_path / "default" / ".dropped").iterdir())
    assert len(kept) == 1 and [p.name for p in (kept[0] / "metadata").iterdir()] == [
        "00001-84b6ec64-c223-55f2-bc78-d7513d9df6e2.metadata.json"
    ]
    code, out, err = run_cli(capsys, "drop", "--warehouse", str(tmp_path), "add_one")
    assert code == 1 and "does not exist" in err
    code, out, err = run_cli(capsys, "drop", "--warehouse", str(tmp_path), "add_one", "--if-exists")
    assert code == 0 and "nothing dropped" in out


# --------------------------------------------------------------------------------------------
# Resolution


def _doc(function_uuid: str, body: str, log_ts: list[int]) -> str:
    """A small valid metadata document with one definition and the given log timestamps."""
    versions = [
        {
            "version-id": i,
            "representations": [{"type": "sql", "dialect": "trino", "sql": f"{body} + {i}"}],
            "timestamp-ms": ts,
        }
        for i, ts in enumerate(log_ts, 1)
    ]
    doc = {
        "function-uuid": function_uuid,
        "format-version": 1,
        "definitions": [
            {
                "definition-id": "int",
                "parameters": [{"name": "x", "type": "int"}],
                "return-type": "int",
                "versions": versions,
                "current-version-id": len(log_ts),
                "function-type": "udf",
            }
        ],
        "definition-log": [
            {"timestamp-ms": ts, "definition-versions": [{"definition-id": "int", "version-id": i}]}
            for i, ts in enumerate(log_ts, 1)
        ],
    }
    return json.dumps(doc, indent=2)


UUID_A = "11111111-1111-4111-8111-111111111111"
UUID_B = "22222222-2222-4222-8222-222222222222"


def _put(root: Path, name: str, text: str) -> None:
    folder = root / "default" / "f" / "metadata"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def _body(r: Any) -> str:
    rep = r.metadata.definitions[0].current_version.representations[0]
    return str(rep.sql)


def test_highest_version_number_wins_and_other_files_are_ignored(tmp_path: Path) -> None:
    _put(tmp_path, "1.metadata.json", _doc(UUID_A, "one", [T0]))
    _put(tmp_path, f"00002-{uuid.uuid4()}.metadata.json", _doc(UUID_A, "two", [T0, T0 + 1]))
    _put(tmp_path, "v3.metadata.json", _doc(UUID_A, "three", [T0, T0 + 1, T0 + 2]))
    _put(tmp_path, ".00004-x.metadata.json.123.tmp", "{ half a fil")
    _put(tmp_path, "notes.json", "not metadata")
    wh = warehouse(tmp_path)
    r = wh.load("f")
    assert r.version == 3 and _body(r) == "three + 3"
    assert r.path == "default/f/metadata/v3.metadata.json"


def test_an_explicit_metadata_file_wins_over_every_rule(tmp_path: Path) -> None:
    _put(tmp_path, "1.metadata.json", _doc(UUID_A, "one", [T0]))
    _put(tmp_path, "2.metadata.json", _doc(UUID_B, "two", [T0, T0 + 1]))
    wh = warehouse(tmp_path)
    for given in (
        "1.metadata.json",
        "metadata/1.metadata.json",
        str(tmp_path / "default" / "f" / "metadata" / "1.metadata.json"),
    ):
        opts = ResolveOptions(
            metadata_file=given, function_uuid=UUID_B, latest_by_log_timestamp=True
        )
        assert _body(wh.load("f", resolve=opts)) == "one + 1", given
    with pytest.raises(FunctionNotFoundError, match="does not exist"):
        wh.load("f", resolve=ResolveOptions(metadata_file="9.metadata.json"))


def test_function_uuid_filter_is_case_insensitive(tmp_path: Path) -> None:
    _put(tmp_path, "1.metadata.json", _doc(UUID_A, "a", [T0]))
    _put(tmp_path, "2.metadata.json", _doc(UUID_A, "a", [T0, T0 + 1]))
    _put(tmp_path, "3.metadata.json", _doc(UUID_B, "b", [T0]))
    wh = warehouse(tmp_path)
    assert wh.load("f").version == 3
    r = wh.load("f", resolve=ResolveOptions(function_uuid=UUID_A.upper()))
    assert r.version == 2 and r.metadata.function_uuid == UUID_A
    with pytest.raises(FunctionNotFoundError, match="no metadata file has function-uuid"):
        wh.load("f", resolve=ResolveOptions(function_uuid=str(uuid.uuid4())))


def test_latest_by_log_timestamp(tmp_path: Path) -> None:
    _put(tmp_path, "1.metadata.json", _doc(UUID_A, "late", [T0, T0 + 50_000]))
    _put(tmp_path, "2.metadata.json", _doc(UUID_A, "early", [T0, T0 + 10]))
    wh = warehouse(tmp_path)
    assert wh.load("f").version == 2
    r = wh.load("f", resolve=ResolveOptions(latest_by_log_timestamp=True))
    assert r.version == 1 and _body(r) == "late + 2"


def test_two_files_with_one_version_number_are_reported(tmp_path: Path) -> None:
    _put(tmp_path, f"00001-{uuid.uuid4()}.metadata.json", _doc(UUID_A, "a", [T0]))
    _put(tmp_path, f"00001-{uuid.uuid4()}.metadata.json", _doc(UUID_A, "b", [T0]))
    with pytest.raises(WarehouseError, match="two metadata files claim version 1"):
        warehouse(tmp_path).load("f")


def test_a_broken_numbered_file_is_an_error_not_skipped(tmp_path: Path) -> None:
    _put(tmp_path, "1.metadata.json", _doc(UUID_A, "a", [T0]))
    _put(tmp_path, "2.metadata.json", '{"function-uuid": ')
    with pytest.raises(MetadataError, match=r"2\.metadata\.json"):
        warehouse(tmp_path).load("f")


def test_cli_resolution_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _put(tmp_path, "1.metadata.json", _doc(UUID_A, "late", [T0, T0 + 50_000]))
    _put(tmp_path, "2.metadata.json", _doc(UUID_B, "early", [T0, T0 + 10]))
    base = ["show", "--warehouse", str(tmp_path), "f", "--json"]
    picks = {}
    for extra in (
        [],
        ["--latest-by-log-timestamp"],
        ["--function-uuid", UUID_A],
        ["--metadata-file", "2.metadata.json", "--function-uuid", UUID_A],
    ):
        code, out, err = run_cli(capsys, *base, *extra)
        assert code == 0, err
        picks[" ".join(extra)] = json.loads(out)["metadata-file"].rpartition("/")[2]
    assert picks == {
        "": "2.metadata.json",
        "--latest-by-log-timestamp": "1.metadata.json",
        f"--function-uuid {UUID_A}": "1.metadata.json",
        f"--metadata-file 2.metadata.json --function-uuid {UUID_A}": "2.metadata.json",
    }


# --------------------------------------------------------------------------------------------
# Time travel and rollback


def _history_warehouse(root: Path) -> Warehouse:
    """Log: 1 int v1 (T0) | 2 int v1, double v1 (T0+1000) | 3 int v2 (T0+2000) | 4 int v3."""
    wh = warehouse(root)
    wh.apply(CREATE_INT + CREATE_DOUBLE, "trino").raise_for_errors()
    wh.apply(replace_int(2), "trino").raise_for_errors()
    wh.apply(replace_int(3), "trino").raise_for_errors()
    return wh


def _current(meta: UdfMetadata) -> dict[str, int]:
    return {d.definition_id: d.current_version_id for d in meta.definitions}


def test_as_of_and_log_entry_pick_the_versions_current_then(tmp_path: Path) -> None:
    wh = _history_warehouse(tmp_path)
    assert _current(wh.at("add_one").metadata) == {"int": 3, "double": 1}
    assert _current(wh.at("add_one", as_of=T0).metadata) == {"int": 1}
    assert _current(wh.at("add_one", as_of=T0 + 1500).metadata) == {"int": 1, "double": 1}
    p = wh.at("add_one", log_entry=3)
    assert p.log_entry == 3 and _current(p.metadata) == {"int": 2, "double": 1}
    int_def = p.metadata.definition("int")
    assert int_def is not None and [v.version_id for v in int_def.versions] == [1, 2]
    assert len(p.metadata.definition_log) == 3
    assert p.resolved.version == 3  # read from the current file


def test_time_travel_errors(tmp_path: Path) -> None:
    wh = _history_warehouse(tmp_path)
    with pytest.raises(TimeTravelError, match="before the first definition-log entry"):
        wh.at("add_one", as_of=T0 - 1)
    with pytest.raises(TimeTravelError, match="not both"):
        wh.at("add_one", as_of=T0, log_entry=1)
    with pytest.raises(TimeTravelError, match=r"entries 1\.\.4"):
        wh.at("add_one", log_entry=5)


def test_cli_time_travel_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history_warehouse(tmp_path)
    base = ["show", "--warehouse", str(tmp_path), "add_one"]
    with pytest.raises(SystemExit) as e:
        main([*base, "--as-of", str(T0), "--version", "1"])
    assert e.value.code == 2
    capsys.readouterr()
    code, out, err = run_cli(capsys, *base, "--as-of", str(T0 - 5))
    assert code == 1 and "before the first definition-log entry" in err
    code, out, err = run_cli(capsys, *base, "--version", "2", "--json")
    assert code == 0 and json.loads(out)["as-of"]["log-entry"] == 2


def test_a_dropped_definition_is_reported_when_travelling_back(tmp_path: Path) -> None:
    wh = _history_warehouse(tmp_path)
    wh.apply("DROP FUNCTION add_one(double);", "trino").raise_for_errors()
    p = wh.at("add_one", log_entry=2)
    assert _current(p.metadata) == {"int": 1}
    assert [w.code for w in p.warnings] == ["dropped-definition"]
    with pytest.raises(WarehouseError, match="dropped since"):
        wh.rollback("add_one", log_entry=2)


def test_rollback_appends_an_entry_and_a_file_and_deletes_nothing(tmp_path: Path) -> None:
    wh = _history_warehouse(tmp_path)
    r = wh.rollback("add_one", log_entry=2)
    assert [str(s) for s in r.steps] == ["(int) v3 -> v1"]
    assert r.committed is not None and r.committed.version == 4
    meta = wh.load("add_one").metadata
    assert _current(meta) == {"int": 1, "double": 1}
    int_def = meta.definition("int")
    assert int_def is not None and [v.version_id for v in int_def.versions] == [1, 2, 3]
    assert len(meta.definition_log) == 5
    last = meta.definition_log[-1]
    assert {(x.definition_id, x.version_id) for x in last.definition_versions} == {
        ("int", 1),
        ("double", 1),
    }
    assert last.timestamp_ms > meta.definition_log[-2].timestamp_ms
    # Already current: nothing written.
    again = wh.rollback("add_one", log_entry=2)
    assert again.committed is None and again.steps == []
    # By time, to when v2 was current; definitions created later are kept (and reported).
    by_time = wh.rollback("add_one", as_of=T0 + 2500)
    assert [str(s) for s in by_time.steps] == ["(int) v1 -> v2"]
    first = wh.rollback("add_one", log_entry=1)
    assert [w.code for w in first.warnings] == ["kept-definition"]
    assert _current(wh.load("add_one").metadata) == {"int": 1, "double": 1}
    assert len(metadata_files(tmp_path)) == 6
    assert assert_every_file_valid(tmp_path) == 6
    # Applying after a rollback continues from the highest version id.
    wh.apply(replace_int(9), "trino").raise_for_errors()
    assert _current(wh.load("add_one").metadata)["int"] == 4


def test_cli_rollback(tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot: Any) -> None:
    _history_warehouse(tmp_path)
    base = ["rollback", "--warehouse", str(tmp_path), "add_one"]
    code, out, err = run_cli(capsys, *base, "--to-version", "3")
    assert code == 0, err
    code2, out2, err2 = run_cli(capsys, *base, "--to-version", "3")
    assert code2 == 0, err2
    assert {"rollback": out, "again": out2} == snapshot
    with pytest.raises(SystemExit) as e:
        main(base)
    assert e.value.code == 2
    capsys.readouterr()
    code, out, err = run_cli(capsys, *base, "--as-of", "5")
    assert code == 1 and "before the first" in err


# --------------------------------------------------------------------------------------------
# list, show, history output


def test_list_show_history_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot: Any
) -> None:
    wh = _history_warehouse(tmp_path)
    wh.apply(
        "CREATE FUNCTION iceberg.finance.tax(p double) RETURNS double COMMENT 'VAT' "
        "RETURN p * 0.2;",
        "trino",
    ).raise_for_errors()
    wh_arg = ["--warehouse", str(tmp_path)]
    outputs = {}
    for name, argv in {
        "list": ["list", *wh_arg],
        "list-json": ["list", *wh_arg, "--json"],
        "show": ["show", *wh_arg, "add_one"],
        "show-as-of": ["show", *wh_arg, "add_one", "--as-of", str(T0 + 1500)],
        "show-tax": ["show", *wh_arg, "finance.tax"],
        "history": ["history", *wh_arg, "add_one"],
        "history-json": ["history", *wh_arg, "add_one", "--json"],
    }.items():
        code, out, err = run_cli(capsys, *argv)
        assert code == 0, err
        outputs[name] = normalize(out, tmp_path)
    assert outputs == snapshot


def test_missing_function_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in ("show", "history", "rollback"):
        extra = ["--to-version", "1"] if cmd == "rollback" else []
        code, _, err = run_cli(capsys, cmd, "--warehouse", str(tmp_path), "nope", *extra)
        assert code == 1 and "does not exist" in err, cmd


def test_warehouse_is_required(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.delenv("ICEBERG_UDF_WAREHOUSE", raising=False)
    code, _, err = run_cli(capsys, "list")
    assert code == 2 and "--warehouse" in err


# --------------------------------------------------------------------------------------------
# Secure functions


def _make_secure(wh: Warehouse) -> None:
    base = wh.committer.base(FunctionRef("default", "add_one"))
    assert base is not None
    meta = base.metadata.model_copy(deep=True)
    meta.secure = True
    meta.model_fields_set.add("secure")
    wh.committer.commit(base.ref, base, meta)


def test_secure_bodies_are_never_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot: Any
) -> None:
    wh = warehouse(tmp_path)
    wh.apply(
        "CREATE FUNCTION add_one(x integer) RETURNS integer RETURN x + 424242;", "trino"
    ).raise_for_errors()
    _make_secure(wh)
    summary, _ = wh.show("add_one")
    assert "424242" not in json.dumps(summary)
    outputs = {}
    for extra in ([], ["--json"], ["--version", "1"], ["--version", "1", "--json"]):
        code, out, err = run_cli(capsys, "show", "--warehouse", str(tmp_path), "add_one", *extra)
        assert code == 0, err
        assert "424242" not in out + err
        assert REDACTED in out
        outputs[" ".join(extra) or "text"] = normalize(out, tmp_path)
    assert outputs["text"] == snapshot
    # emit is for deploying: it needs the bodies, and says that they are sensitive.
    code, out, err = run_cli(
        capsys, "emit", "--warehouse", str(tmp_path), "add_one", "--dialect", "trino"
    )
    assert code == 0 and "424242" in out and "warning[secure-function]" in err


# --------------------------------------------------------------------------------------------
# The cache


def test_cache_hits_and_sees_new_files(tmp_path: Path) -> None:
    cache = MetadataCache()
    wh = warehouse(tmp_path, cache=cache)
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    cache.clear()
    wh.load("add_one")
    assert (cache.hits, cache.misses) == (0, 1)
    first = wh.load("add_one")
    assert (cache.hits, cache.misses) == (1, 1)
    first.metadata.definitions.clear()  # callers get copies: the cache is not touched
    assert wh.load("add_one").metadata.definitions
    assert wh.at("add_one").metadata.definitions
    wh.apply(replace_int(2), "trino").raise_for_errors()
    assert wh.load("add_one").version == 2  # a new file: a new key, read fresh


def test_what_apply_returns_shares_nothing_with_the_cache(tmp_path: Path) -> None:
    """A merge result shares unchanged definitions with what it merged into: never the cache's."""
    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT + CREATE_DOUBLE, "trino").raise_for_errors()
    wh.load("add_one")  # cached
    result = wh.apply(replace_int(2), "trino", dry_run=True).raise_for_errors()
    (meta,) = result.functions.values()
    assert meta is not None
    for d in meta.definitions:  # the double one is unchanged by the statement
        d.versions.clear()
    loaded = wh.load("add_one").metadata  # the same file, from the cache
    assert [len(d.versions) for d in loaded.definitions] == [1, 1]


def test_cache_key_includes_mtime_and_size(tmp_path: Path) -> None:
    _put(tmp_path, "1.metadata.json", _doc(UUID_A, "one", [T0]))
    cache = MetadataCache()
    wh = warehouse(tmp_path, cache=cache)
    assert _body(wh.load("f")) == "one + 1"
    # Out of protocol (files are never rewritten), but the cache must still not serve stale data.
    path = tmp_path / "default" / "f" / "metadata" / "1.metadata.json"
    path.write_text(_doc(UUID_A, "rewritten", [T0]))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert _body(wh.load("f")) == "rewritten + 1"
    assert cache.misses == 2


def test_cache_switches_off(tmp_path: Path, monkeypatch: Any) -> None:
    _put(tmp_path, "1.metadata.json", _doc(UUID_A, "one", [T0]))
    assert Warehouse(tmp_path, cache=False).cache is None
    monkeypatch.setenv(CACHE_ENV, "0")
    assert Warehouse(tmp_path).cache is None
    assert Warehouse(tmp_path, cache=True).cache is not None  # the constructor wins
    monkeypatch.setenv(CACHE_ENV, "1")
    assert Warehouse(tmp_path).cache is not None
    uncached = Warehouse(tmp_path, cache=False)
    assert _body(uncached.load("f")) == "one + 1"


# --------------------------------------------------------------------------------------------
# fsspec


def test_memory_filesystem_warehouse(tmp_path: Path) -> None:
    url = f"memory://iceberg-udf-test-{uuid.uuid4().hex}"
    wh = Warehouse(url, context=fixed_context(), cache=MetadataCache())
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    wh.apply(replace_int(2), "trino").raise_for_errors()
    r = wh.load("add_one")
    assert r.version == 2 and r.location.startswith("memory://")
    assert r.metadata.location is not None and r.metadata.location.endswith("/default/add_one")
    assert_rest_schema_valid(dump_metadata(r.metadata))
    assert [str(i.ref) for i in wh.functions()] == ["default.add_one"]
    # A stale writer loses the race for file 2 and must not overwrite it.
    with pytest.raises(FileExistsError):
        wh.store.create_exclusive(r.path, b"{}", make_dirs=False)
    wh.rollback("add_one", log_entry=1)
    assert _current(wh.load("add_one").metadata) == {"int": 1}
    wh.drop("add_one")
    assert wh.functions() == []


def test_memory_filesystem_threads_lose_no_update() -> None:
    from concurrent.futures import ThreadPoolExecutor

    url = f"memory://iceberg-udf-test-{uuid.uuid4().hex}"
    Warehouse(url).apply(CREATE_INT, "trino").raise_for_errors()

    def worker(w: int) -> int:
        wh = Warehouse(url, retry=RetryPolicy(max_attempts=1000))  # the bound is not under test
        conflicts = 0
        for i in range(8):
            r = wh.apply(replace_int(1000 * (w + 1) + i), "trino").raise_for_errors()
            conflicts += r.conflicts
        return conflicts

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(worker, range(4)))
    meta = Warehouse(url).load("add_one").metadata
    int_def = meta.definition("int")
    assert int_def is not None and [v.version_id for v in int_def.versions] == list(range(1, 34))
    assert len(meta.definition_log) == 33


def test_unsupported_protocols_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedStorageError, match="'dir'"):
        Warehouse(f"dir::file://{tmp_path}")


def test_file_urls_are_local_folders(tmp_path: Path) -> None:
    wh = Warehouse(f"file://{tmp_path}", context=fixed_context())
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    assert metadata_files(tmp_path)


# --------------------------------------------------------------------------------------------
# emit


def test_emit_from_the_warehouse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history_warehouse(tmp_path)
    code, out, err = run_cli(
        capsys, "emit", "--warehouse", str(tmp_path), "add_one", "--dialect", "spark"
    )
    assert code == 0, err
    assert "add_one" in out and "x + 3" in out
    code, out, err = run_cli(
        capsys, "emit", "--warehouse", str(tmp_path), "add_one", "--dialect", "spark",
        "--log-entry", "1",
    )  # fmt: skip
    assert code == 0, err
    assert "x + 1" in out and "double" not in out.lower()
    code, out, err = run_cli(
        capsys, "emit", "--warehouse", str(tmp_path), "add_one", "--dialect", "trino",
        "--definition", "int", "--version", "2", "--or-replace",
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("CREATE OR REPLACE FUNCTION") and "x + 2" in out
    assert out.count("CREATE") == 1
    out_file = tmp_path / "out.sql"
    code, out, err = run_cli(
        capsys, "emit", "--warehouse", str(tmp_path), "add_one", "--dialect", "trino",
        "--as-of", str(T0 + 1500), "-o", str(out_file),
    )  # fmt: skip
    assert code == 0 and out == ""
    ddl = out_file.read_text()
    assert ddl.count("CREATE FUNCTION") == 2 and "x + 1" in ddl


def test_reading_a_warehouse_that_is_not_there_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped folder is not a warehouse with no functions; only apply starts a new one."""
    missing = str(tmp_path / "typo")
    for argv in (("list",), ("show", "f"), ("history", "f"), ("emit", "f", "--dialect", "spark")):
        code, out, err = run_cli(capsys, argv[0], "--warehouse", missing, *argv[1:])
        assert (code, out) == (1, ""), argv
        assert f"no warehouse at {missing}: not a folder (apply creates one)" in err, argv
    assert not Path(missing).exists()
    sql = tmp_path / "f.sql"
    sql.write_text(CREATE_INT)
    code, _, err = run_cli(capsys, "apply", "--warehouse", missing, "--dialect", "trino", str(sql))
    assert code == 0, err


def test_emit_from_the_warehouse_under_another_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Warehouse names are namespace.function; Trino names a stored function with its catalog."""
    _history_warehouse(tmp_path)
    argv = ("emit", "--warehouse", str(tmp_path), "default.add_one", "--dialect", "trino")
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and out == ""
    assert "catalog.schema.name" in err and "(--name gives the name to write)" in err
    code, out, err = run_cli(capsys, *argv, "--name", "hive.default.add_one")
    assert code == 0, err
    assert out.count("CREATE FUNCTION hive.default.add_one(") == 2


# --------------------------------------------------------------------------------------------
# Races, made deterministic


def test_apply_retries_only_the_function_that_lost_its_race(tmp_path: Path) -> None:
    """Another writer commits ``add_one`` between our read and our commit: our ``add_one`` is
    re-merged on top of theirs; ``tax``, committed in the first attempt, is not committed again."""
    wh = warehouse(tmp_path, lock_timeout_s=0)
    other = warehouse(tmp_path, lock_timeout_s=0, context=fixed_context(T0 + 10**6))
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    real_commit = wh.committer.commit
    calls: list[str] = []

    def commit(ref: FunctionRef, base: Any, meta: UdfMetadata) -> Any:
        calls.append(str(ref))
        if calls.count("default.add_one") == 1 and ref.name == "add_one":
            other.apply(replace_int(50), "trino").raise_for_errors()  # wins the race
        return real_commit(ref, base, meta)

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

    def always_beaten(ref: FunctionRef, base: Any, meta: UdfMetadata) -> Any:
        other.apply(replace_int(next(bodies)), "trino").raise_for_errors()
        return real_commit(ref, base, meta)

    wh.committer.commit = always_beaten  # type: ignore[method-assign]
    result = wh.apply(replace_int(2), "trino")
    assert result.conflicts == 3 and result.committed == []
    assert isinstance(result.errors[0], CommitConflictError)
    assert "3 times in a row" in result.errors[0].message


def test_a_writer_racing_a_drop_cannot_resurrect_the_function(tmp_path: Path) -> None:
    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    ref = FunctionRef("default", "add_one")
    stale = wh.committer.base(ref)
    assert stale is not None
    wh.drop("add_one")
    from translator.warehouse.commit import Conflict

    with pytest.raises(Conflict):
        wh.committer.commit(ref, stale, stale.metadata.model_copy(deep=True))
    assert not (tmp_path / "default" / "add_one").exists()


def test_a_drop_that_raced_a_commit_is_undone_and_retried(tmp_path: Path) -> None:
    from translator.warehouse.commit import Conflict

    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    ref = FunctionRef("default", "add_one")
    stale = wh.committer.base(ref)
    assert stale is not None
    wh.apply(replace_int(2), "trino").raise_for_errors()  # lands after the drop decided
    with pytest.raises(Conflict):
        wh.committer.drop(ref, stale)
    assert wh.load("add_one").version == 2  # moved back, untouched
    assert not list((tmp_path / "default" / ".dropped").iterdir())
    wh.apply("DROP FUNCTION add_one(integer);", "trino").raise_for_errors()
    assert wh.functions() == []
