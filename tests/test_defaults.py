"""Parameter DEFAULTs kept through the metadata (translator/defaults.py); run on Spark in
test_spark_engine.py (fixtures 017-020, 071) and test_pyspark_integration.py."""

from __future__ import annotations

import pytest

from translator.api import compile_script
from translator.emit import emit_ddl
from translator.errors import BodyError

SQL = "CREATE FUNCTION f(a INT, b INT DEFAULT 5, c INT DEFAULT b + 1) RETURNS INT RETURN a + b + c"


def test_one_definition_per_shortened_signature_and_properties_for_spark() -> None:
    meta = compile_script(SQL, "spark").metadata
    assert meta is not None
    bodies = {
        d.definition_id: d.current_version.representation("spark").sql  # type: ignore[union-attr]
        for d in meta.definitions
    }
    assert bodies == {
        "int,int,int": "a + b + c",
        "int,int": "a + b + CAST((b + 1) AS INT)",
        "int": "a + CAST((5) AS INT) + CAST((CAST((5) AS INT) + 1) AS INT)",
    }
    assert meta.properties == {
        "spark.parameter-default.int,int,int.b": "5",
        "spark.parameter-default.int,int,int.c": "b + 1",
        "spark.default-form.int,int": "int,int,int",
        "spark.default-form.int": "int,int,int",
    }
    spark = emit_ddl(meta, "spark", ("f",))
    assert spark.ddl == [
        "CREATE FUNCTION f(a INT, b INT DEFAULT 5, c INT DEFAULT b + 1)\n  RETURNS INT\n"
        "  DETERMINISTIC\n  RETURN a + b + c"
    ]
    assert [w.code for w in spark.warnings] == ["default-form", "default-form"]
    trino = emit_ddl(meta, "trino", ("c", "s", "f"))
    assert len(trino.ddl) == 3  # Trino has overloading and no DEFAULT


def test_deploying_twice_changes_nothing_and_a_removed_default_goes() -> None:
    meta = compile_script(SQL, "spark").metadata
    again = compile_script(SQL.replace("CREATE", "CREATE OR REPLACE"), "spark", into=meta)
    assert {c.action for c in again.changes} == {"unchanged"}
    removed = compile_script(
        "CREATE OR REPLACE FUNCTION f(a INT, b INT DEFAULT 5, c INT) RETURNS INT RETURN a + b + c",
        "spark",
        into=meta,
    )
    # (b DEFAULT then c without one is refused by Spark's grammar check)
    assert removed.errors
    plain = compile_script(
        "CREATE OR REPLACE FUNCTION f(a INT, b INT, c INT) RETURNS INT RETURN a + b + c",
        "spark",
        into=meta,
    )
    m = plain.metadata
    assert m is not None and not any("parameter-default" in k for k in m.properties or {})
    assert "DEFAULT" not in emit_ddl(m, "spark", ("f",)).text


def test_a_hostile_default_in_the_properties_is_refused_at_emit() -> None:
    meta = compile_script(SQL, "spark").metadata
    assert meta is not None
    props = dict(meta.properties or {})
    props["spark.parameter-default.int,int,int.b"] = "5) RETURN 1; DROP TABLE x; --"
    meta.properties = props
    with pytest.raises(BodyError, match="DEFAULT in property"):
        emit_ddl(meta, "spark", ("f",))


@pytest.mark.parametrize("field", ["`a b`", "`a,b`", "`a:b`"])
def test_a_signature_no_definition_id_can_spell_is_refused_with_defaults_too(field: str) -> None:
    """A struct field name the definition-id cannot hold is refused as a positioned error; with
    a DEFAULT, the shortened forms' id was spelled first and its TypeParseError escaped (the
    command's internal error)."""
    sql = f"CREATE FUNCTION f(y INT DEFAULT 1, x STRUCT<{field}:INT> DEFAULT NULL) RETURNS INT "
    (error,) = compile_script(sql + "RETURN y", "spark").errors
    assert "would make the definition-id ambiguous" in str(error)
    assert error.position is not None and (error.position.line, error.position.column) == (1, 1)
