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

(The Hive generator's ``columndef_sql`` asks a struct's field ``is_type("struct")`` of the
type it is in, too.) A string parses to the bare type of that name, and sqlglot compares a bare
type with a node by kind (or, for a user-defined node, whole, which such a node never equals).
So each of these tests is a question about the node's kind, and for most nodes the kind alone
shows that every test of the step fails:

* a type fails all four of ``datatype_sql``'s unless it is FLOAT, temporal, user-defined, a
  parameterisable text type (VARCHAR, CHAR...), or STRING with parameters;
* a cast fails all three of ``cast_sql``'s unless it is to JSON or a user-defined type, to
  DECIMAL of a literal, or to a nested type of a JSON value, a JSON extraction or a cast.

sqlglot's method then returns what its base class writes. So :class:`SparkWriter` writes those
nodes as the base class does, hands every other node to sqlglot's own method, and gives
``columndef_sql`` its separator by the kind of the type around it: the same text for every
tree, without the string parses. ``tests/dialects/spark/test_writer.py`` holds the two
generators to the same text (or the same error) on every kind of type and cast, and on every
Spark form of the benchmark corpus, and holds the steps skipped to sqlglot's source.

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

from translator.sqlglot_dialects import usable

__all__ = ["WRITER", "SparkWriter"]

_D = exp.DType

#: Kinds of type some test of the Hive generator's ``datatype_sql`` may hold for, besides its
#: parameterisable text types (read from the generator) and STRING with parameters.
_TYPES_TESTED: Final = frozenset((_D.FLOAT, _D.USERDEFINED, *exp.DataType.TEMPORAL_TYPES))

#: Target types some test of the Spark 2 generator's ``cast_sql`` may hold for, whatever the
#: argument.
_CAST_TARGETS_TESTED: Final = frozenset((_D.JSON, _D.USERDEFINED))

#: Arguments a test of ``cast_sql`` may hold for when the target is nested: what it reads as
#: JSON (a JSON value, a cast, a JSON extraction).
_JSON_ARGUMENTS: Final = (exp.ParseJSON, exp.Cast, exp.JSONExtract, exp.JSONExtractScalar)


class SparkWriter(SparkGenerator):
    """sqlglot's Spark generator, writing the types and casts no test of its own applies to
    as its base class does (see the module doc)."""

    def datatype_sql(self, expression: exp.DataType) -> str:
        kind = expression.this
        if (
            kind in _TYPES_TESTED
            or kind in self.PARAMETERIZABLE_TEXT_TYPES
            or (kind is _D.TEXT and expression.expressions)
        ):
            return super().datatype_sql(expression)
        return super(HiveGenerator, self).datatype_sql(expression)

    def cast_sql(self, expression: exp.Cast, safe_prefix: str | None = None) -> str:
        to, arg = expression.args.get("to"), expression.this
        if (
            not isinstance(expression, exp.Cast)
            or type(to) is not exp.DataType
            or to.this in _CAST_TARGETS_TESTED
            or (to.this is _D.DECIMAL and isinstance(arg, exp.Literal))
            or (to.args.get("nested") and isinstance(arg, _JSON_ARGUMENTS))
        ):
            return super().cast_sql(expression, safe_prefix=safe_prefix)
        return super(HiveGenerator, self).cast_sql(expression, safe_prefix=safe_prefix)

    def columndef_sql(self, expression: exp.ColumnDef, sep: str = " ") -> str:
        around = expression.parent
        if not isinstance(around, exp.DataType) or around.this is _D.USERDEFINED:
            return super().columndef_sql(expression, sep=sep)
        if around.this is _D.STRUCT:
            sep = ": "
        return super(HiveGenerator, self).columndef_sql(expression, sep=sep)


#: The generator class bodies are written for Spark with; None: sqlglot's own Spark generator.
WRITER: Final[type[Generator] | None] = usable(SparkWriter)
