"""Pickling and ``copy`` of a :class:`~translator.script.Token`, of the statement text that holds
its tokens, of an error, and of the other values a parse makes, in both builds.

Compiled by mypyc (the native build, whose suite runs these), a frozen dataclass cannot be
rebuilt by its own state setter (it raises ``FrozenInstanceError``) and a class cannot be made
without its ``__init__`` (``TypeError``): :class:`Token` reduces to its constructor's arguments,
so it copies and pickles in both builds. Every other value (a statement's text and its lexical
rules among them) must copy equal or fail loudly, never come back half made.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from translator.api import compile_script
from translator.dialects.trino import DIALECT as TRINO
from translator.dialects.trino.routines.syntax import parse_routine
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
def test_a_statement_text_keeps_its_text_place_and_tokens_or_fails_loudly(way: str) -> None:
    second = split_statements(SCRIPT, TRINO.lexical, file="s.sql")[1]
    tokens = second.tokens
    try:
        again = WAYS[way](second)
    except (TypeError, dataclasses.FrozenInstanceError):
        return  # the native build: made only by its __init__, its Lexical a frozen dataclass
    assert type(again) is StatementText
    assert (again.text, again.position) == (second.text, second.position)
    assert again.tokens == tokens
    assert [t.text for t in again.words][:3] == ["CREATE", "FUNCTION", "g"]


@pytest.mark.parametrize("way", sorted(WAYS))
def test_an_error_keeps_its_message_and_place(way: str) -> None:
    result = compile_script(SCRIPT + ";\nCREATE FUNCTION h(", "trino")
    error = result.errors[0]
    again = WAYS[way](error)
    assert type(again) is type(error) is SqlSyntaxError
    assert str(again) == str(error)
    assert (again.message, again.position) == (error.message, error.position)


def _values() -> dict[str, Any]:
    """One value of each class a parse and a compile make (first found, by class name)."""
    found: dict[str, Any] = {}
    # Every value walked is kept alive here: a freed one's id may be reused by a later value
    # (the parses below are temporaries), which a set of ids would then skip.
    seen: dict[int, Any] = {}

    def walk(value: Any, depth: int) -> None:
        if depth > 10 or id(value) in seen:
            return
        seen[id(value)] = value
        if isinstance(value, list | tuple):
            for item in value:
                walk(item, depth + 1)
        elif type(value).__module__.startswith("translator."):
            found.setdefault(f"{type(value).__module__}.{type(value).__qualname__}", value)
            if dataclasses.is_dataclass(value):
                for f in dataclasses.fields(value):
                    walk(getattr(value, f.name), depth + 1)

    walk(parse_script(SCRIPT, "trino"), 0)
    walk(
        parse_script("CREATE FUNCTION s(x INT DEFAULT 1) RETURNS STRUCT<a: INT> RETURN x", "spark"),
        0,
    )
    body = "BEGIN DECLARE y integer; IF x > 0 THEN RETURN 1; END IF; RETURN y; END"
    walk(parse_routine(f"CREATE FUNCTION r(x integer) RETURNS integer {body}"), 0)
    walk(compile_script(SCRIPT, "trino"), 0)
    return found


VALUES = _values()


def test_the_walk_finds_the_parse_values() -> None:
    assert {"translator.ir.CreateFunction", "translator.types.ListType"} <= set(VALUES)
    assert "translator.dialects.trino.routines.syntax.IfStmt" in VALUES
    assert "translator.merge.Change" in VALUES


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("name", sorted(VALUES))
def test_every_parse_value_copies_equal_or_fails_loudly(name: str, way: str) -> None:
    value = VALUES[name]
    try:
        again = WAYS[way](value)
    except (TypeError, dataclasses.FrozenInstanceError, pickle.PicklingError):
        return  # the native build's frozen dataclasses: loud, before anything is made
    assert type(again) is type(value)
    if dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            assert getattr(again, f.name) == getattr(value, f.name), f.name
