"""The opt-in native build: ``ICEBERG_UDF_MYPYC=1 pip install .`` compiles the compile path's
modules with mypyc; without the variable the package is the pure-Python one pyproject.toml
describes (setuptools reads this file for the extension modules only).

Why opt-in: the compiled modules are byte-identical in output but need a C compiler (or a
platform wheel for every CPython and platform), and mypyc is stricter than CPython about
types at run time. ``NATIVE_MODULES`` lists what compiles and runs the suite unchanged: not
the pydantic models (pydantic refuses compiled classes), not ``dialects/grammar.py`` (its
callback holder gains attributes at run time), not ``errors.py`` (mypyc 2.4.1 drops class
attributes of compiled exception classes).
"""

from __future__ import annotations

import os

from setuptools import setup

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
    "translator/dialects/trino/routines/lowering.py",
    "translator/dialects/trino/routines/reading.py",
    "translator/dialects/trino/routines/syntax.py",
    "translator/dialects/trino/routines/type_text.py",
    "translator/ir.py",
    "translator/types.py",
    "translator/sqltrees.py",
    "translator/bodies.py",
    "translator/body_checks.py",
    "translator/merge.py",
    "translator/defaults.py",
    "translator/names.py",
    "translator/collector.py",
    "translator/sqlglot_dialects.py",
    "translator/statement_cache.py",
    "translator/frontend.py",
]


def _ext_modules() -> list[object]:
    if os.environ.get("ICEBERG_UDF_MYPYC", "") not in ("1", "true", "yes"):
        return []
    from mypyc.build import mypycify

    only = os.environ.get("ICEBERG_UDF_MYPYC_MODULES")
    modules = only.split(",") if only else NATIVE_MODULES
    return list(mypycify(modules, opt_level="3", debug_level="0"))


setup(ext_modules=_ext_modules())
