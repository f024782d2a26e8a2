"""Files: atomic writes (a reader sees the old file or the new one, never half of one), and the
one rule for a name that becomes a file or folder name (it stays inside its folder)."""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

from translator.errors import TranslatorError

__all__ = [
    "atomic_write",
    "child_path",
    "fsync_folder",
    "inside",
    "make_dirs",
    "make_dirs_durably",
    "name_part_problem",
    "write_all",
    "write_pieces",
]

#: What a name that becomes one path component cannot hold: separators and control characters.
_BAD_NAME_CHARS = re.compile(r"[/\\\x00-\x1f\x7f\ud800-\udfff]")
#: Longer names are refused by common file systems (255 bytes a component), with an OSError.
MAX_NAME_BYTES = 200


def name_part_problem(part: str) -> str | None:
    """Why ``part`` (a function or namespace name) cannot be one file or folder name, or None.

    Every writer that builds a path from a name asks this, so that no name escapes its folder
    (``..``, ``/tmp/x``, ``a/../../b``) or hides in it (``.x``: dot names are the tool's own).
    """
    if not part or part in (".", "..") or part.startswith("."):
        return "it must be non-empty and not start with '.'"
    if _BAD_NAME_CHARS.search(part):
        return (
            "slashes, backslashes, control characters and lone surrogates cannot be part of a "
            "file name"
        )
    if len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return f"it is longer than {MAX_NAME_BYTES} bytes, too long for a file name"
    return None


