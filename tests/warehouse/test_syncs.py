"""The order of a local warehouse's syncs (translator.warehouse.syncs, publish, store): fsyncs are
waited for together and a folder's sync after a link may wait until the next visible change, yet
every name a writer makes visible finds every name made before it durable, every published
file's bytes are synced before its name exists, and everything is durable when an apply or a
migrated file is done. Checked on real creates, links and syncs, recorded as they happen
(worker threads included), against a model of what a power cut keeps."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from translator.warehouse import Warehouse, publish, syncs
from translator.warehouse.store import LocalStore

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd"), reason="names descriptors by /proc"
)

FORMS = [
    pytest.param(
        True,
        marks=pytest.mark.skipif(not publish.ANONYMOUS_AVAILABLE, reason="no O_TMPFILE here"),
        id="nameless",
    ),
    pytest.param(False, id="temporary-name"),
]


@dataclass
class Recorder:
    """Every entry change (mkdir, link, rename, unlink), every fsync's start and end (an end
    names its start's index), in the order they happened, from any thread. A change in folder
    D is durable once an fsync of D that *started after it* has ended."""

    events: list[tuple[str, str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Folder syncs are slow (10-100 ms), as on a slow disk.
    slow_folders: bool = True

    def add(self, kind: str, where: str, what: str = "") -> None:
        with self.lock:
            self.events.append((kind, where, what))

    def synced_between(self, folder: str, after: int, before: int) -> bool:
        """Whether a sync of ``folder`` started after event ``after`` and ended before
        ``before``."""
        started = {
            i
            for i, (k, w, _) in enumerate(self.events[:before])
            if k == "sync-start" and w == folder and i > after
        }
        ends = [
            i
            for i, (k, w, what) in enumerate(self.events[:before])
            if k == "sync-end" and w == folder and int(what) in started
        ]
        return bool(ends)

    def check(self, root: Path) -> list[str]:
        """What a power cut could break: a name linked or removed (but a create's own temporary
        name) while an earlier name of a file was not durable yet, or while a new folder it
        sits in was not; a file named before its bytes were synced; a new name (a folder or a
        file, outside the lock files) still not durable at the end."""
        problems: list[str] = []
        named: list[tuple[int, str, str]] = []  # (index, folder, name) of each new file name
        folders: list[tuple[int, str, str]] = []  # the same for each new folder
        for i, (kind, where, what) in enumerate(self.events):
            if kind not in ("mkdir", "link", "rename", "unlink"):
                continue
            name = what.split("|")[0]
            hidden = name.startswith(".") and name.endswith(".tmp")  # no reader's
            if kind != "mkdir" and not hidden:
                here = f"{where}/{name}"
                needed = named + [f for f in folders if here.startswith(f"{f[1]}/{f[2]}/")]
                for j, folder, earlier in needed:
                    if not self.synced_between(folder, j, i):
                        problems.append(f"{kind} {here} before {folder}/{earlier} was durable")
            if kind == "link" and "|" in what:
                source = what.split("|")[1]
                if not any(k == "sync-end" and w == source for k, w, _ in self.events[:i]):
                    problems.append(f"{where}/{name} linked before its bytes were synced")
            if ".locks" in where:
                continue
            if kind == "mkdir":
                folders.append((i, where, name))
            elif kind in ("link", "rename"):
                named.append((i, where, name))
        end = len(self.events)
        for j, folder, name in named + folders:
            if not self.synced_between(folder, j, end):
                problems.append(f"{folder}/{name} is not durable at the end")
        return problems

    def syncs(self) -> int:
        return sum(1 for k, _, _ in self.events if k == "sync-end")


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    rec = Recorder()
    real_fsync, real_link, real_mkdir = os.fsync, os.link, os.mkdir
    real_rename, real_unlink = os.rename, os.unlink

    def name_of(fd: int) -> str:
        return os.readlink(f"/proc/self/fd/{fd}")

    def fsync(fd: int) -> None:
        what = name_of(fd)
        with rec.lock:
            n = len(rec.events)
            rec.events.append(("sync-start", what, ""))
        if rec.slow_folders and os.path.isdir(what):
            # A slow disk, slowest for a folder that got new folders: a wait skipped shows,
            # not only by chance (a later sync, of a folder that got a file, ends first).
            made = any(k == "mkdir" and w == what for k, w, _ in list(rec.events))
            time.sleep(0.1 if made else 0.01)
        real_fsync(fd)
        rec.add("sync-end", what, str(n))

    def link(src: str, dst: str, *, dst_dir_fd: int | None = None, **kw: object) -> None:
        # A create's file (nameless, or by its temporary name) must have been synced; a second
        # name of a published file (the ledger's link) was checked when the file was published.
        src = os.fspath(src)
        if src.startswith("/proc/self/fd/"):
            source = "|" + os.readlink(src)
        else:
            source = "|" + src if src.endswith(".tmp") else ""
        folder = name_of(dst_dir_fd) if dst_dir_fd is not None else os.path.dirname(dst)
        real_link(src, dst, dst_dir_fd=dst_dir_fd, **kw)  # type: ignore[arg-type]
        rec.add("link", folder, os.path.basename(dst) + source)

    def mkdir(path: str, *a: object, **kw: object) -> None:
        real_mkdir(path, *a, **kw)  # type: ignore[arg-type]
        rec.add("mkdir", os.path.dirname(os.fspath(path)), os.path.basename(os.fspath(path)))

    def rename(src: str, dst: str) -> None:
        real_rename(src, dst)
        rec.add("rename", os.path.dirname(dst), os.path.basename(dst))

    def unlink(path: str, *a: object, **kw: object) -> None:
        real_unlink(path, *a, **kw)  # type: ignore[arg-type]
        rec.add("unlink", os.path.dirname(os.fspath(path)), os.path.basename(os.fspath(path)))

    for name, fn in [
        ("fsync", fsync),
        ("link", link),
        ("mkdir", mkdir),
        ("rename", rename),
        ("unlink", unlink),
    ]:
        monkeypatch.setattr(os, name, fn)
    yield rec


@pytest.mark.parametrize("anonymous", FORMS)
def test_a_create_syncs_new_folders_and_bytes_before_the_name(
    tmp_path: Path, recorder: Recorder, anonymous: bool
) -> None:
    """Every folder a create makes is synced in its parent and the file's bytes are synced
    before the name is linked (waited for together), and the name's folder after it: all done
    when the call returns, outside a deferring block."""
    store = LocalStore(tmp_path)
    store.anonymous_creates = anonymous
    store.create_exclusive("ns/f/metadata/00000-a.metadata.json", b"{}", make_dirs=True)
    assert recorder.check(tmp_path) == []
    folders = [str(tmp_path / f) for f in ("", "ns", "ns/f", "ns/f/metadata")]
    synced = {w for k, w, _ in recorder.events if k == "sync-end"}
    assert set(folders) <= synced
    [link] = [i for i, e in enumerate(recorder.events) if e[0] == "link"]
    assert recorder.synced_between(folders[-1], link, len(recorder.events))
    assert (tmp_path / "ns/f/metadata/00000-a.metadata.json").read_bytes() == b"{}"

    recorder.events.clear()
    store.move_dir("ns/f", "trash/ns/f")
    synced = {w for k, w, _ in recorder.events if k == "sync-end"}
    assert {str(tmp_path / f) for f in ("", "trash", "trash/ns", "ns")} <= synced
    assert recorder.check(tmp_path) == []


@pytest.mark.parametrize("anonymous", FORMS)
def test_a_deferred_folder_sync_is_waited_for_before_the_next_change(
    tmp_path: Path, recorder: Recorder, anonymous: bool
) -> None:
    """Inside ``deferring`` the sync of a folder after a link is pending: the next link, a
    removal, and the end of the block each wait for it first."""
    store = LocalStore(tmp_path)
    store.anonymous_creates = anonymous
    with syncs.deferring():
        store.create_exclusive("a/1.json", b"1", make_dirs=True)
        store.create_exclusive("b/1.json", b"2", make_dirs=True)
        store.link_exclusive("a/1.json", "c/1.json")
        store.remove("b/1.json")
        store.create_exclusive("a/2.json", b"3", make_dirs=False)
    assert syncs._pending == []
    assert recorder.check(tmp_path) == []
    # Nothing was synced less than in line: each new name's folder, each file, each new folder.
    synced = [w for k, w, _ in recorder.events if k == "sync-end"]
    for folder in ("a", "b", "c"):
        assert synced.count(str(tmp_path / folder)) >= 1
    assert (tmp_path / "c/1.json").read_bytes() == b"1"


def test_a_broken_order_is_caught(tmp_path: Path, recorder: Recorder) -> None:
    """The checker itself: a link made before an earlier name's folder was synced, and a name
    never made durable, are both reported."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (tmp_path / "x").write_bytes(b"x")
    recorder.events.clear()
    os.link(tmp_path / "x", a / "x")
    os.link(tmp_path / "x", b / "x")
    problems = recorder.check(tmp_path)
    assert any(p.startswith("link ") and p.endswith("/a/x was durable") for p in problems)
    assert f"{b}/x is not durable at the end" in problems


