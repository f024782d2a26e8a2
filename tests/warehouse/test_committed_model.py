"""A commit hands the cache the model it wrote (``MetadataReader.remember``) instead of reading
the file back: that model must be the one a read of the file makes, unknown fields included."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.corpus import generate
from tests.model_equality import assert_same
from tests.warehouse.helpers import put_file, warehouse
from translator.compile import CompileOptions
from translator.metadata import read_metadata_file
from translator.warehouse import FunctionNotFoundError, Warehouse


def _cached_equals_read(wh: Warehouse, root: Path, name: str) -> None:
    cached = wh.load(name, copy=False)
    assert wh.cache is not None and wh.cache.hits > 0
    assert_same(cached.metadata, read_metadata_file(root / cached.path))


_UNKNOWN = {
    "function-uuid": "11111111-1111-4111-8111-111111111111",
    "format-version": 1,
    "x-top": {"nested": [1, 2.5, None, {"deep": True}], "ratio": 1e-07},
    "properties": {"owner": "data-eng"},
    "definitions": [
        {
            "definition-id": "int",
            "parameters": [{"name": "x", "type": "int", "x-param": [None]}],
            "return-type": "int",
            "x-def": "kept",
            "versions": [
                {
                    "version-id": 1,
                    "representations": [
                        {"type": "sql", "dialect": "trino", "sql": "x + 1", "x-rep": 0.5},
                        {"type": "python", "entry": "f.py", "x-list": [[]]},
                    ],
                    "timestamp-ms": 1000,
                    "x-version": {"a": {}},
                }
            ],
            "current-version-id": 1,
            "function-type": "udf",
        },
        {
            "definition-id": "list<int>",
            "parameters": [
                {"name": "xs", "type": {"type": "list", "element": "int", "element-id": 3}}
            ],
            "return-type": {"type": "list", "element": "int", "element-id": 4},
            "versions": [
                {
                    "version-id": 1,
                    "representations": [{"type": "sql", "dialect": "trino", "sql": "xs"}],
                    "timestamp-ms": 1000,
                }
            ],
            "current-version-id": 1,
            "function-type": "udf",
        },
    ],
    "definition-log": [
        {
            "timestamp-ms": 1000,
            "definition-versions": [
                {"definition-id": "int", "version-id": 1, "x-ref": "r"},
                {"definition-id": "list<int>", "version-id": 1},
            ],
            "x-entry": 7,
        }
    ],
}


def test_every_kind_of_commit_caches_what_a_read_makes(tmp_path: Path) -> None:
    put_file(tmp_path, "1.metadata.json", json.dumps(_UNKNOWN, indent=2))
    wh = warehouse(tmp_path)
    attach = CompileOptions(attach=True)
    steps: list[tuple[str, str, CompileOptions | None]] = [
        ("CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + 2", "trino", None),
        ("CREATE FUNCTION f(x double) RETURNS double COMMENT 'doc' RETURN x * 2", "trino", None),
        ("CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 20", "spark", attach),
        (
            "CREATE OR REPLACE FUNCTION f(x integer COMMENT 'p') RETURNS integer "
            "SECURITY INVOKER RETURN x + 3",
            "trino",
            None,
        ),
        ("DROP FUNCTION f(double)", "trino", None),
        ("CREATE FUNCTION f(x double) RETURNS double RETURN x * 3", "trino", None),
    ]
    for sql, dialect, options in steps:
        result = wh.apply(sql, dialect, options=options).raise_for_errors()
        assert result.committed, sql
        _cached_equals_read(wh, tmp_path, "f")
    wh.rollback("f", log_entry=2)
    _cached_equals_read(wh, tmp_path, "f")


def test_a_migration_caches_what_a_read_makes(tmp_path: Path) -> None:
    wh = warehouse(tmp_path)
    scripts = generate(400)
    names: set[str] = set()
    for dialect in ("spark", "trino"):
        for script in [s for s in scripts if s.dialect == dialect][:40]:
            result = wh.apply(script.text, dialect)
            names.update(c.function for c in result.changes if c.action != "unchanged")
    checked = 0
    for name in sorted(names):
        try:
            wh.load(name, copy=False)
        except FunctionNotFoundError:  # dropped by a later statement
            continue
        _cached_equals_read(wh, tmp_path, name)
        checked += 1
    assert checked > 20
