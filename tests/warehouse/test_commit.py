"""The committer (translator.warehouse.commit): a stale base never overwrites a newer state, a
drop that raced a commit is undone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.warehouse.helpers import (
    CREATE_INT,
    replace_int,
    warehouse,
)
from translator.warehouse import (
    FunctionRef,
)


def test_a_writer_racing_a_drop_cannot_resurrect_the_function(tmp_path: Path) -> None:
    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    ref = FunctionRef("default", "add_one")
    stale = wh.committer.base(ref)
    assert stale is not None
    wh.drop("add_one")
    from translator.warehouse.commit import Conflict

    with pytest.raises(Conflict):
        wh.committer.commit(ref, stale, stale.metadata.model_copy(deep=True))
    assert not (tmp_path / "default" / "add_one").exists()


def test_a_drop_that_raced_a_commit_is_undone_and_retried(tmp_path: Path) -> None:
    from translator.warehouse.commit import Conflict

    wh = warehouse(tmp_path)
    wh.apply(CREATE_INT, "trino").raise_for_errors()
    ref = FunctionRef("default", "add_one")
    stale = wh.committer.base(ref)
    assert stale is not None
    wh.apply(replace_int(2), "trino").raise_for_errors()  # lands after the drop decided
    with pytest.raises(Conflict):
        wh.committer.drop(ref, stale)
    assert wh.load("add_one").version == 2  # moved back, untouched
    assert not list((tmp_path / "default" / ".dropped").iterdir())
    wh.apply("DROP FUNCTION add_one(integer);", "trino").raise_for_errors()
    assert wh.functions() == []
