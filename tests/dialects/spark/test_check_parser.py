"""The parser that reads a body written for Spark back
(:mod:`translator.dialects.spark.check_parser`) gives the check what sqlglot's own Spark parser
gives it: the same outcome, the same names and the same tokens, on every Spark form the
benchmark corpus's Trino functions get and on types made to exercise the rewrite it leaves
out."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from sqlglot.errors import SqlglotError
from sqlglot.parser import Parser
from sqlglot.parsers.hive import HiveParser
from sqlglot.parsers.spark import SparkParser

from translator import sqlglot_dialects
from translator.bodies import transpile_body
from translator.dialects import get_dialect
from translator.dialects.spark.check_parser import CHECK_PARSER, SparkCheckParser
from translator.sqlglot_dialects import SPARK, parse_one_with_tokens
from translator.sqltrees import scoped_columns
from translator.types import DecimalType

_COMPILED = not sqlglot.parser.__file__.endswith(".py")

needs_pure = pytest.mark.skipif(
    CHECK_PARSER is None, reason="sqlglotc: the check uses sqlglot's own Spark parser"
)


def test_the_check_parser_is_there_exactly_where_sqlglot_is_pure_python() -> None:
    assert (CHECK_PARSER is None) == _COMPILED
    assert get_dialect("spark").check_parser is CHECK_PARSER
    assert get_dialect("trino").check_parser is None


def test_only_the_hive_parser_adds_to_how_sqlglot_parses_a_spark_type() -> None:
    """The override skips exactly the Hive parser's step: no other class between sqlglot's
    Spark parser and its base parser reads types its own way."""
    own = [c for c in SparkParser.__mro__ if "_parse_types" in vars(c)]
    assert own == [HiveParser, Parser]
    assert SparkCheckParser.__mro__[1:] == SparkParser.__mro__


def test_the_hive_step_left_out_only_rewrites_a_parsed_type() -> None:
    """The Hive parser's ``_parse_types`` (read from sqlglot's source, which sqlglotc keeps
    beside its compiled modules) parses as its base does, then only rewrites the result, with
    a function that sets a DataType's ``this`` and ``expressions``: nothing it does can refuse a
    text or add a name."""
    source = (Path(sqlglot.__file__).parent / "parsers" / "hive.py").read_text("utf-8")
    cls = next(
        n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "HiveParser"
    )
    method = next(
        n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "_parse_types"
    )
    text = ast.unparse(method)
    assert "super()._parse_types(" in text
    assert "return this.transform(_to_text, copy=False)" in text
    helper = next(
        n for n in ast.walk(method) if isinstance(n, ast.FunctionDef) and n.name == "_to_text"
    )
    sets = [
        c for c in ast.walk(helper) if isinstance(c, ast.Call) and ast.unparse(c.func) == "node.set"
    ]
    assert sorted(ast.unparse(c.args[0]) for c in sets) == ["'expressions'", "'this'"]


#: Texts that exercise the rewrite (char and varchar at every level, in and out of casts) and
#: ones that do not parse.
_CRAFTED = [
    "CAST(x AS VARCHAR(3))",
    "CAST(x AS CHAR(2)) || y",
    "CAST(c AS ARRAY<STRUCT<a: VARCHAR(3), b: CHAR(2), c: ARRAY<VARCHAR(1)>>>)",
    "CAST(m AS MAP<STRING, CHAR(1)>)[k]",
    "TRY_CAST(x AS VARCHAR(10)) = CAST(y AS STRING)",
    "TRANSFORM(a, e -> CAST(e AS VARCHAR(4)))",
    "NAMED_STRUCT('a', CAST(NULL AS STRUCT<x: VARCHAR(2)>))",
    "x::VARCHAR(3)",
    "CAST(x AS)",
    "CAST(x AS VARCHAR(3)",
    "CAST(x AS STRUCT<a VARCHAR(3)>) +",
]


def _read(text: str, parser: type[Parser] | None) -> tuple[Any, ...]:
    """What the check reads of a parse: the outcome, the names and the tokens."""
    try:
        tree, tokens = parse_one_with_tokens(text, SPARK, parser)
    except SqlglotError as e:
        return ("error", type(e).__name__, str(e).splitlines()[0])
    columns, free, lambda_vars, qualified = scoped_columns(tree)
    names = [[c.sql("spark") for c in found] for found in (columns, free)]
    return ("tree", names, sorted(lambda_vars), qualified, [(t.token_type, t.text) for t in tokens])


@needs_pure
def test_the_check_reads_what_sqlglots_spark_parser_gives_it(corpus_spark_forms: list[str]) -> None:
    forms = corpus_spark_forms
    assert len(forms) > 500 and any("ELEMENT_AT(TRANSFORM(" in f for f in forms)
    texts = forms + _CRAFTED
    for text in texts:
        assert _read(text, CHECK_PARSER) == _read(text, None), text
    # Where the text has no CHAR or VARCHAR, the trees are the same too.
    plain = [t for t in texts if "CHAR" not in t.upper()]
    for text in plain[:300]:
        try:
            stock = sqlglot.parse_one(text, read="spark")
        except SqlglotError:
            continue
        assert parse_one_with_tokens(text, SPARK, CHECK_PARSER)[0] == stock, text


@needs_pure
def test_a_check_parser_is_kept_apart_from_the_dialects_own() -> None:
    if not sqlglot_dialects.REUSE:
        pytest.skip("ICEBERG_UDF_SQLGLOT_REUSE=0")
    spare = sqlglot_dialects._spare.parsers
    parse_one_with_tokens("CAST(x AS VARCHAR(3))", SPARK)
    parse_one_with_tokens("CAST(x AS VARCHAR(3))", SPARK, CHECK_PARSER)
    own, check = spare[id(SPARK)], spare[(id(SPARK), CHECK_PARSER)]
    assert type(own) is SparkParser and type(check) is CHECK_PARSER
    parse_one_with_tokens("y", SPARK, CHECK_PARSER)
    assert spare[(id(SPARK), CHECK_PARSER)] is check and spare[id(SPARK)] is own


def test_the_transpile_check_parses_with_the_targets_check_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Trino body's Spark form is read back by the Spark dialect's check parser (a spy here,
    so that the test holds with either sqlglot build)."""
    if CHECK_PARSER is None:
        pytest.skip("sqlglotc: an interpreted parser class cannot be made")
    parsed: list[str] = []

    class Spy(SparkCheckParser):
        def parse(self, raw_tokens: Any, sql: str = "") -> Any:
            parsed.append(sql)
            return super().parse(raw_tokens, sql)

    monkeypatch.setattr(type(get_dialect("spark")), "check_parser", Spy)
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
    assert t.sql is not None and parsed == [t.sql]
