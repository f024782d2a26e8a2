"""Models a merge makes without the validator (``trusted``) are the validator's, to the object.

Compared field by field (types included: a ``str`` subclass must not survive), with the fields
set, extras and private state; on the corpus and the merge fixtures, against the same merges run
with every model validated; and values that are not exactly what the validator stores still go
through it, with its errors.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from lark import Token
from pydantic import BaseModel, ValidationError

import translator.compile as compile_module
from benchmarks.corpus import generate
from tests.conftest import FIXTURES
from tests.model_equality import assert_same
from translator.api import compile_script
from translator.compile import Context, sql_representation
from translator.metadata import Definition, Parameter, SqlRepresentation, UdfMetadata
from translator.metadata.model import DefinitionVersion, trusted


def _validating(cls: type[BaseModel], values: dict[str, Any]) -> BaseModel:
    return cls(**values)


def _context() -> Context:
    ticks = itertools.count(1734507000000, 1000)
    uuids = (f"00000000-0000-4000-8000-{n:012d}" for n in itertools.count(1))
    return Context(clock=lambda: next(ticks), new_uuid=lambda: next(uuids))


def _compile_all(scripts: list[tuple[str, str]]) -> list[Any]:
    ctx = _context()
    return [compile_script(text, dialect, context=ctx) for text, dialect in scripts]


def _scripts() -> list[tuple[str, str]]:
    corpus = [(s.text, s.dialect) for s in generate(300, 20240607)]
    fixtures = []
    for path in sorted((FIXTURES / "merge").glob("*.sql")):
        dialect = "trino" if "trino" in path.name else "spark"
        fixtures.append((path.read_text(), dialect))
    return corpus + fixtures


def test_trusted_models_are_the_validators(monkeypatch: pytest.MonkeyPatch) -> None:
    scripts = _scripts()
    fast = _compile_all(scripts)
    monkeypatch.setattr(compile_module, "trusted", _validating)
    slow = _compile_all(scripts)
    made = 0
    for a, b in zip(fast, slow, strict=True):
        assert [str(e) for e in a.errors] == [str(e) for e in b.errors]
        assert list(a.functions) == list(b.functions)
        for key in a.functions:
            assert_same(a.functions[key], b.functions[key], key)
            made += a.functions[key] is not None
    assert made > 100


def test_trusted_fills_defaults_and_runs_post_init() -> None:
    version = trusted(
        DefinitionVersion,
        {"version_id": 1, "representations": [], "timestamp_ms": 5, "deterministic": True},
    )
    assert_same(
        version,
        DefinitionVersion(version_id=1, representations=[], timestamp_ms=5, deterministic=True),
    )
    rep = trusted(SqlRepresentation, {"dialect": "spark", "sql": "1"})
    assert rep.model_fields_set == {"type", "dialect", "sql"}  # the post-init hook's
    with pytest.raises(TypeError, match="missing"):
        trusted(Parameter, {"name": "x"})
    with pytest.raises(TypeError, match="unknown"):
        trusted(Parameter, {"name": "x", "type": "int", "colour": "red"})


def test_what_is_not_plain_goes_through_the_validator() -> None:
    token = Token("NAME", "spark")
    rep = sql_representation(token, "x + 1")
    assert type(rep.dialect) is str  # the validator's plain copy, not the token
    assert_same(rep, SqlRepresentation(type="sql", dialect="spark", sql="x + 1"))
    with pytest.raises(ValidationError):
        sql_representation("spark", b"x + 1")  # type: ignore[arg-type]


def test_a_context_that_gives_no_str_uuid_is_still_refused() -> None:
    ctx = Context(clock=lambda: 1, new_uuid=lambda: 42)  # type: ignore[arg-type,return-value]
    with pytest.raises(ValidationError):
        compile_script("CREATE FUNCTION f(x INT) RETURNS INT RETURN x", "spark", context=ctx)


def test_a_statement_with_every_optional_field() -> None:
    sql = (
        "CREATE FUNCTION s.f(x INT COMMENT 'the x', y STRING DEFAULT 'a') RETURNS INT "
        "COMMENT 'doc' DETERMINISTIC CONTAINS SQL SQL SECURITY DEFINER RETURN x + length(y)"
    )
    made = compile_script(sql, "spark", context=_context())
    meta = made.functions["s.f"]
    assert isinstance(meta, UdfMetadata) and meta.properties
    for d in meta.definitions:
        assert type(d) is Definition
        assert_same(d, Definition.model_validate(d.model_dump(exclude_unset=True)))
    assert_same(meta, UdfMetadata.model_validate(meta.model_dump(exclude_unset=True)))


def test_trusted_refuses_a_default_factory() -> None:
    """A field with a default factory would get one object shared by every model made from the
    class's template: refused when the template is made."""
    from pydantic import Field

    class WithList(BaseModel):
        items: list[int] = Field(default_factory=list)

    with pytest.raises(TypeError, match="default factories"):
        trusted(WithList, {})


def test_log_entries_and_references_are_the_validators() -> None:
    """append_log_entry and new_ref make their models with ``trusted``: the same as validated."""
    from translator.metadata.model import DefinitionLogEntry, DefinitionVersionRef
    from translator.metadata.sharing import new_ref

    assert_same(
        new_ref("int", 3),
        DefinitionVersionRef.model_validate({"definition-id": "int", "version-id": 3}, strict=True),
    )
    meta = compile_script("CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1", "spark")
    meta = (
        compile_script(
            "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 2",
            "spark",
            into=meta.raise_for_errors().metadata,
        )
        .raise_for_errors()
        .metadata
    )
    assert meta is not None
    for entry in meta.definition_log:
        assert_same(
            entry,
            DefinitionLogEntry.model_validate(entry.model_dump(by_alias=True), strict=True),
        )
