"""The function warehouse: apply DDL, read any point of a function's history, roll back, drop.

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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from translator.api import compile_script
from translator.compile import CompileOptions, Context
from translator.errors import Diagnostic, TranslatorError
from translator.frontend import parse_script
from translator.ir import SkippedStatement
from translator.merge import Change, function_key
from translator.metadata import UdfMetadata, deep_copy
from translator.warehouse.cache import MetadataCache, cache_enabled_by_env, shared_cache
from translator.warehouse.catalog import SqlCatalog
from translator.warehouse.commit import (
    CatalogCommitter,
    Committed,
    Committer,
    Conflict,
    FileCommitter,
    RetryPolicy,
)
from translator.warehouse.errors import (
    CommitConflictError,
    FunctionNotFoundError,
    OptionError,
    TimeTravelError,
    WarehouseError,
)
from translator.warehouse.layout import DEFAULT_NAMESPACE, FunctionRef
from translator.warehouse.resolve import MetadataReader, Resolved, ResolveOptions
from translator.warehouse.store import LocalStore, Store, open_store
from translator.warehouse.summary import FunctionInfo, HistoryEntry, history_entries, summarize
from translator.warehouse.timetravel import RollbackStep, entry_index, rollback, view_at

__all__ = [
    "ApplyResult",
    "Dropped",
    "PointInTime",
    "RollbackResult",
    "Warehouse",
    "require_existing",
]


def require_existing(where: str | Path, hint: str = "") -> None:
    """Refuse a local warehouse folder that is not there: read from, a mistyped path would look
    like a warehouse with no functions (only applying statements may start a new one). URLs are
    left to their file system."""
    if "://" not in str(where) and not Path(where).is_dir():
        raise WarehouseError(f"no warehouse at {where}: not a folder{hint}")


#: Set to 0 to turn off the advisory per-function commit lock of local warehouses.
LOCK_ENV = "ICEBERG_UDF_COMMIT_LOCK"


@dataclass(frozen=True, slots=True)
class Dropped:
    """A function removed from the warehouse, and where its files went."""

    ref: FunctionRef
    moved_to: str | None


@dataclass(slots=True)
class ApplyResult:
    """The plan (``changes``, ``warnings``) and what was committed."""

    changes: list[Change] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    errors: list[TranslatorError] = field(default_factory=list)
    committed: list[Committed] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    skipped: list[SkippedStatement] = field(default_factory=list)
    dry_run: bool = False
    #: How many times a commit found that someone else had committed first (and retried).
    conflicts: int = 0
    #: Each named function's metadata after the statements (None: dropped), i.e. the plan.
    functions: dict[FunctionRef, UdfMetadata | None] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    def raise_for_errors(self) -> ApplyResult:
        if self.errors:
            raise self.errors[0]
        return self


@dataclass(frozen=True, slots=True)
class PointInTime:
    """A function read at a point of its history (or now)."""

    resolved: Resolved
    #: The metadata as of that point (the file's own metadata when not time-travelling).
    metadata: UdfMetadata
    #: The 1-based log entry, when time-travelling.
    log_entry: int | None
    warnings: list[Diagnostic]


@dataclass(frozen=True, slots=True)
class RollbackResult:
    ref: FunctionRef
    log_entry: int
    steps: list[RollbackStep]
    warnings: list[Diagnostic]
    #: None when the versions were current already (nothing written).
    committed: Committed | None


@dataclass(slots=True)
class _Compiled:
    """One compile of every source against the warehouse's current metadata."""

    functions: dict[FunctionRef, UdfMetadata | None] = field(default_factory=dict)
    bases: dict[FunctionRef, Resolved | None] = field(default_factory=dict)
    changes: dict[FunctionRef, list[Change]] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)
    errors: list[TranslatorError] = field(default_factory=list)
    skipped: list[SkippedStatement] = field(default_factory=list)


