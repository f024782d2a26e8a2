"""The public API of ``translator`` (its ``__init__``): every promised name resolves, lazily."""

from __future__ import annotations

import subprocess
import sys

import pytest

import translator
from tests.conftest import ROOT


def test_every_public_name_resolves() -> None:
    for name in translator.__all__:
        assert getattr(translator, name) is not None, name
    from translator import CompileResult, Warehouse, compile_script, emit_ddl, load_metadata
    from translator.api import CompileResult as api_result
    from translator.emit import emit_ddl as emit_emit_ddl
    from translator.metadata import load_metadata as metadata_load
    from translator.warehouse import Warehouse as warehouse_class

    assert compile_script is translator.api.compile_script and CompileResult is api_result
    assert load_metadata is metadata_load and emit_ddl is emit_emit_ddl
    assert Warehouse is warehouse_class
    assert issubclass(translator.WarehouseError, translator.TranslatorError)
    assert issubclass(translator.TimeTravelError, translator.HistoryError)


def test_the_api_docstring_example_runs() -> None:
    from translator import compile_script, load_metadata

    sql = "CREATE FUNCTION add_one(x INT) RETURNS INT RETURN x + 1"
    result = compile_script(sql, dialect="trino").raise_for_errors()
    assert load_metadata(result.dump()).definitions[0].definition_id == "int"


def test_importing_translator_loads_the_api_only_when_used() -> None:
    code = (
        "import sys, translator\n"
        "heavy = ('translator.api', 'translator.warehouse', 'lark', 'sqlglot', 'pyspark')\n"
        "assert not [m for m in heavy if m in sys.modules], sys.modules.keys()\n"
        "translator.compile_script\n"
        "assert 'translator.api' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        translator.no_such_name  # noqa: B018