SQL_ONE = """\
CREATE FUNCTION ns.a(x INT) RETURNS INT RETURN x + 1;
CREATE FUNCTION ns.b(x INT) RETURNS INT RETURN x + 2;
CREATE FUNCTION ns.c(x INT) RETURNS INT RETURN x + 3;
"""
SQL_TWO = """\
CREATE OR REPLACE FUNCTION ns.a(x INT) RETURNS INT RETURN x + 10;
DROP FUNCTION ns.b;
CREATE FUNCTION ns.d(x INT) RETURNS INT RETURN x + 4;
"""


@pytest.mark.parametrize("anonymous", FORMS)
def test_a_migration_keeps_the_order_a_power_cut_needs(
    tmp_path: Path, recorder: Recorder, anonymous: bool
) -> None:
    """A migration of new functions, a replace and a drop: journal, new folders, metadata files,
    ledger entries and journal removals are each made visible only once everything made before
    them is durable, and each migrated file is durable when its progress is reported."""
    from translator.migrate import migrate_directory

    src = tmp_path / "src"
    src.mkdir()
    (src / "V1__one.sql").write_text(SQL_ONE)
    (src / "V2__two.sql").write_text(SQL_TWO)
    wh = Warehouse(tmp_path / "wh")
    assert isinstance(wh.store, LocalStore)
    wh.store.anonymous_creates = anonymous
    reported: list[list[str]] = []

    def progress(event: object) -> None:
        if getattr(event, "done", None) is not None:
            reported.append(recorder.check(tmp_path))  # a file reported done: all durable

    recorder.events.clear()
    report = migrate_directory(src, wh, "spark", progress=progress)
    assert report.failures == [] and report.status == "applied"
    assert reported == [[], []]
    assert recorder.check(tmp_path) == []
    links = [w for k, w, _ in recorder.events if k == "link"]
    assert sum(1 for w in links if w.endswith("/metadata")) == 5  # a, b, c, a again, d
    assert sum(1 for w in links if w.endswith(".migrations/spark")) == 2


