"""Issue 15, class 2: every path built from a name stays inside its folder, for every writer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hardening_cli import run_cli
from translator.errors import TranslatorError
from translator.fileio import child_path, name_part_problem
from translator.warehouse import Warehouse
from translator.warehouse.layout import FunctionRef

ESCAPING = ["/tmp/x/pwned", "x/../../../pwned", "..", ".hidden", "a\\b", "a\x00b", "n" * 300]


@pytest.mark.parametrize("name", ESCAPING)
def test_writes_outside_the_chosen_folder_one_check_for_every_writer(
    name: str, tmp_path: Path
) -> None:
    assert name_part_problem(name) is not None
    with pytest.raises(TranslatorError):
        child_path(tmp_path, name, ".metadata.json")
    with pytest.raises(TranslatorError):
        FunctionRef("default", name)


def test_compile_output_dir_writes_nothing_outside_it(tmp_path: Path) -> None:
    target = tmp_path / "escaped"
    target.mkdir()
    script = tmp_path / "p.sql"
    script.write_text(
        f"CREATE FUNCTION `{target}/pwned`(x INT) RETURNS INT RETURN x;\n"
        "CREATE FUNCTION `x/../../pwned2`(x INT) RETURNS INT RETURN x;\n"
        "CREATE FUNCTION ok(x INT) RETURNS INT RETURN x;\n"
    )
    out = tmp_path / "out"
    code, _, err = run_cli("compile", "--dialect", "spark", "--output-dir", str(out), str(script))
    assert code == 1 and "Traceback" not in err
    assert list(target.iterdir()) == []
    assert sorted(p.name for p in tmp_path.rglob("*pwned*")) == []
    assert not out.exists()  # nothing written when one name is refused


def test_a_symlinked_namespace_folder_does_not_lead_writes_out(tmp_path: Path) -> None:
    wh, outside = tmp_path / "wh", tmp_path / "outside"
    wh.mkdir()
    outside.mkdir()
    os.symlink(outside, wh / "ns")
    with pytest.raises(TranslatorError, match="leads out of the warehouse"):
        Warehouse(wh).apply("CREATE FUNCTION ns.f(x INT) RETURNS INT RETURN x", "spark")
    assert list(outside.rglob("*")) == []
