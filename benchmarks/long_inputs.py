"""How compile's time grows with long input: each form at n and 2n, and the ratio.

The engineering standard is "never quadratic time on a long input". Each form below is one way a
statement or script can be long (a long list, a long chain, many statements, a long name...);
this compiles it at ``n`` and at ``2n``, each in a fresh process (so one form's heap does not
slow the next), and prints the CPU time of both and their ratio. Linear work doubles; a ratio
well above 2 at sizes where the fixed cost no longer dominates is a form to look at (a profile
of it: ``python -m cProfile``). Found so far and fixed: chained subscripts in Trino (sqlglot's
parser typed the whole chain at each one), a script replacing one function thousands of times,
IF statements with thousands of ELSEIFs, and thousands of DECLAREs in one block.

    python -m benchmarks.long_inputs [--n 4000] [--only NAME ...] [--timeout 120]

Not part of ``python -m benchmarks`` (a few minutes); no figure here is a target.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable

Form = Callable[[int], tuple[str, str]]


def _spark(body: str, returns: str = "INT", params: str = "x INT") -> tuple[str, str]:
    return "spark", f"CREATE FUNCTION f({params}) RETURNS {returns} RETURN {body}"


def _trino(body: str, returns: str = "integer", params: str = "x integer") -> tuple[str, str]:
    return "trino", f"CREATE FUNCTION f({params}) RETURNS {returns} RETURN {body}"


def _routine(statements: str) -> tuple[str, str]:
    return "trino", f"CREATE FUNCTION f(x integer) RETURNS integer BEGIN {statements} RETURN 0; END"


def _join(n: int, item: str, sep: str = ", ", first: int = 0) -> str:
    """``item`` with ``{i}`` as first, first + 1, ... (n of them), joined by ``sep``."""
    return sep.join(item.format(i=i) for i in range(first, first + n))


def _script(dialect: str, n: int, statement: str) -> tuple[str, str]:
    return dialect, _join(n, statement, ";\n")


_IN_LIST = "CASE WHEN x IN ({}) THEN 1 END"
_OR_CHAIN = "CASE WHEN {} THEN 1 END"
_CASE = "CASE {} ELSE 0 END"
_TABLE = "CREATE FUNCTION f(x INT) RETURNS TABLE(c INT) RETURN "

FORMS: dict[str, Form] = {
    "spark-in-list": lambda n: _spark(_IN_LIST.format(_join(n, "{i}"))),
    "trino-in-list": lambda n: _trino(_IN_LIST.format(_join(n, "{i}"))),
    "spark-case-whens": lambda n: _spark(_CASE.format(_join(n, "WHEN x = {i} THEN {i}", " "))),
    "trino-case-whens": lambda n: _trino(_CASE.format(_join(n, "WHEN x = {i} THEN {i}", " "))),
    "spark-or-chain": lambda n: _spark(_OR_CHAIN.format(_join(n, "x = {i}", " OR "))),
    "trino-or-chain": lambda n: _trino(_OR_CHAIN.format(_join(n, "x = {i}", " OR "))),
    "spark-coalesce": lambda n: _spark(f"coalesce({_join(n, 'x')})"),
    "trino-array": lambda n: _trino(f"cardinality(ARRAY[{_join(n, '1')}])", "bigint"),
    "spark-cast-chain": lambda n: _spark("x" + "::INT" * n),
    "spark-subscript-chain": lambda n: _spark("x" + "[0]" * n, params="x ARRAY<INT>"),
    "trino-subscript-chain": lambda n: _trino("x" + "[1]" * n, params="x array(integer)"),
    "trino-field-chain": lambda n: _trino("s" + ".a" * n, params="s row(a integer)"),
    "spark-subscript-sum": lambda n: _spark(_join(n, "a[{i}]", " + "), params="a ARRAY<INT>"),
    "trino-subscript-sum": lambda n: _trino(
        _join(n, "a[{i}]", " + ", 1), params="a array(integer)"
    ),
    "spark-comments": lambda n: _spark("x" + " /* c */ + x" * n),
    "trino-line-comments": lambda n: _trino("x" + " -- c\n + x" * n),
    "spark-long-string": lambda n: _spark("length('" + "a" * (100 * n) + "')"),
    "trino-long-name": lambda n: _trino(f'"{"a" * 100 * n}"', params=f'"{"a" * 100 * n}" integer'),
    "spark-named-struct": lambda n: _spark("named_struct(" + _join(n, "'a{i}', {i}") + ").a0"),
    "spark-parameters": lambda n: _spark("p0", params=_join(n, "p{i} INT")),
    "trino-row-type": lambda n: _trino("null", f"row({_join(n, 'a{i} integer')})"),
    "trino-declares": lambda n: _routine(_join(n, "DECLARE y{i} integer DEFAULT {i};", " ")),
    "trino-sets": lambda n: _routine(
        "DECLARE y integer DEFAULT 0; " + _join(n, "SET y = y + {i};", " ")
    ),
    "trino-elseifs": lambda n: _routine(
        "IF x = 0 THEN RETURN 0; "
        + _join(n, "ELSEIF x = {i} THEN RETURN {i};", " ", 1)
        + " END IF;"
    ),
    "trino-case-statement": lambda n: _routine(
        "CASE x " + _join(n, "WHEN {i} THEN RETURN {i};", " ") + " END CASE;"
    ),
    "trino-loops": lambda n: _routine(_join(n, "l{i}: LOOP LEAVE l{i}; END LOOP;", " ")),
    "spark-unions": lambda n: ("spark", _TABLE + _join(n, "SELECT {i} AS c", " UNION ALL ")),
    "spark-statements": lambda n: _script(
        "spark", n, "CREATE FUNCTION f{i}(x INT) RETURNS INT RETURN x + {i}"
    ),
    "trino-statements": lambda n: _script(
        "trino", n, "CREATE FUNCTION f{i}(x integer) RETURNS integer RETURN x + {i}"
    ),
    "spark-replacements": lambda n: _script(
        "spark", n, "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + {i}"
    ),
    "spark-create-drop": lambda n: _script(
        "spark", n, "DROP FUNCTION IF EXISTS f;\nCREATE FUNCTION f(x INT) RETURNS INT RETURN x"
    ),
}


#: Compile one form at one size in this process and print its CPU time (JSON).
_ONE = """
import json, sys, time
from benchmarks.long_inputs import FORMS
from translator.api import compile_script
dialect, sql = FORMS[sys.argv[1]](int(sys.argv[2]))
started = time.process_time()
result = compile_script(sql, dialect)
print(json.dumps({"cpu": time.process_time() - started, "chars": len(sql),
                  "functions": len(result.functions), "errors": len(result.errors)}))
"""


def _measure(name: str, n: int, timeout: float) -> dict[str, float] | None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", _ONE, name, str(n)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"{name} at {n} failed:\n{done.stderr[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args()
    names = args.only or list(FORMS)
    print(f"| form | chars at {2 * args.n} | CPU at {args.n} | CPU at {2 * args.n} | ratio |")
    print("|---|---|---|---|---|")
    for name in names:
        small = _measure(name, args.n, args.timeout)
        large = _measure(name, 2 * args.n, args.timeout)
        if small is None or large is None:
            print(f"| {name} | | | over {args.timeout:.0f} s | **?** |", flush=True)
            continue
        ratio = large["cpu"] / max(small["cpu"], 0.001)
        mark = f"**{ratio:.1f}**" if ratio > 2.6 else f"{ratio:.1f}"
        print(
            f"| {name} | {large['chars']:,.0f} | {small['cpu']:.2f} s | {large['cpu']:.2f} s "
            f"| {mark} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
