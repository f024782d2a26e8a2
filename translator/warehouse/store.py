"""File storage for a warehouse: local folders, or an fsspec file system with atomic creates.

Commits rest on one primitive, :meth:`Store.create_exclusive`: put a whole file under a name only
if that name is still free, atomically. Two writers racing for the same name: exactly one wins,
the other gets :class:`FileExistsError`; a reader never sees a half-written file.

* Local folders: the bytes go to a file with no name yet (Linux's ``O_TMPFILE``; elsewhere a
  hidden temporary file beside the target), are fsynced, and the file is then hard-linked to the
  target name. The link fails if the name exists, and the file it publishes is already complete.
  A crash leaves nothing behind (or, in the temporary-name form, a hidden ``.*.tmp`` file that no
  reader takes for metadata): :mod:`translator.warehouse.publish`. Every change a local store
  makes visible (a link, a removal, a move) first waits for the syncs of the changes made before
  it (:mod:`translator.warehouse.syncs`).
* fsspec: only protocols whose ``pipe_file(..., mode="create")`` is an atomic
  create-if-absent are accepted (:data:`EXCLUSIVE_CREATE`); every other protocol is refused with
  an error naming it, instead of silently risking lost updates. An object store is also asked
  before its first commit whether it honours conditional writes: a probe object is created twice
  with ``If-None-Match: *``, and a store that lets the second create through is refused.

Local stores also offer advisory locks (:meth:`LocalStore.lock`, ``flock`` on
``WAREHOUSE/.locks/<name>.lock``; a commit takes its function's, see
:func:`translator.warehouse.warehouse.lock_name`). Correctness never depends on them: they only
make cooperating processes on one machine queue instead of racing, so a writer is not starved
by others winning the create-if-absent race again and again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from translator.fileio import fsync_folder, inside, make_dirs_durably
from translator.redact import mask_secrets, url_secrets
from translator.warehouse.errors import UnsupportedStorageError, WarehouseError
from translator.warehouse.publish import (
    ANONYMOUS_AVAILABLE,
    BeforePublish,
    publish_anonymous,
    publish_via_temp_name,
)
from translator.warehouse.staged import Staged, stage
from translator.warehouse.syncs import settle, sync_folder_later

__all__ = ["EXCLUSIVE_CREATE", "FileData", "FsspecStore", "LocalStore", "Store", "open_store"]

#: A file's bytes: one piece, or pieces written one after the other (a long metadata file is
#: written from its parts' texts: joined, its 100 MB would be copied once more for nothing).
FileData = bytes | list[bytes]

#: fsspec protocols with an atomic create-if-absent, and why we believe so.
EXCLUSIVE_CREATE: dict[str, str] = {
    "memory": "in-process dict; creates are serialised by a lock here (tested)",
    "s3": "s3fs sends PUT with If-None-Match: * for mode='create'; the store must honour "
    "conditional writes (AWS S3 does since 2024-08): probed before the first commit, tested "
    "against moto's S3 server",
    "s3a": "as s3",
}

#: A relative path that ``Path`` keeps as it is: parts separated by single slashes, none of
#: them empty, ``.`` or ``..``, no slash at either end.
_PLAIN = re.compile(r"(?!\.\.?(?:/|\Z))[^/]+(?:/(?!\.\.?(?:/|\Z))[^/]+)*\Z").match

#: The memory file system lives in one process; this lock makes its check-then-store atomic.
_MEMORY_LOCK = threading.Lock()
#: Object-store roots whose conditional writes were probed and found honoured (this process).
_CONDITIONAL_WRITES_OK: set[str] = set()


class Store(Protocol):
    """What the warehouse needs from storage. Paths are relative to the root, '/'-separated."""

    protocol: str

    def location(self, rel: str = "") -> str:
        """The absolute path or URL of ``rel``: what metadata ``location`` fields hold."""
        ...

    def list_names(self, rel: str) -> list[str]:
        """The file names in folder ``rel``; empty when the folder does not exist."""
        ...

    def list_dirs(self, rel: str) -> list[str]:
        """The sub-folder names of ``rel``; empty when it does not exist."""
        ...

    def read_bytes(self, rel: str) -> bytes: ...

    def stat_key(self, rel: str) -> tuple[object, ...]:
        """What identifies this file's content for the cache: (modification time, size)."""
        ...

    def create_exclusive(self, rel: str, data: FileData, *, make_dirs: bool) -> None:
        """Create ``rel`` holding ``data`` if the name is free, atomically and whole.

        Raises :class:`FileExistsError` if the name is taken, and :class:`FileNotFoundError`
        when its folder is missing and ``make_dirs`` is false (the function was dropped).
        """
        ...

    def remove(self, rel: str) -> None: ...

    def move_dir(self, src: str, dst: str) -> None:
        """Move folder ``src`` to ``dst`` (atomically on local disks)."""
        ...

    def lock(self, name: str, timeout_s: float) -> contextlib.AbstractContextManager[bool]:
        """An advisory lock named ``name`` (True if held); never needed for correctness."""
        ...


