"""The REST client against the real server: byte-identical metadata, listing, auth, refusals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.helpers import TOKEN, build_warehouse, running_server
from translator.server import ServerSettings
from translator.warehouse import FunctionNotFoundError, FunctionRef, Warehouse, WarehouseError
from translator.warehouse.errors import UnsupportedStorageError
from translator.warehouse.rest import TOKEN_ENV, RestCatalogClient, RestCommitter, raw_member


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return build_warehouse(tmp_path_factory.mktemp("served"))


@pytest.fixture(scope="module")
def url(warehouse: Warehouse) -> Iterator[str]:
    with running_server(warehouse, ServerSettings(token=TOKEN)) as base:
        yield base


def _client(url: str, token: str | None = TOKEN, path: str = "/udf") -> RestCatalogClient:
    return RestCatalogClient("rest+" + url + path, token=token)


def test_round_trip_gives_every_file_byte_for_byte(url: str, warehouse: Warehouse) -> None:
    client = _client(url)
    refs = client.functions()
    assert [str(r) for r in refs] == [
        "accounting.add_one",
        "accounting.tax.add_one",
        "accounting.tax.mask",
    ]
    for ref in refs:
        loaded = client.load_function(ref)
        current = warehouse.load(ref)
        assert loaded.metadata_location == current.location
        assert loaded.text.encode() == Path(current.location).read_bytes()
        assert loaded.metadata.model_dump() == current.metadata.model_dump()


def test_the_prefix_comes_from_the_config_when_the_address_has_none(url: str) -> None:
    client = _client(url, path="")
    assert client.prefix == "udf"
    assert client.list_functions(["accounting"]) == ["add_one"]


def test_listing_follows_page_tokens(url: str, warehouse: Warehouse, tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    sql = "".join(
        f"CREATE FUNCTION f{i:03d}(x integer) RETURNS integer RETURN x + {i};" for i in range(230)
    )
    wh.apply(sql, dialect="trino", namespace="many").raise_for_errors()
    with running_server(wh, ServerSettings(token="")) as base:
        client = _client(base, token="")
        assert client.list_functions(["many"]) == [f"f{i:03d}" for i in range(230)]


def test_missing_function_and_bad_token(url: str) -> None:
    with pytest.raises(FunctionNotFoundError, match=r"accounting\.nope does not exist"):
        _client(url).load_function(FunctionRef("accounting", "nope"))
    for token in ("", "wrong-token"):
        with pytest.raises(WarehouseError, match=f"not authorized.*{TOKEN_ENV}") as e:
            _client(url, token=token).functions()
        assert "wrong-token" not in str(e.value)


def test_the_token_comes_from_the_environment_and_is_never_shown(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    client = RestCatalogClient("rest+" + url + "/udf")
    assert client.list_functions(["accounting", "tax"]) == ["add_one", "mask"]
    assert TOKEN not in repr(client)
    with pytest.raises(FunctionNotFoundError) as e:
        client.load_function(FunctionRef("accounting", "nope"))
    assert TOKEN not in str(e.value)


def test_unreachable_catalog_is_a_clear_error() -> None:
    client = RestCatalogClient("rest+http://127.0.0.1:9/udf", token="", timeout_s=2)
    with pytest.raises(WarehouseError, match="cannot reach the catalog"):
        client.functions()


def test_writes_are_refused_with_the_reason(url: str) -> None:
    committer = RestCommitter(_client(url))
    base = committer.base(FunctionRef("accounting", "add_one"))
    assert base is not None and base.version == 2
    with pytest.raises(UnsupportedStorageError, match="advertises no function writes"):
        committer.commit(base.ref, base, base.metadata)
    with pytest.raises(UnsupportedStorageError, match="cannot drop"):
        committer.drop(base.ref, base)
    assert committer.base(FunctionRef("accounting", "nope")) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "metadata": {"x": [1, {"}": "]"}]}\n}', ' {"x": [1, {"}": "]"}]}\n'),
        ('{"metadata":{}}', "{}"),
        ('{"metadata-location": "m", "b": "metadata"}', None),
        ('{"b": "\\"metadata\\"", "metadata": "s"}', ' "s"'),
    ],
)
def test_raw_member_is_the_exact_text(text: str, expected: str | None) -> None:
    assert raw_member(text, "metadata") == expected
