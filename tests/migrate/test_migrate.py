"""``iceberg-udf migrate``: a directory of legacy scripts into a real warehouse, with reports.

The fixtures in ``fixtures/migrations/`` are two legacy migration folders (Spark and Trino) that
mix table DDL, USE and SET with function DDL, overloads, replaced versions, lossy types,
untranslatable bodies and deliberately broken statements.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.migrate.helpers import (
    SPARK_DIR,
    TRINO_DIR,
    all_files,
    assert_every_file_valid,
    failures,
    fns_status,
    metadata_files,
    migrate,
    run_cli,
    write_dir,
)
from translator.cli import main
from translator.migrate import MigrationReport, list_migration_files, report_json, report_markdown
from translator.warehouse import Warehouse

# --------------------------------------------------------------------------------------------
# Order


def test_files_run_in_natural_order(tmp_path: Path) -> None:
    names = ["10_x.sql", "2_x.sql", "1_a.sql", "01_a.sql", "V10__b.SQL", "V2__a.sql", "b.sql"]
    src = write_dir(tmp_path / "src", dict.fromkeys(names, ""))
    (src / ".hidden.sql").write_text("")
    (src / "notes.txt").write_text("")
    (src / "sub").mkdir()
    (src / "sub" / "0_first.sql").write_text("")
    assert [p.name for p in list_migration_files(src)] == [
        "01_a.sql",
        "1_a.sql",
        "2_x.sql",
        "10_x.sql",
        "b.sql",
        "V2__a.sql",
        "V10__b.SQL",
    ]
    with pytest.raises(NotADirectoryError):
        list_migration_files(src / "notes.txt")
    # The Trino fixture depends on it: V10 replaces a function V2 creates.
    assert [p.name for p in list_migration_files(TRINO_DIR)] == [
        "V1__init.sql",
        "V2__compound.sql",
        "V10__replace.sql",
        "V11__fix_clamp.sql",
    ]


def test_sql_files_in_sub_folders_are_named_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_dir(tmp_path / "src", {"1_a.sql": "CREATE FUNCTION a() RETURNS INT RETURN 1;\n"})
    for rel in ("sub/2_b.sql", "sub/deeper/10_c.SQL", "sub/9_c.sql", ".git/x.sql", "sub/.h/y.sql"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text("CREATE FUNCTION b() RETURNS INT RETURN 2;\n")
    report = migrate(src, tmp_path / "wh", "spark")
    assert [(w.code, w.file) for w in report.warnings] == [
        ("not-read", "sub/2_b.sql"),
        ("not-read", "sub/9_c.sql"),
        ("not-read", "sub/deeper/10_c.SQL"),
    ]
    assert report.exit_code == 0 and report.summary()["warnings"] == 3
    code = main(["migrate", "--dialect", "spark", str(src), "--warehouse", str(tmp_path / "w2")])
    err = capsys.readouterr().err
    assert code == 0 and f"{src}/sub/2_b.sql: warning[not-read]: sub-folders are not read" in err


# --------------------------------------------------------------------------------------------
# The fixtures, end to end


def test_spark_legacy_directory(tmp_path: Path, snapshot: Any) -> None:
    root = tmp_path / "wh"
    report = migrate(SPARK_DIR, root, "spark")

    assert report.exit_code == 1 and report.status == "failed"
    assert [f.file for f in report.files] == [
        "1_orders_schema.sql",
        "2_reporting.sql",
        "10_pricing_v2.sql",
        "11_cleanup.sql",
    ]
    # Each broken statement, at its place in its own file; everything else went on.
    assert failures(report) == [
        ("10_pricing_v2.sql", 10, 35, "syntax"),  # unclosed parameter list
        ("10_pricing_v2.sql", 16, 3, "merge"),  # return type changed
        ("10_pricing_v2.sql", 22, 1, "merge"),  # DROP of a function that never existed
    ]
    fns = {
        k: (v.status, [(d.definition_id, d.versions) for d in v.definitions])
        for k, v in report.functions.items()
    }
    assert fns == {
        "default.add_one": ("created", [("int", (1, 2))]),
        "default.shout": ("created", [("string", (1,))]),
        "sales.big_orders": ("created", [("decimal(10,2)", (1,))]),
        "sales.discount_rate": ("absent", []),
        "sales.greet": ("created-and-dropped", []),
        "sales.legacy_discount": ("absent", []),
        "sales.net_price": ("created", [("decimal(10,2),double", (1, 2))]),
        "sales.region_code": ("created", [("string", (1,))]),
        # created after its broken twin failed, in the same file
        "sales.tax": ("created", [("double", (1,))]),
    }
    lossy = [(w.function, w.code) for w in report.warnings if w.category == "lossy"]
    assert lossy == [("sales.region_code", "lossy-type")]  # greet's DEFAULT is kept
    untranslatable = [w for w in report.warnings if w.category == "untranslatable"]
    assert [(w.function, w.file, w.line) for w in untranslatable] == [
        ("sales.big_orders", "2_reporting.sql", 7)
    ]
    assert report.functions["sales.big_orders"].definitions[0].dialects == ("spark",)
    # USE sales held for the rest of its file only: 11_cleanup.sql has none.
    uses = [s.detail for f in report.files for s in f.statements if s.head.startswith("USE")]
    assert uses == ["USE: unqualified function names go to namespace sales"] * 3
    assert report.summary() == {
        "files": 4,
        "statements": 23,
        "applied": 10,
        "unchanged": 2,
        "already-applied": 0,
        "skipped": 8,
        "failed": 3,
        "functions-created": 6,
        "functions-updated": 0,
        "functions-dropped": 0,
        "functions-unchanged": 0,
        "warnings": 0,
        "lossy": 1,
        "untranslatable": 1,
    }
    # One apply per file: one metadata file per changed function and file (greet's is kept
    # under sales/.dropped/ since its DROP).
    assert assert_every_file_valid(root) == 9
    committed = [p for f in report.files for p in f.committed]
    assert len(committed) == 9
    assert [p for p in committed if not (root / p).is_file()] == [
        "sales/greet/metadata/00001-550a6bc9-53a9-517f-89f1-714d6cc2717f.metadata.json"
    ]
    assert report.files[2].dropped == ["sales.greet"]
    for name, fn in report.functions.items():
        if fn.metadata_file is not None:
            assert (root / fn.metadata_file).is_file(), name

    doc = json.loads(report_json(report))
    assert doc["functions"]["sales.region_code"]["lossy"][0]["line"] == 18
    assert doc["functions"]["sales.region_code"]["failures"][0]["line"] == 16
    assert report_json(report) == snapshot(name="json")
    assert report_markdown(report) == snapshot(name="markdown")


def test_trino_legacy_directory_through_the_cli(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    snapshot: Any,
) -> None:
    monkeypatch.chdir(ROOT)
    root, out_json, out_md = tmp_path / "wh", tmp_path / "r.json", tmp_path / "r.md"
    code, out, err = run_cli(
        capsys,
        "migrate",
        "--dialect",
        "trino",
        "fixtures/migrations/trino_legacy",
        "--warehouse",
        str(root),
        "--namespace",
        "lake",
        "--report-json",
        str(out_json),
        "--report-md",
        str(out_md),
    )
    assert code == 1
    doc = json.loads(out_json.read_text())
    assert [(f["file"], f["line"], f["column"], f["function"]) for f in doc["failures"]] == [
        # plain CREATE of an existing signature
        ("V10__replace.sql", 9, 1, "analytics.add_one"),
        # hyperloglog has no Iceberg type (the name is read from the tokens)
        ("V10__replace.sql", 14, 41, "analytics.sketch"),
        # unbalanced parentheses
        ("V11__fix_clamp.sql", 4, 38, "analytics.clamp_level"),
    ]
    assert fns_status(doc) == {
        "analytics.add_one": "created",
        "analytics.clamp_level": "created",
        "analytics.sketch": "absent",
        "analytics.triangular": "created",
        "lake.meaning_of_life": "created",
    }
    fns = doc["functions"]
    assert fns["lake.meaning_of_life"]["status"] == "created"  # V2, then replaced by V10
    assert [c["action"] for c in fns["lake.meaning_of_life"]["statements"]] == [
        "created-function",
        "new-version",
    ]
    add_one = fns["analytics.add_one"]
    assert [(d["id"], d["versions"]) for d in add_one["definitions"]] == [("int", [1, 2])]
    assert [c["status"] for c in add_one["statements"]] == [
        "applied",
        "applied",
        "applied",
        "unchanged",  # the same CREATE OR REPLACE deployed twice
        "failed",
        "applied",  # DROP FUNCTION add_one(double)
    ]
    assert [w["code"] for w in fns["analytics.clamp_level"]["lossy"]] == ["lossy-type"] * 4
    # A compound body is lowered to one Spark expression.
    assert fns["analytics.triangular"]["untranslatable"] == []
    assert fns["analytics.triangular"]["definitions"][0]["dialects"] == ["spark", "trino"]
    # Trino's USE does not move function names; the report says so.
    use = doc["files"][0]["statements"][1]
    assert use["statement"] == "USE lake.analytics" and "stay in namespace lake" in use["detail"]
    assert assert_every_file_valid(root) == 7

    # Diagnostics name the file as given, with line, column and a caret.
    assert "fixtures/migrations/trino_legacy/V10__replace.sql:14:41: error: Trino type" in err
    assert out_json.read_text() == snapshot(name="json")
    assert out_md.read_text() == snapshot(name="markdown")
    assert out == snapshot(name="summary")


# --------------------------------------------------------------------------------------------
# Failures never stop the batch


def test_a_broken_statement_in_the_middle_stops_nothing(tmp_path: Path) -> None:
    src = write_dir(
        tmp_path / "src",
        {
            "1_a.sql": "-- header\n"
            "CREATE FUNCTION one() RETURNS INT RETURN 1;\n"
            "CREATE TABLE t (x INT);\n"
            "CREATE FUNCTION broken(x INT RETURNS INT RETURN x;\n"
            "CREATE FUNCTION two() RETURNS INT RETURN 2;\n"
            "DROP FUNCTION missing;\n"
            "  CREATE FUNCTION three() RETURNS INT RETURN 3;\n",
            "2_b.sql": "CREATE OR REPLACE FUNCTION two() RETURNS INT RETURN 22;\n",
        },
    )
    root = tmp_path / "wh"
    report = migrate(src, root, "spark")
    assert failures(report) == [("1_a.sql", 4, 30, "syntax"), ("1_a.sql", 6, 1, "merge")]
    assert [f.function for f in report.failures] == ["default.broken", "default.missing"]
    statuses = [(s.line, s.column, s.status) for s in report.files[0].statements]
    assert statuses == [
        (2, 1, "applied"),
        (3, 1, "skipped"),
        (4, 1, "failed"),
        (5, 1, "applied"),
        (6, 1, "failed"),
        (7, 3, "applied"),
    ]
    assert [s.status for s in report.files[1].statements] == ["applied"]
    assert {k: v.status for k, v in report.functions.items()} == {
        "default.broken": "absent",  # named by the statement that does not parse
        "default.missing": "absent",
        "default.one": "created",
        "default.three": "created",
        "default.two": "created",
    }
    with Warehouse(root) as wh:
        assert wh.load("two").metadata.definitions[0].current_version_id == 2
        assert sorted(str(i.ref) for i in wh.functions()) == [
            "default.one",
            "default.three",
            "default.two",
        ]
    assert assert_every_file_valid(root) == 4


@pytest.mark.parametrize(
    ("dialect", "statement", "name"),
    [
        ("spark", "CREATE FUNCTION `Sales`.`Bad``s`(x INT RETURNS INT RETURN x;", "sales.bad`s"),
        ("trino", 'CREATE FUNCTION "Sales"."Bad""s"(x int RETURNS int RETURN x;', 'sales.bad"s'),
    ],
)
def test_a_statement_that_does_not_parse_is_filed_under_its_name(
    tmp_path: Path, dialect: str, statement: str, name: str
) -> None:
    """Quoted names as the engine reads them: Trino folds them to lower case, Spark does not."""
    src = write_dir(tmp_path / "src", {"1.sql": statement + "\n"})
    report = migrate(src, tmp_path / "wh", dialect)
    assert [(f.function, f.code) for f in report.failures] == [(name, "syntax")]


def test_an_unterminated_string_fails_the_rest_of_its_file_only(tmp_path: Path) -> None:
    src = write_dir(
        tmp_path / "src",
        {
            "1.sql": "CREATE FUNCTION one() RETURNS STRING RETURN 'a';\n"
            "CREATE FUNCTION two() RETURNS STRING\n"
            "  RETURN 'oops;\n"
            "CREATE FUNCTION three() RETURNS INT RETURN 3;\n",
            "2.sql": "CREATE FUNCTION four() RETURNS INT RETURN 4;\n",
        },
    )
    report = migrate(src, tmp_path / "wh", "spark")
    assert failures(report) == [("1.sql", 3, 10, "syntax")]
    assert "unterminated string literal" in report.failures[0].message
    rows = [(s.line, s.kind, s.status) for s in report.files[0].statements]
    assert rows == [(1, "function", "applied"), (2, "function", "failed")]
    assert sorted(report.functions) == ["default.four", "default.one"]


def test_one_file_that_cannot_be_read_is_a_failure(tmp_path: Path) -> None:
    src = write_dir(tmp_path / "src", {"2.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;"})
    (src / "1.sql").write_bytes(b"CREATE FUNCTION \xff() RETURNS INT RETURN 1;")
    report = migrate(src, tmp_path / "wh", "spark")
    assert failures(report) == [("1.sql", None, None, "unreadable")]
    assert report.files[0].status == "failed" and report.files[1].status == "applied"


def test_a_name_written_two_ways_in_one_file_is_applied_statement_by_statement(
    tmp_path: Path,
) -> None:
    # One apply refuses a script naming one function two ways; the migration then applies the
    # file's statements one at a time, and both go in.
    src = write_dir(
        tmp_path / "src",
        {
            "1.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;\n"
            "CREATE OR REPLACE FUNCTION default.f() RETURNS INT RETURN 2;\n"
        },
    )
    report = migrate(src, tmp_path / "wh", "spark")
    assert report.ok
    assert [s.status for s in report.files[0].statements] == ["applied", "applied"]
    assert report.functions["default.f"].definitions[0].versions == (1, 2)
    assert len(metadata_files(tmp_path / "wh")) == 2


# --------------------------------------------------------------------------------------------
# Namespaces


def test_spark_use_moves_unqualified_names_for_the_rest_of_its_file(tmp_path: Path) -> None:
    src = write_dir(
        tmp_path / "src",
        {
            "1.sql": "CREATE FUNCTION a() RETURNS INT RETURN 1;\n"
            "USE `Sales`;\n"
            "CREATE FUNCTION b() RETURNS INT RETURN 2;\n"
            "USE NAMESPACE spark_catalog.hr;\n"
            "CREATE FUNCTION c() RETURNS INT RETURN 3;\n"
            "CREATE FUNCTION other.d() RETURNS INT RETURN 4;\n"
            "USE `.hidden`;\n"
            "CREATE FUNCTION e() RETURNS INT RETURN 5;\n",
            "2.sql": "CREATE FUNCTION f() RETURNS INT RETURN 6;\n",
        },
    )
    report = migrate(src, tmp_path / "wh", "spark", namespace="base")
    assert sorted(report.functions) == [  # Spark folds `Sales` to sales, as its catalog does
        "base.a",
        "base.f",
        "hr.c",
        "hr.e",
        "other.d",
        "sales.b",
    ]
    assert failures(report) == [("1.sql", 7, 1, "error")]
    assert "invalid namespace '.hidden'" in report.failures[0].message


# --------------------------------------------------------------------------------------------
# Exit codes


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write_dir(tmp_path / "good", {"1.sql": "CREATE FUNCTION f(x INT) RETURNS INT RETURN x;"})
    lossy = write_dir(
        tmp_path / "lossy", {"1.sql": "CREATE FUNCTION g(s VARCHAR(3)) RETURNS STRING RETURN s;"}
    )
    wh = str(tmp_path / "wh")

    def cli(*argv: str) -> int:
        return run_cli(capsys, "migrate", "--dialect", "spark", *argv)[0]

    assert cli(str(good), "--warehouse", wh) == 0
    assert cli(str(SPARK_DIR), "--warehouse", str(tmp_path / "wh2")) == 1
    # --strict refuses the lossy translation: a failure; without it, a warning.
    assert cli(str(lossy), "--warehouse", str(tmp_path / "wh3"), "--strict") == 1
    assert not (tmp_path / "wh3" / "default" / "g").exists()
    assert cli(str(lossy), "--warehouse", str(tmp_path / "wh3")) == 0

    (tmp_path / "empty").mkdir()
    for argv, message in [
        ((str(tmp_path / "missing"), "--warehouse", wh), "no such directory"),
        ((str(good / "1.sql"), "--warehouse", wh), "not a directory"),
        ((str(tmp_path / "empty"), "--warehouse", wh), "no .sql files"),
        ((str(good),), "--warehouse DIR is required"),
        ((str(good), "--warehouse", wh, "--namespace", ".x"), "--namespace"),
        ((str(good), "--warehouse", wh, "--report-md", str(tmp_path / "no" / "r.md")), "no"),
        ((str(good), "--warehouse", wh, "--report-json", str(tmp_path)), "is a directory"),
    ]:
        code, _, err = run_cli(capsys, "migrate", "--dialect", "spark", *argv)
        assert code == 2, argv
        assert message in err, (argv, err)
    with pytest.raises(SystemExit) as exit_info:  # argparse: no --dialect
        main(["migrate", str(good), "--warehouse", wh])
    assert exit_info.value.code == 2


#: The CLI run in a fresh process; prints its exit code and whether it loaded the migration run.
_LOADED_AFTER = """
import sys
from translator.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as e:
    code = e.code
