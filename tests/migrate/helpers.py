"""What the migration tests share: the fixture folders, a deterministic warehouse, small
folders of scripts, and reading what a run wrote."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, assert_rest_schema_valid
from translator.cli import main
from translator.compile import Context
from translator.metadata import validate_metadata
from translator.migrate import MigrationReport, migrate_directory
from translator.warehouse import MetadataCache, Warehouse
from translator.warehouse.layout import parse_metadata_name

SPARK_DIR = FIXTURES / "migrations" / "spark_legacy"
TRINO_DIR = FIXTURES / "migrations" / "trino_legacy"
T0 = 1734507000000


def fixed_context() -> Context:
    ticks = itertools.count(T0, 1000)
    uuids = (f"00000000-0000-4000-8000-{n:012d}" for n in itertools.count(1))
    return Context(clock=lambda: next(ticks), new_uuid=lambda: next(uuids))


def migrate(src: Path, root: Path, dialect: str, **kw: Any) -> MigrationReport:
    kw.setdefault("source_name", src.name)
    with Warehouse(root, context=fixed_context(), cache=MetadataCache()) as wh:
        return migrate_directory(src, wh, dialect, **kw)


def write_dir(base: Path, files: dict[str, str]) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (base / name).write_text(text, encoding="utf-8")
    return base


def all_files(root: Path) -> list[str]:
    if not root.exists():
        return []
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def metadata_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.metadata.json") if parse_metadata_name(p.name))


def assert_every_file_valid(root: Path) -> int:
    files = metadata_files(root)
    for path in files:
        doc = json.loads(path.read_text())
        assert validate_metadata(doc) == [], path
        assert_rest_schema_valid(doc)
    return len(files)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fns_status(doc: dict[str, Any]) -> dict[str, str]:
    return {k: v["status"] for k, v in doc["functions"].items()}


def failures(report: MigrationReport) -> list[tuple[str | None, int | None, int | None, str]]:
    return [(f.file, f.line, f.column, f.code) for f in report.failures]
