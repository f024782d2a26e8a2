"""Back ends: metadata -> engine DDL, and the round trip compile -> emit -> compile.

For every valid front-end fixture and both target dialects: the emitted DDL (or the reason it is
refused) is snapshotted, and emitted DDL compiles back to the same definitions: ids, types,
docs, characteristics and bodies.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, SHARED, assert_rest_schema_valid, require_shared
from translator.api import compile_script
from translator.compile import Context
from translator.dialects.trino.bodies import body_is_deterministic
from translator.emit import emit_ddl
from translator.errors import UnsupportedError
from translator.metadata import Definition, UdfMetadata, load_metadata

DIALECTS = ("trino", "spark")
#: Every valid fixture that creates a function (a DROP-only fixture has nothing to emit).
SOURCES = [
    (d, p)
    for d in DIALECTS
    for p in sorted((FIXTURES / d / "valid").glob("*.sql"))
    if re.search(r"(?im)^\s*CREATE\b", p.read_text())
]


def ctx() -> Context:
    ticks = itertools.count(1_700_000_000_000, 1000)
    return Context(
        clock=lambda: next(ticks), new_uuid=lambda: "00000000-0000-4000-8000-000000000001"
    )


def compile_fixture(dialect: str, path: Path) -> tuple[dict[str, UdfMetadata | None], list[str]]:
    """The fixture's metadata, and its compile errors (a front end may accept what Iceberg
    cannot hold, e.g. a row field name with a space inside a parameter type)."""
    result = compile_script(path.read_text(), dialect, file=path.name, context=ctx())
    return result.functions, [str(e) for e in result.errors]


#: The guard Spark output puts around a body for RETURNS NULL ON NULL INPUT (Spark lacks it).
GUARD = re.compile(r"^CASE WHEN .+? THEN NULL ELSE \((?P<body>.*)\) END$", re.DOTALL)


def characteristics(d: Definition, dialect: str) -> dict[str, Any]:
    v = d.current_version
    rep = v.representation(dialect)
    body = None if rep is None else rep.sql
    on_null = v.on_null_input
    if dialect == "spark" and body is not None and (m := GUARD.match(body)):
        body, on_null = m.group("body"), "return-null"
    return {
        "id": d.definition_id,
        "parameters": [(p.name, p.iceberg_type) for p in d.parameters],
        "parameter-docs": [p.doc for p in d.parameters],
        "returns": (d.function_type, d.iceberg_return_type),
        "doc": d.doc,
        "deterministic": v.deterministic,
        "on-null-input": on_null,
        "body": body,
    }


def emit_all(functions: dict[str, UdfMetadata | None], target: str) -> dict[str, str]:
    out = {}
    for key, meta in sorted(functions.items()):
        if meta is None:
            continue
        try:
            out[key] = emit_ddl(meta, target, tuple(key.split("."))).text
        except UnsupportedError as e:
            out[key] = f"REFUSED: {e.message}"
    return out


@pytest.mark.parametrize("target", DIALECTS)
@pytest.mark.parametrize(("source", "path"), SOURCES, ids=lambda x: getattr(x, "stem", x))
def test_emit_and_round_trip(source: str, path: Path, target: str, snapshot: Any) -> None:
    functions, errors = compile_fixture(source, path)
    emitted = emit_all(functions, target)
    assert {"compile-errors": errors, "ddl": emitted} == snapshot
    for key, ddl in emitted.items():
        if ddl.startswith("REFUSED: "):
            continue
        back = compile_script(ddl, target, context=ctx())
        assert back.errors == [], (ddl, [str(e) for e in back.errors])
        # Spark's catalog folds every function name to lower case, quoted or not.
        before, after = functions[key], back.functions[key.lower() if target == "spark" else key]
        assert before is not None and after is not None
        for d_before, d_after in zip(before.definitions, after.definitions, strict=True):
            want, got = characteristics(d_before, target), characteristics(d_after, target)
            if target == "trino":  # Trino has no parameter comments: a note, metadata keeps them
                want.pop("parameter-docs")
                got.pop("parameter-docs")
                # Trino's analyzer decides determinism from the body, and RETURN takes a value
                # expression: a predicate body comes back in parentheses
                body = want["body"]
                want["deterministic"] = body_is_deterministic(body, body.startswith("BEGIN"))
                if got["body"] == f"({body})":
                    got["body"] = body
            assert got == want, ddl


ADD_ONE = FIXTURES / "merge" / "appendix_add_one.sql"


def _appendix_metadata() -> UdfMetadata:
    path = SHARED / "conformance" / "iceberg-go"
    require_shared(path)
    text = (path / "valid-fixture-udf-metadata-scalar.json").read_text()
    return load_metadata(text)


def test_version_selection() -> None:
    meta = _appendix_metadata()
    current = emit_ddl(meta, "trino", ("add_one",)).text
    assert "RETURN x + 1;\n" in current and "RETURN x + 1.0;\n" in current
    first = emit_ddl(meta, "trino", ("add_one",), definition="int", version=1).text
    assert first.count("CREATE FUNCTION") == 1 and "RETURN x + 2" in first
    # At 1734507000500 only add_one(int) v1 existed.
    early = emit_ddl(meta, "trino", ("add_one",), as_of=1734507000500).text
    assert early.count("CREATE FUNCTION") == 1 and "RETURN x + 2" in early
    with pytest.raises(UnsupportedError, match="before the first definition-log entry"):
        emit_ddl(meta, "trino", ("add_one",), as_of=1)
    with pytest.raises(UnsupportedError, match="not both"):
        emit_ddl(meta, "trino", ("add_one",), version=1, as_of=1734507000500)
    with pytest.raises(UnsupportedError, match="no version 7"):
        emit_ddl(meta, "trino", ("add_one",), definition="int", version=7)
    with pytest.raises(UnsupportedError, match="no definition 'long'"):
        emit_ddl(meta, "trino", ("add_one",), definition="long")


HOSTILE_DOCS = [
    "'); DROP TABLE x; --",
    "it's \\' a \\\\ test",
    'quote " and ` backquote',
    "line\nbreak",
]
HOSTILE_NAMES = ['we"ird', "back`quote", "se lect", "select"]


def _hostile(doc: str, name: str) -> UdfMetadata:
    return load_metadata(
        json.dumps(
            {
                "function-uuid": "00000000-0000-4000-8000-000000000001",
                "format-version": 1,
                "definitions": [
                    {
                        "definition-id": "int",
                        "parameters": [{"name": name, "type": "int", "doc": doc}],
                        "return-type": "int",
                        "function-type": "udf",
                        "doc": doc,
                        "versions": [
                            {
                                "version-id": 1,
                                "deterministic": True,
                                "representations": [
                                    {"type": "sql", "dialect": "spark", "sql": "1"},
                                    {"type": "sql", "dialect": "trino", "sql": "1"},
                                ],
                                "timestamp-ms": 1,
                            }
                        ],
                        "current-version-id": 1,
                    }
                ],
                "definition-log": [
                    {
                        "timestamp-ms": 1,
                        "definition-versions": [{"definition-id": "int", "version-id": 1}],
                    }
                ],
            }
        )
    )


@pytest.mark.parametrize("target", DIALECTS)
@pytest.mark.parametrize(("doc", "name"), list(zip(HOSTILE_DOCS, HOSTILE_NAMES, strict=True)))
def test_hostile_docs_and_names_cannot_inject(target: str, doc: str, name: str) -> None:
    meta = _hostile(doc, name)
    fname = f"f{name}"
    lossy_on_spark = target == "spark" and "\\" in doc  # Spark's catalog loses backslashes
    if lossy_on_spark:
        with pytest.raises(UnsupportedError, match="backslash"):
            emit_ddl(meta, target, (fname,))
    ddl = emit_ddl(meta, target, (fname,), allow_lossy=lossy_on_spark).text
    back = compile_script(ddl, target, context=ctx())
    assert back.errors == [], ddl
    assert len([s for s in back.functions]) == 1  # one statement: nothing smuggled in
    got = back.functions[fname]
    assert got is not None
    d = got.definitions[0]
    assert d.doc == doc
    assert d.parameters[0].name == name
    if target == "spark":
        assert d.parameters[0].doc == (None if lossy_on_spark else doc)
    assert_rest_schema_valid(json.loads(back.dump()))
