"""Issue 15, class 9: after ``kill -9`` between two commits of ``apply`` or ``migrate``, the
re-run finishes the job: every function ends as one run would have left it, nothing twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hardening_cli import run_cli

SCRIPT = """\
CREATE FUNCTION ns.a(x INT) RETURNS INT RETURN x + 1;
CREATE FUNCTION ns.b(x INT) RETURNS INT RETURN x + 2;
CREATE OR REPLACE FUNCTION ns.a(x INT) RETURNS INT RETURN x + 10;
DROP FUNCTION ns.c;
CREATE FUNCTION ns.d(x INT) RETURNS INT RETURN x + 4;
"""

#: Runs the CLI in a child that dies like ``kill -9`` (no cleanup) right after its first commit.
KILLED_AFTER_FIRST_COMMIT = """
import os, sys
from translator.warehouse import commit
original = commit.FileCommitter.commit
def commit_then_die(self, *args, **kwargs):
    done = original(self, *args, **kwargs)
    os._exit(137)
commit.FileCommitter.commit = commit_then_die
from translator.cli import main
main(sys.argv[1:])
"""


def _killed(*argv: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_FIRST_COMMIT, *argv], capture_output=True, text=True
    )
    assert done.returncode == 137, done.stderr


def _state(wh: Path) -> dict[str, list[str]]:
    """Each live function's metadata files, and its current versions' bodies."""
    out = {}
    for fn in sorted(p for p in (wh / "ns").iterdir() if not p.name.startswith(".")):
        files = sorted((fn / "metadata").glob("*.metadata.json"))
        meta = json.loads(files[-1].read_text())
        bodies = [
            r["sql"]
            for d in meta["definitions"]
            for v in d["versions"]
            if v["version-id"] == d["current-version-id"]
            for r in v["representations"]
            if r["dialect"] == "spark"
        ]
        out[fn.name] = [f"{len(files)} file(s)", *bodies]
    return out


def _warehouse_with_c(tmp_path: Path) -> Path:
    wh = tmp_path / "wh"
    seed = tmp_path / "seed.sql"
    seed.write_text("CREATE FUNCTION ns.c(x INT) RETURNS INT RETURN x;")
    assert run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(seed))[0] == 0
    return wh


EXPECTED = {
    "a": ["1 file(s)", "x + 10"],
    "b": ["1 file(s)", "x + 2"],
    "d": ["1 file(s)", "x + 4"],
}


def test_crash_recovery_apply_rerun_finishes_the_job(tmp_path: Path) -> None:
    wh = _warehouse_with_c(tmp_path)
    script = tmp_path / "deploy.sql"
    script.write_text(SCRIPT)
    argv = ("apply", "--warehouse", str(wh), "--dialect", "spark", str(script))
    _killed(*argv)
    code, out, err = run_cli(*argv)
    assert code == 0, err
    assert _state(wh) == EXPECTED
    assert "committed ns.a" not in out  # committed once, by the run that was killed
    assert not list((wh / ".journal").glob("*.json"))  # a finished apply leaves no journal


@pytest.mark.parametrize("kills", [1, 2])
def test_crash_recovery_migrate_rerun_finishes_the_job(kills: int, tmp_path: Path) -> None:
    wh = _warehouse_with_c(tmp_path)
    src = tmp_path / "migrations"
    src.mkdir()
    (src / "V1__functions.sql").write_text(SCRIPT)
    argv = ("migrate", "--dialect", "spark", str(src), "--warehouse", str(wh))
    for _ in range(kills):
        _killed(*argv)
    code, _out, err = run_cli(*argv)
    assert code == 0, err
    assert _state(wh) == EXPECTED
    code, _, err = run_cli(*argv, "--report-json", str(tmp_path / "r.json"))
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["status"] == "unchanged"
    assert _state(wh) == EXPECTED


def test_crash_recovery_tells_another_writers_commit_from_its_own(tmp_path: Path) -> None:
    """The killed run had recorded ns.c's base (to drop it) but not committed it; another writer
    then replaced ns.c. The re-run must not take that commit for its own drop: it drops ns.c on
    top of it, says so, and the other writer's version stays in the dropped function's files."""
    wh = _warehouse_with_c(tmp_path)
    script = tmp_path / "deploy.sql"
    script.write_text(SCRIPT)
    argv = ("apply", "--warehouse", str(wh), "--dialect", "spark", str(script))
    _killed(*argv)
    other = tmp_path / "other.sql"
    other.write_text("CREATE OR REPLACE FUNCTION ns.c(x INT) RETURNS INT RETURN x + 300;")
    assert run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(other))[0] == 0
    code, out, err = run_cli(*argv)
    assert code == 0, err
    assert _state(wh) == EXPECTED
    assert "ns.c: another writer committed to it after the interrupted run started" in err
    assert "committed ns.a" not in out and "dropped ns.c" in out
    [kept] = (wh / "ns" / ".dropped").iterdir()
    assert len(list((kept / "metadata").glob("*.metadata.json"))) == 2
