"""The function warehouse: versioned metadata files, atomic commits, resolution, time travel.

::

    from translator.warehouse import Warehouse
    wh = Warehouse("warehouse/")
    result = wh.apply(open("add_one.sql").read(), dialect="trino").raise_for_errors()
    print([c.path for c in result.committed])

See :mod:`translator.warehouse.layout` for the folder layout, :mod:`.store` and :mod:`.commit`
for why commits never lose updates, :mod:`.resolve` for which file is current and
:mod:`translator.history` for ``as_of`` / log entries / rollback.
"""

from translator.warehouse.cache import CACHE_ENV, MetadataCache
from translator.warehouse.commit import Committed, RetryPolicy
from translator.warehouse.errors import (
    AmbiguousMetadataError,
    CommitConflictError,
    FunctionChangedError,
    FunctionNotFoundError,
    TimeTravelError,
    UnsupportedStorageError,
    WarehouseError,
)
from translator.warehouse.layout import DEFAULT_NAMESPACE, FunctionRef
from translator.warehouse.resolve import Resolved, ResolveOptions
from translator.warehouse.results import ApplyResult, Dropped, PointInTime, RollbackResult
from translator.warehouse.warehouse import Warehouse, require_existing

__all__ = [
    "CACHE_ENV",
    "DEFAULT_NAMESPACE",
    "AmbiguousMetadataError",
    "ApplyResult",
    "CommitConflictError",
    "Committed",
    "Dropped",
    "FunctionChangedError",
    "FunctionNotFoundError",
    "FunctionRef",
    "MetadataCache",
    "PointInTime",
    "ResolveOptions",
    "Resolved",
    "RetryPolicy",
    "RollbackResult",
    "TimeTravelError",
    "UnsupportedStorageError",
    "Warehouse",
    "WarehouseError",
    "require_existing",
]