class _Existing(Mapping[str, UdfMetadata | None]):
    """What ``compile_script`` merges into: read from the warehouse on first use of a name.

    Names already merged by an earlier source come from ``overlay``; functions committed in an
    earlier attempt are pinned to the base they were committed from, so a retry re-merges only
    the functions still to commit.
    """

    def __init__(
        self,
        overlay: dict[str, UdfMetadata | None],
        namespace: str,
        committer: Committer,
        pinned: dict[FunctionRef, UdfMetadata | None],
        bases: dict[FunctionRef, Resolved | None],
    ) -> None:
        self.overlay = overlay
        self.namespace = namespace
        self.committer = committer
        self.pinned = pinned
        self.bases = bases

    def __getitem__(self, key: str) -> UdfMetadata | None:
        if key in self.overlay:
            found = self.overlay[key]
        else:
            ref = FunctionRef.parse(key, self.namespace)
            if ref in self.pinned:
                found = self.pinned[ref]
            else:
                if ref not in self.bases:
                    base = self.committer.base(ref)
                    # The cache's copy must not be shared with the results (merge shares what
                    # a statement did not change with the metadata it merged into).
                    self.bases[ref] = base and dataclasses.replace(
                        base, metadata=deep_copy(base.metadata)
                    )
                base = self.bases[ref]
                found = None if base is None else base.metadata
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.overlay)

    def __len__(self) -> int:
        return len(self.overlay)

    def __bool__(self) -> bool:  # merge does ``existing or {}``: never look empty
        return True


def _changed(changes: Sequence[Change]) -> bool:
    return any(c.action != "unchanged" for c in changes)


