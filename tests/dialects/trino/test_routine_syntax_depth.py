"""A routine read alone (:func:`.syntax.parse_routine`, :func:`.analyzer.analyze`) has not been
through lark's interpreted transformer, which bounds the front end's trees: the reader's own
recursion, a statement inside another, is what a deep body drives. Interpreted it runs out of
Python's stack (``RecursionError``, which ``analyze`` takes for "too deep to judge": None);
compiled by mypyc it counts its levels and raises the same error where the interpreted reader
would have, instead of overflowing the C stack. Run in a child process with a 2 MiB C stack,
where the uncounted compiled reader died at 15,000 levels."""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

from translator.dialects.trino.routines.analyzer import analyze
from translator.dialects.trino.routines.syntax import IfStmt, parse_routine


def _nested(n: int, opening: str, closing: str) -> str:
    body = opening * n + "RETURN 1;" + closing * n
    return f"CREATE FUNCTION f(x integer) RETURNS integer BEGIN {body} RETURN 0; END"


_IF = ("IF x > 0 THEN ", " END IF;")
_LOOP = ("WHILE x > 0 DO ", " END WHILE;")

_CHILD = """
import sys
from translator.dialects.trino.routines.analyzer import analyze
from translator.dialects.trino.routines.syntax import parse_routine
text = sys.stdin.read()
print(analyze(text))
try:
    parse_routine(text)
except RecursionError:
    print("too deep")
"""


@pytest.mark.parametrize("shape", [_IF, _LOOP])
def test_a_body_nested_far_deeper_than_the_stack_is_too_deep(shape: tuple[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=_nested(15_000, *shape),
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_STACK, (2 << 20, 2 << 20)),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["None", "too deep"]


def test_a_body_nested_within_the_limit_is_read_whole() -> None:
    routine = parse_routine(_nested(40, *_IF))
    depth, statements = 0, routine.body.statements  # type: ignore[union-attr]
    while statements and isinstance(statements[0], IfStmt):
        depth += 1
        statements = statements[0].branches[0][1]
    assert depth == 40
    assert analyze(_nested(40, *_IF)) is None
