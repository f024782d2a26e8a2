"""The metadata models: lossless load, absent-stays-absent, byte-stable dump, spec defaults."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from syrupy.assertion import SnapshotAssertion

from tests.conftest import SHARED, assert_rest_schema_valid, examples
from translator.metadata import (
    Definition,
    DefinitionLogEntry,
    DefinitionVersion,
    DefinitionVersionRef,
    Parameter,
    SqlRepresentation,
    UdfMetadata,
    UnknownRepresentation,
    deep_copy,
    dump_metadata,
    load_metadata,
    metadata_to_json,
    validate_metadata,
)

CONFORMANCE = SHARED / "conformance" / "iceberg-go"
APPENDIX = {
    "scalar": "valid-fixture-udf-metadata-scalar.json",
    "table": "valid-fixture-udf-metadata-table.json",
}

MINIMAL: dict[str, Any] = {
    "function-uuid": "42fd3f91-bc10-41c1-8a52-92b57dd0a9b2",
    "format-version": 1,
    "definitions": [
        {
            "definition-id": "int",
            "parameters": [{"name": "x", "type": "int"}],
            "return-type": "int",
            "versions": [
                {
                    "version-id": 1,
                    "representations": [{"type": "sql", "dialect": "trino", "sql": "x + 1"}],
                    "timestamp-ms": 1734507000123,
                }
            ],
            "current-version-id": 1,
            "function-type": "udf",
        }
    ],
    "definition-log": [
        {
            "timestamp-ms": 1734507000123,
            "definition-versions": [{"definition-id": "int", "version-id": 1}],
        }
    ],
}


def _appendix(kind: str) -> str:
    path = CONFORMANCE / APPENDIX[kind]
    if not path.exists():
        pytest.skip(f"no conformance data at {CONFORMANCE}")
    return path.read_text(encoding="utf-8")


def _key_orders(text: str) -> list[list[str]]:
    """Every object's keys, in the order the text writes them."""
    orders: list[list[str]] = []

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        orders.append([k for k, _ in pairs])
        return dict(pairs)

    json.loads(text, object_pairs_hook=hook)
    return orders


# --------------------------------------------------------------------------------------------
# The spec's appendix examples


@pytest.mark.parametrize("kind", sorted(APPENDIX))
def test_appendix_example_loads_validates_and_dumps_back(kind: str) -> None:
    text = _appendix(kind)
    assert validate_metadata(json.loads(text)) == []
    model = load_metadata(text, source=APPENDIX[kind])
    dumped = dump_metadata(model)
    assert json.loads(dumped) == json.loads(text)
    assert_rest_schema_valid(dumped)


@pytest.mark.parametrize("kind", sorted(APPENDIX))
def test_appendix_example_dump_snapshot(kind: str, snapshot: SnapshotAssertion) -> None:
    assert dump_metadata(load_metadata(_appendix(kind))) == snapshot


def test_appendix_scalar_attributes() -> None:
    m = load_metadata(_appendix("scalar"))
    assert m.function_uuid == "42fd3f91-bc10-41c1-8a52-92b57dd0a9b2"
    assert [d.definition_id for d in m.definitions] == ["int", "float"]
    d = m.definition("int")
    assert d is not None
    assert d.current_version.version_id == 2
    rep = d.current_version.representation("SPARK")
    assert rep is not None and rep.sql == "x + 1"
    assert d.canonical_id == "int"
    assert m.definition("nope") is None


def test_appendix_table_is_a_udtf_returning_a_struct() -> None:
    m = load_metadata(_appendix("table"))
    d = m.definitions[0]
    assert d.function_type == "udtf"
    assert str(d.iceberg_return_type) == "struct<name:string,color:string>"


# --------------------------------------------------------------------------------------------
# Nothing lost


