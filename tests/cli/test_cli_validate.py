"""``iceberg-udf validate``: a line per file or per problem; exit 1 on any problem; no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from translator.cli import main

VALID = FIXTURES / "metadata" / "valid" / "two-definitions.json"
INVALID = FIXTURES / "metadata" / "invalid"


def _run(capsys: pytest.CaptureFixture[str], *files: Path | str) -> tuple[int, list[str], str]:
    code = main(["validate", *map(str, files)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_valid_file_prints_ok(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = _run(capsys, VALID)
    assert (code, lines, err) == (0, [f"{VALID}: ok"], "")


def test_invalid_file_prints_each_problem_with_its_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = json.loads(VALID.read_text())
    doc["definitions"][0]["versions"][1]["on-null-input"] = "never"
    doc["format-version"] = 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    code, lines, _ = _run(capsys, bad)
    assert code == 1
    assert lines == [
        f"{bad}: $.format-version: must be the integer 1, not 2",
        f"{bad}: $.definitions[0].versions[1].on-null-input: must be 'return-null' or 'call', "
        "not 'never'",
    ]


def test_one_bad_file_fails_the_run_but_all_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    bad = INVALID / "uuid-urn.json"
    code, lines, _ = _run(capsys, bad, VALID)
    assert code == 1
    assert lines[0].startswith(f"{bad}: $.function-uuid: ")
    assert lines[1] == f"{VALID}: ok"


def test_broken_json_reports_line_and_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "format-version": 1,\n  "definitions": [\n    {"a" 1}\n  ]\n}\n')
    code, lines, err = _run(capsys, broken)
    assert code == 1
    assert lines == [f"{broken}: line 4 column 10: Expecting ':' delimiter"]
    assert "Traceback" not in err


def test_missing_file_is_reported(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    code, lines, err = _run(capsys, missing)
    assert code == 1
    assert lines == [f"{missing}: cannot read: No such file or directory"]
    assert "Traceback" not in err


def test_directory_and_binary_files_are_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00")
    code, lines, _ = _run(capsys, tmp_path, binary)
    assert code == 1
    assert lines[0].startswith(f"{tmp_path}: cannot read: ")
    assert lines[1].startswith(f"{binary}: not UTF-8 text")


def test_no_files_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["validate"])
    assert info.value.code == 2
