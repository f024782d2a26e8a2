"""The metadata cache (translator.warehouse.cache): hits, invalidation, no sharing, turning off."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.warehouse.helpers import (
    CREATE_DOUBLE,
    CREATE_INT,
    T0,
    UUID_A,
    current_body,
    put_file,
    replace_int,
    small_doc,
    warehouse,
)
from translator.warehouse import (
    CACHE_ENV,
    MetadataCache,
    Warehouse,
)


def test_cache_hits_and_sees_new_files(tmp_path: Path) -> None:
    cache = MetadataCache()
    wh = warehouse(tmp_path, cache=cache)
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    cache.clear()
    wh.load("add_one")
    assert (cache.hits, cache.misses) == (0, 1)
    first = wh.load("add_one")
    assert (cache.hits, cache.misses) == (1, 1)
    first.metadata.definitions.clear()  # callers get copies: the cache is not touched
    assert wh.load("add_one").metadata.definitions
    assert wh.at("add_one").metadata.definitions
    wh.apply(replace_int(2), "trino").raise_for_errors()
    assert wh.load("add_one").version == 2  # a new file: a new key, read fresh


def test_what_apply_returns_shares_nothing_with_the_cache(tmp_path: Path) -> None:
    """A merge result shares unchanged definitions with what it merged into: never the cache's."""
    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT + CREATE_DOUBLE, "trino").raise_for_errors()
    wh.load("add_one")  # cached
    result = wh.apply(replace_int(2), "trino", dry_run=True).raise_for_errors()
    (meta,) = result.functions.values()
    assert meta is not None
    for d in meta.definitions:  # the double one is unchanged by the statement
        d.versions.clear()
    loaded = wh.load("add_one").metadata  # the same file, from the cache
    assert [len(d.versions) for d in loaded.definitions] == [1, 1]


def test_cache_key_includes_mtime_and_size(tmp_path: Path) -> None:
    put_file(tmp_path, "1.metadata.json", small_doc(UUID_A, "one", [T0]))
    cache = MetadataCache()
    wh = warehouse(tmp_path, cache=cache)
    assert current_body(wh.load("f")) == "one + 1"
    # Out of protocol (files are never rewritten), but the cache must still not serve stale data.
    path = tmp_path / "default" / "f" / "metadata" / "1.metadata.json"
    path.write_text(small_doc(UUID_A, "rewritten", [T0]))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert current_body(wh.load("f")) == "rewritten + 1"
    assert cache.misses == 2


def test_cache_switches_off(tmp_path: Path, monkeypatch: Any) -> None:
    put_file(tmp_path, "1.metadata.json", small_doc(UUID_A, "one", [T0]))
    assert Warehouse(tmp_path, cache=False).cache is None
    monkeypatch.setenv(CACHE_ENV, "0")
    assert Warehouse(tmp_path).cache is None
    assert Warehouse(tmp_path, cache=True).cache is not None  # the constructor wins
    monkeypatch.setenv(CACHE_ENV, "1")
    assert Warehouse(tmp_path).cache is not None
    uncached = Warehouse(tmp_path, cache=False)
    assert current_body(uncached.load("f")) == "one + 1"