print(code, "translator.migrate.run" in sys.modules)
"""


def test_bad_usage_exits_before_the_compiler_is_loaded(tmp_path: Path) -> None:
    """A mistyped source folder, report path or namespace is found before the compiler (about
    0.1 s) is loaded; an empty folder needs the migration's own listing of scripts."""
    import subprocess
    import sys

    good = write_dir(tmp_path / "good", {"1.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;"})
    (tmp_path / "empty").mkdir()
    wh = str(tmp_path / "wh")
    for argv, loaded in [
        ((str(tmp_path / "missing"), "--warehouse", wh), False),
        ((str(good), "--warehouse", wh, "--report-json", str(tmp_path)), False),
        ((str(good), "--warehouse", wh, "--namespace", ".x"), False),
        ((str(tmp_path / "empty"), "--warehouse", wh), True),
    ]:
        done = subprocess.run(
            [sys.executable, "-c", _LOADED_AFTER, "migrate", "--dialect", "spark", *argv],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert done.stdout.split() == ["2", str(loaded)], (argv, done.stdout, done.stderr)
    assert not (tmp_path / "wh").exists()


# --------------------------------------------------------------------------------------------
# Dry run


def test_dry_run_writes_nothing_and_plans_what_a_run_does(tmp_path: Path) -> None:
    root = tmp_path / "wh"
    plan = migrate(SPARK_DIR, root, "spark", dry_run=True)
    assert not root.exists()
    done = migrate(SPARK_DIR, root, "spark")
    assert plan.dry_run and not done.dry_run
    assert plan.summary() == done.summary()
    assert plan.failures == done.failures and plan.warnings == done.warnings

    def statuses(r: MigrationReport) -> list[tuple[str, int, str, str | None]]:
        return [
            (s.file, s.line, s.status, s.change.action if s.change else None)
            for f in r.files
            for s in f.statements
        ]

    assert statuses(plan) == statuses(done)
    assert all(f.committed == [] for f in plan.files)
    assert all(fn.metadata_file is None for fn in plan.functions.values())

    # On an existing warehouse: starts from its functions, changes none of its files.
    extra = write_dir(
        tmp_path / "extra",
        {
            "1.sql": "CREATE OR REPLACE FUNCTION sales.net_price(p DECIMAL(10,2), r DOUBLE) "
            "RETURNS DOUBLE RETURN p;\nDROP FUNCTION sales.tax;\n"
        },
    )
    before = all_files(root)
    plan = migrate(extra, root, "spark", dry_run=True)
    assert plan.ok and all_files(root) == before
    assert {k: v.status for k, v in plan.functions.items()} == {
        "sales.net_price": "updated",
        "sales.tax": "dropped",
    }
    assert plan.functions["sales.net_price"].definitions[0].versions == (1, 2, 3)


def test_cli_dry_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "wh"
    code, out, _ = run_cli(
        capsys,
        "migrate",
        "--dialect",
        "trino",
        str(TRINO_DIR),
        "--warehouse",
        str(root),
        "--dry-run",
    )
    assert code == 1 and not root.exists()
    assert out.startswith("Dry run of the migration") and "nothing was written" in out
