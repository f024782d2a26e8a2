"""Shared setup of the warehouse tests: a fixed clock and uuids, small documents, the CLI."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import assert_rest_schema_valid
from translator.cli import main
from translator.compile import Context
from translator.metadata import UdfMetadata, validate_metadata
from translator.warehouse import (
    MetadataCache,
    Warehouse,
)
from translator.warehouse.layout import parse_metadata_name

T0 = 1734507000000


CREATE_INT = "CREATE FUNCTION add_one(x integer) RETURNS integer RETURN x + 1;"


CREATE_DOUBLE = "CREATE FUNCTION add_one(x double) RETURNS double RETURN x + 1.0;"


def replace_int(n: int) -> str:
    return f"CREATE OR REPLACE FUNCTION add_one(x integer) RETURNS integer RETURN x + {n};"


def fixed_context(start: int = T0, step: int = 1000) -> Context:
    ticks = itertools.count(start, step)
    uuids = (f"00000000-0000-4000-8000-{n:012d}" for n in itertools.count(1))
    return Context(clock=lambda: next(ticks), new_uuid=lambda: next(uuids))


def warehouse(root: Path, **kw: Any) -> Warehouse:
    kw.setdefault("context", fixed_context())
    kw.setdefault("cache", MetadataCache())
    return Warehouse(root, **kw)


def metadata_files(root: Path, ns: str = "default", fn: str = "add_one") -> list[str]:
    folder = root / ns / fn / "metadata"
    return sorted(p.name for p in folder.iterdir() if parse_metadata_name(p.name))


def assert_every_file_valid(root: Path) -> int:
    """Every metadata file under ``root`` (dropped ones included) passes both validators."""
    count = 0
    for path in root.rglob("*.metadata.json"):
        if not parse_metadata_name(path.name):
            continue
        doc = json.loads(path.read_text())
        assert validate_metadata(doc) == [], path
        assert_rest_schema_valid(doc)
        count += 1
    return count


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def normalize(text: str, root: Path) -> str:
    return text.replace(str(root), "<WH>")


def small_doc(function_uuid: str, body: str, log_ts: list[int]) -> str:
    """A small valid metadata document with one definition and the given log timestamps."""
    versions = [
        {
            "version-id": i,
            "representations": [{"type": "sql", "dialect": "trino", "sql": f"{body} + {i}"}],
            "timestamp-ms": ts,
        }
        for i, ts in enumerate(log_ts, 1)
    ]
    doc = {
        "function-uuid": function_uuid,
        "format-version": 1,
        "definitions": [
            {
                "definition-id": "int",
                "parameters": [{"name": "x", "type": "int"}],
                "return-type": "int",
                "versions": versions,
                "current-version-id": len(log_ts),
                "function-type": "udf",
            }
        ],
        "definition-log": [
            {"timestamp-ms": ts, "definition-versions": [{"definition-id": "int", "version-id": i}]}
            for i, ts in enumerate(log_ts, 1)
        ],
    }
    return json.dumps(doc, indent=2)


UUID_A = "11111111-1111-4111-8111-111111111111"


UUID_B = "22222222-2222-4222-8222-222222222222"


def put_file(root: Path, name: str, text: str) -> None:
    folder = root / "default" / "f" / "metadata"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def current_body(r: Any) -> str:
    rep = r.metadata.definitions[0].current_version.representations[0]
    return str(rep.sql)


def history_warehouse(root: Path) -> Warehouse:
    """Log: 1 int v1 (T0) | 2 int v1, double v1 (T0+1000) | 3 int v2 (T0+2000) | 4 int v3."""
    wh = warehouse(root)
    wh.apply(CREATE_INT + CREATE_DOUBLE, "trino").raise_for_errors()
    wh.apply(replace_int(2), "trino").raise_for_errors()
    wh.apply(replace_int(3), "trino").raise_for_errors()
    return wh


def current_versions(meta: UdfMetadata) -> dict[str, int]:
    return {d.definition_id: d.current_version_id for d in meta.definitions}
