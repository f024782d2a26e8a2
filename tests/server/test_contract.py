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

from pathlib import Path

from tests.conftest import SHARED
from tests.server.helpers import TOKEN, build_warehouse, run_schemathesis, running_server
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
    operations = FUNCTION_OPERATIONS + NAMESPACE_OPERATIONS
    with running_server(warehouse, ServerSettings(token=TOKEN)) as url:
        result = run_schemathesis(SPEC, url, operations, config, 40, "reads")
    assert result["test_cases"]["generated"] >= 200, result["test_cases"]
