"""The checks a transpiled body must pass before it is stored for the other dialect (issue 4)."""

from __future__ import annotations

from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from translator.bodies import parse_body, transpile_body
from translator.types import IcebergType, PrimitiveType


def transpile(body: str, parameters: list[str], source: str = "spark") -> tuple[str | None, str]:
    target = "trino" if source == "spark" else "spark"
    kind = "query" if body.lstrip().upper().startswith(("SELECT", "WITH")) else "expression"
    ast, reason = parse_body(body, kind, source)
    assert reason is None, reason
    t = transpile_body(body, ast, kind=kind, source=source, target=target, parameters=parameters)
    return t.sql, t.reason or ""


@pytest.mark.parametrize(
    ("body", "strays"),
    [
        ("x + y", "y, which is not a parameter"),
        ("y + z", "y, z, which are not parameters"),
        ("x + (SELECT MAX(v) FROM t) + y", "y, which is not a parameter"),
    ],
)
def test_a_column_nothing_can_bind_refuses_the_representation(body: str, strays: str) -> None:
    """An expression body has no FROM: a bare name that is not a parameter is an error there.
    (Trino to Spark: a Trino body cannot read a table, see test_query_free.py)"""
    sql, reason = transpile(body, ["x"], source="trino")
    assert sql is None and reason == f"the body refers to {strays}"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # columns of a subquery's own tables, correlated with the parameter
        ("(SELECT SUM(c2) FROM t2 WHERE c1 = x)", "(SELECT SUM(c2) FROM t2 WHERE c1 = x)"),
        ("x IN (SELECT c1 FROM t2)", "x IN (SELECT c1 FROM t2)"),
        ("EXISTS(SELECT 1 FROM t WHERE k = x)", "EXISTS(SELECT 1 FROM t WHERE k = x)"),
        # a lambda's variable
        ("transform(a, e -> e + x)", "TRANSFORM(a, e -> e + x)"),
        # a query body binds its own columns
        ("SELECT c FROM t WHERE c > x", "SELECT c FROM t WHERE c > x"),
    ],
)
def test_columns_a_query_or_lambda_binds_are_not_strays(body: str, expected: str) -> None:
    """Into Spark, which takes queries in functions (a Trino body cannot read a table)."""
    sql, reason = transpile(body, ["x", "a"], source="trino")
    assert (sql, reason) == (expected, "")


def test_a_subquery_without_tables_binds_nothing() -> None:
    sql, reason = transpile("(SELECT y + 1)", ["x"])
    assert sql is None and reason == "the body refers to y, which is not a parameter"


def _typed(body: str, types: dict[str, IcebergType]) -> tuple[str | None, str]:
    ast, _ = parse_body(body, "expression", "spark")
    t = transpile_body(
        body,
        ast,
        kind="expression",
        source="spark",
        target="trino",
        parameters=list(types),
        parameter_types=types,
    )
    return t.sql, t.reason or ""


STRING, INT, DOUBLE = PrimitiveType("string"), PrimitiveType("int"), PrimitiveType("double")


def test_parameter_types_let_sqlglot_rewrite_what_depends_on_them() -> None:
    """sqlglot refuses CONCAT_WS into Trino unless it knows the arguments are strings."""
    body = "concat_ws('-', s, s)"
    assert transpile(body, ["s"])[0] is None
    sql, _ = _typed(body, {"s": STRING})
    assert sql == "CONCAT_WS('-', CAST(s AS VARCHAR), CAST(s AS VARCHAR))"


def test_division_keeps_spark_semantics_with_or_without_a_cast() -> None:
    """Spark's / is never integer division: an int is cast to double in Trino, a double not."""
    assert _typed("a / b", {"a": INT, "b": INT})[0] == "CAST(a AS DOUBLE) / NULLIF(b, 0)"
    assert _typed("a / b", {"a": DOUBLE, "b": DOUBLE})[0] == "a / NULLIF(b, 0)"


