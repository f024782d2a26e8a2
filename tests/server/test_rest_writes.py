"""apply, migrate and drop into a REST catalog that advertises function writes (our reading of
apache/iceberg PR #17966), against a real uvicorn serving a warehouse.

What a folder apply writes and what the catalog holds after the same DDL through REST are the
same document but for what the catalog assigns (location, definition-log, timestamps: both
warehouses share one fixed clock and uuid source, and a folder's timestamps step by 1 ms per
statement); a re-deploy writes nothing; a change is refused unless history may be discarded;
drop is dropFunction; and the HTTP answers for 400/401/404/405/409.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cli.test_cli import run
from tests.conftest import ROOT
from tests.server.helpers import ADD_ONE, SECURE_DOC, TOKEN, build_warehouse, running_server
from translator.compile import Context
from translator.metadata import load_metadata
from translator.migrate import migrate_directory
from translator.server import ServerSettings, create_app
from translator.server.app import MAX_BODY
from translator.warehouse import FunctionNotFoundError, FunctionRef, Warehouse
from translator.warehouse.errors import HistoryWouldBeLostError, UnsupportedStorageError
from translator.warehouse.rest import TOKEN_ENV, RestTransportError
from translator.warehouse.rest_commit import same_function

WRITES = ServerSettings(token=TOKEN, allow_writes=True)
SPARK_LEGACY = ROOT / "fixtures" / "migrations" / "spark_legacy"
CHANGED = ADD_ONE.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION").replace("+ 1", "+ 5")


def fixed_context() -> Context:
    ids = itertools.count(1)
    return Context(
        clock=lambda: 1_767_225_600_000,
        new_uuid=lambda: f"00000000-0000-4000-8000-{next(ids):012d}",
    )


def _doc(path: Path) -> dict[str, Any]:
    """A metadata file without what a REST catalog assigns differently from a folder (a folder
    keeps timestamps increasing from one statement to the next; a create has one time)."""
    doc = json.loads(path.read_text())
    doc.pop("location")
    doc.pop("definition-log")
    for d in doc["definitions"]:
        for v in d["versions"]:
            v.pop("timestamp-ms")
    return dict(doc)


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.metadata.json"))


@pytest.fixture(autouse=True)
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)


def test_apply_creates_redeploys_refuses_replaces_and_drops(tmp_path: Path) -> None:
    served_root, folder_root = tmp_path / "served", tmp_path / "folder"
    (served_root / "sales").mkdir(parents=True)  # the namespace exists in the catalog
    served = Warehouse(served_root, context=fixed_context())
    folder = Warehouse(folder_root, context=fixed_context())
    ref = FunctionRef("sales", "add_one")
    with running_server(served, WRITES) as url:
        remote = Warehouse(f"rest+{url}/udf", context=fixed_context())
        first = remote.apply(ADD_ONE, "trino", namespace="sales").raise_for_errors()
        assert [c.action for c in first.changes] == ["created-function", "added-definition"]
        folder.apply(ADD_ONE, "trino", namespace="sales").raise_for_errors()
        [here] = _files(folder_root)
        [there] = _files(served_root)
        assert first.committed[0].path == str(served_root / there)
        assert _doc(served_root / there) == _doc(folder_root / here)
        # What the catalog assigned: one definition-log entry, both definitions at version 1.
        log = json.loads((served_root / there).read_text())["definition-log"]
        assert log == [
            {
                "timestamp-ms": 1_767_225_600_000,
                "definition-versions": [
                    {"definition-id": "int", "version-id": 1},
                    {"definition-id": "float", "version-id": 1},
                ],
            }
        ]
        # What the client reads back is the catalog's file, byte for byte.
        loaded = remote.rest.load_function(ref) if remote.rest else None
        assert loaded is not None and loaded.text == (served_root / there).read_text()

        again = remote.apply(ADD_ONE, "trino", namespace="sales")
        assert again.ok and not again.committed
        assert {c.action for c in again.changes} == {"unchanged"}
        assert _files(served_root) == [there]

        refused = remote.apply(CHANGED, "trino", namespace="sales")
        assert [type(e) for e in refused.errors] == [HistoryWouldBeLostError]
        assert "no update" in refused.errors[0].message and "history" in refused.errors[0].message
        assert not refused.committed and _files(served_root) == [there]

        replaced = remote.apply(
            CHANGED, "trino", namespace="sales", replace_discarding_history=True
        ).raise_for_errors()
        assert [w.code for w in replaced.warnings if w.code == "history-discarded"] == [
            "history-discarded"
        ]
        now = served.load(ref).metadata
        assert [[v.version_id for v in d.versions] for d in now.definitions] == [[1, 2], [1, 2]]
        assert [d.current_version.representations[0].sql for d in now.definitions] == [
            "x + 5",
            "x + 5.0",
        ]
        assert len(now.definition_log) == 1
        assert any(".dropped" in f for f in _files(served_root))  # the old files are kept

        with pytest.raises(UnsupportedStorageError, match=r"cannot roll back sales\.add_one"):
            remote.rollback(ref, log_entry=1)
        assert remote.drop(ref).ref == ref
        assert remote.rest is not None and not remote.rest.function_exists(ref)
        with pytest.raises(FunctionNotFoundError):
            remote.drop(ref)
        assert remote.drop(ref, if_exists=True).moved_to is None


def test_migrate_creates_each_function_once_and_a_rerun_finishes_the_job(tmp_path: Path) -> None:
    folder = Warehouse(tmp_path / "folder", context=fixed_context())
    expected = migrate_directory(SPARK_LEGACY, folder, "spark")
    served_root = tmp_path / "served"
    for ns in ("default", "sales"):
        (served_root / ns).mkdir(parents=True)
    served = Warehouse(served_root, context=fixed_context())
    with running_server(served, WRITES) as url:
        remote = Warehouse(f"rest+{url}/udf", context=fixed_context())
        report = migrate_directory(SPARK_LEGACY, remote, "spark")
        assert report.summary() == expected.summary()
        assert [f.message for f in report.failures] == [f.message for f in expected.failures]
        made = {str(i.ref) for i in folder.functions()}
        assert {str(i.ref) for i in served.functions()} == made
        for name in made:
            mine, theirs = folder.load(name).metadata, served.load(name).metadata
            assert same_function(FunctionRef.parse(name), mine, theirs)
            ids = [
                [(v.version_id, v.representations) for v in d.versions] for d in mine.definitions
            ]
            assert ids == [
                [(v.version_id, v.representations) for v in d.versions] for d in theirs.definitions
            ]
        files = _files(served_root)

        rerun = migrate_directory(SPARK_LEGACY, remote, "spark")
        # (a function the directory makes and drops again never reaches the catalog)
        statuses = {f.status for f in rerun.functions.values()}
        assert statuses <= {"unchanged", "absent", "created-and-dropped"}, statuses
        assert _files(served_root) == files

        # A crash before one function was created: the re-run creates just that one.
        remote.drop("sales.net_price")
        finish = migrate_directory(SPARK_LEGACY, remote, "spark")
        created = [n for n, f in finish.functions.items() if f.status == "created"]
        assert created == ["sales.net_price"]
        assert same_function(
            FunctionRef("sales", "net_price"),
            folder.load("sales.net_price").metadata,
            served.load("sales.net_price").metadata,
        )


def test_the_cli_refuses_a_change_and_names_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served = build_warehouse(tmp_path / "wh")
    changed = tmp_path / "changed.sql"
    changed.write_text(CHANGED)
    with running_server(served, WRITES) as url:
        address = f"rest+{url}/udf"
        args = ("apply", "--warehouse", address, "--dialect", "trino", "--namespace", "accounting")
        code, _, err = run(capsys, *args, str(changed))
        assert code == 1 and "no update" in err and "--replace-discarding-history" in err
        code, out, err = run(capsys, *args, "--replace-discarding-history", str(changed))
        assert code == 0 and "committed accounting.add_one" in out
        assert "history-discarded" in err


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(build_warehouse(tmp_path_factory.mktemp("w")), WRITES) as base:
        yield base


def _request(name: str, sql: str = "x + 2") -> dict[str, Any]:
    return {
        "name": name,
        "definitions": [
            {
                "parameters": [{"name": "x", "type": "int"}],
                "return-type": "int",
                "function-type": "udf",
                "versions": [
                    {"representations": [{"type": "sql", "dialect": "trino", "sql": sql}]}
                ],
            }
        ],
    }


def _client(url: str, token: str | None = TOKEN) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=f"{url}/v1/udf/namespaces", headers=headers, timeout=30)


def _error(r: httpx.Response) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["type"]


def test_http_answers_of_the_write_endpoints(url: str) -> None:
    with _client(url) as http:
        endpoints = httpx.get(f"{url}/v1/config", headers=http.headers).json()["endpoints"]
        assert "POST /v1/{prefix}/namespaces/{namespace}/functions" in endpoints
        assert "DELETE /v1/{prefix}/namespaces/{namespace}/functions/{function}" in endpoints
        created = http.post("/accounting/functions", json=_request("add_two"))
        assert created.status_code == 200
        assert created.json()["metadata"]["definitions"][0]["definition-id"] == "int"
        assert http.head("/accounting/functions/add_two").status_code == 204
        again = http.post("/accounting/functions", json=_request("add_two"))
        assert _error(again) == (409, "AlreadyExistsException")
        assert _error(http.post("/nowhere/functions", json=_request("f"))) == (
            404,
            "NoSuchNamespaceException",
        )
        two = http.post("/accounting/functions", json=_request("evil", "1; DROP TABLE t"))
        assert _error(two) == (400, "BadRequestException")
        assert "$.definitions[0].versions[0].representations[0].sql" in two.text
        assert _error(http.post("/accounting/functions", json=_request("../up"))) == (
            400,
            "BadRequestException",
        )
        assert _error(http.post("/accounting/functions", content=b"{nope")) == (
            400,
            "BadRequestException",
        )
        huge = http.post("/accounting/functions", content=b" " * (MAX_BODY + 1))
        assert _error(huge) == (400, "BadRequestException") and "exceeds" in huge.text
        assert http.head("/accounting/functions/evil").status_code == 404
        assert http.delete("/accounting/functions/add_two").status_code == 204
        assert _error(http.delete("/accounting/functions/add_two")) == (
            404,
            "NoSuchFunctionException",
        )
    for token in (None, "wrong-token"):
        with _client(url, token) as stranger:
            denied = stranger.post("/accounting/functions", json=_request("sneaky"))
            assert _error(denied) == (401, "NotAuthorizedException")
            assert "wrong-token" not in denied.text
            assert _error(stranger.delete("/accounting/functions/add_one"))[0] == 401


def test_a_read_only_server_takes_no_writes_and_writes_need_a_token(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs a bearer token"):
        create_app(Warehouse(tmp_path), ServerSettings(token="", allow_writes=True))
    served = build_warehouse(tmp_path / "wh")
    with running_server(served, ServerSettings(token=TOKEN)) as url, _client(url) as http:
        config = httpx.get(f"{url}/v1/config", headers=http.headers).json()
        assert not [e for e in config["endpoints"] if e.startswith(("POST", "DELETE"))]
        assert http.post("/accounting/functions", json=_request("f")).status_code == 405
        assert http.delete("/accounting/functions/add_one").status_code == 405
        assert http.head("/accounting/functions/add_one").status_code == 204
        remote = Warehouse(f"rest+{url}/udf")
        refused = remote.apply(ADD_ONE, "trino", namespace="accounting.new")
        assert "advertises no function writes" in refused.errors[0].message


def test_a_drop_statement_drops_through_dropfunction(url: str) -> None:
    remote = Warehouse(f"rest+{url}/udf", namespace="accounting")
    create = "CREATE FUNCTION plus_one(x INT) RETURNS INT RETURN x + 1"
    made = remote.apply(create, "spark").raise_for_errors()
    assert [str(c.ref) for c in made.committed] == ["accounting.plus_one"]
    gone = remote.apply("DROP FUNCTION plus_one", "spark").raise_for_errors()
    assert [str(d.ref) for d in gone.dropped] == ["accounting.plus_one"]
    assert remote.rest is not None
    assert not remote.rest.function_exists(FunctionRef("accounting", "plus_one"))


def test_serve_allows_writes_only_with_a_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ICEBERG_UDF_SERVE_TOKEN", raising=False)
    code, _, err = run(capsys, "serve", "--warehouse", str(tmp_path), "--allow-writes")
    assert code == 2 and "--allow-writes needs ICEBERG_UDF_SERVE_TOKEN" in err


@pytest.mark.parametrize("how", ["answer lost", "created meanwhile"])
def test_a_create_whose_outcome_is_unknown_is_decided_on_what_the_catalog_holds(
    url: str, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The network loses createFunction's answer after the catalog made the function, or
    another writer creates the same function first (409): the apply reads the catalog again and
    finds the function there as it would make it, so it ends unchanged, without an error."""
    remote = Warehouse(f"rest+{url}/udf", namespace="accounting")
    assert remote.rest is not None
    client, real = remote.rest, remote.rest.create_function
    name = "lost_answer" if how == "answer lost" else "raced"

    def create(ref: FunctionRef, request: dict[str, Any]) -> Any:
        real(ref, request)  # the catalog has it now
        if how == "answer lost":
            raise RestTransportError("the connection broke before the answer")
        return real(ref, request)  # the second create is the one that loses: 409

    monkeypatch.setattr(client, "create_function", create)
    result = remote.apply(f"CREATE FUNCTION {name}(x INT) RETURNS INT RETURN x * 2", "spark")
    assert result.ok, result.errors
    assert result.conflicts == 1 and not result.committed
    assert [c.action for c in result.changes] == ["unchanged"]
    assert client.function_exists(FunctionRef("accounting", name))


def test_the_same_function_with_defaults_written_out_is_the_same() -> None:
    ref = FunctionRef("accounting", "f")
    doc = json.loads(json.dumps(SECURE_DOC))
    spelled = json.loads(json.dumps(doc))
    spelled.update({"properties": {}, "secure": True})
    spelled["definitions"][0]["return-nullable"] = True
    spelled["definitions"][0]["versions"][0].update({"deterministic": False})
    spelled["definitions"][0]["versions"][0]["on-null-input"] = "call"
    plain, explicit = load_metadata(json.dumps(doc)), load_metadata(json.dumps(spelled))
    assert same_function(ref, plain, explicit)
    spelled["definitions"][0]["versions"][0]["on-null-input"] = "return-null"
    assert not same_function(ref, plain, load_metadata(json.dumps(spelled)))
