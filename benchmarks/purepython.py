"""Import sqlglot from its Python sources even when sqlglotc's compiled modules are installed.

sqlglotc puts compiled ``.so`` files beside sqlglot's ``.py`` files, and Python prefers an
extension module to a source file. :func:`install` adds an import finder that, for ``sqlglot``
and its submodules, only looks at source and bytecode files, so one environment can measure
both builds. It must run before anything imports sqlglot. It also turns lark-cython off (the
other part of the ``fast`` extra), so that ``--build pure`` measures a plain install.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    SOURCE_SUFFIXES,
    FileFinder,
    ModuleSpec,
    SourceFileLoader,
    SourcelessFileLoader,
)
from types import ModuleType

__all__ = ["compiled_sqlglot", "install"]


class _SourcesOnly(MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "sqlglot" and not fullname.startswith("sqlglot."):
            return None
        for entry in path if path is not None else sys.path:
            finder = FileFinder(
                entry or ".",
                (SourceFileLoader, SOURCE_SUFFIXES),
                (SourcelessFileLoader, BYTECODE_SUFFIXES),
            )
            spec = finder.find_spec(fullname)
            if spec is not None:
                return spec
        return None


def install() -> None:
    """Pure-Python sqlglot, and lark's own parser rather than lark-cython's (the plain install:
    both come with the ``fast`` extra)."""
    if any(m == "sqlglot" or m.startswith("sqlglot.") for m in sys.modules):
        raise RuntimeError("sqlglot is already imported: install() must run first")
    sys.meta_path.insert(0, _SourcesOnly())
    os.environ["ICEBERG_UDF_LARK_CYTHON"] = "0"


def compiled_sqlglot() -> bool:
    """Whether the sqlglot in use runs sqlglotc's compiled modules."""
    from sqlglot import tokenizer_core

    return not str(getattr(tokenizer_core, "__file__", "py")).endswith(".py")
