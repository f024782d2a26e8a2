"""Spark batch throughput: ``translator.spark.compile_dataframe`` on the corpus, ``local[N]``.

One process per master (run by :mod:`benchmarks.run`): a DataFrame of the corpus scripts (one row
per script, ``--partitions`` partitions), compiled per dialect with fixed ``timestamp_ms`` and
``uuid_namespace`` so that every row is reproducible, collected, and compared row by row with the
single-process path (``compile_script`` with the same :func:`translator.spark.row_context`), which
is also timed on the driver for comparison. Session start-up is not in the time; the executors'
Python workers start (and import the package) inside it. Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

_TS = 1_700_000_000_000
_NS = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"


def _single_process(
    rows: list[tuple[str, str, str]],
) -> dict[str, tuple[str, list[str], list[str]]]:
    from translator.api import compile_script
    from translator.spark import row_context

    out = {}
    for key, dialect, sql in rows:
        result = compile_script(sql, dialect, context=row_context(key, _TS, _NS))
        docs = {
            name: (None if meta is None else json.loads(result.dump(name)))
            for name, meta in result.functions.items()
        }
        out[key] = (
            json.dumps(docs, sort_keys=True),
            [str(e) for e in result.errors],
            [str(w) for w in result.warnings],
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--master", default="local[1]")
    ap.add_argument("--statements", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--partitions", type=int, default=8)
    args = ap.parse_args()

    from benchmarks.corpus import generate

    scripts = generate(args.statements, args.seed)
    rows = [(s.name, s.dialect, s.text) for s in scripts]

    # The driver's own run: the reference results, and the single-process time.
    _single_process(rows[:20])  # warm up (grammars, sqlglot)
    t0 = time.perf_counter()
    expected = _single_process(rows)
    single_s = time.perf_counter() - t0

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from translator.spark import compile_dataframe

    t0 = time.perf_counter()
    spark = (
        SparkSession.builder.master(args.master)
        .appName("iceberg-udf-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(args.partitions))
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    startup_s = time.perf_counter() - t0
    try:
        frames = {
            d: spark.createDataFrame(
                [(k, sql) for k, dialect, sql in rows if dialect == d], "id string, sql string"
            ).repartition(args.partitions)
            for d in ("spark", "trino")
        }
        for df in frames.values():
            df.cache().count()  # the input in memory: only compiling is timed
        t0 = time.perf_counter()
        got: dict[str, Any] = {}
        for d, df in frames.items():
            out = compile_dataframe(df, d, timestamp_ms=_TS, uuid_namespace=_NS)
            for r in out.collect():
                got[r["id"]] = (r["metadata"], list(r["errors"]), list(r["warnings"]))
        spark_s = time.perf_counter() - t0
    finally:
        spark.stop()

    mismatched = sorted(k for k in expected if got.get(k) != expected[k])
    json.dump(
        {
            "master": args.master,
            "partitions": args.partitions,
            "rows": len(rows),
            "statements": sum(s.statements for s in scripts),
            "startup_s": startup_s,
            "spark_s": spark_s,
            "single_process_s": single_s,
            "equal": not mismatched and len(got) == len(expected),
            "mismatched": mismatched[:5],
        },
        sys.stdout,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
