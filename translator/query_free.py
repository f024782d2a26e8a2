"""Queries in a routine body that are really expressions, rewritten as expressions.

Trino's routine analyzer rejects any query in a function body ("Queries are not allowed in
functions"), wherever it sits: a scalar subquery, ``IN (SELECT ...)``, ``EXISTS (...)``. Spark
bodies often hold queries that read no table at all: ``(SELECT a)``, a subquery over a one-row
``VALUES`` or over a derived table of expressions. Such a query yields exactly one row (or none,
when a ``WHERE`` filters it out), so it has an exact expression form:

- scalar subquery: its value, or ``CASE WHEN <where> THEN <value> END`` (an empty scalar
  subquery is NULL);
- ``x IN (SELECT v ...)``: ``x IN (v)``, or ``CASE WHEN <where> THEN x IN (v) ELSE FALSE END``
  (IN over no rows is FALSE, even for a NULL ``x``);
- ``EXISTS (SELECT ...)``: TRUE, or ``CASE WHEN <where> THEN TRUE ELSE FALSE END``.

A column of a one-row source is replaced by its value (a source's columns shadow the parameters,
as in Spark's name resolution). Whatever else is a query (a table read, a join, a set operation,
grouping, an aggregate) is left alone and named by :func:`query_free`, so the caller refuses the
body with that reason instead of writing a routine Trino would reject.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from translator.rebuild import Reduced, by_init
from translator.sqltrees import ByClass, copy_tree, depth_first

__all__ = ["QueryFree", "query_free"]


@dataclass(frozen=True, slots=True)
class QueryFree:
    """The body without queries, or why it cannot be had. ``private``: ``ast`` is a copy that
    nothing else holds, so the caller may change it in place. ``nodes``: every node of ``ast``,
    depth first, where they are known (a walk the caller need not make again)."""

    ast: Any | None
    reason: str | None = None
    private: bool = False
    nodes: list[Any] | None = None

    def __reduce__(self) -> Reduced:
        return by_init(self)


class _Refused(Exception):
    """A query that has no expression form; the message says why."""


def query_free(ast: Any, parameters: Sequence[str], *, private: bool = False) -> QueryFree:
    """A copy of ``ast`` (one body: expression or query) with every query rewritten as an
    expression, or the reason it cannot be. ``parameters``: the function's parameter names;
    ``private``: ``ast`` is the caller's to give up, and is rewritten itself, not a copy."""
    tree = ast if private else copy_tree(ast)
    if isinstance(tree, exp.Query) and not isinstance(tree, exp.Subquery):
        tree = exp.Subquery(this=tree)
    # One walk (depth first, in order) finds what every step below looks for, and one pass
    # over its nodes sorts out the few kinds they look at; a tree that holds no query (most
    # bodies) is not walked again.
    nodes = depth_first(tree)
    ctes, tables, queries, columns, aggregates = _kinds(nodes)
    names = {n.alias.lower() for n in ctes}
    read = sorted({_table_name(t) for t in tables if _table_name(t).lower() not in names})
    if read:
        return QueryFree(
            None,
            f"the body reads {'table' if len(read) == 1 else 'tables'} {', '.join(read)}, "
            "and a Trino function cannot hold a query ('Queries are not allowed in functions')",
        )
    rewritten = False
    try:
        # Innermost first: an inner query that becomes an expression may let its outer one go.
        # (A reversed copy, not reversed(): mypyc 2.4.1 cannot compile reversed() of a list of
        # Any.)
        for node in queries[::-1]:
            if _is_query_expression(node):
                replacement = _rewrite(node)
                rewritten = True
                if node is tree:
                    tree = replacement
                else:
                    node.replace(replacement)
    except _Refused as e:
        return QueryFree(None, f"{e}, and a Trino function cannot hold a query")
    if rewritten:
        nodes = depth_first(tree)
        _, _, _, columns, aggregates = _kinds(nodes)
    wanted = {p.lower() for p in parameters}
    unqualified = False
    for col in columns:
        if col.table and col.name.lower() in wanted and not col.args.get("db"):
            # Spark lets a body qualify a parameter with the function's name (f.x); with no
            # query left, nothing else can qualify it.
            col.replace(exp.column(col.this.copy()))
            unqualified = True
    if aggregates:
        # The first in breadth-first order, the one named since this refusal was written.
        aggregate = next(iter(tree.find_all(exp.AggFunc, exp.Window)))
        return QueryFree(
            None,
            f"the body calls {aggregate.sql('spark')[:60]} (an aggregate or window function), "
            "which a function body has no rows for",
        )
    return QueryFree(tree, private=True, nodes=None if unqualified else nodes)


