"""Which files a migration reads and which ``.sql`` entries it names as not read, from one listing
of the folder: the same answers ``pathlib``'s ``is_file`` and ``rglob`` give, for every kind of
entry a migration folder can hold."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from translator.migrate.files import list_migration_files, read_script, unread_sql_files


def _by_pathlib(src: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """What the two functions answer, asked entry by entry through ``pathlib`` (each entry
    stat-ed): the reference the listing-based answers must equal."""
    read = sorted(
        p.name
        for p in src.iterdir()
        if p.suffix.lower() == ".sql" and not p.name.startswith(".") and p.is_file()
    )
    unread = []
    for p in src.rglob("*"):
        rel = p.relative_to(src)
        if p.suffix.lower() != ".sql" or any(part.startswith(".") for part in rel.parts):
            continue
        in_sub_folder = len(rel.parts) > 1
        if p.is_file() == in_sub_folder:  # a file below the top, or no file at the top
            unread.append(rel.as_posix())
    return read, sorted(unread)


@pytest.mark.skipif(not hasattr(os, "symlink") or not hasattr(os, "mkfifo"), reason="POSIX")
def test_every_kind_of_entry_is_answered_as_pathlib_answers_it(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "sub" / "deeper").mkdir(parents=True)
    (src / ".hidden").mkdir()
    (src / "dir.sql").mkdir()  # a folder named like a script
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "far.sql").write_text("")
    for rel in ("1_a.sql", "2_B.SQL", "notes.txt", ".h.sql", "sub/3.sql", "sub/deeper/4.Sql"):
        (src / rel).write_text("")
    (src / ".hidden" / "5.sql").write_text("")
    (src / "linked.sql").symlink_to(src / "1_a.sql")  # a link to a script: read
    (src / "dangling.sql").symlink_to(tmp_path / "missing.sql")
    (src / "loop.sql").symlink_to(src / "loop.sql")  # a link to itself
    (src / "linked_dir").symlink_to(tmp_path / "outside")  # not followed
    (src / "dirlink.sql").symlink_to(src / "sub")
    os.mkfifo(src / "pipe.sql")

    read = [p.name for p in list_migration_files(src)]
    unread = dict(unread_sql_files(src))
    assert (sorted(read), sorted(unread)) == _by_pathlib(src)
    assert read == ["1_a.sql", "2_B.SQL", "linked.sql"]
    assert unread == {
        "dangling.sql": "a symbolic link to nothing: not migrated",
        "dir.sql": "a folder, not a file: not migrated (sub-folders are not read)",
        "dirlink.sql": "a folder, not a file: not migrated (sub-folders are not read)",
        "loop.sql": "a symbolic link to nothing: not migrated",
        "pipe.sql": "not a regular file: not migrated",
        "sub/3.sql": "sub-folders are not read: this file was not migrated",
        "sub/deeper/4.Sql": "sub-folders are not read: this file was not migrated",
    }
    assert all(p.parent == src for p in list_migration_files(src))


def test_a_folder_without_scripts_lists_none(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("")
    assert list_migration_files(tmp_path) == [] and unread_sql_files(tmp_path) == []


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"CREATE FUNCTION f() RETURNS INT RETURN 1;\n",
        b"\xef\xbb\xbfa;\r\nb;\rc;\n\r\n",  # a BOM, Windows and old Mac line ends
        "é;\u2028\r".encode() * 5000,  # past one read, a line end at the very end
        b"\xef\xbb\xbf",
    ],
)
def test_a_script_reads_as_read_text_reads_it(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "s.sql"
    path.write_bytes(data)
    assert read_script(path) == path.read_text(encoding="utf-8-sig")


@pytest.mark.parametrize("kind", ["not-utf8", "truncated", "folder", "missing"])
def test_a_script_that_cannot_be_read_fails_as_read_text_fails(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "s.sql"
    if kind == "not-utf8":
        path.write_bytes(b"a;\n\xff\xfe b;")
    elif kind == "truncated":
        path.write_bytes(b"a;\n\xc3")
    elif kind == "folder":
        path.mkdir()
    errors = []
    for read in (read_script, lambda p: p.read_text(encoding="utf-8-sig")):
        with pytest.raises((OSError, UnicodeDecodeError)) as e:
            read(path)
        errors.append(e.value)
    ours, theirs = errors
    assert type(ours) is type(theirs)
    if isinstance(ours, UnicodeDecodeError):
        assert isinstance(theirs, UnicodeDecodeError) and ours.reason == theirs.reason
    else:
        assert isinstance(ours, OSError) and isinstance(theirs, OSError)
        assert ours.strerror == theirs.strerror
