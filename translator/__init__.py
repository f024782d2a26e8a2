"""iceberg-udf: compile SQL function DDL into Apache Iceberg UDF metadata and back.

The public API, for deploy scripts::

    from translator import compile_script, load_metadata, emit_ddl, Warehouse

* :func:`compile_script` / :class:`CompileResult`: DDL -> metadata (:mod:`translator.api`);
* :func:`load_metadata`: a metadata text, validated, as models (:mod:`translator.metadata`);
* :func:`emit_ddl`: metadata -> one engine's DDL (:mod:`translator.emit`);
* :class:`Warehouse`: a folder of versioned functions (:mod:`translator.warehouse`);
* :func:`format_name` / :func:`parse_name`: a name's parts as one text and back (the keys of
  :class:`CompileResult`, a warehouse NAME; :mod:`translator.names`);
* the errors, all :class:`TranslatorError`, and :class:`Diagnostic` (warnings as data).

The names load on first use, so ``import translator`` stays cheap (no lark, sqlglot or store
until they are needed). Importing this package never imports pyspark; the Spark integration
lives in ``translator.spark``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from translator.errors import (
    Diagnostic,
    HistoryError,
    LossyError,
    MergeError,
    MetadataError,
    NameSyntaxError,
    OverloadError,
    Position,
    SqlSyntaxError,
    TranslatorError,
    UnsupportedError,
    UnsupportedNameError,
)
from translator.lazy_names import lazy_names

if TYPE_CHECKING:
    from translator.api import CompileResult, compile_script
    from translator.emit import emit_ddl
    from translator.metadata import load_metadata
    from translator.names import format_name, parse_name
    from translator.warehouse import (
        CommitConflictError,
        FunctionNotFoundError,
        TimeTravelError,
        UnsupportedStorageError,
        Warehouse,
        WarehouseError,
    )

__version__ = "0.1.0"

#: Public name -> the module it is loaded from on first use.
_LAZY = {
    "CompileResult": "translator.api",
    "compile_script": "translator.api",
    "emit_ddl": "translator.emit",
    "load_metadata": "translator.metadata",
    "format_name": "translator.names",
    "parse_name": "translator.names",
    "Warehouse": "translator.warehouse",
    "WarehouseError": "translator.warehouse",
    "CommitConflictError": "translator.warehouse",
    "FunctionNotFoundError": "translator.warehouse",
    "TimeTravelError": "translator.warehouse",
    "UnsupportedStorageError": "translator.warehouse",
}

__all__ = [
    "CommitConflictError",
    "CompileResult",
    "Diagnostic",
    "FunctionNotFoundError",
    "HistoryError",
    "LossyError",
    "MergeError",
    "MetadataError",
    "NameSyntaxError",
    "OverloadError",
    "Position",
    "SqlSyntaxError",
    "TimeTravelError",
    "TranslatorError",
    "UnsupportedError",
    "UnsupportedNameError",
    "UnsupportedStorageError",
    "Warehouse",
    "WarehouseError",
    "compile_script",
    "emit_ddl",
    "format_name",
    "load_metadata",
    "parse_name",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY)