#: What :func:`_kinds` sorts nodes into: bits, found once per class by ``isinstance``'s rule.
_CTE, _TABLE, _QUERY, _COLUMN, _AGGREGATE = 1, 2, 4, 8, 16


def _kind(cls: type) -> int:
    """The kinds of the nodes of class ``cls`` (0: none that :func:`query_free` looks at);
    ``_QUERY``: a node :func:`_is_query_expression` may be true of."""
    return (
        (_CTE if issubclass(cls, exp.CTE) else 0)
        | (_TABLE if issubclass(cls, exp.Table) else 0)
        | (_QUERY if issubclass(cls, (exp.Exists, exp.In, exp.Subquery)) else 0)
        | (_COLUMN if issubclass(cls, exp.Column) else 0)
        | (_AGGREGATE if issubclass(cls, (exp.AggFunc, exp.Window)) else 0)
    )


_KINDS: ByClass[int] = ByClass(_kind)


def _kinds(nodes: list[Any]) -> tuple[list[Any], list[Any], list[Any], list[Any], bool]:
    """The CTEs, tables, possible query expressions and columns among ``nodes`` (in their
    order), and whether any is an aggregate or window function: one pass, one look-up of the
    node's class each, instead of a pass and an ``isinstance`` per question."""
    ctes: list[Any] = []
    tables: list[Any] = []
    queries: list[Any] = []
    columns: list[Any] = []
    aggregates = False
    kinds = _KINDS
    for node in nodes:
        kind = kinds[type(node)]
        if not kind:
            continue
        if kind & _COLUMN:
            columns.append(node)
        if kind & _QUERY:
            queries.append(node)
        if kind & _TABLE:
            tables.append(node)
        if kind & _CTE:
            ctes.append(node)
        if kind & _AGGREGATE:
            aggregates = True
    return ctes, tables, queries, columns, aggregates


def _table_name(t: Any) -> str:
    return ".".join(p.name for p in t.parts) or t.sql()


def _is_query_expression(node: Any) -> bool:
    """Whether ``node`` is a query used as a value (scalar subquery, IN, EXISTS)."""
    if isinstance(node, exp.Exists):
        return True
    if isinstance(node, exp.In) and node.args.get("query") is not None:
        return True
    if isinstance(node, exp.Subquery):
        parent = node.parent
        # a derived table (FROM (SELECT ...)) or IN's query is handled with its parent
        return not isinstance(parent, (exp.From, exp.Join, exp.In))
    return False


def _rewrite(node: Any) -> Any:
    if isinstance(node, exp.Exists):
        values, condition = _one_row(_inner_query(node.this))
        if condition is None:
            return exp.true()
        return exp.Case(ifs=[exp.If(this=condition, true=exp.true())], default=exp.false())
    if isinstance(node, exp.In):
        values, condition = _one_row(_inner_query(node.args["query"]))
        if len(values) != 1:
            raise _Refused(f"IN's query has {len(values)} columns")
        test = exp.In(this=node.this.copy(), expressions=[values[0]])
        if condition is None:
            return test
        return exp.Case(ifs=[exp.If(this=condition, true=test)], default=exp.false())
    values, condition = _one_row(_inner_query(node))
    if len(values) != 1:
        raise _Refused(f"a scalar subquery has {len(values)} columns")
    if condition is None:
        return _parenthesized(values[0])
    return exp.Case(ifs=[exp.If(this=condition, true=values[0])])


def _parenthesized(e: Any) -> Any:
    """``e`` where a subquery was: already atomic, or in parentheses (keeps precedence)."""
    if isinstance(e, (exp.Column, exp.Literal, exp.Paren, exp.Func, exp.Boolean, exp.Null)):
        return e
    return exp.Paren(this=e)


def _inner_query(node: Any) -> Any:
    while isinstance(node, (exp.Subquery, exp.Paren)):
        if node.args.get("alias") is not None and isinstance(node, exp.Subquery):
            break
        node = node.this
    return node


