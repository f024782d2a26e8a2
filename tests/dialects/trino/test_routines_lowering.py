"""Compound Trino bodies lowered to one Spark expression (``routines.lowering``).

The lowered form of every Trino fixture with a compound body is snapshotted (each one read and
checked by hand when written). Then the control flow the corpus hardly exercises runs on a real
Spark: early RETURNs inside loops, LEAVE and ITERATE of outer loops, ITERATE in REPEAT, branches
that both return and fall through, loops that never end (an error, not a value).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.dialects.trino.spark_calls import call
from translator.dialects.trino.lexical import TRINO
from translator.dialects.trino.routines import MAX_SPARK_LAMBDAS, spark_form
from translator.dialects.trino.routines.syntax import Block, parse_routine
from translator.script import split_statements

COMPOUND = [
    p
    for p in sorted((FIXTURES / "trino" / "valid").glob("*.sql"))
    if "BEGIN" in p.read_text().upper()
]


def test_lowered_forms_of_the_fixtures(snapshot: Any) -> None:
    forms: dict[str, str] = {}
    for path in COMPOUND:
        for i, stmt in enumerate(split_statements(path.read_text(), TRINO)):
            routine = parse_routine(stmt.text)
            if not isinstance(routine.body, Block):
                continue
            form = spark_form(routine)
            forms[f"{path.stem}:{i}"] = form.sql if form.sql else f"refused: {form.reason}"
    assert len(forms) >= 15
    assert forms == snapshot


def _fn(name: str, params: str, returns: str, body: str) -> str:
    return f"CREATE FUNCTION {name}({params}) RETURNS {returns}\nBEGIN\n{body}\nEND"


@pytest.mark.spark
def test_return_inside_a_loop(spark: Any) -> None:
    ddl = _fn(
        "find_first",
        "p bigint",
        "bigint",
        "DECLARE i bigint DEFAULT 0;\n"
        "WHILE i < 10 DO\n  IF i * i >= p THEN RETURN i; END IF;\n  SET i = i + 1;\nEND WHILE;\n"
        "RETURN -1;",
    )
    assert call(spark, ddl, "find_first(10)", "find_first(0)", "find_first(1000)") == [
        "4", "0", "-1",
    ]  # fmt: skip


@pytest.mark.spark
def test_leave_and_iterate_an_outer_loop(spark: Any) -> None:
    ddl = _fn(
        "pairs",
        "n bigint",
        "bigint",
        "DECLARE i, j, c bigint DEFAULT 0;\n"
        "outer_loop: WHILE i < n DO\n"
        "  SET i = i + 1;\n  SET j = 0;\n"
        "  inner_loop: LOOP\n"
        "    SET j = j + 1;\n"
        "    IF j > i THEN ITERATE outer_loop; END IF;\n"
        "    IF i * j > 20 THEN LEAVE outer_loop; END IF;\n"
        "    SET c = c + 1;\n"
        "  END LOOP;\n"
        "END WHILE;\n"
        "RETURN c * 1000 + i;",
    )
    # i = 1..4: c gets 1 + 2 + 3 + 4; at i = 5, j = 1..4 count (5 * 5 > 20 leaves): c = 14.
    assert call(spark, ddl, "pairs(3)", "pairs(10)") == ["6003", "14005"]


@pytest.mark.spark
def test_iterate_in_repeat_checks_until(spark: Any) -> None:
    # Trino's docs (iterate.md) and TestSqlFunctions: 7.
    ddl = _fn(
        "iter_count",
        "",
        "bigint",
        "DECLARE a, b bigint DEFAULT 0;\n"
        "top: REPEAT\n  SET a = a + 1;\n  IF a <= 3 THEN ITERATE top; END IF;\n  SET b = b + 1;\n"
        "UNTIL a >= 10 END REPEAT;\nRETURN b;",
    )
    assert call(spark, ddl, "iter_count()") == ["7"]


@pytest.mark.spark
def test_branches_that_return_and_fall_through(spark: Any) -> None:
    ddl = _fn(
        "sign_word",
        "p bigint",
        "varchar",
        "DECLARE r varchar DEFAULT 'zero';\n"
        "IF p > 0 THEN\n  IF p > 5 THEN RETURN 'big'; END IF;\n  SET r = 'pos';\n"
        "ELSEIF p < 0 THEN\n  SET r = 'neg';\nEND IF;\n"
        "RETURN r || '!';",
    )
    assert call(spark, ddl, "sign_word(9)", "sign_word(3)", "sign_word(-3)", "sign_word(0)") == [
        "big", "pos!", "neg!", "zero!",
    ]  # fmt: skip


@pytest.mark.spark
def test_a_loop_that_does_not_end_is_an_error(spark: Any) -> None:
    ddl = _fn(
        "forever",
        "p bigint",
        "bigint",
        "WHILE p > 0 DO\n  SET p = p + 1;\nEND WHILE;\nRETURN p;",
    )
    assert call(spark, ddl, "forever(0)", "forever(1)") == ["0", "ERROR: USER_RAISED_EXCEPTION"]


@pytest.mark.spark
def test_a_large_body_binds_its_values_once(spark: Any) -> None:
    sets = "\n".join(f"IF p > {i} THEN SET s = s || '{i}'; END IF;" for i in range(12))
    ddl = _fn("digits", "p bigint", "varchar", f"DECLARE s varchar DEFAULT '';\n{sets}\nRETURN s;")
    form = spark_form(parse_routine(ddl))
    assert form.sql is not None and len(form.sql) < 20_000  # no doubling at each IF
    assert call(spark, ddl, "digits(3)", "digits(20)") == ["012", "01234567891011"]


def test_nested_loops_without_a_bound_are_refused() -> None:
    ddl = _fn(
        "nested",
        "p bigint",
        "bigint",
        "a: LOOP\n  b: LOOP\n    SET p = p * 2;\n    IF p > 100 THEN LEAVE a; END IF;\n"
        "  END LOOP;\nEND LOOP;\nRETURN p;",
    )
    form = spark_form(parse_routine(ddl))
    assert form.sql is None and form.reason is not None and "derivable bound" in form.reason


def test_nested_ifs_that_exit_and_fall_through_are_lowered_in_linear_time(
    lowered: list[object],
) -> None:
    """Each such IF lowered its branches, then lowered them again for the state struct: 20
    nested ones took 90 s (2^depth statements lowered), and a budget then refused them. Each
    branch is now lowered once, its exits left as holes the join fills: 15, 30 and 40 nested
    IFs are lowered, each statement once; 80 hold the rest of the body in more lets than a
    Spark form may nest (:data:`MAX_SPARK_LAMBDAS`), and are refused saying so. (Past ~50 the
    Spark form nests deeper than pure-Python sqlglot can write, though sqlglotc writes 60: the
    depths here are within both builds.)"""
    for depth in (15, 30, 40, 80):
        lowered.clear()
        nested = "IF p > 0 THEN " * depth + "RETURN 1;" + " END IF;" * depth
        form = spark_form(parse_routine(_fn("deep", "p integer", "integer", nested + " RETURN p;")))
        if depth > MAX_SPARK_LAMBDAS:
            assert form.reason is not None and "79 lets and folds deep" in form.reason, form.reason
            continue
        assert form.sql is not None, (depth, form.reason)
        assert form.sql.count("ELEMENT_AT(TRANSFORM(") == depth - 1
        # the body, each IF and the innermost RETURN once; the RETURN after them
        assert len(lowered) == depth + 3, (depth, len(lowered))


def test_a_chain_of_declarations_is_bound_not_doubled() -> None:
    """``DECLARE v1 integer DEFAULT v0 + v0; DECLARE v2 integer DEFAULT v1 + v1; ...``: each
    default copied the last value twice, so 18 of them made a 1.5 MB expression in 48 s
    (a routine found by the long fuzz run's generator).
    A declaration is bound like an assignment once the values grow past the binding size."""
    n = 14  # before: 2 s and a 100 kB expression; 40 would never have ended
    decls = "".join(f"DECLARE v{i + 1} integer DEFAULT v{i} + v{i};\n" for i in range(n))
    body = f"DECLARE v0 integer DEFAULT p;\n{decls}RETURN v{n};"
    start = time.perf_counter()
    form = spark_form(parse_routine(_fn("chain", "p integer", "integer", body)))
    assert time.perf_counter() - start < 5
    assert form.sql is not None and len(form.sql) < 50_000 and "NAMED_STRUCT('v0'" in form.sql


def test_small_declarations_are_not_bound() -> None:
    """Binding is for values past :data:`.flow.BIND_ABOVE`: small defaults stay inline."""
    body = "DECLARE a integer DEFAULT p + 1;\nDECLARE b integer DEFAULT a * 2;\nRETURN b;"
    form = spark_form(parse_routine(_fn("small", "p integer", "integer", body)))
    assert form.sql is not None and "ELEMENT_AT" not in form.sql, form.sql


def test_holes_are_filled_in_the_roots_as_one_pass_each_would() -> None:
    """A hole inside a tree is replaced in place; a hole that is a root is replaced in the list
    (every position that holds it), and the tree put there can itself be filled later; a hole
    in neither changes nothing. As :class:`lowering._Roots` does it by an identity table."""
    from sqlglot import exp

    from translator.dialects.trino.routines.lowering import _Hole, _Roots

    inner, alone, stray = _Hole(None, value=exp.null()), _Hole(None), _Hole(None)
    holder = exp.Paren(this=inner.node)
    roots = _Roots([holder, alone.node, exp.Literal.number(1), alone.node])
    filler = exp.Literal.number(2)
    roots.fill(inner, exp.Literal.number(7))
    roots.fill(alone, filler)
    roots.fill(stray, exp.Literal.number(9))
    assert [r.sql() for r in roots.items] == ["(7)", "2", "1", "2"]
    assert roots.items[0] is holder and roots.items[1] is filler is roots.items[3]
    again = _Hole(None)
    again.node = filler
    roots.fill(again, exp.Literal.number(3))
    assert [r.sql() for r in roots.items] == ["(7)", "3", "1", "3"]


def test_declarations_do_not_copy_the_scope_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame made for each declared name copied every variable in scope: n declarations, n
    squared steps (64,000 of them 19 s). The block grows its own scope in place, and a binding
    copies the scope once for all the names it binds; the Spark form is the same."""
    from translator.dialects.trino.routines import flow

    if not isinstance(flow.Frame.__dict__["set"], type(_fn)):
        pytest.skip("Frame is compiled (the native build): its method cannot be wrapped")
    n = 500
    copies: list[int] = []
    original = flow.Frame.set

    def counted(self: flow.Frame, *args: Any, **kwargs: Any) -> flow.Frame:
        copies.append(len(self.values))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(flow.Frame, "set", counted)
    for default in ("{i}", "p + {i}"):  # small values, and values bound as they grow
        copies.clear()
        decls = "".join(f"DECLARE v{i} integer DEFAULT {default.format(i=i)};\n" for i in range(n))
        ddl = _fn("many", "p integer", "integer", f"{decls}RETURN v{n - 1};")
        form = spark_form(parse_routine(ddl))
        assert form.sql is not None, form.reason
        assert sum(copies) < 10 * n, default  # a frame a name: ~n * n / 2 copied


def test_a_body_sqlglot_cannot_write_in_spark_is_refused_with_its_first_line() -> None:
    """sqlglot's Spark generator refuses TRY (the error raised, not a body written without it):
    the body has no Spark form, and the reason is sqlglot's message."""
    form = spark_form(parse_routine(_fn("t", "x integer", "integer", "RETURN try(x / 0);")))
    assert form.sql is None
    assert form.reason == "sqlglot cannot write it in Spark: Unsupported TRY function"


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        ("", "no detail"),  # "".splitlines() is empty: this was an IndexError
        ("first\nsecond", "first"),
        ("Required keyword: 'this' missing for Cast", "Required keyword missing for Cast"),
    ],
)
def test_sqlglot_s_message_is_read_as_the_project_reads_it(
    monkeypatch: pytest.MonkeyPatch, message: str, shown: str
) -> None:
    """The refusal's detail is ``sqlglot_dialects.first_line`` of sqlglot's message: never a
    crash on an empty one, and without the argument name that changes with the hash seed."""
    from sqlglot.errors import UnsupportedError

    import translator.dialects.trino.routines as routines

    if str(routines.__file__).endswith(".so"):
        pytest.skip("the routines module is compiled (the native build): its calls are direct")

    def refuse(*args: Any, **kwargs: Any) -> str:
        raise UnsupportedError(message)

    monkeypatch.setattr(routines, "write", refuse)
    form = spark_form(parse_routine(_fn("t", "x integer", "integer", "RETURN x + 1;")))
    assert (form.sql, form.reason) == (None, f"sqlglot cannot write it in Spark: {shown}")
