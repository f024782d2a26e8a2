"""The shared sqlglot dialect instances (:mod:`translator.sqlglot_dialects`): one instance serves
every call in every thread only if sqlglot never changes an instance after making it, and gives
what a dialect named by a string gives."""

from __future__ import annotations

import ast
import copy
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError

from benchmarks.corpus import generate
from benchmarks.throughput import _bodies
from translator.sqlglot_dialects import GENERIC, SPARK, TRINO, dialect_named

_SQLGLOT = Path(sqlglot.__file__).parent


def _samples() -> list[tuple[str, str, str | None]]:
    """``(body, source, target)`` of the benchmark corpus's bodies, and a few of our own."""
    own: list[tuple[str, str, str | None]] = [
        ("x + 1", "trino", "spark"),
        ("CASE WHEN a[1] > 0 THEN transform(b, v -> v * 2) ELSE ARRAY[c, d] END", "trino", "spark"),
        ("SELECT max(x) FROM (SELECT 1 AS x)", "spark", "trino"),
        ("concat_ws('-', a, b) || date_trunc('MM', d)", "spark", "trino"),
    ]
    return own + _bodies(generate(120, 11))


def test_the_names_give_the_shared_instances() -> None:
    assert dialect_named("spark") is SPARK and dialect_named("trino") is TRINO
    assert type(dialect_named("spark")) is type(Dialect.get_or_raise("spark"))
    assert type(dialect_named("trino")) is type(Dialect.get_or_raise("trino"))
    assert type(GENERIC) is type(Dialect.get_or_raise(None))
    assert type(dialect_named("duckdb")) is type(Dialect.get_or_raise("duckdb"))


def test_sqlglot_assigns_to_a_dialect_only_when_it_makes_it() -> None:
    """Read in sqlglot's source: the base class sets attributes of ``self`` only in
    ``__init__``, no dialect class sets any in a method, and no module assigns to an attribute
    of anything it calls a dialect (``self.dialect.x = ...``, ``dialect.x = ...``) or calls
    ``setattr`` on one."""
    found = []
    for path in sorted(_SQLGLOT.rglob("*.py")):
        # a module per dialect in sqlglot/dialects: its classes are dialects
        found += _dialect_writes(path.read_text(), path.name, path.parent.name == "dialects")
    assert found == []


def test_the_source_check_sees_writes_to_a_dialect() -> None:
    source = """
class Hive(Dialect):
    def __init__(self):
        self.x = 1
    def later(self):
        self.y = 2
    class Parser:
        def parse(self):
            self.sql = ""
            self.dialect.z = 3
def f(dialect, g):
    dialect.settings += 1
    setattr(dialect, "w", 4)
    g.sql = ""
"""
    assert _dialect_writes(source, "hive.py", True) == [
        "hive.py:4 Hive.__init__",
        "hive.py:6 Hive.later",
        "hive.py:10",
        "hive.py:12",
        "hive.py:13 setattr",
    ]
    assert _dialect_writes(source, "parser.py", False) == [
        "parser.py:10",
        "parser.py:12",
        "parser.py:13 setattr",
    ]


def _dialect_writes(source: str, name: str, dialects: bool) -> list[str]:
    """Where ``source`` (a module of sqlglot) may change a dialect instance (see above);
    ``dialects``: its classes are dialects."""
    tree = ast.parse(source, name)
    found = []
    if dialects:
        for cls in tree.body:
            if isinstance(cls, ast.ClassDef):
                found += _self_assignments(cls, name)
    for node in ast.walk(tree):
        for target in _targets(node):
            if _names_a_dialect(target):
                found.append(f"{name}:{target.lineno}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and _names_a_dialect(node.args[0], attribute=False)
        ):
            found.append(f"{name}:{node.lineno} setattr")
    return sorted(found, key=lambda f: int(f.split(":")[1].split()[0]))


def _self_assignments(cls: ast.ClassDef, name: str) -> list[str]:
    """Assignments to ``self.x`` in a dialect class's methods (the base's ``__init__`` aside);
    nested classes (a dialect's Tokenizer, Parser, Generator) are not the dialect."""
    out = []
    for item in cls.body:
        if not isinstance(item, ast.FunctionDef):
            continue
        if cls.name == "Dialect" and item.name == "__init__":
            continue
        for node in ast.walk(item):
            for target in _targets(node):
                if isinstance(target.value, ast.Name) and target.value.id == "self":
                    out.append(f"{name}:{target.lineno} {cls.name}.{item.name}")
    return out


def _targets(node: ast.AST) -> list[ast.Attribute]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    else:
        return []
    return [t for t in targets if isinstance(t, ast.Attribute)]


def _names_a_dialect(node: ast.expr, attribute: bool = True) -> bool:
    """Whether ``node`` is ``<something called dialect>.x`` (``attribute``) or the something."""
    if attribute:
        if not isinstance(node, ast.Attribute):
            return False
        node = node.value
    return (isinstance(node, ast.Name) and "dialect" in node.id.lower()) or (
        isinstance(node, ast.Attribute) and "dialect" in node.attr.lower()
    )


def _state(d: Dialect) -> dict[str, Any]:
    return copy.deepcopy(vars(d))


def _round_trip(body: str, source: str, target: str | None, by_name: bool) -> tuple[str, ...]:
    read: Any = source if by_name else dialect_named(source)
    try:
        tree = sqlglot.parse_one(body, read=read)
        out = [tree.sql(dialect=read), repr(tree)]
        if target is not None:
            write: Any = target if by_name else dialect_named(target)
            out.append(tree.sql(dialect=write))
    except SqlglotError as e:
        return (type(e).__name__, str(e))
    return tuple(out)


def test_shared_instances_give_what_names_give_and_stay_as_made() -> None:
    samples = _samples()
    before = {name: _state(dialect_named(name)) for name in ("spark", "trino")}
    before["generic"] = _state(GENERIC)
    for body, source, target in samples:
        assert _round_trip(body, source, target, by_name=False) == _round_trip(
            body, source, target, by_name=True
        )
    assert {name: _state(dialect_named(name)) for name in ("spark", "trino")} == {
        k: v for k, v in before.items() if k != "generic"
    }
    assert _state(GENERIC) == before["generic"]


def test_shared_instances_in_threads_give_what_one_thread_gives() -> None:
    samples = _samples()
    alone = [_round_trip(b, s, t, by_name=False) for b, s, t in samples]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(2):
            assert list(pool.map(lambda x: _round_trip(*x, by_name=False), samples)) == alone
