"""The generator that writes bodies in Spark SQL (:mod:`translator.dialects.spark.writer`)
writes what sqlglot's own Spark generator writes: the same text or the same error, for every
type and cast kind it writes its own way, and for every body of the benchmark corpus."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError
from sqlglot.generator import Generator
from sqlglot.generators.hive import HiveGenerator
from sqlglot.generators.spark import SparkGenerator
from sqlglot.generators.spark2 import Spark2Generator

from benchmarks.corpus import generate
from translator.bodies import transpile_body
from translator.dialects import get_dialect
from translator.dialects.spark.writer import WRITER, SparkWriter
from translator.sqlglot_dialects import SPARK, write
from translator.sqltrees import copy_tree
from translator.types import DecimalType

_COMPILED = not sqlglot.generator.__file__.endswith(".py")

needs_pure = pytest.mark.skipif(
    WRITER is None, reason="sqlglotc: bodies are written by sqlglot's own Spark generator"
)


def test_the_writer_is_there_exactly_where_sqlglot_is_pure_python() -> None:
    assert (WRITER is None) == _COMPILED
    assert get_dialect("spark").body_writer is WRITER
    assert get_dialect("trino").body_writer is None


def test_it_skips_only_the_hive_and_spark_2_steps() -> None:
    """Between sqlglot's Spark generator and its base, only the Hive generator writes a type
    and a column definition its own way and only the Spark 2 generator a cast, so writing a
    node as the base does leaves out exactly their steps."""
    assert SparkWriter.__mro__[1:] == SparkGenerator.__mro__
    types = [c for c in SparkGenerator.__mro__ if "datatype_sql" in vars(c)]
    casts = [c for c in SparkGenerator.__mro__ if "cast_sql" in vars(c)]
    assert types == [HiveGenerator, Generator]
    assert casts == [Spark2Generator, Generator]
    columns = [c for c in SparkGenerator.__mro__ if "columndef_sql" in vars(c)]
    assert columns == [HiveGenerator, Generator]


def _method(module: str, cls: str, name: str) -> ast.FunctionDef:
    """A method of sqlglot's source (which sqlglotc keeps beside its compiled modules)."""
    source = (Path(sqlglot.__file__).parent / "generators" / module).read_text("utf-8")
    found = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == cls)
    return next(n for n in found.body if isinstance(n, ast.FunctionDef) and n.name == name)


def _tests(method: ast.FunctionDef) -> list[str]:
    """The conditions of the method's top-level ``if`` chain, and its last statement."""
    out: list[str] = []
    for node in method.body:
        branch: ast.stmt | None = node
        while isinstance(branch, ast.If):
            out.append(ast.unparse(branch.test))
            branch = branch.orelse[0] if len(branch.orelse) == 1 else None
    return [*out, ast.unparse(method.body[-1])]


def test_the_steps_it_skips_test_what_the_writer_checks() -> None:
    """The tests the skipped steps make, read from sqlglot's source: each holds only for a node
    the writer hands to sqlglot's own method (a FLOAT, temporal or user-defined type, a
    parameterisable text type, STRING with parameters; a cast to JSON or a user-defined type,
    to DECIMAL of a literal, to a nested type of a JSON value or extraction or a cast), and each
    step ends by writing the node as the base class does. A column definition's separator is
    ": " in a type that ``is_type("struct")``, and the strings those tests ask by parse to the
    bare types of their names."""
    assert _tests(_method("hive.py", "HiveGenerator", "datatype_sql")) == [
        "expression.this in self.PARAMETERIZABLE_TEXT_TYPES and (not expression.expressions or "
        "expression.expressions[0].name == 'MAX')",
        "expression.is_type(exp.DType.TEXT) and expression.expressions",
        "not self.SUPPORTS_TEMPORAL_PRECISION and expression.this in exp.DataType.TEMPORAL_TYPES",
        "expression.is_type('float')",
        "return super().datatype_sql(expression)",
    ]
    cast = _method("spark2.py", "Spark2Generator", "cast_sql")
    assert _tests(cast) == [
        "isinstance(arg, exp.Literal) and arg.is_number and expression.to.is_type("
        "exp.DType.DECIMAL) and (len(expression.to.expressions) == 2) and "
        "isinstance(expression.to.expressions[1].this, exp.Neg)",
        "expression.to.args.get('nested') and (is_parse_json(arg) or is_json_extract)",
        "is_parse_json(expression)",
        "return super(HiveGenerator, self).cast_sql(expression, safe_prefix=safe_prefix)",
    ]
    assert "is_json_extract = isinstance(arg, (exp.JSONExtract, exp.JSONExtractScalar))" in (
        ast.unparse(cast)
    )
    column = _method("hive.py", "HiveGenerator", "columndef_sql")
    assert ast.unparse(column.body[-1]) == (
        "return super().columndef_sql(expression, sep=': ' if isinstance(expression.parent, "
        "exp.DataType) and expression.parent.is_type('struct') else sep)"
    )
    for name in ("float", "json", "struct"):  # sqlglot compares such a type with a node by kind
        built = exp.DataType.build(name, udt=True)
        assert built.this is exp.DType[name.upper()] and not built.expressions


def _outcome(tree: exp.Expr, how: Callable[[exp.Expr], str]) -> tuple[str, str]:
    """What writing a copy of ``tree`` gives: its text, or its error (the writers change the
    trees they write)."""
    try:
        return ("text", how(copy_tree(tree)))
    except (SqlglotError, ValueError, TypeError, KeyError, IndexError) as e:
        return ("error", f"{type(e).__name__}: {e}")


