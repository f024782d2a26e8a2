"""The SQL catalog: SQLite (the default) and a real PostgreSQL server started for the session.

PostgreSQL comes from Debian's package (``bash .ci/setup-postgres.sh`` installs it); a
throwaway cluster runs in a temporary folder on a loopback port and is removed afterwards. Its
tests skip, saying why, only when the server binaries are missing outside CI; in CI
(``CI=true``) a missing server fails the run instead.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.warehouse.helpers import (
    CREATE_DOUBLE,
    CREATE_INT,
    assert_every_file_valid,
    fixed_context,
    metadata_files,
    replace_int,
)
from tests.warehouse.test_concurrency import check_chain, run_workers
from translator.warehouse import (
    FunctionNotFoundError,
    FunctionRef,
    MetadataCache,
    ResolveOptions,
    Warehouse,
    WarehouseError,
)
from translator.warehouse.catalog import CatalogConflict, SqlCatalog
from translator.warehouse.commit import Conflict
from translator.warehouse.layout import derived_file_uuid, parse_metadata_name

NO_LOCK = {"ICEBERG_UDF_COMMIT_LOCK": "0"}


# --------------------------------------------------------------------------------------------
# A throwaway PostgreSQL server


def _pg_bindir() -> Path | None:
    def version(path: str) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", path))

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version)
    if found:
        return Path(found[-1]).parent
    which = shutil.which("initdb")
    return Path(which).resolve().parent if which else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    bindir = _pg_bindir()
    if bindir is None:
        reason = "PostgreSQL server binaries are not installed (bash .ci/setup-postgres.sh)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason}: CI must run the catalog tests against a real server")
        pytest.skip(reason)
    import psycopg  # noqa: F401  (the driver must be installed: fail loudly if it is not)

    base = Path(tempfile.mkdtemp(prefix="iceberg-udf-pg-"))
    as_user: dict[str, Any] = {}
    if os.geteuid() == 0:  # initdb refuses root: run the server as the package's user
        pw = pwd.getpwnam("postgres")
        os.chown(base, pw.pw_uid, pw.pw_gid)
        as_user = {"user": pw.pw_uid, "group": pw.pw_gid}
    env = dict(os.environ, LC_ALL="C", LANG="C", HOME=str(base))
    data, port = base / "data", _free_port()

    def run(*argv: str) -> None:
        done = subprocess.run(
            argv, cwd=base, env=env, capture_output=True, text=True, timeout=120, **as_user
        )
        assert done.returncode == 0, f"{argv[0]} failed:\n{done.stdout}\n{done.stderr}"

    run(str(bindir / "initdb"), "-D", str(data), "-U", "test", "-A", "trust", "-E", "UTF8",
        "--no-sync")  # fmt: skip
    options = (
        f"-p {port} -c listen_addresses=127.0.0.1 -k {base} -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off"
    )
    run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(base / "server.log"), "-w", "-t", "60",
        "-o", options, "start")  # fmt: skip
    try:
        yield f"postgresql+psycopg://test@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            cwd=base, env=env, capture_output=True, timeout=60, **as_user,
        )  # fmt: skip
        shutil.rmtree(base, ignore_errors=True)


_schemas = itertools.count()


@pytest.fixture
def pg_catalog(postgres_url: str) -> str:
    """A fresh database per test, so tests never see each other's rows."""
    import sqlalchemy as sa

    name = f"t{os.getpid()}_{next(_schemas)}"
    engine = sa.create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    engine.dispose()
    return postgres_url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def catalog_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'catalog.db'}"
    return str(request.getfixturevalue("pg_catalog"))


# --------------------------------------------------------------------------------------------
# Both databases