def _one_row(query: Any) -> tuple[list[Any], Any | None]:
    """The projections of a query that yields at most one row, with its columns resolved, and
    the condition under which it yields that row (None: always)."""
    if not isinstance(query, exp.Select):
        raise _Refused(f"the body holds a {type(query).__name__.lower()} query")
    for arg in ("group", "having", "qualify", "windows", "joins", "laterals", "offset", "pivots"):
        if query.args.get(arg):
            raise _Refused(f"the body holds a query with {arg.upper()}")
    if query.args.get("with_") is not None:
        query = _inline_ctes(query)
    source_columns: dict[str, Any] = {}
    aliases: set[str] = set()
    condition: Any | None = None
    from_ = query.args.get("from_")
    if from_ is not None:
        name, columns, condition = _source(from_.this)
        source_columns = columns
        if name:
            aliases.add(name.lower())
    limit = query.args.get("limit")
    if limit is not None:
        count = limit.expression
        if not (isinstance(count, exp.Literal) and not count.is_string and count.this.isdigit()):
            raise _Refused("the body holds a query with a LIMIT that is no number")
        if int(count.this) == 0:
            condition = exp.false()
    values = []
    for projection in query.expressions:
        if isinstance(projection, exp.Star):
            if not source_columns:
                raise _Refused("a SELECT * over no columns")
            values += [v.copy() for v in source_columns.values()]
            continue
        value = projection.this if isinstance(projection, exp.Alias) else projection
        values.append(_resolve(value.copy(), source_columns, aliases))
    where = query.args.get("where")
    if where is not None:
        filtered = _resolve(where.this.copy(), source_columns, aliases)
        condition = filtered if condition is None else exp.and_(condition, filtered)
    for value in values:
        if next(iter(value.find_all(exp.AggFunc, exp.Window)), None) is not None:
            raise _Refused("the body holds a query that aggregates")
    return values, condition


def _source(source: Any) -> tuple[str | None, dict[str, Any], Any | None]:
    """A one-row FROM source: its alias, its columns' values by lower-cased name, and the
    condition under which it has its row."""
    alias = source.args.get("alias")
    name = alias.name if alias is not None and alias.name else None
    names = [c.name for c in alias.columns] if alias is not None else []
    if isinstance(source, exp.Values):
        rows = source.expressions
        if len(rows) != 1:
            raise _Refused(f"the body holds a VALUES of {len(rows)} rows")
        row = rows[0]
        cells = row.expressions if isinstance(row, exp.Tuple) else [row]
        if names and len(names) != len(cells):
            raise _Refused("a VALUES whose alias names another number of columns")
        names = names or [f"col{i + 1}" for i in range(len(cells))]
        return name, {n.lower(): c.copy() for n, c in zip(names, cells, strict=True)}, None
    if isinstance(source, exp.Subquery):
        inner = _inner_query(source.this)
        values, condition = _one_row(inner)
        if not names:
            names = [_output_name(p, i) for i, p in enumerate(inner.expressions)]
        if len(names) != len(values):
            raise _Refused("a derived table whose alias names another number of columns")
        return name, {n.lower(): v for n, v in zip(names, values, strict=True)}, condition
    raise _Refused(f"the body holds a query over {source.sql('spark')[:60]}")


def _output_name(projection: Any, index: int) -> str:
    if isinstance(projection, exp.Alias):
        return str(projection.alias)
    if isinstance(projection, exp.Column):
        return str(projection.name)
    return f"_c{index}"  # nobody can name it; kept distinct


def _inline_ctes(query: Any) -> Any:
    """``WITH c AS (q) SELECT ... FROM c``: the CTE as a derived table (one CTE, used once)."""
    ctes = query.args["with_"].expressions
    from_ = query.args.get("from_")
    if len(ctes) != 1 or from_ is None or not isinstance(from_.this, exp.Table):
        raise _Refused("the body holds a WITH query")
    cte = ctes[0]
    if from_.this.name.lower() != cte.alias.lower() or from_.this.args.get("db"):
        raise _Refused("the body holds a WITH query")
    query = query.copy()
    query.set("with_", None)
    alias = from_.this.args.get("alias") or exp.TableAlias(this=exp.to_identifier(cte.alias))
    columns = cte.args["alias"].columns if cte.args.get("alias") is not None else []
    if columns and not alias.columns:
        alias = exp.TableAlias(this=alias.this, columns=[c.copy() for c in columns])
    query.set("from_", exp.From(this=exp.Subquery(this=cte.this.copy(), alias=alias)))
    return query


def _resolve(e: Any, columns: dict[str, Any], aliases: set[str]) -> Any:
    """``e`` with every column of the one-row source replaced by its value."""
    if not columns:
        return e
    for col in list(e.find_all(exp.Column)):
        if col.args.get("db"):
            continue
        qualifier = col.table.lower() if col.table else None
        if qualifier is not None and qualifier not in aliases:
            continue
        value = columns.get(col.name.lower())
        if value is None:
            if qualifier is not None:
                raise _Refused(f"{col.sql('spark')} names no column of its source")
            continue
        replacement = _parenthesized(value.copy())
        if col is e:
            return replacement
        col.replace(replacement)
    return e
