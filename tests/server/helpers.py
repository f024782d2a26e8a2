"""A real uvicorn on a free loopback port, serving a warehouse, the warehouse it serves, and
schemathesis run against it."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from translator.server import ServerSettings, create_app
from translator.warehouse import Warehouse
from translator.warehouse.layout import derived_file_uuid, metadata_path

ROOT = Path(__file__).resolve().parents[2]
ADD_ONE = (ROOT / "fixtures" / "examples" / "add_one.sql").read_text()
TOKEN = "test-token-not-a-secret"

#: A function this tool did not write: a secure one, with fields no version of the spec has.
SECURE_DOC = {
    "function-uuid": "6d1f1e1c-8a55-4f0e-9c3a-2d6f3d1c0b7a",
    "format-version": 1,
    "definitions": [
        {
            "definition-id": "string",
            "parameters": [{"name": "s", "type": "string"}],
            "return-type": "string",
            "versions": [
                {
                    "version-id": 1,
                    "representations": [{"type": "sql", "dialect": "spark", "sql": "upper(s)"}],
                    "timestamp-ms": 1734507000000,
                    "x-future-version-field": [1, 2],
                }
            ],
            "current-version-id": 1,
            "function-type": "udf",
        }
    ],
    "definition-log": [
        {
            "timestamp-ms": 1734507000000,
            "definition-versions": [{"definition-id": "string", "version-id": 1}],
        }
    ],
    "secure": True,
    "x-vendor": {"owner": "someone else", "nested": {"n": 1.50}},
}


def build_warehouse(root: Path) -> Warehouse:
    """``accounting.add_one`` and ``accounting.tax.add_one`` (the spec's example names),
    ``accounting.tax.mask`` written by hand (secure, unknown fields, its own formatting)."""
    wh = Warehouse(root)
    wh.apply(ADD_ONE, dialect="trino", namespace="accounting").raise_for_errors()
    wh.apply(ADD_ONE, dialect="trino", namespace="accounting.tax").raise_for_errors()
    wh.apply(
        ADD_ONE.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION").replace("x + 1", "x + 2"),
        dialect="trino",
        namespace="accounting",
    ).raise_for_errors()
    from translator.warehouse import FunctionRef

    ref = FunctionRef("accounting.tax", "mask")
    target = root / metadata_path(ref, 1, derived_file_uuid(ref, 1))
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(SECURE_DOC, indent=4) + "\n")
    return wh


@contextlib.contextmanager
def running_server(warehouse: Warehouse, settings: ServerSettings | None = None) -> Iterator[str]:
    """Serve ``warehouse`` with uvicorn in a thread; yields the base URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(warehouse, settings), log_level="error", lifespan="off", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def run_schemathesis(
    spec: Path, url: str, operations: Sequence[str], config: Path, max_examples: int, label: str
) -> dict[str, Any]:
    """``st run`` (every phase, every check but what ``config`` turns off) on ``operations`` of
    ``spec`` at ``url``, with the bearer token; its JSON report, once it shows exactly
    ``operations`` tested, 0 failures, 0 errors and every phase passed. The figures are
    printed (``label``) for the README."""
    report = config.parent / f"{label}-report.json"
    command = [
        str(Path(sys.executable).parent / "st"),
        "--config-file",
        str(config),
        "run",
        str(spec),
        "--url",
        url,
        *[a for op in operations for a in ("--include-operation-id", op)],
        "--header",
        f"Authorization: Bearer {TOKEN}",
        "--max-examples",
        str(max_examples),
        "--seed",
        "20261123",
        "--workers",
        "1",
        "--report",
        "json",
        "--report-json-path",
        str(report),
    ]
    run = subprocess.run(
        command, capture_output=True, text=True, timeout=600, cwd=config.parent, check=False
    )
    assert report.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    result: dict[str, Any] = json.loads(report.read_text())
    tested = sorted(result["valid_rates"])
    summary = (
        f"{len(tested)} operations, {result['test_cases']['generated']} cases, "
        f"{result['test_cases']['with_failures']} failures, {len(result['errors'])} errors"
    )
    print(f"schemathesis ({label}): {summary}")
    assert run.returncode == 0, summary + "\n" + run.stdout[-6000:]
    assert result["failures"] == [] and result["errors"] == [], summary
    assert len(tested) == len(operations), tested
    for phase in ("examples", "coverage", "fuzzing"):
        assert result["phases"][phase]["status"] == "success", phase
    return result
