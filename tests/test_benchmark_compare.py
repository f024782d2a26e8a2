"""benchmarks/compare.py: each tree's compile runs in a process of its own, with that tree's
``translator``, and the outputs of the trees are compared by digest."""

from __future__ import annotations

from pathlib import Path

from benchmarks.compare import compare, table

ROOT = Path(__file__).resolve().parent.parent


def test_a_tree_against_itself_measures_both_and_matches() -> None:
    result = compare([str(ROOT), str(ROOT)], "pure", 30, 1, 1)
    runs = result["runs"][str(ROOT)]
    assert len(runs) == 2  # one per tree named, in turn
    for run in runs:
        assert run["translator"].startswith(str(ROOT))
        assert run["compile"] > 0 and run["baseline"] > 0
        assert len(run["ratios"]) == 1
    assert runs[0]["digest"] == runs[1]["digest"]
    assert "outputs identical" in table(result)


def test_the_table_says_when_outputs_differ() -> None:
    def run(ratio: float, digest: str) -> dict[str, object]:
        return {"ratios": [ratio], "compile": 1.0, "baseline": 0.5, "digest": digest}

    result = {
        "build": "pure",
        "statements": 10,
        "passes": 1,
        "runs": {"a": [run(2.0, "aa" * 32), run(2.2, "aa" * 32)], "b": [run(1.9, "bb" * 32)]},
    }
    text = table(result)
    assert "| a | 2.000-2.200x | 2.100x | 1.000 | aaaaaaaa |" in text
    assert text.endswith("OUTPUTS DIFFER")
