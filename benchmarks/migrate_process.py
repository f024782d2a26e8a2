"""``iceberg-udf migrate`` of 2,000 generated statements into a new warehouse, as whole processes,
against processes that only run sqlglot's parse + generate of the same bodies (target 4).

The first 2,000 CREATE/DROP FUNCTION statements of the benchmark corpus (seed 20240607; 1,000
Spark, 1,000 Trino, in migration-script-like files) are written to one folder per dialect. One
repetition runs, in this order:

* **sqlglot** -- per dialect, a fresh ``python`` process that imports pure-Python sqlglot, reads
  the folder's bodies (extracted beforehand, as :func:`benchmarks.throughput._bodies` lists them)
  and parses and generates each (the throughput baseline);
* **migrate** -- per dialect, ``iceberg-udf migrate --dialect D SRC --warehouse WH --report-json
  FILE`` into a warehouse that did not exist (Spark first, then Trino into the same one), with
  pure-Python sqlglot (the plain install) and, where installed, with sqlglotc; with
  ``--pythonpath DIR`` also with ``DIR`` first on the path (the native build's, see
  :mod:`benchmarks.native`), its figures under ``native_pure`` and ``native_installed``.

Each figure is the wall time of the processes, start-up and imports included (and, beside it,
their CPU time, which a loaded host distorts less, and the kernel's share of it; the wall time
includes waiting for fsync); the ratio is taken within a repetition, the range over repetitions.
Each repetition migrates into a folder of its own. Prints one JSON document.

Both sides run as an installed package does: with bytecode. pip compiles a wheel's modules when
it installs them, so a user's command never compiles Python source; an editable checkout under
``PYTHONDONTWRITEBYTECODE=1`` (this host's environment) would instead compile every imported
module of ours from source in each process (~0.12 s a migrate process; sqlglot's bytecode is in
site-packages either way). So the processes run with bytecode written to and read from a cache
folder in the benchmark's temporary folder (``PYTHONPYCACHEPREFIX``), and one untimed repetition
of every process fills it before the timed ones.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Run the ``iceberg-udf`` console script in this interpreter (``pure``: pure-Python sqlglot):
#: import the ``module:function`` its entry point names (looked up once, by the benchmark) and
#: call it, as the script an installer writes does. Looking the entry point up in each process
#: would add a scan of every installed distribution (~45 ms) that a user's command never pays.
_MIGRATE = """
import importlib, sys
if sys.argv[1] == "pure":
    from benchmarks import purepython
    purepython.install()
module, _, function = sys.argv[2].partition(":")
sys.exit(getattr(importlib.import_module(module), function)(sys.argv[3:]))
"""


def _console_script() -> str:
    """What the ``iceberg-udf`` console script runs, as ``module:function``."""
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "iceberg-udf"]
    return str(script.value)


#: Parse and generate every body listed in a JSON file, with pure-Python sqlglot.
_SQLGLOT = """
import json, sys
from benchmarks import purepython
purepython.install()
from benchmarks.throughput import _baseline
_baseline([tuple(b) for b in json.load(open(sys.argv[1], encoding="utf-8"))])
"""


def _cpu() -> tuple[float, float]:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime, r.ru_stime


def _timed(
    cmd: list[str],
    run: dict[str, float],
    key: str,
    env: dict[str, str],
    report: Path | None = None,
) -> None:
    """Add the wall time of ``cmd`` to ``run[key]``, its CPU time to ``run[key + "_cpu"]`` and
    of that the kernel's (system time: file creates, syncs) to ``run[key + "_sys"]``.

    A migration exits 1 when some statements failed (the corpus has Trino bodies that Trino's
    routine rules refuse, issue 13): that is its result, counted in ``run[key + "_failed"]``
    from the report; any other failure stops the benchmark."""
    t0, (u0, s0) = time.perf_counter(), _cpu()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    (u1, s1), elapsed = _cpu(), time.perf_counter() - t0
    failed = 0
    if proc.returncode == 1 and report is not None and report.exists():
        failed = json.loads(report.read_text("utf-8"))["summary"]["failed"]
    if proc.returncode != 0 and not failed:
        sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-3000:])
        raise SystemExit(f"{cmd[3:8]} failed ({proc.returncode})")
    run[key + "_failed"] = run.get(key + "_failed", 0) + failed
    run[key] = run.get(key, 0.0) + elapsed
    run[key + "_cpu"] = run.get(key + "_cpu", 0.0) + (u1 - u0) + (s1 - s0)
    run[key + "_sys"] = run.get(key + "_sys", 0.0) + (s1 - s0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--statements", type=int, default=2_000)
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--pythonpath",
        default=None,
        help="also migrate with this folder first on the path (the native build's site), each "
        "build's figures under LABEL_<build>",
    )
    ap.add_argument("--label", default="native")
    args = ap.parse_args()

    from benchmarks.corpus import generate
    from benchmarks.native import process_env
    from benchmarks.purepython import compiled_sqlglot
    from benchmarks.throughput import _bodies

    builds = ["pure", *(["installed"] if compiled_sqlglot() else [])]
    #: (key of the figures, sqlglot build, whether to run with --pythonpath first on the path)
    labelled = [(b, b, False) for b in builds]
    if args.pythonpath is not None:
        labelled += [(f"{args.label}_{b}", b, True) for b in builds]
    scripts = generate(args.statements, args.seed)
    runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="iceberg-udf-migrate-") as tmp:
        base = Path(tmp)
        for dialect in ("spark", "trino"):
            src = base / "src" / dialect
            src.mkdir(parents=True)
            mine = [s for s in scripts if s.dialect == dialect]
            for s in mine:
                (src / s.name).write_text(s.text, encoding="utf-8")
            (base / f"{dialect}.bodies.json").write_text(json.dumps(_bodies(mine)), "utf-8")
        py, script = sys.executable, _console_script()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(base / "bytecode")
        other = process_env(args.pythonpath, env) if args.pythonpath is not None else env
        for rep in range(-1, args.repeat):  # -1: untimed, it writes the bytecode
            run: dict[str, float] = {}
            for dialect in ("spark", "trino"):
                bodies = str(base / f"{dialect}.bodies.json")
                _timed([py, "-c", _SQLGLOT, bodies], run, "sqlglot", env)
            for key, build, on_path in labelled:
                # A new folder each time, the old ones removed only at the end: on ext4 without
                # a journal (this host), creating a file right after thousands were deleted scans
                # past every recently deleted inode, which a first migration does not pay.
                wh = base / f"wh-{key}-{rep if rep >= 0 else 'warm'}"
                for dialect in ("spark", "trino"):
                    cmd = [py, "-c", _MIGRATE, build, script, "migrate", "--dialect", dialect]
                    cmd += [str(base / "src" / dialect), "--warehouse", str(wh)]
                    report = base / f"report-{key}-{dialect}.json"
                    cmd += ["--report-json", str(report)]
                    _timed(cmd, run, key, other if on_path else env, report)
            if rep >= 0:
                runs.append(run)
        functions = sum(1 for p in (base / "wh-pure-0").rglob("*.metadata.json"))
    json.dump(
        {
            "statements": sum(s.statements for s in scripts),
            "scripts": len(scripts),
            "metadata_files": functions,
            "runs": runs,
        },
        sys.stdout,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
