"""Running a migration again changes nothing: the ledger of applied statements
(``translator.migrate.ledger``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.migrate.helpers import (
    SPARK_DIR,
    all_files,
    assert_every_file_valid,
    failures,
    metadata_files,
    migrate,
    write_dir,
)
from translator.cli.output import summary_text
from translator.migrate import migrate_directory
from translator.warehouse import MetadataCache, Warehouse


def test_running_a_migration_again_changes_nothing(tmp_path: Path) -> None:
    src = write_dir(
        tmp_path / "src",
        {
            "1.sql": "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1;\n"
            "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 1;\n"
            "CREATE FUNCTION g() RETURNS INT RETURN 0;\n",
            "2.sql": "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 2;\n"
            "DROP FUNCTION g;\n",
            # an old body again: a real revert, not the same statement as 1.sql's
            "3.sql": "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 1;\n",
        },
    )
    root = tmp_path / "wh"
    first = migrate(src, root, "spark")
    assert first.ok and first.status == "applied"
    assert first.functions["default.f"].definitions[0].versions == (1, 2, 3)
    before = all_files(root)

    again = migrate(src, root, "spark")
    assert again.ok and again.exit_code == 0
    assert again.status == "unchanged"
    assert {s.status for f in again.files for s in f.statements} == {"already-applied"}
    assert {k: v.status for k, v in again.functions.items()} == {
        "default.f": "unchanged",
        "default.g": "absent",
    }
    assert again.functions["default.f"].definitions[0].versions == (1, 2, 3)
    assert all_files(root) == before  # not one new file: no metadata, no ledger entry
    assert "unchanged" in summary_text(again)


def test_running_the_fixture_again_writes_no_metadata(tmp_path: Path) -> None:
    root = tmp_path / "wh"
    first = migrate(SPARK_DIR, root, "spark")
    count, before = len(metadata_files(root)), all_files(root)
    again = migrate(SPARK_DIR, root, "spark")
    assert len(metadata_files(root)) == count and all_files(root) == before
    # The broken statements are tried again, and fail again; the rest were applied before.
    assert failures(again) == failures(first) and again.exit_code == 1
    s = again.summary()
    assert (s["applied"], s["unchanged"], s["already-applied"]) == (0, 0, 12)
    assert s["functions-created"] == s["functions-updated"] == 0


def test_fixing_a_broken_statement_and_running_again_applies_just_it(tmp_path: Path) -> None:
    src = write_dir(
        tmp_path / "src",
        {
            "1.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;\n"
            "CREATE FUNCTION g( RETURNS INT RETURN 2;\n"
        },
    )
    root = tmp_path / "wh"
    assert failures(migrate(src, root, "spark")) == [("1.sql", 2, 32, "syntax")]
    (src / "1.sql").write_text(
        "CREATE FUNCTION f() RETURNS INT RETURN 1;\nCREATE FUNCTION g() RETURNS INT RETURN 2;\n"
    )
    fixed = migrate(src, root, "spark")
    assert fixed.ok
    assert [s.status for s in fixed.files[0].statements] == ["already-applied", "applied"]
    assert {k: v.status for k, v in fixed.functions.items()} == {
        "default.f": "unchanged",
        "default.g": "created",
    }
    assert not fixed.warnings  # the applied statement is still in the file


def test_an_applied_file_that_was_edited_is_reported(tmp_path: Path) -> None:
    src = write_dir(tmp_path / "src", {"1.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;\n"})
    root = tmp_path / "wh"
    migrate(src, root, "spark")
    (src / "1.sql").write_text("CREATE FUNCTION f() RETURNS INT RETURN 2;\n")
    edited = migrate(src, root, "spark")
    assert [(w.code, w.file) for w in edited.warnings] == [("ledger-mismatch", "1.sql")]
    # The edited statement is a new one: a plain CREATE of an existing function fails.
    assert failures(edited) == [("1.sql", 1, 1, "merge")]


def test_the_ledger_is_kept_per_dialect(tmp_path: Path) -> None:
    spark = write_dir(tmp_path / "s", {"1.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;"})
    trino = write_dir(tmp_path / "t", {"1.sql": "DROP FUNCTION IF EXISTS f();"})
    root = tmp_path / "wh"
    migrate(spark, root, "spark")
    assert migrate(trino, root, "trino").functions["default.f"].status == "dropped"
    assert sorted(p.name for p in (root / ".migrations").iterdir()) == ["spark", "trino"]


def test_a_catalog_warehouse_migrates_and_reruns(tmp_path: Path) -> None:
    src = write_dir(tmp_path / "src", {"1.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;"})
    root = tmp_path / "wh"
    for expected in ("applied", "unchanged"):
        with Warehouse(root, catalog="sqlite", cache=MetadataCache()) as wh:
            report = migrate_directory(src, wh, "spark")
        assert report.ok and report.status == expected
    assert_every_file_valid(root)


def _ledger_docs(root: Path, dialect: str) -> list[dict[str, Any]]:
    folder = root / ".migrations" / dialect
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def test_a_committed_batch_is_its_journal_linked_into_the_ledger(tmp_path: Path) -> None:
    """A batch that commits has its journal carry the ledger's entry, and that file becomes the
    ledger's (one synced file fewer); a batch that commits nothing writes its entry alone."""
    src = write_dir(
        tmp_path / "src",
        {
            "1.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;\n"
            "CREATE FUNCTION g() RETURNS INT RETURN 2;\n",
            "2.sql": "CREATE OR REPLACE FUNCTION f() RETURNS INT RETURN 1;\n",  # unchanged
        },
    )
    root = tmp_path / "wh"
    assert migrate(src, root, "spark").ok
    first, second = _ledger_docs(root, "spark")
    assert first["file"] == "1.sql" and len(first["statements"]) == 2
    assert [(f["name"], f["base"]) for f in first["functions"]] == [
        ("f", None),
        ("g", None),
    ]
    assert second["file"] == "2.sql" and "functions" not in second
    assert [p.stat().st_nlink for p in (root / ".migrations" / "spark").glob("*.json")] == [1, 1]
    assert not list((root / ".journal").glob("*.json"))
    assert migrate(src, root, "spark").status == "unchanged"


