"""Metadata documents: valid ones mutated with hostile values and shapes (see :mod:`tests.fuzz`)."""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

from translator.api import compile_script

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "metadata" / "valid"

#: Scripts whose metadata are seeds besides the fixtures: defaults, versions, a routine, a table.
SEED_SCRIPTS = (
    ("spark", "CREATE FUNCTION f(a INT, b INT DEFAULT 5) RETURNS INT COMMENT 'd' "
              "SQL SECURITY DEFINER RETURN a + b;"
              "CREATE OR REPLACE FUNCTION f(a INT, b INT DEFAULT 5) RETURNS INT RETURN a - b;"),
    ("trino", "CREATE FUNCTION f(x integer) RETURNS integer SECURITY DEFINER WITH (a = 'b') "
              "BEGIN DECLARE y integer DEFAULT x; IF y > 0 THEN RETURN y; END IF; RETURN 0; END;"
              "CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x * 2;"),
    ("spark", "CREATE FUNCTION f(x INT) RETURNS TABLE (a INT, b STRING) RETURN SELECT x, 'a';"),
)  # fmt: skip

STRINGS = [
    "", " ", "x", "int", "string", "sql", "spark", "trino", "udf", "udtf", "return-null", "call",
    "\udc80", "\u0000", "\u202e", "\ufeff", "a" * 5000, "x; DROP TABLE t", "/* c */", "--", "x +",
    ")", "(", "'", "`", '"', "$$", "decimal(38,0)", "decimal(99,99)", "decimal(-1,0)",
    "list<int>", "struct<a:int>", "fixed[0]", "fixed[99999999999]", "varchar(3)", "timestamp_ns",
    "uuid", "geometry", "variant", "unknown", "int,int", "../x", "..", "/etc/passwd", "é", "\n",
    "1e400", "NaN", "x + 1", "SELECT 1", "BEGIN RETURN 1; END", "RETURN 1", "x -- c", "TRUE",
]  # fmt: skip
NUMBERS = [0, 1, -1, 2, 3, 2**31, 2**63, 2**64, -(2**63), 10**30, 10**400, 1.5, -0.0, 1e308,
           253402300800000, -62135596800001, 9007199254740993]  # fmt: skip
OTHER: list[Any] = [None, True, False, [], {}, [None], {"x": 1}]


@cache
def _seed_texts() -> tuple[str, ...]:
    texts = [p.read_text("utf-8") for p in sorted(FIXTURES.glob("*.json"))]
    for dialect, sql in SEED_SCRIPTS:
        result = compile_script(sql, dialect)
        texts += [result.dump()] if result.ok else []
    return tuple(texts)


def seeds() -> list[Any]:
    return [json.loads(t) for t in _seed_texts()]


def deep(n: int, kind: str) -> object:
    """``n`` levels of arrays (``l``), list types (``t``), struct types (``s``) or objects."""
    value: object = "int" if kind in "ts" else 1
    for _ in range(n):
        if kind == "l":
            value = [value]
        elif kind == "t":
            value = {"type": "list", "element-id": 1, "element": value, "element-required": False}
        elif kind == "s":
            field = {"id": 1, "name": "a", "required": False, "type": value}
            value = {"type": "struct", "fields": [field]}
        else:
            value = {"a": value}
    return value


def value(rng: random.Random) -> object:
    r = rng.random()
    if r < 0.35:
        return rng.choice(STRINGS)
    if r < 0.6:
        return rng.choice(NUMBERS)
    if r < 0.75:
        return copy.deepcopy(rng.choice(OTHER))
    if r < 0.82:
        return deep(rng.choice([50, 63, 64, 65, 66, 85, 90, 200, 300, 600]), rng.choice("ltsa"))
    if r < 0.9:
        kind = rng.choice(["list", "map", "struct", "decimal", "fixed", "x"])
        key = rng.choice(["element", "key", "value", "fields", "element-id", "precision"])
        return {"type": kind, key: rng.choice(STRINGS + NUMBERS + OTHER)}
    return "".join(rng.choice(STRINGS[:40]) for _ in range(rng.randint(1, 4)))


def _paths(doc: object, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if len(prefix) > 40:
        return out
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, (*prefix, i))
    return out


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def mutate(doc: Any, rng: random.Random) -> Any:
    """``doc`` with one to three changes: a value replaced, deleted, copied, or a key added."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(doc)
        path = rng.choice(paths)
        if not path:
            continue
        parent, key = _at(doc, path[:-1]), path[-1]
        op = rng.random()
        if op < 0.6:
            parent[key] = value(rng)
        elif op < 0.75:
            del parent[key]
        elif op < 0.8 and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        elif op < 0.87 and isinstance(parent, dict):
            extra = ["zz-unknown", "properties", "location", "secure", "doc", "specific-name"]
            parent[rng.choice(extra)] = value(rng)
        elif op < 0.92 and isinstance(parent, list):
            rng.shuffle(parent)
        else:  # another part of the document in this place
            other = _at(doc, rng.choice(paths))
            parent[key] = copy.deepcopy(other) if other is not doc else 1
    return doc


def document(rng: random.Random) -> str:
    """A mutated seed as JSON text (ASCII-escaped or not); a mutation too deep for Python's own
    JSON writer (a deep part copied into itself) is made again."""
    while True:
        try:
            doc = mutate(rng.choice(seeds()), rng)
            return json.dumps(doc, ensure_ascii=rng.random() < 0.5)
        except RecursionError:
            continue
