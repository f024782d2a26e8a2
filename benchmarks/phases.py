"""Where compile's time goes: each phase timed inside ``compile_script``, as a ratio to the sqlglot
baseline measured in the same process (see :mod:`benchmarks.throughput`).

    python -m benchmarks.phases [--build pure] [--statements N] [--json]

Each phase is timed by wrapping the function that does it, looked up where its callers find it
(the wrappers cost about the same everywhere, so compare rows, not absolutes). Nested phases are
shown under their parent. ``--json`` prints the seconds by label instead of the table.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

#: (label, module, function name): the functions whose time is summed. Parents before children.
_PHASES = (
    ("split scripts into statements", "translator.frontend", "split_statements"),
    ("front end: Spark statement", "translator.dialects.spark.parser", "parse_statement"),
    ("front end: Trino statement", "translator.dialects.trino.parser", "parse_statement"),
    ("  sqlglot: parse the body", "translator.dialects.spark.assemble", "parse_body"),
    ("  sqlglot: parse the body", "translator.dialects.trino.assemble", "parse_body"),
    ("merge (with transpiling)", "translator.api", "merge_statements"),
    ("  transpile and check a body", "translator.compile", "transpile_body"),
    ("    sqlglot: parse the result back", "translator.bodies", "parse_one_with_tokens"),
)


Totals = defaultdict[str, float]


def _wrap(totals: Totals, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            totals[label] += time.perf_counter() - t0

    return timed


def _lark_parse(totals: Totals) -> None:
    """lark's parse within the front ends: ``Lark.parse`` (the tree path) and the inline
    parsers' own loop (:func:`~translator.dialects.inline_loop.parse_inline`, which runs the
    Builders, and so the body's sqlglot parse, as it goes), timed once where one calls the other."""
    from lark import Lark

    from translator.dialects import grammar

    label = "  lark: parse the header"
    depth = [0]

    def outermost(fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            depth[0] += 1
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    totals[label] += time.perf_counter() - t0

        return timed

    Lark.parse = outermost(Lark.parse)  # type: ignore[method-assign]
    grammar.parse_inline = outermost(grammar.parse_inline)  # type: ignore[attr-defined]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", choices=["pure", "installed"], default="installed")
    ap.add_argument("--statements", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--json", action="store_true", help="seconds by label, as one JSON object")
    args = ap.parse_args()
    if args.build == "pure":
        from benchmarks import purepython

        purepython.install()

    import importlib

    from benchmarks.corpus import generate
    from benchmarks.purepython import compiled_sqlglot
    from benchmarks.throughput import _baseline, _bodies, _compile

    scripts = generate(args.statements, args.seed)
    bodies = _bodies(scripts)
    _baseline(bodies[:200])
    _compile(scripts[:40])
    t0 = time.perf_counter()
    _baseline(bodies)
    baseline = time.perf_counter() - t0

    totals: Totals = defaultdict(float)
    for label, module, name in _PHASES:
        mod = importlib.import_module(module)
        setattr(mod, name, _wrap(totals, label, getattr(mod, name)))
    _lark_parse(totals)
    t0 = time.perf_counter()
    for i in range(0, len(scripts), 350):  # results dropped as the benchmark does, slice by slice
        _compile(scripts[i : i + 350])
    total = time.perf_counter() - t0

    order = [label for label, _, _ in _PHASES]
    order.insert(3, "  lark: parse the header")
    if args.json:
        seconds = {"baseline": baseline, "compile": total}
        seconds.update({label.strip(): totals[label] for label in order})
        print(json.dumps(seconds))
        return
    build = "sqlglotc" if compiled_sqlglot() else "pure-Python sqlglot"
    print(f"{build}, {args.statements:,} statements; sqlglot baseline {baseline:.2f} s")
    print(f"{'compile':40s} {total:7.2f} s {total / baseline:6.2f}x")
    for label in dict.fromkeys(order):
        print(f"{label:40s} {totals[label]:7.2f} s {totals[label] / baseline:6.2f}x")


if __name__ == "__main__":
    main()
