""":func:`.expr_types.type_of` asks a node's class once (a class table) instead of a chain of
``isinstance`` tests: the types it derives, and the depth at which a deep body is too deep,
must be the chain's."""

from __future__ import annotations

import inspect
import subprocess
import sys
from collections.abc import Mapping

import pytest
import sqlglot
from sqlglot import exp

from benchmarks.corpus import generate
from benchmarks.throughput import _bodies
from tests.sqlglot_samples import expression_classes, parsed_trees
from translator.dialects.trino.routines import expr_types as et
from translator.dialects.trino.routines.expr_types import parse_type, type_of


def _chain(node: exp.Expr, scope: Mapping[str, exp.DataType]) -> exp.DataType | None:
    """``type_of`` as a chain of ``isinstance`` tests, as it was written before the table."""
    if isinstance(node, exp.Literal):
        return et._literal(node)
    if isinstance(node, exp.Null):
        return parse_type("unknown")
    if isinstance(node, et._BOOLEAN):
        return parse_type("boolean")
    if isinstance(node, exp.Column):
        if not node.table:
            return scope.get(node.name.lower())
        base = scope.get(node.table.lower())
        return et._field(base, node.name) if base is not None and not node.args.get("db") else None
    if isinstance(node, exp.Dot):
        return et._field(_chain(node.this, scope), node.name)
    if isinstance(node, exp.Cast | exp.TryCast):
        to = node.args.get("to")
        return to if isinstance(to, exp.DataType) else None
    if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Div | exp.Mod):
        return et._numeric_result(_chain(node.this, scope), _chain(node.expression, scope))
    if isinstance(node, et._SAME_AS_ARGUMENT):
        return _chain(node.this, scope)
    if isinstance(node, exp.Case | exp.If):
        return _chain_branches(node, scope)
    for cls, name in et._FIXED.items():
        if isinstance(node, cls):
            return parse_type(name)
    if isinstance(node, exp.Array):
        elements = [_chain(e, scope) for e in node.expressions]
        if elements and all(e is not None for e in elements):
            return exp.DataType(this=et.T.ARRAY, expressions=[elements[0]], nested=True)
        return None
    if isinstance(node, exp.Bracket):
        base = _chain(node.this, scope)
        if base is None:
            return None
        if base.this == et.T.ARRAY and base.expressions:
            element = base.expressions[0]
            return element if isinstance(element, exp.DataType) else None
        if base.this == et.T.MAP and len(base.expressions) == 2:
            value = base.expressions[1]
            return value if isinstance(value, exp.DataType) else None
        return None
    if isinstance(node, et._ARRAY_RESULT):
        return exp.DataType(this=et.T.ARRAY, expressions=[parse_type("unknown")], nested=True)
    return None


def _chain_branches(node: exp.Expr, scope: Mapping[str, exp.DataType]) -> exp.DataType | None:
    values = [i.args["true"] for i in node.args.get("ifs") or []]
    if not isinstance(node, exp.Case):
        values = [node.args["true"]]
    if node.args.get("default") is not None:
        values.append(node.args["default"])
    result = None
    for v in values:
        t = _chain(v, scope)
        if t is None:
            return None
        if t.this == et.T.UNKNOWN:
            continue
        result = t if result is None else et.common_super_type(result, t)
        if result is None:
            return None
    return result or parse_type("unknown")


_SCOPE = {
    name: parse_type(t)
    for name, t in [
        ("a", "array(integer)"), ("m", "map(varchar, bigint)"),
        ("r", "row(x integer, y varchar)"), ("x", "integer"), ("y", "bigint"),
        ("s", "varchar(5)"), ("d", "double"), ("z", "decimal(10,2)"),
    ]
}  # fmt: skip


