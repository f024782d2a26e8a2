"""How long and how deep a Trino routine may be for its Spark form, and what a refusal says.

A routine of a few hundred statements lowered by recursion, one call inside the next: the
stack ran out after ~250 statements, often inside sqlglot's reading of the next expression,
whose failure was taken (and cached) as "sqlglot cannot read 'x > 194'"."""

from __future__ import annotations

import sys

from translator.dialects.trino.routines import spark_form
from translator.dialects.trino.routines.reading import parse_expression, read_expression
from translator.dialects.trino.routines.syntax import parse_routine


def _routine(body: str) -> str:
    return f"CREATE FUNCTION f(x integer) RETURNS integer\nBEGIN\n{body}\nRETURN x;\nEND"


def test_a_long_sequence_of_statements_is_lowered() -> None:
    """400 assignments: "the body nests too deeply to be translated" before, though nothing
    in it nests; each statement now leaves a hole the next fills, in a loop. (Each assigns a
    constant: ``SET x = x + i`` would make a value 400 operators deep, which pure-Python
    sqlglot cannot write, though sqlglotc can.)"""
    body = "DECLARE y integer DEFAULT 0;\n" + "".join(f"SET y = {i};\n" for i in range(400))
    form = spark_form(parse_routine(_routine(body + "SET x = x + y;")))
    assert form.sql == "(x + 399)", form.reason


def test_a_body_whose_spark_form_is_too_deep_says_so() -> None:
    """800 IFs in a row: each holds the rest of the body in a let, so the Spark form nests
    hundreds of levels deep, past what sqlglot can write. The reason said sqlglot could not
    read one of the conditions; it now says what is too deep, and how deep."""
    body = "".join(f"IF x > {i} THEN SET x = x - {i}; END IF;\n" for i in range(800))
    form = spark_form(parse_routine(_routine(body)))
    assert form.sql is None and form.reason is not None
    assert "cannot read" not in form.reason
    assert form.reason.startswith("the body's Spark form nests ")
    assert "lets and folds deep, more than 64" in form.reason
    assert "too long or too deeply nested to be one Spark expression" in form.reason


def test_running_out_of_stack_is_not_kept_as_the_reading_of_a_text() -> None:
    """Where the stack ran out inside sqlglot, parse_expression said None and its cache kept
    that answer: every later reading of the same text, however shallow, "could not read" it."""
    text = "x > 987654321 + 123456789"

    def deep(n: int) -> object:
        return deep(n - 1) if n else parse_expression(text)

    here, frame = 0, sys._getframe()
    while frame is not None:
        here, frame = here + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(here + 150)
    try:
        for n in range(150, 0, -1):  # the first call that gets to sqlglot, with no stack left
            try:
                deep(n)
            except RecursionError:
                continue
            break
    finally:
        sys.setrecursionlimit(limit)
    assert parse_expression(text) is not None
    assert read_expression(text) is parse_expression(text)


def test_a_spark_form_past_the_depth_limit_is_refused_before_it_is_parsed_back() -> None:
    """Found by the long fuzz run: 1,300 declarations, each default doubling the last, took
    51 s to compile. Each binding holds the rest of the body in a let, and sqlglot's parse back
    of the Spark form costs time that grows faster than its depth (100 lambdas: 10 s). Past
    MAX_SPARK_LAMBDAS lambdas the form is refused before it is written, the same way wherever
    the statement is compiled (running out of the stack depends on the caller's depth)."""
    n = 560
    decls = "".join(f"DECLARE v{i + 1} integer DEFAULT v{i} + v{i};\n" for i in range(n))
    ddl = _routine(f"DECLARE v0 integer DEFAULT x;\n{decls}SET x = v{n};")
    form = spark_form(parse_routine(ddl))
    assert form.sql is None and form.reason is not None
    assert "lets and folds deep, more than 64" in form.reason, form.reason


def test_a_long_list_is_refused_as_soon_as_it_passes_the_limit(lowered: list[object]) -> None:
    """Found by the long fuzz run: 1,600 IFs in a row took 80 s to compile (linear, but each
    IF sizes the values it binds), all to be refused at the end. A statement list is refused
    once the lets around its next hole pass the limit, before the rest is lowered."""
    body = "".join(f"IF x > {i} THEN SET x = x * 3 - {i}; END IF;\n" for i in range(1600))
    form = spark_form(parse_routine(_routine(body)))
    assert form.reason is not None and "65 lets and folds deep, more than 64" in form.reason
    assert len(lowered) < 1600, len(lowered)