def inside(folder: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """Whether ``path``, with every symbolic link resolved, is in ``folder`` (also resolved).

    Every file a warehouse writes is asked this, so the usual case is answered without resolving
    ``folder`` (a system call per component of its path, ~50 µs a question in all): ``path``
    spelled as ``folder/a/b`` (no ``..``) none of whose ``a``, ``a/b`` is a symbolic link is in
    ``folder``, wherever ``folder`` leads. Anything else is resolved in full."""
    base, full = os.fspath(folder), os.fspath(path)
    head = base.rstrip("/") + "/"
    if full.startswith(head):
        parts = full[len(head) :].split("/")
        if not any(p in ("", ".", "..") for p in parts) and not _any_link(head, parts):
            return True
    root = os.path.realpath(folder)
    real = os.path.realpath(path)
    return os.path.commonpath([root, real]) == root


def _any_link(head: str, parts: list[str]) -> bool:
    """Whether ``head + parts[0]``, ``head + parts[0]/parts[1]``, ... has a symbolic link (an
    entry that cannot be read counts as none, as :func:`os.path.realpath` counts it; below a
    missing one there is nothing to ask)."""
    here = head
    for part in parts:
        here += part
        try:
            if stat.S_ISLNK(os.lstat(here).st_mode):
                return True
        except FileNotFoundError:
            return False  # nor can anything below it exist (a new function's folders)
        except OSError:
            pass
        here += "/"
    return False


def child_path(folder: Path, name: str, suffix: str = "") -> Path:
    """``folder/<name><suffix>``, refused (:class:`TranslatorError`) when ``name`` would not make
    one file name in ``folder`` or a symbolic link leads it out."""
    problem = name_part_problem(name)
    if problem is not None:
        raise TranslatorError(f"cannot write a file for the name {name!r}: {problem}")
    path = folder / f"{name}{suffix}"
    if not inside(folder, path):
        raise TranslatorError(f"cannot write {path}: a symbolic link leads it out of {folder}")
    return path


def fsync_folder(path: str | os.PathLike[str]) -> None:
    """Make ``path``'s entries durable: a file's fsync does not make its name in its folder
    durable, so after a rename or a new link the folder is synced too (best effort: not every
    platform lets a folder be opened and synced)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, fsync it, rename it over ``path``,
    and sync the folder, so that after a power cut the name holds the old text or the new one.

    A file system's refusal (a folder in the way, no permission, a full disk) is a
    :class:`TranslatorError` naming the path, and leaves no temporary file behind.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        if path.parent.exists() and not path.parent.is_dir():
            raise TranslatorError(f"cannot write {path}: {path.parent} is not a folder") from None
        raise TranslatorError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise TranslatorError(f"cannot write {path}: {e.strerror or e}") from None
        raise
    fsync_folder(path.parent)


#: How many pieces one ``writev(2)`` call may take (POSIX's minimum IOV_MAX is 16).
_IOV_MAX = max(16, min(1024, os.sysconf("SC_IOV_MAX") if hasattr(os, "sysconf") else 16))


def write_all(fd: int, data: bytes | memoryview) -> None:
    """Write all of ``data`` (a short write is continued)."""
    done = os.write(fd, data)
    if done < len(data):
        rest = memoryview(data)[done:]
        while rest:
            rest = rest[os.write(fd, rest) :]


def write_pieces(fd: int, pieces: list[bytes]) -> None:
    """Write ``pieces`` one after the other, without joining them (``writev``, where there is
    one); a short write is finished by plain writes."""
    if not hasattr(os, "writev"):  # pragma: no cover - not POSIX
        rest = memoryview(b"".join(pieces))
        while rest:
            rest = rest[os.write(fd, rest) :]
        return
    for i in range(0, len(pieces), _IOV_MAX):
        batch = pieces[i : i + _IOV_MAX]
        done = os.writev(fd, batch)
        if done < sum(map(len, batch)):
            rest = memoryview(b"".join(batch))[done:]
            while rest:
                rest = rest[os.write(fd, rest) :]


def make_dirs_durably(folder: str) -> None:
    """``os.makedirs(folder, exist_ok=True)``, and each new folder's entry made durable in its
    parent: a file's fsync and its own folder's fsync do not make that folder's name durable, so
    without this a power cut could lose a new function's folder whose metadata a ledger says is
    applied."""
    for parent in make_dirs(folder):
        fsync_folder(parent)


def make_dirs(folder: str) -> list[str]:
    """``os.makedirs(folder, exist_ok=True)``, each new folder made once, top down; returns the
    folders whose entries changed (each new folder's parent, top down), which the caller must
    sync before it relies on the new folders' names (:func:`make_dirs_durably` does at once).

    Callers ask after finding ``folder`` missing, and usually only its last part or two are:
    so each folder is made first and its parent asked for only when that fails (a new
    function's two folders: three calls, not three stats and two makes). Anything but a missing
    parent or a folder already there is asked again part by part, so that the errors stay
    those of a walk that looks before it makes."""
    missing: list[str] = []  # bottom up: the folders found missing
    here, made_first = folder, False
    while True:
        try:
            os.mkdir(here)
        except FileNotFoundError:
            parent = os.path.dirname(here)
            if parent == here:
                return _make_dirs_looking(folder)
            missing.append(here)
            here = parent
            continue
        except FileExistsError:
            if not os.path.isdir(here):
                return _make_dirs_looking(folder)
            # made meanwhile by another writer (not ours to sync): those below are still to make
        except OSError:
            return _make_dirs_looking(folder)
        else:
            missing.append(here)
            made_first = True
        break
    missing.reverse()  # top down
    for new in missing[1:] if made_first else missing:  # each once
        try:
            os.mkdir(new)
        except FileExistsError:
            if not os.path.isdir(new):
                raise
    return [os.path.dirname(new) for new in missing]


def _make_dirs_looking(folder: str) -> list[str]:
    """:func:`make_dirs` by asking each part whether it is a folder before making it."""
    missing: list[str] = []
    here = folder
    while not os.path.isdir(here):
        missing.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    for new in reversed(missing):  # top down: each mkdir once
        try:
            os.mkdir(new)
        except FileExistsError:
            if not os.path.isdir(new):
                raise
    return [os.path.dirname(new) for new in reversed(missing)]
