"""The REST server over HTTP: a real uvicorn on 127.0.0.1, spoken to with httpx."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server.helpers import TOKEN, build_warehouse, running_server
from translator.server import ServerSettings
from translator.warehouse import FunctionRef, Warehouse
from translator.warehouse.rest import raw_member

AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return build_warehouse(tmp_path_factory.mktemp("served"))


@pytest.fixture(scope="module")
def url(warehouse: Warehouse) -> Iterator[str]:
    with running_server(warehouse, ServerSettings(token=TOKEN)) as base:
        yield base


@pytest.fixture(scope="module")
def http(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, headers=AUTH) as client:
        yield client


def _error(r: httpx.Response, code: int, kind: str) -> None:
    assert r.status_code == code, r.text
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert body["error"]["type"] == kind
    assert body["error"]["message"]


def test_config_advertises_the_function_endpoints_and_the_prefix(http: httpx.Client) -> None:
    r = http.get("/v1/config")
    assert r.status_code == 200
    body = r.json()
    assert body["overrides"] == {"prefix": "udf"}
    assert body["defaults"] == {}
    assert "GET /v1/{prefix}/namespaces/{namespace}/functions" in body["endpoints"]
    assert "GET /v1/{prefix}/namespaces/{namespace}/functions/{function}" in body["endpoints"]
    assert not any(e.startswith(("POST", "DELETE")) for e in body["endpoints"])
    _error(http.get("/v1/config", params={"warehouse": "other"}), 404, "NoSuchWarehouseException")


def test_namespaces_are_listed_level_by_level(http: httpx.Client) -> None:
    assert http.get("/v1/udf/namespaces").json() == {"namespaces": [["accounting"]]}
    r = http.get("/v1/udf/namespaces", params={"parent": "accounting"})
    assert r.json() == {"namespaces": [["accounting", "tax"]]}
    r = http.get("/v1/udf/namespaces", params={"parent": "accounting\x1ftax"})
    assert r.json() == {"namespaces": []}
    assert http.get("/v1/udf/namespaces/accounting%1Ftax").json() == {
        "namespace": ["accounting", "tax"],
        "properties": {},
    }
    assert http.head("/v1/udf/namespaces/accounting").status_code == 204
    assert http.head("/v1/udf/namespaces/nope").status_code == 404
    _error(
        http.get("/v1/udf/namespaces", params={"parent": "nope"}), 404, "NoSuchNamespaceException"
    )


def test_functions_are_listed_as_identifiers_and_paged(http: httpx.Client) -> None:
    r = http.get("/v1/udf/namespaces/accounting%1Ftax/functions")
    assert r.json() == {
        "identifiers": [["accounting", "tax", "add_one"], ["accounting", "tax", "mask"]]
    }
    first = http.get(
        "/v1/udf/namespaces/accounting%1Ftax/functions", params={"pageToken": "", "pageSize": 1}
    ).json()
    assert first["identifiers"] == [["accounting", "tax", "add_one"]]
    second = http.get(
        "/v1/udf/namespaces/accounting%1Ftax/functions",
        params={"pageToken": first["next-page-token"], "pageSize": 1},
    ).json()
    assert second == {"identifiers": [["accounting", "tax", "mask"]]}  # last page: no token
    path = "/v1/udf/namespaces/accounting/functions"
    _error(http.get(path, params={"pageSize": 0}), 400, "BadRequestException")
    _error(http.get(path, params={"pageSize": "x"}), 400, "BadRequestException")
    # a token is where the next page starts: any string pages on from there
    r = http.get("/v1/udf/namespaces/accounting%1Ftax/functions", params={"pageToken": "b"})
    assert r.json() == {"identifiers": [["accounting", "tax", "mask"]]}


def test_load_function_sends_the_current_file_byte_for_byte(
    http: httpx.Client, warehouse: Warehouse
) -> None:
    for ref in (FunctionRef("accounting", "add_one"), FunctionRef("accounting.tax", "mask")):
        current = warehouse.load(ref)
        ns = "%1F".join(ref.namespace.split("."))
        r = http.get(f"/v1/udf/namespaces/{ns}/functions/{ref.name}")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "application/json"
        body = r.json()
        assert body["metadata-location"] == current.location
        written = Path(current.location).read_text()
        assert raw_member(r.text, "metadata") == written
    # the second apply made add_one's file 2 current; its unknown fields and layout survive
    assert current.version == 1
    assert body["metadata"]["x-vendor"] == {"owner": "someone else", "nested": {"n": 1.5}}


def test_missing_things_are_the_specs_404s(http: httpx.Client) -> None:
    base = "/v1/udf/namespaces"
    _error(http.get(f"{base}/nope/functions"), 404, "NoSuchNamespaceException")
    _error(http.get(f"{base}/nope/functions/add_one"), 404, "NoSuchNamespaceException")
    _error(http.get(f"{base}/accounting/functions/nope"), 404, "NoSuchFunctionException")
    _error(http.get(f"{base}/accounting/functions/..%2F..%2Fetc"), 404, "NoSuchResourceException")
    _error(http.get(f"{base}/accounting/functions/.dropped"), 404, "NoSuchFunctionException")
    # ["accounting.tax"] is not ["accounting", "tax"]: no aliasing through the folder name
    _error(http.get(f"{base}/accounting.tax/functions"), 404, "NoSuchNamespaceException")
    _error(http.get("/v1/other/namespaces/accounting/functions"), 404, "NoSuchWarehouseException")


def test_every_route_needs_the_token(url: str) -> None:
    for path in ("/v1/config", "/v1/udf/namespaces/accounting/functions/add_one"):
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            r = httpx.get(url + path, headers=headers)
            _error(r, 401, "NotAuthorizedException")
            assert r.headers["www-authenticate"] == "Bearer"
            assert TOKEN not in r.text


def test_an_open_server_refuses_secure_functions(warehouse: Warehouse) -> None:
    with running_server(warehouse, ServerSettings(token="")) as base:
        r = httpx.get(base + "/v1/udf/namespaces/accounting%1Ftax/functions/mask")
        _error(r, 403, "ForbiddenException")
        assert "secure" in r.json()["error"]["message"]
        assert (
            httpx.get(base + "/v1/udf/namespaces/accounting/functions/add_one").status_code == 200
        )
        names = httpx.get(base + "/v1/udf/namespaces/accounting%1Ftax/functions").json()
        assert ["accounting", "tax", "mask"] in names["identifiers"]


def test_a_new_commit_is_served_at_once(tmp_path: Path) -> None:
    wh = build_warehouse(tmp_path)
    with running_server(wh, ServerSettings(token=TOKEN)) as base:
        path = base + "/v1/udf/namespaces/accounting/functions/add_one"
        before = httpx.get(path, headers=AUTH).json()
        wh.apply(
            "CREATE FUNCTION add_one(x varchar) RETURNS varchar RETURN x",
            dialect="trino",
            namespace="accounting",
        ).raise_for_errors()
        after = httpx.get(path, headers=AUTH).json()
        assert (
            len(
                after["definitions"] if "definitions" in after else after["metadata"]["definitions"]
            )
            == len(before["metadata"]["definitions"]) + 1
        )
        assert after["metadata-location"].endswith(".metadata.json")
        assert after["metadata-location"] != before["metadata-location"]
        assert json.loads(Path(after["metadata-location"]).read_text()) == after["metadata"]
