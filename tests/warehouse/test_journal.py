"""The journal of an apply (translator.warehouse.journal): each record is a new file under the
apply's name, replacing what an earlier record or an interrupted run left there."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from translator.warehouse.journal import JOURNAL_DIR, Journal
from translator.warehouse.layout import FunctionRef
from translator.warehouse.store import LocalStore


class CountingStore(LocalStore):
    """A local store that counts its removals (the files are real)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.removed: list[str] = []

    def remove(self, rel: str) -> None:
        self.removed.append(rel)
        super().remove(rel)


def _functions(path: Path) -> list[str]:
    return [f["name"] for f in json.loads(path.read_text("utf-8"))["functions"]]


def test_a_first_record_removes_nothing_and_a_second_is_a_new_file(tmp_path: Path) -> None:
    store = CountingStore(tmp_path)
    journal = Journal(store, "k", carry={"file": "a.sql"})
    journal.record({FunctionRef("default", "f"): None})
    path = tmp_path / JOURNAL_DIR / "k.json"
    assert store.removed == [] and journal.written and _functions(path) == ["f"]
    os.link(path, tmp_path / "linked.json")  # as the ledger links it
    journal.record({FunctionRef("default", "g"): "default/g/metadata/1.json"})
    assert store.removed == [journal.rel]
    assert _functions(path) == ["f", "g"]
    assert _functions(tmp_path / "linked.json") == ["f"]  # the linked file was not rewritten
    assert json.loads(path.read_text("utf-8"))["file"] == "a.sql"


@pytest.mark.parametrize("anonymous", [True, False], ids=["nameless", "temporary-name"])
def test_an_interrupted_runs_journal_is_replaced(tmp_path: Path, anonymous: bool) -> None:
    store = CountingStore(tmp_path)
    store.anonymous_creates = anonymous and store.anonymous_creates
    (tmp_path / JOURNAL_DIR).mkdir()
    stale = tmp_path / JOURNAL_DIR / "k.json"
    stale.write_text('{"functions": [{"namespace": "default", "name": "old"}]}', "utf-8")
    journal = Journal(store, "k")
    assert journal.recorded() == {FunctionRef("default", "old"): None}
    journal.record({FunctionRef("default", "f"): None})
    assert store.removed == [journal.rel] and _functions(stale) == ["f"]
    assert os.listdir(tmp_path / JOURNAL_DIR) == ["k.json"]
    journal.clear()
    assert os.listdir(tmp_path / JOURNAL_DIR) == [] and not journal.written
