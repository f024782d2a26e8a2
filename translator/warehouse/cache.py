"""An in-process cache of parsed metadata files, keyed by (location, modification time, size).

Parsing and validating a metadata file costs milliseconds and grows with its history; resolution
may read every file of a function (uuid filter, newest-by-timestamp) and commits re-read the
current file on every retry. Committed files are never rewritten, and the key includes the
file's modification time and size, so an entry can only be stale if someone rewrites a file in
place within the clock's resolution without changing its size: out of protocol, and the switch
below turns the cache off for such setups.

On by default; off with ``Warehouse(..., cache=False)`` or the environment variable
``ICEBERG_UDF_METADATA_CACHE=0`` (also ``off``, ``false``, ``no``).

Beside the model of a file this process committed, an entry may keep what that commit wrote
(:class:`~translator.metadata.Written`: its parts' texts, by the identity of the objects they
were written from), so that the next commit into it writes and checks only what it changes;
it goes with its entry, and its texts count in the entry's weight.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Hashable

from translator.metadata import UdfMetadata, Written

__all__ = ["CACHE_ENV", "MetadataCache", "cache_enabled_by_env", "shared_cache"]

CACHE_ENV = "ICEBERG_UDF_METADATA_CACHE"
_OFF = frozenset({"0", "off", "false", "no"})


def cache_enabled_by_env() -> bool:
    return os.environ.get(CACHE_ENV, "").strip().lower() not in _OFF


def _weight(meta: UdfMetadata, written: Written | None) -> int:
    """About how much memory an entry holds: its versions and log entries (a long history is
    millions of objects, a migrated function a few dozen), and the texts kept beside it."""
    if written is not None:  # it knows, without a look at every definition
        return 1 + len(meta.definition_log) + written.versions + written.size
    return 1 + len(meta.definition_log) + sum(map(len, (d.versions for d in meta.definitions)))


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
        self._entries: OrderedDict[Hashable, tuple[UdfMetadata, int, Written | None]] = (
            OrderedDict()
        )
        #: The ``id()`` of each entry's model (kept alive by the entry), to its key.
        self._keys: dict[int, Hashable] = {}
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

    def written(self, meta: UdfMetadata) -> Written | None:
        """What the commit of ``meta`` (this very object, an entry's model) kept, if any."""
        with self._lock:
            key = self._keys.get(id(meta))
            entry = None if key is None else self._entries.get(key)
        return entry[2] if entry is not None and entry[0] is meta else None

    def put(self, key: Hashable, meta: UdfMetadata, written: Written | None = None) -> None:
        weight = _weight(meta, written)
        with self._lock:
            self._drop(key)
            self._entries[key] = (meta, weight, written)
            self._keys[id(meta)] = key
            self._weight += weight
            while len(self._entries) > 1 and (
                len(self._entries) > self.max_entries or self._weight > self.max_weight
            ):
                self._drop(next(iter(self._entries)))

    def _drop(self, key: Hashable) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._weight -= old[1]
            if self._keys.get(id(old[0])) == key:
                del self._keys[id(old[0])]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._keys.clear()
            self._weight = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)


_SHARED = MetadataCache()


def shared_cache() -> MetadataCache:
    """The cache every :class:`~translator.warehouse.Warehouse` of this process uses by default."""
    return _SHARED
