"""``python -m tests.fuzz``: the long fuzz run (see :mod:`tests.fuzz`)."""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from tests.fuzz import checks, documents, scripts


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    p.add_argument("--minutes", type=float, default=30.0, help="how long to run (default 30)")
    p.add_argument("--cases", type=int, default=0, help="stop after this many cases (0: no limit)")
    p.add_argument("--seed", type=int, default=0, help="the random seed (default 0)")
    p.add_argument("--kind", choices=["scripts", "documents", "both"], default="both")
    p.add_argument(
        "--command-share", type=float, default=0.1, help="share of cases also run as commands"
    )
    p.add_argument("--out", type=Path, default=None, help="where findings are written")
    p.add_argument(
        "--memory-mb", type=int, default=2048, help="address space the run may use (MemoryError)"
    )
    return p.parse_args(argv)


def main(argv: list[str] | None = None, *, own_process: bool = True) -> int:
    """Run cases until the time or the count is up; exit 1 if anything was found.
    ``own_process``: the run may set the process's recursion and memory limits (not when a
    test calls it)."""
    args = _arguments(argv)
    if own_process:
        sys.setrecursionlimit(1000)  # what the command runs with, whatever the caller set
        limit = args.memory_mb * 2**20  # a case that grows without end fails, not the host
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    rng = random.Random(args.seed)
    out = args.out or Path(tempfile.mkdtemp(prefix="iceberg-udf-fuzz-"))
    out.mkdir(parents=True, exist_ok=True)
    findings = checks.Findings(out)
    end = time.monotonic() + args.minutes * 60
    n = 0
    start = time.monotonic()
    while time.monotonic() < end and (not args.cases or n < args.cases):
        n += 1
        commands = rng.random() < args.command_share
        tmp = Path(tempfile.mkdtemp(prefix="iceberg-udf-case-")) if commands else None
        if args.kind == "scripts" or (args.kind == "both" and n % 2):
            dialect = rng.choice(["spark", "trino"])
            sql = scripts.script(rng, dialect)
            checks.script_case(findings, sql, dialect, rng)
            if tmp is not None:
                checks.script_commands(findings, sql, dialect, tmp)
        else:
            text = documents.document(rng)
            checks.document_case(findings, text, rng)
            if tmp is not None:
                checks.document_commands(findings, text, tmp)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if n % 500 == 0:
            print(f"{n} cases, {time.monotonic() - start:.0f} s, {len(findings.seen)} findings")
    print(f"done: {n} cases, {len(findings.seen)} findings, written to {out}", flush=True)
    return 1 if findings.seen else 0


if __name__ == "__main__":
    raise SystemExit(main())
