"""The metadata cache (translator.warehouse.cache): hits, invalidation, no sharing, turning off."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import translator.warehouse.warehouse as warehouse_module
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
from translator.metadata import dump_metadata, load_metadata
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


def _vandalize(value: Any) -> None:
    """Change everything reachable from ``value`` in place: strings, numbers, lists, dicts."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            child = getattr(value, name)
            _vandalize(child)
            if isinstance(child, str):
                object.__setattr__(value, name, child + "!")
            elif isinstance(child, int) and not isinstance(child, bool):
                object.__setattr__(value, name, child + 1000)
        _vandalize(value.model_extra)
        value.model_fields_set.clear()
    elif isinstance(value, list):
        for item in value:
            _vandalize(item)
        value.append(None)
    elif isinstance(value, dict):
        for item in value.values():
            _vandalize(item)
        value["vandalized"] = "yes"


def test_nothing_apply_or_a_read_returns_can_change_the_cache(tmp_path: Path) -> None:
    """Merge shares what a statement did not change with the metadata it merged into, which in
    a warehouse is the cache's: what apply and the reads hand out must be copies all the same,
    whatever the caller does to them."""
    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT + CREATE_DOUBLE, "trino").raise_for_errors()
    first = (tmp_path / "default" / "add_one" / "metadata").iterdir()
    (path,) = [p for p in first if p.name.endswith(".metadata.json")]
    on_disk = path.read_text()
    assert dump_metadata(wh.load("add_one", copy=False).metadata) == on_disk

    unchanged = wh.apply(CREATE_INT, "trino").raise_for_errors()
    assert [c.action for c in unchanged.changes] == ["unchanged"]
    planned = wh.apply(replace_int(2), "trino", dry_run=True).raise_for_errors()
    handed_out = [
        *unchanged.functions.values(),
        *planned.functions.values(),
        wh.load("add_one").metadata,
        wh.at("add_one").metadata,
        wh.at("add_one", log_entry=1).metadata,
        wh.history("add_one")[0].metadata,
    ]
    for meta in handed_out:
        _vandalize(meta)
    assert dump_metadata(wh.load("add_one", copy=False).metadata) == on_disk
    assert [c.action for c in wh.apply(CREATE_INT, "trino").raise_for_errors().changes] == [
        "unchanged"
    ]

    committed = wh.apply(replace_int(3), "trino").raise_for_errors()
    for meta in committed.functions.values():
        _vandalize(meta)
    latest = wh.load("add_one", copy=False)
    assert dump_metadata(latest.metadata) == (tmp_path / latest.path).read_text()
    assert current_body(latest) == "x + 3"
    assert path.read_text() == on_disk
    assert [c.action for c in wh.apply(replace_int(3), "trino").raise_for_errors().changes] == [
        "unchanged"
    ]


def test_show_emit_and_history_read_the_cache_without_a_copy_and_leave_it_as_it_was(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """``show`` and ``emit`` read the cache's own model (copying a long history cost more than
    reading its file), as ``history`` does with ``copy=False``: nothing they do or hand out can
    change it, whatever the caller does to what it gets."""
    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT + CREATE_DOUBLE, "trino").raise_for_errors()
    wh.apply(replace_int(2), "trino").raise_for_errors()
    latest = wh.load("add_one", copy=False)
    on_disk = (tmp_path / latest.path).read_text()
    copies: list[object] = []
    monkeypatch.setattr(warehouse_module, "deep_copy", lambda m: copies.append(m) or m)
    handed_out: list[Any] = []
    for point in ({}, {"log_entry": 1}):
        handed_out += wh.show("add_one", **point)
        emitted = wh.emit("add_one", "trino", allow_lossy=True, **point)
        handed_out += [emitted.ddl, emitted.warnings]
    resolved, entries = wh.history("add_one", copy=False)
    assert resolved.metadata is latest.metadata  # the cache's own: for reading only
    handed_out.append([e.to_json() for e in entries])
    assert copies == []  # (a time-travel view is a copy of its own, made in history.view_at)
    monkeypatch.undo()
    for value in handed_out:
        _vandalize(value)
    assert dump_metadata(wh.load("add_one", copy=False).metadata) == on_disk
    assert wh.load("add_one", copy=False).metadata is latest.metadata  # still cached


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


def test_the_cache_is_bounded_by_the_size_of_its_entries() -> None:
    """Many small files stay cached (a migration's report reads them all back); long histories
    push others out, and the newest entry is kept whatever its size."""
    small = load_metadata(small_doc(UUID_A, "one", [T0]))  # 1 version, 1 log entry: weight 3
    big = load_metadata(small_doc(UUID_A, "one", [T0 + i for i in range(10)]))  # weight 21
    cache = MetadataCache(max_entries=100, max_weight=30)
    for i in range(10):
        cache.put(i, small)
    assert len(cache) == 10
    cache.put("big", big)
    assert len(cache) == 4 and cache.get("big") is big and cache.get(7) is small
    assert cache.get(6) is None
    cache.put("bigger", load_metadata(small_doc(UUID_A, "one", [T0 + i for i in range(20)])))
    assert len(cache) == 1 and cache.get("bigger") is not None
    counted = MetadataCache(max_entries=2)
    for i in range(5):
        counted.put(i, small)
    assert len(counted) == 2 and counted.get(4) is small and counted.get(2) is None
