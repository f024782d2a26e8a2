"""The library names no command-line flags; the command line adds them.

A refusal that a caller can change (lossy output not allowed, strict compilation, two metadata
files with one version number) is a typed error saying which choice refused it. The library's
message is in the library's words; the CLI words it with its own flags.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import run, write
from tests.warehouse.helpers import T0, UUID_A, put_file, small_doc, warehouse
from translator import LossyError, compile_script, emit_ddl
from translator.warehouse import AmbiguousMetadataError

FLAG = re.compile(r"--[a-z]")
LOSSY_TRINO = "CREATE FUNCTION f(s varchar(3)) RETURNS varchar RETURN s"
UUID_FN = "CREATE FUNCTION g(u uuid) RETURNS int RETURN 1"


def test_strict_compile_is_a_typed_refusal_without_a_flag() -> None:
    result = compile_script(LOSSY_TRINO, "trino", strict=True)
    [error] = result.errors
    assert isinstance(error, LossyError) and error.refused_by == "strict"
    assert "strict mode refuses lossy translations" in error.message
    assert not FLAG.search(error.message)


def test_a_lossy_emit_is_a_typed_refusal_without_a_flag() -> None:
    meta = compile_script(UUID_FN, "trino").functions["g"]
    assert meta is not None
    with pytest.raises(LossyError) as caught:
        emit_ddl(meta, "spark", ("g",))
    assert caught.value.refused_by == "allow_lossy"
    assert "uuid" in caught.value.detail and not FLAG.search(caught.value.message)


def test_two_files_with_one_version_name_both_files_and_no_flag(tmp_path: Path) -> None:
    for body in ("a", "b"):
        put_file(tmp_path, f"00001-{uuid.uuid4()}.metadata.json", small_doc(UUID_A, body, [T0]))
    with pytest.raises(AmbiguousMetadataError) as caught:
        warehouse(tmp_path).load("f")
    assert all(f.startswith("default/f/metadata/00001-") for f in caught.value.files)
    assert not FLAG.search(caught.value.message)


def test_the_cli_names_its_flags(capsys: Any, tmp_path: Path) -> None:
    sql = write(tmp_path, "lossy.sql", LOSSY_TRINO)
    code, _, err = run(capsys, "compile", "--dialect", "trino", "--strict", str(sql))
    assert code == 1 and "(refused by --strict)" in err and "strict mode" not in err

    meta = write(tmp_path, "g.sql", UUID_FN)
    code, _, err = run(capsys, "transpile", "--from", "trino", "--to", "spark", str(meta))
    assert code == 1 and "(allow it with --allow-lossy)" in err

    wh = tmp_path / "wh"
    for body in ("a", "b"):
        put_file(wh, f"00001-{uuid.uuid4()}.metadata.json", small_doc(UUID_A, body, [T0]))
    code, _, err = run(capsys, "show", "f", "--warehouse", str(wh))
    assert code == 1 and "two metadata files claim version 1" in err
    assert re.search(r"hint: --metadata-file default/f/metadata/00001-\S+ reads one of them", err)
