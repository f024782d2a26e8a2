"""The opt-in native build: ``ICEBERG_UDF_MYPYC=1 pip install .`` compiles the compile path's
modules with mypyc; without the variable the package is the pure-Python one pyproject.toml
describes (setuptools' backend runs this file; it adds extension modules only when asked).

Why opt-in: the compiled modules give byte-identical output but need a C compiler (or a
platform wheel for every CPython and platform), and mypyc is stricter than CPython at run time.
:data:`NATIVE_MODULES` is what compiles and passes the suite. Left out, as mypyc 2.4.1 treats
them: the pydantic models (pydantic refuses compiled classes), ``errors.py`` (compiled
exception classes lose their class attributes), ``dialects/transformers.py`` (lark's
Transformer interface: a class deriving from lark's with ``__getattr__``, and one that gains
attributes at run time), and the Trino routines' ``expr_types.py``: compiled, its recursion
over a tree is not bounded by Python's recursion limit (a native call takes no Python frame),
so a body of 100,000 terms overflows the C stack and kills the process where the interpreted
module raises the ``RecursionError`` its callers take for "too deep"
(``tests/dialects/trino/test_expr_types.py`` runs such a body in a child process). Left out
because compiled code binds its calls where tests observe them (a compiled caller calls a
compiled function or method directly, past a monkeypatch of the name), and because compiling
them buys little (their own time is under 1% of compile's, together, in a cProfile of the
corpus): ``sqlglot_dialects.py`` (tests count sqlglot parses through the names its callers
import; and compiled, its ``threading.local`` subclass crashed the process on a ``getattr`` of
a name it lacks),
``statement_cache.py`` (tests count parses by patching the dialect class's
``parse_statement``) and the routine lowering (a fixture counts the statements lowered by
patching ``_Lowering.statement``).

What compiling needs of a module's code, found on the way (each reshaped where it compiles
now): no surrogate code point in a string literal (a raw-string escape the regex engine reads
instead), no ``__dict__`` read through a class (``vars(cls)``), no ``object.__new__`` of a
compiled class (``cls.__new__``), no star-unpacking inside ``x in (...)`` and no ``reversed()``
of a list of ``Any`` (internal mypyc errors), no dataclass decorator on a ``Protocol``, no local
union of classes as a value (``atomic = A | B`` is a type alias to mypy, and the compiled
function reads it as unbound: hold such classes in a module-level tuple), and a ``str``
parameter or ``str``-typed call result only where a non-string may not arrive (compiled, it
raises ``TypeError`` where the pure module refuses with its own error: such values are typed
``object`` and checked).
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
    "translator/script.py",
    "translator/dialects/grammar.py",
    "translator/dialects/trino/routines/__init__.py",
    "translator/dialects/trino/routines/flow.py",
    "translator/dialects/trino/routines/meaning.py",
    "translator/query_free.py",
    "translator/compile.py",
    "translator/merge.py",
    "translator/merge_owned.py",
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
