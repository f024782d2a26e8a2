"""Trino SQL routines: an analyzer with Trino's rules, and a lowering of compound bodies.

A small compiler in four passes, each its own module:

- :mod:`.syntax`: the AST of a routine (header and ``BEGIN ... END`` statements), built from
  the Trino lark grammar's parse; expressions stay text, with their offsets.
- :mod:`.expr_types`: Trino types of expressions where they can be derived (sqlglot trees).
- :mod:`.analyzer`: Trino's routine analyzer (scopes, labels, RETURN, types, determinism),
  with Trino's error codes, messages and positions.
- :mod:`.lowering`: a compound body as one expression for an engine that cannot hold
  statements (Spark): assignments substituted forward, branches as CASE, loops as folds.
- :mod:`.meaning`: what a Trino expression means, written in Spark: 1-based subscripts, integer
  division, ISO day of week...; a difference it cannot express refuses the body.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from translator.trino_routines.analyzer import RoutineProblem, analyze, parse_expression
from translator.trino_routines.expr_types import parse_type
from translator.trino_routines.lowering import lower_body
from translator.trino_routines.meaning import Refused, rewrite
from translator.trino_routines.syntax import Block, Routine, parse_routine

__all__ = ["RoutineProblem", "SparkForm", "analyze", "routine_from_parts", "spark_form"]


@dataclass(frozen=True, slots=True)
class SparkForm:
    """A Trino body written as one Spark expression, or why there is none."""

    sql: str | None
    reason: str | None = None


def routine_from_parts(
    name: str, parameters: Sequence[tuple[str, str]], return_type: str, body: str, kind: str
) -> Routine:
    """The routine of a function known by its parts (Trino type spellings, the body as written;
    ``kind`` is ``compound`` for a ``BEGIN ... END`` body, else the RETURN expression)."""
    params = ", ".join('"' + n.replace('"', '""') + '" ' + t for n, t in parameters)
    text = body if kind == "compound" else f"RETURN {body}"
    quoted = '"' + name.replace('"', '""') + '"'
    return parse_routine(f"CREATE FUNCTION {quoted}({params}) RETURNS {return_type}\n{text}")


def spark_form(routine: Routine) -> SparkForm:
    """The routine's body in Spark, with Trino's meaning (:mod:`.meaning`); a compound body is
    lowered to one expression first (:mod:`.lowering`). Refused, with the reason, where that
    cannot be done."""
    try:
        if isinstance(routine.body, Block):
            tree = lower_body(routine)
        else:
            node = parse_expression(routine.body.value.text)
            if node is None:
                return SparkForm(None, "sqlglot cannot read the body")
            scope = {name.value: parse_type(t) for name, t in routine.parameters}
            tree = rewrite(node, scope)
        own = routine.name[-1].lower()
        for call in tree.find_all(exp.Anonymous):
            if str(call.name).lower() == own:
                return SparkForm(
                    None,
                    f"the body calls {call.name}, the function's own name: Spark has neither "
                    "overloads nor recursive SQL functions",
                )
        return SparkForm(tree.sql(dialect="spark", unsupported_level=ErrorLevel.RAISE))
    except Refused as e:
        return SparkForm(None, e.reason)
    except SqlglotError as e:
        return SparkForm(None, f"sqlglot cannot write it in Spark: {str(e).splitlines()[0]}")
