""":func:`translator.types.parse_type_json` reads the nesting on a stack of its own: compiled by
mypyc (where a call takes no Python frame, so Python's recursion limit does not stop it) a
recursive reader overflowed the C stack on a value 100,000 levels deep and killed the process.
Its results and errors must be a recursive depth-first read's, path included."""

from __future__ import annotations

import resource
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from translator.types import (
    MAX_TYPE_NESTING,
    IcebergType,
    ListType,
    MapType,
    StructField,
    StructType,
    TypeParseError,
    parse_type_json,
    parse_type_string,
)


def _recursive(value: object) -> IcebergType:
    """The reader written as a recursion, one call a level: what the stack must match."""
    if isinstance(value, str):
        return parse_type_string(value)
    if not isinstance(value, dict):
        kind = {list: "an array", bool: "a boolean", int: "a number", float: "a number"}
        got = kind.get(type(value), "null" if value is None else type(value).__name__)
        raise TypeParseError(f"a type must be a string or an object, not {got}")
    kind_name = value.get("type")
    if not isinstance(kind_name, str):
        raise TypeParseError("a nested type object needs a string 'type'", ".type")
    kind_name = kind_name.lower()
    if kind_name == "list":
        return ListType(_child(value, "element"))
    if kind_name == "map":
        return MapType(_child(value, "key"), _child(value, "value"))
    if kind_name == "struct":
        fields = value.get("fields")
        if not isinstance(fields, list):
            raise TypeParseError("a struct needs a 'fields' list", ".fields")
        out = []
        for i, f in enumerate(fields):
            where = f".fields[{i}]"
            if not isinstance(f, dict):
                raise TypeParseError(f"a struct field must be an object, not {_kind(f)}", where)
            name = f.get("name")
            if not isinstance(name, str) or not name:
                raise TypeParseError("a struct field needs a non-empty 'name'", where + ".name")
            if "type" not in f:
                raise TypeParseError("a struct field needs a 'type'", where + ".type")
            try:
                ftype = _recursive(f["type"])
            except TypeParseError as e:
                raise type(e)(e.message, where + ".type" + e.path) from None
            doc = f.get("doc")
            out.append(StructField(name, ftype, doc if isinstance(doc, str) else None))
        try:
            return StructType(out)
        except TypeParseError as e:
            raise type(e)(e.message, ".fields") from None
    raise TypeParseError(f"unsupported nested type {value.get('type')!r}", ".type")


def _kind(value: object) -> str:
    kinds = {list: "an array", bool: "a boolean", int: "a number", float: "a number"}
    return kinds.get(type(value), "null" if value is None else type(value).__name__)


def _child(obj: dict[str, Any], key: str) -> IcebergType:
    if key not in obj:
        raise TypeParseError(f"a {obj.get('type')} type needs '{key}'", f".{key}")
    try:
        return _recursive(obj[key])
    except TypeParseError as e:
        raise type(e)(e.message, f".{key}{e.path}") from None


def _outcome(read: Any, value: object) -> object:
    try:
        return read(value)
    except TypeParseError as e:
        return (type(e), e.message, e.path)


_LEAVES: st.SearchStrategy[object] = st.sampled_from(
    ["int", "STRING", "decimal(9,2)", "nope", "list<int>", 3, None, [], True]
)
_NAMES = st.sampled_from(["a", "b", "", "a b", 7])


def _nest(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    field = st.fixed_dictionaries(
        {"name": _NAMES}, optional={"type": children, "doc": st.sampled_from(["d", 1])}
    )
    return st.one_of(
        st.fixed_dictionaries(
            {"type": st.sampled_from(["list", "LIST"])}, optional={"element": children}
        ),
        st.fixed_dictionaries(
            {"type": st.just("map")}, optional={"key": children, "value": children}
        ),
        st.fixed_dictionaries(
            {"type": st.just("struct"), "fields": st.lists(st.one_of(field, _LEAVES), max_size=3)}
        ),
        st.fixed_dictionaries({"type": st.sampled_from(["set", 5])}),
        st.just({"element": "int"}),
    )


_VALUES = st.recursive(_LEAVES, _nest, max_leaves=12)


def _deep(value: object, depth: int) -> object:
    for i in range(depth):
        value = (
            {"type": "list", "element": value}
            if i % 3
            else {"type": "struct", "fields": [{"name": "x", "type": value}]}
        )
    return value


@settings(max_examples=300, deadline=None)
@given(_VALUES, st.sampled_from([0, 1, MAX_TYPE_NESTING - 2, MAX_TYPE_NESTING + 1]))
def test_the_stack_reads_as_the_recursion_did(value: object, depth: int) -> None:
    """The same type, or the same error class, message and path, around or past the limit."""
    wrapped = _deep(value, depth)
    assert _outcome(parse_type_json, wrapped) == _outcome(_recursive, wrapped)


_CHILD = """
import sys
from translator.types import TypeNestingError, parse_type_json
kind, n = sys.argv[1], int(sys.argv[2])
v = "int"
for _ in range(n):
    if kind == "list":
        v = {"type": "list", "element": v}
    elif kind == "map":
        v = {"type": "map", "key": "string", "value": v}
    else:
        v = {"type": "struct", "fields": [{"name": "a", "type": v}]}
try:
    parse_type_json(v)
except TypeNestingError as e:
    print(e.message)
    print(e.path[:40])
"""


@pytest.mark.parametrize("kind", ["list", "map", "struct"])
def test_a_value_far_deeper_than_any_stack_is_refused_as_too_deep(kind: str) -> None:
    """50,000 levels, in a child process whose C stack is limited to 2 MiB, where the
    recursive reader compiled died at 10,000 (a crash fails this test rather than the suite;
    the native build's suite runs it against the compiled module)."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, kind, "50000"],
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_STACK, (2 << 20, 2 << 20)),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    step = {"list": ".element", "map": ".value", "struct": ".fields[0].type"}[kind]
    message = f"the type nests more than {MAX_TYPE_NESTING} lists, maps and structs deep"
    assert done.stdout.splitlines() == [message, (step * 40)[:40]]
