"""A command's loading before its first statement: collector paused, what it made frozen, only
inside a run of the command that froze the heap itself."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import nullcontext

import pytest

from translator.cli import console
from translator.cli.loading import compiler, frozen_run, settled


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    thresholds, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    if enabled:
        gc.enable()


class _Node:
    """An object the collector tracks."""

    def __init__(self) -> None:
        self.peer: object = None


def _load_seen() -> tuple[list[_Node], dict[str, object]]:
    seen: dict[str, object] = {}

    def load() -> list[_Node]:
        seen["enabled"] = gc.isenabled()
        return [_Node() for _ in range(5_000)]

    return settled(load), seen


def test_inside_a_run_that_froze_the_load_runs_paused_and_what_it_made_is_frozen() -> None:
    with frozen_run(True):
        before = gc.get_freeze_count()
        made, seen = _load_seen()
        after = gc.get_freeze_count()
    assert seen["enabled"] is False
    assert gc.isenabled()
    assert after >= before + len(made)
    assert all(gc.is_tracked(n) for n in made)


def test_outside_a_run_or_under_a_callers_freeze_the_load_is_only_run() -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    for inside in (False, True):  # no run at all; a run that did not freeze (the caller did)
        with frozen_run(False) if inside else nullcontext():
            made, seen = _load_seen()
        assert len(made) == 5_000
        assert seen["enabled"] is True
        assert gc.get_freeze_count() <= frozen


def test_the_command_loads_settled_within_its_run_and_unfreezes_all_at_its_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: dict[str, int] = {}

    def command(argv: list[str]) -> int:
        seen["start"] = gc.get_freeze_count()
        made, _ = _load_seen()
        seen["loaded"] = gc.get_freeze_count() - len(made)
        return 0

    gc.unfreeze()
    monkeypatch.setattr(console, "_main", command)
    assert console.main(["--version"]) == 0
    assert seen["loaded"] >= seen["start"] > 1000
    assert gc.get_freeze_count() == 0


def test_a_compiling_command_loads_the_compiler_both_dialects_and_its_own_modules() -> None:
    from translator import dialects

    with frozen_run(True):
        compiler("translator.migrate.run")
        frozen = gc.get_freeze_count()
    assert gc.isenabled()
    assert {"translator.api", "translator.migrate.run"} <= set(sys.modules)
    assert set(dialects._LOADED) == set(dialects.DIALECTS)
    assert frozen > 1000
