"""Where compile's CPU goes, by sampling: py-spy reads a compiling process's stacks, native
frames included, so that each sample lands where the CPU really was.

    python -m benchmarks.sampled [--statements N] [--rate HZ] [--json]

Why beside :mod:`benchmarks.phases`: a wrapper times a function with its callees and costs a
call of its own, and counts of Python opcodes (an earlier way to find our cost) overstate
Python loops against calls into C, so neither says what share of the CPU each part of the code
takes. A sample does: py-spy stops the process ``--rate`` times a second and records its stack,
Python and native frames, at no cost to the process between samples. Its native frames also
show what a wrapper cannot: the cyclic collector (``gc_collect`` in the interpreter), which
runs wherever an allocation sets it off.

With pure-Python sqlglot only (targets 1 and 2 are about the plain install): unwinding the
native stacks of sqlglotc's compiled modules stops the process for so long that its compile took
twice its CPU time under the sampler (5.9 s -> 11.6 s for 10,000 statements), and without native
frames the compiled code's time would be given to the Python frame that called it, ours.

Every sample taken inside the compile loop is put in one part, the first that applies:

* **collector**: a frame of CPython's cyclic garbage collector;
* **sqlglot**: a frame of sqlglot (the work of the baseline and its parse back);
* **lark**, **pydantic**: a frame of those libraries;
* **own**: the rest, our code and what it calls in the standard library and the interpreter,
  given to the module and function of the innermost frame of ours.

The child process compiles the corpus as :mod:`benchmarks.throughput` does (slice by slice,
the results dropped after each), reports its compile CPU time, and the shares turn into
microseconds a statement. It compiles alone, with no baseline run between its slices, so its
compile CPU time may come out a little above the throughput's. Needs py-spy (the ``bench``
extra) and leave to trace a child process (as root, or with ``ptrace`` allowed: most containers
and CI runners).
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: The frame every sample of a compile has on its stack (the child's compile of a slice; the
#: full collections between slices are outside it, as outside the throughput's timing).
_LOOP = "_compiled (benchmarks/sampled.py"

#: The parts, in the order a sample is tested against them, and what marks a frame of each.
_PARTS = (
    ("collector", ("gc_collect", "collect_with_callback", "collect_generations")),
    ("sqlglot", ("sqlglot/", "sqlglot\\")),
    ("lark", ("lark/", "lark\\", "lark_cython")),
    ("pydantic", ("pydantic/", "pydantic_core", "pydantic\\")),
)


@dataclass
class Shares:
    """Samples counted by part, and our own by module and by function (innermost of ours)."""

    samples: int = 0
    parts: Counter[str] = field(default_factory=Counter)
    modules: Counter[str] = field(default_factory=Counter)
    functions: Counter[str] = field(default_factory=Counter)


def _frame_file(frame: str) -> str:
    """``name (file:line)`` or ``name (library.so)`` -> the file (without the line)."""
    start = frame.rfind(" (")
    if start < 0 or not frame.endswith(")"):
        return ""
    return frame[start + 2 : -1].rsplit(":", 1)[0]


def _part(frames: list[str]) -> str:
    for part, marks in _PARTS:
        for frame in frames:
            if part == "collector":
                name = frame.split(" (", 1)[0]
                if name.startswith(marks):
                    return part
            elif any(mark in _frame_file(frame) for mark in marks):
                return part
    return "own"


def read_raw(lines: Any) -> Shares:
    """Count py-spy's raw output (``frame;frame;... count`` a line, outermost first): only the
    samples taken inside the compile loop."""
    shares = Shares()
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = stack.split(";")
        at = next((i for i, f in enumerate(frames) if f.startswith(_LOOP)), -1)
        if at < 0:
            continue
        inner = frames[at + 1 :]
        n = int(count)
        shares.samples += n
        part = _part(inner)
        shares.parts[part] += n
        if part != "own":
            continue
        ours = [f for f in inner if _frame_file(f).replace("\\", "/").startswith("translator/")]
        if not ours:
            shares.modules["(the loop itself)"] += n
            continue
        innermost = ours[-1]
        module = _frame_file(innermost).replace("\\", "/")
        shares.modules[module] += n
        shares.functions[f"{innermost.split(' (', 1)[0]} ({module})"] += n
    return shares


def _compile_slices(scripts: list[Any]) -> float:
    """Compile every script, slice by slice, dropping the results: the CPU seconds it took."""
    from benchmarks.throughput import _slices

    used = 0.0
    for chunk in _slices(scripts, 8):
        gc.collect()
        c0 = time.process_time()
        _compiled(chunk)
        used += time.process_time() - c0
    return used


def _compiled(scripts: list[Any]) -> None:
    """One slice's compile, the results dropped (the frame the samples are taken inside)."""
    from benchmarks.throughput import _compile

    _compile(scripts)


