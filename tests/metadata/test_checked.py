"""checked_dump: a commit's validation looks only at what changed, with the whole document's
verdict (the same problems as validating the parsed text)."""

from __future__ import annotations

import json
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any

import pytest

from tests.warehouse.test_committed_model import _UNKNOWN
from translator.api import compile_script
from translator.metadata import (
    DefinitionLogEntry,
    DefinitionVersionRef,
    UdfMetadata,
    checked,
    checked_dump,
    dump_metadata,
    load_metadata,
    validate_metadata,
)
from translator.metadata.problems import Problem


def _without_floats(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_floats(v) for k, v in value.items() if not isinstance(v, float)}
    if isinstance(value, list):
        return [_without_floats(v) for v in value if not isinstance(v, float)]
    return value


def _base() -> UdfMetadata:
    """Unknown keys everywhere, without floats (a float sends the commit to a full check)."""
    return load_metadata(json.dumps(_without_floats(_UNKNOWN)))


@pytest.fixture
def trusted_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many objects each validation was told to trust."""
    sizes: list[int] = []

    def spy(document: object, trusted: AbstractSet[int] = frozenset()) -> list[Problem]:
        sizes.append(len(trusted))
        return validate_metadata(document, trusted)

    monkeypatch.setattr(checked, "validate_metadata", spy)
    return sizes


def _private(base: UdfMetadata) -> UdfMetadata:
    """What a merge starts from: new top level and lists, everything else shared."""
    meta = base.model_copy()
    meta.definitions = list(base.definitions)
    meta.definition_log = list(base.definition_log)
    return meta


def _log(meta: UdfMetadata, ts: int) -> None:
    refs = [
        DefinitionVersionRef(definition_id=d.definition_id, version_id=d.current_version_id)
        for d in meta.definitions
    ]
    meta.definition_log.append(DefinitionLogEntry(timestamp_ms=ts, definition_versions=refs))


def _copied(meta: UdfMetadata, i: int) -> None:
    d = meta.definitions[i].model_copy()
    d.versions = list(d.versions)
    meta.definitions[i] = d


def _new_version(meta: UdfMetadata, vid: int) -> None:
    _copied(meta, 0)
    v = meta.definitions[0].versions[0].model_copy(update={"version_id": vid})
    meta.definitions[0].versions.append(v)
    meta.definitions[0].current_version_id = vid


def _wrong_id(meta: UdfMetadata) -> None:
    d = meta.definitions[0].model_copy(update={"definition_id": "string"})
    meta.definitions.append(d)


def _lost_version(meta: UdfMetadata) -> None:
    _new_version(meta, 2)
    del meta.definitions[0].versions[0]  # the old log entry names version 1


def _recreated(meta: UdfMetadata) -> None:
    _new_version(meta, 2)
    _log(meta, 2000)
    meta.definitions[0] = meta.definitions[0].model_copy(
        update={"versions": meta.definitions[0].versions[1:]}
    )


def _duplicate_definition(meta: UdfMetadata) -> None:
    meta.definitions.append(meta.definitions[1].model_copy())


def _duplicate_specific_name(meta: UdfMetadata) -> None:
    _copied(meta, 0)
    meta.definitions[0].specific_name = "same"
    meta.definitions[0].model_fields_set.add("specific_name")


def _back_in_time(meta: UdfMetadata) -> None:
    _new_version(meta, 2)


def _bad_representation(meta: UdfMetadata) -> None:
    _new_version(meta, 2)
    v = meta.definitions[0].versions[-1].model_copy(deep=True)
    v.representations[0].sql = " "  # type: ignore[union-attr]
    meta.definitions[0].versions[-1] = v


CHANGES: dict[str, tuple[Callable[[UdfMetadata], None], int]] = {
    "new version": (lambda m: _new_version(m, 2), 2000),
    "duplicate version id": (lambda m: _new_version(m, 1), 2000),
    "version id going back": (lambda m: _new_version(m, 0), 2000),
    "definition-id not its parameters'": (_wrong_id, 2000),
    "a version the old log names is gone": (_lost_version, 2000),
    "recreated with fewer versions": (_recreated, 3000),
    "two definitions with one id": (_duplicate_definition, 2000),
    "log going back in time": (_back_in_time, 500),
    "an empty sql text": (_bad_representation, 2000),
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_the_verdict_is_the_whole_documents(name: str, trusted_sizes: list[int]) -> None:
    base = _base()
    before = dump_metadata(base)
    change, ts = CHANGES[name]
    meta = _private(base)
    change(meta)
    _log(meta, ts)
    data, problems = checked_dump(meta, base)
    assert data == dump_metadata(meta).encode()
    assert problems == validate_metadata(json.loads(data))
    assert (problems == []) == (name == "new version")
    assert trusted_sizes[0] >= 2  # the unchanged definition and log entry at least
    assert dump_metadata(base) == before


def test_a_specific_name_clash_with_an_unchanged_definition(trusted_sizes: list[int]) -> None:
    base = _base()
    base.definitions[1].specific_name = "same"
    base.definitions[1].model_fields_set.add("specific_name")
    base = load_metadata(dump_metadata(base))
    meta = _private(base)
    _duplicate_specific_name(meta)
    _log(meta, 2000)
    data, problems = checked_dump(meta, base)
    assert problems and problems == validate_metadata(json.loads(data))
    assert trusted_sizes[0] >= 2


@pytest.mark.parametrize("floats", [False, True])
def test_real_merges_pass(floats: bool, trusted_sizes: list[int]) -> None:
    """Real merges; with floats in unknown keys the text is parsed back and checked whole."""
    base = load_metadata(json.dumps(_UNKNOWN)) if floats else _base()
    for sql in (
        "CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + 2",
        "CREATE FUNCTION f(x double) RETURNS double RETURN x * 2",
        "DROP FUNCTION f(array(integer))",
    ):
        result = compile_script(sql, "trino", into={"f": base}).raise_for_errors()
        meta = result.functions["f"]
        assert meta is not None
        data, problems = checked_dump(meta, base)
        assert problems == [] and data == dump_metadata(meta).encode()
        assert load_metadata(data.decode()) == meta
        base = meta
    assert (max(trusted_sizes) == 0) == floats
