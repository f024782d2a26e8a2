"""Issue 15, class 3: secrets in messages are masked (a catalog URL's password, above all)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hardening_cli import run_cli
from tests.warehouse.test_catalog import postgres_url  # noqa: F401  (a real server)
from translator.redact import mask_secrets, url_secrets

FAILING_CATALOGS = [
    "postgresql+psycopg://alice:SECRET@127.0.0.1:1/db",  # unreachable
    "postgresql+nodriver://alice:SECRET@host/db",  # unknown driver
    "nodialect://alice:SECRET@host/db",  # unknown dialect
    "mysql://alice:SECRET@host/db",  # driver not installed
    "postgresql+psycopg://alice:SECRET@127.0.0.1:1/db?password=SECRET",
    "postgresql+psycopg://alice:p%40SECRET@127.0.0.1:1/db",
    "postgresql+psycopg://alice:SECRET@@127.0.0.1:1/db",
]


def _assert_masked(code: int, out: str, err: str) -> None:
    assert code == 1, err
    assert "SECRET" not in out + err
    assert "Traceback" not in err
    assert "catalog " in err and "***" in err


@pytest.mark.parametrize("url", FAILING_CATALOGS)
@pytest.mark.parametrize("command", ["list", "apply"])
def test_secrets_in_messages_are_masked(url: str, command: str, tmp_path: Path) -> None:
    wh = tmp_path / "wh"
    wh.mkdir()
    sql = tmp_path / "f.sql"
    sql.write_text("CREATE FUNCTION f(x INT) RETURNS INT RETURN x;")
    argv = ["--warehouse", str(wh), "--catalog", url]
    if command == "apply":
        argv += ["--dialect", "spark", str(sql)]
    _assert_masked(*run_cli(command, *argv))


def test_a_real_server_refusing_the_login_names_no_password(
    postgres_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    refused = postgres_url.replace("://test@", "://nobody_here:SECRET@")
    code, out, err = run_cli("list", "--warehouse", str(tmp_path), "--catalog", refused)
    _assert_masked(code, out, err)
    assert "nobody_here" in err  # the server's own reason is kept


def test_an_unopenable_sqlite_catalog_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/no/such/folder/catalog.db"
    code, _, err = run_cli("list", "--warehouse", str(tmp_path), "--catalog", url)
    assert code == 1 and "Traceback" not in err and "unable to open" in err


def test_mask_secrets_masks_urls_parameters_and_named_secrets() -> None:
    url = "postgresql://alice:p%40ss@h/db?password=s3cret&x=1"
    shown = mask_secrets(f"cannot open {url}: p@ss refused", url_secrets(url))
    assert "p%40ss" not in shown and "p@ss" not in shown and "s3cret" not in shown
    assert shown == "cannot open postgresql://alice:***@h/db?password=***&x=1: *** refused"


def test_secrets_in_messages_are_masked_even_from_an_unexpected_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from translator.warehouse import catalog

    def broken(self: object, url: str, **kwargs: object) -> None:
        raise RuntimeError(f"driver said: cannot reach {url} with password SECRET")

    monkeypatch.setattr(catalog.SqlCatalog, "__init__", broken)
    url = "postgresql+psycopg://alice:SECRET@127.0.0.1:1/db"
    code, out, err = run_cli("list", "--warehouse", str(tmp_path), "--catalog", url)
    assert code == 3 and "Traceback" not in err
    assert "internal error: RuntimeError" in err and "SECRET" not in out + err
