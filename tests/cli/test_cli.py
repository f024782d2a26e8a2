"""The iceberg-udf command: compile, emit (from a file), transpile; exit codes and messages."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, assert_rest_schema_valid
from translator.cli import main
from translator.metadata import validate_metadata

ADD_ONE = FIXTURES / "examples" / "add_one.sql"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_compile_one_function_to_stdout(capsys: Any) -> None:
    code, out, err = run(capsys, "compile", "--dialect", "trino", str(ADD_ONE))
    assert code == 0, err
    doc = json.loads(out)
    assert validate_metadata(doc) == []
    assert_rest_schema_valid(doc)
    assert [d["definition-id"] for d in doc["definitions"]] == ["int", "float"]


def test_compile_reads_stdin(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"CREATE FUNCTION one() RETURNS INT RETURN 1"))
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, _ = run(capsys, "compile", "--dialect", "spark", "-")
    assert code == 0 and json.loads(out)["definitions"][0]["definition-id"] == ""


def test_stdin_is_utf_8_as_files_are(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff\xfe")))
    code, out, err = run(capsys, "compile", "--dialect", "spark", "-")
    assert (code, out) == (1, "") and "cannot read <stdin>: not UTF-8 text" in err
    crlf = b"CREATE FUNCTION one()\r\nRETURNS INT RETURN\r\n  1"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(crlf)))
    code, out, err = run(capsys, "compile", "--dialect", "spark", "-")
    assert code == 0, err
    assert json.loads(out)["definitions"][0]["versions"][0]["representations"][0]["sql"] == "1"


def test_several_functions_need_an_output_dir(capsys: Any, tmp_path: Path) -> None:
    sql = write(
        tmp_path,
        "two.sql",
        "CREATE FUNCTION a() RETURNS INT RETURN 1; CREATE FUNCTION b() RETURNS INT RETURN 2;",
    )
    code, out, err = run(capsys, "compile", "--dialect", "spark", str(sql))
    assert code == 2 and "--output-dir" in err and out == ""
    outdir = tmp_path / "out"
    code, _, err = run(
        capsys, "compile", "--dialect", "spark", "--output-dir", str(outdir), str(sql)
    )
    assert code == 0, err
    assert sorted(p.name for p in outdir.iterdir()) == ["a.metadata.json", "b.metadata.json"]


def test_bad_sql_reports_every_error_with_a_caret_and_writes_nothing(
    capsys: Any, tmp_path: Path
) -> None:
    sql = write(
        tmp_path,
        "bad.sql",
        "CREATE FUNCTION ok1() RETURNS INT RETURN 1;\n"
        "CREATE FUNCTION broken(x INT RETURNS INT RETURN x;\n"
        "CREATE FUNCTION wrong_type(x INTERVAL DAY) RETURNS INT RETURN 1;\n",
    )
    target = tmp_path / "out.json"
    code, out, err = run(capsys, "compile", "--dialect", "spark", "-o", str(target), str(sql))
    assert code == 1 and out == ""
    assert "bad.sql:2:30: error:" in err and "^" in err and "expected one of" in err
    assert "bad.sql:3:" in err and "INTERVAL" in err.upper()
    assert "Traceback" not in err
    assert not target.exists()


def test_strict_refuses_lossy_translations(capsys: Any, tmp_path: Path) -> None:
    sql = write(tmp_path, "lossy.sql", "CREATE FUNCTION f(s varchar(3)) RETURNS varchar RETURN s")
    code, _, err = run(capsys, "compile", "--dialect", "trino", str(sql))
    assert code == 0 and "lossy-type" in err
    code, out, err = run(capsys, "compile", "--dialect", "trino", "--strict", str(sql))
    assert code == 1 and out == "" and "refused by --strict" in err


def test_compile_into_existing_metadata(capsys: Any, tmp_path: Path) -> None:
    first = tmp_path / "add_one.metadata.json"
    assert run(capsys, "compile", "--dialect", "trino", "-o", str(first), str(ADD_ONE))[0] == 0
    replace = write(
        tmp_path,
        "v2.sql",
        "CREATE OR REPLACE FUNCTION add_one(x integer) RETURNS integer RETURN x + 2",
    )
    code, out, err = run(
        capsys, "compile", "--dialect", "trino", "--into", str(first), str(replace)
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["function-uuid"] == json.loads(first.read_text())["function-uuid"]
    assert doc["definitions"][0]["current-version-id"] == 2
    assert len(doc["definition-log"]) == 3


def test_usage_errors_exit_2(capsys: Any) -> None:
    with pytest.raises(SystemExit) as e:
        main(["compile", str(ADD_ONE)])
    assert e.value.code == 2
    assert "--dialect" in capsys.readouterr().err


def test_unreadable_input_is_a_clear_error(capsys: Any, tmp_path: Path) -> None:
    code, _, err = run(capsys, "compile", "--dialect", "trino", str(tmp_path / "missing.sql"))
    assert code == 1 and "cannot read" in err and "Traceback" not in err


def test_emit_from_a_metadata_file(capsys: Any, tmp_path: Path) -> None:
    meta = tmp_path / "add_one.metadata.json"
    run(capsys, "compile", "--dialect", "trino", "-o", str(meta), str(ADD_ONE))
    code, out, err = run(capsys, "emit", "--dialect", "spark", "--name", "add_one", str(meta))
    # Spark has no overloading: the second CREATE FUNCTION would fail or replace the first
    assert code == 1 and out == "" and "2 definitions (int; float)" in err
    code, out, err = run(
        capsys, "emit", "--dialect", "spark", "--name", "add_one", "--definition", "int", str(meta)
    )
    assert code == 0, err
    assert out.count("CREATE FUNCTION add_one(") == 1 and out.count(";\n") == 1
    code, out, err = run(capsys, "emit", "--dialect", "trino", "--name", "add_one", str(meta))
    assert code == 0, err
    assert out.count("CREATE FUNCTION add_one(") == 2  # Trino has overloading
    code, _, err = run(capsys, "emit", "--dialect", "spark", str(meta))
    assert code == 2 and "--name" in err
    code, _, err = run(
        capsys, "emit", "--dialect", "spark", "--name", "add_one", "--as-of", "5", str(meta)
    )
    assert code == 1 and "before the first definition-log entry" in err


def test_transpile_both_ways(capsys: Any, tmp_path: Path) -> None:
    spark = write(tmp_path, "s.sql", "CREATE FUNCTION nz(x INT) RETURNS INT RETURN nvl(x, 0)")
    code, out, err = run(capsys, "transpile", "--from", "spark", "--to", "trino", str(spark))
    assert code == 0, err
    assert "RETURN COALESCE(x, 0)" in out and "integer" in out
    trino = write(tmp_path, "t.sql", out)
    code, back, err = run(capsys, "transpile", "--from", "trino", "--to", "spark", str(trino))
    assert code == 0, err
    assert "RETURNS INT" in back and "COALESCE(x, 0)" in back


def test_transpile_refuses_what_the_target_lacks(capsys: Any, tmp_path: Path) -> None:
    udtf = write(
        tmp_path, "t.sql", "CREATE FUNCTION rows_of(n INT) RETURNS TABLE (v INT) RETURN SELECT n"
    )
    code, out, err = run(capsys, "transpile", "--from", "spark", "--to", "trino", str(udtf))
    assert code == 1 and out == "" and "Trino has no SQL table functions" in err
    assert err.count("Trino has no SQL table functions") == 1  # said once, as the error


def test_transpile_names_the_function_it_refuses(capsys: Any, tmp_path: Path) -> None:
    udtf = write(
        tmp_path, "t.sql", "CREATE FUNCTION rows_of(n INT) RETURNS TABLE (v INT) RETURN SELECT n"
    )
    code, _, err = run(capsys, "transpile", "--from", "spark", "--to", "trino", str(udtf))
    assert code == 1 and "error: rows_of(int) version 1 is a table function" in err


def test_transpile_refuses_what_compile_loses_unless_allowed(capsys: Any, tmp_path: Path) -> None:
    """A varchar length is lost from the emitted DDL just the same; a DEFAULT is kept (Trino
    gets one function per signature it allows)."""
    sql = write(
        tmp_path,
        "d.sql",
        "CREATE FUNCTION div0(a DOUBLE, b DOUBLE DEFAULT 1.0) RETURNS DOUBLE RETURN a / b;\n"
        "CREATE FUNCTION up(s VARCHAR(8)) RETURNS STRING RETURN upper(s);\n",
    )
    code, out, err = run(capsys, "transpile", "--from", "spark", "--to", "trino", str(sql))
    assert code == 1 and out == ""
    assert f"{sql}:1:" not in err
    assert f"{sql}:2:22: error: " in err and "(allow it with --allow-lossy)" in err
    code, out, err = run(
        capsys, "transpile", "--from", "spark", "--to", "trino", "--allow-lossy", str(sql)
    )
    assert code == 0, err
    assert "CREATE FUNCTION div0(a double, b double)" in out and "up(s varchar)" in out
    assert "CREATE FUNCTION div0(a double)\n" in out and "NULLIF(CAST((1.0) AS DOUBLE), 0)" in out
    assert "dropped-default" not in err and "error" not in err


def test_transpile_puts_two_part_names_into_a_catalog(capsys: Any, tmp_path: Path) -> None:
    """Trino names a stored function catalog.schema.name: a Spark db.f needs its catalog."""
    sql = write(tmp_path, "s.sql", "CREATE FUNCTION sales.nz(x INT) RETURNS INT RETURN nvl(x, 0)")
    code, out, err = run(capsys, "transpile", "--from", "spark", "--to", "trino", str(sql))
    assert code == 1 and out == ""
    assert "sales.nz: Trino names a stored function catalog.schema.name" in err
    assert "(--trino-catalog C names it C.sales.nz)" in err
    argv = ("transpile", "--from", "spark", "--to", "trino", "--trino-catalog", "hive")
    code, out, err = run(capsys, *argv, str(sql))
    assert code == 0, err
    assert out.startswith("CREATE FUNCTION hive.sales.nz(x integer)")
    # Spark takes three parts as they are.
    argv = ("transpile", "--from", "trino", "--to", "spark")
    code, back, err = run(capsys, *argv, str(write(tmp_path, "t.sql", out)))
    assert code == 0, err
    assert back.startswith("CREATE FUNCTION hive.sales.nz(x INT)")
    code, _, err = run(capsys, *argv, "--trino-catalog", "hive", str(sql))
    assert code == 2 and "--trino-catalog is for Trino output" in err


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"\xff\xfe{}", "not UTF-8 text: byte 0: invalid start byte"),
        (b'{"function-uuid":', "not valid JSON\n  line 1 column 18: Expecting value"),
        (b'{"format-version": 1}', "invalid UDF metadata"),
    ],
)
def test_a_bad_metadata_file_is_named_never_a_traceback(
    capsys: Any, tmp_path: Path, content: bytes, says: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    out_file = tmp_path / "out.json"
    for argv in (
        ("compile", "--dialect", "trino", "--into", str(bad), "-o", str(out_file), str(ADD_ONE)),
        ("emit", "--dialect", "spark", "--name", "add_one", str(bad)),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 1 and out == "" and not out_file.exists()
        assert err.startswith(f"error: {bad}: ") and says in err
    for missing in (tmp_path / "nope.json", tmp_path):
        code, _, err = run(capsys, "emit", "--dialect", "spark", "--name", "f", str(missing))
        assert code == 1 and err.startswith(f"error: {missing}: cannot read: ")


def test_an_output_that_cannot_be_written_is_an_error(capsys: Any, tmp_path: Path) -> None:
    (tmp_path / "a_folder").mkdir()
    (tmp_path / "a_file").write_text("")
    for target, says in (
        (tmp_path / "a_folder", "Is a directory"),
        (tmp_path / "a_file" / "x.json", f"{tmp_path / 'a_file'} is not a folder"),
    ):
        code, out, err = run(
            capsys, "compile", "--dialect", "trino", "-o", str(target), str(ADD_ONE)
        )
        assert (code, out) == (1, "") and err == f"error: cannot write {target}: {says}\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a_file", "a_folder"]


def test_compiling_no_function_ddl_says_so(capsys: Any, tmp_path: Path) -> None:
    sql = write(tmp_path, "t.sql", "CREATE TABLE t (x INT);\nSET a = 1;\n")
    out_file = tmp_path / "out.json"
    code, out, err = run(capsys, "compile", "--dialect", "spark", "-o", str(out_file), str(sql))
    assert code == 0 and out == "" and not out_file.exists()
    assert "no CREATE or DROP FUNCTION statement in the input (2 other statement(s) skipped)" in err


def test_the_console_script_is_installed() -> None:
    exe = Path(sys.executable).with_name("iceberg-udf")
    done = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("iceberg-udf ")


def test_option_errors_name_the_flags(tmp_path: Path, capsys: Any) -> None:
    """The library names its parameters (``OptionError``); the command line says its flags."""
    code, out, err = run(
        capsys, "apply", "--warehouse", "memory://x", "--catalog", "sqlite", "--dialect", "trino",
        str(ADD_ONE),
    )  # fmt: skip
    assert (code, out) == (1, "")
    assert err == "error: --catalog sqlite keeps catalog.db in a local warehouse folder\n"
    wh = ["--warehouse", str(tmp_path / "wh"), "--catalog", "sqlite"]
    assert run(capsys, "apply", *wh, "--dialect", "trino", str(ADD_ONE))[0] == 0
    code, out, err = run(capsys, "show", *wh, "add_one", "--latest-by-log-timestamp")
    assert (code, out) == (1, "")
    assert err == (
        "error: --function-uuid and --latest-by-log-timestamp choose among files; with a "
        "catalog the catalog says which file is current (use --metadata-file)\n"
    )


@pytest.mark.spark
def test_compile_with_a_spark_session_derives_missing_types(
    spark: Any, capsys: Any, tmp_path: Path
) -> None:
    """--spark-session: Spark's analysis gives the type a statement without RETURNS leaves out
    (the session is the test's own: getOrCreate hands it back)."""
    sql = write(tmp_path, "s.sql", "CREATE FUNCTION big(x INT) RETURN x > 10")
    code, out, err = run(capsys, "compile", "--dialect", "spark", str(sql))
    assert code == 1 and "no RETURNS clause" in err
    code, out, err = run(capsys, "compile", "--dialect", "spark", "--spark-session", str(sql))
    assert code == 0, err
    assert '"return-type": "boolean"' in out and "inferred-type" in err
