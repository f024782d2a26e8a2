"""The warehouse's errors: all are :class:`~translator.errors.TranslatorError`, so the CLI reports
them like any other bad input (exit 1) and a library caller catches one root class."""

from __future__ import annotations

from translator.errors import HistoryError, MetadataError, TranslatorError

__all__ = [
    "AmbiguousMetadataError",
    "CommitConflictError",
    "FunctionChangedError",
    "FunctionNotFoundError",
    "HistoryWouldBeLostError",
    "OptionError",
    "TimeTravelError",
    "UnreadableMetadataError",
    "UnsupportedStorageError",
    "WarehouseError",
]


class WarehouseError(TranslatorError):
    """The warehouse cannot do what was asked: a broken layout, an unreadable file, a bad name."""

    code = "warehouse"


class FunctionNotFoundError(WarehouseError):
    """No metadata file (or catalog entry) exists for the named function."""

    code = "not-found"


class FunctionChangedError(WarehouseError):
    """The function is no longer what the caller's precondition asked for (it changed since the
    caller read it): the change that depended on it was not made."""

    code = "changed"


class CommitConflictError(WarehouseError):
    """Other writers kept committing first: the change was not committed after every retry."""

    code = "conflict"

    def __init__(self, message: str, *, attempts: int = 0) -> None:
        super().__init__(message)
        self.attempts = attempts


class HistoryWouldBeLostError(WarehouseError):
    """A change to an existing function of a catalog that can only drop and create it again
    (a REST catalog: no update endpoint), which would discard the function's history; refused
    unless the caller allows it explicitly."""

    code = "history-would-be-lost"


class OptionError(WarehouseError):
    """Options that do not go together, or not with this warehouse. The message names the
    parameters; ``reason`` is a short key for the case, so that a front end can say it in its own
    words (the command line names its flags)."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class AmbiguousMetadataError(WarehouseError):
    """Two metadata files of one function claim the same version number, so which is newest
    cannot be told: one was not written by this tool's commit protocol. ``files`` holds both
    (relative to the warehouse), so a caller can read one of them explicitly."""

    def __init__(self, message: str, files: tuple[str, str]) -> None:
        super().__init__(message)
        self.files = files


class TimeTravelError(WarehouseError, HistoryError):
    """A point in time that the definition-log cannot answer (before the first entry, both
    ``as_of`` and ``log_entry`` given, an entry number out of range), or a rollback that
    :mod:`translator.history` cannot make: a :class:`WarehouseError` and a
    :class:`~translator.errors.HistoryError`."""

    code = "time-travel"


class UnsupportedStorageError(WarehouseError):
    """A storage URL whose file system offers no atomic create-if-absent, or a missing extra."""

    code = "storage"


class UnreadableMetadataError(MetadataError):
    """A function's metadata file is corrupt, which blocks every read and write that needs it:
    ``previous`` names the file before it (None: there is none), for the recovery hint."""

    code = "unreadable"

    def __init__(
        self,
        message: str,
        *,
        path: str,
        previous: str | None,
        problems: list[tuple[str, str]] | None = None,
    ) -> None:
        super().__init__(message, problems)
        self.path = path
        self.previous = previous
