"""fileio.make_dirs: the missing folders made top down, and the folders whose entries changed
named (the caller syncs them); what is in the way refused as a walk that looks first refuses it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from translator.fileio import _make_dirs_looking, make_dirs


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_missing_folders_are_made_and_their_parents_named_top_down(
    tmp_path: Path, depth: int
) -> None:
    parts = [f"p{i}" for i in range(depth)]
    folder = os.path.join(str(tmp_path), *parts)
    changed = make_dirs(folder)
    assert os.path.isdir(folder)
    expected = [os.path.join(str(tmp_path), *parts[:i]) for i in range(depth)]
    assert changed == expected
    # the same answer as asking each part first, for the same tree
    other = tmp_path / "again"
    other.mkdir()
    looked = _make_dirs_looking(os.path.join(str(other), *parts))
    assert [os.path.relpath(p, other) for p in looked] == [
        os.path.relpath(p, tmp_path) for p in changed
    ]


def test_a_folder_already_there_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert make_dirs(str(tmp_path / "a" / "b")) == []
    assert make_dirs(str(tmp_path / "a" / "b" / "c")) == [str(tmp_path / "a" / "b")]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="POSIX")
@pytest.mark.parametrize("blocker", ["file", "dangling-link", "file-above"])
def test_what_is_in_the_way_is_refused_as_before(tmp_path: Path, blocker: str) -> None:
    """A file (or a link to nothing) where a folder should be: ``FileExistsError``, as the walk
    that asks each part first raises it, and nothing is made."""
    for root in (tmp_path / "fast", tmp_path / "looking"):
        root.mkdir()
        if blocker == "file":
            (root / "a").write_text("")
        elif blocker == "dangling-link":
            (root / "a").symlink_to(root / "nowhere")
        else:
            (root / "x").mkdir()
            (root / "x" / "a").write_text("")
    sub = ("x", "a", "b", "c") if blocker == "file-above" else ("a", "b")
    errors = []
    for root, make in ((tmp_path / "fast", make_dirs), (tmp_path / "looking", _make_dirs_looking)):
        with pytest.raises(OSError) as e:
            make(os.path.join(str(root), *sub))
        errors.append(type(e.value))
    assert errors[0] is errors[1] is FileExistsError
    assert sorted(os.listdir(tmp_path / "fast")) == sorted(os.listdir(tmp_path / "looking"))


def test_only_the_folders_made_here_have_their_parents_named(tmp_path: Path) -> None:
    """``a`` is there (made by another writer after a caller found ``a/b`` missing): only
    ``a/b``'s parent changed here."""
    (tmp_path / "a").mkdir()
    assert make_dirs(str(tmp_path / "a" / "b")) == [str(tmp_path / "a")]
    assert make_dirs(str(tmp_path / "a")) == []
