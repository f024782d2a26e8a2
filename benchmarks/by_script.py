"""Where our own time sits, script by script: each script of the corpus compiled alone against
the floor of its own bodies, and the differences summed by the kinds of statement it holds.

    python -m benchmarks.by_script [--statements N] [--repeat R] [--top K] [--json]

Why beside :mod:`benchmarks.sampled`: a profile sums every statement's time by function, so a
cost that only some statements pay is spread over the functions they share with the rest.
Measuring each script's own time (compile less the floor of its bodies, the sqlglot work
:mod:`benchmarks.throughput` counts as not ours) shows instead which statements hold it. This
is how session 20 found that the Trino compound bodies, 3% of the statements, held about 40% of
our own time: sqlglot cannot read one, so the floor has nothing for it and all the sqlglot work
compile does for it is ours.

Each script is compiled ``--repeat`` times, its bodies put through the floor as often, and the
least CPU time of each kept (pure-Python sqlglot, the collector as compile sets it, after a
warm-up). A script is put under every kind it holds (``compound``: a Trino ``BEGIN ... END``
body; ``table``: a table function; ``subquery``; ``lambda``; ``big case``: more than fifteen
``WHEN``; ``plain``: none of these), so the kinds' shares can add up to more than the whole.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

__all__ = ["KINDS", "Script", "kinds_of", "main", "measure", "table"]

#: The kinds a script may hold, and what in its text marks each.
KINDS: dict[str, Callable[[str, str], bool]] = {
    "compound": lambda text, dialect: (
        dialect == "trino" and re.search(r"\bBEGIN\b", text, re.IGNORECASE) is not None
    ),
    "table": lambda text, _: re.search(r"RETURNS\s+TABLE", text, re.IGNORECASE) is not None,
    "subquery": lambda text, _: re.search(r"\(\s*SELECT\b", text, re.IGNORECASE) is not None,
    "lambda": lambda text, _: "->" in text,
    "big case": lambda text, _: len(re.findall(r"\bWHEN\b", text, re.IGNORECASE)) > 15,
}


@dataclass(frozen=True)
class Script:
    """One script's statements and CPU seconds: compile, and the floor of its bodies."""

    name: str
    dialect: str
    statements: int
    kinds: tuple[str, ...]
    compile: float
    floor: float

    @property
    def own(self) -> float:
        return self.compile - self.floor


def kinds_of(text: str, dialect: str) -> tuple[str, ...]:
    """The kinds of statement ``text`` holds (``("plain",)`` for none of :data:`KINDS`)."""
    return tuple(k for k, holds in KINDS.items() if holds(text, dialect)) or ("plain",)


def measure(statements: int, repeat: int) -> list[Script]:
    from benchmarks import purepython

    purepython.install()
    from benchmarks.corpus import generate
    from benchmarks.throughput import _bodies, _compile, _sqlglot_floor

    scripts = generate(statements)
    warm = scripts[:40]
    _compile(warm)
    _sqlglot_floor(_bodies(warm))
    out = []
    for s in scripts:
        bodies = _bodies([s])
        best_compile = best_floor = float("inf")
        for _ in range(repeat):
            t0 = time.process_time()
            _compile([s])
            t1 = time.process_time()
            _sqlglot_floor(bodies)
            t2 = time.process_time()
            best_compile, best_floor = min(best_compile, t1 - t0), min(best_floor, t2 - t1)
        out.append(
            Script(
                s.name,
                s.dialect,
                s.statements,
                kinds_of(s.text, s.dialect),
                best_compile,
                best_floor,
            )
        )
    return out


def table(scripts: list[Script], top: int) -> str:
    """Own time by dialect and kind, and the scripts with the most own time a statement."""
    own = sum(s.own for s in scripts)
    total = sum(s.compile for s in scripts)
    n = sum(s.statements for s in scripts)
    lines = [
        f"{len(scripts):,} scripts, {n:,} statements: compile {total:.2f} s of CPU, our own "
        f"{own:.2f} s ({1e6 * own / n:.0f} µs a statement; compile less the floor of each "
        "script's bodies).",
        "",
        "| dialect | kind | scripts | statements | share of our own time | our own µs a statement "
        "| share of compile |",
        "|---|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, str], list[Script]] = {}
    for s in scripts:
        for kind in s.kinds:
            groups.setdefault((s.dialect, kind), []).append(s)
    for (dialect, kind), found in sorted(groups.items(), key=lambda g: -sum(s.own for s in g[1])):
        g_own, g_n = sum(s.own for s in found), sum(s.statements for s in found)
        lines.append(
            f"| {dialect} | {kind} | {len(found):,} | {g_n:,} | {100 * g_own / own:.1f}% | "
            f"{1e6 * g_own / g_n:.0f} | {100 * sum(s.compile for s in found) / total:.1f}% |"
        )
    worst = sorted(scripts, key=lambda s: -s.own / s.statements)[:top]
    share = 100 * sum(s.own for s in sorted(scripts, key=lambda s: -s.own)[: len(scripts) // 20])
    lines += [
        "",
        f"The 5% of scripts with the most own time hold {share / own:.1f}% of it. The most a "
        "statement:",
        "",
        "| script | kinds | statements | compile ms | floor ms | our own µs a statement |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {s.name} | {', '.join(s.kinds)} | {s.statements} | {1e3 * s.compile:.1f} | "
        f"{1e3 * s.floor:.1f} | {1e6 * s.own / s.statements:.0f} |"
        for s in worst
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--statements", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--json", action="store_true", help="every script's figures as JSON")
    args = ap.parse_args()
    scripts = measure(args.statements, args.repeat)
    if args.json:
        json.dump([asdict(s) for s in scripts], sys.stdout)
        sys.stdout.write("\n")
    else:
        print(table(scripts, args.top))


if __name__ == "__main__":
    main()
