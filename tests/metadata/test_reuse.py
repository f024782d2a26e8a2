"""A commit into a long document reuses the texts of what it shares with the document it was
merged into (metadata/reuse.py): the bytes are always dump_metadata's, and the verdict always
the whole document's (the same problems in the same order)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks import merge_scaling as ms
from tests.metadata.test_checked import CHANGES, _log, _private, _without_floats
from tests.warehouse.test_committed_model import _UNKNOWN
from translator.api import compile_script
from translator.compile import Context
from translator.history import rollback
from translator.metadata import (
    UdfMetadata,
    Written,
    checked,
    checked_write,
    dump_metadata,
    load_metadata,
    validate_metadata,
)
from translator.metadata.written import LONG
from translator.warehouse import Warehouse
from translator.warehouse.layout import FunctionRef
from translator.warehouse.store import LocalStore, open_store

_CTX = Context(
    clock=lambda: 2_000_000_000_000, new_uuid=lambda: "00000000-0000-4000-8000-0000000000aa"
)


def _long_base(versions: int = 1) -> UdfMetadata:
    """_UNKNOWN's unknown keys (without floats) and LONG more definitions, each with
    ``versions`` versions (the first of them with ``versions * LONG``)."""
    doc = _without_floats(_UNKNOWN)
    extra = [ms._definition(sig, versions) for sig in ms._signatures(LONG)]
    extra[0] = ms._definition(ms._signatures(1)[0], versions * LONG)
    doc["definitions"] += extra
    doc["definition-log"].append(
        {
            "timestamp-ms": 1500,
            "definition-versions": [
                {"definition-id": d["definition-id"], "version-id": d["current-version-id"]}
                for d in doc["definitions"]
            ],
        }
    )
    return load_metadata(json.dumps(doc))


@pytest.fixture
def rewrites(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each commit was proven valid from its new parts (True) or checked whole."""
    out: list[bool] = []
    real = checked.rewrite

    def spy(meta: UdfMetadata, base: Written) -> Any:
        done = real(meta, base)
        out.append(done is not None)
        return done

    monkeypatch.setattr(checked, "rewrite", spy)
    return out


def _commit(meta: UdfMetadata, base: UdfMetadata | None, written: Written | None) -> Written:
    """checked_write held to dump_metadata and to a full validation of the text."""
    data, problems, kept = checked_write(meta, base, written)
    text = data if isinstance(data, bytes) else b"".join(data)
    assert text == dump_metadata(meta).encode()
    assert problems == [] == validate_metadata(json.loads(text))
    assert kept is not None
    assert kept.versions == sum(len(d.versions) for d in meta.definitions)
    return kept


STATEMENTS = [
    ("CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + 2", "trino"),
    ("CREATE FUNCTION f(x double) RETURNS double COMMENT 'doc' RETURN x * 2", "trino"),
    (ms._create(ms._signatures(1)[0], "length(CAST(p0 AS STRING)) * 7", replace=True), "spark"),
    (ms._create(ms._signatures(3)[2], "length(CAST(p0 AS STRING)) * 8", replace=True), "spark"),
    ("DROP FUNCTION f(double)", "trino"),
    ("CREATE FUNCTION f(x double) RETURNS double RETURN x * 3", "trino"),
]


@pytest.mark.parametrize("versions", [1, 2])
def test_real_merges_reuse_and_write_what_dump_writes(versions: int, rewrites: list[bool]) -> None:
    base = _long_base(versions)
    written = _commit(base, None, None)
    for sql, dialect in STATEMENTS:
        result = compile_script(sql, dialect, into={"f": base}, context=_CTX)
        meta = result.raise_for_errors().functions["f"]
        assert meta is not None
        before = dump_metadata(base)
        written = _commit(meta, base, written)
        assert dump_metadata(base) == before  # what it merged into is never changed
        base = meta
    rolled, _, _ = rollback(base, 2, lambda: 2_100_000_000_000)
    assert rolled is not None
    _commit(rolled, base, written)
    # re-created under an id an older entry names, and a rollback (a deep copy: nothing
    # shared): checked whole, the verdict the same
    assert rewrites == [True, True, True, True, True, False, False]


def test_one_long_definition(rewrites: list[bool]) -> None:
    """A definition with a long list of versions, a log entry per version: a new version is
    written and checked alone, the others' texts reused."""
    base = ms.metadata_with_versions(2 * LONG)
    written = _commit(base, None, None)
    sig = tuple(p.type for p in base.definitions[0].parameters)
    for sql in (
        ms._create(sig, "length(CAST(p0 AS STRING)) * 3", replace=True),
        ms._create(("string",) * 6, "length(p0)", replace=False),
        ms._create(sig, "length(CAST(p0 AS STRING)) * 4", replace=True),
    ):
        meta = compile_script(sql, "spark", into={"f": base}, context=_CTX)
        new = meta.raise_for_errors().functions["f"]
        assert new is not None
        written = _commit(new, base, written)
        base = new
    assert rewrites == [True, True, True]


