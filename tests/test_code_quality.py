"""ruff and mypy (strict) are part of the suite, so style and typing cannot drift unnoticed."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint_and_format() -> None:
    lint = _run("ruff", "check", "translator", "tests", "benchmarks")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = _run("ruff", "format", "--check", "translator", "tests", "benchmarks")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy_strict_on_the_package_and_benchmarks() -> None:
    done = _run("mypy", "translator", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr
