"""A local store's create-if-absent in both of its forms (translator.warehouse.publish): through
a nameless file (O_TMPFILE, Linux) and through a hidden temporary name, and the switch from the
first to the second where the platform refuses it."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from translator.warehouse import publish
from translator.warehouse.store import LocalStore

FORMS = [
    pytest.param(
        True,
        marks=pytest.mark.skipif(
            not publish.ANONYMOUS_AVAILABLE, reason="no O_TMPFILE and /proc here"
        ),
        id="nameless",
    ),
    pytest.param(False, id="temporary-name"),
]


@pytest.fixture
def umask() -> Iterator[None]:
    """The common umask, so that the mode the store asks for is the mode the file gets."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def _store(root: Path, anonymous: bool) -> LocalStore:
    store = LocalStore(root)
    store.anonymous_creates = anonymous
    return store


@pytest.mark.parametrize("anonymous", FORMS)
def test_a_published_file_is_whole_private_and_alone(
    tmp_path: Path, anonymous: bool, umask: None
) -> None:
    store = _store(tmp_path, anonymous)
    big = bytes(range(256)) * 5000
    store.create_exclusive("ns/f/metadata/1.json", big, make_dirs=True)
    store.create_exclusive("ns/f/metadata/2.json", [b"a" * 70_000, b"", b"b"], make_dirs=False)
    folder = tmp_path / "ns/f/metadata"
    assert (folder / "1.json").read_bytes() == big
    assert (folder / "2.json").read_bytes() == b"a" * 70_000 + b"b"
    assert sorted(os.listdir(folder)) == ["1.json", "2.json"]  # no temporary name left
    for name in ("1.json", "2.json"):
        st = os.stat(folder / name)
        assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_nlink == 1
    assert store.anonymous_creates is anonymous  # nothing refused on this file system


@pytest.mark.parametrize("anonymous", FORMS)
def test_a_taken_name_raises_and_leaves_nothing(tmp_path: Path, anonymous: bool) -> None:
    store = _store(tmp_path, anonymous)
    store.create_exclusive("ns/f/metadata/1.json", b"first", make_dirs=True)
    folder = tmp_path / "ns/f/metadata"
    with pytest.raises(FileExistsError):
        store.create_exclusive("ns/f/metadata/1.json", b"second", make_dirs=False)
    assert os.listdir(folder) == ["1.json"]
    assert (folder / "1.json").read_bytes() == b"first"
    with pytest.raises(FileNotFoundError):  # a dropped function's folder is not made again
        store.create_exclusive("ns/gone/metadata/1.json", b"x", make_dirs=False)
    assert not (tmp_path / "ns/gone").exists()


@pytest.mark.parametrize("anonymous", FORMS)
def test_a_crash_before_the_link_publishes_nothing(tmp_path: Path, anonymous: bool) -> None:
    """The hook runs once the bytes are synced and before the name exists: what it sees is the
    whole file, and an exception there (as a crash would) leaves the folder as it was."""
    store = _store(tmp_path, anonymous)
    store.create_exclusive("ns/f/metadata/1.json", b"one", make_dirs=True)
    seen: list[tuple[Path, bytes]] = []

    def crash(path: Path, target: Path) -> None:
        seen.append((path, path.read_bytes()))
        assert target == tmp_path / "ns/f/metadata/2.json" and not target.exists()
        raise KeyboardInterrupt

    store.before_publish = crash
    with pytest.raises(KeyboardInterrupt):
        store.create_exclusive("ns/f/metadata/2.json", b"two", make_dirs=False)
    [(path, content)] = seen
    assert content == b"two"
    assert str(path).startswith("/proc/self/fd/") is anonymous
    assert os.listdir(tmp_path / "ns/f/metadata") == ["1.json"]


@pytest.mark.skipif(not publish.ANONYMOUS_AVAILABLE, reason="no O_TMPFILE and /proc here")
def test_a_folder_removed_before_the_link_is_a_missing_folder(tmp_path: Path) -> None:
    """A drop that moves the function's folder away mid-create: the commit sees the folder
    gone (a conflict it retries), not a platform without nameless files."""
    store = _store(tmp_path, True)
    (tmp_path / "ns/f/metadata").mkdir(parents=True)
    store.before_publish = lambda path, target: target.parent.rmdir()
    with pytest.raises(FileNotFoundError):
        store.create_exclusive("ns/f/metadata/1.json", b"x", make_dirs=False)
    assert store.anonymous_creates
    assert os.listdir(tmp_path / "ns/f") == []


