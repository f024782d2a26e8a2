"""The function warehouse: versioned metadata files, atomic commits, resolution, time travel.

::

    from translator.warehouse import Warehouse
    wh = Warehouse("warehouse/")
    result = wh.apply(open("add_one.sql").read(), dialect="trino").raise_for_errors()
    print([c.path for c in result.committed])

See :mod:`translator.warehouse.layout` for the folder layout, :mod:`.store` and :mod:`.commit`
for why commits never lose updates, :mod:`.resolve` for which file is current and
:mod:`translator.history` for ``as_of`` / log entries / rollback.

The names load on first use: a module that needs one part of the warehouse (its layout, its
errors) does not load the others (the SQL catalog, the REST client, maintenance), nor does a
command that opens no warehouse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from translator.lazy_names import lazy_names

if TYPE_CHECKING:
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

#: Public name -> the module it is loaded from on first use.
_LAZY = {
    "CACHE_ENV": "translator.warehouse.cache",
    "MetadataCache": "translator.warehouse.cache",
    "Committed": "translator.warehouse.commit",
    "RetryPolicy": "translator.warehouse.commit",
    "AmbiguousMetadataError": "translator.warehouse.errors",
    "CommitConflictError": "translator.warehouse.errors",
    "FunctionChangedError": "translator.warehouse.errors",
    "FunctionNotFoundError": "translator.warehouse.errors",
    "TimeTravelError": "translator.warehouse.errors",
    "UnsupportedStorageError": "translator.warehouse.errors",
    "WarehouseError": "translator.warehouse.errors",
    "DEFAULT_NAMESPACE": "translator.warehouse.layout",
    "FunctionRef": "translator.warehouse.layout",
    "Resolved": "translator.warehouse.resolve",
    "ResolveOptions": "translator.warehouse.resolve",
    "ApplyResult": "translator.warehouse.results",
    "Dropped": "translator.warehouse.results",
    "PointInTime": "translator.warehouse.results",
    "RollbackResult": "translator.warehouse.results",
    "Warehouse": "translator.warehouse.warehouse",
    "require_existing": "translator.warehouse.warehouse",
}

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

__getattr__, __dir__ = lazy_names(__name__, _LAZY)
