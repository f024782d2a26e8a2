"""Generated SQL scripts of both dialects (see :mod:`tests.fuzz`).

Most pieces are ones the front ends accept, so that cases reach merge, the lowering and the
emitters; the rest are hostile (too deep, too long, unterminated, odd characters). Trino
routines are built statement by statement, so that branches, loops and declarations nest in
every combination, now and then hundreds of times over.
"""

from __future__ import annotations

import random

TYPES = {
    "spark": ["INT", "BIGINT", "STRING", "DOUBLE", "DECIMAL(10,2)", "ARRAY<INT>", "MAP<STRING,INT>",
              "STRUCT<a:INT,b:STRING>", "ARRAY<ARRAY<INT>>", "TIMESTAMP", "DATE", "BINARY",
              "BOOLEAN", "TINYINT", "VARCHAR(3)"],
    "trino": ["integer", "bigint", "varchar", "varchar(3)", "double", "real", "decimal(10,2)",
              "array(integer)", "map(varchar,integer)", "row(a integer, b varchar)", "timestamp(3)",
              "timestamp(6) with time zone", "date", "varbinary", "boolean", "tinyint"],
}  # fmt: skip
HOSTILE_TYPES = {
    "spark": ["DECIMAL(39,0)", "DECIMAL(0,0)", "STRUCT<>", "VOID", "INTERVAL DAY", "VARIANT",
              "DECIMAL(99999999999999999999,1)", "STRUCT<`a b`:INT>", "CHAR(2)", "TIMESTAMP_NTZ"],
    "trino": ["decimal(39,0)", "timestamp(13)", "json", "interval day to second", "uuid", "time",
              "row(integer)", 'row("a b" integer)', "decimal(99999999999999999999,1)", "char(3)"],
}  # fmt: skip
BODIES = {
    "spark": ["x + 1", "x", "NULL", "CAST(x AS STRING)", "(SELECT 1)", "abs(x)", "x -- c\n",
              "/* c */ x", "'a' || 'b'", "CASE WHEN x > 0 THEN 1 ELSE 0 END", "x IS NULL",
              "transform(array(1), v -> v + x)", "named_struct('a', x)", "array(x)[0]",
              "nvl(x, 1)", "current_timestamp()", "f(x)", "default.f(x)", "DATE '2020-01-01'"],
    "trino": ["x + 1", "x", "NULL", "CAST(x AS varchar)", "(SELECT 1)", "abs(x)", "x -- c\n",
              "/* c */ x", "'a' || 'b'", "CASE WHEN x > 0 THEN 1 ELSE 0 END", "x IS NULL",
              "transform(ARRAY[1], v -> v + x)", "ROW(x, 1)", "ARRAY[x][1]", "coalesce(x, 1)",
              "try(x / 0)", "typeof(x)", "f(x)", "DECIMAL '10.5'", "date_trunc('month', x)"],
}  # fmt: skip
HOSTILE_BODIES = ["x; DROP TABLE t", "1e400", "9" * 60, "x -", "'unterminated", "/* open",
                  "x\u0000", "\udc80", "$$", "'é\u202e'", "`x", '"x', "?", "x +", ")", "(",
                  "U&'\\0000'", "X'0'"]  # fmt: skip
NAMES = ["f", "add_one", "s.f", "c.s.f", "`a b`", '"a b"', "`..`", "`/tmp/x`", "F", "a.b.c.d",
         "`\u202e`", "`a.b`", '"x""y"', "`x``y`", "default.f"]  # fmt: skip
CHARACTERISTICS = {
    "spark": ["DETERMINISTIC", "NOT DETERMINISTIC", "COMMENT 'c'", "CONTAINS SQL",
              "READS SQL DATA", "SQL SECURITY DEFINER", "LANGUAGE SQL", "LANGUAGE PYTHON"],
    "trino": ["DETERMINISTIC", "NOT DETERMINISTIC", "COMMENT 'c'", "RETURNS NULL ON NULL INPUT",
              "CALLED ON NULL INPUT", "SECURITY DEFINER", "LANGUAGE SQL", "WITH (handler = 'x')"],
}  # fmt: skip
HEADS = ["CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", "CREATE FUNCTION IF NOT EXISTS",
         "CREATE TEMPORARY FUNCTION", "CREATE TEMP FUNCTION"]  # fmt: skip
