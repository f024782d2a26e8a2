"""The native build's figures in ``results.md``: targets 1-4 measured as the interpreted build's
are (the same parts, the same ratios, the same runs), and whether its output is the same.

:mod:`benchmarks.run` runs the parts; this module turns their JSON into the targets table's
native column (:func:`native_targets`, by row number) and the lines under it
(:func:`native_note`). Where the build or one of its parts could not be made, its cells say why.
"""

from __future__ import annotations

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

#: The targets table's rows the native build has a figure for.
ROWS = ("1.", "2.", "3.", "4.", "4'.")


def native_targets(
    missing: str,
    pure: list[dict[str, Any]],
    fast: list[dict[str, Any]],
    migrate: dict[str, Any] | None,
    sqlglotc: bool,
    identical: bool = True,
) -> dict[str, tuple[str, bool | None]]:
    """Targets 1-4 for the native build, ``{row number: (figure, met)}``.

    ``pure`` and ``fast`` are its throughput runs with pure-Python sqlglot and with sqlglotc,
    ``migrate`` the migrate part (its ``native_pure``/``native_installed`` figures), ``missing``
    what a cell says when its part has no figures (the build's failure, or why not measured).
    A build whose output is not ``identical`` to the interpreted one's meets no target."""
    out = _native_targets(missing, pure, fast, migrate, sqlglotc)
    if identical:
        return out
    return {
        row: (text, None) if done is None else (f"{text} (output differs)", False)
        for row, (text, done) in out.items()
    }


def _native_targets(
    missing: str,
    pure: list[dict[str, Any]],
    fast: list[dict[str, Any]],
    migrate: dict[str, Any] | None,
    sqlglotc: bool,
) -> dict[str, tuple[str, bool | None]]:
    out: dict[str, tuple[str, bool | None]] = dict.fromkeys(ROWS, (missing, None))
    if pure:
        own = own_us(pure)
        out["1."] = (f"{span(own, '.0f')} µs", max(own) <= OWN_US)
        ratio = compile_ratio(pure, "baseline")
        out["2."] = (f"{span(ratio, '.2f')}x", max(ratio) <= COMPILE)
    if fast:
        ratio = compile_ratio(fast, "pure_baseline")
        out["3."] = (f"{span(ratio, '.2f')}x (with sqlglotc)", max(ratio) <= FAST)
    elif not sqlglotc:
        out["3."] = ("sqlglotc not installed", None)
    runs = migrate["runs"] if migrate is not None else []
    for row, key, goal in (("4.", "native_pure", MIGRATE), ("4'.", "native_installed", None)):
        if runs and all(f"{key}_cpu" in r for r in runs):
            ratio, wall = migrate_ratio(runs, key)
            text = f"{span(ratio, '.1f')}x (wall {span(wall, '.1f')}x)"
            out[row] = (text, None if goal is None else max(ratio) <= goal)
        elif row == "4'." and not sqlglotc:
            out[row] = ("sqlglotc not installed", None)
    return out


def same_output(
    plain: list[dict[str, Any]], native: list[dict[str, Any]]
) -> tuple[bool, list[str]]:
    """Whether every native run's output digest equals the interpreted runs' (same sqlglot
    build), and the digests seen."""
    theirs = {r["digest"] for r in plain}
    mine = {r["digest"] for r in native}
    return mine <= theirs and len(theirs) == 1, sorted(theirs | mine)


def native_note(
    label: str,
    plain: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    native: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> str:
    """What the native column is, and whether its output is byte-identical to the interpreted
    build's (``plain``, ``native``: the throughput runs with pure-Python sqlglot and with
    sqlglotc)."""
    if not native[0] and not native[1]:  # not built, or its runs failed: the cells say why
        return f"Native build: {label}."
    text = (
        f"Native build: {label}; the same checkout's `setup.py` modules compiled by mypyc in a "
        "copy of it, run with the copy first on `PYTHONPATH` (rows 1, 2 and 4 with pure-Python "
        "sqlglot, 3 and 4' with sqlglotc, as in the interpreted column)."
    )
    checks = []
    for name, mine, theirs in (
        ("pure-Python sqlglot", native[0], plain[0]),
        ("sqlglotc", native[1], plain[1]),
    ):
        if not mine or not theirs:
            continue
        same, digests = same_output(theirs, mine)
        if same:
            checks.append(f"with {name} byte-identical (sha256 {digests[0][:16]})")
        else:
            checks.append(
                f"with {name} **DIFFERENT** (sha256 {', '.join(d[:16] for d in digests)})"
            )
    if checks:
        text += (
            " Output of every native run (metadata, changes, warnings, errors, emitted DDL) "
            "against the interpreted build's: " + "; ".join(checks) + "."
        )
    return text
