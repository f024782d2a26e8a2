"""The opt-in native build: ``ICEBERG_UDF_MYPYC=1 pip install .`` compiles the compile path's
modules with mypyc; without the variable the package is the pure-Python one pyproject.toml
describes (setuptools' backend runs this file; it adds extension modules only when asked).

Why opt-in: the compiled modules give byte-identical output but need a C compiler (or a
platform wheel for every CPython and platform), and mypyc is stricter than CPython at run time.
:data:`NATIVE_MODULES` is what compiles and passes the suite unchanged. Left out, as mypyc
2.4.1 treats them: the pydantic models (pydantic refuses compiled classes), ``errors.py``
(compiled exception classes lose their class attributes), ``dialects/grammar.py`` (its callback
holder gains attributes at run time), ``compile.py`` (a surrogate code point in a string
literal), ``script.py`` (``__dict__`` read through a class), ``query_free.py`` and the Trino
routines' ``expr_types.py`` (internal mypyc errors), ``flow.py`` (a ``Protocol`` class at run
time) and ``meaning.py`` (compiled, a local bound to a union of classes reads as unbound).
Left out because compiled code binds its calls where tests observe them (a compiled caller
calls a compiled function or method directly, past a monkeypatch of the name): the
``sqlglot_dialects``, ``statement_cache`` and routine lowering modules; and ``merge.py``,
whose compiled ``str`` parameters would turn a caller's non-string uuid into a TypeError
instead of the refusal the pure module gives.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

#: The mypy whose mypyc the native build was measured with (mypyc's output and its run-time
#: strictness change between releases).
MYPYC = "mypy==2.4.1"

#: The modules compiled by the native build (paths from the project's root).
NATIVE_MODULES = [
    "translator/dialects/inline_loop.py",
    "translator/dialects/state_lexers.py",
    "translator/dialects/first_chars.py",
    "translator/dialects/base.py",
    "translator/dialects/spark/__init__.py",
    "translator/dialects/spark/assemble.py",
    "translator/dialects/spark/lexical.py",
    "translator/dialects/spark/parser.py",
    "translator/dialects/spark/source.py",
    "translator/dialects/spark/types.py",
    "translator/dialects/trino/__init__.py",
    "translator/dialects/trino/assemble.py",
    "translator/dialects/trino/lexical.py",
    "translator/dialects/trino/parser.py",
    "translator/dialects/trino/source.py",
    "translator/dialects/trino/types.py",
    "translator/dialects/trino/bodies.py",
    "translator/dialects/trino/routines/analyzer.py",
    "translator/dialects/trino/routines/loops.py",
    "translator/dialects/trino/routines/reading.py",
    "translator/dialects/trino/routines/syntax.py",
    "translator/dialects/trino/routines/type_text.py",
    "translator/ir.py",
    "translator/types.py",
    "translator/sqltrees.py",
    "translator/bodies.py",
    "translator/body_checks.py",
    "translator/defaults.py",
    "translator/names.py",
    "translator/collector.py",
    "translator/frontend.py",
]


def wanted() -> bool:
    """Whether the native build was asked for."""
    return os.environ.get("ICEBERG_UDF_MYPYC", "") in ("1", "true", "yes")


def ext_modules() -> list[object]:
    """The compiled modules of the native build; none unless it is asked for."""
    if not wanted():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        if "egg_info" in sys.argv:  # pip asking for the build's requirements (setup_requires)
            return []
        raise SystemExit(f"ICEBERG_UDF_MYPYC=1 builds with mypyc: install {MYPYC}") from None
    return list(mypycify(NATIVE_MODULES, opt_level="3", debug_level="0"))


if __name__ == "__main__":
    setup(ext_modules=ext_modules(), setup_requires=[MYPYC] if wanted() else [])
