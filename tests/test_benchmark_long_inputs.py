"""benchmarks/long_inputs.py: every form it times is a statement that compiles, so each ratio it
prints is the time of real work (a form refused at once would time nothing)."""

from __future__ import annotations

import pytest

from benchmarks.long_inputs import FORMS
from translator.api import compile_script


@pytest.mark.parametrize("name", sorted(FORMS))
def test_each_form_compiles_at_a_small_size(name: str) -> None:
    dialect, sql = FORMS[name](5)
    result = compile_script(sql, dialect)
    assert not result.errors, [e.message for e in result.errors]
    assert any(meta is not None for meta in result.functions.values())
