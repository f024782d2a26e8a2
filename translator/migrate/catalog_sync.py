"""A migration into an Iceberg REST catalog: the directory is compiled on its own, then each
function it makes is created in the catalog once.

A REST catalog's function endpoints can create and drop but not update (our reading of
apache/iceberg PR #17966; :mod:`translator.warehouse.rest_commit`), and it holds no ledger of
ours. So the migration runs as a dry run does, against a throwaway local warehouse, but one that
starts empty: every function is what the directory alone makes of it (a function written in
one file and replaced in a later one gets both versions). Then, function by function, what the
run made is compared with what the catalog holds (:func:`same_function`: everything but what
the catalog assigns):

* not in the catalog: created (``createFunction``), with all its versions;
* the same: unchanged, nothing written, so running the migration again, or again after a crash,
  changes nothing and finishes what was left;
* different: refused, as a change of an existing function is (it would discard the function's
  history); with ``replace_discarding_history`` dropped and created again, with a warning;
* made and dropped again by the run, or never made: the catalog is left as it is (a migration
  into a REST catalog creates functions; ``drop`` removes one).
"""

from __future__ import annotations

from collections.abc import Sequence

from translator.errors import TranslatorError
from translator.migrate.report import FunctionReport, Issue, MigrationReport, StatementReport
from translator.warehouse.commit import Conflict
from translator.warehouse.errors import CommitConflictError
from translator.warehouse.layout import FunctionRef
from translator.warehouse.rest_commit import RestCommitter, same_function
from translator.warehouse.warehouse import Warehouse

__all__ = ["sync_to_catalog"]


def _fail(report: MigrationReport, fn: FunctionReport, e: TranslatorError) -> None:
    issue = Issue(e.code, e.message, function=fn.function)
    report.failures.append(issue)
    fn.failures.append(issue)
    for s in fn.changes:
        if s.status == "applied":
            s.status, s.detail = "failed", e.message


def _mark(statements: Sequence[StatementReport], detail: str) -> None:
    for s in statements:
        if s.status == "applied":
            s.status, s.detail = "unchanged", detail


def sync_to_catalog(
    report: MigrationReport,
    made: Warehouse,
    catalog: Warehouse,
    dry_run: bool,
    replace_discarding_history: bool,
) -> None:
    """Create in ``catalog`` (a REST catalog) each function of ``report`` as ``made`` (the
    migration's own warehouse) holds it, and say in ``report`` what became of each."""
    assert isinstance(catalog.committer, RestCommitter)
    committer = catalog.committer.allowing(replace_discarding_history)
    for name, fn in sorted(report.functions.items()):
        ns, _, short = name.rpartition(".")
        ref = FunctionRef(ns, short)
        fn.metadata_file = None  # the catalog's, once known (not the throwaway warehouse's)
        try:
            _sync_one(report, fn, ref, made, committer, catalog, dry_run)
        except TranslatorError as e:
            _fail(report, fn, e)


def _sync_one(
    report: MigrationReport,
    fn: FunctionReport,
    ref: FunctionRef,
    made: Warehouse,
    committer: RestCommitter,
    catalog: Warehouse,
    dry_run: bool,
) -> None:
    wanted = made.committer.base(ref)
    for _ in range(catalog.retry.max_attempts):
        there = committer.base(ref)
        fn.metadata_file = None if there is None or dry_run else there.path
        fn.exists_after = there is not None
        if wanted is None:
            if there is not None and any(s.status == "applied" for s in fn.changes):
                _fail(
                    report,
                    fn,
                    TranslatorError(
                        f"{ref}: the migration drops it, and a migration into a REST catalog only "
                        "creates functions: the catalog's is left as it is (drop it on its own)"
                    ),
                )
            return
        if there is not None and same_function(ref, there.metadata, wanted.metadata):
            _mark(fn.changes, "already in the REST catalog as this migration makes it")
            return
        refused = committer.refusal(ref, there, wanted.metadata)
        if refused is not None:
            _fail(report, fn, refused)
            return
        fn.exists_after = True
        if dry_run:
            return
        try:
            committed = committer.commit(ref, there, wanted.metadata)
        except Conflict:
            catalog.retry.pause(0)
            continue  # another writer, or a lost answer: look again
        fn.metadata_file = committed.path
        if committed.note is not None:
            issue = Issue(committed.note.code, committed.note.message, function=fn.function)
            report.warnings.append(issue)
            fn.warnings.append(issue)
        return
    raise CommitConflictError(f"{ref}: the catalog kept changing while it was being created")
