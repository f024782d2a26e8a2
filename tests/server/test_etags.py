"""Entity tags on loadFunction, ``If-None-Match`` (304) and ``If-Match`` on dropFunction, against
a real uvicorn serving a warehouse; and the client's drop, which sends the tag of the read it
decided on, so that it never removes what another writer made since (a lost update)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.helpers import TOKEN, build_warehouse, running_server
from tests.server.test_rest_writes import WRITES, _client, _error, _request
from translator.server.etags import entity_tag, matches, parse_tags
from translator.warehouse import FunctionChangedError, FunctionRef, Warehouse
from translator.warehouse.rest import TOKEN_ENV, RestCatalogClient


@pytest.fixture(autouse=True)
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[str, Warehouse]]:
    """A served warehouse (at ``tmp_path / "wh"``) and its address."""
    warehouse = build_warehouse(tmp_path / "wh")
    with running_server(warehouse, WRITES) as url:
        yield url, warehouse


def test_tags_name_a_files_bytes_at_its_location_and_headers_parse_as_rfc_9110_says() -> None:
    tag = entity_tag("file:/wh/a/f/metadata/00001-x.metadata.json", b"{}")
    assert tag.startswith('"') and tag.endswith('"') and len(tag) == 42
    assert entity_tag("file:/wh/a/f/metadata/00001-x.metadata.json", b"{ }") != tag
    assert entity_tag("file:/wh/a/g/metadata/00001-x.metadata.json", b"{}") != tag
    assert parse_tags(None) is None
    assert parse_tags('"a", W/"b" ,"c"') == ['"a"', 'W/"b"', '"c"']
    assert parse_tags(" * ") == ["*"]
    for bad in ("", "a", '"a" "b"', '"a",,"b"', '"a', 'W/ "a"', '"a"\x00'):
        with pytest.raises(ValueError, match="entity tags"):
            parse_tags(bad)
    assert matches(['"x"', '"a"'], '"a"', weak=False)
    assert matches(["*"], '"a"', weak=False)
    assert not matches(['W/"a"'], '"a"', weak=False)  # If-Match compares strongly
    assert matches(['W/"a"'], '"a"', weak=True)  # If-None-Match weakly


def test_load_answers_the_tag_and_a_client_holding_it_gets_304(
    served: tuple[str, Warehouse],
) -> None:
    url, _ = served
    with _client(url) as http:
        loaded = http.get("/accounting/functions/add_one")
        tag = loaded.headers["etag"]
        assert loaded.status_code == 200 and tag.startswith('"')
        again = http.get("/accounting/functions/add_one", headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
        weak = http.get("/accounting/functions/add_one", headers={"If-None-Match": f"W/{tag}"})
        assert weak.status_code == 304
        other = http.get("/accounting/functions/add_one", headers={"If-None-Match": '"old"'})
        assert other.status_code == 200 and other.content == loaded.content
        bad = http.get("/accounting/functions/add_one", headers={"If-None-Match": "nope"})
        assert _error(bad) == (400, "BadRequestException") and "If-None-Match" in bad.text
        # Preconditions are ignored where the answer without them would be an error (RFC 9110).
        gone = http.get("/accounting/functions/nothing", headers={"If-None-Match": "*"})
        assert _error(gone) == (404, "NoSuchFunctionException")
        created = http.post("/accounting/functions", json=_request("tagged"))
        assert created.status_code == 200
        assert created.headers["etag"] == http.get("/accounting/functions/tagged").headers["etag"]


def test_a_drop_with_if_match_drops_only_the_function_that_was_read(
    served: tuple[str, Warehouse], tmp_path: Path
) -> None:
    url, warehouse = served
    ref = FunctionRef("accounting", "raced")
    with _client(url) as http:
        read = http.post("/accounting/functions", json=_request("raced", "x + 2"))
        tag = read.headers["etag"]
        # Another writer replaces it: same name, same file name (version 1), other bytes.
        assert http.delete("/accounting/functions/raced").status_code == 204
        assert http.post("/accounting/functions", json=_request("raced", "x + 3")).is_success
        stale = http.delete("/accounting/functions/raced", headers={"If-Match": tag})
        assert _error(stale) == (412, "CommitFailedException")
        assert "changed since it was read" in stale.text and str(tmp_path) not in stale.text
        kept = warehouse.load(ref).metadata.definitions[0].current_version
        assert kept.representations[0].sql == "x + 3"  # nothing was dropped
        bad = http.delete("/accounting/functions/raced", headers={"If-Match": "raced"})
        assert _error(bad) == (400, "BadRequestException")
        current = http.get("/accounting/functions/raced").headers["etag"]
        both = f'"stale", {current}'
        assert http.delete("/accounting/functions/raced", headers={"If-Match": both}).status_code
        assert not RestCatalogClient(f"rest+{url}/udf").function_exists(ref)
        missing = http.delete("/accounting/functions/raced", headers={"If-Match": "*"})
        assert _error(missing) == (404, "NoSuchFunctionException")
        assert http.post("/accounting/functions", json=_request("any_one")).is_success
        assert http.delete("/accounting/functions/any_one", headers={"If-Match": "*"}).is_success


def test_the_client_sends_the_tag_of_its_read_and_a_stale_drop_is_refused(
    served: tuple[str, Warehouse],
) -> None:
    url, _ = served
    client = RestCatalogClient(f"rest+{url}/udf")
    ref = FunctionRef("accounting", "add_one")
    loaded = client.load_function(ref)
    assert loaded.etag is not None
    with _client(url) as http:  # another writer: drop and create it again, other bytes
        assert http.delete("/accounting/functions/add_one").is_success
        assert http.post("/accounting/functions", json=_request("add_one", "x + 9")).is_success
    with pytest.raises(FunctionChangedError, match="changed since it was read"):
        client.drop_function(ref, if_match=loaded.etag)
    assert client.function_exists(ref)
    client.drop_function(ref, if_match=client.load_function(ref).etag)
    assert not client.function_exists(ref)


def test_a_replace_through_rest_merges_again_when_another_writer_changed_the_function_first(
    served: tuple[str, Warehouse], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``replace_discarding_history`` drops and creates: a function another writer changed
    between the apply's read and its drop (here: an overload added) is not dropped on the old
    read (412); the apply reads it again, merges into it, and keeps the other writer's overload."""
    url, warehouse = served
    remote = Warehouse(f"rest+{url}/udf", namespace="accounting")
    remote.apply("CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1", "spark").raise_for_errors()
    assert remote.rest is not None
    client, real_drop = remote.rest, remote.rest.drop_function
    other = Warehouse(tmp_path / "wh", namespace="accounting")  # the served folder
    raced: list[str | None] = []

    def drop(ref: FunctionRef, *, if_match: str | None = None) -> None:
        if not raced:  # the other writer commits first, once
            overload = "CREATE FUNCTION f(s STRING) RETURNS STRING RETURN upper(s)"
            other.apply(overload, "spark").raise_for_errors()
        raced.append(if_match)
        real_drop(ref, if_match=if_match)

    monkeypatch.setattr(client, "drop_function", drop)
    replace = "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 2"
    result = remote.apply(replace, "spark", replace_discarding_history=True)
    assert result.ok, result.errors
    assert result.conflicts == 1 and len(raced) == 2 and None not in raced
    now = warehouse.load(FunctionRef("accounting", "f")).metadata
    bodies = sorted(d.current_version.representations[0].sql for d in now.definitions)
    assert bodies == ["upper(s)", "x + 2"]


def test_a_library_drop_can_require_the_version_it_read(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path)
    warehouse.apply("CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1", "spark", namespace="a")
    seen = warehouse.load("a.f")
    warehouse.apply(
        "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 2", "spark", namespace="a"
    ).raise_for_errors()
    with pytest.raises(FunctionChangedError, match=r"a\.f changed since it was read"):
        warehouse.drop("a.f", only_if=lambda current: current.location == seen.location)
    assert warehouse.load("a.f").metadata.definitions[0].current_version.version_id == 2
    now = warehouse.load("a.f")
    dropped = warehouse.drop("a.f", only_if=lambda current: current.location == now.location)
    assert dropped.moved_to is not None
