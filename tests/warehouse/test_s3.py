"""``s3://`` warehouses against a real S3 API server: moto's, in its own process
(``tests/warehouse/s3_server.py``).

What must hold: commits from many processes at once lose no update (the metadata files form
one unbroken chain holding every apply), and a store that does not honour conditional writes is
refused before anything is written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.warehouse.test_concurrency import check_chain
from translator.warehouse import Warehouse
from translator.warehouse.errors import UnsupportedStorageError

PROCESSES = 4
APPLIES = 8

#: One writer process: warms up (a dry run reads the function and compiles once), says it is
#: ready, waits for the start signal, then commits CREATE OR REPLACE statements with distinct
#: bodies, one JSON line per commit.
WORKER = r"""
import json, os, sys, time
from translator.warehouse import RetryPolicy, Warehouse

url, worker, count, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
wh = Warehouse(url, retry=RetryPolicy(max_attempts=1000))
sql = "CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + {};"
wh.apply(sql.format(-1), dialect="trino", dry_run=True).raise_for_errors()
print(json.dumps({"ready": worker}), flush=True)
while not os.path.exists(go):
    time.sleep(0.002)
for i in range(count):
    body = 1_000_000 * (worker + 1) + i
    r = wh.apply(sql.format(body), dialect="trino")
    if r.errors:
        print(json.dumps({"error": [str(e) for e in r.errors]}), flush=True)
        sys.exit(1)
    print(json.dumps({"body": body, "conflicts": r.conflicts,
                      "version": r.committed[0].version}), flush=True)
"""
SQL = "CREATE FUNCTION f(x integer) RETURNS integer RETURN x + 0;"


def _aws_env(port: int) -> dict[str, str]:
    return {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }


def _start(*args: str) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.warehouse.s3_server", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.kill()
        raise RuntimeError("moto's S3 server did not start")
    return proc, int(json.loads(line)["port"])


@pytest.fixture(scope="module")
def s3_env() -> Iterator[dict[str, str]]:
    """A running S3 server that honours conditional writes; the AWS environment to reach it."""
    proc, port = _start()
    try:
        yield _aws_env(port)
    finally:
        proc.kill()
        proc.wait(10)


@pytest.fixture
def bucket(s3_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> str:
    for key, value in s3_env.items():
        monkeypatch.setenv(key, value)
    import s3fs  # type: ignore[import-untyped]

    s3fs.S3FileSystem.clear_instance_cache()
    name = f"wh-{uuid.uuid4().hex[:12]}"
    s3fs.S3FileSystem(skip_instance_cache=True).mkdir(name)
    return name


def test_apply_read_and_time_travel_on_s3(bucket: str) -> None:
    wh = Warehouse(f"s3://{bucket}/wh", cache=False)
    wh.apply(SQL, "trino", namespace="sales").raise_for_errors()
    first = wh.load("sales.f")
    wh.apply(
        SQL.replace("CREATE", "CREATE OR REPLACE").replace("+ 0", "+ 1"), "trino", namespace="sales"
    ).raise_for_errors()
    assert [str(i.ref) for i in wh.functions()] == ["sales.f"]
    now = wh.load("sales.f")
    assert now.version == 2 and now.location.startswith(f"s3://{bucket}/wh/sales/f/metadata/00002-")
    past = wh.at("sales.f", as_of=first.metadata.definition_log[-1].timestamp_ms)
    assert past.metadata.definitions[0].current_version.representations[0].sql == "x + 0"  # type: ignore[union-attr]
    # the probe object is gone, and never looked like a namespace
    import s3fs

    assert s3fs.S3FileSystem(skip_instance_cache=True).ls(f"{bucket}/wh") == [f"{bucket}/wh/sales"]


def test_concurrent_applies_lose_no_update(
    bucket: str, s3_env: dict[str, str], tmp_path: Path
) -> None:
    url = f"s3://{bucket}/conc"
    Warehouse(url).apply(SQL, "trino").raise_for_errors()
    go = tmp_path / "go"
    env = {**os.environ, **s3_env, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, url, str(w), str(APPLIES), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for w in range(PROCESSES)
    ]
    try:
        for w, p in enumerate(procs):
            assert p.stdout is not None
            assert json.loads(p.stdout.readline()) == {"ready": w}
        go.touch()
        started = time.monotonic()
        results: list[dict[str, Any]] = []
        for p in procs:
            out, err = p.communicate(timeout=300)
            assert p.returncode == 0, err[-3000:] + out[-3000:]
            results += [json.loads(line) for line in out.splitlines()]
        elapsed = time.monotonic() - started
    finally:
        go.unlink(missing_ok=True)
        for p in procs:
            if p.poll() is None:
                p.kill()
    bodies = check_chain(url)
    expected = {f"x + {1_000_000 * (w + 1) + i}" for w in range(PROCESSES) for i in range(APPLIES)}
    assert len(bodies) == PROCESSES * APPLIES + 1
    assert set(bodies[1:]) == expected and bodies[0] == "x + 0"
    assert sorted(r["version"] for r in results) == list(range(2, PROCESSES * APPLIES + 2))
    conflicts = [r["conflicts"] for r in results]
    print(
        f"\ns3: {PROCESSES} processes x {APPLIES} applies: {len(bodies)} versions, none lost, "
        f"{elapsed:.1f}s; conflicts (lost races, re-merged) total {sum(conflicts)}, "
        f"max in one apply {max(conflicts)}"
    )
    assert sum(conflicts) > 0  # they did race


def test_a_store_that_ignores_conditional_writes_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    proc, port = _start("--ignore-conditional-writes")
    try:
        for key, value in _aws_env(port).items():
            monkeypatch.setenv(key, value)
        import s3fs

        s3fs.S3FileSystem.clear_instance_cache()  # instances of the other server's endpoint

        fs = s3fs.S3FileSystem(skip_instance_cache=True)
        fs.mkdir("plain")
        wh = Warehouse("s3://plain/wh")
        with pytest.raises(UnsupportedStorageError, match="does not honour conditional writes"):
            wh.apply(SQL, "trino")
        assert fs.find("plain") == []  # nothing written, the probe removed
        # under a SQL catalog its compare-and-swap decides commits: the store only holds files
        catalog = f"sqlite:///{tmp_path / 'catalog.db'}"
        with Warehouse("s3://plain/wh", catalog=catalog) as wh:
            wh.apply(SQL, "trino").raise_for_errors()
            assert wh.load("f").location.startswith("s3://plain/wh/default/f/metadata/00001-")
    finally:
        proc.kill()
        proc.wait(10)
