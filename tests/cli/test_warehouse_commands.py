"""The warehouse subcommands of the CLI (apply, drop, list, show, history, rollback, emit) over a
real warehouse folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.warehouse.helpers import (
    CREATE_DOUBLE,
    CREATE_INT,
    T0,
    UUID_A,
    UUID_B,
    history_warehouse,
    metadata_files,
    normalize,
    put_file,
    replace_int,
    run_cli,
    small_doc,
    warehouse,
)
from translator.cli import main
from translator.warehouse import (
    FunctionRef,
    Warehouse,
)
from translator.warehouse.summary import REDACTED


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


def test_cli_resolution_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    put_file(tmp_path, "1.metadata.json", small_doc(UUID_A, "late", [T0, T0 + 50_000]))
    put_file(tmp_path, "2.metadata.json", small_doc(UUID_B, "early", [T0, T0 + 10]))
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


def test_cli_time_travel_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history_warehouse(tmp_path)
    base = ["show", "--warehouse", str(tmp_path), "add_one"]
    with pytest.raises(SystemExit) as e:
        main([*base, "--as-of", str(T0), "--version", "1"])
    assert e.value.code == 2
    capsys.readouterr()
    code, out, err = run_cli(capsys, *base, "--as-of", str(T0 - 5))
    assert code == 1 and "before the first definition-log entry" in err
    code, out, err = run_cli(capsys, *base, "--version", "2", "--json")
    assert code == 0 and json.loads(out)["as-of"]["log-entry"] == 2


def test_cli_rollback(tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot: Any) -> None:
    history_warehouse(tmp_path)
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


def test_list_show_history_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot: Any
) -> None:
    wh = history_warehouse(tmp_path)
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


def test_emit_from_the_warehouse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history_warehouse(tmp_path)
    code, out, err = run_cli(
        capsys, "emit", "--warehouse", str(tmp_path), "add_one", "--dialect", "spark"
    )
    # Spark has no overloading: two definitions are refused, naming them
    assert code == 1 and out == "" and "2 definitions (int; double)" in err
    code, out, err = run_cli(
        capsys, "emit", "--warehouse", str(tmp_path), "add_one", "--dialect", "spark",
        "--definition", "int",
    )  # fmt: skip
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
    history_warehouse(tmp_path)
    argv = ("emit", "--warehouse", str(tmp_path), "default.add_one", "--dialect", "trino")
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and out == ""
    assert "catalog.schema.name" in err and "(--name gives the name to write)" in err
    code, out, err = run_cli(capsys, *argv, "--name", "hive.default.add_one")
    assert code == 0, err
    assert out.count("CREATE FUNCTION hive.default.add_one(") == 2
