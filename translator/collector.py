"""How iceberg-udf asks CPython's cyclic garbage collector to behave during its big spans.

The collector is process-wide, so every setting the library makes is for a span (a ``with``
block) and undone when the last span of any thread ends; spans of several threads are counted,
so one thread's end never cuts another's short. The command (an application) may set it for its
whole run (:func:`for_a_whole_run`). Nothing here changes a result: the collector only ever
decides when unreachable cycles are freed, so a setting costs or saves memory and time, never
correctness. A caller's own choice wins: a collector that was off stays off, and a caller who
already spaced young collections further than we would keeps their thresholds.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

__all__ = ["SPACED_THRESHOLD", "bulk_allocation", "for_a_whole_run", "spaced_collections"]

#: The spans of :func:`bulk_allocation` open in this process (any thread), and whether the
#: collector was on when the first of them began.
_paused = {"spans": 0, "was_enabled": False}
_pause_lock = threading.Lock()


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """Pause the cyclic garbage collector while many objects without cycles are made.

    For metadata with 100k definitions, the collector's full passes over the heap (millions of
    objects) cost more than the work itself, and nothing made here can form a cycle for it to
    find. The first span turns the collector off if it was on, the last turns it back on.
    Another thread's garbage waits until then: memory only, never a wrong result.
    """
    with _pause_lock:
        if _paused["spans"] == 0:
            _paused["was_enabled"] = gc.isenabled()
            gc.disable()
        _paused["spans"] += 1
    try:
        yield
    finally:
        with _pause_lock:
            _paused["spans"] -= 1
            if _paused["spans"] == 0 and _paused["was_enabled"]:
                gc.enable()


#: The young generation's threshold during a compile: allocations of tracked objects (less
#: deallocations) between two young collections. CPython's default is 700.
SPACED_THRESHOLD = 10_000

#: The spans of :func:`spaced_collections` open (any thread), the thresholds found when the
#: first began, and the ones it set (None: it left them alone).
_spaced: dict[str, Any] = {"spans": 0, "found": None, "set": None}
_spaced_lock = threading.Lock()

_P = ParamSpec("_P")
_R = TypeVar("_R")


class _SpacedCollections:
    """A span of :func:`spaced_collections`: a context manager, and a decorator that runs the
    function inside one. A plain class rather than ``contextlib``: every call of
    ``compile_script`` and ``parse_script`` opens one, and ``contextlib``'s generator, its
    decorator's fresh context manager and their frames cost more than the span's own work."""

    __slots__ = ()

    def __enter__(self) -> None:
        _open_spaced()

    def __exit__(self, *exc: object) -> None:
        _close_spaced()

    def __call__(self, func: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(func)
        def spaced(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            _open_spaced()
            try:
                return func(*args, **kwargs)
            finally:
                _close_spaced()

        return spaced


_SPACED_SPAN = _SpacedCollections()


def spaced_collections() -> _SpacedCollections:
    """Space the collector's young collections out while SQL is parsed and transpiled (a
    ``with`` block, or a decorator for a whole function).

    A statement's compile allocates thousands of tracked objects that live for that statement
    only (sqlglot's trees, whose parent links make them cycles). With CPython's default
    threshold a young collection runs every 700 allocations, so it always finds one statement's
    trees alive, promotes them, and the promoted garbage adds up until it sets off full
    collections, each a walk over the caller's whole heap: on the benchmark corpus 6-7 full
    collections in 2,000 statements, 0.4 s of a 3.3 s compile. Collecting young objects every
    ``SPACED_THRESHOLD`` allocations instead finds most of those trees already dead: 2-3 full
    collections, the collector's time 0.55-0.64 -> 0.35 s, for at most that many extra dead
    objects alive at a time (a few MB). What a call leaves is collected at the caller's
    threshold soon after it (at the caller's next allocations), as it should be.
    """
    return _SPACED_SPAN


def _open_spaced() -> None:
    with _spaced_lock:
        if _spaced["spans"] == 0:
            found = gc.get_threshold()
            wanted = _spaced_thresholds(found)
            if wanted is not None:
                gc.set_threshold(*wanted)
            _spaced["found"], _spaced["set"] = found, wanted
        _spaced["spans"] += 1


def _close_spaced() -> None:
    with _spaced_lock:
        _spaced["spans"] -= 1
        if _spaced["spans"] == 0 and _spaced["set"] is not None:
            if gc.get_threshold() == _spaced["set"]:  # nobody changed them meanwhile
                gc.set_threshold(*_spaced["found"])
            _spaced["set"] = None


#: The middle generation's threshold during a whole run (:func:`for_a_whole_run`): young
#: collections between two collections of the middle generation (CPython's default is 10).
_MIDDLE_THRESHOLD = 50


@contextmanager
def for_a_whole_run() -> Iterator[None]:
    """The collector's settings for a whole run of an application (the ``iceberg-udf`` command):
    an application may choose them for its process; the library sets them for its spans only.

    Everything alive when a command starts (the modules, their classes and tables, about 66k
    tracked objects) stays alive until it ends, so it is frozen (``gc.freeze``: no collection
    walks it again); young collections are spaced to ``SPACED_THRESHOLD`` allocations for the
    whole run, not only inside compiles, and the middle generation is collected after
    ``_MIDDLE_THRESHOLD`` young collections instead of 10. Measured with ``gc.callbacks`` on a
    2,000-statement migration (two processes): the collector's own time 0.16-0.21 s a process ->
    0.07-0.10 s, full collections 2 -> 0; garbage the young collections promote waits longer
    to be freed (memory only). Undone when the run ends, as far as nobody changed it meanwhile:
    an embedding program's own freeze or thresholds are left as they were.
    """
    found = gc.get_threshold()
    wanted = _spaced_thresholds(found, _MIDDLE_THRESHOLD)
    if wanted is not None:
        gc.set_threshold(*wanted)
    froze = gc.get_freeze_count() == 0  # someone else's freeze is theirs to undo
    if froze:
        gc.freeze()
    try:
        yield
    finally:
        if froze:
            gc.unfreeze()
        if wanted is not None and gc.get_threshold() == wanted:  # nobody changed them meanwhile
            gc.set_threshold(*found)


def _spaced_thresholds(found: tuple[int, ...], middle: int = 0) -> tuple[int, ...] | None:
    """``found`` with young collections every ``SPACED_THRESHOLD`` allocations (and the middle
    generation's threshold at least ``middle``), or None to leave them: a young threshold of 0
    (collections off) or already wider is the caller's choice."""
    if not 0 < found[0] < SPACED_THRESHOLD:
        return None
    return (SPACED_THRESHOLD, max(found[1], middle), *found[2:])
