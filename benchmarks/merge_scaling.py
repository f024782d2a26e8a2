"""The cost of one merge into big metadata: it should grow linearly with the metadata, not faster.

Two shapes, each at 1k, 10k and 100k:

* **definitions** -- one function with N definitions (overloads), each at version 1, and a
  definition-log of one entry naming them all (as if imported in one step; a log entry per
  creation would hold N^2/2 references, which no real function has);
* **versions** -- one definition with N versions and a log entry per version.

Timed per size (median of a few runs), through the public entry point
``compile_script(statement, "spark", into=metadata)``:

* ``add`` -- a new overload (``added-definition``);
* ``replace`` -- ``CREATE OR REPLACE`` of an existing signature with a new body (``new-version``);
* ``unchanged`` -- the same statement again (deploying twice changes nothing);
* ``first`` -- ``add`` as the first merge into the model just validated (the median of three,
  each into a shallow copy of it: new objects over the same definitions): it reads every
  definition; the three above are timed after it, as merges into metadata merged into before
  (a warehouse's process, a deploy loop), which use the index kept beside it
  (:mod:`translator.metadata.index`; ``ICEBERG_UDF_MERGE_INDEX=0`` reads every time);

and, for comparison, two costs of the same size: the deep copy of a file's metadata
(``deep_copy``: what ``Warehouse.load`` hands out, and what ``apply``'s result copies of a
function when the caller reads it; the commit itself no longer copies) and writing the result
(``dump_metadata``). The merge itself copies only what a statement changes.

Every cell is the median of ``--repeat`` runs at every size (a ratio of two single samples of
a few milliseconds moves by a fifth on this host), except a commit's ``first``, which happens
once a warehouse; the two comparison costs run once at 100k, where each takes seconds.

Run by :mod:`benchmarks.run`; prints one JSON document.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from itertools import product
from typing import Any

_SPARK_TYPES = {
    "int": "INT",
    "long": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "string": "STRING",
    "boolean": "BOOLEAN",
    "date": "DATE",
    "timestamp": "TIMESTAMP_NTZ",
    "timestamptz": "TIMESTAMP",
    "binary": "BINARY",
}
_TS = 1_700_000_000_000
#: Samples of the first merge at every size (its median is the figure; it reads every definition).
_FIRST_SAMPLES = 3


def _signatures(n: int) -> list[tuple[str, ...]]:
    """``n`` distinct parameter-type lists of five Iceberg primitives."""
    names = list(_SPARK_TYPES)
    out = []
    for combo in product(names, repeat=5):
        out.append(combo)
        if len(out) == n:
            return out
    raise ValueError(n)


def _version(version_id: int, body: str) -> dict[str, Any]:
    return {
        "version-id": version_id,
        "representations": [
            {"type": "sql", "dialect": "spark", "sql": body},
            {"type": "sql", "dialect": "trino", "sql": body},
        ],
        "deterministic": True,
        "timestamp-ms": _TS + version_id,
    }


def _definition(sig: tuple[str, ...], versions: int) -> dict[str, Any]:
    return {
        "definition-id": ",".join(sig),
        "parameters": [{"name": f"p{k}", "type": t} for k, t in enumerate(sig)],
        "return-type": "int",
        "versions": [
            _version(v, f"length(CAST(p0 AS STRING)) + {v}") for v in range(1, versions + 1)
        ],
        "current-version-id": versions,
        "function-type": "udf",
    }


def metadata_with_definitions(n: int) -> Any:
    from translator.metadata import UdfMetadata

    defs = [_definition(sig, 1) for sig in _signatures(n)]
    doc = {
        "function-uuid": "00000000-0000-4000-8000-000000000000",
        "format-version": 1,
        "definitions": defs,
        "definition-log": [
            {
                "timestamp-ms": _TS + 1,
                "definition-versions": [
                    {"definition-id": d["definition-id"], "version-id": 1} for d in defs
                ],
            }
        ],
    }
    return UdfMetadata.model_validate(doc, strict=True)


def metadata_with_versions(n: int) -> Any:
    from translator.metadata import UdfMetadata

    d = _definition(_signatures(1)[0], n)
    doc = {
        "function-uuid": "00000000-0000-4000-8000-000000000000",
        "format-version": 1,
        "definitions": [d],
        "definition-log": [
            {
                "timestamp-ms": _TS + v,
                "definition-versions": [{"definition-id": d["definition-id"], "version-id": v}],
            }
            for v in range(1, n + 1)
        ],
    }
    return UdfMetadata.model_validate(doc, strict=True)


def _create(sig: tuple[str, ...], body: str, replace: bool) -> str:
    params = ", ".join(f"p{k} {_SPARK_TYPES[t]}" for k, t in enumerate(sig))
    verb = "CREATE OR REPLACE" if replace else "CREATE"
    return f"{verb} FUNCTION f({params}) RETURNS INT RETURN {body}"


def _median_time(fn: Any, repeat: int) -> float:
    """Median CPU seconds of ``fn`` (CPU time: on a shared host, wall time mostly measures the
    other processes; a commit's fsync waits are left out, and are the same at every size)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def measure(shape: str, n: int, repeat: int, heavy_repeat: int) -> dict[str, Any]:
    """The merge cells of ``shape`` at ``n`` (each the median of ``repeat`` runs, ``first`` of
    :data:`_FIRST_SAMPLES`), and the two comparison costs (of ``heavy_repeat``)."""
    from translator.api import compile_script
    from translator.compile import Context
    from translator.metadata import deep_copy, dump_metadata

    ctx = Context(
        clock=lambda: _TS + 10**9, new_uuid=lambda: "00000000-0000-4000-8000-000000000001"
    )
    build = metadata_with_definitions if shape == "definitions" else metadata_with_versions
    t0 = time.perf_counter()
    meta = build(n)
    build_s = time.perf_counter() - t0
    existing = meta.definitions[-1]
    sig = tuple(p.type for p in existing.parameters)
    new_sig = ("string", "string", "string", "string", "string", "string")  # six: a new one
    current = existing.current_version.representation("spark").sql
    statements = {
        "add": _create(new_sig, "length(p0)", replace=False),
        "replace": _create(sig, "length(CAST(p0 AS STRING)) * 2", replace=True),
        "unchanged": _create(sig, current, replace=True),
    }
    expected = {"add": "added-definition", "replace": "new-version", "unchanged": "unchanged"}
    out: dict[str, Any] = {"shape": shape, "n": n, "build_s": build_s}
    # ``first``: the first merge into a model reads every definition once (and keeps an index
    # beside it, translator.metadata.index). Timed on shallow copies of the model just built
    # (new objects over the same definitions, so no index is kept beside them), the median of
    # _FIRST_SAMPLES at every size. Then one merge into the model itself, untimed, keeps its
    # index: the cells after it are merges into metadata merged into before.
    copies = [meta.model_copy() for _ in range(_FIRST_SAMPLES)]
    out["first"] = _median_time(
        lambda: compile_script(statements["add"], "spark", into=copies.pop(), context=ctx),
        _FIRST_SAMPLES,
    )
    compile_script(statements["add"], "spark", into=meta, context=ctx).raise_for_errors()
    for key, sql in statements.items():
        results: list[Any] = []
        out[key] = _median_time(
            lambda sql=sql, results=results: results.append(
                compile_script(sql, "spark", into=meta, context=ctx)
            ),
            repeat,
        )
        action = results[0].raise_for_errors().changes[0].action
        if action != expected[key]:
            raise AssertionError(f"{shape} {n} {key}: {action}")
    out["copy"] = _median_time(lambda: deep_copy(meta), heavy_repeat)
    out["dump"] = _median_time(lambda: dump_metadata(meta), heavy_repeat)
    return out


def warehouse_commit(shape: str, n: int, repeat: int) -> dict[str, Any]:
    """``Warehouse.apply`` of one statement into a function whose current file holds the big
    metadata: what a user's commit costs (read through the cache, merge, validation, the file
    written and synced). A fresh warehouse per size; each repetition adds
    another overload or version, so the metadata grows by one per step (nothing at this scale).
    The first file is committed by this process, which keeps its parts' texts beside the cached
    model: each commit then reuses those of the parts it shares (``ICEBERG_UDF_COMMIT_REUSE=0``
    writes and checks every commit whole). ``first`` is the first commit after that one (its
    merge reads every definition); the cells are timed after it, at every size."""
    import tempfile

    from translator.compile import Context
    from translator.warehouse import Warehouse
    from translator.warehouse.layout import FunctionRef

    ctx = Context(
        clock=lambda: _TS + 10**9, new_uuid=lambda: "00000000-0000-4000-8000-000000000001"
    )
    build = metadata_with_definitions if shape == "definitions" else metadata_with_versions
    meta = build(n)
    existing = meta.definitions[-1]
    sig = tuple(p.type for p in existing.parameters)
    current = existing.current_version.representation("spark").sql
    out: dict[str, Any] = {"shape": shape, "n": n}
    with tempfile.TemporaryDirectory(prefix="iceberg-udf-bench-") as tmp:
        wh = Warehouse(tmp, context=ctx)
        ref = FunctionRef.parse("f", wh.namespace)
        wh.committer.commit(ref, None, meta)
        del meta
        step = iter(range(1, 10_000))
        body = {"current": current}

        def replace() -> str:
            body["current"] = f"length(CAST(p0 AS STRING)) * {next(step)}"
            return _create(sig, body["current"], True)

        statements: dict[str, Callable[[], str]] = {
            "add": lambda: _create(("string",) * 6 + ("int",) * next(step), "length(p0)", False),
            "replace": replace,
            "unchanged": lambda: _create(sig, body["current"], replace=True),
        }
        expected = {"add": "added-definition", "replace": "new-version", "unchanged": "unchanged"}
        # ``first``: the first commit into the model just built, whose merge reads every
        # definition (and keeps an index beside it); the cells after it commit into what the
        # last commit made, as a process committing to the function does.
        out["first"] = _median_time(lambda: wh.apply(statements["add"](), "spark"), 1)
        for key, make in statements.items():
            actions: list[str] = []
            out[key] = _median_time(
                lambda make=make, actions=actions: actions.append(
                    wh.apply(make(), "spark").raise_for_errors().changes[0].action
                ),
                repeat,
            )
            if set(actions) != {expected[key]}:
                raise AssertionError(f"warehouse {shape} {n} {key}: {actions}")
    return out


def _warm_up() -> None:
    """Load the parsers and sqlglot's dialects before any cell is timed: the process's first
    compile would otherwise be part of the first cell it runs (``first`` at the smallest size)."""
    from translator.api import compile_script

    compile_script(_create(("int",), "p0 + 1", replace=False), "spark").raise_for_errors()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-warehouse", action="store_true", help="skip the warehouse commits")
    ap.add_argument(
        "--warehouse-only", action="store_true", help="only the warehouse commits (no merges)"
    )
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    _warm_up()
    rows = []
    commits = []
    for shape in ("definitions", "versions"):
        for n in sizes:
            if not args.warehouse_only:
                rows.append(measure(shape, n, args.repeat, args.repeat if n < 100_000 else 1))
            if not args.no_warehouse:
                commits.append(warehouse_commit(shape, n, args.repeat))
    json.dump({"rows": rows, "commits": commits}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
