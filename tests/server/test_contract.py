"""The server against the official Iceberg REST catalog OpenAPI document, by schemathesis.

``st run``, schemathesis's own runner (its examples, coverage and fuzzing phases, positive and
negative data, and every check: schemathesis enables all of them unless told otherwise), is
pointed at a real uvicorn serving a warehouse, for the operations the server implements. The
warehouse uses the spec's own example names (``accounting``, ``accounting%1Ftax``,
``add_one``), so the examples phase reaches real functions, and holds a secure function with
unknown fields. 0 failures and 0 errors are required; the figures go to the README.

``allow_header_conformance`` is off for the two namespace paths only: the spec documents
``POST /namespaces`` and ``DELETE /namespaces/{namespace}`` there, and the check wants ``Allow``
to list them, but a read-only function catalog serves neither (it answers them 405 with an
``Allow`` header that says what it does serve). The function endpoints and ``/v1/config`` run
every check.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import SHARED
from tests.server.helpers import TOKEN, build_warehouse, running_server
from translator.server import ServerSettings

SPEC = SHARED / "conformance" / "rest-catalog-open-api.yaml"
FUNCTION_OPERATIONS = ("getConfig", "listFunctions", "loadFunction")
NAMESPACE_OPERATIONS = ("listNamespaces", "loadNamespaceMetadata", "namespaceExists")
CONFIG = """
[parameters]
"path.prefix" = "udf"

[[operations]]
include-operation-id = [{namespace_ops}]
checks.allow_header_conformance.enabled = false
"""


def test_schemathesis_finds_no_failure(tmp_path: Path) -> None:
    warehouse = build_warehouse(tmp_path / "wh")
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        CONFIG.format(namespace_ops=", ".join(f'"{o}"' for o in NAMESPACE_OPERATIONS))
    )
    report = tmp_path / "report.json"
    with running_server(warehouse, ServerSettings(token=TOKEN)) as url:
        command = [
            str(Path(sys.executable).parent / "st"),
            "--config-file",
            str(config),
            "run",
            str(SPEC),
            "--url",
            url,
            *[
                a
                for op in FUNCTION_OPERATIONS + NAMESPACE_OPERATIONS
                for a in ("--include-operation-id", op)
            ],
            "--header",
            f"Authorization: Bearer {TOKEN}",
            "--max-examples",
            "40",
            "--seed",
            "20261123",
            "--workers",
            "1",
            "--report",
            "json",
            "--report-json-path",
            str(report),
        ]
        run = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert report.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(report.read_text())
    tested = sorted(result["valid_rates"])
    summary = (
        f"{len(tested)} operations, {result['test_cases']['generated']} cases, "
        f"{result['test_cases']['with_failures']} failures, {len(result['errors'])} errors"
    )
    print(f"schemathesis: {summary}")
    assert run.returncode == 0, summary + "\n" + run.stdout[-6000:]
    assert result["failures"] == [] and result["errors"] == [], summary
    assert len(tested) == 6, tested
    assert result["test_cases"]["generated"] >= 200, summary
    assert result["phases"]["examples"]["status"] == "success"
    assert result["phases"]["coverage"]["status"] == "success"
    assert result["phases"]["fuzzing"]["status"] == "success"