def test_ledger_files_without_a_journal_are_read_as_before(tmp_path: Path) -> None:
    """Every ledger file written as earlier versions wrote them (the entry alone) still counts."""
    src = write_dir(tmp_path / "src", {"1.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;"})
    root = tmp_path / "wh"
    migrate(src, root, "spark")
    for p in (root / ".migrations" / "spark").glob("*.json"):
        doc = json.loads(p.read_text())
        del doc["functions"]
        p.unlink()
        p.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    again = migrate(src, root, "spark")
    assert again.status == "unchanged"
    assert {s.status for f in again.files for s in f.statements} == {"already-applied"}


#: Runs the CLI in a child that dies like ``kill -9`` right after the ledger took the journal.
KILLED_AFTER_LINK = """
import os, sys
from translator.warehouse import store
original = store.LocalStore.link_exclusive
def link_then_die(self, *args, **kwargs):
    original(self, *args, **kwargs)
    os._exit(137)
store.LocalStore.link_exclusive = link_then_die
from translator.cli import main
main(sys.argv[1:])
"""


def test_a_crash_after_the_ledger_took_the_journal_leaves_the_batch_applied(
    tmp_path: Path,
) -> None:
    src = write_dir(
        tmp_path / "src",
        {
            "1.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;\n"
            "CREATE OR REPLACE FUNCTION f() RETURNS INT RETURN 2;\n"
        },
    )
    root = tmp_path / "wh"
    argv = ["migrate", "--dialect", "spark", str(src), "--warehouse", str(root)]
    done = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_LINK, *argv], capture_output=True, text=True
    )
    assert done.returncode == 137, done.stderr
    again = migrate(src, root, "spark")
    assert again.status == "unchanged"
    assert {s.status for f in again.files for s in f.statements} == {"already-applied"}
    assert again.functions["default.f"].definitions[0].versions == (1, 2)
    assert len(metadata_files(root)) == 1
