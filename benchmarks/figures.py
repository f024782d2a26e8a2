"""Issue 17's target figures from the parts' JSON, one definition for every column of the
targets table (the interpreted build's in :func:`benchmarks.run.targets`, the native build's in
:func:`benchmarks.native_report.native_targets`): what each target's figure is and its limit."""

from __future__ import annotations

from typing import Any

#: Each target's limit (a figure is met when its worst run is at or under it).
OWN_US, COMPILE, FAST, MIGRATE = 300, 2.5, 1.5, 4.0


def span(values: list[float], fmt: str) -> str:
    """A range over runs as the tables write it (one figure when both ends print the same)."""
    lo, hi = min(values), max(values)
    if f"{lo:{fmt}}" == f"{hi:{fmt}}":
        return f"{lo:{fmt}}"
    return f"{lo:{fmt}}-{hi:{fmt}}"


def own_us(runs: list[dict[str, Any]]) -> list[float]:
    """Target 1: compile less all of its sqlglot work, µs a statement, each throughput run."""
    return [(r["cpu"]["compile"] - r["cpu"]["floor"]) / r["statements"] * 1e6 for r in runs]


def compile_ratio(runs: list[dict[str, Any]], baseline: str) -> list[float]:
    """Targets 2 and 3: compile's CPU over the ``baseline`` timing's, each throughput run."""
    return [r["cpu"]["compile"] / r["cpu"][baseline] for r in runs]


def migrate_ratio(runs: list[dict[str, Any]], key: str) -> tuple[list[float], list[float]]:
    """Target 4: the ``key`` migrations over the sqlglot-only processes, CPU and wall, each
    repetition."""
    cpu = [r[f"{key}_cpu"] / r["sqlglot_cpu"] for r in runs]
    wall = [r[key] / r["sqlglot"] for r in runs]
    return cpu, wall
