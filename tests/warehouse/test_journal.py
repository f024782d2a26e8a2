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


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        '{"functions": 5}',
        '{"functions": [1]}',
        '{"functions": [{"namespace": "ns"}]}',
        '{"functions": [{"namespace": "ns", "name": "f", "base": 7}]}',
        '{"functions": [{"namespace": "..", "name": "f"}]}',
        "{not json",
    ],
)
def test_a_malformed_journal_is_refused_with_its_path(tmp_path: Path, text: str) -> None:
    """A journal file may hold anything: each malformed shape is one WarehouseError naming the
    file and what to do, never a Python error from reading it."""
    from translator.warehouse import WarehouseError

    (tmp_path / JOURNAL_DIR).mkdir()
    journal = Journal(LocalStore(tmp_path), "k")
    (tmp_path / JOURNAL_DIR / "k.json").write_text(text)
    with pytest.raises(WarehouseError) as e:
        journal.recorded()
    message = str(e.value)
    assert "k.json: unreadable journal of an interrupted apply" in message
    assert message.endswith("delete it to apply from scratch")


def test_a_journal_that_cannot_be_opened_is_not_called_unreadable(tmp_path: Path) -> None:
    """An error of the system (here a folder where the file should be: EISDIR) says that the
    file could not be read, not that its content is bad and should be deleted."""
    from translator.warehouse import WarehouseError

    (tmp_path / JOURNAL_DIR / "k.json").mkdir(parents=True)
    with pytest.raises(WarehouseError) as e:
        Journal(LocalStore(tmp_path), "k").recorded()
    assert "cannot read the journal of an interrupted apply" in str(e.value)
    assert "delete it" not in str(e.value)


def test_a_well_formed_journal_reads_back_as_recorded(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    journal = Journal(store, "k")
    bases = {FunctionRef("ns", "f"): None, FunctionRef("ns", "g"): "ns/g/metadata/x.json"}
    journal.record(bases)
    assert Journal(store, "k").recorded() == bases


@pytest.mark.parametrize(
    "base",
    [
        "/etc/passwd",
        "../../../etc/hostname",
        "ns/f/metadata/..",
        "ns/f/metadata/",
        "ns/f/metadata/sub/00001-x.metadata.json",
        "ns/g/metadata/00001-x.metadata.json",
        "ns/f/00001-x.metadata.json",
    ],
)
def test_a_base_outside_the_functions_metadata_folder_is_refused(tmp_path: Path, base: str) -> None:
    """A journal is a file anyone who can write the warehouse may have made: a base it names is
    read back by a re-run, so it must be a file of that function's metadata folder, never a
    path that leads elsewhere (nothing outside is read)."""
    from translator.warehouse import WarehouseError

    (tmp_path / JOURNAL_DIR).mkdir()
    doc = {"functions": [{"namespace": "ns", "name": "f", "base": base}]}
    (tmp_path / JOURNAL_DIR / "k.json").write_text(json.dumps(doc))
    with pytest.raises(WarehouseError) as e:
        Journal(LocalStore(tmp_path), "k").recorded()
    assert "unreadable journal of an interrupted apply" in str(e.value)
    assert "is not a file in its metadata folder" in str(e.value)


def test_a_base_that_cannot_be_read_is_a_warehouse_error(tmp_path: Path) -> None:
    """A folder where the recorded base file should be (EISDIR): the re-run says which file it
    could not read, not a Python error."""
    from translator.warehouse import WarehouseError
    from translator.warehouse.journal import committed_before

    ref = FunctionRef("ns", "f")
    base = "ns/f/metadata/00001-x.metadata.json"
    (tmp_path / base).mkdir(parents=True)
    with pytest.raises(WarehouseError) as e:
        committed_before(
            {ref: base}, {ref: "ns/f/metadata/00002-y.metadata.json"}, LocalStore(tmp_path)
        )
    assert "cannot read the base the interrupted apply recorded for ns.f" in str(e.value)
