"""The shortcuts issue 17 took give the results of the long way (benchmarks/HISTORY.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlglot
from pydantic import BaseModel

from translator import statement_cache
from translator.bodies import copy_tree
from translator.compile import Context
from translator.dialects import get_dialect
from translator.errors import TranslatorError
from translator.frontend import parse_script
from translator.metadata import dump_metadata, load_metadata
from translator.migrate import migrate_directory
from translator.script import split_statements
from translator.warehouse import Warehouse
from translator.warehouse.cache import MetadataCache

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

_BODIES = [
    ("spark", "CASE WHEN x > 1 THEN concat_ws('-', s, 'a') /* c */ ELSE NULL END"),
    ("spark", "transform(arr, e -> e + x)"),
    ("spark", "(SELECT sum(v) FROM t WHERE k = x)"),
    ("trino", "CAST(x AS DECIMAL(10, 2)) * 2 -- trailing"),
    ("trino", "reduce(a, 0, (s, e) -> s + e, s -> s)"),
    ("trino", "SELECT a, b FROM t ORDER BY a LIMIT 3"),
]


@pytest.mark.parametrize(("dialect", "body"), _BODIES)
def test_copy_tree_is_sqlglots_copy(dialect: str, body: str) -> None:
    ast = sqlglot.parse_one(body, read=dialect)
    ours, theirs = copy_tree(ast), ast.copy()
    assert ours == theirs
    assert repr(ours) == repr(theirs)
    ours_nodes = {id(n) for n in ours.walk()}
    for a, b in zip(ours.walk(), theirs.walk(), strict=True):
        assert a.meta == b.meta and a.comments == b.comments
        assert a.meta is not b.meta or not a.meta
        # copy_tree links children itself: the same places in the tree as sqlglot's own copy
        assert (a.arg_key, a.index, type(a.parent)) == (b.arg_key, b.index, type(b.parent))
        assert a is ours or id(a.parent) in ours_nodes
        assert a.parent is None or a in list(a.parent.iter_expressions())
    assert all(x is not y for x, y in zip(ours.walk(), ast.walk(), strict=True))
    for target in ("spark", "trino"):
        assert copy_tree(ast).sql(target) == ast.sql(target)


def _statement(dialect: str, text: str) -> tuple[object, object]:
    d = get_dialect(dialect)
    (piece,) = split_statements(text, d.lexical, file="f.sql")
    return d, piece


def test_outside_a_run_nothing_is_kept() -> None:
    d, piece = _statement("spark", "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1")
    first = statement_cache.parse_statement(d, piece)  # type: ignore[arg-type]
    assert statement_cache.parse_statement(d, piece) is not first  # type: ignore[arg-type]


def test_inside_a_run_a_statement_is_parsed_once_per_place() -> None:
    text = "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1"
    with statement_cache.run_scope():
        a = parse_script(text, "spark", file="a.sql").statements[0]
        again = parse_script(text, "spark", file="a.sql").statements[0]
        elsewhere = parse_script(text, "spark", file="b.sql").statements[0]
        later = parse_script("\n" + text, "spark", file="a.sql").statements[0]
    assert again is a
    assert elsewhere is not a and elsewhere == a and elsewhere.position != a.position
    assert later is not a and later.position != a.position


def test_a_failing_statement_is_parsed_again() -> None:
    text = "CREATE FUNCTION f(x INTEGR) RETURNS INT RETURN x"
    with statement_cache.run_scope():
        first = parse_script(text, "spark").errors
        second = parse_script(text, "spark").errors
    assert len(first) == len(second) == 1
    assert first[0] is not second[0]
    assert isinstance(first[0], TranslatorError)
    assert str(first[0]) == str(second[0])


def test_inside_a_run_a_script_is_split_once() -> None:
    lex = get_dialect("trino").lexical
    text = "CREATE FUNCTION f(x bigint) RETURNS bigint RETURN x; USE s; DROP FUNCTION g()"
    with statement_cache.run_scope():
        first = statement_cache.split_statements(text, lex, file="a.sql")
        again = statement_cache.split_statements(text, lex, file="a.sql")
        elsewhere = statement_cache.split_statements(text, lex, file="b.sql")
    assert again is not first and all(a is b for a, b in zip(again, first, strict=True))
    assert [p.position for p in elsewhere] != [p.position for p in first]
    fresh = split_statements(text, lex, file="a.sql")
    assert [(p.text, p.position, p.tokens) for p in first] == [
        (p.text, p.position, p.tokens) for p in fresh
    ]
    assert statement_cache.split_statements(text, lex)[0] is not first[0]  # outside: not kept


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    spark = get_dialect("spark")
    calls: list[str] = []
    real = type(spark).parse_statement

    def counting(self: object, stmt: object) -> object:
        calls.append(stmt.text)  # type: ignore[attr-defined]
        return real(self, stmt)  # type: ignore[arg-type]

    monkeypatch.setattr(type(spark), "parse_statement", counting)
    return calls


_UUID = "00000000-0000-4000-8000-000000000000"


def test_an_apply_parses_each_statement_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lock names, compile: before, each parsed the script's statements again."""
    calls = _count_parses(monkeypatch)
    script = (
        "CREATE FUNCTION a(x INT) RETURNS INT RETURN x + 1;\n"
        "CREATE FUNCTION b(s STRING) RETURNS STRING RETURN upper(s);\n"
    )
    wh = Warehouse(tmp_path / "wh", context=Context(clock=lambda: 1, new_uuid=lambda: _UUID))
    result = wh.apply(script, "spark", file="x.sql").raise_for_errors()
    assert len(result.committed) == 2
    assert sorted(calls) == sorted(s.rstrip(";\n") for s in script.splitlines(keepends=True))


