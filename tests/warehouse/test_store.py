"""Storage through fsspec (translator.warehouse.store): memory file systems, refused protocols,
file URLs."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import assert_rest_schema_valid, examples
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


@settings(max_examples=examples(3000), deadline=None)
@given(
    root=st.sampled_from(["/srv/wh", "/", "//srv/wh", "/srv/wh/"]),
    rel=st.lists(
        st.sampled_from(["a", "b.c", ".", "..", ".j", "..x", "", "/", "%2E", " ", "é"]),
        max_size=7,
    ).map("/".join),
)
def test_local_paths_are_joined_as_path_joins_them(root: str, rel: str) -> None:
    """A local store joins plainly spelled relative paths as text: every spelling must name
    what ``root / rel`` names (``//``, ``.`` parts and absolute paths go through ``Path``)."""
    from translator.warehouse.store import LocalStore

    store = LocalStore(root)
    assert store.location(rel) == str(store.root / rel if rel else store.root)


def _big_commits(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[bytes], list[int]]:
    """Commits into a function whose files are over DIRECT_MIN, each file held to
    dump_metadata's bytes of the model the commit made; every metadata file's bytes, and what
    ``start_direct`` answered for each."""
    from tests.metadata.test_reuse import _CTX, STATEMENTS, _long_base
    from translator import direct_write
    from translator.warehouse.layout import FunctionRef

    taken: list[int] = []
    real = direct_write.start_direct

    def spy(fd: int, data: bytes | list[bytes]) -> int:
        block = real(fd, data)
        if len(data if isinstance(data, bytes) else b"".join(data)) >= direct_write.DIRECT_MIN:
            taken.append(block)  # the metadata files (a commit writes small ones too)
        return block

    monkeypatch.setattr("translator.warehouse.publish.start_direct", spy)
    wh = Warehouse(root, context=_CTX)
    ref = FunctionRef.parse("f", wh.namespace)
    wh.committer.commit(ref, None, _long_base(24))
    for sql, dialect in STATEMENTS[:4]:
        wh.apply(sql, dialect).raise_for_errors()
        newest = wh.reader.newest(ref)
        assert newest is not None
        on_disk = (root / newest.path).read_bytes()
        assert len(on_disk) >= direct_write.DIRECT_MIN
        assert on_disk == dump_metadata(newest.metadata).encode()
    return [f.read_bytes() for f in sorted(root.rglob("*.metadata.json"))], taken


def test_big_commits_write_the_same_files_past_the_page_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Big commits (the texts reused, the files written past the page cache) write
    dump_metadata's bytes, and the same files as plain writes do."""
    import shutil

    from translator import direct_write

    monkeypatch.setenv(direct_write.DIRECT_ENV, "0")
    plain, taken = _big_commits(tmp_path / "wh", monkeypatch)
    assert len(plain) == 5 and taken == [0] * 5
    shutil.rmtree(tmp_path / "wh")
    monkeypatch.delenv(direct_write.DIRECT_ENV)
    direct, taken = _big_commits(tmp_path / "wh", monkeypatch)
    assert direct == plain
    if not all(taken):
        pytest.skip("this file system refuses O_DIRECT")
    assert len(taken) == 5
