"""Storage through fsspec (translator.warehouse.store): memory file systems, refused protocols,
file URLs."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.conftest import assert_rest_schema_valid
from tests.warehouse.helpers import (
    CREATE_INT,
    current_versions,
    fixed_context,
    metadata_files,
    replace_int,
)
from translator.metadata import dump_metadata
from translator.warehouse import (
    MetadataCache,
    RetryPolicy,
    UnsupportedStorageError,
    Warehouse,
)


def test_memory_filesystem_warehouse(tmp_path: Path) -> None:
    url = f"memory://iceberg-udf-test-{uuid.uuid4().hex}"
    wh = Warehouse(url, context=fixed_context(), cache=MetadataCache())
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    wh.apply(replace_int(2), "trino").raise_for_errors()
    r = wh.load("add_one")
    assert r.version == 2 and r.location.startswith("memory://")
    assert r.metadata.location is not None and r.metadata.location.endswith("/default/add_one")
    assert_rest_schema_valid(dump_metadata(r.metadata))
    assert [str(i.ref) for i in wh.functions()] == ["default.add_one"]
    # A stale writer loses the race for file 2 and must not overwrite it.
    with pytest.raises(FileExistsError):
        wh.store.create_exclusive(r.path, b"{}", make_dirs=False)
    wh.rollback("add_one", log_entry=1)
    assert current_versions(wh.load("add_one").metadata) == {"int": 1}
    wh.drop("add_one")
    assert wh.functions() == []


def test_memory_filesystem_threads_lose_no_update() -> None:
    from concurrent.futures import ThreadPoolExecutor

    url = f"memory://iceberg-udf-test-{uuid.uuid4().hex}"
    Warehouse(url).apply(CREATE_INT, "trino").raise_for_errors()

    def worker(w: int) -> int:
        wh = Warehouse(url, retry=RetryPolicy(max_attempts=1000))  # the bound is not under test
        conflicts = 0
        for i in range(8):
            r = wh.apply(replace_int(1000 * (w + 1) + i), "trino").raise_for_errors()
            conflicts += r.conflicts
        return conflicts

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(worker, range(4)))
    meta = Warehouse(url).load("add_one").metadata
    int_def = meta.definition("int")
    assert int_def is not None and [v.version_id for v in int_def.versions] == list(range(1, 34))
    assert len(meta.definition_log) == 33


def test_unsupported_protocols_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedStorageError, match="'dir'"):
        Warehouse(f"dir::file://{tmp_path}")


def test_file_urls_are_local_folders(tmp_path: Path) -> None:
    wh = Warehouse(f"file://{tmp_path}", context=fixed_context())
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    assert metadata_files(tmp_path)


def test_new_folders_are_made_durable_in_their_parents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file's fsync and its folder's fsync leave the folder's own name to chance: every folder
    a create or a move makes is synced in its parent, so a power cut cannot lose a function's
    folder whose metadata a ledger says is applied."""
    from translator.warehouse import store as store_module

    synced: list[Path] = []
    real = store_module.fsync_folder

    def record(path: Path) -> None:
        synced.append(path)
        real(path)

    monkeypatch.setattr(store_module, "fsync_folder", record)
    local = store_module.LocalStore(tmp_path)
    local.create_exclusive("ns/f/metadata/00000-a.metadata.json", b"{}", make_dirs=True)
    for folder in ("ns", "ns/f", "ns/f/metadata"):
        assert (tmp_path / folder).parent in synced, folder
    assert synced[-1] == tmp_path / "ns/f/metadata"  # the file's own entry, after the folders

    synced.clear()
    local.move_dir("ns/f", "trash/ns/f")
    assert {tmp_path, tmp_path / "trash", tmp_path / "trash/ns", tmp_path / "ns"} <= set(synced)