def _child(args: argparse.Namespace) -> None:
    from benchmarks import purepython

    purepython.install()
    from benchmarks.corpus import generate
    from benchmarks.throughput import _baseline, _bodies, _compile, _sqlglot_floor

    scripts = generate(args.statements, args.seed)
    warm = scripts[:40]  # as the throughput warms up: grammars, dialects, built-in lists
    _baseline(_bodies(warm))
    _sqlglot_floor(_bodies(warm))
    _compile(warm)
    cpu = _compile_slices(scripts)
    out = {"cpu": cpu, "statements": args.statements}
    Path(args.child).write_text(json.dumps(out), encoding="utf-8")


def py_spy() -> str | None:
    """The py-spy command beside this interpreter, or on the path; None where there is none."""
    here = Path(sys.executable).parent / "py-spy"
    return str(here) if here.exists() else shutil.which("py-spy")


def sample(statements: int, rate: int, seed: int = 20240607) -> dict[str, Any]:
    """Run the child under py-spy; the shares, with the child's compile CPU time."""
    spy = py_spy()
    if spy is None:
        raise SystemExit("py-spy is not installed (pip install -e '.[bench]')")
    with tempfile.TemporaryDirectory(prefix="iceberg-udf-sampled-") as tmp:
        raw, facts = Path(tmp) / "raw.txt", Path(tmp) / "child.json"
        cmd = [spy, "record", "--native", "-r", str(rate), "-f", "raw", "-o", str(raw), "--"]
        cmd += [sys.executable, "-m", "benchmarks.sampled", "--child", str(facts)]
        cmd += ["--statements", str(statements), "--seed", str(seed)]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
        if proc.returncode != 0 or not facts.exists():
            raise SystemExit(f"py-spy failed ({proc.returncode}): {proc.stderr.strip()[-600:]}")
        with raw.open(encoding="utf-8") as f:
            shares = read_raw(f)
        child = json.loads(facts.read_text(encoding="utf-8"))
    return {
        "statements": statements,
        "rate": rate,
        "cpu": child["cpu"],
        "samples": shares.samples,
        "parts": dict(shares.parts.most_common()),
        "modules": dict(shares.modules.most_common()),
        "functions": dict(shares.functions.most_common(40)),
    }


def table(result: dict[str, Any], top: int = 12) -> str:
    """The shares as Markdown: the parts, then our own code by module and by function."""
    total = result["samples"] or 1
    per = result["cpu"] / result["statements"] * 1e6  # µs of compile a statement

    def rows(counts: dict[str, int], limit: int | None = None) -> list[str]:
        items = list(counts.items())[:limit]
        return [f"| {k} | {v / total:.1%} | {v / total * per:.0f} |" for k, v in items]

    head = ["| where | share of compile's CPU | µs a statement |", "|---|---|---|"]
    return "\n".join(
        [
            f"Pure-Python sqlglot, {result['statements']:,} statements, compile "
            f"{result['cpu']:.2f} s of CPU ({per:.0f} µs a statement); {result['samples']:,} "
            f"samples at {result['rate']} Hz (py-spy, native frames included).",
            "",
            *head,
            *rows(result["parts"]),
            "",
            f"Our own code by module (the {top} largest):",
            "",
            *head,
            *rows(result["modules"], top),
            "",
            f"Our own code by function, with what it calls outside the libraries (the {top} "
            "largest):",
            "",
            *head,
            *rows(result["functions"], top),
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--statements", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--rate", type=int, default=200, help="samples a second")
    ap.add_argument("--json", action="store_true", help="the counts as one JSON object")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        _child(args)
        return
    result = sample(args.statements, args.rate, args.seed)
    print(json.dumps(result) if args.json else table(result))


if __name__ == "__main__":
    main()
