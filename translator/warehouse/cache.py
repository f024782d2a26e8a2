"""An in-process cache of parsed metadata files, keyed by (location, modification time, size).

Parsing and validating a metadata file costs milliseconds and grows with its history; resolution
may read every file of a function (uuid filter, newest-by-timestamp) and commits re-read the
current file on every retry. Committed files are never rewritten, and the key includes the
file's modification time and size, so an entry can only be stale if someone rewrites a file in
place within the clock's resolution without changing its size: out of protocol, and the switch
below turns the cache off for such setups.

On by default; off with ``Warehouse(..., cache=False)`` or the environment variable
``ICEBERG_UDF_METADATA_CACHE=0`` (also ``off``, ``false``, ``no``).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Hashable

from translator.metadata import UdfMetadata

__all__ = ["CACHE_ENV", "MetadataCache", "cache_enabled_by_env", "shared_cache"]

CACHE_ENV = "ICEBERG_UDF_METADATA_CACHE"
_OFF = frozenset({"0", "off", "false", "no"})


def cache_enabled_by_env() -> bool:
    return os.environ.get(CACHE_ENV, "").strip().lower() not in _OFF


def _weight(meta: UdfMetadata) -> int:
    """About how much memory an entry holds: its versions and log entries (a long history is
    millions of objects, a migrated function a few dozen)."""
    return 1 + len(meta.definition_log) + sum(len(d.versions) for d in meta.definitions)


class MetadataCache:
    """An LRU map from a file's identity to its parsed metadata, bounded by entries and weight.

    Entries are shared, not copied (a deep copy of a long history costs as much as parsing it):
    the warehouse never mutates metadata it has read (merge, views and rollback work on their
    own copies) and its public methods hand callers copies.

    The bound is on the total size of the entries (:func:`_weight`), so that a migration's
    thousands of small functions stay cached until its report reads them back, while a few
    long histories still push each other out; the newest entry is kept whatever its size.
    """

    def __init__(self, max_entries: int = 8192, max_weight: int = 200_000) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self._entries: OrderedDict[Hashable, tuple[UdfMetadata, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> UdfMetadata | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
        return entry[0]

    def put(self, key: Hashable, meta: UdfMetadata) -> None:
        weight = _weight(meta)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            self._entries[key] = (meta, weight)
            self._weight += weight
            while len(self._entries) > 1 and (
                len(self._entries) > self.max_entries or self._weight > self.max_weight
            ):
                self._weight -= self._entries.popitem(last=False)[1][1]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._weight = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)


_SHARED = MetadataCache()


def shared_cache() -> MetadataCache:
    """The cache every :class:`~translator.warehouse.Warehouse` of this process uses by default."""
    return _SHARED