def _with_unknown_fields() -> dict[str, Any]:
    """MINIMAL with an unknown key at every level, and a python representation."""
    doc = copy.deepcopy(MINIMAL)
    doc["x-top"] = {"nested": [1, 2.5, None, True]}
    d = doc["definitions"][0]
    d["x-definition"] = "kept"
    d["parameters"][0]["x-parameter"] = 1
    d["parameters"].append(
        {
            "name": "y",
            "type": {
                "type": "map",
                "key-id": 7,
                "key": "string",
                "value-id": 8,
                "value": {
                    "type": "list",
                    "element-id": 9,
                    "element-required": False,
                    "element": {
                        "type": "struct",
                        "x-struct": "kept",
                        "fields": [{"id": 10, "name": "a", "type": "int", "required": True}],
                    },
                },
            },
        }
    )
    d["definition-id"] = "int,map<string,list<struct<a:int>>>"
    v = d["versions"][0]
    v["x-version"] = [None]
    v["representations"][0]["x-representation"] = {"a": "b"}
    v["representations"].append({"type": "python", "code": "return x + 1", "runtime": "3.12"})
    entry = doc["definition-log"][0]
    entry["x-log-entry"] = 0
    entry["definition-versions"][0]["definition-id"] = d["definition-id"]
    entry["definition-versions"][0]["x-ref"] = False
    return doc


def test_unknown_fields_at_every_level_survive_load_and_dump() -> None:
    doc = _with_unknown_fields()
    assert validate_metadata(doc) == []
    model = load_metadata(json.dumps(doc))
    assert json.loads(dump_metadata(model)) == doc


def _containers(value: Any, out: list[Any]) -> list[Any]:
    """Every mutable object in a metadata tree: models, their extras, lists, dicts."""
    if isinstance(value, BaseModel):
        out.append(value)
        if value.model_extra:
            out.append(value.model_extra)
        for name in type(value).model_fields:
            _containers(getattr(value, name), out)
        for v in (value.model_extra or {}).values():
            _containers(v, out)
    elif isinstance(value, list | dict):
        out.append(value)
        for v in value.values() if isinstance(value, dict) else value:
            _containers(v, out)
    return out


def test_deep_copy_is_a_whole_independent_copy() -> None:
    """What the warehouse hands out: equal to pydantic's deep copy, sharing nothing mutable."""
    model = load_metadata(json.dumps(_with_unknown_fields()))
    copied = deep_copy(model)
    assert dump_metadata(copied) == dump_metadata(model.model_copy(deep=True))
    assert copied.model_fields_set == model.model_fields_set
    originals = {id(x) for x in _containers(model, [])}
    assert not originals & {id(x) for x in _containers(copied, [])}


_JSON_TEXT = st.text(st.sampled_from('a"\\\n\x00\x1f\x7f é😀\u2028:,.1e-{}[]\ud800'), max_size=8)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | _JSON_TEXT,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(_JSON_TEXT, children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=examples(400), deadline=None)
@given(extra=_JSON)
def test_dump_writes_what_json_dumps_writes(extra: Any) -> None:
    """The file text is json.dumps's (indent 2, UTF-8 kept) byte for byte, whatever unknown keys
    hold: floats, huge integers, escapes, lone surrogates (pydantic-core writes most of it)."""
    model = load_metadata(json.dumps(MINIMAL))
    model.definitions[0].__pydantic_extra__["x-value"] = extra  # type: ignore[index]
    expected = json.dumps(metadata_to_json(model), indent=2, ensure_ascii=False) + "\n"
    assert dump_metadata(model) == expected


def test_unknown_representation_is_kept_whole() -> None:
    model = load_metadata(json.dumps(_with_unknown_fields()))
    reps = model.definitions[0].versions[0].representations
    assert isinstance(reps[0], SqlRepresentation)
    assert isinstance(reps[1], UnknownRepresentation)
    assert metadata_to_json(reps[1]) == {
        "type": "python",
        "code": "return x + 1",
        "runtime": "3.12",
    }


def test_absent_optional_fields_stay_absent() -> None:
    model = load_metadata(json.dumps(MINIMAL))
    out = json.loads(dump_metadata(model))
    assert out == MINIMAL
    for key in ("location", "properties", "secure", "doc"):
        assert key not in out
    for key in ("return-nullable", "doc", "specific-name"):
        assert key not in out["definitions"][0]
    for key in ("deterministic", "on-null-input"):
        assert key not in out["definitions"][0]["versions"][0]


