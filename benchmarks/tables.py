"""The tables of ``results.md`` below the targets: throughput, memory, merges and commits, Spark.

Each takes a part's JSON (as :mod:`benchmarks.run` collects it) and returns Markdown.
"""

from __future__ import annotations

import itertools
from typing import Any


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _s(x: float) -> str:
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def _ms(x: float) -> str:
    return f"{x * 1000:.1f}" if x < 1 else f"{x * 1000:.0f}"


_ROWS = [
    ("baseline", "sqlglot alone: parse each body, generate it in the other dialect"),
    ("floor", "all of compile's sqlglot work: the above, and parse each generated text back"),
    ("compile", "**compile** (`compile_script`, both dialect representations)"),
    ("frontend", "compile without transpiling (`transpile=False`)"),
    ("emit", "emit DDL (`emit_ddl`, both dialects)"),
    ("dump", "metadata JSON (`dump_metadata`)"),
]


def _us(run: dict[str, Any], key: str, less: str) -> str:
    """Microseconds per statement of ``key`` beyond ``less``."""
    return f"{(run['wall'][key] - run['wall'][less]) / run['statements'] * 1e6:.0f} µs"


def throughput_section(runs: list[dict[str, Any]]) -> str:
    first = runs[0]
    n = first["statements"]
    header = ["measurement"]
    for r in runs:
        b = r["build"]
        header += [f"{b}: s", f"{b}: statements/s", f"{b}: ratio to sqlglot"]
        header += [f"{b}: ratio to all sqlglot work"]
    rows = []
    for key, label in _ROWS:
        row = [label]
        for r in runs:
            t = r["wall"][key]
            row += [_s(t), f"{n / t:,.0f}", f"{t / r['wall']['baseline']:.2f}x"]
            row += [f"{t / r['wall']['floor']:.2f}x"]
        rows.append(row)
    out = [
        f"Corpus: {first['scripts']:,} scripts, {n:,} CREATE/DROP FUNCTION statements (half Spark, "
        f"half Trino; {first['corpus_chars']:,} characters), {first['bodies']:,} bodies sqlglot "
        f"reads. Compiled: {first['functions']:,} functions, {first['definitions']:,} "
        f"definitions, {first['versions']:,} versions, {first['representations']:,} "
        f"representations; {first['errors']} errors, {first['warnings']:,} warnings.",
        "",
        table(header, rows),
        "",
    ]
    if len(runs) == 2:
        pure, fast = runs
        same = pure["digest"] == fast["digest"]
        out += [
            f"- compile with sqlglotc / sqlglot alone (pure Python): "
            f"**{fast['wall']['compile'] / pure['wall']['baseline']:.2f}x**; compile with "
            f"sqlglotc / compile pure: {fast['wall']['compile'] / pure['wall']['compile']:.2f}x; "
            f"sqlglot work with sqlglotc / pure: "
            f"{fast['wall']['baseline'] / pure['wall']['baseline']:.2f}x.",
            f"- All of compile's sqlglot work (the check parse included) is "
            f"{pure['wall']['floor'] / pure['wall']['baseline']:.2f}x / "
            f"{fast['wall']['floor'] / fast['wall']['baseline']:.2f}x the baseline (pure / "
            f"sqlglotc): compile cannot get under that; the rest of compile's time is this "
            f"tool's own, {_us(pure, 'compile', 'floor')} / {_us(fast, 'compile', 'floor')} "
            "per statement.",
            f"- Every compile and emit output (metadata, changes, warnings, errors, DDL) of the "
            f"corpus is {'**byte-identical**' if same else '**DIFFERENT**'} with and without "
            f"sqlglotc (sha256 {pure['digest'][:16]}"
            f"{'' if same else ' vs ' + fast['digest'][:16]}).",
        ]
    else:
        out.append(
            f"- sqlglotc is not installed: only the pure-Python build was measured "
            f"(`pip install -e '.[bench]'` for both). Output sha256 {first['digest'][:16]}."
        )
    return "\n".join(out)


