"""The sqlglot dialects our code names, one instance each, made once and shared.

sqlglot takes a dialect as a name or as an instance. Given a name (``parse_one(text,
read="trino")``, ``tree.sql(dialect="spark")``, ``DataType.build(text, dialect="trino")``) or a
class, it makes a new instance on every call (``Dialect.get_or_raise``), a few microseconds
each, several a statement; given an instance it uses that one. So every call into sqlglot from
our code passes one of these.

Sharing one instance between calls and threads is safe because a sqlglot dialect instance is
settings only: in sqlglot 30.30.0 (the version pinned) ``Dialect.__init__`` sets ``version``,
``normalization_strategy`` and ``settings``, and nothing in sqlglot assigns to an instance
after that (its parsers, tokenizers and generators read the dialect and keep their own per-call
state). Everything else a dialect holds belongs to its class, which every instance shares
anyway. ``tests/test_sqlglot_dialects.py`` holds this to sqlglot's source.
"""

from __future__ import annotations

from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.spark import Spark
from sqlglot.dialects.trino import Trino

__all__ = ["GENERIC", "SPARK", "TRINO", "dialect_named"]

#: sqlglot's Spark and Trino dialects.
SPARK: Dialect = Spark()
TRINO: Dialect = Trino()
#: sqlglot's base dialect: what ``tree.sql()`` writes and ``DataType.build(text)`` reads when no
#: dialect is named.
GENERIC: Dialect = Dialect()

_BY_NAME: dict[str, Dialect] = {"spark": SPARK, "trino": TRINO}


def dialect_named(name: str) -> Dialect:
    """The shared instance of the sqlglot dialect ``name`` (our dialects' ``sqlglot_dialect``);
    another name gets what sqlglot makes of it (a new instance, or sqlglot's error)."""
    found = _BY_NAME.get(name)
    return found if found is not None else Dialect.get_or_raise(name)
