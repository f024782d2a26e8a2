"""The ASGI application: routes, authentication, paging and the spec's error bodies.

Starlette rather than FastAPI: the contract is an existing OpenAPI document, not one generated
from our models, so FastAPI's model-to-schema machinery and its 422 validation errors would only
be worked around (the spec answers bad input with 400 and an ``IcebergErrorResponse``).

Choices the spec leaves to a server, and ours:

* **Namespaces.** A warehouse namespace folder ``a.b`` is the REST namespace ``["a", "b"]`` (the
  name ``catalog.a.b.fn`` puts a function there), and its parent ``["a"]`` exists too, as in a
  catalog (listed, loadable, with no functions of its own until one is put there). A REST
  namespace part containing ``.`` is the folder with that dot percent-encoded
  (:func:`~translator.warehouse.layout.namespace_folder`).
* **Paging.** Without ``pageToken`` everything comes in one response; with one (empty for the
  first page) at most ``pageSize`` identifiers (default 100, at most 1000) and, while more remain,
  a ``next-page-token``. The last page omits the field instead of sending ``null``: the document
  is OpenAPI 3.1, where ``nullable`` is no keyword, so ``null`` would break the schema; clients
  must read a missing token as the end either way.
* **Secure functions** (``"secure": true``). The metadata (bodies included) is what an engine
  needs to run the function, and the spec's ``secure`` flag tells the engine to hide the body
  from its users; the catalog's part is to serve it only to callers it knows. So a server started
  with a bearer token (:data:`TOKEN_ENV`) serves them like any function, and a server without one
  answers 403 for them (they are still listed: their names are not secret).
* **Authentication.** With a token every route, ``/v1/config`` included, needs
  ``Authorization: Bearer <token>`` (compared in constant time) and answers 401 otherwise.
* **Writes** (createFunction, dropFunction: our reading of apache/iceberg PR #17966, unmerged;
  :mod:`translator.server.writes`) are served and advertised only with ``allow_writes``, which
  needs a bearer token. functionExists (``HEAD`` on a function, from the same PR) is a read: it is
  served and advertised always.
* **Namespaces that exist**: those holding a function, and the warehouse's top-level folders
  (a namespace stays when its last function is dropped, and a new one is a folder: this server
  does not create namespaces).
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from translator.errors import TranslatorError
from translator.server.etags import entity_tag, matches, parse_tags
from translator.server.writes import WriteError, create_function, drop_function
from translator.warehouse import FunctionNotFoundError, FunctionRef, ResolveOptions, Warehouse
from translator.warehouse.layout import namespace_folder, namespace_parts
from translator.warehouse.rest import CREATE_FUNCTION, DROP_FUNCTION, FUNCTION_EXISTS

__all__ = [
    "DEFAULT_PREFIX",
    "ENDPOINTS",
    "TOKEN_ENV",
    "WRITE_ENDPOINTS",
    "ServerSettings",
    "create_app",
    "serve",
]

#: The path prefix served when none is given (``/v1/udf/namespaces/...``).
DEFAULT_PREFIX = "udf"
#: The environment variable holding the bearer token the server requires (unset: open server).
TOKEN_ENV = "ICEBERG_UDF_SERVE_TOKEN"
#: What ``/v1/config`` advertises, in the spec's "<verb> <path>" form.
ENDPOINTS = (
    "GET /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "GET /v1/{prefix}/namespaces/{namespace}/functions",
    "GET /v1/{prefix}/namespaces/{namespace}/functions/{function}",
    FUNCTION_EXISTS,
)
#: What ``/v1/config`` adds when writes are allowed.
WRITE_ENDPOINTS = (CREATE_FUNCTION, DROP_FUNCTION)
#: The largest request body read (a createFunction request; a long history is not sent).
MAX_BODY = 16 * 1024 * 1024
_SEPARATOR = "\x1f"
_DEFAULT_PAGE = 100
_MAX_PAGE = 1000


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How a warehouse is served. ``token`` None: read :data:`TOKEN_ENV`; empty: no auth.
    ``allow_writes``: serve createFunction and dropFunction (needs a token)."""

    prefix: str = DEFAULT_PREFIX
    token: str | None = None
    resolve: ResolveOptions = field(default_factory=ResolveOptions)
    allow_writes: bool = False

    def bearer_token(self) -> str | None:
        return (self.token if self.token is not None else os.environ.get(TOKEN_ENV)) or None


