"""How the commands that read a function's metadata grow with its history.

A function's metadata file holds every version of every definition and a definition-log whose
entries each name a version of every definition then current: ``n`` overloads created one
statement at a time make a log of ``n`` entries naming ``n(n+1)/2`` versions in all, so the file
grows with the square of ``n`` (1,000 overloads: ~50 MiB); ``n`` versions of one definition make
a file that grows with ``n``. For each shape this builds the function at ``n`` and ``2n`` (one
``apply`` of a script, in a warehouse of its own), then runs each command on it in a fresh
process and prints its CPU time, its peak memory, and its CPU time per MiB of the file: a
command linear in what it reads keeps that last figure about the same at both sizes.

    python -m benchmarks.long_histories [--n N] [--shapes overloads versions] [--only show ...]

(sizes by default: 500 overloads, 20,000 versions: files of ~12 and ~10 MiB at ``n``)

Not part of ``python -m benchmarks`` (a few minutes); no figure here is a target.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

_THIRD = ("integer", "bigint", "double", "varchar", "date", "boolean")


def _overload(i: int) -> str:
    """The ``i``-th of up to 8,664 signatures (two decimal precisions and a third type)."""
    a, b, c = 1 + i % 38, 1 + i // 38 % 38, _THIRD[i // 1444]
    return f"CREATE FUNCTION f(a DECIMAL({a},0), b DECIMAL({b},0), c {c}) RETURNS INT RETURN 1;"


#: The ``i``-th statement of a shape's script (``i`` counts from 0).
SHAPES: dict[str, Callable[[int], str]] = {
    "overloads": _overload,
    "versions": lambda i: f"CREATE OR REPLACE FUNCTION f(a INT) RETURNS INT RETURN a + {i};",
}

#: Each shape's ``n`` unless ``--n`` is given.
DEFAULT_N = {"overloads": 500, "versions": 20_000}

#: Each command's arguments after ``iceberg-udf``: ``{wh}`` is the warehouse, ``{file}`` the
#: function's current metadata file. Rollback writes a new file: it runs last.
COMMANDS: dict[str, list[str]] = {
    "validate": ["validate", "{file}"],
    "list": ["list", "--warehouse", "{wh}"],
    "show": ["show", "--warehouse", "{wh}", "f"],
    "show --log-entry 2": ["show", "--warehouse", "{wh}", "--log-entry", "2", "f"],
    "history": ["history", "--warehouse", "{wh}", "f"],
    "history --json": ["history", "--warehouse", "{wh}", "--json", "f"],
    "emit": ["emit", "--dialect", "trino", "--allow-lossy", "--warehouse", "{wh}", "f"],
    "rollback": ["rollback", "--warehouse", "{wh}", "--to-log-entry", "1", "f"],
}

#: Run one command in this process (its output dropped) and write its CPU time and peak memory.
_ONE = """
import contextlib, io, json, resource, sys, time
from translator.cli.console import main
started = time.process_time()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[2:])
usage = resource.getrusage(resource.RUSAGE_SELF)
with open(sys.argv[1], "w") as out:
    json.dump({"cpu": time.process_time() - started, "rss_mib": usage.ru_maxrss / 1024,
               "code": code}, out)
"""


def _run(args: list[str], report: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _ONE, str(report), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not report.exists():
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-2000:]}")
    figures: dict[str, float] = json.loads(report.read_text())
    report.unlink()
    if figures["code"] != 0:
        raise SystemExit(f"{' '.join(args)} exited with {figures['code']}")
    return figures


def _build(folder: Path, shape: str, n: int) -> Path:
    """A warehouse whose function ``f`` has the shape at size ``n``; its current file."""
    script = folder / "f.sql"
    script.write_text("\n".join(SHAPES[shape](i) for i in range(n)))
    wh = folder / "wh"
    _run(["apply", "--warehouse", str(wh), "--dialect", "trino", str(script)], folder / "out")
    (current,) = sorted((wh / "default" / "f" / "metadata").glob("*.metadata.json"))
    return current


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=None, help="n for every shape")
    ap.add_argument("--shapes", nargs="*", default=list(SHAPES))
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    names = args.only or list(COMMANDS)
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            n0 = args.n or DEFAULT_N[shape]
            sizes = (n0, 2 * n0)
            files = {}
            for n in sizes:
                (Path(tmp) / f"{shape}{n}").mkdir()
                files[n] = _build(Path(tmp) / f"{shape}{n}", shape, n)
            mib = {n: os.path.getsize(files[n]) / 2**20 for n in sizes}
            print(
                f"\n{shape}: n = {sizes[0]} ({mib[sizes[0]]:.1f} MiB), {sizes[1]} "
                f"({mib[sizes[1]]:.1f} MiB)\n"
            )
            print(
                "| command | CPU at n | CPU at 2n | ratio | CPU per MiB at n, 2n | peak MiB at 2n |"
            )
            print("|---|---|---|---|---|---|")
            for name in names:
                got = {}
                for n in sizes:
                    wh = files[n].parents[3]
                    cmd = [a.format(wh=wh, file=files[n]) for a in COMMANDS[name]]
                    got[n] = _run(cmd, Path(tmp) / "out")
                small, large = got[sizes[0]], got[sizes[1]]
                print(
                    f"| {name} | {small['cpu']:.2f} s | {large['cpu']:.2f} s "
                    f"| {large['cpu'] / max(small['cpu'], 0.001):.1f} "
                    f"| {small['cpu'] / mib[sizes[0]]:.3f}, {large['cpu'] / mib[sizes[1]]:.3f} s "
                    f"| {large['rss_mib']:.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
