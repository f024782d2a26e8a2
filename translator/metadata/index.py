"""Where each definition sits, kept beside a metadata object, so a merge touches only what changes.

A merge must find the definition a statement names and append a log entry naming every
definition's current version (100k references at 100k definitions). Reading 100k definitions
costs more per definition at 100k than at 10k (they no longer fit in the processor's caches), so
a merge that reads them all grows faster than its metadata. A :class:`DefinitionIndex` holds
what those reads would find, for metadata whose last log entry names the definitions in their
order at their current versions (what every merge writes): the definition-ids in order (a
lookup scans them, :class:`Positions`), and the last entry's reference list. A merge then copies
two lists of pointers and does Python work only for the definitions its statements touch.

**The first merge into a model** reads every definition and reference once
(:func:`~translator.metadata.sharing.read_in_order`): a slice at a time, so that its passes find
the objects still in the processor's caches, making there every copy of the two lists it needs
(after the read, a copy touches 100k cold objects). It builds no dict of the ids (100k inserts
that miss the caches), and the copies a result's index is checked against are made only when a
merge into that result checks them.

**Kept by identity, checked on every use.** An index is kept beside one metadata object (by its
identity, dropped when that object dies; at most :data:`KEPT` of them) and used only while

* the metadata's ``definitions`` list holds the objects it held when the index was made, in the
  same order (a comparison of two pointer lists: a definition replaced by an equal one holds the
  same ids, which is all the index says about it),
* its last log entry is the same object and its reference list holds the same references,
* and no field of any :class:`~translator.metadata.model.Definition` or
  :class:`~translator.metadata.model.DefinitionVersionRef` has been assigned since
  (:data:`~translator.metadata.model.EDITS`): assigning is how the models' API changes a field in
  place, and a caller that does so makes the next merge build its index again.

Writes around the models' API (a model's ``__dict__``, ``object.__setattr__``, its fields-set set)
are not seen. ``ICEBERG_UDF_MERGE_INDEX=0`` turns indexes off: every merge reads every definition.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from translator.collector import bulk_allocation
from translator.metadata.model import (
    EDITS,
    Definition,
    DefinitionLogEntry,
    DefinitionVersionRef,
    UdfMetadata,
    trusted,
)
from translator.metadata.sharing import InOrder, log_references, new_ref, read_in_order

__all__ = [
    "KEPT",
    "DefinitionIndex",
    "append_log_entry",
    "find_definition",
    "index_enabled",
    "index_of",
    "keep_index",
]

#: At most this many indexes are kept (the oldest goes first); each dies with its metadata.
KEPT = 64

#: Reading this many definitions or more for a log entry pauses the collector
#: (:func:`~translator.collector.bulk_allocation`); below it the pause costs more than it saves.
_PAUSE_FROM = 1000

#: Added ids kept apart from the shared first-positions dict until there are this many (or an
#: eighth of the definitions): then one dict is made of both.
_ADDED_APART = 4096


def index_enabled() -> bool:
    """Whether merges keep and use indexes (``ICEBERG_UDF_MERGE_INDEX=0`` turns them off)."""
    return os.environ.get("ICEBERG_UDF_MERGE_INDEX", "1") != "0"


#: A position is found by scanning the ids this many times (a C-level pass over a list of
#: pointers); the next lookup makes a dict of them, which costs about as many scans at 100k
#: definitions and is a waste for a process that merges into the metadata once.
_SCANS = 8


class Positions:
    """The first position of each definition-id in a list of them that is never changed.

    A merge usually looks up one or two ids; a dict of 100k ids costs several times a scan of
    the list to build (its inserts miss the caches). So the first :data:`_SCANS` lookups scan
    the list, and the next one builds the dict that every later lookup uses. Shared by every
    index made from the same one (building the dict twice on two threads is harmless).
    """

    __slots__ = ("_ids", "_scans", "_table")

    def __init__(self, ids: list[str]) -> None:
        self._ids = ids
        self._table: dict[str, int] | None = None
        self._scans = 0

    def __len__(self) -> int:
        return len(self._ids)

    def get(self, definition_id: str) -> int | None:
        """The first position of ``definition_id``, if it is in the list."""
        table = self._table
        if table is None:
            if self._scans < _SCANS:
                self._scans += 1
                try:
                    return self._ids.index(definition_id)
                except ValueError:
                    return None
            n = len(self._ids)
            # the first one wins
            table = dict(zip(reversed(self._ids), range(n - 1, -1, -1), strict=True))
            self._table = table
        return table.get(definition_id)

    def extended(self, added: dict[str, int]) -> Positions:
        """These positions followed by ``added`` (the ids appended after them, by position)."""
        ids = sorted(added, key=added.__getitem__)
        n = len(self._ids)
        if [added[i] for i in ids] != list(range(n, n + len(ids))):
            raise AssertionError("appended definitions do not follow the indexed ones")
        return Positions(self._ids + ids)


@dataclass(slots=True)
class DefinitionIndex:
    """Positions of a metadata's definitions; its last log entry's references name them in
    order at their current versions.

    ``first`` is shared by every index made from it and never changed; ``added`` (the ids
    appended since: never one of ``first``'s) and ``pending`` (the positions changed since the
    last log entry: definition-id and current version) belong to this one, as does the last
    lookup (a statement asks for its definition up to three times).
    """

    first: Positions
    added: dict[str, int]
    count: int
    refs: list[DefinitionVersionRef]
    pending: dict[int, tuple[str, int]] = field(default_factory=dict)
    last: tuple[str, int | None] | None = None
    spare_definitions: list[Definition] | None = None
    spare_refs: list[DefinitionVersionRef] | None = None
    #: The lists this index was found to describe (the kept copies it was made from), and the
    #: positions below their length whose definition a merge has replaced since.
    basis: tuple[list[Definition], list[DefinitionVersionRef]] | None = None
    replaced: set[int] = field(default_factory=set)

    def position(self, definition_id: str) -> int | None:
        """The first position of a definition with this id, if any."""
        last = self.last
        if last is not None and last[0] == definition_id:
            return last[1]
        p = self.added.get(definition_id)
        if p is None:
            p = self.first.get(definition_id)
        self.last = (definition_id, p)
        return p

    def appended(self, definition_id: str, version_id: int) -> None:
        """A definition appended at the end, at version ``version_id``."""
        self.last = None
        self.added.setdefault(definition_id, self.count)
        self.pending[self.count] = (definition_id, version_id)
        self.count += 1

    def changed(self, definition_id: str, version_id: int) -> None:
        """The (first) definition with this id made ``version_id`` current."""
        p = self.position(definition_id)
        if p is None:
            raise AssertionError(f"definition {definition_id!r} is not in the merge's index")
        self.pending[p] = (definition_id, version_id)
        self.replaced.add(p)

    def owned(self, position: int) -> None:
        """The merge replaced the definition at ``position`` by its own copy."""
        self.replaced.add(position)

    def next_refs(self) -> list[DefinitionVersionRef]:
        """The references of the log entry a merge appends now: the last entry's, with those of
        the definitions changed or appended since made new (every other one shared)."""
        refs, self.spare_refs = self.spare_refs, None
        if refs is None:
            refs = list(self.refs)
        for p, (did, vid) in sorted(self.pending.items()):
            if p < len(refs):
                refs[p] = new_ref(did, vid)
            elif p == len(refs):
                refs.append(new_ref(did, vid))
            else:
                raise AssertionError(f"position {p} appended after {len(refs)} references")
        self.refs, self.pending = refs, {}
        return refs

    def working_copy(
        self,
        refs: list[DefinitionVersionRef],
        basis: tuple[list[Definition], list[DefinitionVersionRef]],
    ) -> DefinitionIndex:
        """An index a merge may change, sharing ``first`` and ``refs`` (the last entry's list,
        found equal to this index's: only copied, never changed); ``basis``: the kept copies
        of the metadata's lists."""
        first, added = self.first, dict(self.added)
        if len(added) > max(_ADDED_APART, len(first) // 8):
            first, added = first.extended(added), {}
        return DefinitionIndex(first, added, self.count, refs, dict(self.pending), basis=basis)


def find_definition(
    meta: UdfMetadata, definition_id: str, index: DefinitionIndex | None
) -> Definition | None:
    """The first definition with this id: by ``index`` (``meta``'s) where there is one."""
    if index is None:
        return meta.definition(definition_id)
    p = index.position(definition_id)
    return None if p is None else meta.definitions[p]


def append_log_entry(meta: UdfMetadata, ts: int, index: DefinitionIndex | None = None) -> None:
    """Append the entry naming every definition's current version. The last entry's references
    that still hold are shared: by ``index`` (``meta``'s), which knows which changed, or else by
    reading every definition (:func:`~translator.metadata.sharing.log_references`)."""
    if index is not None:
        refs = index.next_refs()
    else:
        last = meta.definition_log[-1].definition_versions if meta.definition_log else []
        if len(meta.definitions) < _PAUSE_FROM:
            refs = log_references(meta.definitions, last)
        else:
            with bulk_allocation():
                refs = log_references(meta.definitions, last)
    entry = (
        trusted(DefinitionLogEntry, {"timestamp_ms": ts, "definition_versions": refs})
        if type(ts) is int
        else DefinitionLogEntry(timestamp_ms=ts, definition_versions=refs)
    )
    meta.definition_log.append(entry)


@dataclass(slots=True)
class _Kept:
    """An index kept beside a metadata object, with copies of its lists to check it against.

    The copies of a merge's result are made only when a merge into it checks them: until then
    ``definitions`` and ``refs`` are the copies its merge's index was made from, and ``changes``
    what the merge did to them (most results are never merged into: copying 100k pointers
    touches 100k objects).
    """

    owner: weakref.ref[UdfMetadata]
    index: DefinitionIndex
    definitions: list[Definition]
    entry: DefinitionLogEntry
    refs: list[DefinitionVersionRef]
    edits: int
    changes: _Changes | None = None

    def lists(self) -> tuple[list[Definition], list[DefinitionVersionRef]]:
        """The copies to check the metadata's lists against (made now if not yet made)."""
        changes = self.changes
        if changes is None:
            return self.definitions, self.refs
        defs = self.definitions + changes.definitions
        refs = self.refs + changes.refs
        for p, (d, r) in changes.replaced.items():
            defs[p], refs[p] = d, r
        self.definitions, self.refs, self.changes = defs, refs, None
        return defs, refs


@dataclass(frozen=True, slots=True)
class _Changes:
    """A merge's result against the lists its index was made from: the definitions (and their
    references) it replaced, by position, and those it appended."""

    replaced: dict[int, tuple[Definition, DefinitionVersionRef]]
    definitions: list[Definition]
    refs: list[DefinitionVersionRef]


_kept: dict[int, _Kept] = {}
#: Reentrant: a metadata dying in a collection that starts while the lock is held (any
#: allocation may start one) runs its callback, which takes the lock, on the same thread.
_lock = threading.RLock()


def index_of(meta: UdfMetadata) -> DefinitionIndex | None:
    """A working copy of the index kept beside ``meta`` if it still holds, else one made by
    reading every definition once; None if indexes are off or ``meta`` has no such shape (its
    last entry does not name every definition in order at its current version)."""
    if not index_enabled():
        return None
    kept = _kept.get(id(meta))
    if kept is not None and _holds(kept, meta):
        basis = kept.lists()
        return kept.index.working_copy(meta.definition_log[-1].definition_versions, basis)
    edits = EDITS[0]
    log = meta.definition_log
    if not log:
        return None
    entry = log[-1]
    refs = entry.definition_versions
    read = read_in_order(meta.definitions, refs)
    if read is None:
        return None
    index = DefinitionIndex(Positions(read.ids), {}, len(read.ids), refs)
    _keep(meta, index, edits, read)
    mine = index.working_copy(refs, (read.definitions, read.refs))
    mine.spare_definitions, mine.spare_refs = read.spare_definitions, read.spare_refs
    return mine


def keep_index(meta: UdfMetadata, index: DefinitionIndex, edits: int) -> None:
    """Keep ``index`` beside ``meta``, which a merge has just made, if no field was assigned
    since ``edits`` was read and the index holds no change its log does not show."""
    if index.pending or EDITS[0] != edits or not index_enabled():
        return
    log = meta.definition_log
    if not log or log[-1].definition_versions is not index.refs:
        return
    basis, replaced = index.basis, index.replaced
    index.basis, index.replaced = None, set()
    defs, refs = meta.definitions, index.refs
    if basis is None or not len(basis[0]) == len(basis[1]) <= index.count == len(defs) == len(refs):
        _keep(meta, index, edits)
        return
    n = len(basis[0])
    changes = _Changes({p: (defs[p], refs[p]) for p in replaced if p < n}, defs[n:], refs[n:])
    _remember(
        _Kept(
            weakref.ref(meta, _forget(id(meta))),
            index,
            basis[0],
            log[-1],
            basis[1],
            edits,
            changes,
        )
    )


def _keep(
    meta: UdfMetadata, index: DefinitionIndex, edits: int, read: InOrder | None = None
) -> None:
    """Keep ``index`` beside ``meta`` with copies of its lists to check it against (``read``'s,
    made from them just now, or new ones)."""
    entry = meta.definition_log[-1]
    kept = _Kept(
        weakref.ref(meta, _forget(id(meta))),
        index,
        list(meta.definitions) if read is None else read.definitions,
        entry,
        list(entry.definition_versions) if read is None else read.refs,
        edits,
    )
    if len(kept.definitions) != index.count or len(kept.refs) != index.count:
        return
    _remember(kept)


def _remember(kept: _Kept) -> None:
    meta = kept.owner()
    if meta is None:
        return
    with _lock:
        _kept.pop(id(meta), None)
        while len(_kept) >= KEPT:
            del _kept[next(iter(_kept))]
        _kept[id(meta)] = kept


def _forget(key: int) -> Callable[[weakref.ref[UdfMetadata]], None]:
    def forget(ref: weakref.ref[UdfMetadata]) -> None:
        with _lock:
            kept = _kept.get(key)
            if kept is not None and kept.owner is ref:
                del _kept[key]

    return forget


def _holds(kept: _Kept, meta: UdfMetadata) -> bool:
    if kept.owner() is not meta or kept.edits != EDITS[0]:
        return False
    log = meta.definition_log
    if not log or log[-1] is not kept.entry:
        return False
    defs, refs = meta.definitions, kept.entry.definition_versions
    kept_defs, kept_refs = kept.lists()
    return (
        len(defs) == len(kept_defs)
        and defs == kept_defs
        and len(refs) == len(kept_refs)
        and refs == kept_refs
    )
