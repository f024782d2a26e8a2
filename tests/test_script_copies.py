"""Pickling and ``copy`` of every value a parse and a compile make, in both builds.

Compiled by mypyc (the native build, whose suite runs these), a frozen dataclass cannot be
rebuilt by its own state setter (``FrozenInstanceError``) and a class with its own ``__init__``
cannot be made without it (``TypeError``): such classes reduce to their constructor's arguments
(:func:`translator.rebuild.by_init`, or a ``__reduce__`` of their own), so every value here must
come back equal (same type, equal fields, same hash) from ``copy``, ``deepcopy`` and ``pickle``.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from translator.api import compile_script
from translator.compile import CompileOptions, Context
from translator.dialects.spark import DIALECT as SPARK_DIALECT
from translator.dialects.trino import DIALECT as TRINO
from translator.dialects.trino.routines.analyzer import analyze
from translator.dialects.trino.routines.syntax import parse_routine
from translator.emit import routine_spec
from translator.errors import SqlSyntaxError
from translator.frontend import parse_script
from translator.script import StatementText, Token, split_statements

SCRIPT = (
    "-- two functions\nCREATE FUNCTION f(x integer) RETURNS integer RETURN x + 1;\n"
    "CREATE FUNCTION g(y array(row(a integer))) RETURNS varchar RETURN 'it''s'"
)

WAYS: dict[str, Callable[[Any], Any]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda value: pickle.loads(pickle.dumps(value)),
}


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_token_copies_and_pickles_equal(way: str) -> None:
    token = Token("qident", 3, 9, '"Na""me"')
    again = WAYS[way](token)
    assert type(again) is Token
    assert again == token
    assert hash(again) == hash(token)
    assert again.upper == '"NA""ME"'
    assert TRINO.lexical.name(again) == 'na"me'


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_statement_text_keeps_its_text_place_and_tokens(way: str) -> None:
    second = split_statements(SCRIPT, TRINO.lexical, file="s.sql")[1]
    tokens = second.tokens
    again = WAYS[way](second)
    assert type(again) is StatementText
    assert (again.text, again.position) == (second.text, second.position)
    assert again.tokens == tokens
    assert [t.text for t in again.words][:3] == ["CREATE", "FUNCTION", "g"]
    # its lexical rules came along: Trino's, where a double-quoted word is a name
    assert [t.kind for t in WAYS[way](split_statements('SELECT "a"', TRINO.lexical)[0]).words] == [
        "word",
        "qident",
    ]


@pytest.mark.parametrize("way", sorted(WAYS))
def test_an_error_keeps_its_message_and_place(way: str) -> None:
    result = compile_script(SCRIPT + ";\nCREATE FUNCTION h(", "trino")
    error = result.errors[0]
    again = WAYS[way](error)
    assert type(again) is type(error) is SqlSyntaxError
    assert str(again) == str(error)
    assert (again.message, again.position) == (error.message, error.position)


ROUTINE = """CREATE FUNCTION r(x integer) RETURNS integer
DETERMINISTIC RETURNS NULL ON NULL INPUT COMMENT 'r'
BEGIN
  DECLARE y, z integer DEFAULT 0;
  top: LOOP
    SET y = y + 1;
    IF y > 3 THEN LEAVE top; ELSEIF y = 2 THEN ITERATE top; ELSE SET z = z + y; END IF;
  END LOOP;
  WHILE z > 10 DO SET z = z - 1; END WHILE;
  REPEAT SET z = z + 1; UNTIL z > 0 END REPEAT;
  CASE x WHEN 1 THEN RETURN 1; ELSE SET y = 0; END CASE;
  CASE WHEN x > 1 THEN RETURN 2; END CASE;
  RETURN y + z;
