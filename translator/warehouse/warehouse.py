"""The function warehouse: apply DDL, read any point of a function's history, roll back, drop.

The :class:`Warehouse` class is the surface; the work is in :mod:`.apply` (compile, commit,
retry), :mod:`translator.history` (time travel) and :mod:`.maintenance` (rollback, drop), and
what it returns is in :mod:`.results`.

``Warehouse(path)`` is the library surface; ``translator.cli.warehouse_commands`` is a thin CLI
over it. Every change goes through a committer (:mod:`translator.warehouse.commit`) that refuses to
commit on top of a stale base; the operations here re-read, re-merge and retry, so concurrent
writers never lose each other's updates. On local folders they first take an advisory
per-function lock, so processes on one machine take turns instead of starving each other
(measured: 8 processes x 20 applies on 2 cores without it, one apply needed 23 retries).

``apply`` commits nothing when any statement fails (like ``compile``'s "nothing written"). Each
function commits atomically on its own; a script that touches several functions is not one
transaction across them: if a retry after a concurrent change then fails for one function, the
others stay committed and the result says which.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from translator.compile import CompileOptions, Context
from translator.errors import Diagnostic, HistoryError, TranslatorError
from translator.history import entry_index, view_at
from translator.metadata import deep_copy
from translator.names import parse_name
from translator.statement_cache import run_scope
from translator.warehouse import syncs
from translator.warehouse.apply import Applier, named_functions
from translator.warehouse.cache import MetadataCache, cache_enabled_by_env, shared_cache
from translator.warehouse.catalog import SqlCatalog
from translator.warehouse.commit import CatalogCommitter, Committer, FileCommitter, RetryPolicy
from translator.warehouse.errors import (
    FunctionNotFoundError,
    OptionError,
    TimeTravelError,
    WarehouseError,
)
from translator.warehouse.layout import DEFAULT_NAMESPACE, FunctionRef
from translator.warehouse.maintenance import drop_function, rollback_function
from translator.warehouse.resolve import MetadataReader, Resolved, ResolveOptions
from translator.warehouse.rest import RestCatalogClient, RestStore, is_rest_address
from translator.warehouse.rest_commit import RestCommitter
from translator.warehouse.results import ApplyResult, Dropped, PointInTime, RollbackResult
from translator.warehouse.store import FsspecStore, LocalStore, Store, open_store
from translator.warehouse.summary import FunctionInfo, HistoryEntry, history_entries, summarize

__all__ = ["Warehouse", "lock_name", "require_existing"]


def require_existing(where: str | Path, hint: str = "") -> None:
    """Refuse a local warehouse folder that is not there: read from, a mistyped path would look
    like a warehouse with no functions (only applying statements may start a new one). URLs are
    left to their file system."""
    if "://" not in str(where) and not Path(where).is_dir():
        raise WarehouseError(f"no warehouse at {where}: not a folder{hint}")


#: Set to 0 to turn off the advisory per-function commit lock of local warehouses.
LOCK_ENV = "ICEBERG_UDF_COMMIT_LOCK"
#: How many lock files the functions of one namespace share.
LOCK_STRIPES = 256


def lock_name(ref: FunctionRef) -> str:
    """The advisory lock a commit to ``ref`` takes: one of ``LOCK_STRIPES`` per namespace, by
    a stable hash of the function's name (``<namespace>/.stripe-NNN``; a dot name is never a
    namespace folder). Functions sharing one only take turns, as one function's writers do;
    a file per function would cost a new file on the first commit of each (a migration into a
    new warehouse: one per function, ~0.1 ms of system time each) and keep one per function."""
    stripe = zlib.crc32(ref.name.encode("utf-8", "surrogatepass")) % LOCK_STRIPES
    return f"{ref.namespace}/.stripe-{stripe:03d}"


class Warehouse:
    """A folder (or fsspec URL) of functions, optionally with a SQL catalog; or an Iceberg REST
    catalog at a ``rest+http(s)://`` address (:mod:`translator.warehouse.rest`), written to only
    where it advertises function writes (:mod:`translator.warehouse.rest_commit`).

    ``cache``: True/False, or a :class:`MetadataCache` of your own; None (the default) means on
    unless ``ICEBERG_UDF_METADATA_CACHE=0``. ``catalog``: a SQLAlchemy URL, or ``"sqlite"`` for
    ``WAREHOUSE/catalog.db``. ``context`` injects the clock and uuids (tests).
    ``namespace`` (here and in :meth:`apply`): the namespace of unqualified names, as its folder
    (``a.b`` is two levels; :func:`~translator.warehouse.layout.namespace_folder` makes the folder
    of parts). A function ``name`` is a NAME (:func:`translator.names.parse_name`:
    ``ns."my.fn"``) or a :class:`FunctionRef`.
    ``lock_timeout_s``: how long a local commit waits for the advisory per-function lock that
    lets concurrent processes take turns (0, or ``ICEBERG_UDF_COMMIT_LOCK=0``: no lock; commits
    are still safe, only more of them retry).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        namespace: str = DEFAULT_NAMESPACE,
        catalog: str | None = None,
        catalog_name: str = "default",
        cache: bool | MetadataCache | None = None,
        context: Context | None = None,
        retry: RetryPolicy | None = None,
        storage_options: Mapping[str, Any] | None = None,
        lock_timeout_s: float = 30.0,
    ) -> None:
        #: The REST catalog a ``rest+http(s)://`` address reads (it decides what is current).
        self.rest: RestCatalogClient | None = None
        self.store: Store
        if is_rest_address(path):
            self.rest = RestCatalogClient(str(path))
            self.store = RestStore(self.rest)
        else:
            self.store = open_store(path, **dict(storage_options or {}))
        FunctionRef(namespace, "x")  # validate the default namespace early
        self.namespace = namespace
        if cache is None:
            cache = cache_enabled_by_env()
        self.cache: MetadataCache | None = (
            cache if isinstance(cache, MetadataCache) else shared_cache() if cache else None
        )
        self.context = context or Context()
        self.retry = retry or RetryPolicy()
        off = os.environ.get(LOCK_ENV, "").strip().lower() in ("0", "off", "false", "no")
        self.lock_timeout_s = 0.0 if off else lock_timeout_s
        self.reader = MetadataReader(self.store, self.cache)
        self.catalog: SqlCatalog | None = None
        self.committer: Committer
        if self.rest is not None:
            if catalog is not None:
                raise WarehouseError("a REST catalog is the catalog: a SQL catalog cannot be added")
            self.committer = RestCommitter(self.rest)
        elif catalog is not None:
            self.catalog = SqlCatalog(self._catalog_url(catalog), name=catalog_name)
            self.committer = CatalogCommitter(self.store, self.reader, self.catalog)
            if isinstance(self.store, FsspecStore):  # the catalog decides; names are random
                self.store.needs_conditional_writes = False
        else:
            self.committer = FileCommitter(self.store, self.reader, self.context.clock)

    def _catalog_url(self, catalog: str) -> str:
        if catalog != "sqlite":
            return catalog
        if not isinstance(self.store, LocalStore):
            raise OptionError(
                "catalog 'sqlite' keeps catalog.db in a local warehouse folder",
                reason="sqlite-catalog-not-local",
            )
        self.store.root.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{self.store.root / 'catalog.db'}"

    def close(self) -> None:
        if self.catalog is not None:
            self.catalog.close()
        if self.rest is not None:
            self.rest.close()

    def require_writable(self, what: str) -> None:
        """Refuse ``what`` up front where nothing can be written: a REST catalog that advertises
        no function writes (what it does advertise is decided per function when committing)."""
        if isinstance(self.committer, RestCommitter) and not self.committer.writes_advertised():
            raise self.committer.refuse(what)

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ref(self, name: str | FunctionRef) -> FunctionRef:
        return name if isinstance(name, FunctionRef) else FunctionRef.parse(name, self.namespace)

    @contextlib.contextmanager
    def _locked(self, refs: Iterable[FunctionRef]) -> Iterator[None]:
        """Hold the advisory locks of ``refs`` (:func:`lock_name`), each once, taken in sorted
        order (no deadlocks)."""
        with contextlib.ExitStack() as stack:
            if self.lock_timeout_s > 0:
                for name in sorted({lock_name(ref) for ref in refs}):
                    stack.enter_context(self.store.lock(name, self.lock_timeout_s))
            yield

    # ----------------------------------------------------------------------------------------
    # apply

    def apply(
        self,
        sql: str | Sequence[tuple[str, str]],
        dialect: str,
        *,
        file: str | None = None,
        namespace: str | None = None,
        dry_run: bool = False,
        options: CompileOptions | None = None,
        strict: bool = False,
        keep_journal: bool = False,
        journal_carry: Mapping[str, Any] | None = None,
        replace_discarding_history: bool = False,
    ) -> ApplyResult:
        """Compile ``sql`` (one text, or ``(file name, text)`` pairs) and commit every function
        it changes. Unqualified names go to ``namespace`` (default: the warehouse's).

        A crash between two commits leaves a journal: running the same apply again finishes it
        (:mod:`translator.warehouse.journal`). ``keep_journal``: the caller clears it
        (``result.journal``) once it has recorded the apply itself; ``journal_carry``: that
        record, written into the journal's document (which the caller may then link into its
        own records: :class:`~translator.warehouse.journal.Journal`).

        In a REST catalog, a change to an existing function is refused (it has no update, and a
        drop and create discards the function's history) unless ``replace_discarding_history``;
        the catalog itself is the journal there (:mod:`translator.warehouse.rest_commit`)."""
        sources = [(file, sql)] if isinstance(sql, str) else [(n, t) for n, t in sql]
        ns = namespace or self.namespace
        committer = self.committer
        store: Store | None = self.store
        if isinstance(committer, RestCommitter):
            committer, store = committer.allowing(replace_discarding_history), None
        applier = Applier(
            committer,
            self.context,
            self.retry,
            store,
            keep_journal=keep_journal,
            journal_carry=journal_carry,
        )
        run = applier.run
        with run_scope():  # the lock's names and the compile (and each retry) parse once
            if dry_run:
                return run(sources, dialect, ns, True, options, strict)
            # Commits decided by the files alone wait for their folders' syncs in groups
            # (:mod:`.syncs`); everything is durable when the block ends. A catalog's commit
            # must find its file's name durable at once: it syncs in line.
            in_files = isinstance(committer, FileCommitter)
            defer = syncs.deferring() if in_files else contextlib.nullcontext()
            with self._locked(named_functions(sources, dialect, ns)), defer:
                return run(sources, dialect, ns, False, options, strict)

    # ----------------------------------------------------------------------------------------
    # reading

    def load(
        self, name: str | FunctionRef, *, resolve: ResolveOptions | None = None, copy: bool = True
    ) -> Resolved:
        """The function's current metadata file under the resolution rules: a private copy, or
        with ``copy=False`` the cache's own (read it, never change it; copying a long history
        costs as much as parsing it)."""
        r = self._load(name, resolve)
        return dataclasses.replace(r, metadata=deep_copy(r.metadata)) if copy else r

    def _load(self, name: str | FunctionRef, resolve: ResolveOptions | None) -> Resolved:
        """As :meth:`load`, but the metadata may be shared with the cache: read it only."""
        ref = self.ref(name)
        options = resolve or ResolveOptions()
        if self.rest is not None and not options.is_default:
            raise OptionError(
                "metadata_file, function_uuid and latest_by_log_timestamp choose among files; a "
                "REST catalog says which metadata is current",
                reason="file-rules-with-rest",
            )
        if options.metadata_file is None and (self.catalog is not None or self.rest is not None):
            if not options.is_default:
                raise OptionError(
                    "function_uuid and latest_by_log_timestamp choose among files; with a "
                    "catalog the catalog says which file is current (use metadata_file)",
                    reason="file-rules-with-catalog",
                )
            found = self.committer.base(ref)
            if found is None:
                raise FunctionNotFoundError(f"function {ref} is not in the catalog")
            return found
        resolved = self.reader.resolve(ref, options)
        assert resolved is not None
        return resolved

    def at(
        self,
        name: str | FunctionRef,
        *,
        as_of: int | None = None,
        log_entry: int | None = None,
        resolve: ResolveOptions | None = None,
    ) -> PointInTime:
        """The function now, or at ``as_of`` (epoch ms) / its ``log_entry``-th log entry: the
        caller's own copy."""
        return self._at(name, as_of, log_entry, resolve, copy=True)

    def _at(
        self,
        name: str | FunctionRef,
        as_of: int | None,
        log_entry: int | None,
        resolve: ResolveOptions | None,
        *,
        copy: bool,
    ) -> PointInTime:
        """:meth:`at`; with ``copy=False`` the function now is the cache's own metadata, for a
        caller that only reads it and hands none of it out (``show``, ``emit``): copying a long
        history costs more than reading its file."""
        if as_of is not None and log_entry is not None:
            raise TimeTravelError("give a log entry (log_entry) or a time (as_of), not both")
        resolved = self._load(name, resolve)
        mine = (
            dataclasses.replace(resolved, metadata=deep_copy(resolved.metadata))
            if copy
            else resolved
        )
        if as_of is None and log_entry is None:
            return PointInTime(mine, mine.metadata, None, [])
        try:
            index = entry_index(resolved.metadata, as_of=as_of, log_entry=log_entry)
            view, warnings = view_at(resolved.metadata, index)
        except HistoryError as e:
            raise TimeTravelError(e.message) from None
        return PointInTime(mine, view, index, warnings)

    def functions(self) -> list[FunctionInfo]:
        """Every function with its definition count and current metadata file."""
        out = []
        for ref, _ in self.committer.functions():
            try:
                r = self._load(ref, None)
            except TranslatorError as e:
                out.append(FunctionInfo(ref, None, None, e.message))
                continue
            out.append(FunctionInfo(ref, len(r.metadata.definitions), r.path))
        return out

    def show(
        self,
        name: str | FunctionRef,
        *,
        as_of: int | None = None,
        log_entry: int | None = None,
        resolve: ResolveOptions | None = None,
    ) -> tuple[dict[str, Any], list[Diagnostic]]:
        """A readable summary (secure bodies redacted) and time-travel warnings."""
        p = self._at(name, as_of, log_entry, resolve, copy=False)  # the summary is new data
        return (
            summarize(
                p.resolved.ref, p.metadata, metadata_file=p.resolved.path, log_entry=p.log_entry
            ),
            p.warnings,
        )

    def history(
        self,
        name: str | FunctionRef,
        *,
        resolve: ResolveOptions | None = None,
        copy: bool = True,
    ) -> tuple[Resolved, list[HistoryEntry]]:
        """The file read and its log's entries; ``copy`` as for :meth:`load` (the entries are
        new data either way)."""
        r = self.load(name, resolve=resolve, copy=copy)
        return r, history_entries(r.metadata)

    def emit(
        self,
        name: str,
        dialect: str,
        *,
        definition: str | None = None,
        definition_version: int | None = None,
        as_of: int | None = None,
        log_entry: int | None = None,
        allow_lossy: bool = False,
        or_replace: bool = False,
        resolve: ResolveOptions | None = None,
        ddl_name: tuple[str, ...] | None = None,
    ) -> Any:
        """``CREATE FUNCTION`` DDL for ``dialect`` (:func:`translator.emit.emit_ddl`), named as
        ``name`` was written, or ``ddl_name`` (a Trino ``catalog.schema.name``, say)."""
        from translator.emit import EmitResult, emit_ddl

        if definition_version is not None and (as_of is not None or log_entry is not None):
            raise TimeTravelError("give a definition version or a point in time, not both")
        p = self._at(name, as_of, log_entry, resolve, copy=False)  # emit only reads it
        if ddl_name is not None:
            parts = ddl_name
        else:
            parts = parse_name(name) if isinstance(name, str) else p.resolved.ref.parts
        r = emit_ddl(
            p.metadata,
            dialect,
            parts,
            definition=definition,
            version=definition_version,
            allow_lossy=allow_lossy,
            or_replace=or_replace,
        )
        notes = list(p.warnings)
        if p.metadata.secure:
            notes.append(
                Diagnostic(
                    "secure-function",
                    f"{p.resolved.ref} is a secure function: the emitted DDL contains its bodies, "
                    "handle it as sensitive",
                )
            )
        return EmitResult(r.ddl, [*notes, *r.warnings])

    # ----------------------------------------------------------------------------------------
    # rollback and drop

    def rollback(
        self,
        name: str | FunctionRef,
        *,
        log_entry: int | None = None,
        as_of: int | None = None,
    ) -> RollbackResult:
        """Make the versions of a past log entry current again (a new entry and file)."""
        if (log_entry is None) == (as_of is None):
            raise TimeTravelError("rollback needs exactly one of a log entry or a time")
        ref = self.ref(name)
        if isinstance(self.committer, RestCommitter):
            raise self.committer.refuse(f"roll back {ref}")
        with self._locked([ref]):
            return rollback_function(
                self.committer, self.retry, self.context.clock, ref, log_entry, as_of
            )

    def drop(
        self,
        name: str | FunctionRef,
        *,
        if_exists: bool = False,
        only_if: Callable[[Resolved], bool] | None = None,
    ) -> Dropped:
        """Remove the function: without a catalog its folder moves to
        ``<namespace>/.dropped/<name>-<ms>-<id>`` (kept, hidden); with one its row goes; in a REST
        catalog that advertises it, through ``dropFunction``.

        ``only_if``: drop only while the current metadata passes this test (for example
        ``lambda r: r.location == seen.location``: not if another writer changed the function
        since the caller read it); :class:`FunctionChangedError` otherwise."""
        ref = self.ref(name)
        with self._locked([ref]):
            return drop_function(self.committer, self.retry, ref, if_exists, only_if)
