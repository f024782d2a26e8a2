"""Metadata validation: one fixture per broken rule, every problem reported with its JSON path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from tests.conftest import FIXTURES, assert_rest_schema_valid, examples
from tests.test_types import TYPES
from translator.errors import MetadataError
from translator.metadata import (
    Problem,
    UdfMetadata,
    dump_metadata,
    load_metadata,
    validate_metadata,
)
from translator.metadata.read import MAX_JSON_DEPTH
from translator.types import IcebergType, definition_id, type_to_json

INVALID = FIXTURES / "metadata" / "invalid"
VALID = FIXTURES / "metadata" / "valid"
EXPECTED: dict[str, dict[str, str]] = json.loads((INVALID / "EXPECTED.json").read_text())
VALID_FILES = sorted(p.name for p in VALID.glob("*.json"))


def _problems(text: str) -> list[tuple[str, str]]:
    with pytest.raises(MetadataError) as info:
        load_metadata(text)
    return info.value.problems


def _base() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((VALID / "two-definitions.json").read_text())
    return doc


# --------------------------------------------------------------------------------------------
# Fixtures


def test_every_invalid_fixture_is_listed_and_there_are_enough() -> None:
    on_disk = {p.name for p in INVALID.glob("*.json")} - {"EXPECTED.json"}
    assert on_disk == set(EXPECTED)
    assert len(EXPECTED) >= 30


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_invalid_fixture_breaks_exactly_its_rule(name: str) -> None:
    expect = EXPECTED[name]
    problems = _problems((INVALID / name).read_text(encoding="utf-8"))
    assert len(problems) == 1, problems
    path, message = problems[0]
    assert path == expect["path"]
    assert expect["message"] in message


@pytest.mark.parametrize("name", VALID_FILES)
def test_valid_fixture_loads_passes_the_rest_schema_and_round_trips(name: str) -> None:
    text = (VALID / name).read_text(encoding="utf-8")
    doc = json.loads(text)
    assert validate_metadata(doc) == []
    model = load_metadata(text, source=name)
    assert dump_metadata(model) == text
    if name != "unknown-fields-and-representations.json":  # the schema knows only sql ones
        assert_rest_schema_valid(doc)


# --------------------------------------------------------------------------------------------
# Every problem, not just the first


def test_all_problems_are_reported_at_once() -> None:
    doc = _base()
    doc["format-version"] = 1.0
    doc["function-uuid"] = "not-a-uuid"
    d0, d1 = doc["definitions"]
    d0["parameters"][0]["type"] = "INT"
    d0["versions"][1]["on-null-input"] = "always"
    d0["versions"][1]["representations"][1]["sql"] = ""
    d1["parameters"] = "nope"  # a structural problem here ...
    d1["versions"][0]["timestamp-ms"] = "yesterday"  # ... does not hide this one
    d1["function-type"] = "udaf"
    doc["definition-log"][2]["timestamp-ms"] = 0
    paths = [p.path for p in validate_metadata(doc)]
    assert paths == [
        "$.format-version",
        "$.function-uuid",
        "$.definitions[0].parameters[0].type",
        "$.definitions[0].versions[1].on-null-input",
        "$.definitions[0].versions[1].representations[1].sql",
        "$.definitions[1].parameters",
        "$.definitions[1].function-type",
        "$.definitions[1].versions[0].timestamp-ms",
        "$.definition-log[2].timestamp-ms",
    ]
    with pytest.raises(MetadataError, match=r"invalid UDF metadata \(9 problems\)") as info:
        load_metadata(json.dumps(doc), source="f.json")
    assert info.value.message.startswith("f.json: ")
    assert [p for p, _ in info.value.problems] == paths


def test_problem_is_a_frozen_value() -> None:
    p = Problem("$.doc", "must be a string")
    assert str(p) == "$.doc: must be a string"
    with pytest.raises(AttributeError):
        p.path = "$"  # type: ignore[misc]


@pytest.mark.parametrize("value", [None, [], "text", 1, True])
def test_a_document_must_be_an_object(value: object) -> None:
    assert validate_metadata(value) == [Problem("$", validate_metadata(value)[0].message)]
    assert "JSON object" in validate_metadata(value)[0].message


def test_uppercase_uuid_is_accepted() -> None:
    doc = _base()
    doc["function-uuid"] = doc["function-uuid"].upper()
    assert validate_metadata(doc) == []


def test_cascades_are_not_reported_twice() -> None:
    """A version whose id cannot be read does not also make its log references 'unknown'."""
    doc = _base()
    doc["definitions"][0]["versions"][0]["version-id"] = "1"
    assert [p.path for p in validate_metadata(doc)] == ["$.definitions[0].versions[0].version-id"]


def test_old_log_entries_may_name_dropped_definitions_but_not_unknown_versions() -> None:
    doc = _base()
    doc["definition-log"][0]["definition-versions"][0] = {"definition-id": "gone", "version-id": 4}
    assert validate_metadata(doc) == []
    doc["definition-log"][0]["definition-versions"][0] = {"definition-id": "int", "version-id": 4}
    assert [p.message for p in validate_metadata(doc)] == ["definition 'int' has no version 4"]


def test_equal_log_timestamps_are_fine() -> None:
    doc = _base()
    for entry in doc["definition-log"]:
        entry["timestamp-ms"] = 1734507000000
    assert validate_metadata(doc) == []


def test_zero_parameter_definition_has_empty_id() -> None:
    doc = json.loads((VALID / "zero-parameter.json").read_text())
    doc["definitions"][0]["definition-id"] = "()"
    assert "expected ''" in validate_metadata(doc)[0].message


def test_struct_field_names_in_return_types_are_not_part_of_the_id() -> None:
    """Only parameter types build the definition-id; a udtf may return a column 'first name'."""
    doc = _base()
    doc["definitions"][1]["return-type"]["fields"][0]["name"] = "first name"
    assert validate_metadata(doc) == []


def test_property_keys_with_dots_get_a_quoted_path() -> None:
    doc = _base()
    doc["properties"] = {"a.b c": 1}
    assert validate_metadata(doc) == [
        Problem('$.properties["a.b c"]', "property values must be strings, not an integer")
    ]


# --------------------------------------------------------------------------------------------
# Text-level problems


def test_broken_json_reports_line_and_column() -> None:
    problems = _problems('{\n  "format-version": 1\n  "x": 2\n}')
    assert problems == [("line 3 column 3", "Expecting ',' delimiter")]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_json_numbers_are_rejected(constant: str) -> None:
    doc = json.dumps(_base()).replace('"secure": false', f'"secure": {constant}')
    assert "not a JSON number" in _problems(doc)[0][1]


def test_duplicate_keys_are_reported_with_their_path() -> None:
    text = json.dumps(_base()).replace('"version-id": 2,', '"version-id": 2, "version-id": 2,', 1)
    assert _problems(text) == [
        ("$.definitions[0].versions[1].version-id", "key appears more than once in the same object")
    ]


def test_python_attribute_names_are_not_field_names() -> None:
    """pydantic would accept ``function_uuid``; the spec's name is ``function-uuid``."""
    doc = _base()
    doc["function_uuid"] = doc.pop("function-uuid")
    assert _problems(json.dumps(doc)) == [("$.function-uuid", "required field is missing")]


