"""Which files a migration reads, and in which order."""

from __future__ import annotations

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
    found = [
        p
        for p in src.iterdir()
        if p.suffix.lower() == ".sql" and not p.name.startswith(".") and p.is_file()
    ]
    return sorted(found, key=lambda p: _natural_key(p.name))


#: The warning code for a ``.sql`` file a migration leaves alone (it is in a sub-folder).
NOT_READ = "not-read"


def unread_sql_files(src: Path) -> list[tuple[str, str]]:
    """``(name, why)`` for each ``.sql`` entry (not hidden) a migration does not read: files in
    sub-folders, and at the top a symbolic link to nothing or a folder named ``x.sql``. Each is
    named, so that no script is lost without a word."""
    out = []
    for p in src.rglob("*"):
        rel = p.relative_to(src)
        if p.suffix.lower() != ".sql" or any(part.startswith(".") for part in rel.parts):
            continue
        if len(rel.parts) > 1 and p.is_file():
            out.append((rel.as_posix(), "sub-folders are not read: this file was not migrated"))
        elif len(rel.parts) == 1 and not p.is_file():
            if p.is_symlink() and not p.exists():
                why = "a symbolic link to nothing: not migrated"
            elif p.is_dir():
                why = "a folder, not a file: not migrated (sub-folders are not read)"
            else:
                why = "not a regular file: not migrated"
            out.append((rel.as_posix(), why))
    return sorted(out, key=lambda item: _natural_key(item[0]))


# --------------------------------------------------------------------------------------------
