"""Run every benchmark, print the tables and write them to ``benchmarks/results.md``.

    .venv/bin/python -m benchmarks            # everything (about 9 minutes on 2 cores)
    .venv/bin/python -m benchmarks --tracemalloc   # and trace Python allocations (+2 minutes)
    .venv/bin/python -m benchmarks --quick    # 2,000 statements, merges up to 10k, no Spark

Each measurement runs in its own process (``benchmarks.throughput``, ``benchmarks.merge_scaling``,
``benchmarks.spark_batch``), so the sqlglot build, memory and Spark sessions do not leak from one
into the next. The native build (``benchmarks.native``) is made once per run and measured beside
the interpreted one (throughput and migrate, targets 1-4); ``--no-native`` skips it.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib.metadata
import itertools
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.figures import (
    COMPILE,
    FAST,
    MIGRATE,
    OWN_US,
    compile_ratio,
    migrate_ratio,
    own_us,
    span,
)
from benchmarks.native import NativeBuild, native_build, process_env
from benchmarks.native_report import native_note, native_targets, same_output
from benchmarks.sampled import py_spy
from benchmarks.sampled import table as sampled_table
from benchmarks.tables import (
    commit_section,
    memory_section,
    merge_section,
    spark_section,
    table,
    throughput_section,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


#: ``--reuse DIR``: each part's JSON is kept there, and a part already there is not run again.
_REUSE: list[Path] = []
_SEEN: dict[str, int] = {}


class PartFailed(SystemExit):
    """A part's process failed (it ends the run, unless the part is the native build's)."""


def _run(
    module: str,
    *args: str,
    label: str = "",
    env: dict[str, str] | None = None,
    more: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Run a part; with ``--reuse``, its JSON is kept under a name made of its arguments and
    ``label`` (a variant the arguments do not name, such as the native build's runs). ``env``
    is its process's environment, ``more`` arguments that are not part of its name (paths)."""
    name = "_".join([module, *args, *([label] if label else [])]).replace("-", "")
    name = name.replace("/", "")
    _SEEN[name] = _SEEN.get(name, 0) + 1
    kept = _REUSE[0] / f"{name}_{_SEEN[name]}.json" if _REUSE else None
    if kept is not None and kept.exists():
        return json.loads(kept.read_text())  # type: ignore[no-any-return]
    result = _run_process(module, *args, *more, env=env, label=label)
    if kept is not None:
        kept.write_text(json.dumps(result))
    return result


