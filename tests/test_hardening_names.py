"""Issue 15, class 7: names are kept as parts from the parser on. A quoted part holding a dot
(Spark's `my.fn`, Trino's "My.Fn") is one part in the result, the warehouse and re-emitted DDL;
quoted names differing only in case are one function, as on the engines; a hostile dotted name
is still refused. The command line's side is tests/cli/test_hardening_names_cli.py."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED
from tests.warehouse.helpers import warehouse
from translator import NameSyntaxError, compile_script, emit_ddl, format_name, parse_name
from translator.errors import TranslatorError
from translator.frontend import parse_script
from translator.ir import CreateFunction
from translator.warehouse.layout import FunctionRef, namespace_folder, namespace_parts

SPARK_DDL = "CREATE FUNCTION `my.fn`(x INT) RETURNS INT RETURN x + 1"
TRINO_DDL = 'CREATE FUNCTION hive.s."My.Fn"(x integer) RETURNS integer RETURN x * 2'
CHECKER = SHARED / "tools" / "trino-grammar-check" / "trino_check.py"


def _created(sql: str, dialect: str) -> CreateFunction:
    parsed = parse_script(sql, dialect)
    assert parsed.errors == [], parsed.errors
    [stmt] = [s for s in parsed.statements if isinstance(s, CreateFunction)]
    return stmt


# -- the text of a name ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("fn", ("fn",)),
        ("ns.fn", ("ns", "fn")),
        ('s."my.fn"', ("s", "my.fn")),
        ("s.`my.fn`", ("s", "my.fn")),
        ('"a""b.c"', ('a"b.c',)),
        ("`a``b.c`", ("a`b.c",)),
        ("odd`name", ("odd`name",)),  # a quote opens a quoted part only at its start
        ('"x".`y.z`.w', ("x", "y.z", "w")),
    ],
)
def test_a_name_text_reads_as_its_parts(text: str, parts: tuple[str, ...]) -> None:
    assert parse_name(text) == parts
    assert parse_name(format_name(parts)) == parts


@pytest.mark.parametrize("text", ["", ".", "a.", ".a", "a..b", '"a', "`a.b", '"a"b', '""', "a.``"])
def test_a_malformed_name_text_is_a_clear_error(text: str) -> None:
    with pytest.raises(NameSyntaxError, match="name"):
        parse_name(text)


def test_writing_then_reading_a_name_gives_its_parts_back() -> None:
    alphabet = ["a", ".", '"', "`", " ", "%"]
    for n in range(1, 5):
        for chars in itertools.product(alphabet, repeat=n):
            part = "".join(chars)
            assert parse_name(format_name((part, "f"))) == (part, "f")


# -- compile and emit, both dialects -----------------------------------------------------------


def test_a_dotted_spark_name_is_one_part_through_compile_and_emit() -> None:
    assert _created(SPARK_DDL, "spark").name == ("my.fn",)
    result = compile_script(SPARK_DDL, "spark").raise_for_errors()
    assert list(result.functions) == ['"my.fn"']
    meta = result.functions['"my.fn"']
    assert meta is not None
    spark_ddl = emit_ddl(meta, "spark", parse_name('"my.fn"')).text
    assert "CREATE FUNCTION `my.fn`(x INT)" in spark_ddl
    assert _created(spark_ddl, "spark").name == ("my.fn",)
    trino_ddl = emit_ddl(meta, "trino", ("hive", "s", "my.fn")).text
    assert 'CREATE FUNCTION hive.s."my.fn"(x integer)' in trino_ddl
    assert _created(trino_ddl, "trino").name == ("hive", "s", "my.fn")


def test_a_dotted_trino_name_is_one_part_through_compile_and_emit() -> None:
    # Trino folds every part of a function's name, quoted or not (its QualifiedName).
    assert _created(TRINO_DDL, "trino").name == ("hive", "s", "my.fn")
    result = compile_script(TRINO_DDL, "trino").raise_for_errors()
    assert list(result.functions) == ['hive.s."my.fn"']
    meta = result.functions['hive.s."my.fn"']
    assert meta is not None
    trino_ddl = emit_ddl(meta, "trino", ("hive", "s", "my.fn")).text
    assert _created(trino_ddl, "trino").name == ("hive", "s", "my.fn")
    spark_ddl = emit_ddl(meta, "spark", ("s", "my.fn")).text
    assert "CREATE FUNCTION s.`my.fn`(x INT)" in spark_ddl
    assert _created(spark_ddl, "spark").name == ("s", "my.fn")


@pytest.mark.parametrize("part", ['my"fn.x', "my`fn.x", "a.b.c"])
def test_quotes_inside_a_dotted_part_are_doubled_in_each_dialect(part: str) -> None:
    meta = compile_script(
        "CREATE FUNCTION `" + part.replace("`", "``") + "`(x INT) RETURNS INT RETURN x", "spark"
    ).raise_for_errors()
    [(key, doc)] = meta.functions.items()
    assert parse_name(key) == (part,)
    assert doc is not None
    assert _created(emit_ddl(doc, "spark", (part,)).text, "spark").name == (part,)
    trino = emit_ddl(doc, "trino", ("c", "s", part)).text
    assert _created(trino, "trino").name == ("c", "s", part)


@pytest.mark.skipif(
    not CHECKER.exists() or shutil.which("java") is None, reason="needs trino-grammar-check"
)
def test_trinos_parser_takes_the_emitted_dotted_names() -> None:
    statements = []
    for part in ["my.fn", 'my"fn.x', "a.b.c"]:
        quoted = '"' + part.replace('"', '""') + '"'
        meta = compile_script(
            f"CREATE FUNCTION hive.s.{quoted}(x integer) RETURNS integer RETURN x", "trino"
        ).raise_for_errors()
        [doc] = meta.functions.values()
        assert doc is not None
        statements.append(emit_ddl(doc, "trino", ("hive", "s", part)).text.rstrip().rstrip(";"))
    payload = "".join(json.dumps({"sql": s}) + "\n" for s in statements)
    done = subprocess.run(
        [str(CHECKER), "--jsonl", "-"], input=payload, capture_output=True, text=True, check=True
    )
    verdicts = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert [v["ok"] for v in verdicts] == [True] * len(statements), (verdicts, statements)


def test_real_spark_creates_and_calls_the_emitted_dotted_name(spark: Any) -> None:
    meta = compile_script(SPARK_DDL, "spark").raise_for_errors().functions['"my.fn"']
    assert meta is not None
    ddl = emit_ddl(meta, "spark", ("default", "my.fn")).text.rstrip().rstrip(";")
    spark.sql(ddl)
    try:
        assert spark.sql("SELECT default.`my.fn`(41) AS v").collect()[0]["v"] == 42
        # One function part my.fn in namespace default (Spark prints it unquoted).
        shown = spark.sql("SHOW USER FUNCTIONS IN default LIKE 'my.fn'").collect()
        assert [r["function"] for r in shown] == ["spark_catalog.default.my.fn"]
    finally:
        spark.sql("DROP FUNCTION IF EXISTS default.`my.fn`")


# -- case -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "dialect", "key"),
    [
        (
            "CREATE FUNCTION `Ab`(x INT) RETURNS INT RETURN x;\n"
            "CREATE OR REPLACE FUNCTION `ab`(x INT) RETURNS INT RETURN x + 1;\n",
            "spark",
            "ab",
        ),
        (
            'CREATE FUNCTION c.s."My.Fn"(x integer) RETURNS integer RETURN x;\n'
            'CREATE OR REPLACE FUNCTION c.s."my.fn"(x integer) RETURNS integer RETURN x + 1;\n',
            "trino",
            'c.s."my.fn"',
        ),
    ],
)
def test_quoted_names_differing_only_in_case_are_one_function(
    script: str, dialect: str, key: str
) -> None:
    result = compile_script(script, dialect).raise_for_errors()
    assert list(result.functions) == [key]  # one function, as on the engine, with two versions
    meta = result.functions[key]
    assert meta is not None and len(meta.definitions[0].versions) == 2


# -- the warehouse ----------------------------------------------------------------------------


def test_a_dotted_name_round_trips_through_the_warehouse_library(tmp_path: Path) -> None:
    wh = warehouse(tmp_path / "wh")
    wh.apply(SPARK_DDL, "spark").raise_for_errors()
    wh.apply(SPARK_DDL.replace("x + 1", "x + 2").replace("CREATE", "CREATE OR REPLACE"), "spark")
    wh.apply(TRINO_DDL, "trino").raise_for_errors()
    assert (tmp_path / "wh" / "default" / "my.fn" / "metadata").is_dir()
    assert (tmp_path / "wh" / "s" / "my.fn" / "metadata").is_dir()
    listed = [str(i.ref) for i in wh.functions()]
    assert listed == ['default."my.fn"', 's."my.fn"']
    for name in listed:  # what is listed is a name that finds the function
        summary, _ = wh.show(name)
        assert summary["function"] == name
    assert "CREATE FUNCTION `my.fn`(x INT)" in wh.emit('"my.fn"', "spark").text
    assert (
        'CREATE FUNCTION hive.s."my.fn"'
        in wh.emit('s."my.fn"', "trino", ddl_name=("hive", "s", "my.fn")).text
    )
    _, entries = wh.history('default."my.fn"')
    assert len(entries) == 2
    wh.rollback("`my.fn`", log_entry=1)
    assert "x + 1" in wh.emit('"my.fn"', "spark").text
    wh.drop('s."my.fn"')
    assert [str(i.ref) for i in wh.functions()] == ['default."my.fn"']


def test_a_namespace_part_holding_a_dot_is_encoded_in_its_folder(tmp_path: Path) -> None:
    wh = warehouse(tmp_path / "wh")
    wh.apply("CREATE FUNCTION `a.b`.`c.d`(x INT) RETURNS INT RETURN x", "spark")
    assert (tmp_path / "wh" / "a%2Eb" / "c.d" / "metadata").is_dir()
    [info] = wh.functions()
    assert info.ref.parts == ("a.b", "c.d") and str(info.ref) == '"a.b"."c.d"'
    assert "CREATE FUNCTION `a.b`.`c.d`(x INT)" in wh.emit(str(info.ref), "spark").text


@pytest.mark.parametrize("part", ["plain", "x%y", "%", "a%2", "odd`name", "a.b", "%2E", "%25"])
def test_the_namespace_encoding_is_reversible_and_keeps_plain_names(part: str) -> None:
    folder = namespace_folder([part])
    assert "." not in folder and namespace_parts(folder) == (part,)
    if "." not in part and "%2E" not in part.upper() and "%25" not in part:
        assert folder == part  # a folder written before the encoding names the same namespace


def test_folders_written_before_resolve_to_the_same_functions(tmp_path: Path) -> None:
    wh = warehouse(tmp_path / "wh")
    wh.apply("CREATE FUNCTION hr.pay(x INT) RETURNS INT RETURN x", "spark").raise_for_errors()
    assert (tmp_path / "wh" / "hr" / "pay" / "metadata").is_dir()
    multi = tmp_path / "wh" / "a.b"  # a Spark multi-level namespace is the folder a.b
    shutil.copytree(tmp_path / "wh" / "hr", multi)
    refs = sorted(i.ref for i in wh.functions())
    assert refs == [FunctionRef("a.b", "pay"), FunctionRef("hr", "pay")]
    assert refs[0].parts == ("a", "b", "pay")
    assert wh.show("cat.a.b.pay")[0]["function"] == "a.b.pay"


@pytest.mark.parametrize(
    "script",
    [
        "CREATE FUNCTION `../x`(x INT) RETURNS INT RETURN x",
        "CREATE FUNCTION `a/b`(x INT) RETURNS INT RETURN x",
        "CREATE FUNCTION `.hidden`(x INT) RETURNS INT RETURN x",
        "CREATE FUNCTION `..`(x INT) RETURNS INT RETURN x",
        "CREATE FUNCTION `..`.f(x INT) RETURNS INT RETURN x",
        "CREATE FUNCTION `.x.y`.f(x INT) RETURNS INT RETURN x",
        "CREATE FUNCTION `a/.b`.f(x INT) RETURNS INT RETURN x",
    ],
)
def test_a_hostile_dotted_name_is_still_refused(script: str, tmp_path: Path) -> None:
    wh = warehouse(tmp_path / "wh")
    with pytest.raises(TranslatorError, match="invalid"):
        wh.apply(script, "spark").raise_for_errors()
    written = [p for p in tmp_path.rglob("*") if p.name.endswith(".metadata.json")]
    assert written == [] and not (tmp_path / "x").exists()


def test_dotted_parts_travel_through_the_rest_catalog(tmp_path: Path) -> None:
    from tests.server.helpers import TOKEN, running_server
    from translator.server import ServerSettings
    from translator.warehouse.rest import RestCatalogClient

    wh = warehouse(tmp_path / "wh")
    wh.apply(SPARK_DDL, "spark").raise_for_errors()
    wh.apply("CREATE FUNCTION `a.b`.c(x INT) RETURNS INT RETURN x", "spark").raise_for_errors()
    wh.apply("CREATE FUNCTION f(x INT) RETURNS INT RETURN x", "spark", namespace="a.b")
    wh.apply("CREATE FUNCTION a.g(x INT) RETURNS INT RETURN x", "spark")
    with running_server(wh, ServerSettings(token=TOKEN)) as url:
        client = RestCatalogClient("rest+" + url + "/udf", token=TOKEN)
        assert sorted(client.list_namespaces()) == [["a"], ["a", "b"], ["a.b"], ["default"]]
        refs = client.functions()
        assert [str(r) for r in refs] == ["a.g", '"a.b".c', "a.b.f", 'default."my.fn"']
        assert [r.parts for r in refs][1:] == [("a.b", "c"), ("a", "b", "f"), ("default", "my.fn")]
        for ref in refs:
            loaded = client.load_function(ref)
            assert loaded.text.encode() == Path(wh.load(ref).location).read_bytes()


def test_register_functions_creates_a_dotted_name_on_spark(spark: Any, tmp_path: Path) -> None:
    from translator.spark import register_functions

    wh = warehouse(tmp_path / "wh")
    wh.apply(SPARK_DDL.replace("x + 1", "x + 5"), "spark").raise_for_errors()
    done = register_functions(spark, wh)
    try:
        assert done.created == ['default."my.fn"'] and done.failed == {}
        assert spark.sql("SELECT default.`my.fn`(1) AS v").collect()[0]["v"] == 6
    finally:
        spark.sql("DROP FUNCTION IF EXISTS default.`my.fn`")