OTHER_STATEMENTS = ["DROP FUNCTION f", "DROP FUNCTION IF EXISTS s.f", "DROP FUNCTION f(integer)",
                    "USE x", "SET a = 1", "SELECT 1", "", "CREATE", "CREATE FUNCTION"]  # fmt: skip
CONDITIONS = ["x > 0", "x IS NULL", "y < x", "x = 1", "NOT (x > 2)", "x BETWEEN 1 AND 9", "b"]
VALUES = ["x", "x + 1", "y - 1", "y * 2", "abs(x)", "NULL", "CASE WHEN x > 0 THEN y ELSE 0 END",
          "coalesce(y, 0)", "x / 0", "y + y", "1"]  # fmt: skip


def _deep_type(rng: random.Random, dialect: str) -> str:
    n = rng.choice([30, 63, 64, 65, 66, 70, 200, 1000])
    if dialect == "spark":
        open_, close = rng.choice([("ARRAY<", ">"), ("STRUCT<a:", ">"), ("MAP<INT,", ">")])
        return open_ * n + "INT" + close * n
    open_, close = rng.choice([("array(", ")"), ("row(a ", ")"), ("map(integer,", ")")])
    return open_ * n + "integer" + close * n


def type_text(rng: random.Random, dialect: str) -> str:
    r = rng.random()
    if r < 0.85:
        return rng.choice(TYPES[dialect])
    if r < 0.95:
        return rng.choice(HOSTILE_TYPES[dialect])
    return _deep_type(rng, dialect)


def _hostile_body(rng: random.Random, dialect: str) -> str:
    r = rng.random()
    n = rng.choice([10, 200, 1000, 5000])
    if r < 0.3:
        return rng.choice(HOSTILE_BODIES)
    if r < 0.5:
        return "(" * n + "x" + ")" * n
    if r < 0.7:
        return " + ".join(["x"] * n)
    if r < 0.8:
        return "'" + "a" * n * 10 + "'"
    if r < 0.9:
        return "CASE " + " ".join(f"WHEN x = {i} THEN {i}" for i in range(n)) + " END"
    return "x IN (" + ",".join(str(i) for i in range(n)) + ")"


class Routine:
    """A Trino ``BEGIN ... END`` body, statement by statement, within a size budget."""

    def __init__(self, rng: random.Random, budget: int) -> None:
        self.rng = rng
        self.budget = budget
        self.labels: list[str] = []
        self.n = 0

    def body(self) -> str:
        decls = "".join(self.declaration(i) for i in range(self.rng.randint(0, 3) or 1))
        stmts = self.statements(self.rng.randint(1, 4), 0)
        return f"BEGIN {decls}{stmts} RETURN {self.value()}; END"

    def declaration(self, i: int) -> str:
        default = f" DEFAULT {self.value()}" if self.rng.random() < 0.7 else ""
        return f"DECLARE {'y' if i == 0 else f'v{i}'} integer{default}; "

    def value(self) -> str:
        return self.rng.choice(VALUES)

    def statements(self, count: int, depth: int) -> str:
        return " ".join(self.statement(depth) for _ in range(count))

    def statement(self, depth: int) -> str:
        self.n += 1
        rng = self.rng
        r = rng.random() if self.n < self.budget and depth < 40 else 0.0
        if r < 0.3:
            return f"SET y = {self.value()};"
        if r < 0.4:
            return f"RETURN {self.value()};"
        if r < 0.45 and self.labels:
            return f"{rng.choice(['LEAVE', 'ITERATE'])} {rng.choice(self.labels)};"

        def inner() -> str:
            return self.statements(rng.randint(1, 3), depth + 1)

        if r < 0.7:
            elifs = "".join(
                f" ELSEIF {rng.choice(CONDITIONS)} THEN {inner()}" for _ in range(rng.randint(0, 2))
            )
            other = f" ELSE {inner()}" if rng.random() < 0.5 else ""
            return f"IF {rng.choice(CONDITIONS)} THEN {inner()}{elifs}{other} END IF;"
        if r < 0.8:
            other = f" ELSE {inner()}" if rng.random() < 0.5 else ""
            return f"CASE x WHEN 1 THEN {inner()} WHEN 2 THEN {inner()}{other} END CASE;"
        if r < 0.9:
            return f"BEGIN {self.declaration(1)}{inner()} END;"
        label = f"l{self.n}"
        self.labels.append(label)
        try:
            kind = rng.random()
            if kind < 0.4:
                return f"{label}: WHILE y < 10 DO {inner()} SET y = y + 1; END WHILE;"
            if kind < 0.7:
                return f"{label}: REPEAT {inner()} SET y = y + 1; UNTIL y > 5 END REPEAT;"
            return f"{label}: LOOP IF y > 3 THEN LEAVE {label}; END IF; {inner()} END LOOP;"
        finally:
            self.labels.pop()


