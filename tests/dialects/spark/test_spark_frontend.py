"""The Spark front end: fixtures and IR snapshots, errors, type mapping, splitting, fuzzing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tests.conftest import examples
from tests.dialects import harness
from tests.emit_helpers import spec_of
from translator.dialects import Dialect, get_dialect
from translator.dialects.spark import (
    DIALECT,
    ONLY_SQL,
    SparkDialect,
    iceberg_to_spark_type,
    render_create,
    spark_type_to_iceberg,
)
from translator.errors import SqlSyntaxError, TranslatorError, UnsupportedError
from translator.frontend import ParsedScript
from translator.ir import CreateFunction, DropFunction, SkippedStatement
from translator.types import (
    DecimalType,
    FixedType,
    GeographyType,
    GeometryType,
    IcebergType,
    ListType,
    MapType,
    PrimitiveType,
    StructField,
    StructType,
)

VALID = harness.fixtures("spark", "valid")
INVALID = harness.fixtures("spark", "invalid")


def headers(path: Path) -> dict[str, list[str]]:
    """``-- key: value`` lines at the top of a fixture, grouped by key."""
    out: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        m = re.match(r"--\s*([a-z-]+):\s?(.*)$", line)
        if m:
            out.setdefault(m.group(1), []).append(m.group(2).strip())
    return out


def parse(sql: str, file: str | None = None) -> ParsedScript:
    return harness.parse(sql, "spark", file)


def only(sql: str) -> CreateFunction:
    """The single CREATE FUNCTION of ``sql``, failing on any error."""
    return harness.only_function(sql, "spark")


def error_of(sql: str) -> TranslatorError:
    result = parse(sql)
    assert len(result.errors) == 1, (result.statements, result.errors)
    return result.errors[0]


# ---------------------------------------------------------------------------------------------
# Fixtures


def test_fixture_counts() -> None:
    assert len(VALID) >= 60
    assert len(INVALID) >= 20


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_valid_fixture(path: Path, snapshot: SnapshotAssertion) -> None:
    result = parse(path.read_text(), file=path.name)
    assert not result.errors, [str(e) for e in result.errors]
    assert len(result.statements) == 1
    assert not isinstance(result.statements[0], SkippedStatement)
    assert [s.to_dict() for s in result.statements] == snapshot


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_valid_fixture_headers_are_well_formed(path: Path) -> None:
    """A later engine test runs these headers; a typo should fail here first."""
    known = {"call", "setup", "spark-conf", "spark-rejects"}
    for key, values in headers(path).items():
        if key not in known:
            continue
        for value in values:
            assert value, f"{path.name}: empty {key}"
            if key == "call":
                assert " => " in value, f"{path.name}: call without ' => '"
            if key == "spark-conf":
                assert re.fullmatch(r"spark\.[\w.]+=\S+", value), value


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_fixture(path: Path) -> None:
    head = headers(path)
    [at] = head["error-at"]
    [contains] = head["error-contains"]
    result = parse(path.read_text(), file=path.name)
    assert len(result.errors) == 1, [str(e) for e in result.errors]
    err = result.errors[0]
    assert isinstance(err, SqlSyntaxError | UnsupportedError)
    assert err.position is not None
    assert f"{err.position.line}:{err.position.column}" == at
    assert contains in str(err)
    assert str(err).startswith(f"{path.name}:{at}: error: ")
    assert not any(isinstance(s, CreateFunction) and s.name[-1] == "f" for s in result.statements)


# ---------------------------------------------------------------------------------------------
# The IR in detail (the snapshots hold everything; these pin what matters most by name)


def test_dialect_is_registered() -> None:
    typed: Dialect = DIALECT  # mypy checks that it meets the protocol
    d = get_dialect("spark")
    assert isinstance(d, SparkDialect) and d is typed
    assert (d.name, d.sqlglot_dialect) == ("spark", "spark")
    assert d.lexical.backslash_escapes and d.lexical.backquote_identifiers


def test_body_text_is_exact_and_without_return() -> None:
    sql = "CREATE FUNCTION f(x INT) RETURNS INT RETURN   x  +\n  1 -- trailing"
    stmt = only(sql)
    assert stmt.body.text == "x  +\n  1"
    assert stmt.body.kind == "expression"
    assert stmt.body.ast is not None and stmt.body.parse_error is None
    assert stmt.body.position is not None
    assert (stmt.body.position.line, stmt.body.position.column) == (1, 47)


@pytest.mark.parametrize(
    ("body", "table", "kind"),
    [
        ("SELECT 1", False, "query"),
        ("WITH t AS (SELECT 1) SELECT * FROM t", False, "query"),
        ("VALUES (1)", True, "query"),
        ("FROM range(3) SELECT id", True, "query"),
        ("(SELECT 1)", False, "expression"),
        ("(SELECT 1)", True, "query"),
        ("(1 + 2) * 3", False, "expression"),
        ("select_count + 1", False, "expression"),
        ("map('a', 1)", False, "expression"),
    ],
)
def test_body_kind(body: str, table: bool, kind: str) -> None:
    returns = "TABLE (a INT)" if table else "INT"
    assert only(f"CREATE FUNCTION f() RETURNS {returns} RETURN {body}").body.kind == kind


def test_body_sqlglot_cannot_parse_is_kept_and_flagged() -> None:
    stmt = only("CREATE FUNCTION f(x INT) RETURNS INT RETURN x >>> 1")
    assert stmt.body.text == "x >>> 1"
    assert stmt.body.ast is None
    assert stmt.body.parse_error is not None and "sqlglot" in stmt.body.parse_error


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("f", ("f",)),
        ("MixedCase", ("mixedcase",)),
        ("`MixedCase`", ("mixedcase",)),  # as Spark's catalog: quoted names fold too
        ("`a``b`", ("a`b",)),
        ("Db.`Fn`", ("db", "fn")),
        ("Cat.Db.Fn", ("cat", "db", "fn")),
        ("`my cat`.db.fn", ("my cat", "db", "fn")),
        ("IDENTIFIER('Db.`Fn`')", ("db", "fn")),
        ("if", ("if",)),
    ],
)
def test_function_name_case_rule(name: str, parts: tuple[str, ...]) -> None:
    assert only(f"CREATE FUNCTION {name}() RETURNS INT RETURN 1").name == parts


def test_parameter_and_column_names_keep_their_case() -> None:
    stmt = only("CREATE FUNCTION f(Abc INT, `Q r` INT) RETURNS TABLE (Col INT) RETURN SELECT 1")
    assert [p.name for p in stmt.parameters] == ["Abc", "Q r"]
    assert stmt.return_type == StructType([StructField("Col", PrimitiveType("int"))])


def test_defaults_and_docs() -> None:
    stmt = only(
        "CREATE FUNCTION f(a INT DEFAULT (1, 2)[0] COMMENT 'first', b STRING DEFAULT 'x,y')\n"
        "RETURNS INT RETURN a"
    )
    assert [(p.default, p.doc) for p in stmt.parameters] == [
        ("(1, 2)[0]", "first"),
        ("'x,y'", None),
    ]
    assert stmt.warnings == ()  # DEFAULTs are kept (translator/defaults.py)


def test_characteristics() -> None:
    stmt = only(
        "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT NOT DETERMINISTIC READS SQL DATA "
        "SQL SECURITY DEFINER LANGUAGE SQL CALLED ON NULL INPUT COMMENT 'doc' RETURN x"
    )
    assert stmt.deterministic is False
    assert stmt.data_access == "READS SQL DATA"
    assert stmt.security == "DEFINER"
    assert stmt.language == "SQL"
    assert stmt.on_null_input == "call"
    assert stmt.doc == "doc"
    assert stmt.or_replace and not stmt.temporary and not stmt.if_not_exists
    assert set(stmt.positions) == {
        "name", "returns", "deterministic", "data-access", "security", "language",
        "on-null-input", "comment", "body",
    }  # fmt: skip


def test_unsaid_characteristics_are_none() -> None:
    stmt = only("CREATE FUNCTION f() RETURNS INT RETURN 1")
    assert (stmt.deterministic, stmt.data_access, stmt.security, stmt.language) == (None,) * 4
    assert stmt.on_null_input is None and stmt.doc is None and stmt.warnings == ()


def test_comment_before_returns_is_accepted_with_a_note() -> None:
    stmt = only("CREATE FUNCTION f(x INT COMMENT 'in') COMMENT 'doc' RETURNS INT RETURN x")
    assert stmt.doc == "doc"
    assert [(w.code, w.lossy) for w in stmt.warnings] == [("comment-before-returns", False)]


def test_positions_are_relative_to_the_script() -> None:
    script = "SET x = 1;\n\n  CREATE FUNCTION f(\n    a INT)\n  RETURNS INT RETURN a"
    result = parse(script)
    skipped, stmt = result.statements
    assert isinstance(skipped, SkippedStatement) and isinstance(stmt, CreateFunction)
    assert stmt.position is not None and (stmt.position.line, stmt.position.column) == (3, 3)
    p = stmt.parameters[0].position
    assert p is not None and (p.line, p.column) == (4, 5)
    assert (stmt.positions["returns"].line, stmt.positions["returns"].column) == (5, 3)
    assert stmt.position.offset == script.index("CREATE")


def test_string_escapes_in_comments() -> None:
    stmt = only(
        "CREATE FUNCTION f(a INT COMMENT 'it\\'s', b INT COMMENT 'it''s', c INT COMMENT \"q\\\"\")"
        " RETURNS INT COMMENT 'tab\\there \\u0041 \\101 \\%' RETURN 1"
    )
    assert [p.doc for p in stmt.parameters] == ["it's", "it's", 'q"']
    assert stmt.doc == "tab\there A A \\%"


def test_drop_function() -> None:
    [stmt] = parse("DROP TEMPORARY FUNCTION IF EXISTS Foo").statements
    assert isinstance(stmt, DropFunction)
    assert stmt.name == ("foo",)
    assert stmt.parameter_types is None
    assert stmt.if_exists and stmt.temporary


def test_drop_temporary_qualified_is_refused() -> None:
    err = error_of("DROP TEMPORARY FUNCTION db.f")
    assert isinstance(err, SqlSyntaxError)


def test_table_function_return_type() -> None:
    stmt = only(
        "CREATE FUNCTION f(c STRING) RETURNS TABLE (name STRING COMMENT 'n', n INT) "
        "RETURN SELECT c, 1"
    )
    assert stmt.kind == "udtf" and stmt.is_table_function
    assert isinstance(stmt.return_type, StructType)
    assert [(f.name, str(f.type), f.doc) for f in stmt.return_type.fields] == [
        ("name", "string", "n"),
        ("n", "int", None),
    ]


# ---------------------------------------------------------------------------------------------
# Errors


def test_syntax_error_names_file_line_column_caret_and_expected() -> None:
    err = error_of_file("CREATE FUNCTION f(x INT)\n  RETURNS INT\n  DETERMINISTIC DETERMINISTIC")
    assert isinstance(err, SqlSyntaxError)
    text = str(err)
    lines = text.splitlines()
    assert lines[0] == "f.sql:3:30: error: unexpected end of statement"
    assert lines[1] == "      DETERMINISTIC DETERMINISTIC"
    assert lines[2] == " " * (4 + 29) + "^"
    assert lines[3].startswith("expected one of: ") and "RETURN" in err.expected


def error_of_file(sql: str) -> TranslatorError:
    result = parse(sql, file="f.sql")
    assert len(result.errors) == 1
    return result.errors[0]


def test_expected_list_is_precise() -> None:
    """LALR merges states; only tokens that really fit are listed."""
    err = error_of("CREATE FUNCTION f(x INT GENERATED) RETURNS INT RETURN 1")
    assert set(err.expected) == {"(", ")", ",", "COLLATE", "COMMENT", "DEFAULT", "WITHOUT"}


def test_error_does_not_swallow_the_rest_as_one_token() -> None:
    err = error_of("CREATE FUNCTION (x INT) RETURNS INT RETURN 1")
    assert err.message == "unexpected '('"


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE FUNCTION f AS 'com.example.Udf'",
        "CREATE TEMPORARY FUNCTION f AS 'com.example.Udf' USING JAR '/x.jar', FILE '/y'",
        "CREATE FUNCTION f AS b",
        "CREATE FUNCTION f(s STRING) RETURNS STRING LANGUAGE PYTHON AS $$ return s $$",
        "CREATE FUNCTION f(s STRING) RETURNS STRING AS $$ return s $$",
        "CREATE FUNCTION f(x INT) RETURNS INT LANGUAGE PYTHON RETURN x",
        "CREATE FUNCTION RETURNS STRING LANGUAGE PYTHON AS $$ return s $$",
    ],
)
def test_non_sql_functions_are_refused(sql: str) -> None:
    err = error_of(sql)
    assert isinstance(err, UnsupportedError)
    assert ONLY_SQL in err.message


# ---------------------------------------------------------------------------------------------
# Type mapping


def t(name: str) -> IcebergType:
    return PrimitiveType(name)


@pytest.mark.parametrize(
    ("spark", "iceberg", "lossy"),
    [
        ("BOOLEAN", t("boolean"), False),
        ("TINYINT", t("int"), True),
        ("BYTE", t("int"), True),
        ("SMALLINT", t("int"), True),
        ("SHORT", t("int"), True),
        ("INT", t("int"), False),
        ("INTEGER", t("int"), False),
        ("BIGINT", t("long"), False),
        ("LONG", t("long"), False),
        ("FLOAT", t("float"), False),
        ("REAL", t("float"), False),
        ("DOUBLE", t("double"), False),
        ("DECIMAL", DecimalType(10, 0), False),
        ("DEC(5)", DecimalType(5, 0), False),
        ("NUMERIC(38, 2)", DecimalType(38, 2), False),
        ("decimal( 9 ,2 )", DecimalType(9, 2), False),
        ("STRING", t("string"), False),
        ("STRING COLLATE UTF8_BINARY", t("string"), False),
        ("STRING COLLATE UNICODE_CI", t("string"), True),
        ("CHAR(3)", t("string"), True),
        ("CHARACTER(3)", t("string"), True),
        ("VARCHAR(3)", t("string"), True),
        ("DATE", t("date"), False),
        ("TIMESTAMP", t("timestamptz"), False),
        ("TIMESTAMP_LTZ", t("timestamptz"), False),
        ("TIMESTAMP_NTZ", t("timestamp"), False),
        ("TIMESTAMP WITHOUT TIME ZONE", t("timestamp"), False),
        ("BINARY", t("binary"), False),
        ("VOID", t("unknown"), False),
        ("VARIANT", t("variant"), False),
        ("GEOMETRY(4326)", GeometryType(), False),
        ("GEOMETRY(3857)", GeometryType("EPSG:3857"), False),
        ("GEOMETRY(0)", GeometryType("SRID:0"), False),
        ("GEOGRAPHY(4326)", GeographyType(), False),
        ("ARRAY<INT>", ListType(t("int")), False),
        ("ARRAY<SHORT>", ListType(t("int")), True),
        ("MAP<STRING, ARRAY<BIGINT>>", MapType(t("string"), ListType(t("long"))), False),
        (
            "STRUCT<a: INT, b STRING COMMENT 'bee'>",
            StructType([StructField("a", t("int")), StructField("b", t("string"), "bee")]),
            False,
        ),
        ("STRUCT<a: INT NOT NULL>", StructType([StructField("a", t("int"))]), True),
        ("STRUCT<>", StructType([]), False),
        (
            "ARRAY<MAP<STRING, STRUCT<x: ARRAY<ARRAY<DATE>>>>>",
            ListType(
                MapType(t("string"), StructType([StructField("x", ListType(ListType(t("date"))))]))
            ),
            False,
        ),
    ],
)
def test_spark_type_to_iceberg(spark: str, iceberg: IcebergType, lossy: bool) -> None:
    mapped, warnings = spark_type_to_iceberg(spark)
    assert mapped == iceberg
    assert type_to_doc(mapped) == type_to_doc(iceberg)
    assert bool(warnings) == lossy
    assert all(w.code == "lossy-type" and w.lossy for w in warnings)


def type_to_doc(tp: IcebergType) -> Any:
    """Struct docs are not part of type equality: compare them too."""
    if isinstance(tp, StructType):
        return [(f.name, f.doc, type_to_doc(f.type)) for f in tp.fields]
    return str(tp)


@pytest.mark.parametrize(
    ("spark", "error", "words"),
    [
        ("INTERVAL DAY", UnsupportedError, "INTERVAL DAY"),
        ("INTERVAL YEAR TO MONTH", UnsupportedError, "INTERVAL YEAR TO MONTH"),
        ("TIME(6)", UnsupportedError, "TIME(6)"),
        ("TIME", UnsupportedError, "TIME"),
        ("GEOMETRY(ANY)", UnsupportedError, "GEOMETRY(ANY)"),
        ("GEOGRAPHY(3857)", UnsupportedError, "GEOGRAPHY(3857)"),
        ("FOO", UnsupportedError, "FOO"),
        ("DECIMAL(39)", UnsupportedError, "39"),
        ("DECIMAL(5, 6)", UnsupportedError, "scale"),
        ("DECIMAL(1, 2, 3)", SqlSyntaxError, "DECIMAL"),
        ("CHAR", SqlSyntaxError, "length"),
        ("INT(5)", SqlSyntaxError, "INT(5)"),
        ("STRUCT<a: INT, a: INT>", UnsupportedError, "duplicate"),
        ("DATE WITHOUT TIME ZONE", SqlSyntaxError, "TIMESTAMP"),
        ("ARRAY<INT", SqlSyntaxError, "'>'"),
    ],
)
def test_spark_type_errors(spark: str, error: type[TranslatorError], words: str) -> None:
    with pytest.raises(error) as info:
        spark_type_to_iceberg(spark)
    assert words in str(info.value)
    assert info.value.position is not None


@pytest.mark.parametrize(
    ("iceberg", "spark"),
    [
        (t("boolean"), "BOOLEAN"),
        (t("int"), "INT"),
        (t("long"), "BIGINT"),
        (t("float"), "FLOAT"),
        (t("double"), "DOUBLE"),
        (DecimalType(9, 2), "DECIMAL(9,2)"),
        (t("date"), "DATE"),
        (t("timestamp"), "TIMESTAMP_NTZ"),
        (t("timestamptz"), "TIMESTAMP"),
        (t("string"), "STRING"),
        (t("uuid"), "STRING"),
        (t("binary"), "BINARY"),
        (FixedType(16), "BINARY"),
        (t("variant"), "VARIANT"),
        (t("unknown"), "VOID"),
        (GeometryType(), "GEOMETRY(4326)"),
        (GeometryType("EPSG:3857"), "GEOMETRY(3857)"),
        (GeographyType(), "GEOGRAPHY(4326)"),
        (ListType(t("int")), "ARRAY<INT>"),
        (MapType(t("string"), t("int")), "MAP<STRING, INT>"),
        (
            StructType([StructField("a", t("int")), StructField("b c", t("string"), "it's")]),
            "STRUCT<a: INT, `b c`: STRING COMMENT 'it\\'s'>",
        ),
    ],
)
def test_iceberg_to_spark_type(iceberg: IcebergType, spark: str) -> None:
    assert iceberg_to_spark_type(iceberg) == spark


@pytest.mark.parametrize("name", ["time", "timestamp_ns", "timestamptz_ns"])
def test_iceberg_types_spark_cannot_hold(name: str) -> None:
    with pytest.raises(UnsupportedError, match=f"Spark has no type for Iceberg {name}"):
        iceberg_to_spark_type(ListType(t(name)))


@pytest.mark.parametrize(
    "iceberg",
    [GeographyType("EPSG:3857"), GeographyType(None, None), GeometryType("projjson:x")],
    ids=["geography-3857", "geography-default", "geometry-projjson"],
)
def test_geo_round_trip_or_refusal(iceberg: IcebergType) -> None:
    try:
        spelled = iceberg_to_spark_type(iceberg)
    except UnsupportedError:
        return
    assert spark_type_to_iceberg(spelled)[0] == iceberg


@pytest.mark.parametrize(
    "spark",
    ["INT", "ARRAY<MAP<STRING, DECIMAL(10,2)>>", "STRUCT<a: TIMESTAMP, b: TIMESTAMP_NTZ>", "VOID"],
)
def test_type_round_trip(spark: str) -> None:
    iceberg, _ = spark_type_to_iceberg(spark)
    assert spark_type_to_iceberg(iceberg_to_spark_type(iceberg))[0] == iceberg


# ---------------------------------------------------------------------------------------------
# Script splitting (Spark lexical rules)


def kinds(result: ParsedScript) -> list[str]:
    return [type(s).__name__ for s in result.statements]


def test_split_comments_with_semicolons() -> None:
    script = (
        "-- a comment; with a semicolon\n"
        "/* block; comment */ CREATE FUNCTION a() RETURNS INT RETURN 1; -- after;\n"
        "CREATE FUNCTION b() RETURNS INT RETURN /* skipped */ 2 /* ; kept */ + 0;"
    )
    result = parse(script)
    assert not result.errors
    a, b = result.statements
    assert isinstance(a, CreateFunction) and isinstance(b, CreateFunction)
    assert (a.body.text, b.body.text) == ("1", "2 /* ; kept */ + 0")


def test_split_strings_with_semicolons_dashes_and_escaped_quotes() -> None:
    script = (
        "CREATE FUNCTION a() RETURNS STRING RETURN 'x; -- it\\'s; done';\n"
        'CREATE FUNCTION b() RETURNS STRING RETURN "y; \\" --;";\n'
        "CREATE FUNCTION c() RETURNS STRING RETURN 'it''s;'"
    )
    result = parse(script)
    assert not result.errors, [str(e) for e in result.errors]
    bodies = [s.body.text for s in result.statements if isinstance(s, CreateFunction)]
    assert bodies == ["'x; -- it\\'s; done'", '"y; \\" --;"', "'it''s;'"]


def test_split_backquoted_identifiers() -> None:
    script = "CREATE FUNCTION `a;--b`(`x;y` INT) RETURNS INT RETURN `x;y`; DROP FUNCTION `a;--b`"
    result = parse(script)
    assert not result.errors
    create, drop = result.statements
    assert isinstance(create, CreateFunction) and isinstance(drop, DropFunction)
    assert create.name == ("a;--b",) and create.parameters[0].name == "x;y"
    assert drop.name == ("a;--b",)


def test_non_function_statements_are_skipped_with_a_note() -> None:
    script = (
        "USE db; SET spark.sql.ansi.enabled = true;\n"
        "CREATE TABLE t (a INT) USING parquet;\n"
        "CREATE FUNCTION f() RETURNS INT RETURN 1;\n"
        "SELECT f(); CREATE VIEW v AS SELECT 1"
    )
    result = parse(script)
    assert not result.errors
    assert kinds(result) == [
        "SkippedStatement", "SkippedStatement", "SkippedStatement", "CreateFunction",
        "SkippedStatement", "SkippedStatement",
    ]  # fmt: skip
    reasons = [s.reason for s in result.statements if isinstance(s, SkippedStatement)]
    assert reasons[0] == "not function DDL (USE DB)"
    assert reasons[2] == "not function DDL (CREATE TABLE)"


def test_one_bad_statement_stops_nothing() -> None:
    script = "CREATE FUNCTION a( RETURNS INT RETURN 1; CREATE FUNCTION b() RETURNS INT RETURN 2"
    result = parse(script)
    assert len(result.errors) == 1 and kinds(result) == ["CreateFunction"]


def test_unterminated_string_is_a_positioned_error() -> None:
    err = error_of("CREATE FUNCTION a() RETURNS STRING RETURN 'it\\'s")
    assert isinstance(err, SqlSyntaxError) and "unterminated string" in err.message


# ---------------------------------------------------------------------------------------------
# Fuzzing: whatever the input, only TranslatorErrors come out


SEEDS = [p.read_text() for p in VALID] + [p.read_text() for p in INVALID]
PIECES = [
    "(", ")", ",", "<", ">", ":", ";", "'", '"', "`", "--", "/*", "*/", "$$", "\\", ".",
    " RETURN ", " RETURNS ", " TABLE ", " COMMENT 'c' ", " DEFAULT ", " NOT ", " NULL ",
    " STRUCT<", " ARRAY<", " MAP<", " INTERVAL ", " AS ", " LANGUAGE ", " IDENTIFIER(",
    " DECIMAL(99,99) ", " TIMESTAMP WITHOUT TIME ZONE ", " CREATE FUNCTION ", "\n", "é", "\x00",
]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "replace"]))
        piece = draw(st.sampled_from(PIECES) | st.text(max_size=4))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + piece + text[i:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i] + piece + text[j:]
    return text


def check_never_crashes(text: str) -> None:
    harness.check_never_crashes(text, "spark")


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_fuzz_mutated_statements(text: str) -> None:
    check_never_crashes(text)


ALPHABET = "CREATE FUNCTION RETURNS()<>,:;'\"`-/*$\\ \nabcx1"


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=80) | st.text(max_size=40))
def test_fuzz_random_text(text: str) -> None:
    check_never_crashes(text)


@pytest.mark.parametrize("depth", [200, 250, 300, 500, 3000])
@pytest.mark.parametrize("opener", ["ARRAY<", "STRUCT<a: "])
def test_deep_nesting_is_an_error_not_a_crash(opener: str, depth: int) -> None:
    """Around 250 levels the limit used to be hit inside a transformer callback (lark's
    VisitError escaped); parsing or building, too deep is a positioned error."""
    deep = opener * depth + "INT" + ">" * depth
    check_never_crashes(f"CREATE FUNCTION f(x {deep}) RETURNS INT RETURN 1")


def fixture_types() -> list[IcebergType]:
    """Every parameter and return type the valid fixtures produce."""
    out: list[IcebergType] = []
    for path in VALID:
        for stmt in parse(path.read_text()).statements:
            if isinstance(stmt, CreateFunction):
                out += [p.type for p in stmt.parameters]
                out.append(stmt.return_type)
    return out


def test_fixture_types_round_trip_through_spark_spelling() -> None:
    for tp in fixture_types():
        spelled = iceberg_to_spark_type(tp)
        back, _ = spark_type_to_iceberg(spelled)
        assert back == tp, spelled
        assert type_to_doc(back) == type_to_doc(tp), spelled


# ---------------------------------------------------------------------------------------------
# Emission: render_create, read back by the front end


CREATES = [
    s for p in VALID for s in parse(p.read_text()).statements if isinstance(s, CreateFunction)
]


@pytest.mark.parametrize("stmt", CREATES, ids=lambda s: ".".join(s.name))
def test_render_create_reads_back(stmt: CreateFunction) -> None:
    rendered = render_create(spec_of(stmt), or_replace=True)
    assert rendered.lossy == ()
    back = only(rendered.text)
    assert back.or_replace
    assert back.name == stmt.name
    assert [(p.name, p.type, p.doc) for p in back.parameters] == [
        (p.name, p.type, p.doc) for p in stmt.parameters
    ]
    assert back.return_type == stmt.return_type
    assert type_to_doc(back.return_type) == type_to_doc(stmt.return_type)
    assert (back.kind, back.doc) == (stmt.kind, stmt.doc)
    assert back.deterministic == bool(stmt.deterministic)
    assert (back.body.text, back.body.kind) == (stmt.body.text, stmt.body.kind)
    assert not any(w.lossy for w in back.warnings)


def test_render_create_text() -> None:
    stmt = only(
        "CREATE FUNCTION Db.`Fn`(x INT COMMENT 'it''s', `a b` STRUCT<c: SHORT>) "
        "RETURNS TABLE (n STRING COMMENT 'n') COMMENT 'doc' RETURN SELECT 'x'"
    )
    rendered = render_create(spec_of(stmt))
    assert rendered.text == (
        "CREATE FUNCTION db.fn(x INT COMMENT 'it\\'s', `a b` STRUCT<c: INT>)\n"
        "  RETURNS TABLE (n STRING COMMENT 'n')\n"
        "  COMMENT 'doc'\n"
        "  NOT DETERMINISTIC\n"
        "  RETURN SELECT 'x'"
    )


def test_render_create_reports_and_refuses() -> None:
    stmt = only("CREATE FUNCTION f(x INT) RETURNS INT RETURN x")
    lossy = render_create(
        spec_of(
            stmt,
            parameters=(("x", PrimitiveType("uuid"), None), ("y", ListType(FixedType(4)), None)),
            on_null_input="return-null",
        )
    )
    assert "x STRING, y ARRAY<BINARY>" in lossy.text
    assert len(lossy.lossy) == 2  # uuid -> STRING, fixed[4] -> BINARY
    # Spark has no RETURNS NULL ON NULL INPUT: a guard keeps the meaning.
    assert lossy.text.endswith("RETURN CASE WHEN x IS NULL OR y IS NULL THEN NULL ELSE (x) END")
    with pytest.raises(UnsupportedError, match="returns null on null input"):
        render_create(
            spec_of(
                stmt,
                kind="udtf",
                return_type=StructType([StructField("c", PrimitiveType("int"))]),
                on_null_input="return-null",
            )
        )
    with pytest.raises(UnsupportedError, match="BEGIN"):
        render_create(spec_of(stmt, body="BEGIN RETURN 1; END", body_kind="compound"))
    with pytest.raises(UnsupportedError, match="1 to 3 parts"):
        render_create(spec_of(stmt, name=("a", "b", "c", "d")))
    with pytest.raises(
        UnsupportedError, match="the return type: Spark has no type for Iceberg time"
    ):
        render_create(spec_of(stmt, return_type=PrimitiveType("time")))
    with pytest.raises(UnsupportedError, match="without result columns"):
        render_create(spec_of(stmt, kind="udtf", return_type=PrimitiveType("int")))


@pytest.mark.parametrize(
    ("sql", "error", "words"),
    [
        (
            "CREATE FUNCTION f(x INT DEFAULT 1 DEFAULT 2) RETURNS INT RETURN x",
            SqlSyntaxError,
            "two DEFAULT",
        ),
        (
            "CREATE FUNCTION f(x INT COMMENT 'a' COMMENT 'b') RETURNS INT RETURN x",
            SqlSyntaxError,
            "two COMMENT",
        ),
        (
            "CREATE FUNCTION f(s STRUCT<a INT COMMENT 'x' NOT NULL>) RETURNS INT RETURN 1",
            SqlSyntaxError,
            "'NOT'",
        ),
        ("CREATE FUNCTION f(`` INT) RETURNS INT RETURN 1", UnsupportedError, "empty name"),
        (
            "CREATE FUNCTION f() RETURNS TABLE (`` INT) RETURN SELECT 1",
            UnsupportedError,
            "empty name",
        ),
        ("CREATE FUNCTION IDENTIFIER('a..b')() RETURNS INT RETURN 1", SqlSyntaxError, "IDENTIFIER"),
        (
            "CREATE FUNCTION f() RETURNS INT RETURNS INT RETURN 1",
            SqlSyntaxError,
            "duplicate RETURNS",
        ),
        ("CREATE FUNCTION f() RETURNS TABLE () RETURN SELECT 1", SqlSyntaxError, "unexpected ')'"),
    ],
)
def test_more_refusals(sql: str, error: type[TranslatorError], words: str) -> None:
    err = error_of(sql)
    assert isinstance(err, error)
    assert words in str(err)
