"""Statements nested or chained far deeper than a stack holds, through the public API and the
CLI: each compiles or is refused with a clean error, in both builds.

Compiled by mypyc (the native build), a recursion is not bounded by Python's recursion limit (a
native call takes no Python frame): one that a hostile input drives deep overflows the C stack
and kills the process, where the interpreted build raises ``RecursionError`` and a caller turns
it into "too deep". Each case runs in a child process whose C stack is limited to 2 MiB (a
quarter of the usual): a recursion that nothing bounds dies there at about 10,000 levels, so
these inputs, 20,000 levels, find it; a crash fails one test instead of the suite. The
native build's suite (``.ci/native-suite.sh``) runs these against the compiled modules. The
fast extra's compiled sqlglot follows nested subqueries without a count of its own: the nested
subquery cases hold :data:`translator.sqlglot_dialects.MAX_BRACKET_DEPTH` to stopping it.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

#: The child's C stack: small enough that an unbounded recursion of 20,000 levels overflows it.
STACK = 2 * 1024 * 1024

DEEP = 20_000
LONG = 20_000


def _limit_stack() -> None:
    resource.setrlimit(resource.RLIMIT_STACK, (STACK, STACK))


def _child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        preexec_fn=_limit_stack,
        timeout=120,
    )


def _trino(body: str, returns: str = "integer", params: str = "x integer") -> str:
    return f"CREATE FUNCTION f({params}) RETURNS {returns} RETURN {body}"


def _spark(body: str, returns: str = "INT", params: str = "x INT") -> str:
    return f"CREATE FUNCTION f({params}) RETURNS {returns} RETURN {body}"


def _routine(statements: str) -> str:
    return f"CREATE FUNCTION f(x integer) RETURNS integer BEGIN {statements} RETURN 0; END"


TRINO_TOO_DEEP = "the statement nests too deeply to be parsed"
SPARK_TOO_DEEP = "the statement is nested too deeply to parse"

#: name: (dialect, statement, the first error's message or None for one function compiled)
CASES: dict[str, tuple[str, str, str | None]] = {
    "trino-parentheses": ("trino", _trino("(" * DEEP + "x" + ")" * DEEP), None),
    "trino-plus-chain": ("trino", _trino("x" + " + x" * LONG), None),
    "trino-and-chain": ("trino", _trino("x > 0" + " AND x > 0" * LONG, "boolean"), None),
    "trino-not-chain": ("trino", _trino("NOT " * LONG + "true", "boolean"), None),
    "trino-minus-chain": ("trino", _trino("- " * LONG + "x"), None),
    "trino-nested-if": ("trino", _trino("if(x > 0, " * 3000 + "1" + ")" * 3000), None),
    "trino-nested-case": (
        "trino",
        _trino("CASE WHEN x > 0 THEN " * 3000 + "1" + " END" * 3000),
        None,
    ),
    "trino-nested-lambdas": (
        "trino",
        _trino("".join(f"transform(array[1], a{i} -> " for i in range(2000)) + "x" + ")" * 2000),
        None,
    ),
    "trino-many-parameters": (
        "trino",
        _trino("p0", params=", ".join(f"p{i} integer" for i in range(DEEP))),
        None,
    ),
    "trino-nested-array-type": (
        "trino",
        _trino("x", params="x " + "array(" * DEEP + "integer" + ")" * DEEP),
        TRINO_TOO_DEEP,
    ),
    "trino-nested-row-type": (
        "trino",
        _trino("null", "row(a " * DEEP + "integer" + ")" * DEEP),
        TRINO_TOO_DEEP,
    ),
    "trino-nested-if-statements": (
        "trino",
        _routine("IF x > 0 THEN " * DEEP + "RETURN 1;" + " END IF;" * DEEP),
        TRINO_TOO_DEEP,
    ),
    "trino-nested-blocks": (
        "trino",
        _routine("BEGIN " * DEEP + "RETURN 1;" + " END;" * DEEP),
        TRINO_TOO_DEEP,
    ),
    "trino-nested-loops": (
        "trino",
        _routine("WHILE x > 0 DO " * DEEP + "SET x = x - 1;" + " END WHILE;" * DEEP),
        TRINO_TOO_DEEP,
    ),
    "trino-subscript-chain": (
        "trino",
        _trino("x" + "[1]" * LONG, params="x array(array(integer))"),
        None,
    ),
    "trino-field-subscript-chain": (
        "trino",
        _trino("x" + "[1].a" * LONG, params="x array(row(a integer))"),
        None,
    ),
    "spark-subscript-chain": ("spark", _spark("x" + "[0]" * LONG, params="x ARRAY<INT>"), None),
    "trino-routine-chain": (
        "trino",
        _routine("DECLARE y integer DEFAULT 0; SET y = x" + " + x" * LONG + ";"),
        None,
    ),
    "spark-parentheses": ("spark", _spark("(" * DEEP + "x" + ")" * DEEP), None),
    "spark-plus-chain": ("spark", _spark("x" + " + x" * LONG), None),
    "spark-nested-subqueries": (
        "spark",
        _spark("SELECT x FROM " + "(SELECT x FROM " * DEEP + "(SELECT 1 AS x)" + ")" * DEEP),
        None,
    ),
    "spark-nested-scalar-subqueries": ("spark", _spark("(SELECT " * DEEP + "x" + ")" * DEEP), None),
    "trino-nested-scalar-subqueries": (
        "trino",
        _trino("(SELECT " * DEEP + "x" + ")" * DEEP),
        "Queries are not allowed in functions",
    ),
    "spark-nested-struct-type": (
        "spark",
        _spark("null", "STRUCT<a: " * DEEP + "INT" + ">" * DEEP),
        SPARK_TOO_DEEP,
    ),
    "spark-nested-array-parameter": (
        "spark",
        _spark("1", params="x " + "ARRAY<" * DEEP + "INT" + ">" * DEEP),
        SPARK_TOO_DEEP,
    ),
    "spark-deep-default": (
        "spark",
        _spark("x", params="x INT DEFAULT " + "(" * DEEP + "1" + ")" * DEEP),
        SPARK_TOO_DEEP,
    ),
    "spark-wide-table": (
        "spark",
        "CREATE FUNCTION f(x INT) RETURNS TABLE("
        + ", ".join(f"c{i} INT" for i in range(DEEP))
        + ") RETURN SELECT 1",
        None,
    ),
}

_API = """
import sys
from translator.api import compile_script
r = compile_script(sys.stdin.read(), sys.argv[1])
print(len(r.functions))
print(r.errors[0].message if r.errors else "")
"""


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_api_compiles_or_refuses_cleanly(name: str) -> None:
    dialect, text, refused = CASES[name]
    done = subprocess.run(
        [sys.executable, "-c", _API, dialect],
        input=text,
        capture_output=True,
        text=True,
        preexec_fn=_limit_stack,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == (["1", ""] if refused is None else ["0", refused])


def test_the_cli_compiles_one_and_refuses_the_other_without_a_traceback(tmp_path: Path) -> None:
    """A script of a long chain and a too-deep type: the one is reported at its place, nothing
    is written (a script is compiled whole or not at all), and the process ends with its error
    status, not a crash."""
    script = tmp_path / "deep.sql"
    chain = _trino("x" + " + x" * LONG).replace(" f(", " chain(")
    deep = _trino("null", "row(a " * DEEP + "integer" + ")" * DEEP).replace(" f(", " deep(")
    script.write_text(f"{chain};\n{deep};\n", encoding="utf-8")
    out = tmp_path / "out"
    done = _child(
        "from translator.cli.console import main; raise SystemExit(main())",
        "compile",
        "--dialect",
        "trino",
        "--no-transpile",
        "--output-dir",
        str(out),
        str(script),
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"{script}:2:1: error: {TRINO_TOO_DEEP}",
        "iceberg-udf: 1 error(s); nothing written",
    ]
    assert not out.exists() or not any(out.iterdir())
