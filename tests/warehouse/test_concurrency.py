"""Commits under real concurrency: many processes on one function, and processes killed mid-commit.

What must hold afterwards: every update is there (one version per apply), version-ids unique
and increasing, metadata files numbered 1..N without gaps, each file's log the previous file's
log plus exactly one entry (a chain: nothing was lost or forked), every file valid.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, assert_rest_schema_valid
from translator.metadata import load_metadata, validate_metadata
from translator.warehouse import FunctionRef, RetryPolicy, Warehouse
from translator.warehouse.layout import metadata_dir, parse_metadata_name
from translator.warehouse.publish import ANONYMOUS_AVAILABLE

PROCESSES = 8
APPLIES = 20

#: One worker process: waits for the start signal, then applies CREATE OR REPLACE statements
#: with distinct bodies; prints one JSON line per commit (so a parent can see progress).
WORKER = r"""
import json, os, sys, time
from translator.warehouse import RetryPolicy, Warehouse

wh_path, worker, count, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
attempts = int(sys.argv[5]) if len(sys.argv) > 5 else RetryPolicy().max_attempts
catalog = sys.argv[6] if len(sys.argv) > 6 else None
wh = Warehouse(wh_path, retry=RetryPolicy(max_attempts=attempts), catalog=catalog)
print(json.dumps({"ready": worker}), flush=True)
while not os.path.exists(go):
    time.sleep(0.002)
i = 0
while count < 0 or i < count:
    body = 1_000_000 * (worker + 1) + i
    sql = f"CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + {body};"
    r = wh.apply(sql, dialect="trino")
    if r.errors:
        print(json.dumps({"error": [str(e) for e in r.errors]}), flush=True)
        sys.exit(1)
    print(json.dumps({"body": body, "conflicts": r.conflicts,
                      "version": r.committed[0].version}), flush=True)
    i += 1
"""

#: A worker that dies by SIGKILL between writing its metadata file and publishing it; argv[2]
#: "1" creates files nameless first (O_TMPFILE), "0" through a temporary name.
CRASH_IN_COMMIT = r"""
import os, signal, sys
from translator.warehouse import RetryPolicy, Warehouse

wh = Warehouse(sys.argv[1])
def publish(tmp, target):  # the metadata file's publication, not the apply's journal
    if target.name.endswith(".metadata.json"):
        assert tmp.read_bytes().startswith(b"{"), tmp  # written, not yet named
        os.kill(os.getpid(), signal.SIGKILL)