def test_the_stored_tree_is_not_typed_in_place() -> None:
    ast, _ = parse_body("a / b", "expression", "spark")
    transpile_body(
        "a / b",
        ast,
        kind="expression",
        source="spark",
        target="trino",
        parameters=["a", "b"],
        parameter_types={"a": DOUBLE, "b": DOUBLE},
    )
    assert all(c.type is None for c in ast.find_all(exp.Column))


def _scoped_reference(ast: exp.Expr) -> tuple[list[str], list[str], set[str]]:
    """The long way: every node with whether a query with a FROM encloses it, on one stack."""
    columns: list[str] = []
    free: list[str] = []
    lambdas: set[str] = set()
    stack = [(ast, False)]
    while stack:
        node, below = stack.pop()
        if isinstance(node, exp.Column) and not node.table:
            columns.append(node.name)
            if not below:
                free.append(node.name)
        elif isinstance(node, exp.Lambda):
            lambdas.update(i.name.lower() for i in node.expressions)
        below = below or (isinstance(node, exp.Select) and bool(node.args.get("from_")))
        stack.extend((child, below) for child in node.iter_expressions())
    return columns, free, lambdas


def test_bare_columns_in_the_order_of_the_scoped_walk() -> None:
    """The first spelling of a free name is the one reported: the walk keeps the order of a
    stack fed each node's children in order; a column in a query with a FROM is not free."""
    from benchmarks.corpus import generate
    from benchmarks.throughput import _bodies
    from translator.sqltrees import column_name, scoped_columns

    def _bare_columns(ast: exp.Expr) -> tuple[list[str], list[str], set[str]]:
        columns, free, lambda_vars, _ = scoped_columns(ast)
        return [column_name(c) for c in columns], [column_name(c) for c in free], lambda_vars

    texts = [
        ("Y + (SELECT sum(c) FROM t WHERE k = y) + transform(a, v -> v + z) + y", "spark"),
        ("(SELECT x FROM (SELECT y AS x) s WHERE (SELECT max(q) FROM u) > w)", "spark"),
    ] + [(text, dialect) for text, dialect, _ in _bodies(generate(150, 11))]
    first = sqlglot.parse_one(texts[0][0], read="spark")
    assert _bare_columns(first) == (
        ["y", "z", "a", "y", "k", "c", "Y"],
        ["y", "z", "a", "Y"],
        {"v"},
    )
    for text, dialect in texts:
        try:
            ast = sqlglot.parse_one(text, read=dialect)
        except sqlglot.errors.SqlglotError:
            continue
        assert _bare_columns(ast) == _scoped_reference(ast), text


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ("x + 1", {"x"}),  # clean: the analyzer is told every name is known
        ("x || 'a'", {"x"}),  # a type Trino refuses for an integer RETURN
        ("y + 1", {"y"}),  # an unknown name: looked up as before
        ("transform(ARRAY[x], v -> v + 1)[1]", {"x"}),
        ("x + current_date", {"x", "current_date"}),
    ],
)
def test_trino_objection_with_the_names_known_is_the_full_analysis(
    body: str, names: set[str]
) -> None:
    from translator.dialects.trino.routines import trino_objection

    params = [("x", PrimitiveType("int"))]
    tree = sqlglot.parse_one(body, read="trino")
    full = trino_objection("f", params, PrimitiveType("int"), body, tree)
    assert trino_objection("f", params, PrimitiveType("int"), body, tree, names) == full


def test_a_spark_body_refused_by_trinos_analyzer_after_the_names_screen() -> None:
    """Spark -> Trino: with every name a parameter the type is still judged; a name with a table
    part (a struct's field) is still looked up."""

    def into_trino(body: str, returns: IcebergType) -> tuple[str | None, str]:
        ast, _ = parse_body(body, "expression", "spark")
        t = transpile_body(
            body,
            ast,
            kind="expression",
            source="spark",
            target="trino",
            parameters=["s"],
            parameter_types={"s": STRING},
            name="f",
            return_type=returns,
        )
        return t.sql, t.reason or ""

    assert (
        into_trino("concat(s, 'a')", STRING)[0]
        == "CONCAT(CAST(s AS VARCHAR), CAST('a' AS VARCHAR))"
    )
    sql, reason = into_trino("concat(s, 'a')", INT)
    assert sql is None and reason.startswith("Trino would reject it: Value of RETURN must")
    sql, reason = into_trino("t.s", STRING)
    assert sql is None and "'t' cannot be resolved" in reason


