"""benchmarks/long_histories.py: each shape builds the function it says, and the commands it
times run on it and succeed (a command that failed would time its error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.long_histories import COMMANDS, _build, _run
from translator.metadata import read_metadata_file


@pytest.mark.parametrize("shape", ["overloads", "versions"])
def test_each_shape_builds_its_function_and_the_commands_run(shape: str, tmp_path: Path) -> None:
    current = _build(tmp_path, shape, 4)
    meta = read_metadata_file(current)
    assert len(meta.definition_log) == 4
    if shape == "overloads":
        assert len(meta.definitions) == 4
        assert [len(e.definition_versions) for e in meta.definition_log] == [1, 2, 3, 4]
    else:
        (definition,) = meta.definitions
        assert len(definition.versions) == 4
    wh = current.parents[3]
    for name in ("validate", "show --log-entry 2", "history --json"):
        cmd = [a.format(wh=wh, file=current) for a in COMMANDS[name]]
        figures = _run(cmd, tmp_path / "out")
        assert figures["code"] == 0 and figures["cpu"] > 0