def test_a_migration_parses_each_statement_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plan, lock names, compile: before, three parses of every statement."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "1_a.sql").write_text(
        "CREATE FUNCTION a(x INT) RETURNS INT RETURN x + 1;\nUSE other;\n"
        "CREATE FUNCTION b(s STRING) RETURNS STRING RETURN upper(s);\n"
    )
    (src / "2_b.sql").write_text("CREATE OR REPLACE FUNCTION a(x INT) RETURNS INT RETURN x + 2;\n")
    calls = _count_parses(monkeypatch)
    wh = Warehouse(tmp_path / "wh", context=Context(clock=lambda: 1, new_uuid=lambda: _UUID))
    report = migrate_directory(src, wh, "spark")
    assert not report.failures
    assert len(calls) == 3 and len(set(calls)) == 3


def _fields_sets(value: object) -> object:
    """Every model's set fields and extras, nested: what "absent stays absent" depends on."""
    if isinstance(value, BaseModel):
        return (
            type(value).__name__,
            sorted(value.model_fields_set),
            value.model_extra,
            {k: _fields_sets(getattr(value, k)) for k in type(value).model_fields},
        )
    if isinstance(value, list):
        return [_fields_sets(v) for v in value]
    return value


def test_a_commit_caches_what_a_read_of_its_file_would_parse(tmp_path: Path) -> None:
    cache = MetadataCache()
    wh = Warehouse(
        tmp_path / "wh", cache=cache, context=Context(clock=lambda: 5, new_uuid=lambda: _UUID)
    )
    wh.apply(
        "CREATE FUNCTION f(x INT COMMENT 'the x', y ARRAY<STRUCT<a: STRING>>) RETURNS INT "
        "COMMENT 'doc' DETERMINISTIC CONTAINS SQL RETURN x + size(y);\n"
        "CREATE OR REPLACE FUNCTION f(x INT COMMENT 'the x', y ARRAY<STRUCT<a: STRING>>) "
        "RETURNS INT RETURN x * 2;\n",
        "spark",
    ).raise_for_errors()
    committed = wh.apply(
        "CREATE FUNCTION f(s STRING) RETURNS STRING RETURN upper(s)", "spark"
    ).committed
    (c,) = committed
    hits = cache.hits
    cached = wh.reader.read(c.path)
    assert cache.hits == hits + 1  # not parsed again
    parsed = load_metadata((tmp_path / "wh" / c.path).read_text())
    assert cached == parsed
    assert _fields_sets(cached) == _fields_sets(parsed)
    assert dump_metadata(cached) == dump_metadata(parsed)
