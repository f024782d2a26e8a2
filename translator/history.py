"""A function's history: the state at a definition-log entry or a time, and rollback.

Dialect-free and storage-free: :func:`translator.emit.emit_ddl` (``as_of``) and the warehouse
(``at``, ``show``, ``emit``, ``rollback``) both answer "which versions were current then" here.

A log entry is the function's "snapshot": it maps every definition to the version current from
its timestamp on. Two ways to name one, exclusive (giving both is an error, as in ClickHouse):

* ``as_of`` (unix epoch ms): the last entry at or before that time; a time before the first
  entry is an error (the function did not exist yet);
* ``log_entry`` N: the N-th entry of the log, counting from 1, as ``history`` numbers them.
  (This is deliberately *not* a definition ``version-id``: one number names a state of the whole
  function, the way a snapshot id names a state of a table; a definition's version-id is picked
  by :func:`translator.emit.select_versions`.)

A *view* at an entry is the metadata as it looked then: only the definitions the entry maps,
each at the mapped version, versions and log entries from after that time left out. Rollback
appends a new entry (and a new metadata file) that makes those versions current again; no
version is ever deleted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from translator.errors import Diagnostic, HistoryError
from translator.metadata import (
    Definition,
    DefinitionLogEntry,
    DefinitionVersion,
    DefinitionVersionRef,
    UdfMetadata,
    deep_copy,
)

__all__ = [
    "RollbackStep",
    "dropped_since",
    "entry_index",
    "rollback",
    "version_at",
    "versions_at",
    "view_at",
]


def entry_index(
    meta: UdfMetadata, *, as_of: int | None = None, log_entry: int | None = None
) -> int:
    """The 1-based number of the log entry that ``as_of`` or ``log_entry`` names (the latest
    entry when neither is given)."""
    log = meta.definition_log
    if as_of is not None and log_entry is not None:
        raise HistoryError("give a log entry (log_entry) or a time (as_of), not both")
    if log_entry is not None:
        if not 1 <= log_entry <= len(log):
            raise HistoryError(
                f"there is no log entry {log_entry}: the definition-log has entries 1..{len(log)}"
            )
        return log_entry
    if as_of is not None:
        index = 0
        for i, e in enumerate(log, 1):
            if e.timestamp_ms <= as_of:
                index = i
        if index == 0:
            first = log[0].timestamp_ms if log else None
            raise HistoryError(
                f"{as_of} is before the first definition-log entry ({first}): "
                "the function did not exist yet"
            )
        return index
    if not log:
        raise HistoryError("the definition-log is empty: there is no point in time to pick")
    return len(log)


def versions_at(meta: UdfMetadata, index: int) -> dict[str, int]:
    """definition-id -> the version current at log entry ``index`` (1-based), as the entry
    maps them (a definition dropped since is still named)."""
    entry = meta.definition_log[index - 1]
    return {r.definition_id: r.version_id for r in entry.definition_versions}


def version_at(d: Definition, wanted: int, index: int) -> DefinitionVersion:
    """Version ``wanted`` of ``d``, which log entry ``index`` names; refused if ``d`` lacks it."""
    v = d.version(wanted)
    if v is None:
        raise HistoryError(
            f"log entry {index} names version {wanted} of ({d.definition_id}), "
            "which the definition does not have"
        )
    return v


def dropped_since(meta: UdfMetadata, index: int) -> list[Diagnostic]:
    """A warning for each definition log entry ``index`` maps that the metadata no longer has."""
    existing = {d.definition_id for d in meta.definitions}
    return [
        Diagnostic(
            "dropped-definition",
            f"definition ({gone}) was current at log entry {index} but has been dropped "
            "since: its versions are no longer in the metadata",
        )
        for gone in sorted(set(versions_at(meta, index)) - existing)
    ]


def view_at(meta: UdfMetadata, index: int) -> tuple[UdfMetadata, list[Diagnostic]]:
    """The metadata as it was at log entry ``index`` (1-based); a deep copy of what the view
    keeps only (the entries up to ``index``, the definitions it maps): the rest of a long
    history would cost more to copy than the view itself."""
    entry = meta.definition_log[index - 1]
    chosen = versions_at(meta, index)
    trimmed = meta.model_copy()  # shallow: the fields below are new lists, nothing is changed
    trimmed.definition_log = meta.definition_log[:index]
    trimmed.definitions = [d for d in meta.definitions if d.definition_id in chosen]
    view = deep_copy(trimmed)
    for d in view.definitions:
        wanted = version_at(d, chosen[d.definition_id], index).version_id
        d.versions = [
            v for v in d.versions if v.timestamp_ms <= entry.timestamp_ms or v.version_id == wanted
        ]
        d.current_version_id = wanted
    return view, dropped_since(meta, index)


@dataclass(frozen=True, slots=True)
class RollbackStep:
    """One definition's move: from the current version to the earlier one."""

    definition_id: str
    from_version: int
    to_version: int

    def __str__(self) -> str:
        return f"({self.definition_id}) v{self.from_version} -> v{self.to_version}"


def rollback(
    meta: UdfMetadata, index: int, clock: Callable[[], int]
) -> tuple[UdfMetadata | None, list[RollbackStep], list[Diagnostic]]:
    """Make log entry ``index``'s versions current again: a new metadata (sharing what it does
    not change with ``meta``, as a merge's result does), or None if they are.

    Definitions created after that entry are kept at their current versions (and reported):
    rollback never deletes. A definition dropped since cannot be restored from this metadata.
    """
    chosen = versions_at(meta, index)
    gone = sorted(d for d in chosen if meta.definition(d) is None)
    if gone:
        raise HistoryError(
            f"log entry {index} maps definition(s) {', '.join(f'({g})' for g in gone)} that "
            "have been dropped since; rollback cannot bring them back: create them again"
        )
    steps: list[RollbackStep] = []
    warnings: list[Diagnostic] = []
    moved: dict[int, int] = {}  # a definition's position -> the version made current again
    for i, d in enumerate(meta.definitions):
        if d.definition_id not in chosen:
            warnings.append(
                Diagnostic(
                    "kept-definition",
                    f"definition ({d.definition_id}) did not exist at log entry {index}; it "
                    f"stays at its current version {d.current_version_id}",
                )
            )
            continue
        wanted = version_at(d, chosen[d.definition_id], index).version_id
        if d.current_version_id != wanted:
            steps.append(RollbackStep(d.definition_id, d.current_version_id, wanted))
            moved[i] = wanted
    if not steps:
        return None, steps, warnings
    # As a merge's result does, the new metadata shares what it does not change with ``meta``
    # (never changed): a long history is not copied to move a few definitions.
    out = meta.model_copy()
    definitions = []
    for i, d in enumerate(meta.definitions):
        if i in moved:
            d = d.model_copy()
            d.current_version_id = moved[i]
        definitions.append(d)
    out.definitions = definitions
    last = meta.definition_log[-1].timestamp_ms if meta.definition_log else -1
    out.definition_log = [
        *meta.definition_log,
        DefinitionLogEntry(
            timestamp_ms=max(clock(), last + 1),
            definition_versions=[
                DefinitionVersionRef(definition_id=d.definition_id, version_id=d.current_version_id)
                for d in definitions
            ],
        ),
    ]
    return out, steps, warnings
