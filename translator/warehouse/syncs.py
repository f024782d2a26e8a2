"""Waiting for independent fsyncs together, and for a folder's fsync only when the order needs it.

Every sync a local store makes is still made (:mod:`translator.warehouse.publish`); what changes is
how many of them a writer waits for one after the other. On a virtual disk each wait costs a
round trip to the host (1-3 ms here), and the kernel merges the flushes of fsyncs that are in
flight together, so N syncs waited for together cost about one wait. ``os.fsync`` releases the
GIL: the folders' syncs run in worker threads while the writer's own thread syncs the file.

Two rules keep the guarantees of a sync made in line:

* A create waits for the syncs of the folders it made and for its file's own sync before it
  publishes the name (as before: a published name never sits in a folder whose own name a power
  cut can lose, and it never names a file whose bytes are not on disk).
* Inside :func:`deferring` (a warehouse apply), the sync of a folder after a new name was linked
  into it is started and not waited for at once: it is *pending*. Every pending sync is waited
  for before this process makes its next change visible (a link, a removal, a move:
  :func:`settle`), and when the deferring block ends, before the caller hears that its commits
  are done. So each visible change is durable before the next one is made, in the order they
  were made, exactly as when each sync was waited for in line; only the waits are fewer.

Pending syncs are kept for the whole process (not per store): two stores over one folder share
them, and a thread that publishes waits for every sync another thread left pending (never less
than it needs, at worst a little more).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from translator.fileio import fsync_folder

if TYPE_CHECKING:  # imported when the first sync starts: a command that writes nothing never does
    from concurrent.futures import Future, ThreadPoolExecutor

__all__ = [
    "deferring",
    "is_deferring",
    "settle",
    "sync_files",
    "sync_folder_later",
    "sync_folders",
    "sync_later",
    "wait",
]

#: Worker threads for folder syncs: a new function makes two folders and links one file, so a
#: create has at most three folder syncs in flight beside its file's.
_WORKERS = 4

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pending: list[Future[None]] = []
_local = threading.local()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            from concurrent.futures import ThreadPoolExecutor

            _pool = ThreadPoolExecutor(_WORKERS, thread_name_prefix="iceberg-udf-fsync")
        return _pool


def _after_fork() -> None:
    """A forked child has none of its parent's threads: it starts a pool of its own, and the
    parent's pending syncs are the parent's to wait for."""
    global _pool, _lock
    _pool, _lock = None, threading.Lock()
    _pending.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _done() -> Future[None]:
    from concurrent.futures import Future

    f: Future[None] = Future()
    f.set_result(None)
    return f


def sync_folders(folders: Iterable[str]) -> list[Future[None]]:
    """Start the (best effort) sync of each folder in a worker thread. Where no thread can be
    started (the interpreter is shutting down), each is synced here and now."""
    out: list[Future[None]] = []
    for folder in folders:
        try:
            out.append(_executor().submit(fsync_folder, folder))
        except RuntimeError:  # "cannot schedule new futures after interpreter shutdown"
            fsync_folder(folder)
            out.append(_done())
    return out


def sync_files(fds: Iterable[int]) -> list[Future[None]]:
    """Start the sync of each open file in a worker thread; its future raises what the sync
    raised. Where no thread can be started, each is synced here and now."""
    out: list[Future[None]] = []
    for fd in fds:
        try:
            out.append(_executor().submit(os.fsync, fd))
        except RuntimeError:
            out.append(_done())
            try:
                os.fsync(fd)
            except OSError as e:
                out[-1] = _failed(e)
    return out


def _failed(e: BaseException) -> Future[None]:
    from concurrent.futures import Future

    f: Future[None] = Future()
    f.set_exception(e)
    return f


def _fsync_and_close(fd: int) -> None:
    try:
        with contextlib.suppress(OSError):  # best effort, as fsync_folder's
            os.fsync(fd)
    finally:
        os.close(fd)


def sync_later(dir_fd: int) -> None:
    """Sync the folder open as ``dir_fd`` (the descriptor is closed once it is synced): in a
    worker thread, pending until :func:`settle`, inside :func:`deferring`; here and now outside
    it."""
    if is_deferring():
        try:
            future = _executor().submit(_fsync_and_close, dir_fd)
        except RuntimeError:
            _fsync_and_close(dir_fd)
            return
        with _lock:
            _pending.append(future)
        return
    _fsync_and_close(dir_fd)


def sync_folder_later(folder: str) -> None:
    """:func:`sync_later` for a folder named by its path."""
    if is_deferring():
        futures = sync_folders([folder])
        with _lock:
            _pending.extend(futures)
        return
    fsync_folder(folder)


def wait(futures: Iterable[Future[None]]) -> None:
    for f in futures:
        f.result()


def settle() -> None:
    """Wait for every pending folder sync of this process: called before a change is made
    visible, and where a deferring block ends."""
    if not _pending:
        return
    with _lock:
        pending = list(_pending)
        _pending.clear()
    wait(pending)


def is_deferring() -> bool:
    return getattr(_local, "depth", 0) > 0


@contextlib.contextmanager
def deferring() -> Iterator[None]:
    """Within the block, this thread's folder syncs after a link wait until the next change is
    made visible (module doc); when the block ends, every pending sync has completed."""
    _local.depth = getattr(_local, "depth", 0) + 1
    try:
        yield
    finally:
        _local.depth -= 1
        settle()
