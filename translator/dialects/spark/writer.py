"""The sqlglot generator that writes a body in Spark SQL.

Every Trino body stored for Spark is written by sqlglot's Spark generator: a transpiled body,
and a compound body's Spark form (one expression of ~1,200 characters that casts the routine's
values to their types in every branch). Two of that generator's steps ask a type a question by
a string, which sqlglot answers by parsing the string afresh, with a new dialect, tokenizer and
parser each time:

* the Hive generator's ``datatype_sql`` asks every type it writes ``is_type("float")`` (to
  write ``FLOAT(n)`` as FLOAT or DOUBLE), after three tests by the type's own kind;
* the Spark 2 generator's ``cast_sql`` asks every cast ``is_type("json")`` (to write a cast to
  JSON as ``TO_JSON``), after tests for a decimal literal and for JSON arguments.

For most types and casts every one of those tests is false, and the kind of the node alone
shows it: a type that is not FLOAT, not a text type, not a temporal type and not user-defined
fails all four of ``datatype_sql``'s; a cast to a type that is not JSON, DECIMAL or
user-defined, of an argument that is not JSON, a cast or a literal, fails all of
``cast_sql``'s. sqlglot's method then returns what its base class writes. So
:class:`SparkWriter` writes exactly those nodes as the base class does, and hands every other
node to sqlglot's own method: the same text for every tree, without the string parses.
``tests/dialects/spark/test_writer.py`` holds the two generators to the same text (or the same
error) on every type and cast kind, and on every Spark form of the benchmark corpus, and holds
the methods skipped to sqlglot's source.

Only with pure-Python sqlglot. sqlglotc compiles sqlglot's generator classes, and mypyc makes no
instance of an interpreted class derived from a compiled one: there :data:`WRITER` is None and
bodies are written by sqlglot's own Spark generator (whose string parses are compiled too).
"""

from __future__ import annotations

from typing import Final

from sqlglot import exp
from sqlglot.generator import Generator
from sqlglot.generators.hive import HiveGenerator
from sqlglot.generators.spark import SparkGenerator

__all__ = ["WRITER", "SparkWriter"]

_D = exp.DType

#: Types some test of the Hive generator's ``datatype_sql`` may hold for: FLOAT (the string
#: test), TEXT and the temporal types (tests by kind), USERDEFINED (compared whole). The
#: parameterisable text types are read from the generator itself.
_TYPES_TESTED: Final = frozenset((_D.FLOAT, _D.TEXT, _D.USERDEFINED, *exp.DataType.TEMPORAL_TYPES))

#: Target types some test of the Spark 2 generator's ``cast_sql`` may hold for.
_CAST_TARGETS_TESTED: Final = frozenset((_D.JSON, _D.DECIMAL, _D.USERDEFINED))

#: Arguments some test of ``cast_sql`` may hold for: a literal (a decimal with a negative
#: scale), and what it reads as JSON (a JSON value or cast, a JSON extraction).
_CAST_ARGS_TESTED: Final = (
    exp.Literal,
    exp.ParseJSON,
    exp.Cast,
    exp.JSONExtract,
    exp.JSONExtractScalar,
)


class SparkWriter(SparkGenerator):
    """sqlglot's Spark generator, writing the types and casts no test of its own applies to
    as its base class does (see the module doc)."""

    def datatype_sql(self, expression: exp.DataType) -> str:
        kind = expression.this
        if kind in _TYPES_TESTED or kind in self.PARAMETERIZABLE_TEXT_TYPES:
            return super().datatype_sql(expression)
        return super(HiveGenerator, self).datatype_sql(expression)

    def cast_sql(self, expression: exp.Cast, safe_prefix: str | None = None) -> str:
        to = expression.args.get("to")
        if (
            not isinstance(expression, exp.Cast)
            or type(to) is not exp.DataType
            or to.this in _CAST_TARGETS_TESTED
            or isinstance(expression.this, _CAST_ARGS_TESTED)
        ):
            return super().cast_sql(expression, safe_prefix=safe_prefix)
        return super(HiveGenerator, self).cast_sql(expression, safe_prefix=safe_prefix)


def _writer() -> type[Generator] | None:
    """:class:`SparkWriter`, or None where sqlglot's generator classes are compiled: the class
    is made, but making an instance raises (see the module doc)."""
    try:
        SparkWriter()
    except TypeError:  # "interpreted classes cannot inherit from compiled" (sqlglotc)
        return None
    return SparkWriter


#: The generator class bodies are written for Spark with; None: sqlglot's own Spark generator.
WRITER: Final[type[Generator] | None] = _writer()