def memory_section(m: dict[str, Any]) -> str:
    text = (
        f"Compiling the whole corpus ({m['scripts']:,} scripts) and keeping every result: "
        f"process peak RSS **{m['maxrss_kb'] / 1024:.0f} MiB** "
        f"({m['maxrss_before_kb'] / 1024:.0f} MiB after imports and the warm-up, before "
        "compiling)"
    )
    if "traced_peak_bytes" in m:
        text += (
            f"; peak traced Python allocations **{m['traced_peak_bytes'] / 2**20:.0f} MiB** "
            f"(tracemalloc; {m['traced_retained_bytes'] / 2**20:.0f} MiB still held by the "
            "results)"
        )
    return text + "."


def merge_section(m: dict[str, Any]) -> str:
    out = []
    for shape, title in (
        ("definitions", "one function with N definitions"),
        ("versions", "one definition with N versions"),
    ):
        rows = [r for r in m["rows"] if r["shape"] == shape]
        header = [
            "N",
            "first merge (add overload): ms",
            "add overload: ms",
            "replace (new version): ms",
            "unchanged: ms",
            "deep_copy (a load's private copy): ms",
            "dump_metadata: ms",
        ]
        keys = ("first", "add", "replace", "unchanged", "copy", "dump")
        body = [[f"{r['n']:,}"] + [_ms(r[k]) for k in keys] for r in rows]
        for a, b in itertools.pairwise(rows):
            body.append(
                [f"growth {a['n'] // 1000}k -> {b['n'] // 1000}k"]
                + [f"{b[k] / a[k]:.1f}x" for k in keys]
            )
        out += [
            f"**{title}** (CPU time per merge, `compile_script(statement, into=metadata)`: the "
            "first into the model just made, which reads every definition (median of three, "
            "each into a shallow copy of it), then merges into "
            "metadata merged into before, which use the index kept beside it; the last two "
            "columns are not part of it):",
            "",
            table(header, body),
            "",
        ]
    out.append("Linear growth is 10x per 10x of N; quadratic would be 100x.")
    return "\n".join(out)


def spark_section(runs: list[dict[str, Any]]) -> str:
    # The single-process run is the same work in each process: its fastest time is the reference.
    single = min(r["single_process_s"] for r in runs)
    header = [
        "master",
        "compile_dataframe: s",
        "statements/s",
        "vs single process",
        "results equal single process",
    ]
    rows = [
        [
            f"`{r['master']}`",
            _s(r["spark_s"]),
            f"{r['statements'] / r['spark_s']:,.0f}",
            f"{single / r['spark_s']:.2f}x",
            "yes" if r["equal"] else f"**NO** ({', '.join(r['mismatched'])})",
        ]
        for r in runs
    ]
    r0 = runs[0]
    lines = [
        f"{r0['rows']:,} rows (one script each, {r0['statements']:,} statements), "
        f"{r0['partitions']} partitions, one DataFrame per dialect; session start-up "
        f"({_s(r0['startup_s'])} s) not included; executors start their Python workers inside "
        f"the time. Single process (`compile_script` per row on the driver, same contexts): "
        f"{_s(single)} s ({r0['statements'] / single:,.0f} statements/s).",
        "",
        table(header, rows),
    ]
    if len(runs) == 2:
        lines += ["", f"`local[2]` / `local[1]`: {runs[0]['spark_s'] / runs[1]['spark_s']:.2f}x."]
    return "\n".join(lines)


def commit_section(m: dict[str, Any]) -> str:
    """``Warehouse.apply`` into a function whose file holds the big metadata (target 5)."""
    out = []
    for shape, title in (
        ("definitions", "one function with N definitions"),
        ("versions", "one definition with N versions"),
    ):
        rows = [r for r in m.get("commits", []) if r["shape"] == shape]
        if not rows:
            continue
        keys = ("first", "add", "replace", "unchanged")
        body = [[f"{r['n']:,}"] + [_ms(r[k]) for k in keys] for r in rows]
        for a, b in itertools.pairwise(rows):
            body.append(
                [f"growth {a['n'] // 1000}k -> {b['n'] // 1000}k"]
                + [f"{b[k] / a[k]:.1f}x" for k in keys]
            )
        header = [
            "N",
            "first commit (add overload): ms",
            "add overload: ms",
            "replace (new version): ms",
            "unchanged: ms",
        ]
        out += [
            f"**{title}** (CPU time per `Warehouse.apply` of one statement: read, merge, validate, "
            "write and sync the next metadata file; the first after the one that wrote the big "
            "file, whose merge reads every definition, then commits into what the last one made):",
            "",
            table(header, body),
            "",
        ]
    return "\n".join(out)
