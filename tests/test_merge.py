"""Compile and merge: the scenarios in fixtures/merge, snapshotted step by step, and the rules."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, assert_rest_schema_valid
from translator.api import compile_script
from translator.compile import CompileOptions, Context
from translator.metadata import (
    UdfMetadata,
    dump_metadata,
    load_metadata,
    metadata_to_json,
    validate_metadata,
)

MERGE = FIXTURES / "merge"
STEP = re.compile(r"^-- step: (\w+)((?: --[\w-]+)*)\s*$", re.MULTILINE)


def fixed_context(start: int = 1734507000000, step: int = 1000) -> Context:
    ticks = itertools.count(start, step)
    uuids = (f"00000000-0000-4000-8000-{n:012d}" for n in itertools.count(1))
    return Context(clock=lambda: next(ticks), new_uuid=lambda: next(uuids))


@dataclass
class Step:
    dialect: str
    flags: tuple[str, ...]
    sql: str


def read_steps(path: Path) -> list[Step]:
    text = path.read_text()
    marks = list(STEP.finditer(text))
    steps = []
    for m, nxt in zip(marks, [*marks[1:], None], strict=True):
        body = text[m.end() : nxt.start() if nxt else len(text)]
        steps.append(Step(m.group(1), tuple(m.group(2).split()), body))
    return steps


def run_scenario(path: Path) -> list[dict[str, Any]]:
    ctx = fixed_context()
    functions: dict[str, UdfMetadata | None] = {}
    out = []
    for i, step in enumerate(read_steps(path), 1):
        options = CompileOptions(
            attach="--attach" in step.flags, transpile="--no-transpile" not in step.flags
        )
        before = {k: dump_metadata(v) for k, v in functions.items() if v is not None}
        result = compile_script(
            step.sql, step.dialect, into=functions, file=path.name, options=options, context=ctx
        )
        # The metadata merged into is never changed (the result shares what did not change).
        assert {k: dump_metadata(v) for k, v in functions.items() if v is not None} == before
        functions.update(result.functions)
        docs = {
            k: json.loads(dump_metadata(v)) if v else None for k, v in sorted(functions.items())
        }
        for doc in docs.values():
            if doc is not None:
                assert validate_metadata(doc) == []
                assert_rest_schema_valid(doc)
        out.append(
            {
                "step": i,
                "dialect": step.dialect,
                "changes": [str(c) for c in result.changes],
                "warnings": [str(w) for w in result.warnings],
                "errors": [str(e) for e in result.errors],
                "metadata": docs,
            }
        )
    return out


@pytest.mark.parametrize("path", sorted(MERGE.glob("*.sql")), ids=lambda p: p.stem)
def test_merge_scenario(path: Path, snapshot: Any) -> None:
    assert run_scenario(path) == snapshot


def _only(sql: str, dialect: str = "trino", **kw: Any) -> UdfMetadata:
    result = compile_script(sql, dialect, context=fixed_context(), **kw)
    assert result.errors == []
    meta = result.metadata
    assert meta is not None
    return meta


ADD_ONE = "CREATE OR REPLACE FUNCTION add_one(x integer) RETURNS integer RETURN x + 1"


def test_deploying_twice_changes_nothing() -> None:
    first = _only(ADD_ONE)
    again = compile_script(ADD_ONE, "trino", into=first, context=fixed_context(10**13))
    assert [c.action for c in again.changes] == ["unchanged"]
    assert dump_metadata(again.metadata) == dump_metadata(first)  # type: ignore[arg-type]


def test_merge_does_not_mutate_its_input() -> None:
    first = _only(ADD_ONE)
    before = dump_metadata(first)
    compile_script(ADD_ONE.replace("x + 1", "x + 2"), "trino", into=first)
    assert dump_metadata(first) == before


def test_unknown_fields_survive_a_merge() -> None:
    doc = metadata_to_json(_only(ADD_ONE))
    doc["x-future"] = {"kept": True}
    doc["definitions"][0]["x-def"] = 1
    doc["definitions"][0]["versions"][0]["x-version"] = "v"
    doc["definitions"][0]["parameters"][0]["type"] = "int"
    existing = load_metadata(json.dumps(doc))
    result = compile_script(ADD_ONE.replace("x + 1", "x + 2"), "trino", into=existing)
    out = metadata_to_json(result.metadata)  # type: ignore[arg-type]
    assert out["x-future"] == {"kept": True}
    assert out["definitions"][0]["x-def"] == 1
    assert out["definitions"][0]["versions"][0]["x-version"] == "v"
    assert [v["version-id"] for v in out["definitions"][0]["versions"]] == [1, 2]


def test_a_new_log_entry_shares_the_unchanged_references_of_the_previous_one() -> None:
    """Only the references that changed are new objects; one with unknown keys is not shared
    (its keys belong to its own entry); the file is the same as with every reference a copy."""
    first = compile_script(
        "CREATE FUNCTION f(x integer) RETURNS integer RETURN x + 1;\n"
        "CREATE FUNCTION f(x double) RETURNS double RETURN x * 2;\n"
        "CREATE FUNCTION f(x varchar) RETURNS varchar RETURN x",
        "trino",
        context=fixed_context(),
    ).metadata
    assert first is not None
    doc = metadata_to_json(first)
    doc["definition-log"][-1]["definition-versions"][2]["x-ref"] = "mine"
    base = load_metadata(json.dumps(doc))
    result = compile_script(
        "CREATE OR REPLACE FUNCTION f(x double) RETURNS double RETURN x * 3",
        "trino",
        into=base,
        context=fixed_context(10**13),
    )
    meta = result.metadata
    assert meta is not None and [c.action for c in result.changes] == ["new-version"]
    before, after = base.definition_log[-1], meta.definition_log[-1]
    assert after.definition_versions[0] is before.definition_versions[0]  # unchanged: shared
    assert after.definition_versions[1] is not before.definition_versions[1]  # a new version
    assert after.definition_versions[2] is not before.definition_versions[2]  # has unknown keys
    written = metadata_to_json(meta)
    assert written["definition-log"][-1]["definition-versions"] == [
        {"definition-id": d.definition_id, "version-id": d.current_version_id}
        for d in meta.definitions
    ]
    assert written["definition-log"][-2]["definition-versions"][2]["x-ref"] == "mine"
    assert dump_metadata(meta) == dump_metadata(load_metadata(dump_metadata(meta)))
    assert validate_metadata(written) == []
    dropped = compile_script(
        "DROP FUNCTION f(integer)", "trino", into=meta, context=fixed_context(10**14)
    ).metadata
    assert dropped is not None  # the orders differ now: the references are found by id
    assert dropped.definition_log[-1].definition_versions[0] is after.definition_versions[1]
    assert [
        (r.definition_id, r.version_id) for r in dropped.definition_log[-1].definition_versions
    ] == [(d.definition_id, d.current_version_id) for d in dropped.definitions]


def test_timestamps_only_increase_even_when_the_clock_goes_back() -> None:
    first = _only(ADD_ONE)
    result = compile_script(
        ADD_ONE.replace("x + 1", "x + 2"), "trino", into=first, context=Context(clock=lambda: 5)
    )
    log = [e.timestamp_ms for e in result.metadata.definition_log]  # type: ignore[union-attr]
    assert log == sorted(set(log)) and log[-1] > 5
    versions = result.metadata.definitions[0].versions  # type: ignore[union-attr]
    assert versions[-1].timestamp_ms == log[-1]


def test_a_failing_statement_does_not_stop_the_script() -> None:
    sql = (
        f"{ADD_ONE};\nCREATE FUNCTION add_one(x integer) RETURNS integer RETURN 0;\n"
        + ADD_ONE.replace("add_one(x integer)", "add_one(x bigint)").replace(
            "integer RETURN", "bigint RETURN"
        )
    )
    result = compile_script(sql, "trino", context=fixed_context())
    assert [e.position.line for e in result.errors if e.position] == [2]
    assert "already exists" in result.errors[0].message
    assert [d.definition_id for d in result.metadata.definitions] == ["int", "long"]  # type: ignore[union-attr]


def test_several_functions_give_several_documents() -> None:
    sql = (
        "CREATE FUNCTION a() RETURNS integer RETURN 1; CREATE FUNCTION b() RETURNS integer RETURN 2"
    )
    result = compile_script(sql, "trino", context=fixed_context())
    assert sorted(result.functions) == ["a", "b"]
    with pytest.raises(ValueError, match="names 2 functions"):
        _ = result.metadata


def test_strict_refuses_lossy_statements() -> None:
    sql = "CREATE FUNCTION f(s varchar(10)) RETURNS varchar(10) RETURN s"
    lenient = compile_script(sql, "trino")
    assert lenient.ok and any(w.lossy for w in lenient.warnings)
    strict = compile_script(sql, "trino", strict=True)
    assert not strict.ok and strict.functions == {}


def test_no_transpile_and_targets() -> None:
    only_source = _only(ADD_ONE, options=CompileOptions(transpile=False))
    reps = only_source.definitions[0].current_version.representations
    assert [r.dialect for r in reps] == ["trino"]  # type: ignore[union-attr]
    both = _only(ADD_ONE)
    assert [r.dialect for r in both.definitions[0].current_version.representations] == [  # type: ignore[union-attr]
        "trino",
        "spark",
    ]


def test_an_unchanged_replace_is_not_transpiled_again() -> None:
    """A deploy run twice writes nothing, so it says nothing about representations either."""
    ddl = "CREATE OR REPLACE FUNCTION f(x INT) RETURNS TABLE (y INT) RETURN SELECT x AS y;\n"
    first = compile_script(ddl, "spark", context=fixed_context())
    assert [w.code for w in first.warnings] == ["no-representation"]  # no Trino table functions
    again = compile_script(ddl, "spark", into=first.functions, context=fixed_context())
    assert [c.action for c in again.changes] == ["unchanged"]
    assert again.warnings == []
    assert again.functions == first.functions