class LocalStore:
    """A warehouse in a local folder (or any POSIX file system with hard links)."""

    protocol = "file"

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).expanduser().absolute()
        #: The root as text ending in ``/``: paths are joined as text (a ``Path`` a call cost
        #: more than most of the calls; a migration makes ~8,000).
        self._head = str(self.root).rstrip("/") + "/"
        #: Test hook: called between writing the file and publishing it under its name.
        self.before_publish: BeforePublish | None = None
        #: Whether creates go through a nameless file (:mod:`translator.warehouse.publish`):
        #: where the platform offers it, until a create finds it refused; tests turn it off to
        #: run the temporary-name form.
        self.anonymous_creates = ANONYMOUS_AVAILABLE

    def _path(self, rel: str) -> str:
        """``str(root / rel)``: joined as text where ``rel`` is plainly spelled (the warehouse's
        own names are), through ``Path`` otherwise (``//``, a ``.`` part, an absolute ``rel``),
        so that every spelling means what it did."""
        if not rel:
            return str(self.root)
        if _PLAIN(rel) is not None:
            return self._head + rel
        return str(self.root / rel)

    def _write_path(self, rel: str) -> str:
        """``_path(rel)`` for a write, refused where a symbolic link (a namespace folder linked
        elsewhere) or a ``..`` would lead it out of the warehouse."""
        path = self._path(rel)
        if ".." in rel.split("/") or rel.startswith("/") or not inside(self.root, path):
            raise WarehouseError(
                f"{path}: refused: it leads out of the warehouse {self.root} "
                "(a symbolic link or '..' in the way)"
            )
        return path

    def location(self, rel: str = "") -> str:
        return self._path(rel)

    def list_names(self, rel: str) -> list[str]:
        try:
            return [e.name for e in os.scandir(self._path(rel)) if not e.is_dir()]
        except (FileNotFoundError, NotADirectoryError):
            return []

    def list_dirs(self, rel: str) -> list[str]:
        try:
            return [e.name for e in os.scandir(self._path(rel)) if e.is_dir()]
        except (FileNotFoundError, NotADirectoryError):
            return []

    def read_bytes(self, rel: str) -> bytes:
        with open(self._path(rel), "rb") as f:
            return f.read()

    def stat_key(self, rel: str) -> tuple[object, ...]:
        st = os.stat(self._path(rel))
        return (st.st_mtime_ns, st.st_size)

    def create_exclusive(self, rel: str, data: FileData, *, make_dirs: bool) -> None:
        target = self._write_path(rel)
        with _refusals(target):
            self._create_exclusive(target, data, make_dirs=make_dirs)

    def _create_exclusive(self, target: str, data: FileData, *, make_dirs: bool) -> None:
        folder, name = os.path.split(target)
        if self.anonymous_creates:
            if publish_anonymous(
                folder, name, data, make_dirs=make_dirs, before_publish=self.before_publish
            ):
                return
            self.anonymous_creates = False  # refused here: nothing was published, so retry
        publish_via_temp_name(
            folder, name, data, make_dirs=make_dirs, before_publish=self.before_publish
        )

    def stage(self, rel: str, data: FileData, *, make_dirs: bool) -> Staged:
        """What :meth:`create_exclusive` does before its sync: ``rel``'s file written without a
        name (:mod:`translator.warehouse.staged`); :meth:`publish_staged` names it."""
        target = self._write_path(rel)
        folder, name = os.path.split(target)
        with _refusals(target):
            return stage(folder, name, data, make_dirs=make_dirs, anonymous=self.anonymous_creates)

    def publish_staged(self, staged: Staged) -> None:
        """Name a file :meth:`stage` wrote, with :meth:`create_exclusive`'s guarantees and
        errors; the syncs of a batch start with :func:`~translator.warehouse.staged.start_syncs`."""
        try:
            with _refusals(f"{staged.folder}/{staged.name}"):
                staged.publish(self.before_publish)
        finally:
            if staged.refused:
                self.anonymous_creates = False

    def link_exclusive(self, src: str, dst: str) -> None:
        """Give the durable file ``src`` a second name ``dst``, created if absent (as
        :meth:`create_exclusive`, ``FileExistsError`` if taken; folders made as needed) and made
        durable, without writing or syncing its bytes again: one synced file fewer than a copy."""
        source, target = self._write_path(src), self._write_path(dst)
        settle()  # every change made visible before is durable before this one
        with _refusals(target):
            try:
                os.link(source, target)
            except FileNotFoundError:
                if not os.path.exists(source):
                    raise
                make_dirs_durably(os.path.dirname(target))
                os.link(source, target)
        sync_folder_later(os.path.dirname(target))

    def remove(self, rel: str) -> None:
        path = self._write_path(rel)
        settle()  # a removal is a visible change too: what came before is durable first
        with _refusals(path), contextlib.suppress(FileNotFoundError):
            os.unlink(path)

    def move_dir(self, src: str, dst: str) -> None:
        source, target = self._write_path(src), self._write_path(dst)
        settle()
        with _refusals(target):
            make_dirs_durably(os.path.dirname(target))
            os.rename(source, target)
        fsync_folder(os.path.dirname(target))
        fsync_folder(os.path.dirname(source))

    @contextlib.contextmanager
    def lock(self, name: str, timeout_s: float) -> Iterator[bool]:
        """``flock`` on ``.locks/<name>.lock``, waiting at most ``timeout_s``; yields whether it
        is held. Where locking is unavailable (no fcntl, a file system without locks) or the
        wait times out, the commit goes on without it: the create-if-absent still decides."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            yield False
            return
        try:
            path = self._write_path(f".locks/{name}.lock")
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
            except FileNotFoundError:  # the first lock of this namespace (or warehouse: its
                # root is made here, and must outlive a power cut as what is committed in it)
                make_dirs_durably(os.path.dirname(path))
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError:
            yield False
            return
        held = False
        try:
            deadline = time.monotonic() + timeout_s
            delay = 0.001
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    held = True
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        break
                    time.sleep(delay)
                    delay = min(delay * 2, 0.002)
                except OSError:  # ENOLCK and friends: no locking here
                    break
            yield held
        finally:
            os.close(fd)  # closing releases the lock


@contextlib.contextmanager
def _refusals(path: str) -> Iterator[None]:
    """The file system's refusals (read-only, full disk, a file where a folder should be, no
    permission) as :class:`WarehouseError` naming the path. A missing folder and a taken name
    pass through: they are how a commit learns that it lost a race."""
    try:
        yield
    except (FileExistsError, FileNotFoundError, UnsupportedStorageError):
        raise
    except OSError as e:
        raise WarehouseError(f"cannot write {path}: {e.strerror or e}") from None


class FsspecStore:
    """A warehouse at an fsspec URL whose file system has an atomic create-if-absent."""

    def __init__(self, url: str, **storage_options: Any) -> None:
        try:
            import fsspec  # type: ignore[import-untyped]
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise UnsupportedStorageError(
                f"{url}: warehouse URLs need fsspec: pip install 'iceberg-udf[fsspec]'"
            ) from e
        shown = mask_secrets(url, url_secrets(url))
        # Refused by name first: an unsupported protocol's back end is never even loaded.
        head = url.split("::")[0]
        protocol = head.split("://")[0] if "://" in head else head
        if protocol not in EXCLUSIVE_CREATE:
            raise _unsupported(shown, protocol)
        try:
            fs, path = fsspec.core.url_to_fs(url, **storage_options)
        except ImportError as e:  # the protocol's package (s3fs) is not installed
            raise UnsupportedStorageError(
                f"{shown}: {mask_secrets(str(e), url_secrets(url))} (pip install it alongside "
                "'iceberg-udf[fsspec]')"
            ) from None
        except (ValueError, TypeError, OSError) as e:
            detail = mask_secrets(str(e) or type(e).__name__, url_secrets(url))
            raise UnsupportedStorageError(f"{shown}: cannot open: {detail}") from None
        protocols = (fs.protocol,) if isinstance(fs.protocol, str) else tuple(fs.protocol)
        self.protocol = protocols[0]
        if not set(protocols) & set(EXCLUSIVE_CREATE):
            raise _unsupported(shown, self.protocol)
        self.fs: Any = fs
        self.root = str(path).rstrip("/")
        self._shown, self._secrets = shown, url_secrets(url)
        #: Whether commits rest on this store's create-if-absent (off under a SQL catalog, whose
        #: compare-and-swap decides commits, files then getting random names).
        self.needs_conditional_writes = True

    def _path(self, rel: str) -> str:
        return f"{self.root}/{rel}" if rel else self.root

    def location(self, rel: str = "") -> str:
        return str(self.fs.unstrip_protocol(self._path(rel)))

    @contextlib.contextmanager
    def _remote(self, doing: str) -> Iterator[None]:
        """The back end's own failures (a bad bucket name, refused credentials, a network
        error) as one :class:`WarehouseError` line, secrets masked; a missing or taken name
        passes through: that is how reads and commits learn what they need."""
        try:
            yield
        except (FileNotFoundError, FileExistsError, NotADirectoryError, WarehouseError):
            raise
        except Exception as e:
            lines = [line.strip() for line in str(e).splitlines() if line.strip()]
            detail = f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__
            raise WarehouseError(
                mask_secrets(f"{self._shown}: cannot {doing}: {detail}", self._secrets)
            ) from None

    def _ls(self, rel: str) -> list[dict[str, Any]]:
        # s3fs caches listings: another writer's new file must be seen, or commits would retry
        # on a stale "newest" forever.
        try:
            with self._remote("list"):
                self.fs.invalidate_cache(self._path(rel))
                entries: list[dict[str, Any]] = self.fs.ls(self._path(rel), detail=True)
        except (FileNotFoundError, NotADirectoryError):
            return []
        return entries

    def list_names(self, rel: str) -> list[str]:
        return [_basename(e["name"]) for e in self._ls(rel) if e.get("type") != "directory"]

    def list_dirs(self, rel: str) -> list[str]:
        return [_basename(e["name"]) for e in self._ls(rel) if e.get("type") == "directory"]

    def read_bytes(self, rel: str) -> bytes:
        with self._remote("read"):
            return bytes(self.fs.cat_file(self._path(rel)))

    def stat_key(self, rel: str) -> tuple[object, ...]:
        with self._remote("read"):
            info = self.fs.info(self._path(rel))
        stamp = info.get("mtime") or info.get("LastModified") or info.get("created")
        if isinstance(stamp, datetime):
            stamp = stamp.isoformat()
        return (stamp, info.get("ETag") or info.get("etag"), info.get("size"))

    def create_exclusive(self, rel: str, data: FileData, *, make_dirs: bool) -> None:
        if not isinstance(data, bytes):
            data = b"".join(data)
        path = self._path(rel)
        parent = path.rpartition("/")[0]
        if self.protocol == "memory":
            with _MEMORY_LOCK:
                if not make_dirs and not self.fs.isdir(parent):
                    raise FileNotFoundError(parent)
                self.fs.pipe_file(path, data, mode="create")
            return
        # Object stores have no folders: a missing "folder" cannot be told from a dropped one.
        with self._remote("write"):
            self._require_conditional_writes()
            try:
                self.fs.pipe_file(path, data, mode="create")
            except OSError as e:
                if e.errno == errno.EBUSY:  # S3's 409 ConditionalRequestConflict: a racing create
                    raise FileExistsError(path) from e
                raise

    def _require_conditional_writes(self) -> None:
        """Refuse a store that lets a second ``If-None-Match: *`` create of one key through."""
        root = self.location()
        if not self.needs_conditional_writes or root in _CONDITIONAL_WRITES_OK:
            return
        probe = self._path(f".iceberg-udf-probe/{uuid.uuid4().hex}")
        self.fs.pipe_file(probe, b"1", mode="create")
        try:
            try:
                self.fs.pipe_file(probe, b"2", mode="create")
            except FileExistsError:
                _CONDITIONAL_WRITES_OK.add(root)
                return
            raise UnsupportedStorageError(
                f"{root}: this store does not honour conditional writes (a second create of one "
                "object with If-None-Match: * succeeded), so concurrent commits could overwrite "
                "each other; nothing was written. Use a store that honours them (AWS S3 does), or "
                "a SQL catalog"
            )
        finally:
            with contextlib.suppress(OSError):
                self.fs.rm_file(probe)

    def remove(self, rel: str) -> None:
        with contextlib.suppress(FileNotFoundError), self._remote("remove"):
            self.fs.rm_file(self._path(rel))

    def lock(self, name: str, timeout_s: float) -> contextlib.AbstractContextManager[bool]:
        """No cross-process lock on fsspec stores: commits rely on create-if-absent alone."""
        return contextlib.nullcontext(False)

    def move_dir(self, src: str, dst: str) -> None:
        """Not atomic on object stores (a copy of every file, then deletes): see the README."""
        with self._remote("move"):
            if not self.fs.exists(self._path(src)):
                raise FileNotFoundError(self._path(src))
            self.fs.mv(self._path(src), self._path(dst), recursive=True)


def _unsupported(url: str, protocol: str) -> UnsupportedStorageError:
    return UnsupportedStorageError(
        f"{url}: the {protocol!r} file system offers no atomic create-if-absent that "
        "this tool trusts, so concurrent commits could lose updates; supported: "
        f"local folders and {', '.join(sorted(EXCLUSIVE_CREATE))} (or use a SQL catalog)"
    )


def _basename(name: str) -> str:
    return name.rstrip("/").rpartition("/")[2]


def open_store(where: str | os.PathLike[str], **storage_options: Any) -> Store:
    """A local folder (a path or ``file://`` URL) or an fsspec URL (``memory://``, ``s3://``)."""
    text = os.fspath(where)
    if text.startswith("file://"):
        return LocalStore(text[len("file://") :])
    if "://" in text:
        return FsspecStore(text, **storage_options)
    return LocalStore(text)
