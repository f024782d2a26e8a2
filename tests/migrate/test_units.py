"""A file's text with some statements blanked out (translator.migrate.units.mask) splits into
the statements kept, unchanged and at their places: the migration hands that split to the
apply (``statement_cache.remember_split``) instead of scanning the masked text again."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks.corpus import generate
from tests.conftest import FIXTURES
from translator.dialects import get_dialect
from translator.errors import TranslatorError
from translator.migrate.report import StatementReport
from translator.migrate.units import Item, mask
from translator.script import StatementText, split_statements
from translator.warehouse.layout import FunctionRef

TRICKY = {
    "spark": [
        "USE a;\n-- between ; statements\n"
        "CREATE FUNCTION f(x INT) RETURNS INT RETURN x /* ; */ + 1;\n;;\n"
        "CREATE TABLE t (s STRING COMMENT 'a;b');\r\nCREATE FUNCTION g() RETURNS STRING "
        "RETURN 'x;\u200by'\u200b;\nDROP FUNCTION IF EXISTS f;  -- tail comment",
        "CREATE FUNCTION h(s STRING) RETURNS STRING RETURN `s`;\n"
        "CREATE TEMPORARY VIEW v AS SELECT ';' AS c;\nCREATE FUNCTION k() RETURNS INT RETURN 1",
    ],
    "trino": [
        "CREATE FUNCTION f(x integer) RETURNS integer BEGIN DECLARE y integer DEFAULT 1;\n"
        "IF x > 0 THEN RETURN CASE WHEN x = 1 THEN 1 END; END IF; RETURN y; END;\n"
        "SELECT 1;\nCREATE FUNCTION g(x varchar) RETURNS varchar RETURN x || ';';\n"
        "/* a ; comment */ DROP FUNCTION g(varchar);",
        "CREATE FUNCTION a() RETURNS integer RETURN 1;\nCREATE TABLE t AS SELECT 'x;' AS s;\n"
        "CREATE FUNCTION b() RETURNS integer BEGIN RETURN 2; END",
    ],
}


def _scripts(dialect: str) -> list[str]:
    corpus = [s.text for s in generate(600, 20240607) if s.dialect == dialect]
    fixtures = sorted((FIXTURES / "migrations").glob(f"{dialect}_*/*.sql"))
    return [*TRICKY[dialect], *corpus, *(p.read_text("utf-8") for p in fixtures)]


def _item(piece: StatementText) -> Item:
    report = StatementReport("f.sql", 1, 1, "", "function")
    return Item(piece, report, FunctionRef("default", "f"), "f", "k")


def _same(a: list[StatementText], b: list[StatementText]) -> None:
    assert [(p.text, p.position, p._invisible) for p in a] == [
        (p.text, p.position, p._invisible) for p in b
    ]


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_a_masked_script_splits_into_the_statements_it_keeps(dialect: str) -> None:
    lex = get_dialect(dialect).lexical
    rng = random.Random(7)
    checked = 0
    for text in _scripts(dialect):
        for broken in ("", "\nCREATE FUNCTION z() RETURNS INT RETURN 'unterminated;\n"):
            script = text + broken
            try:
                pieces, tail = split_statements(script, lex, file="f.sql"), len(script)
            except TranslatorError:
                tail = len(text)
                pieces = split_statements(text, lex, file="f.sql")
            for _ in range(4):
                keep = [_item(p) for p in pieces if rng.random() < 0.7]
                masked = mask(script, keep, pieces, tail)
                assert len(masked) == len(script)
                _same(split_statements(masked, lex, file="f.sql"), [it.piece for it in keep])
                checked += 1
    assert checked > 500


def test_remember_split_keeps_only_inside_a_run(tmp_path: Path) -> None:
    from translator.statement_cache import remember_split, run_scope
    from translator.statement_cache import split_statements as cached_split

    lex = get_dialect("spark").lexical
    text = "CREATE FUNCTION f() RETURNS INT RETURN 1;\nSELECT 1;"
    pieces = split_statements(text, lex, file="f.sql")
    remember_split(text, lex, "f.sql", pieces[:1])  # no run: nothing kept
    _same(cached_split(text, lex, file="f.sql"), pieces)
    with run_scope():
        remember_split(text, lex, "f.sql", pieces[:1])
        _same(cached_split(text, lex, file="f.sql"), pieces[:1])
