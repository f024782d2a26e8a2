"""Issue 15, classes 12 to 15: a batch goes on after a bad name, messages say how to recover,
one word means one thing, and the smaller ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hardening_cli import run_cli
from translator.api import compile_script

F = "CREATE FUNCTION ns.f(x INT) RETURNS INT RETURN x + {n};\n"


def _deploy(wh: Path, tmp_path: Path, *bodies: int) -> None:
    for n in bodies:
        sql = tmp_path / f"v{n}.sql"
        sql.write_text(F.format(n=n).replace("CREATE", "CREATE OR REPLACE"))
        assert run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(sql))[0] == 0


def test_a_batch_goes_on_after_one_over_long_name(tmp_path: Path) -> None:
    src, wh = tmp_path / "migrations", tmp_path / "wh"
    src.mkdir()
    (src / "1.sql").write_text(
        "CREATE FUNCTION ok1(x INT) RETURNS INT RETURN x;\n"
        f"CREATE FUNCTION {'n' * 300}(x INT) RETURNS INT RETURN x;\n"
        "CREATE FUNCTION ok2(x INT) RETURNS INT RETURN x;\n"
    )
    (src / "2.sql").write_text("CREATE FUNCTION ok3(x INT) RETURNS INT RETURN x;\n")
    code, _out, err = run_cli("migrate", "--dialect", "spark", str(src), "--warehouse", str(wh))
    assert code == 1 and "Traceback" not in err
    assert "1.sql:2:1: error:" in err and "too long for a file name" in err
    assert sorted(p.name for p in (wh / "default").iterdir()) == ["ok1", "ok2", "ok3"]


def test_a_corrupt_newest_metadata_file_says_how_to_recover(tmp_path: Path) -> None:
    wh = tmp_path / "wh"
    _deploy(wh, tmp_path, 1, 2)
    files = sorted((wh / "ns" / "f" / "metadata").glob("*.metadata.json"))
    files[-1].write_text('{"broken')
    sql = tmp_path / "v3.sql"
    sql.write_text(F.format(n=3).replace("CREATE", "CREATE OR REPLACE"))
    for argv in (
        ("apply", "--warehouse", str(wh), "--dialect", "spark", str(sql)),
        ("show", "--warehouse", str(wh), "ns.f"),
    ):
        code, _, err = run_cli(*argv)
        assert code == 1 and "Traceback" not in err
        assert f"the file before it is {files[0].name}" in err
        assert "move the broken file out of metadata/" in err


def test_a_corrupt_newest_metadata_file_hint_names_the_flag(tmp_path: Path) -> None:
    wh = tmp_path / "wh"
    _deploy(wh, tmp_path, 1, 2)
    files = sorted((wh / "ns" / "f" / "metadata").glob("*.metadata.json"))
    files[-1].write_text('{"broken')
    _code, _, err = run_cli("show", "--warehouse", str(wh), "ns.f")
    assert f"--metadata-file {files[0].name}" in err


def test_one_word_one_meaning_log_entry_and_version(tmp_path: Path) -> None:
    wh = tmp_path / "wh"
    _deploy(wh, tmp_path, 1, 2)
    code, out, err = run_cli("show", "--warehouse", str(wh), "ns.f", "--log-entry", "1")
    assert code == 0 and "x + 1" in out, err
    code, old, err = run_cli("show", "--warehouse", str(wh), "ns.f", "--version", "1")
    assert code == 0 and old == out and "deprecated" in err and "--log-entry" in err
    code, _, err = run_cli("rollback", "--warehouse", str(wh), "ns.f", "--to-log-entry", "1")
    assert code == 0, err
    code, _, err = run_cli("rollback", "--warehouse", str(wh), "ns.f", "--to-version", "2")
    assert code == 0 and "deprecated" in err and "--to-log-entry" in err
    code, out, err = run_cli("emit", "--warehouse", str(wh), "ns.f", "--dialect", "spark",
                             "--version", "1")  # fmt: skip
    assert code == 0 and "x + 1" in out and "deprecated" not in err


def test_smaller_a_values_alias_is_no_call() -> None:
    result = compile_script(
        "CREATE FUNCTION f(x INT) RETURNS INT RETURN "
        "(SELECT max(a) FROM (VALUES (1)) t(a)) + (SELECT max(b) FROM VALUES (2) AS u(b))",
        "spark",
    ).raise_for_errors()
    assert [w.message for w in result.warnings if w.code == "transpile-note"] == []


def test_smaller_spark_rejects_dollar_quoted_strings() -> None:
    result = compile_script("CREATE FUNCTION f() RETURNS STRING RETURN $$a$$", "spark")
    assert result.errors and "$$" in result.errors[0].message


def test_smaller_migrate_names_a_dangling_symlink_and_a_folder_named_sql(tmp_path: Path) -> None:
    src = tmp_path / "migrations"
    src.mkdir()
    (src / "1.sql").write_text("CREATE FUNCTION ok(x INT) RETURNS INT RETURN x;\n")
    (src / "2.sql").symlink_to(tmp_path / "nowhere.sql")
    (src / "3.sql").mkdir()
    _code, _out, err = run_cli(
        "migrate", "--dialect", "spark", str(src), "--warehouse", str(tmp_path / "wh")
    )
    assert "2.sql" in err and "3.sql" in err


def test_smaller_progress_lines_end_without_a_stray_colon(tmp_path: Path) -> None:
    src = tmp_path / "migrations"
    src.mkdir()
    (src / "1.sql").write_text("-- nothing here\n")
    _code, _out, err = run_cli(
        "migrate", "--dialect", "spark", str(src), "--warehouse", str(tmp_path / "wh")
    )
    progress = [line for line in err.splitlines() if line.startswith("[1/1]")]
    assert progress and not progress[0].rstrip().endswith(":"), progress


def _base(tmp_path: Path, file_name: str) -> Path:
    sql = tmp_path / "base.sql"
    sql.write_text("CREATE FUNCTION base(x INT) RETURNS INT RETURN x;")
    out = tmp_path / file_name
    assert run_cli("compile", "--dialect", "spark", "-o", str(out), str(sql))[0] == 0
    return out


@pytest.mark.parametrize("attach", [False, True])
def test_into_or_attach_with_another_function_name_is_refused(attach: bool, tmp_path: Path) -> None:
    base = _base(tmp_path, "base.metadata.json")
    other = tmp_path / "other.sql"
    other.write_text("CREATE OR REPLACE FUNCTION other(x INT) RETURNS INT RETURN x + 1;")
    extra = ["--attach"] if attach else []
    code, out, err = run_cli(
        "compile", "--dialect", "trino" if attach else "spark", *extra, "--into", str(base),
        str(other),
    )  # fmt: skip
    assert code == 1 and out == ""
    assert "names function other, but the metadata merged into is function base" in err
    same = tmp_path / "same.sql"
    same.write_text("CREATE OR REPLACE FUNCTION ns.BASE(x INT) RETURNS INT RETURN x + 1;")
    assert run_cli("compile", "--dialect", "spark", "--into", str(base), str(same))[0] == 0


def test_into_a_warehouse_file_is_named_by_its_folder(tmp_path: Path) -> None:
    wh, sql = tmp_path / "wh", tmp_path / "f.sql"
    sql.write_text("CREATE FUNCTION ns.f(x INT) RETURNS INT RETURN x;")
    assert run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(sql))[0] == 0
    (current,) = (wh / "ns" / "f" / "metadata").glob("*.metadata.json")
    sql.write_text("CREATE OR REPLACE FUNCTION g(x INT) RETURNS INT RETURN x + 1;")
    code, _, err = run_cli("compile", "--dialect", "spark", "--into", str(current), str(sql))
    assert code == 1 and "is function f" in err