def test_a_trino_bodys_spark_form_reports_what_the_walks_it_replaces_find() -> None:
    """The rewrite's walk gives the parameters a Trino body names (what
    ``parameter_references`` finds in the tree as given) and, where it replaced nothing, the
    unknown calls of the tree it writes (what the own-name check's walk finds)."""
    from benchmarks.corpus import generate
    from benchmarks.throughput import _bodies
    from translator.bodies import parameter_references
    from translator.dialects.trino.routines import meaning

    texts = [
        "f(x) + g(y)",
        "CASE WHEN a[1] > 0 THEN day_of_week(d) ELSE x / y END",
        "element_at(m, k) + t.x + F(1)",
    ] + [text for text, dialect, _ in _bodies(generate(300, 13)) if dialect == "trino"]
    seen = replaced = 0
    for text in texts:
        try:
            tree = sqlglot.parse_one(text, read="trino")
        except sqlglot.errors.SqlglotError:
            continue
        if tree is None or isinstance(tree, exp.Command):
            continue
        names = {c.name.lower() for c in tree.find_all(exp.Column) if not c.table}
        before = parameter_references(tree, sorted(names | {"zz"}))
        try:
            done = meaning.rewritten(tree, {}, private=False)
        except meaning.Refused:
            continue
        seen += 1
        assert {n for n in done.names if n in names | {"zz"}} == before, text
        assert done.names == names, text
        if done.calls is None:
            replaced += 1
            continue
        walked = [n for n in done.tree.walk(bfs=False) if isinstance(n, exp.Anonymous)]
        assert list(done.calls) == walked, text
    assert seen > 50 and replaced > 0


def test_a_spark_form_refuses_a_call_of_its_own_name_as_before() -> None:
    """The first call of the function's own name (breadth first) is named, whether or not the
    rewrite replaced anything."""
    from translator.dialects.trino.routines import routine_from_parts, spark_form

    def form(body: str) -> str | None:
        routine = routine_from_parts(
            "f", [("x", "bigint"), ("a", "array(bigint)")], "bigint", body, ""
        )
        return spark_form(routine).reason

    assert form("g(F(x)) + f(x)") == (
        "the body calls f, the function's own name: Spark has neither overloads nor recursive "
        "SQL functions"
    )
    assert form("a[1] + g(F(x))") == (
        "the body calls F, the function's own name: Spark has neither overloads nor recursive "
        "SQL functions"
    )
    assert form("g(x) + a[1]") is None


def test_calls_are_found_at_each_paren_as_a_token_by_token_loop_finds_them() -> None:
    from sqlglot.tokenizer_core import TokenType

    from benchmarks.corpus import generate
    from benchmarks.throughput import _bodies
    from translator.bodies import _calls

    def by_token(tokens: list[Any]) -> list[tuple[str, bool]]:
        out = []
        for i in range(1, len(tokens)):
            if tokens[i].token_type != TokenType.L_PAREN:
                continue
            if tokens[i - 1].token_type not in (TokenType.VAR, TokenType.IDENTIFIER):
                continue
            before = tokens[i - 2].token_type if i > 1 else None
            if before in (TokenType.ALIAS, TokenType.R_PAREN):
                continue
            out.append((tokens[i - 1].text, before == TokenType.DOT))
        return out

    texts = [
        ("(f(x))", "spark"), ("f(", "spark"), ("(", "trino"), ("", "trino"), ("a.b(c)", "trino"),
        ("(VALUES (1)) t(a)", "spark"), ("SELECT x AS y(z)", "spark"), ("g(h(i(1)))", "trino"),
    ] + [(text, dialect) for text, dialect, _ in _bodies(generate(300, 19))]  # fmt: skip
    found = 0
    for text, dialect in texts:
        tokens = sqlglot.tokenize(text, read=dialect)
        assert _calls(tokens) == by_token(tokens), text
        found += len(by_token(tokens))
    assert found > 100