def _scaled_routine(rng: random.Random) -> str:
    """One shape many times over: each should cost time linear in its text."""
    n = rng.choice([20, 50, 100, 300, 1000, 1600, 3000])
    shape = rng.randrange(6)
    if shape == 0:  # nested IFs that exit and fall through
        return "BEGIN " + "IF x > 0 THEN " * n + "RETURN 1;" + " END IF;" * n + " RETURN x; END"
    if shape == 1:  # a long sequence of IFs
        ifs = "".join(f"IF x > {i} THEN SET x = x - {i}; END IF; " for i in range(n))
        return f"BEGIN {ifs}RETURN x; END"
    if shape == 2:  # a long sequence of assignments
        return "BEGIN " + "".join(f"SET x = x + {i}; " for i in range(n)) + "RETURN x; END"
    if shape == 3:  # declarations that each double the last
        decls = "".join(f"DECLARE v{i + 1} integer DEFAULT v{i} + v{i}; " for i in range(n))
        return f"BEGIN DECLARE v0 integer DEFAULT x; {decls}RETURN v{n}; END"
    if shape == 4:  # nested blocks
        return "BEGIN " * n + "RETURN x; " + "END; " * (n - 1) + "END"
    cases = "CASE x WHEN 1 THEN RETURN 1; ELSE " * n + "SET x = 2;" + " END CASE;" * n
    return f"BEGIN {cases} RETURN x; END"


def parameters(rng: random.Random, dialect: str) -> str:
    out = []
    for i in range(rng.choice([0, 1, 1, 1, 2, 3])):
        name = "x" if i == 0 else rng.choice(["y", "z", "b", "`x`", '"x"', "a b", "select"])
        extra = ""
        if dialect == "spark" and rng.random() < 0.15:
            extra = rng.choice([" DEFAULT 5", " DEFAULT x", " DEFAULT NULL", " COMMENT 'p'",
                                " DEFAULT (SELECT 1)", " DEFAULT 'a'"])  # fmt: skip
        out.append(f"{name} {type_text(rng, dialect)}{extra}")
    return ", ".join(out)


def statement(rng: random.Random, dialect: str) -> str:
    if rng.random() < 0.05:
        return rng.choice(OTHER_STATEMENTS)
    returns = f"RETURNS {type_text(rng, dialect)}" if rng.random() < 0.95 else ""
    chars = " ".join(rng.choice(CHARACTERISTICS[dialect]) for _ in range(rng.randint(0, 2)))
    r = rng.random()
    if dialect == "trino" and r < 0.35:
        body = Routine(rng, rng.choice([5, 20, 60])).body()
    elif dialect == "trino" and r < 0.42:
        body = _scaled_routine(rng)
    elif r < 0.9:
        body = "RETURN " + rng.choice(BODIES[dialect])
    else:
        body = "RETURN " + _hostile_body(rng, dialect)
    if rng.random() < 0.05:  # a piece cut off or doubled
        body = body[: rng.randint(0, len(body))] if rng.random() < 0.5 else body + body
    head = rng.choice(HEADS[:3]) if rng.random() < 0.9 else rng.choice(HEADS)
    name = rng.choice(NAMES[:3]) if rng.random() < 0.85 else rng.choice(NAMES)
    return f"{head} {name}({parameters(rng, dialect)}) {returns} {chars} {body}"


def script(rng: random.Random, dialect: str) -> str:
    stmts = [statement(rng, dialect) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    return ";\n".join(stmts) + rng.choice([";", "", ";;", "\n", " --"])