def test_defaults_are_visible_on_the_model() -> None:
    m = load_metadata(json.dumps(MINIMAL))
    d = m.definitions[0]
    v = d.versions[0]
    assert m.secure is False
    assert m.properties is None and m.location is None and m.doc is None
    assert d.return_nullable is True
    assert d.doc is None and d.specific_name is None
    assert v.deterministic is False
    assert v.on_null_input == "call"


def test_explicit_defaults_are_written_back() -> None:
    doc = copy.deepcopy(MINIMAL)
    doc["secure"] = False
    doc["definitions"][0]["return-nullable"] = True
    doc["definitions"][0]["versions"][0]["deterministic"] = False
    doc["definitions"][0]["versions"][0]["on-null-input"] = "call"
    assert json.loads(dump_metadata(load_metadata(json.dumps(doc)))) == doc


# --------------------------------------------------------------------------------------------
# Byte-stable output


def test_dump_is_spec_ordered_two_space_indented_with_trailing_newline() -> None:
    shuffled = copy.deepcopy(MINIMAL)
    shuffled = dict(reversed(list(shuffled.items())))
    shuffled["definitions"][0] = dict(reversed(list(shuffled["definitions"][0].items())))
    text = dump_metadata(load_metadata(json.dumps(shuffled)))
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text.splitlines()[1] == '  "function-uuid": "42fd3f91-bc10-41c1-8a52-92b57dd0a9b2",'
    orders = _key_orders(text)
    assert orders[-1] == ["function-uuid", "format-version", "definitions", "definition-log"]
    assert [
        "definition-id", "parameters", "return-type", "versions", "current-version-id",
        "function-type",
    ] in orders  # fmt: skip
    assert ["version-id", "representations", "timestamp-ms"] in orders
    assert ["type", "dialect", "sql"] in orders


def test_unknown_keys_come_after_the_spec_keys() -> None:
    text = dump_metadata(load_metadata(json.dumps(_with_unknown_fields())))
    top = _key_orders(text)[-1]
    assert top[-1] == "x-top"
    assert top[:4] == ["function-uuid", "format-version", "definitions", "definition-log"]


@pytest.mark.parametrize("kind", sorted(APPENDIX))
def test_dump_is_idempotent(kind: str) -> None:
    model = load_metadata(_appendix(kind))
    once = dump_metadata(model)
    assert dump_metadata(model) == once
    assert dump_metadata(load_metadata(once)) == once


def test_dump_keeps_non_ascii_text() -> None:
    doc = copy.deepcopy(MINIMAL)
    doc["doc"] = "Größe: 大小"
    text = dump_metadata(load_metadata(json.dumps(doc)))
    assert '"doc": "Größe: 大小"' in text


# --------------------------------------------------------------------------------------------
# Models built in code


def test_sql_representation_built_in_code_writes_its_type() -> None:
    rep = SqlRepresentation(dialect="spark", sql="x + 1")
    assert metadata_to_json(rep) == {"type": "sql", "dialect": "spark", "sql": "x + 1"}


def test_none_is_never_written() -> None:
    """No spec field is nullable, so an optional left as None in code is absent in the file."""
    p = Parameter(name="x", type="int", doc=None)
    assert metadata_to_json(p) == {"name": "x", "type": "int"}


def test_metadata_built_in_code_is_valid_and_stable() -> None:
    model = UdfMetadata(
        function_uuid="42fd3f91-bc10-41c1-8a52-92b57dd0a9b2",
        format_version=1,
        definitions=[
            Definition(
                definition_id="int",
                parameters=[Parameter(name="x", type="int", doc=None)],
                return_type="int",
                versions=[
                    DefinitionVersion(
                        version_id=1,
                        representations=[SqlRepresentation(dialect="trino", sql="x + 1")],
                        timestamp_ms=1734507000123,
                    )
                ],
                current_version_id=1,
                function_type="udf",
                doc=None,
            )
        ],
        definition_log=[
            DefinitionLogEntry(
                timestamp_ms=1734507000123,
                definition_versions=[DefinitionVersionRef(definition_id="int", version_id=1)],
            )
        ],
    )
    text = dump_metadata(model)
    assert json.loads(text) == MINIMAL
    assert dump_metadata(load_metadata(text)) == text
