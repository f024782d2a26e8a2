"""Issue 15, class 10, on real file systems: a full disk in ``apply`` and a read-only mount in
``apply`` and ``drop`` are clear one-line errors that leave the warehouse as it was; once the
disk has room again the same apply goes through. The warehouse lives on a small tmpfs that the
test mounts (the tests run as root here); where mounting is not allowed they skip and say why.
The injected-fault test in test_hardening_tracebacks.py covers the same paths where this skips."""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hardening_cli import run_cli

DEPLOY = "CREATE FUNCTION ns.f(x INT) RETURNS INT RETURN x + 1;\n"
CHANGE = "CREATE OR REPLACE FUNCTION ns.f(x INT) RETURNS INT RETURN x + 2;\n"


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs at ``tmp_path/mnt``, unmounted afterwards."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mnt)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode})")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True, check=False)


def _state(wh: Path) -> dict[str, str]:
    """Every file under the warehouse, with its bytes (metadata compared whole)."""
    return {
        str(p.relative_to(wh)): p.read_text()
        for p in sorted(wh.rglob("*"))
        if p.is_file() and ".locks" not in p.parts
    }


def _body(wh: Path) -> str:
    newest = sorted((wh / "ns" / "f" / "metadata").glob("*.metadata.json"))[-1]
    d = json.loads(newest.read_text())["definitions"][0]
    [v] = [v for v in d["versions"] if v["version-id"] == d["current-version-id"]]
    return str(v["representations"][0]["sql"])


def _fill(mnt: Path) -> Path:
    """Take every free byte of the file system: the next write fails with ENOSPC."""
    filler = mnt / "filler"
    with contextlib.suppress(OSError), filler.open("wb") as f:
        while True:
            f.write(b"\0" * 4096)
            f.flush()
    return filler


def _refused(result: tuple[int, str, str], says: str) -> None:
    code, out, err = result
    assert code == 1, (out, err)
    assert "Traceback" not in err and says in err, err


def test_tracebacks_real_full_disk_in_apply(small_fs: Path, tmp_path: Path) -> None:
    wh = small_fs / "wh"
    sql = tmp_path / "d.sql"
    sql.write_text(DEPLOY)
    assert run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(sql))[0] == 0
    before = _state(wh)
    filler = _fill(small_fs)
    sql.write_text(CHANGE)
    _refused(
        run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(sql)),
        "No space left on device",
    )
    assert _state(wh) == before and _body(wh) == "x + 1"
    filler.unlink()
    code, _, err = run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(sql))
    assert code == 0, err
    assert _body(wh) == "x + 2"


def test_tracebacks_real_read_only_mount_in_apply_and_drop(small_fs: Path, tmp_path: Path) -> None:
    wh = small_fs / "wh"
    sql = tmp_path / "d.sql"
    sql.write_text(DEPLOY)
    assert run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(sql))[0] == 0
    before = _state(wh)
    remount = ["mount", "-o", "remount,ro", str(small_fs)]
    subprocess.run(remount, check=True, capture_output=True)
    sql.write_text(CHANGE)
    _refused(
        run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(sql)),
        "Read-only file system",
    )
    _refused(run_cli("drop", "--warehouse", str(wh), "ns.f"), "Read-only file system")
    assert _state(wh) == before
    # Reading still works from a read-only warehouse.
    code, out, err = run_cli("show", "--warehouse", str(wh), "ns.f")
    assert code == 0 and "x + 1" in out, err
