"""``iceberg-udf serve`` in its own process, and the reading commands pointed at it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.cli.test_cli import run
from tests.conftest import ROOT
from tests.server.helpers import TOKEN, build_warehouse
from translator.warehouse.rest import TOKEN_ENV

SERVE_TOKEN_ENV = "ICEBERG_UDF_SERVE_TOKEN"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """(the warehouse folder, its rest+http address) while ``iceberg-udf serve`` runs."""
    root = tmp_path_factory.mktemp("served")
    build_warehouse(root)
    env = {**os.environ, SERVE_TOKEN_ENV: TOKEN, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "translator.cli", "serve", "--warehouse", str(root)]
    proc = subprocess.Popen(
        [*command, "--port", "0", "--prefix", "fns"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.startswith(f"serving {root} at http://127.0.0.1:"), line
    url = line.split(" at ")[1].split("/v1/")[0]
    try:
        yield root, f"rest+{url}/fns"
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) in (0, 130)
        assert TOKEN not in proc.stderr.read()


def test_serve_answers_over_http(served: tuple[Path, str]) -> None:
    _, address = served
    base = address.removeprefix("rest+").removesuffix("/fns")
    r = httpx.get(f"{base}/v1/config", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.json()["overrides"] == {"prefix": "fns"}
    assert httpx.get(f"{base}/v1/config").status_code == 401


def test_reading_commands_work_against_the_server_as_on_the_folder(
    served: tuple[Path, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, address = served
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    for argv in (
        ("show", "accounting.add_one"),
        ("show", "accounting.add_one", "--version", "1"),
        ("history", "accounting.add_one", "--json"),
        ("emit", "accounting.add_one", "--dialect", "spark", "--log-entry", "1"),
    ):
        here = run(capsys, *argv, "--warehouse", str(root))
        there = run(capsys, *argv, "--warehouse", address)
        assert here[0] == there[0] == 0, there
        # the folder names its files relative to itself; the catalog gives metadata-location
        assert there[1].replace(f"{root}/", "") == here[1], argv
    code, out, err = run(capsys, "list", "--warehouse", address)
    assert code == 0, err
    assert [line.split()[:2] for line in out.splitlines()[1:]] == [
        ["accounting.add_one", "2"],
        ["accounting.tax.add_one", "2"],
        ["accounting.tax.mask", "1"],
    ]
    assert str(root) in out  # the metadata files, as the catalog names them


def test_writes_and_file_options_are_refused_with_the_reason(
    served: tuple[Path, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, address = served
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    sql = ROOT / "fixtures" / "examples" / "add_one.sql"
    code, _, err = run(capsys, "apply", "--warehouse", address, "--dialect", "trino", str(sql))
    assert code == 1 and "cannot create default.add_one in this REST catalog" in err
    assert "advertises no function writes" in err and "nothing committed" in err
    code, _, err = run(capsys, "drop", "--warehouse", address, "accounting.add_one")
    assert code == 1 and "cannot drop accounting.add_one" in err
    code, _, err = run(
        capsys, "show", "--warehouse", address, "accounting.add_one", "--function-uuid", "x"
    )
    assert code == 1 and "a REST catalog says which metadata is current" in err
    monkeypatch.setenv(TOKEN_ENV, "wrong")
    code, _, err = run(capsys, "list", "--warehouse", address)
    assert code == 1 and "not authorized (401)" in err and "wrong" not in err


def test_migrate_is_refused_and_its_dry_run_plans(
    served: tuple[Path, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, address = served
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    src = str(ROOT / "fixtures" / "migrations" / "spark_legacy")
    code, _, err = run(capsys, "migrate", "--dialect", "spark", src, "--warehouse", address)
    assert code == 1 and "cannot migrate in this REST catalog" in err
    code, out, err = run(
        capsys, "migrate", "--dialect", "spark", src, "--warehouse", address, "--dry-run"
    )
    assert "Dry run of the migration" in out + err, out + err
