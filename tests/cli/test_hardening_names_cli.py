"""Issue 15, class 7, on the command line: a function whose name part holds a dot is applied,
listed, shown, emitted, given its history, rolled back and dropped by a NAME that quotes the part;
what ``list`` prints is a NAME; a malformed NAME is bad usage (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hardening_cli import run_cli
from translator.frontend import parse_script
from translator.ir import CreateFunction
from translator.names import parse_name

SPARK_DDL = (
    "CREATE FUNCTION `my.fn`(x INT) RETURNS INT RETURN x + 1;\n"
    "CREATE OR REPLACE FUNCTION `my.fn`(x INT) RETURNS INT RETURN x + 2;\n"
)
TRINO_DDL = 'CREATE FUNCTION hive.s."My.Fn"(x integer) RETURNS integer RETURN x * 2;\n'


@pytest.fixture
def wh(tmp_path: Path) -> str:
    """A warehouse holding default."my.fn" (Spark, two log entries) and s."my.fn" (Trino)."""
    root = tmp_path / "wh"
    for dialect, ddl in (("spark", SPARK_DDL), ("trino", TRINO_DDL)):
        script = tmp_path / f"{dialect}.sql"
        script.write_text(ddl)
        code, _, err = run_cli("apply", "--warehouse", str(root), "--dialect", dialect, str(script))
        assert code == 0, err
    return str(root)


def _names(ddl: str, dialect: str) -> list[tuple[str, ...]]:
    parsed = parse_script(ddl, dialect)
    assert parsed.errors == []
    return [s.name for s in parsed.statements if isinstance(s, CreateFunction)]


def test_list_prints_names_that_paste_back_as_name(wh: str) -> None:
    code, out, _ = run_cli("list", "--warehouse", wh, "--json")
    assert code == 0
    listed = [f["function"] for f in json.loads(out)]
    assert listed == ['default."my.fn"', 's."my.fn"']
    code, text, _ = run_cli("list", "--warehouse", wh)
    assert code == 0 and all(name in text for name in listed)
    for name in listed:
        code, out, err = run_cli("show", "--warehouse", wh, name, "--json")
        assert code == 0, err
        assert json.loads(out)["function"] == name


@pytest.mark.parametrize("name", ['"my.fn"', "`my.fn`", 'default."my.fn"', "default.`my.fn`"])
def test_show_emit_history_take_a_quoted_name(wh: str, name: str) -> None:
    code, out, err = run_cli("show", "--warehouse", wh, name)
    assert code == 0, err
    assert out.startswith('default."my.fn"\n') and '"my.fn"(x int) -> int' in out
    code, out, err = run_cli("emit", "--warehouse", wh, "--dialect", "spark", name)
    assert code == 0, err
    assert _names(out, "spark") == [parse_name(name)]  # named as written
    code, out, err = run_cli(
        "emit", "--warehouse", wh, "--dialect", "trino", name, "--name", 'hive.default."my.fn"'
    )
    assert code == 0, err
    assert _names(out, "trino") == [("hive", "default", "my.fn")]
    code, out, err = run_cli("history", "--warehouse", wh, name)
    assert code == 0 and out.startswith('default."my.fn": 2 log entries'), err


def test_the_trino_function_round_trips_in_both_dialects(wh: str) -> None:
    code, out, err = run_cli("emit", "--warehouse", wh, "--dialect", "spark", 's."my.fn"')
    assert code == 0, err
    assert "CREATE FUNCTION s.`my.fn`(x INT)" in out and _names(out, "spark") == [("s", "my.fn")]
    code, out, err = run_cli(
        "emit", "--warehouse", wh, "--dialect", "trino", 's."my.fn"', "--name", 'hive.s."my.fn"'
    )
    assert code == 0, err
    assert 'CREATE FUNCTION hive.s."my.fn"(x integer)' in out
    assert _names(out, "trino") == [("hive", "s", "my.fn")]


def test_rollback_and_drop_take_a_quoted_name(wh: str, tmp_path: Path) -> None:
    code, out, err = run_cli("rollback", "--warehouse", wh, "`my.fn`", "--to-log-entry", "1")
    assert code == 0, err
    assert 'rollback default."my.fn"(int) v2 -> v1' in out
    code, out, _ = run_cli("emit", "--warehouse", wh, "--dialect", "spark", '"my.fn"')
    assert "RETURN x + 1;" in out
    code, out, err = run_cli("drop", "--warehouse", wh, 's."my.fn"')
    assert code == 0 and out.startswith('dropped s."my.fn"'), err
    assert not (tmp_path / "wh" / "s" / "my.fn").exists()
    code, out, _ = run_cli("list", "--warehouse", wh, "--json")
    assert [f["function"] for f in json.loads(out)] == ['default."my.fn"']
    # my.fn was never two parts: ns my, function fn does not exist.
    code, _, err = run_cli("show", "--warehouse", wh, "my.fn")
    assert code == 1 and "does not exist" in err


@pytest.mark.parametrize("name", ['"my.fn', "`my.fn", "a..b", "a.", ".a", '"a"b', '""'])
@pytest.mark.parametrize(
    "command",
    [
        ("show",),
        ("history",),
        ("drop",),
        ("rollback", "--to-log-entry", "1"),
        ("emit", "--dialect", "spark"),
    ],
)
def test_a_malformed_name_is_bad_usage(wh: str, name: str, command: tuple[str, ...]) -> None:
    code, out, err = run_cli(command[0], "--warehouse", wh, name, *command[1:])
    assert code == 2, (out, err)
    assert "name" in err and "Traceback" not in err and out == ""


def test_emit_of_a_file_takes_a_quoted_name(tmp_path: Path) -> None:
    script = tmp_path / "s.sql"
    script.write_text(SPARK_DDL)
    out_dir = tmp_path / "out"
    code, _, err = run_cli(
        "compile", "--dialect", "spark", "--output-dir", str(out_dir), str(script)
    )
    assert code == 0, err
    [written] = list(out_dir.iterdir())
    assert written.name == '"my.fn".metadata.json'
    code, out, err = run_cli("emit", "--dialect", "spark", "--name", "s.`my.fn`", str(written))
    assert code == 0, err
    assert _names(out, "spark") == [("s", "my.fn")]
    code, _, err = run_cli("emit", "--dialect", "spark", "--name", "s.`my.fn", str(written))
    assert code == 2 and "not closed" in err
    # --into the written file: the statement for `my.fn` merges into it, another is refused.
    other = tmp_path / "o.sql"
    other.write_text("CREATE OR REPLACE FUNCTION fn(x INT) RETURNS INT RETURN x;\n")
    same = tmp_path / "same.sql"
    same.write_text("CREATE OR REPLACE FUNCTION `my.fn`(x INT) RETURNS INT RETURN x + 3;\n")
    code, _, err = run_cli(
        "compile", "--dialect", "spark", "--into", str(written), "-o", str(tmp_path / "x.json"),
        str(other),
    )  # fmt: skip
    assert code == 1 and "another function" in err
    code, _, err = run_cli(
        "compile", "--dialect", "spark", "--into", str(written), "-o", str(tmp_path / "y.json"),
        str(same),
    )  # fmt: skip
    assert code == 0, err


@pytest.mark.parametrize("name", ["`../x`", "`a/b`", "`..`", "`.x`.f"])
def test_a_hostile_dotted_name_is_refused_by_apply_and_compile(tmp_path: Path, name: str) -> None:
    script = tmp_path / "h.sql"
    script.write_text(f"CREATE FUNCTION {name}(x INT) RETURNS INT RETURN x;\n")
    code, _, err = run_cli(
        "apply", "--warehouse", str(tmp_path / "wh"), "--dialect", "spark", str(script)
    )
    assert code == 1 and "Traceback" not in err
    written = [p for p in tmp_path.rglob("*") if p.name.endswith(".metadata.json")]
    assert written == [] and not (tmp_path / "x").exists()


def test_namespace_takes_name_syntax(tmp_path: Path) -> None:
    script = tmp_path / "f.sql"
    script.write_text("CREATE FUNCTION f(x INT) RETURNS INT RETURN x;\n")
    root = str(tmp_path / "wh")
    for ns in ('"a.b"', "a.b"):  # one part holding a dot; two levels, as always
        code, _, err = run_cli(
            "apply", "--warehouse", root, "--namespace", ns, "--dialect", "spark", str(script)
        )
        assert code == 0, err
    assert (tmp_path / "wh" / "a%2Eb" / "f").is_dir() and (tmp_path / "wh" / "a.b" / "f").is_dir()
    code, out, _ = run_cli("list", "--warehouse", root, "--json")
    assert [f["function"] for f in json.loads(out)] == ['"a.b".f', "a.b.f"]
    code, out, _ = run_cli("show", "--warehouse", root, "--namespace", '"a.b"', "f", "--json")
    assert code == 0 and json.loads(out)["function"] == '"a.b".f'
    code, _, err = run_cli("list", "--warehouse", root, "--namespace", "a..b")
    assert code == 2 and "--namespace: invalid namespace part" in err
