"""The long fuzz run (:mod:`tests.fuzz`) is kept working: a few cases of each kind, and what
it counts as a finding."""

from __future__ import annotations

import time
from pathlib import Path

from tests.fuzz import checks
from tests.fuzz.__main__ import main
from translator.errors import SqlSyntaxError


def test_a_short_run_of_both_kinds_finds_nothing(tmp_path: Path) -> None:
    argv = ["--cases", "40", "--seed", "7", "--command-share", "0.2", "--out", str(tmp_path)]
    assert main(argv, own_process=False) == 0
    assert not list(tmp_path.glob("finding-*"))


def test_a_finding_is_an_exception_or_a_slow_case_kept_with_its_input(tmp_path: Path) -> None:
    findings = checks.Findings(tmp_path)

    def refused() -> None:
        raise SqlSyntaxError("expected a type")

    def broken() -> None:
        raise KeyError("y")

    def slow() -> None:
        end = time.process_time() + 0.05
        while time.process_time() < end:
            pass

    checks.timed(findings, "compile", "ok", 5.0, refused)
    checks.timed(findings, "compile", "SET y = 1", 5.0, broken)
    checks.timed(findings, "compile", "slow input", 0.01, slow)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "finding-1.input",
        "finding-1.txt",
        "finding-2.input",
        "finding-2.txt",
    ]
    assert (tmp_path / "finding-1.input").read_text() == "SET y = 1"
    assert "KeyError" in (tmp_path / "finding-1.txt").read_text()
    assert (tmp_path / "finding-2.txt").read_text().startswith("slow-compile")


def test_a_case_that_never_ends_is_stopped(tmp_path: Path) -> None:
    findings = checks.Findings(tmp_path)
    start = time.perf_counter()

    def forever() -> None:
        while True:
            pass

    checks.timed(findings, "compile", "forever", 0.05, forever)
    assert time.perf_counter() - start < 10
    ((key, _),) = findings.seen.items()
    assert key.startswith("slow-compile: took ") and key.endswith("of CPU (limit 0.05 s)")
