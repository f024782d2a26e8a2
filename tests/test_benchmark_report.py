"""benchmarks/run.py: the merge and commit tables and target 5's row, from a part's JSON."""

from __future__ import annotations

from typing import Any

from benchmarks import run


def _rows(first: tuple[float, float], warm: tuple[float, float]) -> list[dict[str, Any]]:
    out = []
    for shape in ("definitions", "versions"):
        for n, f, w in zip((10_000, 100_000), first, warm, strict=True):
            out.append({"shape": shape, "n": n, "first": f, "add": w, "replace": w, "unchanged": w})
    return out


def test_the_first_merge_is_a_column_and_counts_in_target_5() -> None:
    rows = [r | {"copy": 1.0, "dump": 1.0} for r in _rows((0.010, 0.095), (0.002, 0.006))]
    table = run.merge_section({"rows": rows})
    assert "first merge (add overload): ms" in table
    assert "| growth 10k -> 100k | 9.5x | 3.0x | 3.0x | 3.0x | 1.0x | 1.0x |" in table
    pure = [{"cpu": {"compile": 3.0, "floor": 1.6, "baseline": 1.0}, "statements": 2000}]
    merges = {"rows": rows, "commits": _rows((1, 12), (1, 5))}
    _, targets = run.targets(pure, [], None, merges)
    merge, commit = targets[-2], targets[-1]
    assert merge[1].startswith("9.5x (the first merge into a model just made 9.5x, the others 3.0x")
    assert merge[3] is True
    assert commit[1] == "12.0x" and commit[3] is False
