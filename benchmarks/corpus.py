"""A deterministic corpus of Spark and Trino function DDL scripts for the benchmarks.

``generate(n_statements, seed)`` returns :class:`Script` values (a dialect and a script text) that
together hold ``n_statements`` CREATE/DROP FUNCTION statements, half Spark and half Trino. The
scripts look like migration files: a few functions per file, overloads of one name, a later
``CREATE OR REPLACE`` of an earlier signature (a new version), the odd ``DROP FUNCTION IF EXISTS``,
``USE``/``CREATE TABLE`` statements that are skipped, comments in headers and bodies, ``COMMENT``
clauses, every characteristic, nested types (arrays, maps, structs/rows), and bodies from ``x + 1``
to CASE expressions of dozens of branches and table functions with joins, CTEs and GROUP BY. A few
Trino functions have compound ``BEGIN ... END`` bodies. The same seed gives the same corpus.

Run ``python -m benchmarks.corpus --out DIR`` to write it out as ``.sql`` files to look at.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Script", "generate"]


@dataclass(frozen=True, slots=True)
class Script:
    dialect: str  # "spark" or "trino"
    name: str  # a file name, for reports
    text: str
    statements: int  # CREATE/DROP FUNCTION statements in ``text``


# ---------------------------------------------------------------------------------------------
# Types: a small structural model rendered in each dialect's spelling

# (kind, args): kind in int, bigint, double, decimal, string, boolean, date, timestamp,
# array, map, struct. The expression generator works per "category" (num, str, bool, date...).
Type = tuple[Any, ...]


def _prim(kind: str, *args: object) -> Type:
    return (kind, *args)


_SPARK_PRIM = {
    "int": ["INT", "INTEGER", "int"],
    "bigint": ["BIGINT", "LONG", "bigint"],
    "smallint": ["SMALLINT"],
    "double": ["DOUBLE", "double"],
    "float": ["FLOAT", "REAL"],
    "string": ["STRING", "string", "VARCHAR(64)"],
    "boolean": ["BOOLEAN"],
    "date": ["DATE"],
    "timestamp": ["TIMESTAMP", "TIMESTAMP_NTZ"],
    "binary": ["BINARY"],
}
_TRINO_PRIM = {
    "int": ["integer", "INTEGER", "int"],
    "bigint": ["bigint", "BIGINT"],
    "smallint": ["smallint"],
    "double": ["double", "DOUBLE"],
    "float": ["real"],
    "string": ["varchar", "VARCHAR", "varchar(64)"],
    "boolean": ["boolean"],
    "date": ["date"],
    "timestamp": ["timestamp(6)", "timestamp(6) with time zone", "timestamp(3)"],
    "binary": ["varbinary"],
}


def render_type(t: Type, dialect: str, rnd: random.Random) -> str:
    kind = t[0]
    spark = dialect == "spark"
    if kind == "decimal":
        p, s = t[1], t[2]
        return f"DECIMAL({p}, {s})" if spark else f"decimal({p}, {s})"
    if kind == "array":
        inner = render_type(t[1], dialect, rnd)
        return f"ARRAY<{inner}>" if spark else f"array({inner})"
    if kind == "map":
        k, v = render_type(t[1], dialect, rnd), render_type(t[2], dialect, rnd)
        return f"MAP<{k}, {v}>" if spark else f"map({k}, {v})"
    if kind == "struct":
        fields = t[1]
        if spark:
            parts = []
            for name, ft, doc in fields:
                part = f"{name}: {render_type(ft, dialect, rnd)}"
                if doc:
                    part += f" COMMENT '{doc}'"
                parts.append(part)
            return "STRUCT<" + ", ".join(parts) + ">"
        return (
            "row(" + ", ".join(f"{n} {render_type(ft, dialect, rnd)}" for n, ft, _ in fields) + ")"
        )
    table = _SPARK_PRIM if spark else _TRINO_PRIM
    return rnd.choice(table[kind])


def category(t: Type) -> str:
    kind = t[0]
    if kind in ("int", "bigint", "smallint", "double", "float", "decimal"):
        return "num"
    if kind == "string":
        return "str"
    if kind == "boolean":
        return "bool"
    if kind in ("date", "timestamp"):
        return "date"
    if kind == "array":
        return "array_num" if category(t[1]) == "num" else "array_str"
    if kind == "map":
        return "map"
    if kind == "struct":
        return "struct"
    return "other"


_FIELD_NAMES = ["id", "name", "amount", "price", "qty", "code", "label", "score", "ts", "region"]


def random_type(rnd: random.Random, depth: int = 0, scalar_only: bool = False) -> Type:
    r = rnd.random()
    if scalar_only or depth >= 2 or r < 0.72:
        pick = rnd.choices(
            [
                "int",
                "bigint",
                "double",
                "decimal",
                "string",
                "boolean",
                "date",
                "timestamp",
                "smallint",
                "float",
                "binary",
            ],
            weights=[14, 10, 9, 6, 18, 5, 5, 4, 1, 1, 1],
        )[0]
        if pick == "decimal":
            p = rnd.choice([10, 12, 18, 38])
            return _prim("decimal", p, rnd.choice([0, 2, 4, min(6, p)]))
        return _prim(pick)
    if r < 0.84:
        return ("array", random_type(rnd, depth + 1, scalar_only=depth > 0))
    if r < 0.92:
        return ("map", _prim("string"), random_type(rnd, depth + 1))
    n = rnd.randint(2, 5)
    names = rnd.sample(_FIELD_NAMES, n)
    fields = tuple(
        (name, random_type(rnd, depth + 1), "field doc" if rnd.random() < 0.1 else None)
        for name in names
    )
    return ("struct", fields)


# ---------------------------------------------------------------------------------------------
# Expressions, by category, rendered for a dialect


class _Expr:
    def __init__(self, rnd: random.Random, dialect: str, params: list[tuple[str, Type]]):
        self.rnd = rnd
        self.dialect = dialect
        self.params = params
        self.spark = dialect == "spark"

    def param_of(self, cat: str) -> str | None:
        names = [n for n, t in self.params if category(t) == cat]
        return self.rnd.choice(names) if names else None

    def lit(self, cat: str) -> str:
        rnd = self.rnd
        if cat == "num":
            return rnd.choice(
                [str(rnd.randint(0, 1000)), f"{rnd.randint(0, 99)}.{rnd.randint(0, 99)}"]
            )
        if cat == "str":
            return rnd.choice(["'a'", "'-'", "''", "'N/A'", "'unknown'", "'%'", "'x;y'", "'it''s'"])
        if cat == "bool":
            return rnd.choice(["TRUE", "FALSE"])
        if cat == "date":
            return rnd.choice(["DATE '2024-01-01'", "current_date"])
        return "NULL"

    def num(self, d: int) -> str:
        rnd = self.rnd
        p = self.param_of("num")
        if d <= 0 or rnd.random() < 0.25:
            if p and rnd.random() < 0.8:
                return p
            return self.lit("num")
        c = rnd.randrange(12)
        if c < 4:
            op = rnd.choice(["+", "-", "*", "/", "%"])
            return f"{self.num(d - 1)} {op} {self.num(d - 1)}"
        if c == 4:
            return f"({self.num(d - 1)})"
        if c == 5:
            f = rnd.choice(["abs", "floor", "ceil", "sqrt", "ln", "exp", "sign"])
            return f"{f}({self.num(d - 1)})"
        if c == 6:
            return f"round({self.num(d - 1)}, {rnd.randint(0, 4)})"
        if c == 7:
            f = rnd.choice(["greatest", "least", "coalesce"])
            return f"{f}({', '.join(self.num(d - 1) for _ in range(rnd.randint(2, 4)))})"
        if c == 8:
            return f"length({self.str_(d - 1)})"
        if c == 9:
            return self.case("num", d)
        if c == 10:
            a = self.param_of("array_num")
            if a:
                return f"cardinality({a})" if not self.spark else f"size({a})"
            return f"CAST({self.str_(d - 1)} AS {'BIGINT' if self.spark else 'bigint'})"
        s = self.param_of("struct")
        st = next((t for n, t in self.params if n == s), None)
        if s and st:
            numeric = [n for n, ft, _ in st[1] if category(ft) == "num"]
            if numeric:
                return f"{s}.{rnd.choice(numeric)}"
        return f"{self.num(d - 1)} * {self.lit('num')}"

    def str_(self, d: int) -> str:
        rnd = self.rnd
        p = self.param_of("str")
        if d <= 0 or rnd.random() < 0.25:
            if p and rnd.random() < 0.8:
                return p
            return self.lit("str")
        c = rnd.randrange(10)
        if c < 2:
            return f"{self.str_(d - 1)} || {self.str_(d - 1)}"
        if c == 2:
            return f"concat({', '.join(self.str_(d - 1) for _ in range(rnd.randint(2, 4)))})"
        if c == 3:
            return f"{rnd.choice(['upper', 'lower', 'trim', 'reverse'])}({self.str_(d - 1)})"
        if c == 4:
            return f"substr({self.str_(d - 1)}, 1, {rnd.randint(1, 40)})"
        if c == 5:
            return f"replace({self.str_(d - 1)}, {self.lit('str')}, {self.lit('str')})"
        if c == 6:
            return f"coalesce({self.str_(d - 1)}, {self.lit('str')})"
        if c == 7:
            return self.case("str", d)
        if c == 8:
            return f"CAST({self.num(d - 1)} AS {'STRING' if self.spark else 'varchar'})"
        a = self.param_of("array_str")
        if a:
            return f"array_join({a}, ',')"
        return f"regexp_replace({self.str_(d - 1)}, '[0-9]+', '#')"

    def bool_(self, d: int) -> str:
        rnd = self.rnd
        p = self.param_of("bool")
        if d <= 0:
            return p or self.lit("bool")
        c = rnd.randrange(8)
        if c < 3:
            op = rnd.choice(["=", "<>", "<", "<=", ">", ">="])
            return f"{self.num(d - 1)} {op} {self.num(d - 1)}"
        if c == 3:
            return f"{self.bool_(d - 1)} {rnd.choice(['AND', 'OR'])} {self.bool_(d - 1)}"
        if c == 4:
            items = ", ".join(self.lit("str") for _ in range(rnd.randint(2, 6)))
            return f"{self.str_(d - 1)} IN ({items})"
        if c == 5:
            return f"{self.str_(d - 1)} LIKE '%{rnd.choice(['a', 'x', 'tmp'])}%'"
        if c == 6:
            return f"{self.num(d - 1)} BETWEEN {self.lit('num')} AND {self.lit('num')}"
        return f"{self.any_param() or self.lit('num')} IS {rnd.choice(['NULL', 'NOT NULL'])}"

    def date(self, d: int) -> str:
        rnd = self.rnd
        p = self.param_of("date")
        if d <= 0 or rnd.random() < 0.4:
            return p or self.lit("date")
        n = rnd.randint(1, 30)
        if self.spark:
            return rnd.choice(
                [f"date_add({self.date(d - 1)}, {n})", f"{self.date(d - 1)} + INTERVAL '{n}' DAY"]
            )
        return rnd.choice(
            [
                f"date_add('day', {n}, {self.date(d - 1)})",
                f"{self.date(d - 1)} + INTERVAL '{n}' DAY",
            ]
        )

    def array_expr(self, d: int) -> str:
        rnd = self.rnd
        a = self.param_of("array_num")
        if a is None:
            items = ", ".join(self.num(0) for _ in range(rnd.randint(1, 4)))
            return f"array({items})" if self.spark else f"ARRAY[{items}]"
        c = rnd.randrange(3)
        if c == 0:
            return f"transform({a}, x -> x * {rnd.randint(2, 9)} + {self.num(0)})"
        if c == 1:
            return f"filter({a}, x -> x > {rnd.randint(0, 50)})"
        return f"array_distinct({a})"

    def any_param(self) -> str | None:
        return self.rnd.choice(self.params)[0] if self.params else None

    def case(self, cat: str, d: int) -> str:
        rnd = self.rnd
        branches = rnd.randint(1, 3 if d < 3 else 6)
        gen = self.num if cat == "num" else self.str_
        parts = ["CASE"]
        for _ in range(branches):
            parts.append(f"WHEN {self.bool_(d - 1)} THEN {gen(d - 1)}")
        if rnd.random() < 0.8:
            parts.append(f"ELSE {gen(d - 1)}")
        parts.append("END")
        return " ".join(parts)

    def of(self, cat: str, d: int) -> str:
        return {
            "num": self.num,
            "str": self.str_,
            "bool": self.bool_,
            "date": self.date,
            "array_num": self.array_expr,
        }.get(cat, self.num)(d)


def _big_case(e: _Expr, cat: str, n: int, multiline: bool) -> str:
    """A lookup-table style CASE of ``n`` branches (the long bodies of real migrations)."""
    rnd = e.rnd
    p = e.param_of("str") or e.param_of("num")
    sep = "\n    " if multiline else " "
    parts = ["CASE"]
    for i in range(n):
        if p is not None and rnd.random() < 0.7:
            cond = f"{p} = {e.lit('str') if e.param_of('str') == p else str(i)}"
        else:
            cond = e.bool_(2)
        parts.append(f"WHEN {cond} THEN {e.of(cat, rnd.randint(0, 2))}")
    parts.append(f"ELSE {e.of(cat, 1)}")
    return sep.join(parts) + (sep[:-2] if multiline else " ") + "END"


_TABLES = ["orders", "customers", "sales.events", "fruits", "inventory", "web.page_views"]
_COLUMNS = ["id", "name", "amount", "created_at", "status", "region", "qty", "price", "color"]


def _default(e: _Expr, cat: str) -> str:
    return e.lit(cat) if cat in ("num", "str") else "NULL"


def _field_value(e: _Expr, t: Type) -> str:
    cat = category(t)
    return e.of(cat, 1) if cat in ("num", "str", "bool") else "NULL"


def _query(e: _Expr, columns: list[tuple[str, Type]], size: int) -> str:
    """A table-function (or scalar subquery) body: SELECT ... FROM ... WHERE ... [GROUP BY]."""
    rnd = e.rnd
    tbl = rnd.choice(_TABLES)
    alias = "t"
    sel = []
    for name, t in columns:
        col = rnd.choice(_COLUMNS)
        cat = category(t)
        if cat == "num" and rnd.random() < 0.3:
            sel.append(f"CAST({alias}.{col} AS {'DOUBLE' if e.spark else 'double'}) AS {name}")
        elif rnd.random() < 0.3:
            sel.append(f"coalesce({alias}.{col}, {_default(e, cat)}) AS {name}")
        else:
            sel.append(f"{alias}.{col} AS {name}")
    q = f"SELECT {', '.join(sel)}\n  FROM {tbl} AS {alias}"
    if size > 1 and rnd.random() < 0.4:
        other = rnd.choice(_TABLES)
        q += f"\n  JOIN {other} AS u ON u.id = {alias}.id"
    conds = []
    for _ in range(rnd.randint(1, 1 + size)):
        p = e.any_param()
        col = rnd.choice(_COLUMNS)
        if p is not None and rnd.random() < 0.7:
            conds.append(f"{alias}.{col} = {p}")
        else:
            conds.append(f"{alias}.{col} IS NOT NULL")
    q += "\n  WHERE " + " AND ".join(conds)
    if size > 2 and rnd.random() < 0.4:
        q += f"\n  ORDER BY {alias}.{rnd.choice(_COLUMNS)}\n  LIMIT {rnd.randint(1, 1000)}"
    if size > 2 and rnd.random() < 0.25:
        q = (
            f"WITH base AS (\n  SELECT * FROM {tbl} WHERE {rnd.choice(_COLUMNS)} IS NOT NULL\n)\n"
            + q.replace(f"FROM {tbl} AS", "FROM base AS", 1)
        )
    return q


def _compound(e: _Expr, ret: Type) -> str:
    """A Trino routine body: DECLARE, IF/ELSEIF, WHILE, SET, RETURN."""
    rnd = e.rnd
    cat = category(ret)
    cat = cat if cat in ("num", "str", "bool") else "num"
    tt = {"num": "bigint", "str": "varchar", "bool": "boolean"}[cat]
    lines = ["BEGIN", f"  DECLARE r {tt} DEFAULT {e.lit(cat)};"]
    if rnd.random() < 0.5:
        lines.append("  DECLARE i integer DEFAULT 0;")
        lines += [
            f"  WHILE i < {rnd.randint(2, 10)} DO",
            "    SET i = i + 1;",
            "  END WHILE;",
        ]
    lines.append(f"  IF {e.bool_(2)} THEN")
    lines.append(f"    SET r = {e.of(cat, 2)};")
    for _ in range(rnd.randint(0, 3)):
        lines.append(f"  ELSEIF {e.bool_(2)} THEN")
        lines.append(f"    RETURN {e.of(cat, 2)};")
    lines.append("  ELSE")
    lines.append(f"    SET r = {e.of(cat, 1)};")
    lines.append("  END IF;")
    lines.append("  RETURN r;")
    lines.append("END")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Statements

_VERBS = ["calc", "norm", "fmt", "to", "parse", "clean", "score", "bucket", "mask", "safe", "net"]
_NOUNS = [
    "amount",
    "price",
    "name",
    "email",
    "region",
    "tax",
    "discount",
    "status",
    "code",
    "label",
    "ratio",
    "age",
    "weight",
    "total",
    "id",
    "phone",
    "country",
    "level",
]
_PARAMS = [
    "x",
    "y",
    "a",
    "b",
    "n",
    "s",
    "v",
    "amount",
    "price",
    "qty",
    "name",
    "code",
    "ts",
    "d",
    "flag",
    "items",
    "tags",
    "rec",
    "rate",
    "factor",
    "input",
    "val",
]
_DOCS = [
    "Normalises the input",
    "Business rule from the finance team; see JIRA-1234",
    "Returns NULL for unknown values",
    "Legacy function, migrated from Hive",
    "Computes the net amount after tax",
    "héllo → ✓ unicode doc",
    "it''s quoted",
]


@dataclass
class _Fn:
    name: str
    qualified: str
    dialect: str
    params: list[tuple[str, Type]]
    ret: Type
    table: list[tuple[str, Type]] | None  # result columns of a table function
    # types are spelt once per function, so a later version repeats the signature exactly
    param_sql: list[str]
    ret_sql: str


def _fn(
    rnd: random.Random,
    name: str,
    qualified: str,
    dialect: str,
    params: list[tuple[str, Type]],
    ret: Type,
    table: list[tuple[str, Type]] | None,
) -> _Fn:
    if table is not None:
        ret_sql = (
            "TABLE (" + ", ".join(f"{n} {render_type(t, dialect, rnd)}" for n, t in table) + ")"
        )
    else:
        ret_sql = render_type(ret, dialect, rnd)
    param_sql = [render_type(t, dialect, rnd) for _, t in params]
    return _Fn(name, qualified, dialect, params, ret, table, param_sql, ret_sql)


def _signature(rnd: random.Random, scalar_params: bool = False) -> list[tuple[str, Type]]:
    n = rnd.choices([0, 1, 2, 3, 4, 6, 9], weights=[4, 30, 30, 18, 10, 5, 3])[0]
    names = rnd.sample(_PARAMS, n)
    return [(nm, random_type(rnd, scalar_only=scalar_params)) for nm in names]


def _body(rnd: random.Random, fn: _Fn, version: int) -> tuple[str, str]:
    """(kind, text): kind is expression, query or compound."""
    e = _Expr(rnd, fn.dialect, fn.params)
    if fn.table is not None:
        return "query", _query(e, fn.table, rnd.randint(1, 4))
    if fn.dialect == "trino" and rnd.random() < 0.06:
        return "compound", _compound(e, fn.ret)
    cat = category(fn.ret)
    r = rnd.random()
    if r < 0.08 and cat in ("num", "str"):
        return "expression", _big_case(e, cat, rnd.randint(8, 40), multiline=rnd.random() < 0.6)
    if r < 0.12:
        q = f"SELECT {e.of(cat if cat in ('num', 'str', 'bool') else 'num', 2)}"
        if fn.dialect == "trino":
            return "query", f"({q})"
        return "query", q
    depth = rnd.choices([0, 1, 2, 3, 4, 5], weights=[10, 20, 30, 22, 12, 6])[0]
    if cat in ("num", "str", "bool", "date", "array_num"):
        text = e.of(cat, depth)
    elif cat == "struct":
        fields = fn.ret[1]
        if fn.dialect == "spark":
            text = (
                "named_struct("
                + ", ".join(f"'{n}', {_field_value(e, t)}" for n, t, _ in fields)
                + ")"
            )
        else:
            text = (
                "CAST(ROW("
                + ", ".join(
                    e.of(category(t), 1) if category(t) in ("num", "str", "bool") else "NULL"
                    for _, t, _ in fields
                )
                + f") AS {render_type(fn.ret, 'trino', rnd)})"
            )
    else:
        text = fn.params[0][0] if fn.params else "NULL"
    if rnd.random() < 0.1:
        text = (
            f"-- version {version}\n  {text}" if rnd.random() < 0.5 else f"{text} /* v{version} */"
        )
    return "expression", text


def _create(rnd: random.Random, fn: _Fn, version: int, or_replace: bool) -> str:
    spark = fn.dialect == "spark"
    kind, body = _body(rnd, fn, version)
    nl = "\n" if rnd.random() < 0.6 else " "
    head = "CREATE OR REPLACE FUNCTION" if or_replace else "CREATE FUNCTION"
    if spark and not or_replace and rnd.random() < 0.05:
        head = "CREATE FUNCTION IF NOT EXISTS"
    if rnd.random() < 0.05:
        head = head.lower()
    params = []
    for i, (name, t) in enumerate(fn.params):
        p = f"{name} {fn.param_sql[i]}"
        last = i == len(fn.params) - 1
        if spark and last and rnd.random() < 0.1 and category(t) == "num":
            p += f" DEFAULT {rnd.randint(0, 9)}"
        if rnd.random() < 0.12:
            p += f" COMMENT 'the {name}'"
        params.append(p)
    if len(params) > 3 and rnd.random() < 0.5:
        plist = "(\n  " + ",\n  ".join(params) + "\n)"
    else:
        plist = "(" + ", ".join(params) + ")"
    clauses = [f"RETURNS {fn.ret_sql}"]
    extra = []
    if rnd.random() < 0.3:
        extra.append(f"COMMENT '{rnd.choice(_DOCS)}'")
    if rnd.random() < 0.2:
        extra.append("LANGUAGE SQL")
    if rnd.random() < 0.2:
        extra.append(rnd.choice(["DETERMINISTIC", "NOT DETERMINISTIC"]))
    if rnd.random() < 0.1:
        # (Spark refuses RETURNS NULL ON NULL INPUT for SQL functions)
        extra.append(
            "CALLED ON NULL INPUT"
            if spark
            else rnd.choice(["RETURNS NULL ON NULL INPUT", "CALLED ON NULL INPUT"])
        )
    if spark and rnd.random() < 0.1:
        extra.append("READS SQL DATA" if fn.table is not None else "CONTAINS SQL")
    if rnd.random() < 0.05:
        extra.append("SQL SECURITY DEFINER" if spark else "SECURITY INVOKER")
    if not spark and rnd.random() < 0.03:
        extra.append(f"WITH (owner = '{rnd.choice(_NOUNS)}')")
    rnd.shuffle(extra)
    clauses += extra
    if kind == "compound":
        tail = body
    else:
        tail = f"RETURN{nl if body.startswith(('SELECT', 'WITH')) else ' '}{body}"
    header_comment = "/* generated */ " if rnd.random() < 0.03 else ""
    return f"{head} {header_comment}{fn.qualified}{plist}{nl}{nl.join(clauses)}{nl}{tail}"


def _new_function(rnd: random.Random, dialect: str, serial: int) -> _Fn:
    name = f"{rnd.choice(_VERBS)}_{rnd.choice(_NOUNS)}_{serial}"
    r = rnd.random()
    if dialect == "spark":
        qualified = (
            name
            if r < 0.6
            else (f"analytics.{name}" if r < 0.9 else f"spark_catalog.analytics.{name}")
        )
    else:
        # (Trino stores functions under catalog.schema: one part or three)
        qualified = name if r < 0.4 else f"lake.analytics.{name}"
    table = None
    ret = random_type(rnd)
    if rnd.random() < 0.07:  # table functions (Trino: the spec appendix's form)
        table = [
            (c, random_type(rnd, scalar_only=True)) for c in rnd.sample(_COLUMNS, rnd.randint(1, 5))
        ]
    return _fn(rnd, name, qualified, dialect, _signature(rnd), ret, table)


def _type_key(t: Type) -> object:
    """Equal for types that might land on one Iceberg type (whatever their spelling)."""
    kind = t[0]
    if kind in ("int", "smallint"):
        return "int"
    if kind in ("array", "map"):
        return (kind, *(_type_key(x) for x in t[1:]))
    if kind == "struct":
        return (kind, tuple((n, _type_key(ft)) for n, ft, _ in t[1]))
    return t


def _signature_key(params: list[tuple[str, Type]]) -> object:
    return tuple(_type_key(t) for _, t in params)


def _overload(rnd: random.Random, fn: _Fn, taken: set[object]) -> _Fn:
    """The same name with another parameter list (and so another definition-id)."""
    while True:
        params = _signature(rnd)
        key = _signature_key(params)
        if key not in taken:
            taken.add(key)
            break
    return _fn(rnd, fn.name, fn.qualified, fn.dialect, params, fn.ret, fn.table)


def _drop(fn: _Fn) -> str:
    if fn.dialect == "spark":
        return f"DROP FUNCTION IF EXISTS {fn.qualified}"
    types = ", ".join(fn.param_sql)
    return f"DROP FUNCTION IF EXISTS {fn.qualified}({types})"


def _script(rnd: random.Random, dialect: str, serial: int, budget: int) -> tuple[str, int]:
    """One migration file of at most ``budget`` function statements."""
    parts: list[str] = []
    count = 0
    if rnd.random() < 0.2:
        parts.append(f"-- migration {serial:05d}: generated\nUSE analytics")
    if rnd.random() < 0.05:
        parts.append(
            "CREATE TABLE IF NOT EXISTS audit (id bigint, note varchar)"
            if dialect == "trino"
            else "CREATE TABLE IF NOT EXISTS audit (id BIGINT, note STRING)"
        )
    n_functions = rnd.choices([1, 2, 3, 5], weights=[50, 25, 15, 10])[0]
    for k in range(n_functions):
        if count >= budget:
            break
        fn = _new_function(rnd, dialect, serial * 10 + k)
        fns = [fn]
        taken = {_signature_key(fn.params)}
        for _ in range(rnd.choices([0, 1, 2, 4], weights=[60, 25, 10, 5])[0]):
            if fn.table is None:
                fns.append(_overload(rnd, fn, taken))
        if rnd.random() < 0.05 and count < budget:
            parts.append(_drop(fn))
            count += 1
        replace = rnd.random() < 0.4
        for f in fns:
            if count >= budget:
                break
            if rnd.random() < 0.15:
                parts.append("/* a block comment; with a semicolon */")
            parts.append(_create(rnd, f, 1, or_replace=replace))
            count += 1
        # a later release replaces one signature: a new version
        if count < budget and rnd.random() < 0.2:
            parts.append(_create(rnd, rnd.choice(fns), 2, or_replace=True))
            count += 1
    # block comments stand between statements, the rest end in ";"
    out = []
    for p in parts:
        out.append(p if p.startswith("/*") else p + ";")
    text = "\n\n".join(out) + "\n"
    return text, count


def generate(n_statements: int = 10_000, seed: int = 20240607) -> list[Script]:
    """Scripts holding ``n_statements`` function statements, half Spark and half Trino."""
    rnd = random.Random(seed)
    scripts: list[Script] = []
    for dialect, share in (
        ("spark", n_statements // 2),
        ("trino", n_statements - n_statements // 2),
    ):
        done, serial = 0, 0
        while done < share:
            text, count = _script(rnd, dialect, serial, share - done)
            if count == 0:
                continue
            scripts.append(Script(dialect, f"{dialect}_{serial:05d}.sql", text, count))
            done += count
            serial += 1
    rnd.shuffle(scripts)
    return scripts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--statements", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    scripts = generate(args.statements, args.seed)
    for s in scripts:
        (args.out / s.name).write_text(s.text, encoding="utf-8")
    print(f"{len(scripts)} scripts, {sum(s.statements for s in scripts)} statements -> {args.out}")


if __name__ == "__main__":
    main()
