"""Changes to a function that do not come from DDL: rolling back to a log entry, and dropping.

Each re-reads the function's current metadata and commits on top of it, retrying when another
writer committed first, like ``apply``.
"""

from __future__ import annotations

from collections.abc import Callable

from translator.errors import HistoryError
from translator.history import entry_index, rollback
from translator.warehouse.commit import Committer, Conflict, RetryPolicy
from translator.warehouse.errors import (
    CommitConflictError,
    FunctionChangedError,
    FunctionNotFoundError,
    TimeTravelError,
)
from translator.warehouse.layout import FunctionRef
from translator.warehouse.resolve import Resolved
from translator.warehouse.results import Dropped, RollbackResult

__all__ = ["drop_function", "rollback_function"]


def rollback_function(
    committer: Committer,
    retry: RetryPolicy,
    clock: Callable[[], int],
    ref: FunctionRef,
    log_entry: int | None,
    as_of: int | None,
) -> RollbackResult:
    """Make the versions of log entry ``log_entry`` (or the one current at ``as_of``) current
    again: a new log entry and metadata file, or nothing when they are current already."""
    for attempt in range(retry.max_attempts):
        base = committer.base(ref)
        if base is None:
            raise FunctionNotFoundError(f"function {ref} does not exist in the warehouse")
        try:
            index = entry_index(base.metadata, as_of=as_of, log_entry=log_entry)
            new, steps, warnings = rollback(base.metadata, index, clock)
        except HistoryError as e:
            raise TimeTravelError(e.message) from None
        if new is None:
            return RollbackResult(ref, index, steps, warnings, None)
        try:
            committed = committer.commit(ref, base, new)
        except Conflict:
            retry.pause(attempt)
            continue
        return RollbackResult(ref, index, steps, warnings, committed)
    raise CommitConflictError(
        f"{ref}: other writers committed first {retry.max_attempts} times in a row; "
        "the rollback was not committed",
        attempts=retry.max_attempts,
    )


def drop_function(
    committer: Committer,
    retry: RetryPolicy,
    ref: FunctionRef,
    if_exists: bool,
    only_if: Callable[[Resolved], bool] | None = None,
) -> Dropped:
    """Remove the function (see :meth:`Committer.drop` for where its files go); with
    ``only_if``, only while the current metadata passes it (checked on every read, so a writer
    who commits between the check and the drop makes the drop re-read and check again)."""
    for attempt in range(retry.max_attempts):
        base = committer.base(ref)
        if base is None:
            if if_exists:
                return Dropped(ref, None)
            raise FunctionNotFoundError(f"function {ref} does not exist in the warehouse")
        if only_if is not None and not only_if(base):
            raise FunctionChangedError(
                f"{ref} changed since it was read (its current metadata is "
                f"{base.location}); not dropped"
            )
        try:
            return Dropped(ref, committer.drop(ref, base))
        except Conflict:
            retry.pause(attempt)
    raise CommitConflictError(
        f"{ref}: it kept changing while being dropped; not dropped",
        attempts=retry.max_attempts,
    )
