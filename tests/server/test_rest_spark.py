"""The whole way on real parts: migrate legacy Spark DDL into a warehouse, serve it with uvicorn,
register its functions in a real local Spark through ``rest+http://...``, and call them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.server.helpers import TOKEN, running_server
from translator.migrate import migrate_directory
from translator.server import ServerSettings
from translator.spark import register_functions
from translator.warehouse import Warehouse
from translator.warehouse.rest import TOKEN_ENV


@pytest.mark.spark
def test_migrate_serve_register_and_call_through_rest(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wh = Warehouse(tmp_path / "wh")
    report = migrate_directory(FIXTURES / "migrations" / "spark_legacy", wh, "spark")
    assert report.summary()["functions-created"] == 6
    first_price = wh.load("sales.net_price").metadata.definition_log[0].timestamp_ms
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    with running_server(wh, ServerSettings(token=TOKEN)) as base:
        address = f"rest+{base}/udf"
        registered = register_functions(spark, address)
        # big_orders reads the table `orders` that the migration's CREATE TABLE (skipped, not
        # function DDL) would make: Spark's refusal is reported, the other five are created
        assert list(registered.failed) == ["sales.big_orders"]
        assert "TABLE_OR_VIEW_NOT_FOUND" in registered.failed["sales.big_orders"]
        assert sorted(registered.created) == [
            str(i.ref) for i in wh.functions() if i.ref.name != "big_orders"
        ]
        row = spark.sql("SELECT sales.net_price(10.00, 1.5) AS p, default.add_one(1) AS a").first()
        assert (row.p, row.a) == (0.0, 3)  # the current versions: never below zero; x + 2
        # time travel over REST: the response carries the whole definition-log
        past = register_functions(spark, address, ["sales.net_price"], as_of=first_price)
        assert past.created == ["sales.net_price"], past.failed
        assert spark.sql("SELECT sales.net_price(10.00, 1.5)").first()[0] == -5.0
