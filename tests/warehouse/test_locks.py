"""The advisory commit locks of a local warehouse: a few shared files per namespace, each
taken once and in order by an apply, however many of its functions share one."""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from translator.warehouse import Warehouse
from translator.warehouse.layout import FunctionRef
from translator.warehouse.store import LocalStore
from translator.warehouse.warehouse import LOCK_STRIPES, lock_name


def _two_names_sharing_a_stripe() -> tuple[str, str]:
    seen: dict[str, str] = {}
    for n in itertools.count():
        name = f"f{n}"
        stripe = lock_name(FunctionRef("default", name))
        if stripe in seen:
            return seen[stripe], name
        seen[stripe] = name
    raise AssertionError  # pragma: no cover


def test_lock_names_are_stable_hidden_and_per_namespace() -> None:
    name = lock_name(FunctionRef("default", "f"))
    assert name == lock_name(FunctionRef("default", "f"))
    namespace, _, file = name.rpartition("/")
    assert namespace == "default" and file.startswith(".stripe-")
    assert int(file.removeprefix(".stripe-")) < LOCK_STRIPES
    assert lock_name(FunctionRef("a.b", "f")).startswith("a.b/.stripe-")


def test_functions_sharing_a_lock_are_applied_without_waiting_on_themselves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = _two_names_sharing_a_stripe()
    taken: list[str] = []
    real = LocalStore.lock

    @contextlib.contextmanager
    def recording(self: LocalStore, name: str, timeout_s: float) -> Iterator[bool]:
        taken.append(name)
        with real(self, name, timeout_s) as held:
            yield held

    monkeypatch.setattr(LocalStore, "lock", recording)
    sql = "".join(f"CREATE FUNCTION {n}() RETURNS INT RETURN 1;\n" for n in (a, b, "g"))
    with Warehouse(tmp_path / "wh", lock_timeout_s=30) as wh:
        started = time.monotonic()
        result = wh.apply(sql, "spark")
    assert not result.errors and len(result.committed) == 3
    assert time.monotonic() - started < 10
    assert taken == sorted({lock_name(FunctionRef("default", n)) for n in (a, b, "g")})
    locks = sorted(p.name for p in (tmp_path / "wh" / ".locks" / "default").iterdir())
    assert locks == [f"{t.rpartition('/')[2]}.lock" for t in taken]


def test_another_holder_of_the_functions_lock_makes_a_commit_wait(tmp_path: Path) -> None:
    root = tmp_path / "wh"
    path = root / ".locks" / f"{lock_name(FunctionRef('default', 'f'))}.lock"
    path.parent.mkdir(parents=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    fcntl.flock(fd, fcntl.LOCK_EX)
    threading.Timer(0.5, os.close, (fd,)).start()  # closing releases it
    started = time.monotonic()
    with Warehouse(root, lock_timeout_s=30) as wh:
        assert not wh.apply("CREATE FUNCTION f() RETURNS INT RETURN 1;", "spark").errors
    assert time.monotonic() - started >= 0.4
