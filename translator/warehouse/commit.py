"""Committing one function's new metadata: with the file system alone, or through a SQL catalog.

Both committers take the *base* a change was computed from and refuse (:class:`Conflict`) when
someone else committed on top of that base in the meantime; the caller then re-reads, re-merges
and retries (:class:`RetryPolicy`), so no update is ever lost.

* :class:`FileCommitter`: the next file number is claimed by an atomic create-if-absent of its
  (derived, hence shared) name. A new function's folder is created only when committing
  version 1, so a writer racing a ``drop`` cannot resurrect the dropped function.
* :class:`CatalogCommitter`: the file gets a random name (as Iceberg writes them) and the
  catalog row is swapped with compare-and-swap; a loser deletes its orphan file.

Every document is checked with :func:`~translator.metadata.validate_metadata` before it is
written: the warehouse never holds a file that the spec rejects.
"""

from __future__ import annotations

import dataclasses
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from translator.errors import Diagnostic, TranslatorError
from translator.metadata import UdfMetadata, Written, checked_write
from translator.warehouse.catalog import CatalogConflict, SqlCatalog
from translator.warehouse.errors import WarehouseError
from translator.warehouse.layout import (
    FunctionRef,
    derived_file_uuid,
    function_dir,
    metadata_dir,
    metadata_path,
    parse_metadata_name,
    tombstone_dir,
)
from translator.warehouse.resolve import MetadataReader, Resolved
from translator.warehouse.staged import Staged, start_syncs
from translator.warehouse.store import FileData, LocalStore, Store

__all__ = [
    "CatalogCommitter",
    "Committed",
    "Committer",
    "Conflict",
    "FileCommitter",
    "RetryPolicy",
    "StagedCommit",
    "prepare_document",
]


class Conflict(Exception):
    """Someone committed on top of the base first (internal: the caller retries)."""


@dataclass(frozen=True, slots=True)
class Committed:
    """A metadata file that a commit made current."""

    ref: FunctionRef
    version: int
    #: Relative to the warehouse root.
    path: str
    #: Absolute path or URL.
    location: str
    #: Something the caller must hear about this commit (a REST re-create discarded history).
    note: Diagnostic | None = None


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Bounded retries with jittered exponential backoff, so racing writers spread out."""

    max_attempts: int = 10
    base_delay_s: float = 0.005
    max_delay_s: float = 0.25

    def pause(self, attempt: int) -> None:
        time.sleep(random.uniform(0, min(self.max_delay_s, self.base_delay_s * 2**attempt)))


def prepare_document(
    meta: UdfMetadata,
    location: str,
    base: UdfMetadata | None = None,
    written: Written | None = None,
) -> tuple[FileData, Written | None]:
    """The file bytes of ``meta`` with its ``location`` set (in place: ``meta`` is the caller's
    new state), and what to keep of them for the next commit; refuse to write invalid
    metadata. ``base``: the valid metadata ``meta`` was merged from, whose objects it shares are
    not validated again, nor written again where ``written`` (what the commit of ``base`` kept)
    has their text (:func:`~translator.metadata.checked_write`)."""
    meta.location = location
    meta.model_fields_set.add("location")
    data, problems, kept = checked_write(meta, base, written)
    if problems:
        listed = "; ".join(str(p) for p in problems[:5])
        raise WarehouseError(f"internal error: refusing to write invalid metadata: {listed}")
    return data, kept


@dataclass(frozen=True, slots=True)
class StagedCommit:
    """A commit's file written by :meth:`FileCommitter.stage`, not yet current."""

    version: int
    rel: str
    meta: UdfMetadata
    kept: Written | None
    file: Staged


