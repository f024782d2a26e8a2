"""Which files a migration reads, and in which order."""

from __future__ import annotations

import os
import re
from pathlib import Path


def _natural_key(name: str) -> tuple[tuple[tuple[int, int, str], ...], str]:
    parts = re.split(r"(\d+)", name)
    key = tuple((0, int(p), "") if p.isdigit() else (1, 0, p.casefold()) for p in parts if p != "")
    return key, name


def list_migration_files(src_dir: str | Path) -> list[Path]:
    """The ``.sql`` files (any case) directly in ``src_dir``, hidden ones left out, in natural
    order: runs of digits compare as numbers (``2_x.sql`` before ``10_x.sql``, ``V2__`` before
    ``V10__``), the rest case-insensitively; ties (``1_a`` and ``01_a``) by the plain name.
    Sub-folders are not read."""
    src = Path(src_dir)
    if not src.is_dir():
        raise NotADirectoryError(f"{src}: not a directory")
    with os.scandir(src) as entries:
        found = [src / e.name for e in entries if _is_sql(e.name) and _is_file(e)]
    return sorted(found, key=lambda p: _natural_key(p.name))


def _is_sql(name: str) -> bool:
    """Whether a top-level entry's name is a migration script's: ``.sql`` in any case, not
    hidden (what ``Path(name).suffix`` says, for a name that does not start with a dot)."""
    return not name.startswith(".") and Path(name).suffix.lower() == ".sql"


def _is_file(entry: os.DirEntry[str]) -> bool:
    """``Path.is_file`` of the entry, from the folder's listing where it can be: a migration
    lists its folder twice and three stats a script were most of the folder's cost. A symbolic
    link is followed (a stat); one the entry cannot answer for (a loop) is asked as
    ``Path.is_file`` asks, so the answer and its errors stay that method's."""
    try:
        return entry.is_file()
    except OSError:
        return Path(entry.path).is_file()


def read_script(path: Path) -> str:
    """``path.read_text(encoding="utf-8-sig")`` (a leading BOM dropped, ``\\r\\n`` and ``\\r``
    read as ``\\n``), with its errors, in five system calls instead of nine: a text file object
    also asks for the terminal, the position (twice) and the size again."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        chunks = [os.read(fd, os.fstat(fd).st_size + 1)]
        while chunks[-1]:  # it grew, or the size said nothing (a pipe, /proc)
            chunks.append(os.read(fd, 1 << 16))
    finally:
        os.close(fd)
    text = b"".join(chunks).decode("utf-8-sig")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


#: The warning code for a ``.sql`` file a migration leaves alone (it is in a sub-folder).
NOT_READ = "not-read"


def unread_sql_files(src: Path) -> list[tuple[str, str]]:
    """``(name, why)`` for each ``.sql`` entry (not hidden) a migration does not read: files in
    sub-folders, and at the top a symbolic link to nothing or a folder named ``x.sql``. Each is
    named, so that no script is lost without a word."""
    out = []
    try:
        with os.scandir(src) as it:
            top = list(it)
    except PermissionError:  # as ``Path.rglob``: nothing to name
        return []
    for entry in top:
        name = entry.name
        if name.startswith("."):  # hidden, and everything below it
            continue
        if _is_sql(name) and not _is_file(entry):
            out.append((name, _why_not_read(Path(entry.path))))
        if _is_real_dir(entry):
            out += _below(src, Path(entry.path))
    return sorted(out, key=lambda item: _natural_key(item[0]))


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    """A folder that is not a symbolic link (``Path.rglob`` does not follow links either)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _below(src: Path, folder: Path) -> list[tuple[str, str]]:
    """The ``.sql`` files (no hidden part) anywhere in ``folder``, a sub-folder of ``src``."""
    out = []
    for p in folder.rglob("*"):
        rel = p.relative_to(src)
        if not _is_sql(p.name) or any(part.startswith(".") for part in rel.parts):
            continue
        if p.is_file():
            out.append((rel.as_posix(), "sub-folders are not read: this file was not migrated"))
    return out


def _why_not_read(p: Path) -> str:
    if p.is_symlink() and not p.exists():
        return "a symbolic link to nothing: not migrated"
    if p.is_dir():
        return "a folder, not a file: not migrated (sub-folders are not read)"
    return "not a regular file: not migrated"


# --------------------------------------------------------------------------------------------