def _run_process(
    module: str, *args: str, env: dict[str, str] | None = None, label: str = ""
) -> dict[str, Any]:
    cmd = [sys.executable, "-m", f"benchmarks.{module}", *args]
    print(f"  $ {' '.join(cmd[1:])}{f'  ({label})' if label else ''}", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        raise PartFailed(f"{module} failed ({proc.returncode})")
    print(f"    {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _spark_available() -> bool:
    return _version("pyspark") is not None and shutil.which("java") is not None


#: The timed cells of a merge or a commit (benchmarks.merge_scaling).
_CELLS = ("first", "add", "replace", "unchanged")


def _growth(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> list[float]:
    out = []
    for shape in ("definitions", "versions"):
        mine = [r for r in rows if r["shape"] == shape]
        for a, b in itertools.pairwise(mine):
            out += [(b[k] / a[k]) / (b["n"] / a["n"]) * 10 for k in keys]
    return out


def targets(
    pure: list[dict[str, Any]],
    fast: list[dict[str, Any]],
    migrate: dict[str, Any] | None,
    merges: dict[str, Any],
    native: dict[str, tuple[str, bool | None]] | None = None,
) -> tuple[str, list[tuple[str, str, str, bool | None]]]:
    """Issue 17's five targets: (what, figure with its range over runs, target, met), and the
    table of them, with a column of the native build's figures (by row number, as
    :func:`benchmarks.native_report.native_targets` gives them) when ``native`` is given."""
    rows: list[tuple[str, str, str, bool | None]] = []
    own = own_us(pure)
    rows.append(
        (
            "1. our own time per statement beyond sqlglot's work (compile less all its sqlglot "
            "work, pure-Python sqlglot)",
            f"{span(own, '.0f')} µs",
            f"<= {OWN_US} µs",
            max(own) <= OWN_US,
        )
    )
    ratio = compile_ratio(pure, "baseline")
    rows.append(
        (
            "2. compile, both representations, plain install / pure-sqlglot baseline",
            f"{span(ratio, '.2f')}x",
            f"<= {COMPILE}x",
            max(ratio) <= COMPILE,
        )
    )
    if fast:
        ratio = compile_ratio(fast, "pure_baseline")
        rows.append(
            (
                "3. compile with the fast extras (sqlglotc) / the same pure-sqlglot baseline "
                "(timed by a pure-Python process between the slices)",
                f"{span(ratio, '.2f')}x",
                f"<= {FAST}x",
                max(ratio) <= FAST,
            )
        )
    else:
        rows.append(
            ("3. compile with the fast extras", "sqlglotc not installed", f"<= {FAST}x", None)
        )
    if migrate is not None:
        ratio, wall = migrate_ratio(migrate["runs"], "pure")
        secs = [r["pure"] for r in migrate["runs"]]
        failed = max(int(r.get("pure_failed", 0)) for r in migrate["runs"])
        refused = f"; {failed:,} statements refused, as compile refuses them" if failed else ""
        rows.append(
            (
                f"4. `migrate` of {migrate['statements']:,} generated statements into a new "
                "warehouse, whole processes / processes running only sqlglot parse + generate "
                f"of the same bodies (plain install; CPU time, wall time in brackets{refused})",
                f"{span(ratio, '.1f')}x (wall {span(wall, '.1f')}x, {span(secs, '.0f')} s)",
                f"<= {MIGRATE:g}x",
                max(ratio) <= MIGRATE,
            )
        )
        if all("installed" in r for r in migrate["runs"]):
            ratio, wall = migrate_ratio(migrate["runs"], "installed")
            rows.append(
                (
                    "4'. the same `migrate` with sqlglotc",
                    f"{span(ratio, '.1f')}x (wall {span(wall, '.1f')}x)",
                    "(not a target)",
                    None,
                )
            )
    if not merges.get("rows"):
        rows.append(("5. merge and commit growth", "not measured in this run", "<= 10x", None))
        return target_table(rows, native), rows
    merge_growth = _growth(merges["rows"], _CELLS)
    first = _growth(merges["rows"], ("first",))
    rows.append(
        (
            "5. growth of a merge per 10x of metadata size (worst of every scenario and step)",
            f"{max(merge_growth):.1f}x (the first merge into a model just made "
            f"{max(first):.1f}x, the others {max(_growth(merges['rows'], _CELLS[1:])):.1f}x)",
            "<= 10x",
            max(merge_growth) <= 10,
        )
    )
    if merges.get("commits"):
        commit_growth = _growth(merges["commits"], _CELLS)
        rows.append(
            (
                "5. growth of a warehouse commit per 10x of metadata size (worst of every "
                "scenario and step)",
                f"{max(commit_growth):.1f}x",
                "<= 10x",
                max(commit_growth) <= 10,
            )
        )
    return target_table(rows, native), rows


def target_table(
    rows: list[tuple[str, str, str, bool | None]],
    native: dict[str, tuple[str, bool | None]] | None = None,
) -> str:
    """The targets as a table; the native build's figures as columns of their own, matched to
    a row by its number ("1.", "4'."), "-" where it has none (target 5's merges)."""
    met = {True: "yes", False: "**no**", None: "-"}
    if native is None:
        header = ["target", "figure (CPU time; range over runs)", "target", "met"]
        return table(header, [[a, b, c, met[d]] for a, b, c, d in rows])
    header = [
        "target",
        "interpreted (CPU time; range over runs)",
        "native build (`ICEBERG_UDF_MYPYC=1`)",
        "target",
        "met",
        "met, native",
    ]
    body = []
    for what, figure, goal, done in rows:
        theirs, theirs_done = native.get(what.split(" ", 1)[0], ("-", None))
        body.append([what, figure, theirs, goal, met[done], met[theirs_done]])
    return table(header, body)


# ---------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description="iceberg-udf benchmarks")
    ap.add_argument("--quick", action="store_true", help="a small run, to try the scripts out")
    ap.add_argument("--statements", type=int, default=None)
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument(
        "--tracemalloc", action="store_true", help="also trace Python allocations (+2 minutes)"
    )
    ap.add_argument("--out", type=Path, default=HERE / "results.md")
    ap.add_argument(
        "--runs", type=int, default=None, help="throughput and migrate runs (default 3; quick 2)"
    )
    ap.add_argument("--no-migrate", action="store_true", help="skip the migrate processes")
    ap.add_argument(
        "--reuse", type=Path, default=None, help="keep each part's JSON in DIR; reuse what is there"
    )
    ap.add_argument(
        "--only",
        choices=["throughput", "migrate", "memory", "merge", "sampled"],
        default=None,
        help="with --reuse: run one part only (several can run at once), write no tables",
    )
    ap.add_argument("--merge-sizes", default=None, help="default 1000,10000,100000")
    ap.add_argument("--no-merge", action="store_true", help="skip merges and commits")
    ap.add_argument(
        "--no-native", action="store_true", help="do not build and measure the native build"
    )
    args = ap.parse_args()
    want = not args.no_native and args.only in (None, "throughput", "migrate")
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        native = None
        if want:
            print("native build", file=sys.stderr, flush=True)
            native = stack.enter_context(native_build(args.reuse))
            print(f"  {native.label()}", file=sys.stderr, flush=True)
        _benchmarks(args, native, started)


def _native_throughput(native: NativeBuild, *args: str) -> dict[str, Any]:
    """A throughput part run with the native build; a run that did not load it is a failure."""
    assert native.site is not None
    result = _run("throughput", *args, label="native", env=process_env(native.site))
    if not result.get("native_modules"):
        raise PartFailed("the run loaded no compiled module")
    return result


def _benchmarks(args: argparse.Namespace, native: NativeBuild | None, started: float) -> None:
    """Every part asked for, then the tables (``native``: None when it is not measured)."""
    if args.reuse is not None:
        args.reuse.mkdir(parents=True, exist_ok=True)
        _REUSE.append(args.reuse)
    only = args.only
    repeats = args.runs or (2 if args.quick else 3)
    n = args.statements or (2_000 if args.quick else 10_000)
    sizes = args.merge_sizes or ("1000,10000" if args.quick else "1000,10000,100000")

    fast = _version("sqlglotc")
    sg = _version("sqlglot")
    if fast is not None and fast != sg:
        print(
            f"sqlglotc {fast} does not match sqlglot {sg}: measuring pure Python only",
            file=sys.stderr,
        )
        fast = None

    pure_runs: list[dict[str, Any]] = []
    fast_runs: list[dict[str, Any]] = []
    # The native build's runs and, where it has none, what its cells say instead.
    native_pure: list[dict[str, Any]] = []
    native_fast: list[dict[str, Any]] = []
    missing = "not measured in this run"
    if native is not None and not native.built:
        missing = native.label()
    missing_migrate = missing
    if only in (None, "throughput"):
        print("throughput", file=sys.stderr)
        measure_native = native is not None and native.built
        for _ in range(repeats):
            pure_runs.append(_run("throughput", "--build", "pure", "--statements", str(n)))
            if fast is not None:
                fast_runs.append(_run("throughput", "--build", "installed", "--statements", str(n)))
            if native is None or not measure_native:
                continue
            try:
                native_pure.append(
                    _native_throughput(native, "--build", "pure", "--statements", str(n))
                )
                if fast is not None:
                    native_fast.append(
                        _native_throughput(native, "--build", "installed", "--statements", str(n))
                    )
            except PartFailed as e:
                print(f"  native build: {e}; the run goes on without it", file=sys.stderr)
                missing, measure_native = f"not measured: {e}", False
                native_pure.clear()
                native_fast.clear()
    migrate = None
    if not args.no_migrate and only in (None, "migrate"):
        print("migrate processes", file=sys.stderr)
        size = "500" if args.quick else "2000"
        part = ("migrate_process", "--statements", size, "--repeat", str(repeats))
        if native is not None and native.site is not None:
            try:
                migrate = _run(*part, label="native", more=("--pythonpath", native.site))
            except PartFailed as e:
                print(f"  with the native build: {e}; again without it", file=sys.stderr)
                missing_migrate = f"not measured: {e}"
        if migrate is None:
            migrate = _run(*part)
    if only in (None, "memory"):
        print("memory", file=sys.stderr)
        memory = _run(
            "throughput",
            "--memory",
            "--statements",
            str(n),
            *(["--tracemalloc"] * args.tracemalloc),
        )
    merges: dict[str, Any] = {"rows": [], "commits": []}
    if only in (None, "merge") and not args.no_merge:
        print("merge scaling", file=sys.stderr)
        merges = _run("merge_scaling", "--sizes", sizes)
    sampled: dict[str, Any] | None = None
    if only in (None, "sampled") and py_spy() is not None:
        print("sampled profile", file=sys.stderr)
        sampled = _run("sampled", "--statements", str(n), "--json")
    if only is not None:
        return
    runs = [pure_runs[-1], *fast_runs[-1:]]
    spark_runs: list[dict[str, Any]] = []
    if not args.no_spark and not args.quick and _spark_available():
        print("spark", file=sys.stderr)
        for master in ("local[1]", "local[2]"):
            spark_runs.append(_run("spark_batch", "--master", master, "--statements", str(n)))

    build = "sqlglotc" if fast else "pure-Python sqlglot"
    cells, note = None, ""
    if native is not None:
        same = all(
            same_output(plain, mine)[0]
            for plain, mine in ((pure_runs, native_pure), (fast_runs, native_fast))
            if plain and mine
        )
        cells = native_targets(missing, native_pure, native_fast, migrate, fast is not None, same)
        if migrate is not None and "native_pure_cpu" not in migrate["runs"][0]:
            cells["4."] = cells["4'."] = (missing_migrate, None)
        note = native_note(native.label(), (pure_runs, fast_runs), (native_pure, native_fast))
    target_table, _ = targets(pure_runs, fast_runs, migrate, merges, cells)
    sections = [
        "# iceberg-udf benchmark results",
        "",
        f"{datetime.date.today().isoformat()}; {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, sqlglot {sg}, sqlglotc {fast or 'not installed'}, lark "
        f"{_version('lark')}, pydantic {_version('pydantic')}. Written by `python -m benchmarks`"
        f"{' from parts run separately (--reuse)' if args.reuse else ''} in "
        f"{time.perf_counter() - started:.0f} s; see `benchmarks/README.md` for what is "
        "measured. Times on this 2-vCPU VM vary by 10-20% from run to run: ratios within one "
        "column are measured interleaved in one process and are the stable figures; figures "
        "across columns or sections come from separate processes.",
        "",
        f"## Issue 17's targets ({repeats} runs)",
        "",
        target_table,
        "",
        *([note, ""] if note else []),
        "## Compile and emit throughput (the last run)",
        "",
        throughput_section(runs),
        "",
        f"## Peak memory ({build})",
        "",
        memory_section(memory),
        "",
    ]
    if merges["rows"]:
        sections += [
            f"## Merging into big metadata ({build})",
            "",
            merge_section(merges),
            "",
            f"## Warehouse commits into big metadata ({build})",
            "",
            commit_section(merges),
        ]
    sections += [
        "## Where compile's CPU goes (sampled, pure-Python sqlglot)",
        "",
        sampled_table(sampled) if sampled else "Not measured: py-spy is not installed.",
        "",
    ]
    if spark_runs:
        sections += [
            f"## Spark batch: `compile_dataframe` ({build})",
            "",
            spark_section(spark_runs),
            "",
        ]
    text = "\n".join(sections)
    print(text)
    if not args.quick:
        args.out.write_text(text, encoding="utf-8")
        print(f"(written to {args.out})", file=sys.stderr)


if __name__ == "__main__":
    main()
