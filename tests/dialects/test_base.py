"""The Dialect base class: the policies every engine gets unless it states otherwise, and the
helpers both front ends share."""

from __future__ import annotations

import pytest

from translator.dialects import get_dialect
from translator.dialects.base import QUERY_WORDS, stored_body_kind, walk_type
from translator.script import StatementText, split_statements
from translator.types import ListType, MapType, PrimitiveType, StructField, StructType


def piece(sql: str, dialect: str) -> StatementText:
    (stmt,) = split_statements(sql, get_dialect(dialect).lexical)
    return stmt


@pytest.mark.parametrize(
    ("sql", "dialect", "target"),
    [
        ("USE sales", "trino", ["sales"]),
        ("USE Cat.Sales", "trino", ["cat", "sales"]),
        ('USE "Cat".x', "trino", ["cat", "x"]),  # Trino folds quoted names too
        ("USE NAMESPACE `Sales`.x", "spark", ["sales", "x"]),  # Spark folds quoted names too
        ("USE DATABASE db", "spark", ["db"]),
        ("USE CATALOG c", "spark", []),
        ("USE a b", "trino", []),
        ("SELECT 1", "trino", None),
    ],
)
def test_use_target(sql: str, dialect: str, target: list[str] | None) -> None:
    assert get_dialect(dialect).use_target(piece(sql, dialect)) == target


@pytest.mark.parametrize(
    ("sql", "dialect", "name"),
    [
        ("CREATE FUNCTION a.b.f(x int) RETURNS ???", "trino", ["a", "b", "f"]),
        ("CREATE OR REPLACE FUNCTION IF NOT EXISTS `F`(x", "spark", ["f"]),
        ("DROP FUNCTION db.f", "spark", ["db", "f"]),
        ("CREATE FUNCTION f x", "trino", None),
        ("CREATE TABLE t (x int)", "trino", None),
        # A name given as a string expression: Spark's tokens alone cannot tell it.
        ("CREATE FUNCTION IDENTIFIER('db.f')(x INT) RETURNS", "spark", None),
    ],
)
def test_function_name_of(sql: str, dialect: str, name: list[str] | None) -> None:
    assert get_dialect(dialect).function_name_of(piece(sql, dialect)) == name


def test_deterministic_default_is_one_policy() -> None:
    """Trino holds a silent function to DETERMINISTIC, so the IR says so; Spark's silence says
    nothing, and merge fills in the documented default."""
    trino, spark = get_dialect("trino"), get_dialect("spark")
    assert trino.deterministic_said(None) is True
    assert spark.deterministic_said(None) is None
    assert trino.deterministic_default and spark.deterministic_default
    for d in (trino, spark):
        assert d.deterministic_said(False) is False
        assert d.deterministic_said(True) is True


def test_query_words_are_each_dialects_part_of_one_list() -> None:
    assert get_dialect("spark").query_words == QUERY_WORDS
    assert get_dialect("trino").query_words == QUERY_WORDS - {"FROM"}


@pytest.mark.parametrize(
    ("body", "function_type", "kind"),
    [
        ("x + 1", "udf", "expression"),
        ("  select 1", "udf", "query"),
        ("TABLE t", "udf", "query"),
        ("values_sum + 1", "udf", "expression"),  # a word, not a prefix
        ("(SELECT 1)", "udf", "expression"),
        ("(SELECT 1)", "udtf", "query"),
        ("BEGIN RETURN 1; END", "udf", "compound"),
    ],
)
def test_stored_body_kind(body: str, function_type: str, kind: str) -> None:
    assert stored_body_kind(body, function_type) == kind


def test_walk_type_visits_parents_before_children_in_order() -> None:
    inner = StructType(
        [StructField("a", PrimitiveType("int")), StructField("b", ListType(PrimitiveType("uuid")))]
    )
    t = MapType(PrimitiveType("string"), inner)
    assert list(walk_type(t)) == [
        t,
        PrimitiveType("string"),
        inner,
        PrimitiveType("int"),
        ListType(PrimitiveType("uuid")),
        PrimitiveType("uuid"),
    ]