def test_catalog_commits_and_reads(tmp_path: Path, catalog_url: str) -> None:
    root = tmp_path / "wh"
    with Warehouse(root, catalog=catalog_url, context=fixed_context(), cache=MetadataCache()) as wh:
        first = wh.apply(CREATE_INT + CREATE_DOUBLE, "trino").raise_for_errors()
        second = wh.apply(replace_int(2), "trino").raise_for_errors()
        ref = FunctionRef("default", "add_one")
        entry = wh.catalog.get(ref)  # type: ignore[union-attr]
        assert entry is not None
        assert entry.metadata_location == second.committed[0].location
        assert entry.previous_metadata_location == first.committed[0].location
        # Catalog files get random uuids (the catalog, not the name, decides who wins).
        assert second.committed[0].path != (
            f"default/add_one/metadata/00002-{derived_file_uuid(ref, 2)}.metadata.json"
        )
        assert [i.definitions for i in wh.functions()] == [2]
        assert wh.load("add_one").version == 2
        rolled = wh.rollback("add_one", log_entry=2)
        assert rolled.committed is not None and rolled.committed.version == 3
        assert [(e.number, e.current) for e in wh.history("add_one")[1]][-1] == (4, True)
        with pytest.raises(WarehouseError, match="with a catalog"):
            wh.load("add_one", resolve=ResolveOptions(latest_by_log_timestamp=True))
        explicit = wh.load(
            "add_one",
            resolve=ResolveOptions(metadata_file=first.committed[0].path.rpartition("/")[2]),
        )
        assert explicit.version == 1
        dropped = wh.drop("add_one")
        assert dropped.moved_to is not None
        assert wh.functions() == []
        with pytest.raises(FunctionNotFoundError):
            wh.load("add_one")
        # The files stay (drop without purge); a new function continues the numbering.
        again = wh.apply(CREATE_INT, "trino").raise_for_errors()
        assert again.committed[0].version == 4
    assert assert_every_file_valid(root) == 4
    assert len(metadata_files(root)) == 4


def test_a_stale_writer_is_refused_and_leaves_no_file(tmp_path: Path, catalog_url: str) -> None:
    root = tmp_path / "wh"
    with Warehouse(root, catalog=catalog_url) as a, Warehouse(root, catalog=catalog_url) as b:
        a.apply(CREATE_INT, "trino").raise_for_errors()
        ref = FunctionRef("default", "add_one")
        stale = a.committer.base(ref)
        assert stale is not None
        b.apply(replace_int(2), "trino").raise_for_errors()
        with pytest.raises(Conflict):
            a.committer.commit(ref, stale, stale.metadata.model_copy(deep=True))
        assert len(metadata_files(root)) == 2  # the loser removed its orphan
        with pytest.raises(CatalogConflict):
            a.catalog.swap(ref, stale.location, "elsewhere")  # type: ignore[union-attr]
        with pytest.raises(CatalogConflict):
            a.catalog.delete(ref, stale.location)  # type: ignore[union-attr]
        with pytest.raises(CatalogConflict):
            a.catalog.create(ref, "again")  # type: ignore[union-attr]
        # apply itself re-reads and retries: the stale object commits on top of b's version.
        r = a.apply(replace_int(3), "trino").raise_for_errors()
        assert r.committed[0].version == 3


def test_catalog_compare_and_swap_under_concurrent_processes(
    tmp_path: Path, catalog_url: str
) -> None:
    results = run_workers(tmp_path, 4, 8, attempts=1000, catalog=catalog_url, env=NO_LOCK)
    assert len(check_chain(tmp_path)) == 33
    assert sum(r["conflicts"] for r in results) > 0


# --------------------------------------------------------------------------------------------
# SQLite specifics


def test_sqlite_shorthand_keeps_the_catalog_in_the_warehouse(tmp_path: Path) -> None:
    with Warehouse(tmp_path, catalog="sqlite") as wh:
        wh.apply(CREATE_INT, "trino").raise_for_errors()
        assert (tmp_path / "catalog.db").is_file()
        assert [str(i.ref) for i in wh.functions()] == ["default.add_one"]
    with pytest.raises(WarehouseError, match="local warehouse"):
        Warehouse("memory://x", catalog="sqlite")


def test_catalog_names_separate_warehouses_in_one_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    with Warehouse(tmp_path / "a", catalog=url, catalog_name="a") as a:
        a.apply(CREATE_INT, "trino").raise_for_errors()
    with Warehouse(tmp_path / "b", catalog=url, catalog_name="b") as b:
        assert b.functions() == []
    cat = SqlCatalog(url, name="a")
    assert [str(e.ref) for e in cat.entries()] == ["default.add_one"]
    cat.close()


def test_cli_with_a_catalog(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from translator.cli import main

    sql = tmp_path / "a.sql"
    sql.write_text(CREATE_INT)
    wh = ["--warehouse", str(tmp_path / "wh"), "--catalog", "sqlite"]
    assert main(["apply", *wh, "--dialect", "trino", str(sql)]) == 0
    assert main(["list", *wh]) == 0
    out = capsys.readouterr().out
    assert "default.add_one" in out and "catalog.db" not in out
    names = [p.name for p in (tmp_path / "wh" / "default" / "add_one" / "metadata").iterdir()]
    assert [parse_metadata_name(n).version for n in names] == [1]  # type: ignore[union-attr]
