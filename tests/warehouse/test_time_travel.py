"""Reading a function at a log entry or a time, and rolling back to one (translator.history
through the Warehouse)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.warehouse.helpers import (
    T0,
    assert_every_file_valid,
    current_versions,
    history_warehouse,
    metadata_files,
    replace_int,
)
from translator.warehouse import (
    TimeTravelError,
    WarehouseError,
)


def test_as_of_and_log_entry_pick_the_versions_current_then(tmp_path: Path) -> None:
    wh = history_warehouse(tmp_path)
    assert current_versions(wh.at("add_one").metadata) == {"int": 3, "double": 1}
    assert current_versions(wh.at("add_one", as_of=T0).metadata) == {"int": 1}
    assert current_versions(wh.at("add_one", as_of=T0 + 1500).metadata) == {"int": 1, "double": 1}
    p = wh.at("add_one", log_entry=3)
    assert p.log_entry == 3 and current_versions(p.metadata) == {"int": 2, "double": 1}
    int_def = p.metadata.definition("int")
    assert int_def is not None and [v.version_id for v in int_def.versions] == [1, 2]
    assert len(p.metadata.definition_log) == 3
    assert p.resolved.version == 3  # read from the current file


def test_time_travel_errors(tmp_path: Path) -> None:
    wh = history_warehouse(tmp_path)
    with pytest.raises(TimeTravelError, match="before the first definition-log entry"):
        wh.at("add_one", as_of=T0 - 1)
    with pytest.raises(TimeTravelError, match="not both"):
        wh.at("add_one", as_of=T0, log_entry=1)
    with pytest.raises(TimeTravelError, match=r"entries 1\.\.4"):
        wh.at("add_one", log_entry=5)


def test_a_dropped_definition_is_reported_when_travelling_back(tmp_path: Path) -> None:
    wh = history_warehouse(tmp_path)
    wh.apply("DROP FUNCTION add_one(double);", "trino").raise_for_errors()
    p = wh.at("add_one", log_entry=2)
    assert current_versions(p.metadata) == {"int": 1}
    assert [w.code for w in p.warnings] == ["dropped-definition"]
    with pytest.raises(WarehouseError, match="dropped since"):
        wh.rollback("add_one", log_entry=2)


def test_rollback_appends_an_entry_and_a_file_and_deletes_nothing(tmp_path: Path) -> None:
    wh = history_warehouse(tmp_path)
    r = wh.rollback("add_one", log_entry=2)
    assert [str(s) for s in r.steps] == ["(int) v3 -> v1"]
    assert r.committed is not None and r.committed.version == 4
    meta = wh.load("add_one").metadata
    assert current_versions(meta) == {"int": 1, "double": 1}
    int_def = meta.definition("int")
    assert int_def is not None and [v.version_id for v in int_def.versions] == [1, 2, 3]
    assert len(meta.definition_log) == 5
    last = meta.definition_log[-1]
    assert {(x.definition_id, x.version_id) for x in last.definition_versions} == {
        ("int", 1),
        ("double", 1),
    }
    assert last.timestamp_ms > meta.definition_log[-2].timestamp_ms
    # Already current: nothing written.
    again = wh.rollback("add_one", log_entry=2)
    assert again.committed is None and again.steps == []
    # By time, to when v2 was current; definitions created later are kept (and reported).
    by_time = wh.rollback("add_one", as_of=T0 + 2500)
    assert [str(s) for s in by_time.steps] == ["(int) v1 -> v2"]
    first = wh.rollback("add_one", log_entry=1)
    assert [w.code for w in first.warnings] == ["kept-definition"]
    assert current_versions(wh.load("add_one").metadata) == {"int": 1, "double": 1}
    assert len(metadata_files(tmp_path)) == 6
    assert assert_every_file_valid(tmp_path) == 6
    # Applying after a rollback continues from the highest version id.
    wh.apply(replace_int(9), "trino").raise_for_errors()
    assert current_versions(wh.load("add_one").metadata)["int"] == 4
