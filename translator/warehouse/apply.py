"""Applying DDL to a warehouse: compile against the current metadata, then commit per function.

The plan is :func:`translator.api.compile_script` run against what the warehouse holds (read on
first use of a name, see :class:`_Existing`). Each changed function is committed on its own; when
another writer committed first, the functions still to commit are re-read, re-merged and
retried, while those already committed stay pinned to the base they were committed from. A
journal (:mod:`translator.warehouse.journal`) does the same across a crash: the re-run of the
same apply pins what the interrupted one committed, and only that.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from translator.api import compile_script
from translator.compile import CompileOptions, Context
from translator.errors import Diagnostic, TranslatorError
from translator.frontend import parse_script
from translator.ir import SkippedStatement
from translator.merge import Change
from translator.metadata import UdfMetadata
from translator.warehouse.commit import (
    Committer,
    Conflict,
    FileCommitter,
    RetryPolicy,
    StagedCommit,
)
from translator.warehouse.errors import CommitConflictError, WarehouseError
from translator.warehouse.journal import Journal, committed_before, journal_key, same_change
from translator.warehouse.layout import FunctionRef
from translator.warehouse.resolve import Resolved
from translator.warehouse.results import ApplyResult, Dropped, PrivateCopies
from translator.warehouse.store import Store

__all__ = ["STAGE_SLICE", "Applier", "named_functions"]

#: At most this many of an apply's commits are staged (written, syncing, unnamed) at a time.
STAGE_SLICE = 32


def named_functions(
    sources: Sequence[tuple[str | None, str]], dialect: str, namespace: str
) -> set[FunctionRef]:
    """The functions the script names (a parse, no merge): the locks to take."""
    refs: set[FunctionRef] = set()
    for name, sql in sources:
        try:
            parsed = parse_script(sql, dialect, file=name)
            for st in parsed.statements:
                if not isinstance(st, SkippedStatement):
                    refs.add(FunctionRef.from_parts(st.name, namespace))
        except TranslatorError:
            continue  # compile reports it
    return refs


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
                    # The cache's own metadata, not a copy: merge never changes what it merges
                    # into, and what the plan shares with it reaches callers only as copies
                    # (:class:`~translator.warehouse.results.PrivateCopies`).
                    self.bases[ref] = self.committer.base(ref)
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


class Applier:
    """One ``apply`` against a committer: the compile-commit-retry loop."""

    def __init__(
        self,
        committer: Committer,
        context: Context,
        retry: RetryPolicy,
        store: Store | None = None,
        *,
        keep_journal: bool = False,
        journal_carry: Mapping[str, Any] | None = None,
    ) -> None:
        self.committer = committer
        self.context = context
        self.retry = retry
        #: Where the journal lives (None: no journal); ``keep_journal``: the caller clears it
        #: (``result.journal``) once it has recorded the apply itself (migrate's ledger);
        #: ``journal_carry``: the caller's record, written into the journal (:class:`Journal`).
        self.store = store
        self.keep_journal = keep_journal
        self.journal_carry = journal_carry

    def _journal(
        self,
        sources: Sequence[tuple[str | None, str]],
        dialect: str,
        ns: str,
        options: CompileOptions | None,
        strict: bool,
    ) -> tuple[Journal | None, dict[FunctionRef, UdfMetadata | None]]:
        """This apply's journal, and what an interrupted run of it committed (to pin)."""
        if self.store is None:
            return None, {}
        key = journal_key(sources, dialect, ns, repr((options, strict)))
        journal = Journal(self.store, key, self.journal_carry)
        recorded = journal.recorded()
        if not recorded:
            return journal, {}
        current = {ref: (b.path if (b := self.committer.base(ref)) else None) for ref in recorded}
        journal.bases.update(recorded)
        return journal, committed_before(recorded, current, self.store)

    def run(
        self,
        sources: Sequence[tuple[str | None, str]],
        dialect: str,
        ns: str,
        dry_run: bool,
        options: CompileOptions | None,
        strict: bool,
    ) -> ApplyResult:
        """Compile ``sources`` and commit every function they change; on a conflict, re-read,
        re-merge and retry the functions not committed yet (``dry_run``: compile only)."""
        result = ApplyResult(dry_run=dry_run)
        pinned: dict[FunctionRef, UdfMetadata | None] = {}
        journal = None
        if not dry_run:
            journal, pinned = self._journal(sources, dialect, ns, options, strict)
        frozen_changes: dict[FunctionRef, list[Change]] = {}
        from_journal = dict(pinned)  # to check against what each function now holds
        notes: list[Diagnostic] = []
        attempt = 0
        while True:
            compiled = self._compile(sources, dialect, ns, pinned, options, strict)
            if from_journal and not compiled.errors:
                others = self._not_ours(from_journal, compiled)
                from_journal = {}
                if others and journal is not None:
                    for ref in others:
                        del pinned[ref]
                        journal.bases.pop(ref, None)
                        notes.append(
                            Diagnostic(
                                "journal",
                                f"{ref}: another writer committed to it after the interrupted "
                                "run started; this run's change is applied on top of that commit",
                            )
                        )
                    continue
            if attempt == 0:
                result.warnings = compiled.warnings + notes
                result.skipped = compiled.skipped
                result.functions = PrivateCopies(compiled.functions)
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
            refused = [
                e
                for ref in pending
                if (
                    e := self.committer.refusal(
                        ref, compiled.bases.get(ref), compiled.functions[ref]
                    )
                )
                is not None
            ]
            if refused:  # nothing of them is written (a catalog that cannot take the change)
                result.errors += refused
                return self._finished(result, journal)
            conflicted = False
            # Staged a slice at a time: each staged file holds two descriptors and its bytes
            # until it is named, so a script of thousands of new functions stays within the
            # process's open-file limit and its memory.
            slices = [pending[i : i + STAGE_SLICE] for i in range(0, len(pending), STAGE_SLICE)]
            staged = self._stage(slices[0] if slices else [], compiled)
            try:
                # The journal is written while the staged files sync, and is durable before
                # the first of them is named (every create waits for earlier visible changes).
                if journal is not None and pending:
                    journal.record(
                        {r: (b.path if (b := compiled.bases.get(r)) else None) for r in pending}
                    )
                for number, refs in enumerate(slices):
                    if number:
                        staged = self._stage(refs, compiled)
                    for ref in refs:
                        base = compiled.bases.get(ref)
                        meta = compiled.functions[ref]
                        try:
                            self._commit_one(ref, base, meta, result, staged.pop(ref, None))
                        except Conflict:
                            conflicted = True
                            continue
                        pinned[ref] = None if base is None else base.metadata
                        frozen_changes[ref] = compiled.changes[ref]
            finally:
                for unused in staged.values():  # an error stopped the commits: never named
                    unused.file.discard()
            if not conflicted:
                return self._finished(result, journal)
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
                return self._finished(result, journal)
            self.retry.pause(attempt)

    def _not_ours(
        self, recorded: Mapping[FunctionRef, UdfMetadata | None], compiled: _Compiled
    ) -> list[FunctionRef]:
        """The functions the journal took for committed by the interrupted run whose current
        file holds something else: another writer's commit."""
        others = []
        for ref, base in recorded.items():
            now = self.committer.base(ref)
            expected = compiled.functions.get(ref)
            if not same_change(expected, now.metadata if now else None, created=base is None):
                others.append(ref)
        return others

    def _finished(self, result: ApplyResult, journal: Journal | None) -> ApplyResult:
        """The run ended (not crashed): its journal goes, or to the caller to remove."""
        if journal is not None:
            if self.keep_journal:
                result.journal = journal
            else:
                journal.clear()
        return result

    def _stage(
        self, pending: Sequence[FunctionRef], compiled: _Compiled
    ) -> dict[FunctionRef, StagedCommit]:
        """The files of the commits to make, written and syncing together where the committer
        can (:meth:`FileCommitter.stage`): one wait for all of them instead of one each."""
        if not isinstance(self.committer, FileCommitter):
            return {}
        changes = [
            (ref, compiled.bases.get(ref), meta)
            for ref in pending
            if (meta := compiled.functions[ref]) is not None
        ]
        return self.committer.stage(changes) if changes else {}

    def _commit_one(
        self,
        ref: FunctionRef,
        base: Resolved | None,
        meta: UdfMetadata | None,
        out: ApplyResult,
        staged: StagedCommit | None = None,
    ) -> None:
        if meta is not None:
            if staged is not None and isinstance(self.committer, FileCommitter):
                committed = self.committer.commit(ref, base, meta, staged)
            else:
                committed = self.committer.commit(ref, base, meta)
            out.committed.append(committed)
            if committed.note is not None:
                out.warnings.append(committed.note)
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
                out.errors.append(e.without_frames())
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
                out.errors.append(e.without_frames())
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
