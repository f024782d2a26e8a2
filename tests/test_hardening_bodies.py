"""Issue 15, classes 1, 4 and 11: one body is one expression; a broken body is an error; a long
body costs linear time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.hardening_cli import run_cli
from tests.timing import assert_linear
from translator.api import compile_script
from translator.body_checks import body_problem
from translator.emit import emit_ddl
from translator.errors import BodyError, RoutineError, SqlSyntaxError, TranslatorError
from translator.metadata import load_metadata, metadata_to_json

SMUGGLED = [
    "1; DROP TABLE victim",
    "1;\nDROP TABLE victim",
    "1 /* c */ ; DROP TABLE victim",
    "1 -- c\n; DROP TABLE victim",
    "'a' ; DROP TABLE victim; --'",
    "x -- hides ; what follows",
    "1 /* ; */",
    "$$ ; DROP TABLE victim $$",
    "1 -- the ';' written after the body would be commented out",
    "'unterminated",
    "1 /* unterminated",
    "DROP TABLE victim",
    "(SELECT 1); DROP TABLE victim",
]


def _metadata_with(body: str, dialect: str) -> dict[str, Any]:
    result = compile_script(
        "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1", "spark"
    ).raise_for_errors()
    meta = result.metadata
    assert meta is not None
    doc: dict[str, Any] = metadata_to_json(meta)
    doc["definitions"][0]["versions"][0]["representations"] = [
        {"type": "sql", "dialect": dialect, "sql": body}
    ]
    return doc


@pytest.mark.parametrize("dialect", ["spark", "trino"])
@pytest.mark.parametrize("body", SMUGGLED)
def test_sql_smuggled_through_a_metadata_body_is_never_emitted(body: str, dialect: str) -> None:
    meta = load_metadata(json.dumps(_metadata_with(body, dialect)))
    with pytest.raises(BodyError):
        emit_ddl(meta, dialect, ("f",))
    other = "trino" if dialect == "spark" else "spark"
    with pytest.raises(TranslatorError, match=r"no .* representation and none can be made"):
        emit_ddl(meta, other, ("f",))


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_a_semicolon_inside_a_string_is_one_body(dialect: str) -> None:
    body = "concat(CAST(x AS STRING), ';')" if dialect == "spark" else "format('%s;', x)"
    meta = load_metadata(json.dumps(_metadata_with(body, dialect)))
    assert emit_ddl(meta, dialect, ("f",)).ddl[0].endswith(body)


def test_spark_backslash_escaped_quote_keeps_the_string_open() -> None:
    # Spark reads 'a\'' as one string: the ';' is inside it. Trino ends the string at \' .
    assert body_problem("'a\\'; DROP TABLE victim; --'", "expression", "spark") is None
    assert body_problem("'a\\'; DROP TABLE victim; --'", "expression", "trino") is not None


def test_a_compound_body_is_one_block() -> None:
    ok = "BEGIN\n  SET x = x + 1; -- a ';' here is in the block\n  RETURN x;\nEND"
    assert body_problem(ok, "compound", "trino") is None
    assert body_problem(ok + "; DROP TABLE victim", "compound", "trino") is not None
    assert body_problem("BEGIN RETURN 1; END END; DROP TABLE victim", "compound", "trino")


@pytest.mark.parametrize("dialect", ["spark", "trino"])
@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("1 +", "ends in '+'"),
        ("(x", "closing ')'"),
        ("x)", "unmatched ')'"),
        ("y", "refers to y"),
        ("x + y + z", "refers to y, z"),
        ("DROP TABLE victim", "DROP statement"),
    ],
)
def test_a_broken_body_is_an_error(dialect: str, body: str, says: str) -> None:
    for strict in (False, True):
        result = compile_script(
            f"CREATE FUNCTION f(x INT) RETURNS INT RETURN {body}", dialect, strict=strict
        )
        assert result.functions.get("f") is None
        # Trino's grammar, or its analyzer ("Column 'y' cannot be resolved"), places some of
        # them itself, with a caret.
        placed = dialect == "trino" and all(
            isinstance(e, SqlSyntaxError | RoutineError) for e in result.errors
        )
        assert result.errors and (placed or any(says in e.message for e in result.errors))


@pytest.mark.parametrize(
    ("body", "dialect"),
    [
        ("x >>> 1", "spark"),  # Spark reads it; sqlglot does not
        ("transform(array(x), v -> v + 1)[0]", "spark"),
        ("(SELECT max(c) FROM t WHERE k = x)", "spark"),
        ("x + 1", "trino"),
    ],
)
def test_a_body_the_engine_reads_still_compiles(body: str, dialect: str) -> None:
    sql = f"CREATE FUNCTION f(x INT) RETURNS INT RETURN {body}"
    compile_script(sql, dialect).raise_for_errors()


def test_time_linear_in_the_length_of_a_body() -> None:
    """4x the terms must cost well under the 16x of quadratic time (the old walk of every
    column's ancestors took 6 s at 8k terms, 68 s at 32k)."""

    def compile_terms(terms: int) -> None:
        sql = "CREATE FUNCTION f(x INT) RETURNS INT RETURN " + " + ".join(["x"] * terms)
        compile_script(sql, "spark").raise_for_errors()

    assert_linear(compile_terms, 1000, warm=200)


@pytest.mark.parametrize("dialect", ["spark", "trino"])
@pytest.mark.parametrize("body", SMUGGLED)
def test_sql_smuggled_through_a_metadata_body_fails_validate(
    body: str, dialect: str, tmp_path: Path
) -> None:
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(_metadata_with(body, dialect)))
    code, out, err = run_cli("validate", str(path))
    assert code == 1 and "Traceback" not in err
    assert out.startswith(f"{path}: $.definitions[0].versions[0].representations[0].sql: ")


@pytest.mark.parametrize(
    ("script", "what", "column"),
    [
        ("CREATE FUNCTION `f\udc80`(x INT) RETURNS INT RETURN x", "the name", 1),
        ("CREATE FUNCTION f(x INT) RETURNS INT COMMENT 'a\\uD800' RETURN x", "the comment", 38),
        ("CREATE FUNCTION f(x INT COMMENT '\udc80') RETURNS INT RETURN x", "the parameter 'x'", 19),
        ("CREATE FUNCTION f(`x\udc80` INT) RETURNS INT RETURN 1", "the parameter 'x\\udc80'", 19),
        ("CREATE FUNCTION f(x INT) RETURNS INT RETURN x || '\udc80'", "the body", 45),
        # Several: the first in the order name, comment, parameters, properties, body.
        (
            "CREATE FUNCTION f(x INT) RETURNS INT COMMENT '\udc80' RETURN x || '\udc81'",
            "the comment",
            38,
        ),
    ],
)  # fmt: skip
def test_a_lone_surrogate_is_refused_where_it_is(script: str, what: str, column: int) -> None:
    """check_body looks for a lone surrogate in all of a statement's texts at once, and only
    then names the first text that holds one, at its place."""
    (error,) = compile_script(script, "spark").errors
    assert isinstance(error, BodyError)
    assert error.message.startswith(f"{what} holds a lone surrogate")
    assert error.position is not None
    assert (error.position.line, error.position.column) == (1, column)