class Committer(Protocol):
    def base(self, ref: FunctionRef) -> Resolved | None:
        """The current metadata a change must be computed from (None: no such function)."""
        ...

    def refusal(
        self, ref: FunctionRef, base: Resolved | None, meta: UdfMetadata | None
    ) -> TranslatorError | None:
        """Why this committer cannot make ``meta`` (None: a drop) current over ``base`` at all
        (asked before anything of an apply is written); None when it can."""
        ...

    def commit(self, ref: FunctionRef, base: Resolved | None, meta: UdfMetadata) -> Committed:
        """Make ``meta`` current if ``base`` still is; :class:`Conflict` otherwise. Once
        committed, ``meta`` may be the reader's cached model of the new file: the caller must
        not change it (``apply`` hands its callers copies)."""
        ...

    def drop(self, ref: FunctionRef, base: Resolved) -> str:
        """Remove the function if ``base`` is still current; where its files went."""
        ...

    def functions(self) -> list[tuple[FunctionRef, str | None]]:
        """Every function, with its current metadata file's path if known without reading."""
        ...


class FileCommitter:
    """Commits decided by the file system: the first writer to create file N+1 wins."""

    def __init__(self, store: Store, reader: MetadataReader, clock: Callable[[], int]) -> None:
        self.store = store
        self.reader = reader
        self.clock = clock

    def base(self, ref: FunctionRef) -> Resolved | None:
        return self.reader.newest(ref)

    def refusal(
        self, ref: FunctionRef, base: Resolved | None, meta: UdfMetadata | None
    ) -> TranslatorError | None:
        return None

    def _document(
        self, ref: FunctionRef, base: Resolved | None, meta: UdfMetadata
    ) -> tuple[int, str, FileData, Written | None]:
        version = 1 if base is None else (base.version or 0) + 1
        rel = metadata_path(ref, version, derived_file_uuid(ref, version))
        location = self.store.location(function_dir(ref))
        old = None if base is None else base.metadata
        written = None if old is None else self.reader.written(old)
        data, kept = prepare_document(meta, location, old, written)
        return version, rel, data, kept

    def stage(
        self, changes: list[tuple[FunctionRef, Resolved | None, UdfMetadata]]
    ) -> dict[FunctionRef, StagedCommit]:
        """Write the files of several commits and start their syncs together
        (:mod:`translator.warehouse.staged`); :meth:`commit` then makes each current. Empty
        where the store cannot stage (each commit then writes its own file)."""
        if not isinstance(self.store, LocalStore):
            return {}
        out: dict[FunctionRef, StagedCommit] = {}
        try:
            for ref, base, meta in changes:
                version, rel, data, kept = self._document(ref, base, meta)
                file = self.store.stage(rel, data, make_dirs=base is None)
                out[ref] = StagedCommit(version, rel, meta, kept, file)
            start_syncs([s.file for s in out.values()])
        except BaseException:
            for s in out.values():
                s.file.discard()
            raise
        return out

    def commit(
        self,
        ref: FunctionRef,
        base: Resolved | None,
        meta: UdfMetadata,
        staged: StagedCommit | None = None,
    ) -> Committed:
        """As :meth:`Committer.commit`; ``staged``: its file, written by :meth:`stage`."""
        if staged is None:
            version, rel, data, kept = self._document(ref, base, meta)
            try:
                self.store.create_exclusive(rel, data, make_dirs=base is None)
            except (FileExistsError, FileNotFoundError) as e:
                raise Conflict(str(e)) from e
            del data
        else:
            assert staged.meta is meta and isinstance(self.store, LocalStore)
            version, rel, kept = staged.version, staged.rel, staged.kept
            try:
                self.store.publish_staged(staged.file)
            except (FileExistsError, FileNotFoundError) as e:
                raise Conflict(str(e)) from e
        self.reader.remember(rel, meta, kept)
        return Committed(ref, version, rel, self.store.location(rel))

    def drop(self, ref: FunctionRef, base: Resolved) -> str:
        """Move the folder aside, then check that nobody committed after ``base``; if someone
        did, move it back and report a conflict (the drop is re-decided on fresh metadata)."""
        dst = tombstone_dir(ref, self.clock())
        try:
            self.store.move_dir(function_dir(ref), dst)
        except FileNotFoundError as e:
            raise Conflict(str(e)) from e
        versions = [
            m.version
            for n in self.store.list_names(f"{dst}/metadata")
            if (m := parse_metadata_name(n)) is not None
        ]
        if max(versions, default=None) != base.version:
            try:
                self.store.move_dir(dst, function_dir(ref))
            except OSError as e:
                raise WarehouseError(
                    f"{ref} changed while it was being dropped and was created again meanwhile; "
                    f"the dropped files are kept at {self.store.location(dst)}"
                ) from e
            raise Conflict(f"{ref} changed while being dropped")
        return self.store.location(dst)

    def functions(self) -> list[tuple[FunctionRef, str | None]]:
        out: list[tuple[FunctionRef, str | None]] = []
        for ns in sorted(self.store.list_dirs("")):
            if ns.startswith("."):
                continue
            for fn in sorted(self.store.list_dirs(ns)):
                if fn.startswith("."):
                    continue
                try:
                    ref = FunctionRef(ns, fn)
                except WarehouseError:
                    continue
                names = [parse_metadata_name(n) for n in self.store.list_names(metadata_dir(ref))]
                if any(names):
                    out.append((ref, None))
        return out