def test_outside_a_deferring_block_nothing_is_left_pending(tmp_path: Path) -> None:
    """Outside ``deferring`` a folder's sync is made in line, and a block leaves nothing
    pending even when it ends with an exception."""
    syncs.sync_later(os.open(tmp_path, os.O_RDONLY))
    syncs.sync_folder_later(str(tmp_path))
    assert syncs._pending == [] and not syncs.is_deferring()
    with pytest.raises(RuntimeError), syncs.deferring():
        assert syncs.is_deferring()
        syncs.sync_folder_later(str(tmp_path))
        syncs.sync_later(os.open(tmp_path, os.O_RDONLY))
        assert len(syncs._pending) == 2
        raise RuntimeError("boom")
    assert syncs._pending == [] and not syncs.is_deferring()


def test_another_threads_deferring_block_is_its_own(tmp_path: Path) -> None:
    """Deferral is per thread: a thread outside any block syncs in line while another thread's
    block is open, and its changes still wait for the other's pending syncs (never less than
    they need)."""
    seen: list[bool] = []
    with syncs.deferring():
        syncs.sync_folder_later(str(tmp_path))
        worker = threading.Thread(target=lambda: seen.append(syncs.is_deferring()))
        worker.start()
        worker.join()
    assert seen == [False]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_syncs_with_threads_of_its_own(tmp_path: Path) -> None:
    """A child forked after the pool started has none of its threads: it starts its own."""
    syncs.wait(syncs.sync_folders([str(tmp_path)]))  # the parent's pool is running
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            with syncs.deferring():
                syncs.sync_folder_later(str(tmp_path))
            syncs.wait(syncs.sync_folders([str(tmp_path)]))
            os._exit(0 if syncs._pending == [] else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_where_no_thread_can_start_the_syncs_are_made_in_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recorder: Recorder
) -> None:
    """Where no thread can be started (a process at its limit, or exiting), each sync is made
    at once, and a file's sync failing is its result's error, as in a worker."""

    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(syncs, "_started", False)  # as a new process: no workers yet
    monkeypatch.setattr(threading.Thread, "start", refuse)
    [done] = syncs.sync_folders([str(tmp_path)])
    assert done.done()
    [failed] = syncs.sync_files([10**6])  # no such descriptor
    with pytest.raises(OSError):
        failed.result()
    with syncs.deferring():
        syncs.sync_later(os.open(tmp_path, os.O_RDONLY))
        syncs.sync_folder_later(str(tmp_path))
        assert all(f.done() for f in syncs._pending)  # made already
    assert [w for k, w, _ in recorder.events if k == "sync-end"] == [str(tmp_path)] * 3
    assert not syncs._started


