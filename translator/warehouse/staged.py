"""The new files of one apply's commits written and synced together, then each named in turn.

:func:`stage` does what a create does up to its sync (:mod:`.publish`): the folders made, the
bytes written to a nameless file (or a hidden temporary one). :func:`start_syncs` then starts the
syncs of every staged file and of every folder whose entries changed, each folder once (a
namespace that gets k new functions is synced once, not k times), in worker threads
(:mod:`.syncs`). :meth:`Staged.publish` gives one file its name as a create would: once its own
bytes, the folders made for it and every change this process made visible before are on disk.
An apply that commits k functions so waits once where k creates in a row waited k times, and
its journal's sync overlaps them all.

Nothing is visible before it is published, so a crash or an error between stage and publish
leaves what a crash inside a create leaves: nothing under a name (the kernel frees a nameless
file; the other form leaves a hidden ``.*.tmp`` file no reader takes for metadata) and at most
empty new folders, which no reader takes for a function (:meth:`Staged.discard` cleans up what
a process that lives on would leave).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from translator.fileio import make_dirs as make_folders
from translator.warehouse import publish
from translator.warehouse.publish import BeforePublish, publish_via_temp_name, write_data
from translator.warehouse.syncs import (
    Sync,
    settle,
    sync_files,
    sync_folder_later,
    sync_folders,
    sync_later,
    wait,
)

__all__ = ["Staged", "stage", "start_syncs"]


@dataclass(eq=False, slots=True)
class Staged:
    """One file written and not yet named (module doc)."""

    folder: str
    name: str
    #: The bytes, kept until published: where the platform refuses the nameless file's link
    #: (found only then), the file is written again in the other form.
    data: bytes | list[bytes]
    #: The written file, open until it is synced and named.
    fd: int = -1
    #: The folder (nameless form): the file is linked into it and it is synced through it.
    dir_fd: int = -1
    #: The hidden temporary name (the other form).
    tmp: str = ""
    #: Folders whose entries changed for this file (each new folder's parent).
    parents: list[str] = field(default_factory=list)
    #: Its folder was missing and not to be made (the function was dropped): publishing is a
    #: conflict, as a create's ``FileNotFoundError``.
    gone: bool = False
    #: Whether the nameless form was refused here (the store keeps to the other form).
    refused: bool = False
    synced: Sync | None = None
    folders_synced: list[Sync] = field(default_factory=list)

    def publish(self, before_publish: BeforePublish | None = None) -> None:
        """Give the file its name (``FileExistsError``: taken; ``FileNotFoundError``: its
        folder is gone), once its bytes, its new folders and every earlier visible change of
        this process are durable; its folder's sync follows as a create's does."""
        try:
            if self.gone:
                raise FileNotFoundError(self.folder)
            wait(self.folders_synced)
            if self.synced is not None:
                self.synced.result()  # the file's own sync: its error is this file's
            else:
                os.fsync(self.fd)
            settle()
            if self.dir_fd >= 0:
                if self._link_nameless(before_publish):
                    return
                self.refused = True  # found only at the link: written again in the other form
                data, self.data = self.data, b""
                self.discard()
                publish_via_temp_name(
                    self.folder, self.name, data, make_dirs=False, before_publish=before_publish
                )
                return
            self._link_temp(before_publish)
        finally:
            self.discard()

    def _link_nameless(self, before_publish: BeforePublish | None) -> bool:
        handle = f"{publish.PROC_FD}{self.fd}"
        if before_publish is not None:
            before_publish(Path(handle), Path(self.folder, self.name))
        try:
            os.link(handle, self.name, dst_dir_fd=self.dir_fd)
        except FileExistsError:
            raise
        except FileNotFoundError:
            if os.path.lexists(handle):
                raise  # the folder was removed after it was opened
            return False
        except OSError as e:
            if e.errno in publish.REFUSED:
                return False
            raise
        sync_later(self.dir_fd)  # closes it
        self.dir_fd = -1
        return True

    def _link_temp(self, before_publish: BeforePublish | None) -> None:
        os.close(self.fd)
        self.fd = -1
        target = f"{self.folder}/{self.name}"
        if before_publish is not None:
            before_publish(Path(self.tmp), Path(target))
        publish.link_temp(self.tmp, target, self.folder)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.tmp)
        self.tmp = ""
        sync_folder_later(self.folder)

    def discard(self) -> None:
        """Let go of what is not published (idempotent): descriptors closed, a temporary name
        removed."""
        for fd in (self.fd, self.dir_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.fd = self.dir_fd = -1
        if self.tmp:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.tmp)
            self.tmp = ""
        self.data = b""


def stage(
    folder: str, name: str, data: bytes | list[bytes], *, make_dirs: bool, anonymous: bool
) -> Staged:
    """Write ``data`` for ``folder/name`` without a name and without syncing it (module doc);
    the folder is made when missing and ``make_dirs``, else the result is ``gone``."""
    st = Staged(folder, name, data)
    try:
        if anonymous:
            _open_nameless(st, make_dirs)
            if st.gone:
                return st
        if st.fd < 0:
            _open_temp(st, make_dirs)
            if st.gone:
                return st
        write_data(st.fd, data)
    except BaseException:
        st.discard()
        raise
    return st


def _open_nameless(st: Staged, make_dirs: bool) -> None:
    try:
        st.dir_fd = os.open(st.folder, publish.DIR_FLAGS)
    except FileNotFoundError:
        if not make_dirs:
            st.gone = True
            return
        st.parents = make_folders(st.folder)
        st.dir_fd = os.open(st.folder, publish.DIR_FLAGS)
    except PermissionError:  # a folder we may write in but not read: the other form
        st.refused = True
        return
    try:
        st.fd = os.open(".", publish.NAMELESS_FLAGS, 0o600, dir_fd=st.dir_fd)
    except OSError as e:
        if e.errno not in publish.REFUSED:
            raise
        os.close(st.dir_fd)
        st.dir_fd, st.refused = -1, True


def _open_temp(st: Staged, make_dirs: bool) -> None:
    tmp = f"{st.folder}/.{st.name}.{secrets.token_hex(16)}.tmp"
    try:
        st.fd = os.open(tmp, publish.TEMP_FLAGS, 0o600)
    except FileNotFoundError:
        if not make_dirs:
            st.gone = True
            return
        st.parents = make_folders(st.folder)
        st.fd = os.open(tmp, publish.TEMP_FLAGS, 0o600)
    st.tmp = tmp


def start_syncs(batch: list[Staged]) -> None:
    """Start the sync of every staged file and of every folder whose entries changed for them,
    each folder once, all at the same time."""
    files = [st for st in batch if st.fd >= 0]
    for st, future in zip(files, sync_files([st.fd for st in files]), strict=True):
        st.synced = future
    folders = list(dict.fromkeys(p for st in batch for p in st.parents))
    started = dict(zip(folders, sync_folders(folders), strict=True))
    for st in batch:
        st.folders_synced = [started[p] for p in st.parents]
