"""Our verdict on every iceberg-go conformance document, and the places we depart from it.

iceberg-go is a peer's reading of the spec, not the spec. Where it is looser or stricter than the
spec text we follow the spec, and the departure is written down in :data:`DEPARTURES` with the
reason; anything else that disagrees fails here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import SHARED, assert_rest_schema_valid
from translator.metadata import (
    Problem,
    UdfMetadata,
    dump_metadata,
    load_metadata,
    validate_metadata,
)

CONFORMANCE = SHARED / "conformance" / "iceberg-go"
FILES = sorted(p.name for p in CONFORMANCE.glob("*.json"))

pytestmark = pytest.mark.skipif(not FILES, reason=f"no conformance data at {CONFORMANCE}")

_UUID = "the REST schema says `format: uuid`: the RFC 9562 hyphenated 8-4-4-4-12 string form"
_LOG_BACKWARDS = (
    "a log timestamp goes back in time (builder test used SetLogTimestampMS with a small value "
    "after a base log ending at 1735507000124); time travel needs a non-decreasing log"
)
_NEGATIVE_TS = (
    "the spec does not forbid negative epoch millis (CASES.md says so): we accept; "
    "the file has no other problem"
)

#: file -> why our verdict differs from iceberg-go's (the file-name prefix).
DEPARTURES: dict[str, str] = {
    "valid-go-behavior-uuid-urn.json": f"urn:uuid: form rejected: {_UUID}",
    "valid-go-behavior-uuid-braced.json": f"braced form rejected: {_UUID}",
    "valid-go-behavior-uuid-no-dashes.json": f"32-hex form rejected: {_UUID}",
    "valid-go-behavior-case-insensitive-keys.json": (
        "field names are the spec's, exactly; FORMAT-VERSION is an unknown key, so format-version "
        "and function-uuid are missing (Go's encoding/json matches keys case-insensitively)"
    ),
    "valid-go-behavior-non-monotonic-version-ids.json": (
        "spec: version-id is a monotonically increasing identifier; 5 then 2 is not"
    ),
    "valid-go-behavior-log-references-unknown-definition.json": (
        "the latest log entry must map existing definitions to existing versions; it names 'nope'"
    ),
    "valid-go-behavior-struct-field-name-with-comma.json": (
        "a raw ',' in a field name makes the definition-id ambiguous (struct<a,b:int>), and the "
        "spec allows only one definition per signature; also its latest log entry names 'int'"
    ),
    "valid-go-behavior-type-geometry-mixed-case.json": (
        "type strings and the definition-id must be the canonical lower-case 'geometry'"
    ),
    "valid-go-behavior-empty-specific-names-not-unique-checked.json": (
        "spec (REST schema): specific-name is a unique user-assigned name; '' twice is neither "
        "a name nor unique"
    ),
    "valid-go-behavior-type-timestamp-ns.json": (
        "timestamp_ns itself is accepted (see test_timestamp_ns_probe_is_valid_once_repaired), "
        "but the probe's latest log entry names definition 'int', which does not exist"
    ),
    "valid-builder-remove-definition.json": f"{_LOG_BACKWARDS} (5000)",
    "valid-builder-from-base-add-version.json": f"{_LOG_BACKWARDS} (3000)",
    "valid-builder-rollback.json": f"{_LOG_BACKWARDS} (4000)",
    "invalid-negative-version-timestamp-ms.json": _NEGATIVE_TS,
    "invalid-log-entry-negative-timestamp-ms.json": _NEGATIVE_TS,
    "invalid-builder-log-timestamp-negative.json": _NEGATIVE_TS,
    "invalid-go-behavior-version-timestamp-minus-one.json": (
        f"{_NEGATIVE_TS} (-1 is iceberg-go's 'absent' sentinel, not a rule of the spec)"
    ),
}


def _read(name: str) -> Any:
    return json.loads((CONFORMANCE / name).read_text(encoding="utf-8"))


def _metadata_of(name: str, value: Any) -> tuple[Any, list[Problem]]:
    """The metadata document in a file; ``-rest-`` files wrap it in a LoadFunctionResult."""
    if "-rest-" not in name:
        return value, []
    if not isinstance(value, dict) or "metadata" not in value:
        return None, [Problem("$.metadata", "a LoadFunctionResult needs its metadata")]
    location = value.get("metadata-location")
    if location is not None and not isinstance(location, str):
        return None, [Problem("$.metadata-location", "must be a string")]
    return value["metadata"], []


def _verdict(name: str) -> tuple[Any, list[Problem]]:
    doc, problems = _metadata_of(name, _read(name))
    return doc, problems or validate_metadata(doc)


@pytest.mark.parametrize("name", FILES)
def test_verdict_matches_iceberg_go_or_a_listed_departure(name: str) -> None:
    _, problems = _verdict(name)
    theirs = name.startswith("valid-")
    ours = not problems
    if name in DEPARTURES:
        assert ours != theirs, f"{name}: listed as a departure but we now agree; drop it"
    else:
        assert ours == theirs, f"{name}: iceberg-go says {theirs}, we say {problems}"


ACCEPTED = [n for n in FILES if not _verdict(n)[1]]

_UNKNOWN_REPRESENTATION = (
    "the spec allows representation kinds besides sql (kept whole, as iceberg-go and the Java PR "
    "do), but the REST schema's FunctionRepresentation lists only the sql one"
)

#: accepted file -> why it does not pass the REST catalog's JSON Schema.
SCHEMA_EXCEPTIONS: dict[str, str] = {
    "valid-unknown-representation.json": _UNKNOWN_REPRESENTATION,
    "valid-return-nullable-false.json": _UNKNOWN_REPRESENTATION,
    "valid-java-unknown-representation-python.json": _UNKNOWN_REPRESENTATION,
    "valid-go-behavior-uppercase-sql-type-is-unknown-representation.json": (
        f"{_UNKNOWN_REPRESENTATION} ('SQL' is not 'sql': an unknown kind)"
    ),
}


def _without_unknown_representations(doc: Any) -> Any:
    """A copy keeping only the sql representations: what the REST schema can describe."""
    doc = json.loads(json.dumps(doc))
    for d in doc["definitions"]:
        for v in d["versions"]:
            v["representations"] = [r for r in v["representations"] if r["type"] == "sql"]
    return doc


@pytest.mark.parametrize("name", ACCEPTED)
def test_every_document_we_accept_passes_the_rest_schema(name: str) -> None:
    doc, _ = _verdict(name)
    if name in SCHEMA_EXCEPTIONS:
        with pytest.raises(AssertionError):
            assert_rest_schema_valid(doc)
        doc = _without_unknown_representations(doc)
    assert_rest_schema_valid(doc)


@pytest.mark.parametrize("name", ACCEPTED)
def test_every_document_we_accept_round_trips(name: str) -> None:
    doc, _ = _verdict(name)
    assert json.loads(dump_metadata(UdfMetadata.model_validate(doc))) == doc


@pytest.mark.parametrize("name", [n for n in FILES if not n.startswith("invalid-rest-")])
def test_load_metadata_gives_the_same_verdict(name: str) -> None:
    """The file-level entry point agrees with validate_metadata on the same text."""
    _, problems = _verdict(name)
    text = (CONFORMANCE / name).read_text(encoding="utf-8")
    if "-rest-" in name:
        text = json.dumps(json.loads(text)["metadata"])
    if problems:
        with pytest.raises(Exception, match="invalid UDF metadata"):
            load_metadata(text)
    else:
        assert isinstance(load_metadata(text), UdfMetadata)


def test_departures_name_existing_files_and_say_why() -> None:
    assert set(DEPARTURES) <= set(FILES)
    assert set(SCHEMA_EXCEPTIONS) <= set(ACCEPTED)
    assert all(len(reason) > 20 for reason in DEPARTURES.values())


def test_the_data_set_is_all_there() -> None:
    assert len(FILES) >= 190
    assert sum(n.startswith("valid-") for n in FILES) >= 70


def test_timestamp_ns_probe_is_valid_once_repaired() -> None:
    """The departure is about the probe's stale log, not about the type."""
    doc = _read("valid-go-behavior-type-timestamp-ns.json")
    doc["definition-log"][-1]["definition-versions"][0]["definition-id"] = "timestamp_ns"
    assert validate_metadata(doc) == []


def test_negative_timestamp_files_have_no_other_problem() -> None:
    for name in [n for n, why in DEPARTURES.items() if why.startswith(_NEGATIVE_TS)]:
        doc = _read(name)
        assert validate_metadata(doc) == []
        assert_rest_schema_valid(doc)
