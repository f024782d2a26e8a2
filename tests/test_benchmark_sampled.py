"""benchmarks/sampled.py: how py-spy's raw stacks are counted into parts, modules and functions.

The lines are of the shape py-spy writes with ``--native`` (outermost frame first, the count
last), taken from a real run and shortened; py-spy itself is a benchmark extra, not installed
for the test suite.
"""

from __future__ import annotations

from benchmarks.sampled import read_raw, table

_LOOP = (
    "0x7f (libc.so.6);<module> (benchmarks/sampled.py:190);main (benchmarks/sampled.py:185);"
    "_child (benchmarks/sampled.py:140);_compile_slices (benchmarks/sampled.py:118);"
    "_compiled (benchmarks/sampled.py:126);_compile (benchmarks/throughput.py:143);"
    "compile_script (translator/api.py:130)"
)

LINES = [
    # our header loop, its own time (a builtin below it stays ours)
    f"{_LOOP};parse_statement (translator/statement_cache.py:120);"
    "parse_inline (translator/dialects/inline_loop.py:380) 7\n",
    f"{_LOOP};parse_inline (translator/dialects/inline_loop.py:380);"
    "_PyEval_EvalFrameDefault (libpython3.11.so.1.0) 3\n",
    # sqlglot, called from our code: sqlglot's, whatever is below it
    f"{_LOOP};transpile_body (translator/bodies.py:299);"
    "Parser.parse (sqlglot/parser.py:1500);deepcopy (copy.py:128) 5\n",
    # the collector set off inside sqlglot: the collector's
    f"{_LOOP};transpile_body (translator/bodies.py:299);Parser.parse (sqlglot/parser.py:1500);"
    "gc_collect_main (libpython3.11.so.1.0);subtract_refs (libpython3.11.so.1.0) 2\n",
    # pydantic under our metadata code
    f"{_LOOP};trusted (translator/metadata/model.py:70);"
    "BaseModel.__init__ (pydantic/main.py:250) 1\n",
    # the benchmark's own list, no frame of ours below the loop
    f"{_LOOP.rsplit(';', 1)[0]} 1\n",
    # outside the compile: the full collection between slices, the warm-up
    "0x7f (libc.so.6);<module> (benchmarks/sampled.py:190);"
    "_compile_slices (benchmarks/sampled.py:116);gc_collect (libpython3.11.so.1.0) 40\n",
    "0x7f (libc.so.6);_child (benchmarks/sampled.py:138);"
    "_compile (benchmarks/throughput.py:143);compile_script (translator/api.py:130) 9\n",
    # not a sample line
    "\n",
    "garbage\n",
]


def test_parts_modules_and_functions() -> None:
    shares = read_raw(LINES)
    assert shares.samples == 19  # 7 + 3 + 5 + 2 + 1 + 1: the samples inside _compiled only
    assert shares.parts == {"own": 11, "sqlglot": 5, "collector": 2, "pydantic": 1}
    assert shares.modules == {
        "translator/dialects/inline_loop.py": 10,
        "(the loop itself)": 1,
    }
    # compile_script is the outermost frame of ours; the innermost is what gets the sample
    assert shares.functions == {"parse_inline (translator/dialects/inline_loop.py)": 10}


def test_table_turns_shares_into_microseconds() -> None:
    shares = read_raw(LINES)
    result = {
        "statements": 1_000,
        "rate": 200,
        "cpu": 1.9,  # 1,900 µs a statement, 100 µs a sample's share of 1/19
        "samples": shares.samples,
        "parts": dict(shares.parts.most_common()),
        "modules": dict(shares.modules.most_common()),
        "functions": dict(shares.functions.most_common()),
    }
    text = table(result)
    assert "| own | 57.9% | 1100 |" in text
    assert "| collector | 10.5% | 200 |" in text
    assert "| translator/dialects/inline_loop.py | 52.6% | 1000 |" in text