class CatalogCommitter:
    """Commits decided by a SQL catalog's compare-and-swap; files get random names."""

    def __init__(self, store: Store, reader: MetadataReader, catalog: SqlCatalog) -> None:
        self.store = store
        self.reader = reader
        self.catalog = catalog

    def relative(self, location: str) -> str:
        root = self.store.location().rstrip("/") + "/"
        if not location.startswith(root):
            raise WarehouseError(
                f"the catalog points at {location}, which is outside the warehouse {root}"
            )
        return location[len(root) :]

    def base(self, ref: FunctionRef) -> Resolved | None:
        entry = self.catalog.get(ref)
        if entry is None:
            return None
        found = self.reader.at_path(ref, self.relative(entry.metadata_location))
        return dataclasses.replace(found, location=entry.metadata_location)

    def refusal(
        self, ref: FunctionRef, base: Resolved | None, meta: UdfMetadata | None
    ) -> TranslatorError | None:
        return None

    def _next_version(self, ref: FunctionRef, base: Resolved | None) -> int:
        if base is not None and base.version is not None:
            return base.version + 1
        # A new function (or a re-created one): continue after any files left in its folder.
        numbers = [
            m.version
            for n in self.store.list_names(metadata_dir(ref))
            if (m := parse_metadata_name(n)) is not None
        ]
        return max(numbers, default=0) + 1

    def commit(self, ref: FunctionRef, base: Resolved | None, meta: UdfMetadata) -> Committed:
        version = self._next_version(ref, base)
        rel = metadata_path(ref, version, str(uuid.uuid4()))
        location = self.store.location(function_dir(ref))
        data, _ = prepare_document(meta, location, None if base is None else base.metadata)
        try:
            self.store.create_exclusive(rel, data, make_dirs=True)
        except FileExistsError as e:  # a random name taken: only if someone copies names
            raise Conflict(str(e)) from e
        location = self.store.location(rel)
        try:
            if base is None:
                self.catalog.create(ref, location)
            else:
                self.catalog.swap(ref, base.location, location)
        except CatalogConflict as e:
            self.store.remove(rel)  # the orphan; nobody points at it
            raise Conflict(str(e)) from e
        except BaseException:
            self.store.remove(rel)
            raise
        return Committed(ref, version, rel, location)

    def drop(self, ref: FunctionRef, base: Resolved) -> str:
        """Unregister the function. Its files stay where they are (like Iceberg's drop without
        purge): moving them could race a writer that re-creates the function at once."""
        try:
            self.catalog.delete(ref, base.location)
        except CatalogConflict as e:
            raise Conflict(str(e)) from e
        return self.store.location(function_dir(ref))

    def functions(self) -> list[tuple[FunctionRef, str | None]]:
        return [(e.ref, e.metadata_location) for e in self.catalog.entries()]
