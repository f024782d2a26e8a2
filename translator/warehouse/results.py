"""What the warehouse's operations return: plain data for the library caller and the CLI."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from translator.errors import Diagnostic, TranslatorError
from translator.history import RollbackStep
from translator.ir import SkippedStatement
from translator.merge import Change
from translator.metadata import UdfMetadata, deep_copy
from translator.warehouse.commit import Committed
from translator.warehouse.journal import Journal
from translator.warehouse.layout import FunctionRef
from translator.warehouse.resolve import Resolved

__all__ = ["ApplyResult", "Dropped", "PointInTime", "PrivateCopies", "RollbackResult"]


class PrivateCopies(Mapping[FunctionRef, UdfMetadata | None]):
    """Each function's metadata after an apply, copied for the caller when first read.

    A merge result shares every definition a statement did not change with the metadata it was
    merged into, here the warehouse cache's own objects, which nothing may change. A deep copy
    of a long history costs as much as parsing it, and most callers never look at the plan's
    metadata (a migration reads the committed files), so the copy is made only for what is
    read: the commit itself copies nothing, and no caller gets an object the cache holds.
    """

    def __init__(self, shared: Mapping[FunctionRef, UdfMetadata | None]) -> None:
        self._shared = dict(shared)
        self._copies: dict[FunctionRef, UdfMetadata | None] = {}

    def __getitem__(self, ref: FunctionRef) -> UdfMetadata | None:
        if ref in self._copies:
            return self._copies[ref]
        meta = self._shared[ref]
        mine = None if meta is None else deep_copy(meta)
        self._copies[ref] = mine
        return mine

    def __iter__(self) -> Iterator[FunctionRef]:
        return iter(self._shared)

    def __len__(self) -> int:
        return len(self._shared)

    def __repr__(self) -> str:
        return f"PrivateCopies({sorted(map(str, self._shared))})"


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
    #: Each named function's metadata after the statements (None: dropped), i.e. the plan;
    #: each is the caller's own copy (:class:`PrivateCopies`).
    functions: Mapping[FunctionRef, UdfMetadata | None] = field(default_factory=dict)
    #: With ``keep_journal``: the crash journal, for the caller to clear once it has recorded
    #: the apply (see :mod:`translator.warehouse.journal`).
    journal: Journal | None = None

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
