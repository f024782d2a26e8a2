"""Building a RoutineSpec straight from a parsed statement, for the dialects' render tests."""

from __future__ import annotations

from typing import Any

from translator.dialects.base import RoutineSpec
from translator.ir import CreateFunction


def spec_of(stmt: CreateFunction, **changes: Any) -> RoutineSpec:
    """The spec ``emit`` would hand a dialect for ``stmt``, with ``changes`` applied."""
    fields: dict[str, Any] = {
        "name": stmt.name,
        "parameters": tuple((p.name, p.type, p.doc) for p in stmt.parameters),
        "return_type": stmt.return_type,
        "kind": stmt.kind,
        "doc": stmt.doc,
        "deterministic": bool(stmt.deterministic),
        "on_null_input": stmt.on_null_input or "call",
        "body": stmt.body.text,
        "body_kind": stmt.body.kind,
        "definition_id": ",".join(str(tp) for tp in stmt.parameter_types),
        "version_id": 1,
    }
    fields.update(changes)
    return RoutineSpec(**fields)
