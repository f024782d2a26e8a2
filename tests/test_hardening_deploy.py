"""Issue 15, class 8: deploying the same plain CREATE FUNCTION twice changes nothing; a
different one is the conflict."""

from __future__ import annotations

from pathlib import Path

import pytest

from translator.api import compile_script
from translator.errors import MergeError
from translator.warehouse import Warehouse

CREATE = {
    "spark": "CREATE FUNCTION ns.f(x INT) RETURNS INT COMMENT 'one' RETURN x + 1",
    "trino": "CREATE FUNCTION f(x integer) RETURNS integer SECURITY INVOKER RETURN x + 1",
}


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_deploying_the_same_plain_create_twice_changes_nothing(
    dialect: str, tmp_path: Path
) -> None:
    wh = Warehouse(tmp_path / "wh")
    first = wh.apply(CREATE[dialect], dialect).raise_for_errors()
    assert len(first.committed) == 1
    again = wh.apply(CREATE[dialect], dialect).raise_for_errors()
    assert again.committed == []
    assert [c.action for c in again.changes] == ["unchanged"]
    # in one script too, and through compile --into
    twice = compile_script(CREATE[dialect] + ";\n" + CREATE[dialect], dialect)
    assert twice.errors == []
    assert [c.action for c in twice.changes] == ["created-function", "unchanged"]


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_a_different_plain_create_is_still_the_conflict(dialect: str) -> None:
    changed = CREATE[dialect].replace("x + 1", "x + 2")
    result = compile_script(CREATE[dialect] + ";\n" + changed, dialect)
    assert [type(e) for e in result.errors] == [MergeError]
    assert "already exists" in result.errors[0].message
