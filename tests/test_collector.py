"""The collector settings of translator.collector: made for a span, undone by the last span of
any thread, and never over a caller's own choice."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from translator.collector import SPACED_THRESHOLD, bulk_allocation, spaced_collections


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was_enabled, thresholds = gc.isenabled(), gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)
    (gc.enable if was_enabled else gc.disable)()


def test_bulk_allocation_spans_of_several_threads_pause_the_collector_until_the_last_ends() -> None:
    """The first span turns the collector off, the last turns it back on; one that was off
    stays off."""
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with bulk_allocation():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    assert inside.wait(10)
    with bulk_allocation():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's span is still open
    release.set()
    t.join(10)
    assert gc.isenabled()
    gc.disable()
    with bulk_allocation():
        pass
    assert not gc.isenabled()


def test_spaced_collections_raise_the_young_threshold_for_the_span_only() -> None:
    gc.set_threshold(700, 10, 10)
    with spaced_collections():
        assert gc.get_threshold() == (SPACED_THRESHOLD, 10, 10)
        with spaced_collections():  # nested: still spaced, and the inner end restores nothing
            pass
        assert gc.get_threshold() == (SPACED_THRESHOLD, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_spaced_collections_of_several_threads_restore_when_the_last_ends() -> None:
    gc.set_threshold(500, 7, 9)
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with spaced_collections():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    assert inside.wait(10)
    with spaced_collections():
        pass
    assert gc.get_threshold() == (SPACED_THRESHOLD, 7, 9)  # the other thread's span is open
    release.set()
    t.join(10)
    assert gc.get_threshold() == (500, 7, 9)


@pytest.mark.parametrize("found", [(50_000, 10, 10), (0, 10, 10)])
def test_spaced_collections_keep_a_callers_wider_or_disabled_threshold(
    found: tuple[int, int, int],
) -> None:
    gc.set_threshold(*found)
    with spaced_collections():
        assert gc.get_threshold() == found
    assert gc.get_threshold() == found


def test_a_threshold_the_caller_sets_during_the_span_survives_its_end() -> None:
    gc.set_threshold(700, 10, 10)
    with spaced_collections():
        gc.set_threshold(2_000, 10, 10)
    assert gc.get_threshold() == (2_000, 10, 10)


def test_a_span_ends_on_an_exception_too() -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(RuntimeError), spaced_collections():
        raise RuntimeError("boom")
    assert gc.get_threshold() == (700, 10, 10)


def test_compile_script_runs_spaced_and_restores(monkeypatch: pytest.MonkeyPatch) -> None:
    import translator.api as api

    seen: list[tuple[int, int, int]] = []
    merge = vars(api)["merge_statements"]

    def recording_merge(*args: object, **kwargs: object) -> object:
        seen.append(gc.get_threshold())
        return merge(*args, **kwargs)

    monkeypatch.setattr(api, "merge_statements", recording_merge)
    gc.set_threshold(700, 10, 10)
    result = api.compile_script("CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1;", "spark")
    assert not result.errors and len(result.functions) == 1
    assert seen == [(SPACED_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)