class Warehouse:
    """A folder (or fsspec URL) of functions, optionally with a SQL catalog.

    ``cache``: True/False, or a :class:`MetadataCache` of your own; None (the default) means on
    unless ``ICEBERG_UDF_METADATA_CACHE=0``. ``catalog``: a SQLAlchemy URL, or ``"sqlite"`` for
    ``WAREHOUSE/catalog.db``. ``context`` injects the clock and uuids (tests).
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
        self.store: Store = open_store(path, **dict(storage_options or {}))
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
        if catalog is not None:
            self.catalog = SqlCatalog(self._catalog_url(catalog), name=catalog_name)
            self.committer = CatalogCommitter(self.store, self.reader, self.catalog)
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

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ref(self, name: str | FunctionRef) -> FunctionRef:
        return name if isinstance(name, FunctionRef) else FunctionRef.parse(name, self.namespace)

    @contextlib.contextmanager
    def _locked(self, refs: Iterable[FunctionRef]) -> Iterator[None]:
        """Hold the advisory locks of ``refs``, taken in sorted order (no deadlocks)."""
        with contextlib.ExitStack() as stack:
            if self.lock_timeout_s > 0:
                for ref in sorted(set(refs)):
                    stack.enter_context(
                        self.store.lock(f"{ref.namespace}/{ref.name}", self.lock_timeout_s)
                    )
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
    ) -> ApplyResult:
        """Compile ``sql`` (one text, or ``(file name, text)`` pairs) and commit every function
        it changes. Unqualified names go to ``namespace`` (default: the warehouse's)."""
        sources = [(file, sql)] if isinstance(sql, str) else [(n, t) for n, t in sql]
        ns = namespace or self.namespace
        if dry_run:
            return self._apply(sources, dialect, ns, True, options, strict)
        with self._locked(self._named(sources, dialect, ns)):
            return self._apply(sources, dialect, ns, False, options, strict)

    def _named(
        self, sources: Sequence[tuple[str | None, str]], dialect: str, namespace: str
    ) -> set[FunctionRef]:
        """The functions the script names (a parse, no merge): the locks to take."""
        refs: set[FunctionRef] = set()
        for name, sql in sources:
            try:
                parsed = parse_script(sql, dialect, file=name)
                for st in parsed.statements:
                    if not isinstance(st, SkippedStatement):
                        refs.add(FunctionRef.parse(function_key(st.name), namespace))
            except TranslatorError:
                continue  # compile reports it
        return refs

    def _apply(
        self,
        sources: Sequence[tuple[str | None, str]],
        dialect: str,
        ns: str,
        dry_run: bool,
        options: CompileOptions | None,
        strict: bool,
    ) -> ApplyResult:
        result = ApplyResult(dry_run=dry_run)
        pinned: dict[FunctionRef, UdfMetadata | None] = {}
        frozen_changes: dict[FunctionRef, list[Change]] = {}
        attempt = 0
        while True:
            compiled = self._compile(sources, dialect, ns, pinned, options, strict)
            if attempt == 0:
                result.warnings = compiled.warnings
                result.skipped = compiled.skipped
                result.functions = dict(compiled.functions)
            result.changes = [
                c
                for ref in compiled.changes
                for c in frozen_changes.get(ref, compiled.changes[ref])
            ]
            if compiled.errors:
                result.errors = compiled.errors
                return result
            if dry_run:
                return result
            pending = [
                ref
                for ref, changes in compiled.changes.items()
                if ref not in pinned and _changed(changes)
            ]
            conflicted = False
            for ref in pending:
                base = compiled.bases.get(ref)
                meta = compiled.functions[ref]
                try:
                    self._commit_one(ref, base, meta, result)
                except Conflict:
                    conflicted = True
                    continue
                pinned[ref] = None if base is None else base.metadata
                frozen_changes[ref] = compiled.changes[ref]
            if not conflicted:
                return result
            result.conflicts += 1
            attempt += 1
            if attempt >= self.retry.max_attempts:
                left = [str(r) for r in pending if r not in pinned]
                result.errors.append(
                    CommitConflictError(
                        f"{', '.join(left)}: other writers committed first {attempt} times in a "
                        "row; nothing was committed for these functions (try again)",
                        attempts=attempt,
                    )
                )
                return result
            self.retry.pause(attempt)

    def _commit_one(
        self, ref: FunctionRef, base: Resolved | None, meta: UdfMetadata | None, out: ApplyResult
    ) -> None:
        if meta is not None:
            out.committed.append(self.committer.commit(ref, base, meta))
        elif base is not None:
            out.dropped.append(Dropped(ref, self.committer.drop(ref, base)))
        # created and dropped within the same script: nothing to write

    def _compile(
        self,
        sources: Sequence[tuple[str | None, str]],
        dialect: str,
        namespace: str,
        pinned: dict[FunctionRef, UdfMetadata | None],
        options: CompileOptions | None,
        strict: bool,
    ) -> _Compiled:
        out = _Compiled()
        overlay: dict[str, UdfMetadata | None] = {}
        existing = _Existing(overlay, namespace, self.committer, pinned, out.bases)
        key_changes: dict[str, list[Change]] = {}
        for name, sql in sources:
            try:
                r = compile_script(
                    sql,
                    dialect,
                    into=existing,
                    file=name,
                    options=options,
                    context=self.context,
                    strict=strict,
                )
            except TranslatorError as e:
                out.errors.append(e)
                continue
            out.errors += r.errors
            out.warnings += r.warnings
            out.skipped += r.skipped
            overlay.update(r.functions)
            for c in r.changes:
                key_changes.setdefault(c.function, []).append(c)
        keys_of: dict[FunctionRef, str] = {}
        for key in overlay:
            try:
                ref = FunctionRef.parse(key, namespace)
            except WarehouseError as e:
                out.errors.append(e)
                continue
            if ref in keys_of:
                out.errors.append(
                    WarehouseError(
                        f"the script names function {ref} both as {keys_of[ref]!r} and as "
                        f"{key!r}: write it the same way everywhere"
                    )
                )
                continue
            keys_of[ref] = key
            catalog = FunctionRef.catalog_part(key)
            if catalog is not None:
                out.warnings.append(
                    Diagnostic(
                        "catalog-ignored",
                        f"{key}: the catalog part {catalog!r} is ignored; the warehouse is the "
                        f"catalog, and the function is stored as {ref}",
                    )
                )
            out.functions[ref] = overlay[key]
            out.changes[ref] = [
                dataclasses.replace(c, function=str(ref)) for c in key_changes.get(key, [])
            ]
        return out

    # ----------------------------------------------------------------------------------------
    # reading

    def load(self, name: str | FunctionRef, *, resolve: ResolveOptions | None = None) -> Resolved:
        """The function's current metadata file under the resolution rules (a private copy)."""
        r = self._load(name, resolve)
        return dataclasses.replace(r, metadata=deep_copy(r.metadata))

    def _load(self, name: str | FunctionRef, resolve: ResolveOptions | None) -> Resolved:
        """As :meth:`load`, but the metadata may be shared with the cache: read it only."""
        ref = self.ref(name)
        options = resolve or ResolveOptions()
        if options.metadata_file is None and self.catalog is not None:
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
        """The function now, or at ``as_of`` (epoch ms) / its ``log_entry``-th log entry."""
        if as_of is not None and log_entry is not None:
            raise TimeTravelError("give a log entry (log_entry) or a time (as_of), not both")
        resolved = self._load(name, resolve)
        mine = dataclasses.replace(resolved, metadata=deep_copy(resolved.metadata))
        if as_of is None and log_entry is None:
            return PointInTime(mine, mine.metadata, None, [])
        index = entry_index(resolved.metadata, as_of=as_of, log_entry=log_entry)
        view, warnings = view_at(resolved.metadata, index)
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
        p = self.at(name, as_of=as_of, log_entry=log_entry, resolve=resolve)
        return (
            summarize(
                p.resolved.ref, p.metadata, metadata_file=p.resolved.path, log_entry=p.log_entry
            ),
            p.warnings,
        )

    def history(
        self, name: str | FunctionRef, *, resolve: ResolveOptions | None = None
    ) -> tuple[Resolved, list[HistoryEntry]]:
        r = self.load(name, resolve=resolve)
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
        p = self.at(name, as_of=as_of, log_entry=log_entry, resolve=resolve)
        if ddl_name is not None:
            parts = ddl_name
        else:
            parts = tuple(name.split(".")) if isinstance(name, str) else p.resolved.ref.parts
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
        with self._locked([ref]):
            return self._rollback(ref, log_entry, as_of)

    def _rollback(
        self, ref: FunctionRef, log_entry: int | None, as_of: int | None
    ) -> RollbackResult:
        for attempt in range(self.retry.max_attempts):
            base = self.committer.base(ref)
            if base is None:
                raise FunctionNotFoundError(f"function {ref} does not exist in the warehouse")
            index = entry_index(base.metadata, as_of=as_of, log_entry=log_entry)
            new, steps, warnings = rollback(base.metadata, index, self.context.clock)
            if new is None:
                return RollbackResult(ref, index, steps, warnings, None)
            try:
                committed = self.committer.commit(ref, base, new)
            except Conflict:
                self.retry.pause(attempt)
                continue
            return RollbackResult(ref, index, steps, warnings, committed)
        raise CommitConflictError(
            f"{ref}: other writers committed first {self.retry.max_attempts} times in a row; "
            "the rollback was not committed",
            attempts=self.retry.max_attempts,
        )

    def drop(self, name: str | FunctionRef, *, if_exists: bool = False) -> Dropped:
        """Remove the function: without a catalog its folder moves to
        ``<namespace>/.dropped/<name>-<ms>-<id>`` (kept, hidden); with one its row goes."""
        ref = self.ref(name)
        with self._locked([ref]):
            return self._drop(ref, if_exists)

    def _drop(self, ref: FunctionRef, if_exists: bool) -> Dropped:
        for attempt in range(self.retry.max_attempts):
            base = self.committer.base(ref)
            if base is None:
                if if_exists:
                    return Dropped(ref, None)
                raise FunctionNotFoundError(f"function {ref} does not exist in the warehouse")
            try:
                return Dropped(ref, self.committer.drop(ref, base))
            except Conflict:
                self.retry.pause(attempt)
        raise CommitConflictError(
            f"{ref}: it kept changing while being dropped; not dropped",
            attempts=self.retry.max_attempts,
        )
