"""Compile and emit throughput on the generated corpus, against sqlglot's own work on the bodies.

Run by :mod:`benchmarks.run` in a fresh process per sqlglot build (``--build pure`` forces the
Python sources even where sqlglotc is installed); prints one JSON document.

What is timed (all on the same corpus, interleaved slice by slice so that both sides see the same
machine load):

* **sqlglot baseline** -- for every routine body sqlglot is given by compile: ``parse_one(body,
  read=source)``, then ``.sql(dialect=target)`` for the other dialect (skipped where compile skips
  transpiling: a Spark table function has no Trino form). This is the sqlglot work that compiling
  to both dialects cannot avoid. Compound ``BEGIN ... END`` bodies are not sqlglot's business and
  cost the baseline nothing.
* **compile** -- ``compile_script(script, dialect)`` for every script: statements split, headers
  parsed (lark), bodies parsed (sqlglot), every definition transpiled into the other dialect and
  checked, merged into metadata. This is the figure the 1.5x target is about.
* **compile, no transpile** -- the same with ``CompileOptions(transpile=False)``: front end and
  merge only (the source body is still parsed by sqlglot, to flag what it cannot read).
* **emit** -- ``emit_ddl`` of every compiled function into both dialects.
* **dump** -- ``dump_metadata`` of every compiled function (the metadata file text).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import json
import resource
import sys
import time
from typing import Any


def _args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", choices=["pure", "installed"], default="installed")
    ap.add_argument("--statements", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--slices", type=int, default=8)
    ap.add_argument("--memory", action="store_true", help="measure peak memory instead of time")
    ap.add_argument(
        "--tracemalloc", action="store_true", help="with --memory: also a (slow) traced pass"
    )
    ap.add_argument(
        "--serve-baseline",
        action="store_true",
        help="(internal) time the baseline of the slice whose number is read from stdin",
    )
    return ap.parse_args()


def main() -> None:
    args = _args()
    if args.build == "pure":
        from benchmarks import purepython

        purepython.install()
    if args.serve_baseline:
        serve_baseline(args)
        return
    out = memory(args) if args.memory else timings(args)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


# ---------------------------------------------------------------------------------------------


def _context() -> Any:
    from translator.compile import Context

    return Context(
        clock=lambda: 1_700_000_000_000, new_uuid=lambda: "00000000-0000-4000-8000-000000000000"
    )


def _bodies(scripts: list[Any]) -> list[tuple[str, str, str | None]]:
    """(body, source sqlglot dialect, target or None) for every body compile hands to sqlglot."""
    from translator.compile import CompileOptions
    from translator.dialects import get_dialect
    from translator.frontend import parse_script
    from translator.ir import CreateFunction

    out = []
    opts = CompileOptions()
    for s in scripts:
        for stmt in parse_script(s.text, s.dialect).statements:
            if not isinstance(stmt, CreateFunction) or stmt.body.kind == "compound":
                continue
            src = get_dialect(stmt.dialect).sqlglot_dialect
            for target in opts.target_dialects(stmt.dialect) or (None,):
                skip = target is None or (stmt.kind == "udtf" and target == "trino")
                out.append((stmt.body.text, src, None if skip else target))
    return out


def _baseline(bodies: list[tuple[str, str, str | None]]) -> None:
    import sqlglot
    from sqlglot.errors import ErrorLevel, SqlglotError

    for text, src, target in bodies:
        try:
            ast = sqlglot.parse_one(text, read=src)
        except (SqlglotError, RecursionError, ValueError, TypeError, KeyError, IndexError):
            continue
        if target is not None:
            with contextlib.suppress(SqlglotError):
                ast.sql(dialect=target, unsupported_level=ErrorLevel.RAISE)


def _sqlglot_floor(bodies: list[tuple[str, str, str | None]]) -> None:
    """The baseline plus the check compile must make (issue 4): each generated text parsed back
    in the target dialect. All the sqlglot work compile does; what compile costs beyond it is
    this tool's own. Run with the collector set as compile sets it (young collections spaced),
    so that what the setting saves inside sqlglot's work is not counted as ours; the baseline
    runs with the caller's defaults, as a user's own sqlglot would."""
    import sqlglot
    from sqlglot.errors import ErrorLevel, SqlglotError

    from translator.collector import spaced_collections

    with spaced_collections():
        for text, src, target in bodies:
            try:
                ast = sqlglot.parse_one(text, read=src)
            except (SqlglotError, RecursionError, ValueError, TypeError, KeyError, IndexError):
                continue
            if target is None:
                continue
            try:
                back = ast.sql(dialect=target, unsupported_level=ErrorLevel.RAISE)
                sqlglot.parse_one(back, read=target)
            except (SqlglotError, RecursionError, ValueError, TypeError, KeyError, IndexError):
                continue


def _compile(scripts: list[Any], options: Any = None) -> list[Any]:
    from translator.api import compile_script

    ctx = _context()
    return [compile_script(s.text, s.dialect, context=ctx, options=options) for s in scripts]


def _emit(results: list[Any]) -> list[str]:
    from translator.emit import emit_ddl
    from translator.errors import TranslatorError

    out = []
    for r in results:
        for name, meta in r.functions.items():
            if meta is None:
                continue
            for target in ("spark", "trino"):
                try:
                    out.append(
                        emit_ddl(meta, target, tuple(name.split(".")), allow_lossy=True).text
                    )
                except TranslatorError as e:
                    out.append(f"error: {e.message}")
    return out


def _dump(results: list[Any]) -> list[str]:
    from translator.metadata import dump_metadata

    return [dump_metadata(m) for r in results for m in r.functions.values() if m is not None]


def _digest(h: Any, results: list[Any], emitted: list[str]) -> None:
    """Hash everything compile and emit produced (metadata, changes, messages, DDL)."""
    from translator.metadata import dump_metadata

    for r in results:
        for name, meta in r.functions.items():
            h.update(name.encode())
            h.update(b"<dropped>" if meta is None else dump_metadata(meta).encode())
        for group in (r.changes, r.warnings, r.errors, r.skipped):
            for item in group:
                h.update(str(item).encode())
    for text in emitted:
        h.update(text.encode())


def _slices(items: list[Any], n: int) -> list[list[Any]]:
    k = max(1, -(-len(items) // n))
    return [items[i : i + k] for i in range(0, len(items), k)]


def serve_baseline(args: argparse.Namespace) -> None:
    """Time the baseline of slice ``i`` for every ``i`` read from stdin, one time per line.

    The sqlglotc run starts this child with ``--build pure``: its compile is set against
    pure-Python sqlglot's work (target 3), measured slice by slice between its own slices so
    that both see the same machine load, although one process cannot load both builds."""
    from benchmarks.corpus import generate

    scripts = generate(args.statements, args.seed)
    body_slices = [_bodies(chunk) for chunk in _slices(scripts, args.slices)]
    _baseline(_bodies(scripts[:40]))
    print("ready", flush=True)
    for line in sys.stdin:
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        _baseline(body_slices[int(line)])
        print(time.perf_counter() - t0, time.process_time() - c0, flush=True)


class _PureBaseline:
    """The child process of :func:`serve_baseline`."""

    def __init__(self, args: argparse.Namespace) -> None:
        import subprocess

        cmd = [sys.executable, "-m", "benchmarks.throughput", "--serve-baseline", "--build"]
        cmd += ["pure", "--statements", str(args.statements), "--seed", str(args.seed)]
        cmd += ["--slices", str(args.slices)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        if self.stdout.readline().strip() != "ready":
            raise RuntimeError("the pure-Python baseline process did not start")

    def time(self, index: int) -> tuple[float, float]:
        """Wall and CPU seconds of slice ``index``."""
        self.stdin.write(f"{index}\n")
        self.stdin.flush()
        wall, cpu = self.stdout.readline().split()
        return float(wall), float(cpu)

    def close(self) -> None:
        self.stdin.close()
        self.proc.wait()


def timings(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.corpus import generate
    from benchmarks.native import compiled_modules
    from benchmarks.purepython import compiled_sqlglot
    from translator.compile import CompileOptions

    scripts = generate(args.statements, args.seed)
    # Warm up: grammars, sqlglot dialects, the built-in function lists.
    warm = scripts[:40]
    _baseline(_bodies(warm))
    _sqlglot_floor(_bodies(warm))
    _emit(_compile(warm))

    keys = ("baseline", "floor", "compile", "frontend", "emit", "dump")
    t: dict[str, float] = dict.fromkeys(keys, 0.0)
    cpu: dict[str, float] = dict.fromkeys(t, 0.0)
    counts = dict.fromkeys(
        ("functions", "definitions", "versions", "representations", "errors", "warnings"), 0
    )
    h = hashlib.sha256()
    no_transpile = CompileOptions(transpile=False)
    # Interleave: slice i of every measurement before slice i + 1 of any. Results are counted
    # and hashed, then dropped, so that no slice pays for the garbage of the ones before.
    script_slices = _slices(scripts, args.slices)
    body_slices = [_bodies(chunk) for chunk in script_slices]
    bodies = [b for chunk in body_slices for b in chunk]

    def timed(key: str, fn: Any, *a: Any) -> Any:
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        value = fn(*a)
        t[key] += time.perf_counter() - w0
        cpu[key] += time.process_time() - c0
        return value

    pure = None if not compiled_sqlglot() else _PureBaseline(args)
    if pure is not None:
        t["pure_baseline"] = cpu["pure_baseline"] = 0.0
    for i, (chunk, chunk_bodies) in enumerate(zip(script_slices, body_slices, strict=True)):
        if pure is not None:
            wall, used = pure.time(i)
            t["pure_baseline"] += wall
            cpu["pure_baseline"] += used
        timed("baseline", _baseline, chunk_bodies)
        timed("floor", _sqlglot_floor, chunk_bodies)
        res = timed("compile", _compile, chunk)
        timed("frontend", _compile, chunk, no_transpile)
        emitted = timed("emit", _emit, res)
        timed("dump", _dump, res)
        _count(res, counts)
        _digest(h, res, emitted)
        del res, emitted
    if pure is not None:
        pure.close()

    return {
        "build": "sqlglotc" if compiled_sqlglot() else "pure",
        "python": sys.version.split()[0],
        "scripts": len(scripts),
        "statements": sum(s.statements for s in scripts),
        "corpus_chars": sum(len(s.text) for s in scripts),
        "bodies": len(bodies),
        "body_chars": sum(len(b[0]) for b in bodies),
        **counts,
        "wall": t,
        "cpu": cpu,
        "digest": h.hexdigest(),
        # The native build's runs are checked to have loaded compiled modules (0: interpreted).
        "native_modules": compiled_modules(),
        "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


def _count(results: list[Any], counts: dict[str, int]) -> None:
    for r in results:
        counts["errors"] += len(r.errors)
        counts["warnings"] += len(r.warnings)
        for m in r.functions.values():
            if m is None:
                continue
            counts["functions"] += 1
            counts["definitions"] += len(m.definitions)
            for d in m.definitions:
                counts["versions"] += len(d.versions)
                counts["representations"] += sum(len(v.representations) for v in d.versions)


def memory(args: argparse.Namespace) -> dict[str, Any]:
    """Peak memory of compiling the whole corpus, keeping every result (as a migration does).

    The process's peak RSS; with ``--tracemalloc`` also a second run under tracemalloc (about
    four times slower): the peak of Python allocations made by compile, and what the results
    still hold.
    """
    import tracemalloc

    from benchmarks.corpus import generate

    scripts = generate(args.statements, args.seed)
    _compile(scripts[:40])  # imports, grammars, sqlglot dialects
    gc.collect()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    results = _compile(scripts)
    out: dict[str, Any] = {
        "scripts": len(results),
        "maxrss_before_kb": rss_before,
        "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    if args.tracemalloc:
        del results
        gc.collect()
        tracemalloc.start()
        results = _compile(scripts)
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out.update(traced_peak_bytes=peak, traced_retained_bytes=current)
    return out


if __name__ == "__main__":
    main()