def _same(tree: exp.Expr, writer: type[Generator]) -> None:
    ours = _outcome(tree, lambda t: write(t, SPARK, writer, unsupported_level=ErrorLevel.RAISE))
    stock = _outcome(tree, lambda t: t.sql(dialect=SPARK, unsupported_level=ErrorLevel.RAISE))
    assert ours == stock, repr(tree)


def _types() -> Iterator[exp.DataType]:
    """Every kind of type bare, with one parameter, two, MAX, a negative scale, and nested."""
    for kind in exp.DType:
        params: list[list[exp.Expr]] = [
            [],
            [exp.DataTypeParam(this=exp.Literal.number(3))],
            [exp.DataTypeParam(this=exp.Literal.number(40))],
            [
                exp.DataTypeParam(this=exp.Literal.number(10)),
                exp.DataTypeParam(this=exp.Literal.number(2)),
            ],
            [
                exp.DataTypeParam(this=exp.Literal.number(10)),
                exp.DataTypeParam(this=exp.Neg(this=exp.Literal.number(2))),
            ],
            [exp.DataTypeParam(this=exp.var("MAX"))],
        ]
        for p in params:
            yield exp.DataType(this=kind, expressions=p)
    yield exp.DataType(this=exp.DType.USERDEFINED, kind="my_type")
    yield exp.DataType.build("ARRAY<STRUCT<a: FLOAT, b: VARCHAR(3), c: TIMESTAMP>>", dialect=SPARK)
    yield exp.DataType.build("MAP<STRING, ARRAY<DECIMAL(10, 2)>>", dialect=SPARK)
    for kind in (exp.DType.STRUCT, exp.DType.OBJECT, exp.DType.NESTED, exp.DType.USERDEFINED):
        field = exp.ColumnDef(this=exp.to_identifier("a"), kind=exp.DataType.build("INT"))
        yield exp.DataType(this=kind, expressions=[field], nested=True)


def _arguments() -> Iterator[exp.Expr]:
    yield exp.column("x")
    yield exp.Literal.number(12)
    yield exp.Literal.string("a")
    yield exp.ParseJSON(this=exp.Literal.string("{}"))
    yield exp.Cast(this=exp.column("j"), to=exp.DataType.build("JSON"))
    yield exp.JSONExtract(this=exp.column("j"), expression=exp.Literal.string("$.a"))
    yield exp.JSONExtractScalar(this=exp.column("j"), expression=exp.Literal.string("$.a"))


@needs_pure
def test_every_type_and_cast_is_written_as_sqlglots_spark_generator_writes_it() -> None:
    assert WRITER is not None
    types = list(_types())
    assert len(types) > 6 * 100
    for t in types:
        _same(t, WRITER)
        _same(
            exp.Schema(
                this=exp.to_table("t"),
                expressions=[exp.ColumnDef(this=exp.to_identifier("c"), kind=copy_tree(t))],
            ),
            WRITER,
        )
        for arg in _arguments():
            for cls in (exp.Cast, exp.TryCast):
                nested = copy_tree(t)
                nested.set("nested", True)
                _same(cls(this=copy_tree(arg), to=copy_tree(t)), WRITER)
                _same(cls(this=copy_tree(arg), to=nested), WRITER)


def _bodies(statements: int, forms: list[str]) -> Iterator[exp.Expr]:
    """Every body of the corpus's first ``statements`` as sqlglot reads it in its dialect, and
    every Spark form compile stores for the corpus (compound bodies among them) read back."""
    from benchmarks.throughput import _bodies as corpus_bodies

    for text, source, _ in corpus_bodies(generate(statements)):
        try:
            yield sqlglot.parse_one(text, read=source)
        except SqlglotError:
            continue
    for form in forms:
        yield sqlglot.parse_one(form, read="spark")


@needs_pure
def test_the_corpus_bodies_are_written_as_sqlglots_spark_generator_writes_them(
    corpus_spark_forms: list[str],
) -> None:
    assert WRITER is not None
    trees = list(_bodies(1000, corpus_spark_forms))
    assert len(trees) > 1000
    assert any(isinstance(t, exp.Anonymous) or t.find(exp.Lambda) for t in trees)
    for tree in trees:
        _same(tree, WRITER)


def test_a_transpile_writes_with_the_targets_body_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Trino body's Spark form is written by the Spark dialect's body writer (a spy here)."""
    if WRITER is None:
        pytest.skip("sqlglotc: an interpreted generator class cannot be made")
    written: list[str] = []

    class Spy(SparkWriter):
        def generate(self, expression: exp.Expr, copy: bool = True) -> Any:
            text = super().generate(expression, copy=copy)
            written.append(text)
            return text

    monkeypatch.setattr(type(get_dialect("spark")), "body_writer", Spy)
    t = transpile_body(
        "CAST(n AS decimal(12, 2)) * 2",
        sqlglot.parse_one("CAST(n AS decimal(12, 2)) * 2", read="trino"),
        kind="expression",
        source="trino",
        target="spark",
        parameters=["n"],
        parameter_types={"n": DecimalType(12, 2)},
        name="f",
        return_type=DecimalType(38, 2),
    )
    assert t.sql is not None and written == [t.sql]
