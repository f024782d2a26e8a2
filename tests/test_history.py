"""translator.history on its own: the state at a log entry or a time, and rollback, without a
warehouse (the warehouse and emit tests cover it through their callers)."""

from __future__ import annotations

import pytest

from tests.warehouse.helpers import CREATE_DOUBLE, CREATE_INT, T0, fixed_context, replace_int
from translator.api import compile_script
from translator.errors import HistoryError
from translator.history import (
    RollbackStep,
    dropped_since,
    entry_index,
    rollback,
    version_at,
    versions_at,
    view_at,
)
from translator.metadata import UdfMetadata, dump_metadata


def _three_entries() -> UdfMetadata:
    """Log: 1 int v1 (T0) | 2 int v1, double v1 (T0+1000) | 3 int v2, double v1 (T0+2000)."""
    context = fixed_context()
    meta = compile_script(CREATE_INT + CREATE_DOUBLE, "trino", context=context).metadata
    out = compile_script(replace_int(2), "trino", into=meta, context=context).metadata
    assert out is not None and len(out.definition_log) == 3
    return out


def test_entry_index_by_number_by_time_and_by_default() -> None:
    meta = _three_entries()
    assert entry_index(meta) == 3
    assert entry_index(meta, log_entry=2) == 2
    assert entry_index(meta, as_of=T0) == 1
    assert entry_index(meta, as_of=T0 + 1500) == 2
    assert entry_index(meta, as_of=T0 + 10**9) == 3
    with pytest.raises(HistoryError, match=r"entries 1\.\.3"):
        entry_index(meta, log_entry=4)
    with pytest.raises(HistoryError, match="the function did not exist yet"):
        entry_index(meta, as_of=T0 - 1)
    with pytest.raises(HistoryError, match="not both"):
        entry_index(meta, as_of=T0, log_entry=1)


def test_versions_and_view_at_an_entry_leave_the_metadata_alone() -> None:
    meta = _three_entries()
    before = dump_metadata(meta)
    assert versions_at(meta, 1) == {"int": 1}
    assert versions_at(meta, 3) == {"int": 2, "double": 1}
    view, warnings = view_at(meta, 2)
    assert warnings == []
    assert [(d.definition_id, d.current_version_id) for d in view.definitions] == [
        ("int", 1),
        ("double", 1),
    ]
    assert [v.version_id for v in view.definitions[0].versions] == [1]
    assert len(view.definition_log) == 2
    assert dump_metadata(meta) == before


def test_a_version_the_log_names_but_the_definition_lacks_is_refused() -> None:
    meta = _three_entries()
    int_def = meta.definition("int")
    assert int_def is not None
    assert version_at(int_def, 2, 3).version_id == 2
    with pytest.raises(HistoryError, match=r"log entry 3 names version 9 of \(int\)"):
        version_at(int_def, 9, 3)


def test_a_dropped_definition_is_reported() -> None:
    meta = _three_entries()
    dropped = compile_script(
        "DROP FUNCTION add_one(double);", "trino", into=meta, context=fixed_context(T0 + 10**6)
    ).metadata
    assert dropped is not None
    assert dropped_since(dropped, 4) == []
    (warning,) = dropped_since(dropped, 2)
    assert warning.code == "dropped-definition" and "(double)" in warning.message
    _, warnings = view_at(dropped, 2)
    assert warnings == [warning]


def test_rollback_appends_an_entry_and_keeps_later_definitions() -> None:
    meta = _three_entries()
    new, steps, warnings = rollback(meta, 1, lambda: T0)
    assert new is not None
    assert steps == [RollbackStep("int", 2, 1)] and str(steps[0]) == "(int) v2 -> v1"
    assert [w.code for w in warnings] == ["kept-definition"]
    assert len(new.definition_log) == 4
    assert new.definition_log[-1].timestamp_ms == T0 + 2001  # never before the last entry
    assert versions_at(new, 4) == {"int": 1, "double": 1}
    assert rollback(meta, 3, lambda: T0) == (None, [], [])


def test_rollback_shares_what_it_does_not_change_and_changes_nothing_it_was_given() -> None:
    """As a merge's result, the rolled-back metadata shares the unchanged definitions and the
    old log entries with the metadata it was made from, which stays as it was."""
    meta = _three_entries()
    before = dump_metadata(meta)
    new, _, _ = rollback(meta, 1, lambda: T0)
    assert new is not None and dump_metadata(meta) == before
    moved, kept = new.definitions
    assert kept is meta.definitions[1] and moved is not meta.definitions[0]
    assert (moved.current_version_id, meta.definitions[0].current_version_id) == (1, 2)
    assert all(a is b for a, b in zip(new.definition_log, meta.definition_log, strict=False))
    assert new.definitions is not meta.definitions
    assert new.definition_log is not meta.definition_log