def test_load_returns_the_model() -> None:
    model = load_metadata((VALID / "two-definitions.json").read_text())
    assert isinstance(model, UdfMetadata)
    assert model.definitions[1].specific_name == "explode_ids"


# --------------------------------------------------------------------------------------------
# Every canonical type is accepted where a type may go


def _document_with(param: IcebergType, returns: IcebergType) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((VALID / "zero-parameter.json").read_text())
    d = doc["definitions"][0]
    d["parameters"] = [{"name": "p", "type": type_to_json(param)}]
    d["return-type"] = type_to_json(returns)
    d["definition-id"] = definition_id([param])
    doc["definition-log"][0]["definition-versions"][0]["definition-id"] = d["definition-id"]
    return doc


@settings(max_examples=examples(200), deadline=None)
@given(TYPES, TYPES)
def test_any_canonical_type_is_valid_metadata(param: IcebergType, returns: IcebergType) -> None:
    doc = _document_with(param, returns)
    assert validate_metadata(doc) == []
    assert json.loads(dump_metadata(load_metadata(json.dumps(doc)))) == doc


def test_fixture_paths_exist() -> None:
    assert Path(INVALID).is_dir() and Path(VALID).is_dir()


def test_a_shape_problem_the_checks_missed_is_still_reported_by_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pydantic is the backstop: load_metadata never returns a model it could not build."""
    monkeypatch.setattr("translator.metadata.read.validate_metadata", lambda doc: [])
    doc = _base()
    doc["definitions"][0]["versions"][1]["version-id"] = "2"
    doc["definitions"][1]["versions"][0]["representations"][0]["sql"] = None
    paths = [path for path, _ in _problems(json.dumps(doc))]
    assert paths == [
        "$.definitions[0].versions[1].version-id",
        "$.definitions[1].versions[0].representations[0].sql",
    ]


def _nested(depth: int, where: str) -> str:
    """``_base()`` with ``depth`` objects nested in the unknown field ``zz`` at ``where``."""
    doc = _base()
    holder = doc if where == "top" else doc["definitions"][1]["parameters"][0]
    holder["zz"] = "HOLE"
    return json.dumps(doc).replace('"HOLE"', '{"a": ' * depth + "1" + "}" * depth)


@pytest.mark.parametrize("where", ["top", "parameter"])
def test_a_document_nested_too_deeply_is_refused_by_path(where: str) -> None:
    """A few hundred nested objects in an unknown field made the reader's own walks run out of
    Python's stack (a RecursionError, where every bad document is a MetadataError); the
    deepest nesting that is read is still written back as it was."""
    prefix = 1 if where == "top" else 5  # the document; or it, definitions, one, parameters, one
    most = MAX_JSON_DEPTH - prefix
    text = _nested(most, where)
    assert json.loads(dump_metadata(load_metadata(text))) == json.loads(text)
    for depth in (most + 1, 600):
        ((path, message),) = _problems(_nested(depth, where))
        # The first eight steps of the path (its whole, 256 steps, filled a screen), and how
        # far below them the level past the limit is.
        start = (
            "$.zz.a.a.a.a.a.a.a" if where == "top" else "$.definitions[1].parameters[0].zz.a.a.a"
        )
        assert path == start, path
        below = MAX_JSON_DEPTH - 8
        assert message == (
            f"nested more than {MAX_JSON_DEPTH} objects and arrays deep "
            f"(level {MAX_JSON_DEPTH + 1} is {below} steps below this path)"
        )
