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


class MetadataCache:
    """A small LRU map from a file's identity to its parsed metadata.

    Entries are shared, not copied (a deep copy of a long history costs as much as parsing it):
    the warehouse never mutates metadata it has read (merge, views and rollback work on their
    own copies) and its public methods hand callers copies.
    """

    def __init__(self, max_entries: int = 256) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, UdfMetadata] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> UdfMetadata | None:
        with self._lock:
            meta = self._entries.get(key)
            if meta is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
        return meta

    def put(self, key: Hashable, meta: UdfMetadata) -> None:
        with self._lock:
            self._entries[key] = meta
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)


_SHARED = MetadataCache()


def shared_cache() -> MetadataCache:
    """The cache every :class:`~translator.warehouse.Warehouse` of this process uses by default."""
    return _SHARED
