"""The reader's shortcuts for long histories report exactly what the full checks report.

A log's references are judged first without paths (``validate._refs_pass``), and repeated keys
are looked for only in a document whose decoder met one (``read._duplicate_keys``). Each bad
reference below, in an older entry and in the latest, must give the problems the full check
gives, and the repeated keys of a document their paths in document order.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import FIXTURES
from translator.errors import MetadataError
from translator.metadata import load_metadata, validate_metadata
from translator.metadata import validate as validate_module
from translator.metadata.problems import INT_MAX


def _base() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((FIXTURES / "metadata/valid/two-definitions.json").read_text())
    return doc


#: One reference of a log entry replaced: each is something the checks must report.
BAD_REFS: dict[str, Any] = {
    "not an object": [1],
    "no definition-id": {"version-id": 1},
    "no version-id": {"definition-id": "int"},
    "id not a string": {"definition-id": 7, "version-id": 1},
    "version a string": {"definition-id": "int", "version-id": "1"},
    "version a boolean": {"definition-id": "int", "version-id": True},
    "version a float": {"definition-id": "int", "version-id": 1.0},
    "version negative": {"definition-id": "int", "version-id": -1},
    "version too large": {"definition-id": "int", "version-id": INT_MAX + 1},
    "unknown version": {"definition-id": "int", "version-id": 9},
    "named twice": {"definition-id": "int", "version-id": 1},
    "unknown definition": {"definition-id": "gone", "version-id": 1},
}


def _with_ref(entry: int, bad: Any) -> dict[str, Any]:
    doc = _base()
    refs = doc["definition-log"][entry]["definition-versions"]
    refs[-1] = (
        bad  # entry 1's last reference names the second definition; "named twice" repeats int
    )
    return doc


def _full_check(doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    with monkeypatch.context() as m:
        m.setattr(validate_module, "_refs_pass", lambda *_: False)
        return validate_metadata(doc)


@pytest.mark.parametrize("entry", [1, 2])
@pytest.mark.parametrize("name", sorted(BAD_REFS))
def test_a_bad_reference_is_reported_as_the_full_check_reports_it(
    name: str, entry: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = _with_ref(entry, BAD_REFS[name])
    expected = _full_check(doc, monkeypatch)
    latest_only = name == "unknown definition" and entry == 1  # an older entry may name one
    assert bool(expected) is not latest_only
    assert validate_metadata(doc) == expected


def test_every_entry_of_a_valid_log_takes_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    verdicts: list[bool] = []
    shortcut = validate_module._refs_pass

    def spy(*args: Any) -> bool:
        verdicts.append(shortcut(*args))
        return verdicts[-1]

    monkeypatch.setattr(validate_module, "_refs_pass", spy)
    assert validate_metadata(_base()) == []
    assert verdicts == [True, True, True]


def test_repeated_keys_are_reported_in_document_order_once_each() -> None:
    text = json.dumps(_base())
    text = text.replace('"version-id": 2,', '"version-id": 2, "version-id": 2, "version-id": 2,', 1)
    text = text.replace('"format-version": 1', '"format-version": 1, "format-version": 1', 1)
    text = text.replace(
        '"timestamp-ms": 1734507001000', '"timestamp-ms": 0, "timestamp-ms": 1734507001000'
    )
    with pytest.raises(MetadataError) as info:
        load_metadata(text)
    message = "key appears more than once in the same object"
    assert info.value.problems == [
        ("$.format-version", message),
        ("$.definitions[0].versions[1].version-id", message),
        ("$.definitions[1].versions[0].timestamp-ms", message),
        ("$.definition-log[1].timestamp-ms", message),
    ]
