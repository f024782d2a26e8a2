"""``fileio.inside`` answers as resolving every symbolic link would, with or without its
shortcut for paths spelled under the folder with no link among their own parts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from translator.fileio import inside


def _resolved(folder: Path, path: Path) -> bool:
    root, real = os.path.realpath(folder), os.path.realpath(path)
    return os.path.commonpath([root, real]) == root


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``real/wh`` with a folder ``ns``, a file ``f``, links ``out`` (to the outside), ``back``
    (to ``ns``, inside), ``dangling``; and ``linked`` -> ``real/wh`` (a linked warehouse)."""
    wh = tmp_path / "real" / "wh"
    (wh / "ns").mkdir(parents=True)
    (wh / "f").write_text("x")
    (tmp_path / "elsewhere").mkdir()
    (wh / "out").symlink_to(tmp_path / "elsewhere")
    (wh / "back").symlink_to(wh / "ns")
    (wh / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "linked").symlink_to(wh)
    return tmp_path


@pytest.mark.parametrize(
    "rel",
    [
        "ns/fn/metadata/1.json",
        "ns",
        "missing/deeper/x.json",
        "f/under/a/file",
        "out/x.json",
        "out",
        "back/x.json",
        "dangling/x.json",
        "ns/../out/x.json",
        "ns/../../x.json",
        ".",
        "",
    ],
)
@pytest.mark.parametrize("root", ["real/wh", "linked"])
def test_inside_answers_as_full_resolution(tree: Path, root: str, rel: str) -> None:
    folder = tree / root
    path = Path(os.path.join(folder, rel)) if ".." in rel else folder / rel
    assert inside(folder, path) == _resolved(folder, path)


def test_links_leading_out_are_refused_and_plain_paths_taken(tree: Path) -> None:
    wh = tree / "linked"
    assert inside(wh, wh / "ns" / "a" / "b.json")
    assert not inside(wh, wh / "out" / "b.json")
    assert not inside(wh, wh / "dangling" / "b.json")
    assert inside(wh, wh / "back" / "b.json")
