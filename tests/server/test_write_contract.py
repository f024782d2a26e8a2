"""The write endpoints against our reading of apache/iceberg PR #17966, by schemathesis.

``translator/server/functions-write-draft.yaml`` is an overlay on the official document (as the
PR is a patch to it): merged here, it is the contract ``st run`` checks createFunction,
dropFunction and functionExists against, on a real uvicorn serving a warehouse with writes
allowed, every check on. 0 failures and 0 errors; the figures go to the README.

One expectation is widened, for createFunction only: ``positive_data_acceptance`` takes a 400
as well. The schema cannot say what makes a request valid metadata (the type grammar of a type
string, a body that is one expression in its dialect, two definitions with the same parameter
types), so a schema-valid request may still be refused, with its reason; the examples phase's
request (the draft's own example) must be accepted, and the test checks that it created a
function.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import SHARED
from tests.server.helpers import TOKEN, build_warehouse, run_schemathesis, running_server
from translator.server import WRITE_ENDPOINTS, ServerSettings
from translator.server.app import ENDPOINTS
from translator.warehouse import FunctionRef

SPEC = SHARED / "conformance" / "rest-catalog-open-api.yaml"
DRAFT = Path(__file__).resolve().parents[2] / "translator" / "server" / "functions-write-draft.yaml"
WRITE_OPERATIONS = ("createFunction", "dropFunction", "functionExists")
CONFIG = """
[parameters]
"path.prefix" = "udf"

[[operations]]
include-operation-id = ["createFunction"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409"]
"""


def merged_spec() -> dict[str, Any]:
    """The official document with the draft's operations and components added."""
    spec = yaml.safe_load(SPEC.read_text())
    draft = yaml.safe_load(DRAFT.read_text())
    for path, operations in draft["paths"].items():
        assert not set(operations) & set(spec["paths"][path]), "the draft only adds operations"
        spec["paths"][path].update(operations)
    for kind, members in draft["components"].items():
        assert not set(members) & set(spec["components"][kind]), "the draft only adds names"
        spec["components"][kind].update(members)
    return dict(spec)


def test_the_draft_names_the_endpoints_the_code_uses() -> None:
    draft = yaml.safe_load(DRAFT.read_text())
    served = {
        *WRITE_ENDPOINTS,
        *(e for e in ENDPOINTS if e.startswith("HEAD") and "{function}" in e),
    }
    assert set(draft["x-config-endpoints"]) == served


def test_schemathesis_finds_no_failure_in_the_writes(tmp_path: Path) -> None:
    warehouse = build_warehouse(tmp_path / "wh")
    spec = tmp_path / "rest-catalog-with-function-writes.json"
    spec.write_text(json.dumps(merged_spec()))
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    with running_server(warehouse, ServerSettings(token=TOKEN, allow_writes=True)) as url:
        run_schemathesis(spec, url, WRITE_OPERATIONS, config, 15, "writes")
    # The draft's example request was accepted: the function is there, as the server made it.
    made = warehouse.load(FunctionRef("accounting", "add_two")).metadata
    assert made.doc == "Adds two (our example, not the PR's)"
    assert [v.version_id for v in made.definitions[0].versions] == [1]
