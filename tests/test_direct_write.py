"""Big files written past the page cache: the same bytes as plain writes, whatever the sizes of
the pieces, and plain writes wherever the file system refuses or writes less."""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from translator import direct_write
from translator.direct_write import DIRECT_ENV, DIRECT_MIN, start_direct, write_direct

_BUFFER = direct_write._BUFFER


def _pieces(seed: int, sizes: Sequence[int]) -> list[bytes]:
    """Distinct pieces of the given sizes (each byte tells where it is)."""
    return [
        bytes([(seed + k + i) % 251 for i in range(min(n, 251))]) * (n // 251) + bytes(n % 251)
        for k, n in enumerate(sizes)
    ]


@pytest.fixture
def new_file(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    path = tmp_path / "big.json"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        yield path, fd
    finally:
        os.close(fd)


def _write(fd: int, data: bytes | list[bytes]) -> int:
    block = start_direct(fd, data)
    if not block:
        pytest.skip("this file system refuses O_DIRECT")
    assert fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT
    write_direct(fd, data, block)
    return block


SHAPES = {
    # a long history's shape: many small pieces, some separators
    "small pieces": [120, 6] * 20_000,
    # exactly whole buffers: nothing left for the plain write
    "whole buffers": [_BUFFER // 4] * 8,
    # a partial block at the end, pieces across the buffer's end
    "partial tail": [1_000_003] * 5 + [17],
    # pieces bigger than a join and than the buffer, between small ones
    "huge pieces": [10, 3 * _BUFFER + 5, 7, _BUFFER + 1, 2 << 20, 9],
}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_file_holds_the_pieces_in_order(shape: str, new_file: tuple[Path, int]) -> None:
    path, fd = new_file
    pieces = _pieces(len(shape), SHAPES[shape])
    _write(fd, pieces)
    assert not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT  # cleared for whoever goes on
    os.fsync(fd)
    assert path.read_bytes() == b"".join(pieces)


def test_one_piece_of_bytes(new_file: tuple[Path, int]) -> None:
    path, fd = new_file
    data = b"".join(_pieces(3, [DIRECT_MIN + 4095, 77]))
    _write(fd, data)
    assert path.read_bytes() == data


def test_only_big_files_and_not_when_switched_off(
    new_file: tuple[Path, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, fd = new_file
    assert start_direct(fd, [b"x" * 100] * 100) == 0
    assert start_direct(fd, b"x" * (DIRECT_MIN - 1)) == 0
    assert not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT
    monkeypatch.setenv(DIRECT_ENV, "0")
    assert start_direct(fd, b"x" * (4 * DIRECT_MIN)) == 0
    assert not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT
    monkeypatch.delenv(DIRECT_ENV)
    # pieces are counted across groups until there are enough
    _write(fd, [b"x" * 1000] * (DIRECT_MIN // 1000) + [b"y" * 1000])
    assert path.stat().st_size == DIRECT_MIN // 1000 * 1000 + 1000


def _refusing(calls: list[int], fail_at: int, short: bool) -> Callable[[int, bytes], int]:
    """``os.write`` whose ``fail_at``-th direct write is refused (EINVAL) or written short (half
    of it), as by a file system with stricter alignment or a full disk."""
    real = os.write

    def write(fd: int, data: bytes) -> int:
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT:
            calls.append(len(data))
            if len(calls) == fail_at:
                if not short:
                    raise OSError(errno.EINVAL, "Invalid argument")
                return real(fd, memoryview(data)[: len(data) // 2 // 4096 * 4096])
        return real(fd, data)

    return write


@pytest.mark.parametrize("short", [False, True], ids=["refused", "short"])
@pytest.mark.parametrize("fail_at", [1, 2])
def test_a_refused_or_short_direct_write_goes_on_plainly(
    new_file: tuple[Path, int], monkeypatch: pytest.MonkeyPatch, short: bool, fail_at: int
) -> None:
    path, fd = new_file
    pieces = _pieces(5, [3_000_001] * 4)
    calls: list[int] = []
    monkeypatch.setattr(direct_write.os, "write", _refusing(calls, fail_at, short))
    _write(fd, pieces)
    assert len(calls) == fail_at  # no direct write after the first failure
    assert not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT
    assert path.read_bytes() == b"".join(pieces)


def test_the_buffer_is_kept_for_the_next_write(tmp_path: Path) -> None:
    pieces = _pieces(1, [DIRECT_MIN, 5])
    kept = []
    for name in ("a", "b"):
        fd = os.open(tmp_path / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            _write(fd, pieces)
        finally:
            os.close(fd)
        assert (tmp_path / name).read_bytes() == b"".join(pieces)
        assert len(direct_write._SPARE) == 1
        kept.append(direct_write._SPARE[0])
    assert kept[0] is kept[1]
