"""Publishing a whole, durable file in a local folder under a name only if that name is free.

This is :meth:`translator.warehouse.store.LocalStore.create_exclusive`'s mechanism, in two forms
with the same guarantees: a reader never sees a half-written file under the name, two writers
racing for one name see exactly one win (the other gets :class:`FileExistsError`), the name is
linked only once the file's bytes and every folder made for it are on disk (their syncs waited
for together: :mod:`translator.warehouse.syncs`), and when the call returns the name is on disk
too, or, inside a :func:`~translator.warehouse.syncs.deferring` block, its folder's sync is
pending and completes before this process makes any other change visible.

* :func:`publish_anonymous` (Linux): the file is made nameless in its folder (``O_TMPFILE``),
  written and fsynced, then given its name by ``linkat(2)`` through ``/proc/self/fd``, which
  fails with ``EEXIST`` if the name is taken. A new function's metadata is one file creation in
  the kernel's eyes: no second (temporary) name to add and remove in the folder, and a crash
  before the link leaves nothing at all behind (the kernel frees a nameless file when its last
  descriptor closes).
* :func:`publish_via_temp_name` (everywhere else): the bytes go to a hidden temporary file
  beside the target (128 random bits in its name), are fsynced, then hard-linked to the name
  (``link(2)`` fails if it exists) and the temporary name is removed. A crash before the unlink
  leaves a hidden ``.*.tmp`` file that no reader takes for metadata.

The first form is tried first; where the platform does not offer it (no ``O_TMPFILE``, a file
system that refuses it, ``/proc`` not mounted, links through ``/proc`` refused) it returns
False having published nothing, and the store switches to the second form for good.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from translator.direct_write import start_direct, write_direct
from translator.fileio import make_dirs as make_folders
from translator.fileio import write_all, write_pieces
from translator.warehouse.errors import UnsupportedStorageError
from translator.warehouse.syncs import (
    Sync,
    settle,
    sync_folder_later,
    sync_folders,
    sync_later,
    wait,
)

__all__ = [
    "ANONYMOUS_AVAILABLE",
    "BeforePublish",
    "link_temp",
    "publish_anonymous",
    "publish_via_temp_name",
]

#: Called with (the file's current path, its target) once its bytes are synced and before it
#: gets its name: tests kill the process there to show a crash publishes nothing.
BeforePublish = Callable[[Path, Path], None]

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: ``O_TMPFILE`` where the platform has it (Linux), else 0: the anonymous form is then never tried.
_TMPFILE = getattr(os, "O_TMPFILE", 0)
#: Where a descriptor of this process can be named: the link's source for a nameless file.
PROC_FD = "/proc/self/fd/"
ANONYMOUS_AVAILABLE = bool(_TMPFILE) and os.path.isdir(PROC_FD)

DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC
NAMELESS_FLAGS = _TMPFILE | os.O_WRONLY | _CLOEXEC
#: How the temporary file of the second form is created: new, exclusive, not inherited.
TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC

#: Errors of the ``O_TMPFILE`` open or the ``linkat`` that say the platform does not offer the
#: anonymous form here (an old kernel reads ``O_TMPFILE`` as a directory open: ``EISDIR``; a file
#: system without it: ``EOPNOTSUPP``; links refused: ``EPERM``, ``EXDEV``, ``EMLINK``). The
#: temporary-name form then runs instead, and reports hard links refused in its own words.
REFUSED = {
    errno.EISDIR,
    errno.EINVAL,
    errno.EOPNOTSUPP,
    errno.ENOTSUP,
    errno.EPERM,
    errno.EXDEV,
    errno.EMLINK,
}


def _open_folder(folder: str, make_dirs: bool) -> tuple[int, list[Sync]]:
    """A descriptor of ``folder``, and the syncs of the folders made for it (started, not
    waited for: the caller waits before it publishes a name there). ``FileNotFoundError`` when
    it is missing and not ``make_dirs``: the caller treats it as a conflict (the function was
    dropped)."""
    try:
        return os.open(folder, DIR_FLAGS), []
    except FileNotFoundError:
        if not make_dirs:
            raise
    syncing = sync_folders(make_folders(folder))
    try:
        return os.open(folder, DIR_FLAGS), syncing
    except BaseException:
        wait(syncing)
        raise


def write_data(fd: int, data: bytes | list[bytes]) -> None:
    """All of ``data`` on the descriptor (a file object would first ask for its size and
    terminal); a big file past the page cache (:mod:`translator.direct_write`)."""
    block = start_direct(fd, data)
    if block:
        write_direct(fd, data, block)
    elif isinstance(data, bytes):
        write_all(fd, data)
    else:
        write_pieces(fd, data)


def _write(fd: int, data: bytes | list[bytes]) -> None:
    """:func:`write_data`, then synced."""
    write_data(fd, data)
    os.fsync(fd)


def publish_anonymous(
    folder: str,
    name: str,
    data: bytes | list[bytes],
    *,
    make_dirs: bool,
    before_publish: BeforePublish | None = None,
) -> bool:
    """Create ``folder/name`` holding ``data`` through a nameless file (module doc): True when
    done, False when the platform refused the form before anything was published.

    The folder's descriptor serves the create, the link and the folder's sync, so the folder
    is looked up once. Raises ``FileExistsError`` (name taken; nothing is left behind) and
    ``FileNotFoundError`` (the folder is missing and not ``make_dirs``, or was removed meanwhile).
    """
    try:
        dir_fd, syncing = _open_folder(folder, make_dirs)
    except PermissionError:  # a folder we may write in but not read: a temporary name needs no
        return False  # descriptor of it (and its sync is best effort, as everywhere)
    try:
        try:
            fd = os.open(".", NAMELESS_FLAGS, 0o600, dir_fd=dir_fd)
        except OSError as e:
            if e.errno in REFUSED:
                return False
            raise  # ENOENT: the folder was removed meanwhile; EACCES, ENOSPC...: as the other form
        try:
            _write(fd, data)
            wait(syncing)  # the new folders' names, while the file was synced here
            settle()  # and every change this process made visible before
            handle = f"{PROC_FD}{fd}"
            if before_publish is not None:
                before_publish(Path(handle), Path(folder, name))
            try:
                # Given a folder descriptor, os.link calls linkat(2) with AT_SYMLINK_FOLLOW: the
                # magic link leads to the nameless file (plain link(2) would link the symlink).
                os.link(handle, name, dst_dir_fd=dir_fd)
            except FileExistsError:
                raise
            except FileNotFoundError:
                if os.path.lexists(handle):
                    raise  # the folder was removed after it was opened
                return False  # no /proc: the handle cannot be linked
            except OSError as e:
                if e.errno in REFUSED:
                    return False
                raise
        finally:
            os.close(fd)  # unlinked yet (a taken name, a refusal): the kernel frees it here
        sync_later(dir_fd)  # the new name's entry; it closes the descriptor
        dir_fd = -1
        return True
    finally:
        wait(syncing)
        if dir_fd >= 0:
            os.close(dir_fd)


def link_temp(tmp: str, target: str, folder: str) -> None:
    """Give the temporary file ``tmp`` its name ``target`` (``FileExistsError``: taken); a file
    system that refuses hard links is :class:`UnsupportedStorageError`, in words a user acts on."""
    try:
        os.link(tmp, target)
    except (FileExistsError, FileNotFoundError):
        raise
    except OSError as e:
        if e.errno in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise UnsupportedStorageError(
                f"{folder}: the file system refuses hard links ({e.strerror}), so "
                "metadata files cannot be created atomically-if-absent; use a local "
                "POSIX file system or a SQL catalog"
            ) from e
        raise


def publish_via_temp_name(
    folder: str,
    name: str,
    data: bytes | list[bytes],
    *,
    make_dirs: bool,
    before_publish: BeforePublish | None = None,
) -> None:
    """Create ``folder/name`` holding ``data`` through a hidden temporary file (module doc).
    Raises as :func:`publish_anonymous`, and :class:`UnsupportedStorageError` where the file
    system refuses hard links."""
    target = f"{folder}/{name}"
    # A hidden name no other writer can pick (128 random bits), created as mkstemp would
    # (O_EXCL, mode 0600) but without its name generator, which costs more than the write.
    tmp = f"{folder}/.{name}.{secrets.token_hex(16)}.tmp"
    syncing: list[Sync] = []
    try:
        try:
            fd = os.open(tmp, TEMP_FLAGS, 0o600)
        except FileNotFoundError:
            if not make_dirs:
                raise  # the folder is gone: the caller treats it as a conflict
            syncing = sync_folders(make_folders(folder))
            fd = os.open(tmp, TEMP_FLAGS, 0o600)
        try:
            _write(fd, data)
        finally:
            os.close(fd)
        wait(syncing)  # the new folders' names, while the file was synced here
        settle()  # and every change this process made visible before
        if before_publish is not None:
            before_publish(Path(tmp), Path(target))
        link_temp(tmp, target, folder)
    finally:
        wait(syncing)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    sync_folder_later(folder)
