"""The Iceberg REST catalog's function endpoints, served over a warehouse.

``create_app(warehouse)`` is an ASGI application (Starlette) that answers, exactly as the
official OpenAPI document (``rest-catalog-open-api.yaml``) says:

* ``GET /v1/config``: defaults, overrides (the ``prefix`` to use) and the ``endpoints`` served;
* ``GET /v1/{prefix}/namespaces``, ``GET`` / ``HEAD /v1/{prefix}/namespaces/{namespace}``: the
  namespaces that hold functions, and the warehouse's top-level folders (an empty namespace);
* ``GET /v1/{prefix}/namespaces/{namespace}/functions`` (listFunctions, paged);
* ``GET /v1/{prefix}/namespaces/{namespace}/functions/{function}`` (loadFunction): the current
  metadata file, chosen by the warehouse's own resolution rules and read through its cache, sent
  byte for byte as written (unknown fields included) inside the ``LoadFunctionResult``.

Writes: ``createFunction`` (``POST .../functions``) and ``dropFunction`` (``DELETE
.../functions/{function}``), as we read apache/iceberg PR #17966 (unmerged;
``functions-write-draft.yaml`` beside this module), are served and advertised only when the
settings allow writes, which needs a bearer token (:mod:`translator.server.writes`).
``functionExists`` (``HEAD``), from the same PR, is a read and always served.

The server needs ``pip install 'iceberg-udf[server]'`` (Starlette and uvicorn); importing
:mod:`translator` never loads them. ``iceberg-udf serve`` runs it; :func:`serve` does the same
from Python.
"""

from translator.server.app import (
    DEFAULT_PREFIX,
    TOKEN_ENV,
    WRITE_ENDPOINTS,
    ServerSettings,
    create_app,
    serve,
)

__all__ = [
    "DEFAULT_PREFIX",
    "TOKEN_ENV",
    "WRITE_ENDPOINTS",
    "ServerSettings",
    "create_app",
    "serve",
]