@pytest.mark.parametrize("anonymous", FORMS)
def test_staged_files_sync_together_and_each_name_waits_for_its_own(
    tmp_path: Path, recorder: Recorder, anonymous: bool
) -> None:
    """Files staged together: every sync starts at once, each new folder's parent once; each
    name waits for its bytes and its folders, and nothing is visible before its publish."""
    from translator.warehouse.staged import start_syncs

    store = LocalStore(tmp_path)
    store.anonymous_creates = anonymous
    with syncs.deferring():
        batch = [store.stage(f"ns/{f}/metadata/1.json", f.encode(), make_dirs=True) for f in "abc"]
        gone = store.stage("ns/dropped/metadata/2.json", b"x", make_dirs=False)
        start_syncs([*batch, gone])
        assert not list(tmp_path.glob("ns/*/metadata/*.json"))  # nothing named yet
        for st in batch:
            store.publish_staged(st)
        with pytest.raises(FileNotFoundError):
            store.publish_staged(gone)
    assert recorder.check(tmp_path) == []
    for f in "abc":
        assert (tmp_path / f"ns/{f}/metadata/1.json").read_bytes() == f.encode()
    ns_syncs = [w for k, w, _ in recorder.events if k == "sync-start" and w == str(tmp_path / "ns")]
    assert len(ns_syncs) == 1  # three new functions' folders, one sync of their namespace
    assert [p.name for p in (tmp_path / "ns/a/metadata").iterdir()] == ["1.json"]


@pytest.mark.parametrize("anonymous", FORMS)
def test_a_staged_file_never_published_leaves_no_name(tmp_path: Path, anonymous: bool) -> None:
    store = LocalStore(tmp_path)
    store.anonymous_creates = anonymous
    st = store.stage("ns/f/metadata/1.json", b"x", make_dirs=True)
    st.discard()
    st.discard()
    assert os.listdir(tmp_path / "ns/f/metadata") == []


def test_a_file_sync_that_fails_in_a_worker_fails_its_result() -> None:
    [failed] = syncs.sync_files([10**6])  # no such descriptor
    with pytest.raises(OSError):
        failed.result()
    assert failed.done()


@pytest.mark.parametrize("anonymous", FORMS)
def test_an_apply_stages_a_slice_at_a_time_and_keeps_the_order(
    tmp_path: Path, recorder: Recorder, anonymous: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Commits beyond one slice are staged after the slice before was named, and the order a
    power cut needs holds across the slices."""
    from translator.warehouse import apply

    monkeypatch.setattr(apply, "STAGE_SLICE", 2)
    wh = Warehouse(tmp_path / "wh")
    assert isinstance(wh.store, LocalStore)
    wh.store.anonymous_creates = anonymous
    sql = "".join(f"CREATE FUNCTION ns.f{i}(x INT) RETURNS INT RETURN x + {i};\n" for i in range(5))
    recorder.events.clear()
    result = wh.apply(sql, dialect="spark")
    assert result.errors == [] and len(result.committed) == 5
    assert recorder.check(tmp_path) == []
    links = [i for i, (k, w, _) in enumerate(recorder.events) if k == "link"]
    metadata_links = [i for i in links if recorder.events[i][1].endswith("/metadata")]
    assert len(metadata_links) == 5
    # The third file's bytes were written only after the first two were named.
    third = recorder.events.index(next(e for e in recorder.events if "/f2" in e[1]))
    assert third > metadata_links[1]


def test_an_apply_of_more_functions_than_open_files_allow_commits_them_all(
    tmp_path: Path,
) -> None:
    """A script of many new functions is committed within an open-file limit that staging all
    of them at once would exceed (each staged file holds descriptors until it is named; the
    apply's stripe locks hold up to 256 more)."""
    import subprocess
    import sys

    sql = tmp_path / "many.sql"
    sql.write_text(
        "".join(f"CREATE FUNCTION ns.f{i}(x INT) RETURNS INT RETURN x + {i};\n" for i in range(300))
    )
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (400, resource.getrlimit("
        "resource.RLIMIT_NOFILE)[1]))\n"
        "from translator.warehouse import Warehouse\n"
        "r = Warehouse(sys.argv[1]).apply(open(sys.argv[2]).read(), dialect='spark')\n"
        "print(len(r.committed), len(r.errors))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "wh"), str(sql)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["300", "0"]
    assert len(list((tmp_path / "wh/ns").iterdir())) == 300
