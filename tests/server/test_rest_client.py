"""The REST client against the real server: byte-identical metadata, listing, auth, refusals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.helpers import TOKEN, build_warehouse, running_server
from translator.server import ServerSettings
from translator.warehouse import (
    FunctionNotFoundError,
    FunctionRef,
    ResolveOptions,
    Warehouse,
    WarehouseError,
)
from translator.warehouse.errors import UnsupportedStorageError
from translator.warehouse.rest import TOKEN_ENV, RestCatalogClient, raw_member
from translator.warehouse.rest_commit import RestCommitter


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


def test_a_nested_namespace_without_a_parent_folder(tmp_path: Path) -> None:
    """Only the folder ``a.b`` exists: its parent ``["a"]`` is a namespace all the same (listed
    by the server, with no functions), so a client walking the namespaces finds ``a.b.f``."""
    wh = Warehouse(tmp_path)
    sql = "CREATE FUNCTION f(x integer) RETURNS integer RETURN x + 1;"
    wh.apply(sql, dialect="trino", namespace="a.b").raise_for_errors()
    assert not (tmp_path / "a").exists()
    with running_server(wh, ServerSettings(token="")) as base:
        client = _client(base, token="")
        assert [str(r) for r in client.functions()] == ["a.b.f"]
        assert client.list_functions(["a"]) == []
        assert client.list_functions(["a", "b"]) == ["f"]


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


def test_a_warehouse_at_a_rest_address_reads_as_a_folder_does(
    url: str, warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    remote = Warehouse(f"rest+{url}/udf")
    here = [(str(i.ref), i.definitions) for i in warehouse.functions()]
    assert [(str(i.ref), i.definitions) for i in remote.functions()] == here
    for name in (FunctionRef("accounting", "add_one"), FunctionRef("accounting.tax", "mask")):
        assert remote.show(name) == (
            {**warehouse.show(name)[0], "metadata-file": remote.load(name).path},
            [],
        )
        assert remote.history(name)[1] == warehouse.history(name)[1]
    first = warehouse.load("accounting.add_one").metadata.definition_log[0].timestamp_ms
    ddl = remote.emit("accounting.add_one", "spark", as_of=first).ddl
    assert ddl == warehouse.emit("accounting.add_one", "spark", as_of=first).ddl
    assert "x + 1" in ddl[0]
    plan = remote.apply(
        "CREATE OR REPLACE FUNCTION add_one(x integer) RETURNS integer RETURN x + 3",
        dialect="trino",
        namespace="accounting",
        dry_run=True,
    )
    assert [(c.action, c.version_id) for c in plan.changes] == [("new-version", 3)]
    refused = remote.apply("CREATE FUNCTION g() RETURNS integer RETURN 1", dialect="trino")
    assert [type(e) for e in refused.errors] == [UnsupportedStorageError]
    assert "cannot create default.g" in refused.errors[0].message
    assert "advertises no function writes" in refused.errors[0].message
    for write in (
        lambda: remote.rollback("accounting.add_one", log_entry=1),
        lambda: remote.drop("accounting.add_one"),
    ):
        with pytest.raises(UnsupportedStorageError, match="advertises no function writes"):
            write()
    with pytest.raises(WarehouseError, match="a REST catalog says which metadata is current"):
        remote.load(
            "accounting.add_one", resolve=ResolveOptions(metadata_file="00001.metadata.json")
        )
