"""Before and after: two checkouts' compile against the sqlglot baseline, measured in turn.

    python -m benchmarks.compare BEFORE AFTER [--rounds 5] [--statements 2000] [--passes 3]
                                 [--build pure|installed] [--json]

``BEFORE`` and ``AFTER`` are folders holding a checkout's ``translator`` package, or git
revisions of this repository (each checked out into a temporary worktree, removed after). Why a
tool of its own: on a shared 2-core VM the same tree's compile varies by 4-5% from one process to
the next, more than most single changes buy, and a change that cuts opcodes can cost CPU
(``benchmarks/HISTORY.md``, session 18). So each round runs a fresh process per tree, the trees in
turn, and each process times its compile against the baseline in the same process (slice by
slice, as :mod:`benchmarks.throughput` does), the best of ``--passes`` passes; the ratios of all
rounds give each tree's range and mean, and a change is worth keeping only where the ranges
part. Every process also hashes what compile produced (metadata, changes, warnings, errors): the
two trees' digests must be equal, or the change is not exact.

The corpus and the timing code are this checkout's; only ``translator`` comes from each tree.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: The child: ``translator`` from the tree named first, the benchmark's code from this checkout.
_CHILD = """
import sys
tree, root = sys.argv[1], sys.argv[2]
sys.path.insert(0, tree)
if sys.argv[3] == "pure":
    sys.path.insert(0, root)
    from benchmarks import purepython
    purepython.install()
    sys.path.remove(root)
import translator
sys.path.remove(tree)
sys.path.insert(0, root)
from benchmarks.compare import child
child(int(sys.argv[4]), int(sys.argv[5]), translator.__file__)
"""


def child(statements: int, passes: int, loaded: str) -> None:
    """Time compile against the baseline, slice by slice, ``passes`` times; print one JSON line:
    the best pass's CPU seconds, every pass's ratio, and the digest of compile's output."""
    import gc
    import hashlib
    import time

    from benchmarks.corpus import generate
    from benchmarks.throughput import _baseline, _bodies, _compile, _digest, _slices

    scripts = generate(statements, 20240607)
    slices = _slices(scripts, 8)
    bodies = [_bodies(chunk) for chunk in slices]
    _baseline(_bodies(scripts[:40]))
    _compile(scripts[:40])
    ratios, compiles, baselines = [], [], []
    digest = hashlib.sha256()
    for n in range(passes):
        spent = {"baseline": 0.0, "compile": 0.0}
        for chunk, chunk_bodies in zip(slices, bodies, strict=True):
            gc.collect()
            c0 = time.process_time()
            _baseline(chunk_bodies)
            spent["baseline"] += time.process_time() - c0
            gc.collect()
            c0 = time.process_time()
            results = _compile(chunk)
            spent["compile"] += time.process_time() - c0
            if n == 0:
                _digest(digest, results, [])  # compile's output only: no emit is run here
            del results
        ratios.append(spent["compile"] / spent["baseline"])
        compiles.append(spent["compile"])
        baselines.append(spent["baseline"])
    out = {
        "translator": loaded,
        "compile": min(compiles),
        "baseline": min(baselines),
        "ratios": ratios,
        "digest": digest.hexdigest(),
    }
    print(json.dumps(out))


@contextlib.contextmanager
def checkout(spec: str) -> Iterator[Path]:
    """``spec`` as a folder holding ``translator``: itself, or a git revision checked out into
    a temporary worktree for the block."""
    path = Path(spec)
    if (path / "translator").is_dir():
        yield path.resolve()
        return
    with tempfile.TemporaryDirectory(prefix="iceberg-udf-compare-") as tmp:
        where = Path(tmp) / "tree"
        git = ["git", "-C", str(ROOT)]
        made = subprocess.run(
            [*git, "worktree", "add", "--detach", "--", str(where), spec],
            capture_output=True,
            text=True,
            check=False,
        )
        if made.returncode != 0:
            raise SystemExit(
                f"{spec!r} is neither a checkout nor a revision: {made.stderr.strip()}"
            )
        try:
            yield where
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(where)], check=False)


def run_one(tree: Path, build: str, statements: int, passes: int) -> dict[str, Any]:
    cmd = [sys.executable, "-c", _CHILD, str(tree), str(ROOT), build, str(statements), str(passes)]
    proc = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"the run of {tree} failed:\n{proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    if not result["translator"].startswith(str(tree)):
        raise SystemExit(f"{tree}: translator was loaded from {result['translator']}")
    return result


def compare(
    specs: list[str], build: str, statements: int, passes: int, rounds: int
) -> dict[str, Any]:
    """Every tree's runs, round by round, the trees in turn."""
    with contextlib.ExitStack() as stack:
        trees = [stack.enter_context(checkout(spec)) for spec in specs]
        runs: dict[str, list[dict[str, Any]]] = {spec: [] for spec in specs}
        for _ in range(rounds):
            for spec, tree in zip(specs, trees, strict=True):
                runs[spec].append(run_one(tree, build, statements, passes))
    return {"build": build, "statements": statements, "passes": passes, "runs": runs}


def table(result: dict[str, Any]) -> str:
    """Each tree's best-pass ratio over the rounds (range and mean), and whether outputs match."""
    lines = [
        f"{result['build']} sqlglot, {result['statements']:,} statements, best of "
        f"{result['passes']} passes a process, {len(next(iter(result['runs'].values())))} rounds",
        "",
        "| tree | compile / baseline (range) | mean | compile CPU, best (s) | digest |",
        "|---|---|---|---|---|",
    ]
    digests: set[str] = set()
    for spec, runs in result["runs"].items():
        best = [min(r["ratios"]) for r in runs]
        digests.update(r["digest"] for r in runs)
        lines.append(
            f"| {spec} | {min(best):.3f}-{max(best):.3f}x | {statistics.mean(best):.3f}x | "
            f"{min(r['compile'] for r in runs):.3f} | {runs[0]['digest'][:8]} |"
        )
    lines += ["", "outputs identical" if len(digests) == 1 else "OUTPUTS DIFFER"]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="+", help="checkout folders or git revisions")
    ap.add_argument("--build", choices=["pure", "installed"], default="pure")
    ap.add_argument("--statements", type=int, default=2_000)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = compare(args.trees, args.build, args.statements, args.passes, args.rounds)
    print(json.dumps(result) if args.json else table(result))
    digests = {r["digest"] for runs in result["runs"].values() for r in runs}
    if len(digests) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()
