"""Time travel and rollback over a function's definition-log.

A log entry is the function's "snapshot": it maps every definition to the version current from
its timestamp on. Two ways to name one, exclusive (giving both is an error, as in ClickHouse):

* ``as_of`` (unix epoch ms): the last entry at or before that time; a time before the first
  entry is an error (the function did not exist yet);
* ``log_entry`` N: the N-th entry of the log, counting from 1, as ``history`` numbers them.
  (This is deliberately *not* a definition ``version-id``: one number names a state of the whole
  function, the way a snapshot id names a state of a table. ``emit_ddl``'s ``version`` (``emit
  --version``) is where a version-id goes.)

A *view* at an entry is the metadata as it looked then: only the definitions the entry maps,
each at the mapped version, versions and log entries from after that time left out. Rollback
appends a new entry (and a new metadata file) that makes those versions current again; no
version is ever deleted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from translator.errors import Diagnostic
from translator.metadata import DefinitionLogEntry, DefinitionVersionRef, UdfMetadata, deep_copy
from translator.warehouse.errors import TimeTravelError, WarehouseError

__all__ = ["RollbackStep", "entry_index", "rollback", "view_at"]


def entry_index(
    meta: UdfMetadata, *, as_of: int | None = None, log_entry: int | None = None
) -> int:
    """The 1-based number of the log entry that ``as_of`` or ``log_entry`` names."""
    log = meta.definition_log
    if as_of is not None and log_entry is not None:
        raise TimeTravelError("give a log entry (log_entry) or a time (as_of), not both")
    if log_entry is not None:
        if not 1 <= log_entry <= len(log):
            raise TimeTravelError(
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
            raise TimeTravelError(
                f"{as_of} is before the first definition-log entry ({first}): "
                "the function did not exist yet"
            )
        return index
    if not log:
        raise TimeTravelError("the definition-log is empty: there is no point in time to pick")
    return len(log)


def view_at(meta: UdfMetadata, index: int) -> tuple[UdfMetadata, list[Diagnostic]]:
    """The metadata as it was at log entry ``index`` (1-based); a deep copy."""
    entry = meta.definition_log[index - 1]
    chosen = {r.definition_id: r.version_id for r in entry.definition_versions}
    view = deep_copy(meta)
    view.definition_log = view.definition_log[:index]
    warnings: list[Diagnostic] = []
    kept = []
    for d in view.definitions:
        if d.definition_id not in chosen:
            continue  # created after that entry
        wanted = chosen[d.definition_id]
        if d.version(wanted) is None:
            raise WarehouseError(
                f"log entry {index} names version {wanted} of ({d.definition_id}), "
                "which the definition does not have"
            )
        d.versions = [
            v for v in d.versions if v.timestamp_ms <= entry.timestamp_ms or v.version_id == wanted
        ]
        d.current_version_id = wanted
        kept.append(d)
    view.definitions = kept
    for gone in sorted(set(chosen) - {d.definition_id for d in kept}):
        warnings.append(
            Diagnostic(
                "dropped-definition",
                f"definition ({gone}) was current at log entry {index} but has been dropped "
                "since: its versions are no longer in the metadata",
            )
        )
    return view, warnings


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
    """Make log entry ``index``'s versions current again: a new metadata, or None if they are.

    Definitions created after that entry are kept at their current versions (and reported):
    rollback never deletes. A definition dropped since cannot be restored from this metadata.
    """
    entry = meta.definition_log[index - 1]
    chosen = {r.definition_id: r.version_id for r in entry.definition_versions}
    gone = sorted(d for d in chosen if meta.definition(d) is None)
    if gone:
        raise WarehouseError(
            f"log entry {index} maps definition(s) {', '.join(f'({g})' for g in gone)} that "
            "have been dropped since; rollback cannot bring them back: create them again"
        )
    out = deep_copy(meta)
    steps: list[RollbackStep] = []
    warnings: list[Diagnostic] = []
    for d in out.definitions:
        if d.definition_id not in chosen:
            warnings.append(
                Diagnostic(
                    "kept-definition",
                    f"definition ({d.definition_id}) did not exist at log entry {index}; it "
                    f"stays at its current version {d.current_version_id}",
                )
            )
            continue
        wanted = chosen[d.definition_id]
        if d.version(wanted) is None:
            raise WarehouseError(
                f"log entry {index} names version {wanted} of ({d.definition_id}), "
                "which the definition does not have"
            )
        if d.current_version_id != wanted:
            steps.append(RollbackStep(d.definition_id, d.current_version_id, wanted))
            d.current_version_id = wanted
    if not steps:
        return None, steps, warnings
    last = out.definition_log[-1].timestamp_ms if out.definition_log else -1
    out.definition_log.append(
        DefinitionLogEntry(
            timestamp_ms=max(clock(), last + 1),
            definition_versions=[
                DefinitionVersionRef(definition_id=d.definition_id, version_id=d.current_version_id)
                for d in out.definitions
            ],
        )
    )
    return out, steps, warnings
