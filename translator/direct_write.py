"""Writing a big file past the page cache (``O_DIRECT``), for the files a commit syncs at once.

A commit into a long history writes a file of 100 MB and more, and syncs it before it
publishes it, so every byte goes to the disk before the commit returns either way. Written
through the page cache, each byte is first copied into a page of its own, which the kernel
allocates, accounts and later writes back: on a virtual machine whose free memory the host
takes back, that copy costs ten times a plain memory copy (fresh pages fault in the host), and
it grows faster than the file (a 160 MB file cost 2 ms of CPU a MB, a 16 MB one 0.2-2 ms).
Written with ``O_DIRECT`` from one reused, aligned buffer, the disk reads the bytes from the
buffer itself: the CPU cost is the copy of the pieces into the buffer (0.2 ms a MB at any
size), and nothing of the file stays in memory for nobody (the process that commits keeps the
model, not the text).

``O_DIRECT`` asks for aligned buffers, offsets and lengths. The buffer is an anonymous map (page
aligned) of whole blocks, the file is written from offset 0 in whole buffers, and the last,
partial block goes through the page cache (``O_DIRECT`` is cleared for it). A file system that
refuses ``O_DIRECT`` (when it is set, or on a write: ``EINVAL``), or a short write, turns the
rest of the file into plain writes: the bytes are the same either way.

Only files of at least :data:`DIRECT_MIN` bytes are written so, where the system has
``O_DIRECT``; ``ICEBERG_UDF_DIRECT_WRITE=0`` (also ``off``, ``false``, ``no``) writes every file
through the page cache.
"""

from __future__ import annotations

import errno
import fcntl
import mmap
import os
import threading
from collections.abc import Sequence

from translator.fileio import write_all

__all__ = ["DIRECT_ENV", "DIRECT_MIN", "direct_enabled", "start_direct", "write_direct"]

DIRECT_ENV = "ICEBERG_UDF_DIRECT_WRITE"
_OFF = frozenset({"0", "off", "false", "no"})
#: Files this big or bigger are written past the page cache (smaller ones gain nothing that
#: pays for the buffer, and a migration writes thousands of them).
DIRECT_MIN = 1 << 20
#: The buffer: whole pages, and a multiple of every block size accepted below.
_BUFFER = 4 << 20
#: Pieces joined in one C call before they are copied into the buffer (their join stays in
#: the processor's cache), unless together they are longer than :data:`_JOIN_MAX`.
_GROUP = 1024
_JOIN_MAX = 1 << 20
_O_DIRECT: int = getattr(os, "O_DIRECT", 0)
#: One buffer kept for the next big write (4 MB for the process's life): a new map's pages
#: fault in one by one, which on a virtual machine cost as much as copying 4 MB more.
_SPARE: list[mmap.mmap] = []
_SPARE_LOCK = threading.Lock()


def direct_enabled() -> bool:
    """Whether big files are written past the page cache here (the system has ``O_DIRECT``
    and the environment does not turn it off)."""
    return bool(_O_DIRECT) and os.environ.get(DIRECT_ENV, "").strip().lower() not in _OFF


def start_direct(fd: int, data: bytes | Sequence[bytes]) -> int:
    """Set ``O_DIRECT`` on ``fd``, a new file about to receive ``data``, if it is big enough
    (:data:`DIRECT_MIN`) and the file system takes it; the block size its writes must be whole
    multiples of, or 0 (write it plainly)."""
    if not direct_enabled() or not _big(data):
        return 0
    try:
        block = os.fstatvfs(fd).f_bsize
        if block <= 0 or block & (block - 1) or _BUFFER % block:
            return 0
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | _O_DIRECT)
    except OSError:
        return 0
    return block


def _big(data: bytes | Sequence[bytes]) -> bool:
    """Whether ``data`` holds at least :data:`DIRECT_MIN` bytes: the pieces of a big file are
    counted only until there are enough (a pass over all of them would fetch each from memory
    once more, and they are scattered: at 100k definitions, 400,000 pieces)."""
    if isinstance(data, bytes):
        return len(data) >= DIRECT_MIN
    total = 0
    for i in range(0, len(data), _GROUP):
        total += sum(map(len, data[i : i + _GROUP]))
        if total >= DIRECT_MIN:
            return True
    return False


def write_direct(fd: int, data: bytes | Sequence[bytes], block: int) -> None:
    """Write ``data`` (its pieces one after the other) to ``fd`` (a new file, at offset 0, on which
    :func:`start_direct` set ``O_DIRECT`` and answered ``block``), whole blocks past the page
    cache and the rest plainly; ``O_DIRECT`` is cleared when it returns."""
    writer = _Writer(fd, block)
    pieces = [data] if isinstance(data, bytes) else data
    try:
        for i in range(0, len(pieces), _GROUP):
            group = pieces[i : i + _GROUP]
            if sum(map(len, group)) <= _JOIN_MAX:
                writer.put(b"".join(group))
            else:
                for piece in group:
                    writer.put(piece)
        writer.finish()
    finally:
        writer.close()


class _Writer:
    """The aligned buffer and how much of it is filled; plain writes once ``O_DIRECT`` is off."""

    def __init__(self, fd: int, block: int) -> None:
        self.fd = fd
        self.block = block
        self.direct = True
        with _SPARE_LOCK:
            self.map = _SPARE.pop() if _SPARE else mmap.mmap(-1, _BUFFER)
        self.view = memoryview(self.map)
        self.fill = 0

    def put(self, data: bytes | memoryview) -> None:
        if not self.direct:
            write_all(self.fd, data)
            return
        source = memoryview(data)
        at, size = 0, len(data)
        while at < size:
            n = min(_BUFFER - self.fill, size - at)
            self.view[self.fill : self.fill + n] = source[at : at + n]
            self.fill += n
            at += n
            if self.fill == _BUFFER:
                self._flush(_BUFFER)
                if not self.direct:  # the buffer went out plainly: so does the rest
                    write_all(self.fd, source[at:])
                    return

    def finish(self) -> None:
        """Write what the buffer holds: its whole blocks directly, the last part plainly."""
        if self.direct:
            whole = self.fill - self.fill % self.block
            if whole:
                self._flush(whole)
        self._plain()
        if self.fill:
            write_all(self.fd, self.view[: self.fill])
        self.fill = 0

    def _flush(self, n: int) -> None:
        """Write the buffer's first ``n`` bytes (whole blocks) directly; if the file system
        refuses, or writes less, the rest of them plainly, and every later piece."""
        done = 0
        try:
            done = os.write(self.fd, self.view[:n])
        except OSError as e:
            if e.errno != errno.EINVAL:
                raise
        if done < n:
            self._plain()
            write_all(self.fd, self.view[done:n])
        if n < self.fill:  # only when finishing: the partial block stays for the plain write
            self.view[: self.fill - n] = self.view[n : self.fill]
        self.fill -= n

    def _plain(self) -> None:
        """Clear ``O_DIRECT``: the writes from here on go through the page cache."""
        if self.direct:
            self.direct = False
            flags = fcntl.fcntl(self.fd, fcntl.F_GETFL)
            fcntl.fcntl(self.fd, fcntl.F_SETFL, flags & ~_O_DIRECT)

    def close(self) -> None:
        """Keep the buffer for the next write, unless one is kept already (threads)."""
        self.view.release()
        with _SPARE_LOCK:
            if not _SPARE:
                _SPARE.append(self.map)
                return
        self.map.close()