def _trees() -> list[exp.Expr]:
    texts = [
        "x + y * 2 - d / 3", "CASE WHEN x > 1 THEN s ELSE 'abc' END", "r.x + length(s)",
        "coalesce(x, 1) + abs(-y)", "ARRAY[x, y]", "transform(a, v -> v + 1)", "NULL",
        "upper(s) || lower(s)", "CAST(x AS decimal(5,2))", "IF(x > 0, d, 1e3)", "rand() + 1.50",
    ] + [text for text, dialect, _ in _bodies(generate(400, 17)) if dialect == "trino"]  # fmt: skip
    return parsed_trees((text, "trino") for text in texts)


def test_type_of_derives_what_the_chain_of_tests_derived() -> None:
    compared = 0
    for tree in _trees():
        for node in tree.walk():
            assert type_of(node, _SCOPE) == _chain(node, _SCOPE), node.sql("trino")
            compared += 1
    assert compared > 2000


def test_every_class_gets_the_rule_of_its_first_test() -> None:
    classes = expression_classes()
    assert len(classes) > 500
    for cls in classes:
        found = et._KINDS[cls]
        if issubclass(cls, exp.Literal):
            assert found is et._LITERAL
        elif issubclass(cls, exp.Null):
            assert found == "unknown"
        elif issubclass(cls, et._BOOLEAN):
            assert found == "boolean"
        elif issubclass(cls, exp.Column):
            assert found is et._COLUMN
        elif issubclass(cls, exp.Dot):
            assert found is et._DOT
        elif issubclass(cls, exp.Cast | exp.TryCast):
            assert found is et._CAST
        elif issubclass(cls, exp.Add | exp.Sub | exp.Mul | exp.Div | exp.Mod):
            assert found is et._ARITHMETIC
        elif issubclass(cls, et._SAME_AS_ARGUMENT):
            assert found is et._SAME
        elif issubclass(cls, exp.Case | exp.If):
            assert found is et._BRANCHES
        elif any(issubclass(cls, f) for f in et._FIXED):
            assert found == next(n for f, n in et._FIXED.items() if issubclass(cls, f))
        elif issubclass(cls, exp.Array):
            assert found is et._ARRAY
        elif issubclass(cls, exp.Bracket):
            assert found is et._BRACKET
        elif issubclass(cls, et._ARRAY_RESULT):
            assert found is et._ARRAY_OF_UNKNOWN
        else:
            assert found is None


@pytest.mark.parametrize("build", [lambda n: "x" + " + x" * n, lambda n: "d" + " * 2" * n])
def test_a_deep_body_is_too_deep_where_it_was(build) -> None:  # type: ignore[no-untyped-def]
    """The recursion takes one frame a level, as the chain did: the depth at which a body is
    too deep (the analyzer then leaves it to Trino, the Spark form refuses it) is unchanged."""
    trees = [(n, sqlglot.parse_one(build(n), read="trino")) for n in range(100, 400, 3)]
    limit = sys.getrecursionlimit()
    depth = len(inspect.stack(0))
    sys.setrecursionlimit(depth + 250)
    try:
        outcomes = {}
        for n, tree in trees:
            for f in (type_of, _chain):
                try:
                    outcomes[n, f] = f(tree, _SCOPE)
                except RecursionError:
                    outcomes[n, f] = "too deep"
    finally:
        sys.setrecursionlimit(limit)
    assert {outcomes[n, type_of] == "too deep" for n, _ in trees} == {True, False}
    for n, _ in trees:
        assert outcomes[n, type_of] == outcomes[n, _chain], n


def test_a_body_far_deeper_than_the_stack_is_compiled_in_one_piece() -> None:
    """200,000 terms: deeper than any stack holds. ``type_of`` recurses one frame a level and
    leaves a tree too deep for Python's recursion limit to the analyzer's "too deep"; compiled
    by mypyc it would recurse past the limit (a native call takes no Python frame) until the C
    stack overflows and the process dies. Run in a child process, so that a crash is a failure
    here rather than the end of the suite (the native build's suite runs this too)."""
    code = (
        "from translator.api import compile_script\n"
        "r = compile_script('CREATE FUNCTION f(x integer) RETURNS integer RETURN x'"
        " + ' + x' * 200_000, 'trino')\n"
        "print(len(r.errors), len(r.functions))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0", "1"]