def test_reordered_definitions(rewrites: list[bool]) -> None:
    base = _long_base()
    written = _commit(base, None, None)
    meta = _private(base)
    meta.definitions.reverse()
    _log(meta, 2000)
    _commit(meta, base, written)
    meta2 = _private(meta)
    meta2.definitions.insert(3, meta2.definitions.pop(0))
    _log(meta2, 3000)
    _commit(meta2, meta, _commit(meta, base, written))
    assert rewrites[-1] is True


@pytest.mark.parametrize("name", list(CHANGES))
def test_the_verdict_is_the_whole_documents(name: str, rewrites: list[bool]) -> None:
    """test_checked's broken changes, on a long document with its texts kept."""
    base = _long_base(2)
    written = _commit(base, None, None)
    change, ts = CHANGES[name]
    meta = _private(base)
    change(meta)
    _log(meta, ts)
    data, problems, kept = checked_write(meta, base, written)
    text = data if isinstance(data, bytes) else b"".join(data)
    assert text == dump_metadata(meta).encode()
    assert problems == validate_metadata(json.loads(text))
    assert (problems == []) == (name == "new version") == (kept is not None)
    assert rewrites == [name == "new version"]


def _specific_name_clash(meta: UdfMetadata) -> None:
    d = meta.definitions[5].model_copy(update={"specific_name": "same"})
    d.model_fields_set.add("specific_name")
    meta.definitions[5] = d


def _versions_dropped(meta: UdfMetadata) -> None:
    d = meta.definitions[2].model_copy()
    d.versions = d.versions[:-1]  # its current one, which the last entry names
    meta.definitions[2] = d


def _many_versions_going_back(meta: UdfMetadata) -> None:
    d = meta.definitions[2].model_copy()
    d.versions = [*d.versions, d.versions[3].model_copy()]
    meta.definitions[2] = d


def _same_object_twice(meta: UdfMetadata) -> None:
    meta.definitions.append(meta.definitions[7])


MORE: dict[str, Callable[[UdfMetadata], None]] = {
    "a specific name an unchanged definition has": _specific_name_clash,
    "a long definition losing a version a log entry names": _versions_dropped,
    "a long definition's version id going back": _many_versions_going_back,
    "one definition twice": _same_object_twice,
}


@pytest.mark.parametrize("name", list(MORE))
def test_changes_to_long_parts_get_the_whole_documents_verdict(name: str) -> None:
    base = _long_base(2)
    base.definitions[1].specific_name = "same"
    base.definitions[1].model_fields_set.add("specific_name")
    base = load_metadata(dump_metadata(base))
    written = _commit(base, None, None)
    meta = _private(base)
    MORE[name](meta)
    _log(meta, 2000)
    data, problems, kept = checked_write(meta, base, written)
    text = data if isinstance(data, bytes) else b"".join(data)
    assert text == dump_metadata(meta).encode()
    assert problems and problems == validate_metadata(json.loads(text)) and kept is None


def test_a_float_in_a_new_part_is_written_by_json_dumps(rewrites: list[bool]) -> None:
    base = _long_base()
    written = _commit(base, None, None)
    meta = _private(base)
    d = meta.definitions[4].model_copy()
    d.__pydantic_extra__ = {"x-ratio": 1e-07}
    meta.definitions[4] = d
    _log(meta, 2000)
    data, problems, kept = checked_write(meta, base, written)
    assert isinstance(data, bytes) and b'"x-ratio": 1e-07' in data
    assert data == dump_metadata(meta).encode() and problems == [] and kept is None
    assert rewrites == [False]


def test_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(checked.REUSE_ENV, "0")
    base = _long_base()
    data, problems, kept = checked_write(base, None, None)
    assert data == dump_metadata(base).encode() and problems == [] and kept is None


@pytest.mark.parametrize("reuse", [True, False])
def test_warehouse_commits_into_a_long_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reuse: bool
) -> None:
    if not reuse:
        monkeypatch.setenv(checked.REUSE_ENV, "0")
    wh = Warehouse(tmp_path, context=_CTX)
    ref = FunctionRef.parse("f", wh.namespace)
    assert wh.committer.commit(ref, None, _long_base(2)).version == 1
    for sql, dialect in STATEMENTS[:4]:
        wh.apply(sql, dialect).raise_for_errors()
    newest = wh.reader.newest(ref)
    assert newest is not None
    on_disk = (tmp_path / newest.path).read_bytes()
    assert on_disk == dump_metadata(load_metadata(on_disk.decode())).encode()
    assert on_disk == dump_metadata(newest.metadata).encode()
    assert (wh.reader.written(newest.metadata) is not None) == reuse


def test_stores_write_pieces_whole(tmp_path: Path) -> None:
    pieces = [b"{", b"\n  ", b'"a": 1' * 5000, b"\n}", b"\n"] * 700
    LocalStore(tmp_path).create_exclusive("ns/f/x.json", pieces, make_dirs=True)
    assert (tmp_path / "ns/f/x.json").read_bytes() == b"".join(pieces)
    memory = open_store("memory://reuse-test")
    memory.create_exclusive("ns/f/x.json", pieces, make_dirs=True)
    assert memory.read_bytes("ns/f/x.json") == b"".join(pieces)