def _create(store: LocalStore, rel: str, data: bytes, *, make_dirs: bool, staged: bool) -> None:
    """A create, as ``create_exclusive`` makes it or as an apply stages and then publishes it."""
    if not staged:
        store.create_exclusive(rel, data, make_dirs=make_dirs)
        return
    from translator.warehouse.staged import start_syncs

    st = store.stage(rel, data, make_dirs=make_dirs)
    start_syncs([st])
    store.publish_staged(st)


VIA = [pytest.param(False, id="create"), pytest.param(True, id="staged")]


@pytest.mark.skipif(not publish.ANONYMOUS_AVAILABLE, reason="no O_TMPFILE and /proc here")
@pytest.mark.parametrize("staged", VIA)
def test_a_kernel_without_o_tmpfile_falls_back_to_a_temporary_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, staged: bool
) -> None:
    """A kernel older than O_TMPFILE reads the flag as a plain open of the folder for writing,
    which fails with EISDIR: the same open without the flag. Nothing is published by the
    refused attempt; the store makes the file through a temporary name, then keeps to that."""
    monkeypatch.setattr(publish, "NAMELESS_FLAGS", os.O_WRONLY | os.O_CLOEXEC)
    store = _store(tmp_path, True)
    paths: list[Path] = []
    store.before_publish = lambda path, target: paths.append(path)
    _create(store, "ns/f/metadata/1.json", b"one", make_dirs=True, staged=staged)
    _create(store, "ns/f/metadata/2.json", b"two", make_dirs=False, staged=staged)
    assert not store.anonymous_creates
    assert [p.name.endswith(".tmp") for p in paths] == [True, True]  # one attempt each
    assert sorted(os.listdir(tmp_path / "ns/f/metadata")) == ["1.json", "2.json"]
    assert (tmp_path / "ns/f/metadata/1.json").read_bytes() == b"one"


@pytest.mark.skipif(not publish.ANONYMOUS_AVAILABLE, reason="no O_TMPFILE and /proc here")
@pytest.mark.parametrize("staged", VIA)
def test_without_proc_the_nameless_file_is_dropped_and_the_create_falls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, staged: bool
) -> None:
    """Where ``/proc`` is not mounted the nameless file cannot be linked (ENOENT for the
    handle, told apart from a missing folder): it is dropped unpublished and the create runs
    through a temporary name (a staged file is written again: the refusal shows only then)."""
    monkeypatch.setattr(publish, "PROC_FD", str(tmp_path / "no-proc") + "/")
    store = _store(tmp_path, True)
    _create(store, "ns/f/metadata/1.json", b"one", make_dirs=True, staged=staged)
    assert not store.anonymous_creates
    assert os.listdir(tmp_path / "ns/f/metadata") == ["1.json"]
    assert (tmp_path / "ns/f/metadata/1.json").read_bytes() == b"one"


def test_a_folder_that_cannot_be_read_is_written_through_a_temporary_name(tmp_path: Path) -> None:
    """Writing a file in a folder needs no right to read it; the nameless form opens the folder
    for the link and the sync, so where that is refused the temporary-name form runs."""
    store = _store(tmp_path, publish.ANONYMOUS_AVAILABLE)
    folder = tmp_path / "ns/f/metadata"
    folder.mkdir(parents=True)
    folder.chmod(0o300)
    try:
        try:
            os.close(os.open(folder, os.O_RDONLY))
        except PermissionError:
            pass
        else:
            pytest.skip("this user reads any folder (root with CAP_DAC_OVERRIDE)")
        store.create_exclusive("ns/f/metadata/1.json", b"one", make_dirs=False)
    finally:
        folder.chmod(0o700)
    assert store.anonymous_creates is False
    assert os.listdir(folder) == ["1.json"] and (folder / "1.json").read_bytes() == b"one"