wh.store.before_publish = publish
wh.store.anonymous_creates = sys.argv[2] == "1"
wh.apply("CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + 777;", "trino")
"""


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _spawn(script: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(**(env or {})),
        cwd=ROOT,
    )


def _seed(root: Path, catalog: str | None = None) -> None:
    with Warehouse(root, catalog=catalog) as wh:
        wh.apply(
            "CREATE FUNCTION f(x integer) RETURNS integer RETURN x + 0;", "trino"
        ).raise_for_errors()


def check_chain(root: Path | str) -> list[Any]:
    """The invariants of the module docstring for ``default.f`` of the warehouse at ``root`` (a
    folder or a URL, read through the warehouse's store); returns the newest file's bodies, in
    order."""
    wh = Warehouse(root, cache=False)
    folder = metadata_dir(FunctionRef("default", "f"))
    named = sorted(
        (m for n in wh.store.list_names(folder) if (m := parse_metadata_name(n))),
        key=lambda m: m.version,
    )
    assert [m.version for m in named] == list(range(1, len(named) + 1)), "gaps or duplicates"
    previous = None
    text = ""
    for m in named:
        text = wh.store.read_bytes(f"{folder}/{m.name}").decode()
        doc = json.loads(text)
        assert validate_metadata(doc) == [], m.name
        meta = load_metadata(text)
        assert len(meta.definition_log) == m.version
        if previous is not None:
            assert meta.function_uuid == previous.function_uuid
            old = [e.model_dump() for e in previous.definition_log]
            assert [e.model_dump() for e in meta.definition_log[:-1]] == old, "forked history"
        previous = meta
    assert previous is not None
    assert_rest_schema_valid(json.loads(text))
    d = previous.definition("int")
    assert d is not None
    ids = [v.version_id for v in d.versions]
    assert ids == list(range(1, len(named) + 1))
    stamps = [v.timestamp_ms for v in d.versions]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    assert d.current_version_id == ids[-1]
    return [v.representations[0].sql for v in d.versions]  # type: ignore[union-attr]


def run_workers(
    root: Path,
    processes: int,
    applies: int,
    *,
    attempts: int | None = None,
    catalog: str | None = None,
    env: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """``processes`` workers x ``applies`` each against ``default.f``; checks every update."""
    _seed(root, catalog)
    go = root / "go"
    started = time.monotonic()
    extra = [str(attempts or RetryPolicy().max_attempts)] + ([catalog] if catalog else [])
    procs = [
        _spawn(WORKER, str(root), str(w), str(applies), str(go), *extra, env=env)
        for w in range(processes)
    ]
    for p in procs:  # every worker has imported everything: start them together
        assert p.stdout is not None
        assert json.loads(p.stdout.readline()) == {"ready": procs.index(p)}
    go.touch()
    t_go = time.monotonic()
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err + out
        results += [json.loads(line) for line in out.splitlines()]
    elapsed = time.monotonic() - t_go
    bodies = check_chain(root)
    expected = {f"x + {1_000_000 * (w + 1) + i}" for w in range(processes) for i in range(applies)}
    assert len(bodies) == processes * applies + 1
    assert set(bodies[1:]) == expected and bodies[0] == "x + 0"
    versions = sorted(r["version"] for r in results)
    assert versions == list(range(2, processes * applies + 2))
    conflicts = [r["conflicts"] for r in results]
    print(
        f"\n{processes}x{applies} applies{' ' + str(env) if env else ''}: {elapsed:.1f}s after "
        f"start ({time.monotonic() - started:.1f}s with start-up); conflicts total "
        f"{sum(conflicts)}, max in one apply {max(conflicts)}"
    )
    return results


def test_many_processes_lose_no_update(tmp_path: Path) -> None:
    """The default set-up: local advisory locks make the processes take turns."""
    run_workers(tmp_path, PROCESSES, APPLIES)


def test_without_the_lock_losers_retry_and_nothing_is_lost(tmp_path: Path) -> None:
    """The create-if-absent alone: writers race, losers re-read, re-merge and retry."""
    results = run_workers(tmp_path, 4, 10, attempts=1000, env={"ICEBERG_UDF_COMMIT_LOCK": "0"})
    assert sum(r["conflicts"] for r in results) > 0  # they did race


@pytest.mark.parametrize(
    "anonymous",
    [
        pytest.param(
            True,
            marks=pytest.mark.skipif(not ANONYMOUS_AVAILABLE, reason="no O_TMPFILE and /proc"),
            id="nameless",
        ),
        pytest.param(False, id="temporary-name"),
    ],
)
def test_a_process_killed_between_write_and_publish_leaves_a_consistent_warehouse(
    tmp_path: Path, anonymous: bool
) -> None:
    _seed(tmp_path)
    p = _spawn(CRASH_IN_COMMIT, str(tmp_path), "1" if anonymous else "0")
    _, err = p.communicate(timeout=60)
    assert p.returncode == -signal.SIGKILL, err
    folder = tmp_path / "default" / "f" / "metadata"
    leftovers = [n.name for n in folder.iterdir() if n.name.startswith(".")]
    if anonymous:  # the nameless file died with the process
        assert leftovers == []
    else:
        assert leftovers and all(n.endswith(".tmp") for n in leftovers)  # the unpublished file
    assert len([n for n in folder.iterdir() if not n.name.startswith(".")]) == 1
    wh = Warehouse(tmp_path, cache=False)
    assert wh.load("f").version == 1  # readers ignore it
    r = wh.apply(
        "CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + 778;", "trino"
    ).raise_for_errors()
    assert r.committed[0].version == 2 and r.conflicts == 0  # the number was never taken
    assert check_chain(tmp_path) == ["x + 0", "x + 778"]


def test_processes_killed_at_random_while_committing(tmp_path: Path) -> None:
    _seed(tmp_path)
    go = tmp_path / "go"
    go.touch()
    for round_ in range(3):
        procs = [
            _spawn(WORKER, str(tmp_path), str(10 * round_ + w), "-1", str(go)) for w in range(3)
        ]
        for p in procs:
            assert p.stdout is not None
            p.stdout.readline()  # ready
            p.stdout.readline()  # one commit done: it is in its loop now
        time.sleep(0.05 + 0.07 * round_)
        for p in procs:
            p.send_signal(signal.SIGKILL)
        for p in procs:
            p.communicate(timeout=60)
            assert p.returncode == -signal.SIGKILL
        check_chain(tmp_path)
    before = len(check_chain(tmp_path))
    r = (
        Warehouse(tmp_path, cache=False)
        .apply("CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x - 1;", "trino")
        .raise_for_errors()
    )
    assert r.committed[0].version == before + 1
    assert len(check_chain(tmp_path)) == before + 1
