"""Which metadata file is a function's current one, read the way ClickHouse reads Iceberg tables.

1. An explicit metadata file (``ResolveOptions.metadata_file``) wins and disables every other
   rule. A bare file name is looked up in the function's ``metadata/`` folder, a relative path
   under the function's folder; an absolute path (or a URL under the warehouse) is used as is.
2. With ``function_uuid``, only files whose ``function-uuid`` matches (case-insensitively) are
   candidates; otherwise every metadata file of the function is.
3. Among the candidates the one with the highest version number in its name wins
   (``V.metadata.json``, ``V-uuid.metadata.json``, ``vV.metadata.json``), or, with
   ``latest_by_log_timestamp``, the one whose newest definition-log timestamp is largest (ties
   go to the higher version number).

Two files claiming the same version number is a broken warehouse and is reported, not guessed
at; so is a numbered file that does not parse or validate (committed files are always whole).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

from translator.errors import MetadataError, TranslatorError
from translator.metadata import UdfMetadata, Written, load_metadata
from translator.warehouse.cache import MetadataCache
from translator.warehouse.errors import (
    AmbiguousMetadataError,
    FunctionNotFoundError,
    UnreadableMetadataError,
    WarehouseError,
)
from translator.warehouse.layout import (
    FunctionRef,
    MetadataName,
    function_dir,
    metadata_dir,
    parse_metadata_name,
)
from translator.warehouse.store import Store

__all__ = ["MetadataReader", "ResolveOptions", "Resolved"]

#: How often a resolution is retried when a file vanishes under it (a concurrent drop).
_VANISHED_RETRIES = 3


@dataclass(frozen=True, slots=True)
class ResolveOptions:
    """How to pick the current metadata file (see the module docstring for the order)."""

    metadata_file: str | None = None
    function_uuid: str | None = None
    latest_by_log_timestamp: bool = False

    @property
    def is_default(self) -> bool:
        return self == ResolveOptions()


@dataclass(frozen=True, slots=True)
class Resolved:
    """One metadata file of a function, read and validated."""

    ref: FunctionRef
    #: The file, relative to the warehouse root (absolute for an explicit outside path).
    path: str
    #: The file's absolute path or URL.
    location: str
    #: The version number in the file's name; None for a name without one.
    version: int | None
    metadata: UdfMetadata


def _newest_log_timestamp(meta: UdfMetadata) -> int:
    return max((e.timestamp_ms for e in meta.definition_log), default=-(2**63))


class MetadataReader:
    """Reads metadata files through the cache and applies the resolution rules."""

    def __init__(self, store: Store, cache: MetadataCache | None) -> None:
        self.store = store
        self.cache = cache

    def read(self, rel: str) -> UdfMetadata:
        """Parse and validate one file; :class:`FileNotFoundError` if it is gone."""
        location = self.store.location(rel)
        key = (location, *self.store.stat_key(rel))
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        raw = self.store.read_bytes(rel)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise WarehouseError(f"{location}: not UTF-8 text: byte {e.start}: {e.reason}") from e
        try:
            meta = load_metadata(text, source=location)
        except MetadataError as e:
            if location in e.message:
                raise
            raise MetadataError(f"{location}: {e.message}", e.problems) from None
        if self.cache is not None:
            self.cache.put(key, meta)
        return meta

    def remember(self, rel: str, meta: UdfMetadata, written: Written | None = None) -> None:
        """Cache ``meta``, just validated and committed at ``rel``, as the model :meth:`read`
        would make of the file: the next read of a function a run commits to (the next
        statement, the migration report) need not parse it again.

        It is that model: the file is ``meta``'s dump, and reading a dump gives back the same
        values, types, unknown keys and set fields (tests/warehouse/test_cache.py compares
        them after every commit of a migration and of every kind of change). From here on it
        is the cache's: shared, never changed (callers of the warehouse get copies). ``written``:
        what its commit kept of the file (:meth:`written`)."""
        if self.cache is None:
            return
        try:
            key = (self.store.location(rel), *self.store.stat_key(rel))
        except FileNotFoundError:  # dropped at once by someone else: nothing to remember
            return
        self.cache.put(key, meta, written)

    def written(self, meta: UdfMetadata) -> Written | None:
        """What the commit of ``meta`` (a model this reader handed out) kept of the file, for
        the next commit into it; None if nothing (not committed here, or no longer cached)."""
        return None if self.cache is None else self.cache.written(meta)

    def listing(self, ref: FunctionRef) -> list[MetadataName]:
        """The function's metadata files, by version number; duplicates are an error."""
        names = sorted(
            (m for n in self.store.list_names(metadata_dir(ref)) if (m := parse_metadata_name(n))),
            key=lambda m: (m.version, m.name),
        )
        for a, b in itertools.pairwise(names):
            if a.version == b.version:
                raise AmbiguousMetadataError(
                    f"{ref}: two metadata files claim version {a.version} ({a.name}, {b.name}): "
                    "one was not written by this tool's commit protocol; move the wrong one out "
                    "of the metadata folder",
                    (f"{metadata_dir(ref)}/{a.name}", f"{metadata_dir(ref)}/{b.name}"),
                )
        return names

    def _resolved(self, ref: FunctionRef, rel: str, version: int | None) -> Resolved:
        return Resolved(ref, rel, self.store.location(rel), version, self.read(rel))

    def at_path(self, ref: FunctionRef, rel: str) -> Resolved:
        """The file at ``rel`` (relative to the warehouse root) as ``ref``'s metadata."""
        name = parse_metadata_name(rel.rpartition("/")[2])
        try:
            return self._resolved(ref, rel, None if name is None else name.version)
        except FileNotFoundError:
            raise WarehouseError(
                f"{ref}: its current metadata file {self.store.location(rel)} is missing"
            ) from None

    def newest(self, ref: FunctionRef) -> Resolved | None:
        """The highest-numbered file (what a commit builds on), or None if there is none."""
        return self.resolve(ref, ResolveOptions(), missing_ok=True)

    def resolve(
        self, ref: FunctionRef, options: ResolveOptions, *, missing_ok: bool = False
    ) -> Resolved | None:
        """The current file under ``options``; None (``missing_ok``) or an error if none."""
        if options.metadata_file is not None:
            return self._explicit(ref, options.metadata_file)
        for attempt in range(_VANISHED_RETRIES):
            try:
                found = self._search(ref, options)
            except FileNotFoundError:
                if attempt == _VANISHED_RETRIES - 1:
                    raise FunctionNotFoundError(
                        f"{ref}: its metadata files vanished while being read (dropped?)"
                    ) from None
                continue
            if found is not None or missing_ok:
                return found
            break
        if options.function_uuid is not None and self.listing(ref):
            raise FunctionNotFoundError(
                f"{ref}: no metadata file has function-uuid {options.function_uuid}"
            )
        raise FunctionNotFoundError(f"function {ref} does not exist in the warehouse")

    def _search(self, ref: FunctionRef, options: ResolveOptions) -> Resolved | None:
        files = self.listing(ref)
        wanted = options.function_uuid.lower() if options.function_uuid else None
        best: tuple[int, int] | None = None
        chosen: Resolved | None = None
        for k in range(len(files) - 1, -1, -1):  # newest first: without the timestamp rule
            m = files[k]  # the first match wins
            try:
                r = self._resolved(ref, f"{metadata_dir(ref)}/{m.name}", m.version)
            except (MetadataError, WarehouseError) as e:
                raise _unreadable(ref, m.name, e, files[k - 1].name if k else None) from None
            if wanted is not None and r.metadata.function_uuid.lower() != wanted:
                continue
            if not options.latest_by_log_timestamp:
                return r
            rank = (_newest_log_timestamp(r.metadata), m.version)
            if best is None or rank > best:
                best, chosen = rank, r
        return chosen

    def _explicit(self, ref: FunctionRef, given: str) -> Resolved:
        root = self.store.location()
        if "://" in given:
            if not given.startswith(root.rstrip("/") + "/"):
                raise WarehouseError(f"{given} is not inside the warehouse {root}")
            rel = given[len(root.rstrip("/")) + 1 :]
        elif os.path.isabs(given):
            rel = given
        elif "/" not in given:
            rel = f"{metadata_dir(ref)}/{given}"
        else:
            rel = f"{function_dir(ref)}/{given}"
        name = parse_metadata_name(rel.rpartition("/")[2])
        try:
            return self._resolved(ref, rel, None if name is None else name.version)
        except FileNotFoundError:
            raise FunctionNotFoundError(
                f"metadata file {self.store.location(rel)} does not exist"
            ) from None


def _unreadable(
    ref: FunctionRef, name: str, e: TranslatorError, previous: str | None
) -> UnreadableMetadataError:
    reason = e.message.splitlines()[0] if e.message else type(e).__name__
    recover = (
        f"the file before it is {previous}: read that one by naming it, or move the broken file "
        "out of metadata/ (it is never rewritten) so that commits build on it again"
        if previous is not None
        else "it is the only one: restore it from a copy, or drop the function's folder"
    )
    return UnreadableMetadataError(
        f"{ref}: its metadata file {name} is unreadable, and every read and commit needs it "
        f"({reason}); {recover}",
        path=name,
        previous=previous,
        problems=e.problems if isinstance(e, MetadataError) else None,
    )
