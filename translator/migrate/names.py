"""The function a statement names when the front end fails to parse it, so that a migration
report can file the failure under that function."""

from __future__ import annotations

from translator.dialects import get_dialect
from translator.script import StatementText
from translator.warehouse.errors import WarehouseError
from translator.warehouse.layout import FunctionRef

__all__ = ["guess_ref"]


def guess_ref(piece: StatementText, dialect: str, namespace: str) -> FunctionRef | None:
    """The function a statement that does not parse names, read from its tokens as the dialect
    reads names (:meth:`~translator.dialects.base.Dialect.function_name_of`), if it can be told."""
    parts = get_dialect(dialect).function_name_of(piece)
    if parts is None:
        return None
    try:
        return FunctionRef.from_parts(tuple(parts), namespace)
    except WarehouseError:
        return None
