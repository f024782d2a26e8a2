"""What a command loads before its first statement: loaded with the collector paused, then
frozen with the rest of the start-up heap.

A run of the command freezes the heap it starts with (:func:`translator.collector.
for_a_whole_run`), so that no collection walks the modules again. But a command imports most of
what it runs after that, when it starts (the argument parser needs none of it): a migration
imports the compiler, the warehouse and both dialects there, about 100k objects (functions,
classes, tables) that all live until the process ends. Each young collection during those
imports walks up to ``SPACED_THRESHOLD`` of them and finds nothing to free: about 26M
instructions of a one-statement migration (1.4%). :func:`settled` runs such loading with the
collector paused and freezes what it made, as the run did with what it found.

Only inside a run that froze the heap itself (:func:`frozen_run`): an embedding program's
collector is its own, and the run's unfreeze at its end undoes this freeze too.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import import_module
from typing import TypeVar

from translator.collector import bulk_allocation
from translator.dialects import DIALECTS, get_dialect

__all__ = ["compiler", "frozen_run", "settled"]

_T = TypeVar("_T")

#: The runs open now that froze the heap themselves (and will unfreeze it when they end).
_RUNS = [0]


@contextmanager
def frozen_run(froze: bool) -> Iterator[None]:
    """A span of the command's run; ``froze``: whether the run froze the heap (its freeze is
    the one that ends with it)."""
    if not froze:
        yield
        return
    _RUNS[0] += 1
    try:
        yield
    finally:
        _RUNS[0] -= 1


def settled(load: Callable[[], _T]) -> _T:
    """``load()``: a command's imports and what it loads once before its first statement, with
    the cyclic collector paused, everything then alive frozen (inside a run that froze the heap:
    see :func:`frozen_run`; elsewhere just ``load()``)."""
    if not _RUNS[0]:
        return load()
    with bulk_allocation():
        loaded = load()
        gc.freeze()  # before the collector is back on: no collection in between walks it
    return loaded


def compiler(*modules: str) -> None:
    """Load the compiler, both dialects (a statement is read in one and its DDL emitted in
    both) and ``modules`` (a command's own, e.g. the migration's), settled: what a command that
    compiles loads before its first statement."""

    def load() -> None:
        import_module("translator.api")
        for module in modules:
            import_module(module)
        for name in DIALECTS:
            get_dialect(name)

    settled(load)
