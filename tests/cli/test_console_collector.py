"""The collector settings the ``iceberg-udf`` command makes for one run: import-time objects
frozen, collections spaced; undone when the run ends, and never over a caller's own choice."""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.conftest import ROOT
from translator.cli import console
from translator.collector import SPACED_THRESHOLD


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def _seen_during_a_run(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Run ``iceberg-udf`` with a command that records the collector's settings."""
    seen: dict[str, object] = {}

    def record(args: argparse.Namespace) -> int:
        seen["threshold"] = gc.get_threshold()
        seen["frozen"] = gc.get_freeze_count()
        return 0

    real = console._main
    monkeypatch.setattr(console, "_main", lambda argv: record(argparse.Namespace()))
    assert console.main(["--version"]) == 0
    monkeypatch.setattr(console, "_main", real)
    return seen


def test_a_run_freezes_what_exists_and_spaces_collections_then_undoes_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gc.set_threshold(700, 10, 10)
    seen = _seen_during_a_run(monkeypatch)
    assert seen["threshold"] == (SPACED_THRESHOLD, 50, 10)
    assert isinstance(seen["frozen"], int) and seen["frozen"] > 1000  # the modules, at least
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_a_callers_own_choices_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Collections turned off by a zero threshold stay off; a wider threshold stays; an
    embedding program's freeze is not undone by the run."""
    gc.set_threshold(0, 10, 10)
    assert _seen_during_a_run(monkeypatch)["threshold"] == (0, 10, 10)
    gc.set_threshold(50_000, 20, 10)
    assert _seen_during_a_run(monkeypatch)["threshold"] == (50_000, 20, 10)
    assert gc.get_threshold() == (50_000, 20, 10)
    gc.set_threshold(700, 10, 10)
    gc.freeze()
    frozen = gc.get_freeze_count()
    _seen_during_a_run(monkeypatch)
    # still frozen (an unfreeze empties it; frozen objects that die leave it one by one)
    assert frozen * 0.99 < gc.get_freeze_count() <= frozen


def test_thresholds_changed_during_the_run_are_left_as_the_run_leaves_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gc.set_threshold(700, 10, 10)

    def changes_them(argv: list[str]) -> int:
        gc.set_threshold(1234, 5, 5)
        return 0

    monkeypatch.setattr(console, "_main", changes_them)
    assert console.main(["--version"]) == 0
    assert gc.get_threshold() == (1234, 5, 5)


def test_the_heap_is_frozen_when_the_process_exits_not_before() -> None:
    """The run undoes its freeze when it ends (above); the command freezes the heap again only
    as the interpreter exits, so shutdown's collections skip it. A hook registered before the
    command runs after the command's (``atexit`` runs them last in, first out) and sees it."""
    probe = (
        "import atexit, gc\n"
        "atexit.register(lambda: print('at exit', gc.get_freeze_count() > 1000))\n"
        "from translator.cli.console import main\n"
        "code = main(['list', '--warehouse', 'no-such-folder'])\n"
        "print('after main', gc.get_freeze_count())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    assert out.splitlines() == ["after main 0", "at exit True"]
