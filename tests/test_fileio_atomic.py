"""fileio.atomic_write: a reader sees the old text or the new, and the new name is made durable."""

from __future__ import annotations

from pathlib import Path

import pytest

from translator import fileio
from translator.errors import TranslatorError


def test_the_folder_is_synced_after_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file's own fsync leaves its new name to chance in a power cut: the folder is synced
    once the name holds the new text."""
    target = tmp_path / "out" / "f.sql"
    target.parent.mkdir()
    target.write_text("old")
    seen: list[tuple[Path, str]] = []
    real = fileio.fsync_folder

    def record(folder: Path) -> None:
        seen.append((folder, target.read_text()))
        real(folder)

    monkeypatch.setattr(fileio, "fsync_folder", record)
    fileio.atomic_write(target, "new")
    assert seen == [(target.parent, "new")]
    assert [p.name for p in target.parent.iterdir()] == ["f.sql"]  # no temporary file left


def test_a_refused_write_leaves_nothing_and_names_the_path(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()  # a folder in the way: the rename fails
    with pytest.raises(TranslatorError, match="cannot write"):
        fileio.atomic_write(target, "text")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
    assert list(target.iterdir()) == []


def test_fsync_folder_is_best_effort(tmp_path: Path) -> None:
    """A folder that cannot be opened (gone) is not an error: durability is best effort there."""
    fileio.fsync_folder(tmp_path / "missing")
    fileio.fsync_folder(tmp_path)


def test_make_dirs_names_the_folders_whose_entries_changed(tmp_path: Path) -> None:
    """Each missing folder is made once, top down, and the parents whose entries changed are
    returned (top down) for the caller to sync; nothing is returned when nothing was made, and
    a file in the way is refused."""
    deep = tmp_path / "a" / "b" / "c"
    assert fileio.make_dirs(str(deep)) == [
        str(tmp_path),
        str(tmp_path / "a"),
        str(tmp_path / "a/b"),
    ]
    assert deep.is_dir()
    assert fileio.make_dirs(str(deep)) == []
    assert fileio.make_dirs(str(deep / "d")) == [str(deep)]
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError):
        fileio.make_dirs(str(tmp_path / "file" / "sub"))
