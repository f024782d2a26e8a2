"""The parser that reads Spark bodies (:mod:`translator.dialects.spark.read_parser`) gives what
sqlglot's own Spark parser gives: the same tree or the same error, for every kind of type in
and out of casts and schemas, and for every Spark body of the benchmark corpus."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.parser import Parser
from sqlglot.parsers.hive import HiveParser
from sqlglot.parsers.spark import SparkParser

from benchmarks.corpus import generate
from translator.dialects.spark.read_parser import READ_PARSER, SparkReadParser
from translator.frontend import parse_script
from translator.ir import CreateFunction
from translator.sqlglot_dialects import SPARK, parse_one

_COMPILED = not sqlglot.parser.__file__.endswith(".py")

needs_pure = pytest.mark.skipif(
    READ_PARSER is None, reason="sqlglotc: bodies are read by sqlglot's own Spark parser"
)


def test_the_read_parser_is_there_exactly_where_sqlglot_is_pure_python() -> None:
    assert (READ_PARSER is None) == _COMPILED


def test_it_replaces_only_the_hive_step_whose_question_it_asks_by_kind() -> None:
    """Only the Hive parser reads types its own way between sqlglot's Spark parser and its
    base; its step (read from sqlglot's source) rewrites, outside a schema, exactly the nodes
    for which ``is_type("char", "varchar")`` holds, and those strings are the bare types."""
    assert [c for c in SparkParser.__mro__ if "_parse_types" in vars(c)] == [HiveParser, Parser]
    assert SparkReadParser.__mro__[1:] == SparkParser.__mro__
    source = (Path(sqlglot.__file__).parent / "parsers" / "hive.py").read_text("utf-8")
    cls = next(
        n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "HiveParser"
    )
    method = next(
        n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "_parse_types"
    )
    lines = [ast.unparse(s) for s in method.body if not isinstance(s, ast.Expr)]
    assert lines[0].startswith("this = super()._parse_types(check_func=check_func, schema=schema")
    assert lines[1:] == [
        "if this and (not schema):\n\n"
        "    def _to_text(node: exp.Expr) -> exp.Expr:\n"
        "        if isinstance(node, exp.DataType) and node.is_type('char', 'varchar'):\n"
        "            node.set('this', exp.DType.TEXT)\n"
        "            node.set('expressions', None)\n"
        "        return node\n"
        "    return this.transform(_to_text, copy=False)",
        "return this",
    ]
    for name, kind in (("char", exp.DType.CHAR), ("varchar", exp.DType.VARCHAR)):
        assert exp.DataType.build(name, udt=True) == exp.DataType(this=kind)


def _read(text: str, parser: type[Parser] | None) -> tuple[str, Any]:
    try:
        tree = parse_one(text, SPARK, parser)
    except SqlglotError as e:
        return ("error", f"{type(e).__name__}: {e}")
    return ("tree", (tree, repr(tree), tree.sql("spark")))


def _types() -> Iterator[tuple[str, bool]]:
    """Every kind of type sqlglot writes for Spark, bare and with parameters, and nested in an
    array, a map and a struct; with whether it is the bare one."""
    for kind in exp.DType:
        for params in ((), (3,), (10, 2)):
            t = exp.DataType(
                this=kind,
                expressions=[exp.DataTypeParam(this=exp.Literal.number(p)) for p in params],
            )
            try:
                text = t.sql("spark")
            except (SqlglotError, ValueError, KeyError):
                continue
            yield text, not params
            if params == (3,):
                yield f"ARRAY<{text}>", False
                yield f"MAP<{text}, ARRAY<{text}>>", False
                yield f"STRUCT<a: {text}, b: ARRAY<STRUCT<c: {text}>>>", False


def _texts() -> Iterator[str]:
    """Each type in a cast; the bare ones in every other place a type is read too."""
    for t, bare in _types():
        yield f"CAST(x AS {t})"
        if bare:
            yield f"TRY_CAST(x AS {t}) || y"
            yield f"x :: {t}"
            yield f"TRANSFORM(a, e -> CAST(e AS {t}))"
            yield f"FROM_JSON(j, '{t}')"
            yield f"CAST(x AS {t}"
    yield "CAST(x AS)"
    yield "CAST(x AS VARCHAR(3)) +"
    yield "TRY_CAST(x AS ARRAY<CHAR(2)>) || y"
    yield "TRANSFORM(a, e -> CAST(e AS MAP<VARCHAR(3), CHAR(1)>))"
    yield "SELECT CAST(a AS CHAR(2)) FROM (SELECT CAST(b AS VARCHAR(4)) AS a FROM t) AS s"
    yield "x IN (SELECT CAST(c AS CHAR(1)) FROM VALUES ('a') AS v(c))"


@needs_pure
def test_every_kind_of_type_reads_as_sqlglots_spark_parser_reads_it() -> None:
    texts = list(_texts())
    assert len(texts) > 1000
    for text in texts:
        assert _read(text, READ_PARSER) == _read(text, None), text


@needs_pure
def test_the_corpus_spark_bodies_read_as_sqlglots_spark_parser_reads_them() -> None:
    bodies = [
        stmt.body.text
        for script in generate(2000)
        if script.dialect == "spark"
        for stmt in parse_script(script.text, "spark").statements
        if isinstance(stmt, CreateFunction)
    ]
    assert len(bodies) > 900 and any("CAST(" in b.upper() for b in bodies)
    for text in bodies:
        assert _read(text, READ_PARSER) == _read(text, None), text


def test_a_spark_body_is_read_with_the_read_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Spark front end reads a body with :data:`READ_PARSER` (a spy here)."""
    if READ_PARSER is None:
        pytest.skip("sqlglotc: an interpreted parser class cannot be made")
    from translator.dialects.spark import assemble

    read: list[str] = []

    class Spy(SparkReadParser):
        def parse(self, raw_tokens: Any, sql: str = "") -> Any:
            read.append(sql)
            return super().parse(raw_tokens, sql)

    monkeypatch.setattr(assemble, "READ_PARSER", Spy)
    result = parse_script(
        "CREATE FUNCTION f(x STRING) RETURNS STRING RETURN CAST(x AS VARCHAR(3))", "spark"
    )
    body = result.statements[0]
    assert isinstance(body, CreateFunction) and read == ["CAST(x AS VARCHAR(3))"]
    assert body.body.ast == sqlglot.parse_one("CAST(x AS VARCHAR(3))", read="spark")
