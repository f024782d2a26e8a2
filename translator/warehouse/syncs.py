"""Waiting for independent fsyncs together, and for a folder's sync only when the order needs it.

Every sync a local store makes is still made (:mod:`translator.warehouse.publish`); what changes is
how many of them a writer waits for one after the other. On a virtual disk each wait costs a
round trip to the host (1-3 ms here), and the kernel merges the flushes of fsyncs that are in
flight together, so N syncs waited for together cost about one wait. ``os.fsync`` releases the
GIL: the syncs run in worker threads while the writer's thread goes on.

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

The workers are a few daemon threads fed by one C-level queue, and a sync's completion is one
lock released: a migration starts ~2,000 syncs, and ``concurrent.futures``' conditions cost
about three times the wake-ups. A sync nobody waits for (a discarded staged file's) may be cut
short by the interpreter's exit, which is what the file was going to get anyway.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator

from translator.fileio import fsync_folder

__all__ = [
    "Sync",
    "deferring",
    "is_deferring",
    "settle",
    "sync_files",
    "sync_folder_later",
    "sync_folders",
    "sync_later",
    "wait",
]

#: Worker threads: a create of a new function has its file's sync and up to three folders' in
#: flight; an apply's staged files add one each.
_WORKERS = 4


class Sync:
    """One sync started in a worker thread: :meth:`result` waits for it and raises what it
    raised."""

    __slots__ = ("_action", "_arg", "_done", "_error")

    def __init__(self, action: Callable[[int], None] | Callable[[str], None], arg: int | str):
        self._action, self._arg = action, arg
        self._error: BaseException | None = None
        self._done = _thread.allocate_lock()
        self._done.acquire()

    def run(self) -> None:
        try:
            self._action(self._arg)  # type: ignore[arg-type]
        except BaseException as e:
            self._error = e
        finally:
            self._done.release()

    def done(self) -> bool:
        return not self._done.locked()

    def result(self) -> None:
        with self._done:  # held until the worker releases it
            pass
        if self._error is not None:
            raise self._error


_lock = threading.Lock()
_jobs: queue.SimpleQueue[Sync] = queue.SimpleQueue()
_started = False
_pending: list[Sync] = []
_local = threading.local()


def _work() -> None:
    while True:
        _jobs.get().run()


def _start(job: Sync) -> Sync:
    """Hand ``job`` to a worker (the workers start on first use); where no thread can be
    started, it runs here and now."""
    global _started
    if not _started:
        with _lock:
            started = 0
            while not _started and started < _WORKERS:
                worker = threading.Thread(target=_work, name="iceberg-udf-fsync")
                worker.daemon = True
                try:
                    worker.start()
                except RuntimeError:  # "can't start new thread" (or the interpreter is exiting)
                    break
                started += 1
            _started = _started or started > 0
        if not _started:
            job.run()
            return job
    _jobs.put(job)
    return job


def _after_fork() -> None:
    """A forked child has none of its parent's threads: it starts workers of its own, and the
    parent's pending syncs are the parent's to wait for."""
    global _started, _lock, _jobs
    _started, _lock, _jobs = False, threading.Lock(), queue.SimpleQueue()
    _pending.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def sync_folders(folders: Iterable[str]) -> list[Sync]:
    """Start the (best effort) sync of each folder."""
    return [_start(Sync(fsync_folder, folder)) for folder in folders]


def sync_files(fds: Iterable[int]) -> list[Sync]:
    """Start the sync of each open file; its :meth:`Sync.result` raises what the sync raised."""
    return [_start(Sync(os.fsync, fd)) for fd in fds]


def _fsync_and_close(fd: int) -> None:
    try:
        with contextlib.suppress(OSError):  # best effort, as fsync_folder's
            os.fsync(fd)
    finally:
        os.close(fd)


def sync_later(dir_fd: int) -> None:
    """Sync the folder open as ``dir_fd`` (the descriptor is closed once it is synced): pending
    until :func:`settle` inside :func:`deferring`; here and now outside it."""
    if is_deferring():
        _pending.append(_start(Sync(_fsync_and_close, dir_fd)))
    else:
        _fsync_and_close(dir_fd)


def sync_folder_later(folder: str) -> None:
    """:func:`sync_later` for a folder named by its path."""
    if is_deferring():
        _pending.append(_start(Sync(fsync_folder, folder)))
    else:
        fsync_folder(folder)


def wait(syncs: Iterable[Sync]) -> None:
    for s in syncs:
        s.result()


def settle() -> None:
    """Wait for every pending folder sync of this process: called before a change is made
    visible, and where a deferring block ends."""
    if not _pending:
        return
    snapshot = list(_pending)  # left in the list while waited for: another thread's settle
    wait(snapshot)  # waits for them too
    with _lock:
        waited = set(map(id, snapshot))
        _pending[:] = [s for s in _pending if id(s) not in waited]


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