END"""

SPARK = (
    "CREATE FUNCTION s(d DECIMAL(10, 2), m MAP<STRING, ARRAY<BINARY>>, x INT DEFAULT 1)"
    " RETURNS STRUCT<a: INT COMMENT 'the a'> RETURN named_struct('a', x);"
    "DROP FUNCTION IF EXISTS gone;"
    "SELECT 1"
)


def _values() -> dict[str, Any]:
    """One value of each class a parse and a compile make (first found, by class name)."""
    found: dict[str, Any] = {}
    # Every value walked is kept alive here: a freed one's id may be reused by a later value
    # (the parses below are temporaries), which a set of ids would then skip.
    seen: dict[int, Any] = {}

    def walk(value: Any, depth: int) -> None:
        if depth > 40 or id(value) in seen:
            return
        seen[id(value)] = value
        if isinstance(value, list | tuple):
            for item in value:
                walk(item, depth + 1)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item, depth + 1)
        elif type(value).__module__.startswith("translator."):
            found.setdefault(f"{type(value).__module__}.{type(value).__qualname__}", value)
            for name in _attributes(value):
                walk(getattr(value, name, None), depth + 1)
            if _reduces(value):  # compiled, a class of its own shows no slots: its arguments
                walk(value.__reduce__(), depth + 1)

    walk(parse_script(SCRIPT, "trino"), 0)
    walk([(p, p.tokens) for p in split_statements(SCRIPT, TRINO.lexical, file="s.sql")], 0)
    walk(parse_script(SPARK, "spark"), 0)
    walk(parse_routine(ROUTINE), 0)
    walk(analyze(ROUTINE.replace("RETURN y + z;", "")), 0)  # may fall off the end: a problem
    trino = compile_script(SCRIPT, "trino")
    walk(trino, 0)
    walk(compile_script(SPARK, "spark"), 0)
    metadata = trino.functions["f"]
    assert metadata is not None
    definition = metadata.definitions[0]
    spec, _ = routine_spec(("f",), definition, definition.current_version, "spark")
    walk([spec, SPARK_DIALECT.render_create(spec)], 0)
    walk([CompileOptions(targets=("spark",)), Context()], 0)
    return found


def _reduces(value: Any) -> bool:
    """Whether ``value`` is no dataclass and reduces to its constructor's arguments."""
    return not dataclasses.is_dataclass(value) and type(value).__reduce__ is not object.__reduce__


def _attributes(value: Any) -> list[str]:
    """The names of what ``value`` holds: its fields, slots or instance attributes."""
    if dataclasses.is_dataclass(value):
        return [f.name for f in dataclasses.fields(value)]
    slots = [n for c in type(value).__mro__ for n in getattr(c, "__slots__", ())]
    return slots + list(getattr(value, "__dict__", {}))


VALUES = _values()

#: The classes the walk must find: each value of them a user can be handed copies by its
#: constructor (the frozen dataclasses of the compiled modules, and the statement text).
REBUILT = {
    "translator.compile.CompileOptions",
    "translator.compile.Context",
    "translator.dialects.base.Rendered",
    "translator.dialects.base.RoutineSpec",
    "translator.dialects.trino.routines.analyzer.RoutineProblem",
    *(
        f"translator.dialects.trino.routines.syntax.{name}"
        for name in (
            "Block",
            "CaseStmt",
            "Characteristic",
            "Declare",
            "Expr",
            "IfStmt",
            "Iterate",
            "Leave",
            "LoopStmt",
            "Name",
            "RepeatStmt",
            "Return",
            "Routine",
            "SetStmt",
            "WhileStmt",
        )
    ),
    "translator.ir.Body",
    "translator.ir.CreateFunction",
    "translator.ir.DropFunction",
    "translator.ir.Parameter",
    "translator.ir.SkippedStatement",
    "translator.merge.Change",
    "translator.script.Lexical",
    "translator.script.StatementText",
    "translator.script.Token",
    *(
        f"translator.types.{name}"
        for name in (
            "DecimalType",
            "ListType",
            "MapType",
            "PrimitiveType",
            "StructField",
            "StructType",
        )
    ),
}


def test_the_walk_finds_every_value_a_user_can_be_handed() -> None:
    assert set(VALUES) >= REBUILT, sorted(REBUILT - set(VALUES))
    assert "translator.api.CompileResult" in VALUES


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("name", sorted(VALUES))
def test_every_value_copies_and_pickles_equal(name: str, way: str) -> None:
    value = VALUES[name]
    again = WAYS[way](value)
    assert type(again) is type(value)
    # every field; of another class, what it shows (a statement text's tokens are a cache)
    shown = dataclasses.is_dataclass(value) or not hasattr(value, "__slots__")
    for attribute in _attributes(value):
        if shown or not attribute.startswith("_"):
            assert getattr(again, attribute) == getattr(value, attribute), attribute
    if _reduces(value):
        assert again.__reduce__()[1:] == value.__reduce__()[1:]
    if dataclasses.is_dataclass(value) or type(value).__eq__ is not object.__eq__:
        assert again == value
    if type(value).__hash__ is not None and type(value).__eq__ is not object.__eq__:
        assert hash(again) == hash(value)


@pytest.mark.parametrize("way", ["deepcopy", "pickle"])
def test_a_whole_compile_result_comes_back_equal(way: str) -> None:
    """What a user hands to multiprocessing or PySpark: the result, metadata and changes."""
    result = compile_script(SCRIPT, "trino")
    again = WAYS[way](result)
    assert again.functions == result.functions
    assert [m and m.model_dump() for m in again.functions.values()] == [
        m and m.model_dump() for m in result.functions.values()
    ]
    assert again.changes == result.changes
    assert [str(c) for c in again.changes] == [str(c) for c in result.changes]
    assert again.dump("g") == result.dump("g")
