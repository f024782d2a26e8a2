"""One way to hold code to linear time: CPU time, best of three, with the cyclic collector paused.

The collector's passes over every live object grow with the heap, not with the algorithm under
test, and made 4x the input cost 6-11x on a busy host (4.1x with it paused); wall time on a
shared host is noisier still. Quadratic time would be 16x for 4x the input; linear is 4x, and
the bound of 8x leaves room for a loaded machine.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

__all__ = ["assert_linear"]


def _cpu_seconds(run: Callable[[int], object], size: int) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        run(size)
        return time.process_time() - start
    finally:
        gc.enable()


def assert_linear(run: Callable[[int], object], small: int, *, warm: int | None = None) -> None:
    """``run(4 * small)`` costs under 8x ``run(small)`` (each the best of three)."""
    _cpu_seconds(run, warm if warm is not None else max(1, small // 5))  # warm caches
    little = min(_cpu_seconds(run, small) for _ in range(3))
    large = min(_cpu_seconds(run, 4 * small) for _ in range(3))
    assert large < little * 8, (little, large)