class _Error(Exception):
    """An error answered as the spec's ``IcebergErrorResponse``."""

    def __init__(self, code: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.code, self.kind, self.message = code, kind, message


def _error_response(
    code: int, kind: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = {"error": {"message": message, "type": kind, "code": code}}
    return JSONResponse(body, status_code=code, headers=headers)


def _namespace_parts(text: str) -> list[str]:
    """A path or query namespace (parts joined by 0x1F, already percent-decoded)."""
    return text.split(_SEPARATOR)


def _folder(parts: Sequence[str]) -> str | None:
    """The warehouse namespace of REST ``parts``; None when no folder can be that namespace."""
    if not parts or any(not p for p in parts):
        return None
    return namespace_folder(parts)


def _rest_parts(namespace: str) -> list[str]:
    return list(namespace_parts(namespace))


def _is_namespace_folder(name: str) -> bool:
    try:
        FunctionRef(name, "x")
    except TranslatorError:
        return False
    return not name.startswith(".") and _folder(_rest_parts(name)) == name


class _Catalog:
    """The warehouse seen as a REST catalog: namespaces, function names, current files."""

    def __init__(self, warehouse: Warehouse, settings: ServerSettings) -> None:
        self.warehouse = warehouse
        self.settings = settings

    def refs(self) -> list[FunctionRef]:
        return sorted(ref for ref, _ in self.warehouse.committer.functions())

    def namespaces(self) -> set[str]:
        """Every namespace: each folder, and each parent of one (``a`` of ``a.b``)."""
        folders = {d for d in self.warehouse.store.list_dirs("") if _is_namespace_folder(d)}
        folders |= {ref.namespace for ref in self.refs()}
        parents: set[str] = set()
        for folder in folders:
            parts = _rest_parts(folder)
            parents.update(namespace_folder(parts[:i]) for i in range(1, len(parts)))
        return folders | parents

    def require_namespace(self, text: str) -> str:
        folder = _folder(_namespace_parts(text))
        if folder is None or folder not in self.namespaces():
            raise _Error(404, "NoSuchNamespaceException", f"namespace {text!r} does not exist")
        return folder

    def function_names(self, folder: str) -> list[str]:
        return [ref.name for ref in self.refs() if ref.namespace == folder]

    def load(self, folder: str, name: str, authenticated: bool) -> tuple[bytes, str]:
        """The ``LoadFunctionResponse`` body of the function, and its entity tag."""
        try:
            ref = FunctionRef(folder, name)
        except TranslatorError:  # a name no folder can have: no such function
            raise _Error(
                404, "NoSuchFunctionException", f"function {name!r} does not exist"
            ) from None
        try:
            resolved = self.warehouse.load(ref, resolve=self.settings.resolve, copy=False)
            raw = self.warehouse.store.read_bytes(resolved.path)
        except FunctionNotFoundError as e:  # no metadata file (or catalog entry) for it
            raise _Error(404, "NoSuchFunctionException", e.message) from None
        except (TranslatorError, OSError) as e:
            message = e.message if isinstance(e, TranslatorError) else str(e)
            raise _Error(500, "InternalServerError", f"{ref}: cannot be read: {message}") from None
        if resolved.metadata.secure and not authenticated:
            raise _Error(
                403,
                "ForbiddenException",
                f"{ref} is a secure function: this server serves secure functions only to "
                "authenticated callers, and it was started without a bearer token",
            )
        # The file exactly as written: it was just parsed and validated, so it is one JSON value.
        location = json.dumps(resolved.location).encode()
        body = b'{"metadata-location":' + location + b',"metadata":' + raw + b"}"
        return body, entity_tag(resolved.location, raw)


def _page(request: Request, names: list[str]) -> tuple[list[str], str | None]:
    """The page of the sorted ``names`` the query asks for, and the next page's token.

    A token is the last name of the page it ends: any string is then a valid token (the names
    after it), so a token from an older listing, or one a client made up, still pages on."""
    token = request.query_params.get("pageToken")
    size_text = request.query_params.get("pageSize")
    size = _DEFAULT_PAGE
    if size_text is not None:
        if not size_text.isdigit() or int(size_text) < 1:
            raise _Error(400, "BadRequestException", "pageSize must be a positive integer")
        size = min(int(size_text), _MAX_PAGE)
    if token is None:
        return names, None
    rest = [n for n in names if n > token] if token else names
    page = rest[:size]
    return page, (page[-1] if len(page) < len(rest) else None)


Handler = Callable[[Request, _Catalog], Response]


def _route(handler: Handler, catalog: _Catalog) -> Callable[[Request], Awaitable[Response]]:
    """Check prefix and token, run the (blocking) handler in a worker thread, map errors."""
    from starlette.concurrency import run_in_threadpool

    async def endpoint(request: Request) -> Response:
        token = catalog.settings.bearer_token()
        if token is not None and not _authenticated(request, token):
            return _error_response(
                401,
                "NotAuthorizedException",
                "this server needs an Authorization: Bearer token",
                {"WWW-Authenticate": "Bearer"},
            )
        try:
            prefix = request.path_params.get("prefix")
            if prefix is not None and prefix != catalog.settings.prefix:
                raise _Error(
                    404, "NoSuchWarehouseException", f"no warehouse is served at prefix {prefix!r}"
                )
            if request.method == "POST":
                request.state.body = await _body(request)
            return await run_in_threadpool(handler, request, catalog)
        except (_Error, WriteError) as e:
            return _error_response(e.code, e.kind, e.message)

    return endpoint


async def _body(request: Request) -> bytes:
    """The request body, refused past :data:`MAX_BODY` bytes before more is read."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise _Error(400, "BadRequestException", f"the request body exceeds {MAX_BODY} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _authenticated(request: Request, token: str | None) -> bool:
    if token is None:
        return False
    given = request.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        value.strip().encode(), token.encode()
    )


def _config(request: Request, catalog: _Catalog) -> Response:
    wanted = request.query_params.get("warehouse")
    served = {catalog.settings.prefix, catalog.warehouse.store.location()}
    if wanted is not None and wanted not in served:
        raise _Error(404, "NoSuchWarehouseException", f"warehouse {wanted!r} is not served here")
    writes = WRITE_ENDPOINTS if catalog.settings.allow_writes else ()
    body = {
        "defaults": {},
        "overrides": {"prefix": catalog.settings.prefix},
        "endpoints": [*ENDPOINTS, *writes],
    }
    return JSONResponse(body)


def _list_namespaces(request: Request, catalog: _Catalog) -> Response:
    parent_text = request.query_params.get("parent") or None
    parent: list[str] = []
    if parent_text is not None:
        parent = _namespace_parts(parent_text)
        if _folder(parent) is None:
            raise _Error(
                404, "NoSuchNamespaceException", f"namespace {parent_text!r} does not exist"
            )
    children: set[str] = set()
    for folder in catalog.namespaces():
        parts = _rest_parts(folder)
        if len(parts) > len(parent) and parts[: len(parent)] == parent:
            children.add(_SEPARATOR.join(parts[: len(parent) + 1]))
    if parent and not children and _folder(parent) not in catalog.namespaces():
        raise _Error(404, "NoSuchNamespaceException", f"namespace {parent_text!r} does not exist")
    page, token = _page(request, sorted(children))
    body: dict[str, Any] = {"namespaces": [n.split(_SEPARATOR) for n in page]}
    if token is not None:
        body["next-page-token"] = token
    return JSONResponse(body)


def _load_namespace(request: Request, catalog: _Catalog) -> Response:
    folder = catalog.require_namespace(request.path_params["namespace"])
    if request.method == "HEAD":
        return Response(status_code=204)
    return JSONResponse({"namespace": _rest_parts(folder), "properties": {}})


def _functions(request: Request, catalog: _Catalog) -> Response:
    if request.method == "POST":
        folder = catalog.require_namespace(request.path_params["namespace"])
        ref = create_function(catalog.warehouse, folder, request.state.body)
        body, tag = catalog.load(folder, ref.name, authenticated=True)
        return Response(body, media_type="application/json", headers={"ETag": tag})
    return _list_functions(request, catalog)


def _list_functions(request: Request, catalog: _Catalog) -> Response:
    folder = catalog.require_namespace(request.path_params["namespace"])
    page, token = _page(request, catalog.function_names(folder))
    parts = _rest_parts(folder)
    body: dict[str, Any] = {"identifiers": [[*parts, name] for name in page]}
    if token is not None:
        body["next-page-token"] = token
    return JSONResponse(body)


def _function(request: Request, catalog: _Catalog) -> Response:
    """loadFunction; functionExists (HEAD) and dropFunction (DELETE) of the PR #17966 reading."""
    if request.method == "GET":
        return _load_function(request, catalog)
    folder = catalog.require_namespace(request.path_params["namespace"])
    name = request.path_params["function"]
    if name not in catalog.function_names(folder):
        raise _Error(404, "NoSuchFunctionException", f"function {name!r} does not exist")
    if request.method == "DELETE":
        if_match = _precondition(request, "If-Match")
        drop_function(catalog.warehouse, FunctionRef(folder, name), if_match=if_match)
    return Response(status_code=204)


def _load_function(request: Request, catalog: _Catalog) -> Response:
    folder = catalog.require_namespace(request.path_params["namespace"])
    token = catalog.settings.bearer_token()
    name = request.path_params["function"]
    body, tag = catalog.load(folder, name, _authenticated(request, token))
    held = _precondition(request, "If-None-Match")
    if held is not None and matches(held, tag, weak=True):  # the client has it already
        return Response(status_code=304, headers={"ETag": tag})
    return Response(body, media_type="application/json", headers={"ETag": tag})


def _precondition(request: Request, header: str) -> list[str] | None:
    """The entity tags of a precondition header (:mod:`.etags`), None without one."""
    try:
        return parse_tags(request.headers.get(header))
    except ValueError as e:
        raise _Error(400, "BadRequestException", f"{header}: {e}") from None


def create_app(warehouse: Warehouse, settings: ServerSettings | None = None) -> Starlette:
    """The ASGI application serving ``warehouse`` (see the module docstring)."""
    settings = settings or ServerSettings()
    if settings.allow_writes and settings.bearer_token() is None:
        raise ValueError(
            f"a server that takes writes needs a bearer token ({TOKEN_ENV}): an "
            "unauthenticated write could replace any function's body"
        )
    catalog = _Catalog(warehouse, settings)
    post, delete = (["POST"], ["DELETE"]) if settings.allow_writes else ([], [])
    base = "/v1/{prefix}/namespaces"
    routes = [
        Route("/v1/config", _route(_config, catalog), methods=["GET"]),
        Route(base, _route(_list_namespaces, catalog), methods=["GET"]),
        Route(base + "/{namespace}", _route(_load_namespace, catalog), methods=["GET", "HEAD"]),
        Route(
            base + "/{namespace}/functions",
            _route(_functions, catalog),
            methods=["GET", *post],
        ),
        Route(
            base + "/{namespace}/functions/{function}",
            _route(_function, catalog),
            methods=["GET", "HEAD", *delete],
        ),
    ]

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        kind = {404: "NoSuchResourceException", 405: "MethodNotAllowedException"}.get(
            exc.status_code, "BadRequestException"
        )
        message = exc.detail if isinstance(exc.detail, str) else "bad request"
        return _error_response(exc.status_code, kind, message, dict(exc.headers or {}))

    async def server_error(request: Request, exc: Exception) -> Response:
        return _error_response(500, "InternalServerError", "internal server error")

    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )

    return app


def serve(
    warehouse: Warehouse,
    *,
    host: str = "127.0.0.1",
    port: int = 8181,
    settings: ServerSettings | None = None,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve ``warehouse`` with uvicorn until interrupted. The socket is bound first, so port 0
    picks a free port; ``on_ready`` gets the base URL (``http://host:port``)."""
    import socket

    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    # Listening before the address is announced: a client that connects at once (a test, a
    # script reading the "serving ... at" line) waits in the backlog instead of being refused
    # while uvicorn starts.
    sock.listen(2048)
    bound = sock.getsockname()[1]
    config = uvicorn.Config(create_app(warehouse, settings), log_level="warning", lifespan="off")
    if on_ready is not None:
        on_ready(f"http://{f'[{host}]' if family == socket.AF_INET6 else host}:{bound}")
    uvicorn.Server(config).run(sockets=[sock])
