"""benchmarks/run.py and tables.py: the targets table (the native build's column, target 5's rows)
and the merge table, from parts' JSON."""

from __future__ import annotations

from typing import Any

from benchmarks import native_report, run, tables


def _rows(first: tuple[float, float], warm: tuple[float, float]) -> list[dict[str, Any]]:
    out = []
    for shape in ("definitions", "versions"):
        for n, f, w in zip((10_000, 100_000), first, warm, strict=True):
            out.append({"shape": shape, "n": n, "first": f, "add": w, "replace": w, "unchanged": w})
    return out


def test_the_first_merge_is_a_column_and_counts_in_target_5() -> None:
    rows = [r | {"copy": 1.0, "dump": 1.0} for r in _rows((0.010, 0.095), (0.002, 0.006))]
    table = tables.merge_section({"rows": rows})
    assert "first merge (add overload): ms" in table
    assert "| growth 10k -> 100k | 9.5x | 3.0x | 3.0x | 3.0x | 1.0x | 1.0x |" in table
    pure = [{"cpu": {"compile": 3.0, "floor": 1.6, "baseline": 1.0}, "statements": 2000}]
    merges = {"rows": rows, "commits": _rows((1, 12), (1, 5))}
    _, targets = run.targets(pure, [], None, merges)
    merge, commit = targets[-2], targets[-1]
    assert merge[1].startswith("9.5x (the first merge into a model just made 9.5x, the others 3.0x")
    assert merge[3] is True
    assert commit[1] == "12.0x" and commit[3] is False


def _throughput(own_us: float, ratio: float, digest: str, fast: bool = False) -> dict[str, Any]:
    """A throughput part's JSON: compile ``ratio`` x the baseline, ``own_us`` beyond the floor."""
    n = 2000
    floor = 1.6
    cpu = {"baseline": 1.0, "floor": floor, "compile": floor + own_us * n / 1e6}
    cpu["baseline"] = cpu["compile"] / ratio
    if fast:
        cpu["pure_baseline"] = cpu["baseline"]
    return {"cpu": cpu, "statements": n, "digest": digest}


def _migrate(**ratios: float) -> dict[str, Any]:
    run = {"sqlglot": 1.0, "sqlglot_cpu": 1.0}
    for key, ratio in ratios.items():
        run |= {key: ratio, f"{key}_cpu": ratio, f"{key}_failed": 0}
    return {"statements": 2000, "runs": [run]}


def _cells(table: str, row: str) -> list[str]:
    (line,) = [line for line in table.splitlines() if line.startswith(f"| {row} ")]
    return [c.strip() for c in line.strip("|").split("|")]


def test_the_targets_table_has_the_native_build_beside_the_interpreted_one() -> None:
    pure = [_throughput(380, 2.9, "d1"), _throughput(370, 2.8, "d1")]
    fast = [_throughput(330, 1.65, "d1", fast=True)]
    npure = [_throughput(290, 2.45, "d1"), _throughput(310, 2.55, "d1")]
    nfast = [_throughput(300, 1.45, "d1", fast=True)]
    migrate = _migrate(pure=4.3, installed=3.4, native_pure=3.9, native_installed=3.1)
    same = all(native_report.same_output(*p)[0] for p in ((pure, npure), (fast, nfast)))
    cells = native_report.native_targets("unused", npure, nfast, migrate, True, same)
    table, rows = run.targets(pure, fast, migrate, {"rows": []}, cells)
    assert "native build (`ICEBERG_UDF_MYPYC=1`)" in table.splitlines()[0]
    assert _cells(table, "1.")[1:] == ["370-380 µs", "290-310 µs", "<= 300 µs", "**no**", "**no**"]
    assert _cells(table, "2.")[1:3] == ["2.80-2.90x", "2.45-2.55x"]
    assert _cells(table, "3.")[2:] == ["1.45x (with sqlglotc)", "<= 1.5x", "**no**", "yes"]
    assert _cells(table, "4.")[2:] == ["3.9x (wall 3.9x)", "<= 4x", "**no**", "yes"]
    assert _cells(table, "4'.")[2] == "3.1x (wall 3.1x)"
    assert _cells(table, "5.")[2] == "-"
    assert [r[0].split()[0] for r in rows] == ["1.", "2.", "3.", "4.", "4'.", "5."]
    note = native_report.native_note("mypyc, 31 compiled modules", (pure, fast), (npure, nfast))
    assert "with pure-Python sqlglot byte-identical (sha256 d1)" in note
    assert "with sqlglotc byte-identical" in note


def test_a_native_build_not_made_says_why_in_every_native_cell() -> None:
    pure = [_throughput(380, 2.9, "d1")]
    why = "not built: mypyc is not installed (setup.py names the mypy to use)"
    cells = native_report.native_targets(why, [], [], _migrate(pure=4.3), False)
    table, _ = run.targets(pure, [], _migrate(pure=4.3), {"rows": []}, cells)
    assert _cells(table, "1.")[2] == why and _cells(table, "2.")[2] == why
    assert _cells(table, "3.")[2] == "sqlglotc not installed"
    assert _cells(table, "4.")[2] == why
    assert _cells(table, "1.")[5] == "-"  # met: nothing to judge
    assert native_report.native_note(why, (pure, []), ([], [])) == f"Native build: {why}."
    # Without the native build asked for, the table is the interpreted one alone.
    plain, _ = run.targets(pure, [], None, {"rows": []})
    assert "native" not in plain.splitlines()[0]


def test_a_native_build_with_different_output_meets_no_target() -> None:
    pure = [_throughput(380, 2.9, "d1")]
    npure = [_throughput(200, 2.0, "d2")]
    same, digests = native_report.same_output(pure, npure)
    assert not same and digests == ["d1", "d2"]
    cells = native_report.native_targets("-", npure, [], None, False, same)
    assert cells["1."] == ("200 µs (output differs)", False)
    assert cells["2."] == ("2.00x (output differs)", False)
    note = native_report.native_note("mypyc", ([*pure], []), (npure, []))
    assert "**DIFFERENT** (sha256 d1, d2)" in note
