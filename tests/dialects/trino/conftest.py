"""Fixtures of the Trino dialect's tests."""

from __future__ import annotations

from typing import Any

import pytest

from translator.dialects.trino.routines import lowering


@pytest.fixture()
def lowered(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every statement the routine lowering lowers, in order: a test of how much work a routine
    costs counts them (each lowered once is linear; twice per branch was 2^depth)."""
    seen: list[object] = []
    statement = lowering._Lowering.statement

    def counted(self: Any, stmt: Any, *args: Any) -> Any:
        seen.append(stmt)
        return statement(self, stmt, *args)

    monkeypatch.setattr(lowering._Lowering, "statement", counted)
    return seen
