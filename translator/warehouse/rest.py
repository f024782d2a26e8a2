"""A client for the Iceberg REST catalog's function endpoints: a warehouse at ``rest+http(s)://``.

``rest+https://host:port/PREFIX`` reads the catalog at ``https://host:port``: ``GET /v1/config``
first (its ``overrides`` may set the ``prefix``, as the spec says overrides win), then
``listNamespaces``, ``listFunctions`` (following ``next-page-token``) and ``loadFunction``.
Without a path, the prefix comes from the config alone.

* **Authentication**: a bearer token from the environment variable :data:`TOKEN_ENV`, sent as
  ``Authorization: Bearer ...``. It never appears in a message, a repr or a log line.
* **Metadata as sent**: :meth:`RestCatalogClient.load_function` keeps the exact text of the
  response's ``metadata`` member (:func:`raw_member`), so what a server sends byte for byte, unknown
  fields included, reaches the caller byte for byte; it is also parsed and validated like a file.
* **Writes** (createFunction, dropFunction, functionExists: our reading of apache/iceberg PR
  #17966, unmerged) are used only where ``/v1/config`` advertises them; what a write may do is
  :mod:`translator.warehouse.rest_commit`'s to decide.

Needs ``pip install 'iceberg-udf[rest]'`` (httpx).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from translator.errors import MetadataError
from translator.metadata import UdfMetadata, load_metadata
from translator.warehouse.errors import (
    FunctionChangedError,
    FunctionNotFoundError,
    UnsupportedStorageError,
    WarehouseError,
)
from translator.warehouse.layout import (
    FunctionRef,
    namespace_folder,
    namespace_parts,
)

__all__ = [
    "CREATE_FUNCTION",
    "DROP_FUNCTION",
    "FUNCTION_EXISTS",
    "SCHEMES",
    "TOKEN_ENV",
    "FunctionExistsError",
    "LoadedFunction",
    "RestCatalogClient",
    "RestStore",
    "RestTransportError",
    "is_rest_address",
    "raw_member",
]

SCHEMES = ("rest+http://", "rest+https://")
#: The environment variable holding the bearer token sent to the catalog.
TOKEN_ENV = "ICEBERG_UDF_REST_TOKEN"
#: Endpoints a catalog must advertise for reading functions.
LIST_FUNCTIONS = "GET /v1/{prefix}/namespaces/{namespace}/functions"
LOAD_FUNCTION = "GET /v1/{prefix}/namespaces/{namespace}/functions/{function}"
LIST_NAMESPACES = "GET /v1/{prefix}/namespaces"
#: Endpoints apache/iceberg PR #17966 adds (unmerged; translator/server/functions-write-draft.yaml).
CREATE_FUNCTION = "POST /v1/{prefix}/namespaces/{namespace}/functions"
DROP_FUNCTION = "DELETE /v1/{prefix}/namespaces/{namespace}/functions/{function}"
FUNCTION_EXISTS = "HEAD /v1/{prefix}/namespaces/{namespace}/functions/{function}"
#: A listing that keeps handing out page tokens is cut off here rather than followed forever.
_MAX_PAGES = 10_000


def is_rest_address(where: object) -> bool:
    return isinstance(where, str) and where.lower().startswith(SCHEMES)


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def raw_member(text: str, key: str) -> str | None:
    """The exact text of the top-level member ``key`` of the JSON object ``text`` (with the
    whitespace around it), or None if absent. ``text`` must already be known to parse."""
    decoder = json.JSONDecoder()
    i = _skip_ws(text, 0)
    if text[i : i + 1] != "{":
        return None
    i = _skip_ws(text, i + 1)
    found: str | None = None
    while i < len(text) and text[i] != "}":
        name, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        i = _skip_ws(text, i)
        start = i + 1  # after the colon
        _, end = decoder.raw_decode(text, _skip_ws(text, start))
        stop = _skip_ws(text, end)
        if name == key:
            found = text[start:stop]
        i = _skip_ws(text, stop + 1) if text[stop] == "," else stop
    return found


class RestTransportError(WarehouseError):
    """The catalog could not be reached, or the connection broke before an answer: a write may
    or may not have happened."""


class FunctionExistsError(WarehouseError):
    """createFunction answered 409: the function exists."""

    code = "exists"


@dataclass(frozen=True, slots=True)
class LoadedFunction:
    """One ``loadFunction`` answer: where the metadata lives, its text as sent, and its model."""

    ref: FunctionRef
    metadata_location: str | None
    text: str
    metadata: UdfMetadata
    #: The answer's ``ETag`` (quotes included), where the catalog sends one: a later
    #: dropFunction sends it as ``If-Match`` so that it drops only what was read.
    etag: str | None = None


class RestCatalogClient:
    """Reads functions from an Iceberg REST catalog (see the module docstring)."""

    def __init__(self, address: str, *, token: str | None = None, timeout_s: float = 30.0) -> None:
        if not is_rest_address(address):
            raise WarehouseError(f"{address}: a REST catalog address starts with rest+http(s)://")
        try:
            import httpx
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise UnsupportedStorageError(
                f"{address}: REST catalogs need httpx: pip install 'iceberg-udf[rest]'"
            ) from e
        parts = urlsplit(address[len("rest+") :])
        if not parts.hostname:
            raise WarehouseError(f"{address}: no host in the address")
        self.address = address
        self.base_url = f"{parts.scheme}://{parts.netloc}"
        self._prefix = unquote(parts.path.strip("/"))
        token = token if token is not None else os.environ.get(TOKEN_ENV) or None
        headers = {"Accept": "application/json", "User-Agent": "iceberg-udf"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._http = httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout_s)
        self._httpx = httpx
        self._config: dict[str, Any] | None = None

    def __repr__(self) -> str:  # never the headers: they hold the token
        return f"RestCatalogClient({self.address!r})"

    def close(self) -> None:
        self._http.close()

    # -- HTTP -----------------------------------------------------------------------------

    def _get(self, path: str, params: dict[str, str] | None = None) -> tuple[int, str]:
        return self._send("GET", path, params=params)

    def _send(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
    ) -> tuple[int, str]:
        r = self._request(method, path, params=params, body=body)
        return r.status_code, r.text

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:  # an httpx.Response (httpx is imported only where a REST catalog is used)
        try:
            return self._http.request(method, path, params=params, json=body, headers=headers)
        except self._httpx.HTTPError as e:
            raise RestTransportError(
                f"{self.address}: cannot reach the catalog: {type(e).__name__}: {e}"
            ) from None

    def _fail(self, path: str, status: int, text: str, method: str = "GET") -> WarehouseError:
        message = ""
        try:
            error = json.loads(text).get("error", {})
            message = f": {error.get('type', '')}: {error.get('message', '')}"
        except (ValueError, AttributeError):
            pass
        if status in (401, 403, 419):
            hint = f" (set {TOKEN_ENV} to the catalog's bearer token)" if status != 403 else ""
            return WarehouseError(f"{self.address}: not authorized ({status}){message}{hint}")
        return WarehouseError(f"{self.address}: {method} {path} answered {status}{message}")

    def _json(self, path: str, params: dict[str, str] | None = None) -> tuple[Any, str]:
        status, text = self._get(path, params)
        if status != 200:
            raise self._fail(path, status, text)
        try:
            return json.loads(text), text
        except ValueError:
            raise WarehouseError(f"{self.address}: GET {path} answered with no JSON") from None

    # -- catalog --------------------------------------------------------------------------

    def config(self) -> dict[str, Any]:
        if self._config is None:
            body, _ = self._json("/v1/config")
            if not isinstance(body, dict):
                raise WarehouseError(f"{self.address}: /v1/config is not a JSON object")
            self._config = body
        return self._config

    @property
    def prefix(self) -> str:
        overrides = self.config().get("overrides") or {}
        return str(overrides.get("prefix") or self._prefix)

    @property
    def endpoints(self) -> set[str] | None:
        """What the catalog advertises; None when it says nothing (the spec's default set,
        which has no function endpoints)."""
        listed = self.config().get("endpoints")
        return None if listed is None else {str(e) for e in listed}

    def _separator(self) -> str:
        overrides = self.config().get("overrides") or {}
        return unquote(str(overrides.get("namespace-separator") or "%1F"))

    def _root(self) -> str:
        return f"/v1/{quote(self.prefix, safe='')}" if self.prefix else "/v1"

    def _ns_path(self, parts: list[str]) -> str:
        return quote(self._separator().join(parts), safe="")

    def require(self, endpoint: str) -> None:
        advertised = self.endpoints
        if advertised is None or endpoint not in advertised:
            raise UnsupportedStorageError(
                f"{self.address}: the catalog does not advertise {endpoint} in /v1/config"
            )

    def _paged(self, path: str, member: str, params: dict[str, str]) -> Iterator[Any]:
        token: str | None = ""
        seen: set[str] = set()
        for _ in range(_MAX_PAGES):
            body, _ = self._json(path, {**params, "pageToken": token or ""})
            yield from body.get(member) or []
            token = body.get("next-page-token")
            if not token:
                return
            if token in seen:
                raise WarehouseError(f"{self.address}: {path} repeated a page token")
            seen.add(token)
        raise WarehouseError(f"{self.address}: {path} never stopped paging")

    def list_namespaces(self, parent: list[str] | None = None) -> list[list[str]]:
        """Every namespace under ``parent`` (all levels), depth first."""
        self.require(LIST_NAMESPACES)
        params = {"parent": self._separator().join(parent)} if parent else {}
        out: list[list[str]] = []
        for ns in self._paged(f"{self._root()}/namespaces", "namespaces", params):
            parts = [str(p) for p in ns]
            out.append(parts)
            out.extend(self.list_namespaces(parts))
        return out

    def list_functions(self, namespace: list[str]) -> list[str]:
        self.require(LIST_FUNCTIONS)
        path = f"{self._root()}/namespaces/{self._ns_path(namespace)}/functions"
        return [str(ident[-1]) for ident in self._paged(path, "identifiers", {})]

    def _functions_path(self, namespace: str) -> str:
        return (
            f"{self._root()}/namespaces/{self._ns_path(list(namespace_parts(namespace)))}/functions"
        )

    def _function_path(self, ref: FunctionRef) -> str:
        return f"{self._functions_path(ref.namespace)}/{quote(ref.name, safe='')}"

    def load_function(self, ref: FunctionRef) -> LoadedFunction:
        self.require(LOAD_FUNCTION)
        path = self._function_path(ref)
        r = self._request("GET", path)
        if r.status_code == 404:
            raise FunctionNotFoundError(f"function {ref} does not exist in {self.address}")
        if r.status_code != 200:
            raise self._fail(path, r.status_code, r.text)
        return self._loaded(ref, "loadFunction", r.text, r.headers.get("etag"))

    def create_function(self, ref: FunctionRef, request: dict[str, Any]) -> LoadedFunction:
        """createFunction with a ``CreateFunctionRequest``; the function as the catalog made it.
        :class:`FunctionExistsError` on 409; :class:`RestTransportError` when the answer was
        lost (the function may have been created)."""
        self.require(CREATE_FUNCTION)
        path = self._functions_path(ref.namespace)
        r = self._request("POST", path, body=request)
        status, text = r.status_code, r.text
        if status == 409:
            raise FunctionExistsError(f"function {ref} already exists in {self.address}")
        if status == 404:
            raise WarehouseError(
                f"{self.address}: cannot create {ref}: the catalog has no namespace "
                f"{ref.namespace!r} (create the namespace in the catalog first)"
            )
        if status != 200:
            raise self._fail(path, status, text, "POST")
        return self._loaded(ref, "createFunction", text, r.headers.get("etag"))

    def drop_function(self, ref: FunctionRef, *, if_match: str | None = None) -> None:
        """dropFunction; :class:`FunctionNotFoundError` on 404. ``if_match``: the entity tag of
        the function as read (:attr:`LoadedFunction.etag`), sent as ``If-Match`` so that a
        catalog that honours it drops only that (412: :class:`FunctionChangedError`)."""
        self.require(DROP_FUNCTION)
        path = self._function_path(ref)
        headers = {"If-Match": if_match} if if_match is not None else None
        r = self._request("DELETE", path, headers=headers)
        status, text = r.status_code, r.text
        if status == 404:
            raise FunctionNotFoundError(f"function {ref} does not exist in {self.address}")
        if status == 412:
            raise FunctionChangedError(
                f"{self.address}: {ref} changed since it was read; the catalog did not drop it"
            )
        if status not in (200, 204):
            raise self._fail(path, status, text, "DELETE")

    def function_exists(self, ref: FunctionRef) -> bool:
        """functionExists where advertised, else a loadFunction."""
        advertised = self.endpoints or set()
        if FUNCTION_EXISTS not in advertised:
            try:
                self.load_function(ref)
            except FunctionNotFoundError:
                return False
            return True
        path = self._function_path(ref)
        status, text = self._send("HEAD", path)
        if status in (200, 204):
            return True
        if status == 404:
            return False
        raise self._fail(path, status, text, "HEAD")

    def _loaded(
        self, ref: FunctionRef, operation: str, text: str, etag: str | None = None
    ) -> LoadedFunction:
        """A ``LoadFunctionResult``: the metadata's exact text, parsed and validated."""
        try:
            body = json.loads(text)
        except ValueError:
            raise WarehouseError(
                f"{self.address}: {operation} of {ref} answered with no JSON"
            ) from None
        raw = raw_member(text, "metadata") if isinstance(body, dict) else None
        if raw is None:
            raise WarehouseError(f"{self.address}: {operation} of {ref} has no metadata")
        location = body.get("metadata-location")
        source = f"{self.address} {ref}"
        try:
            meta = load_metadata(raw, source=location or source)
        except MetadataError as e:
            raise MetadataError(f"{source}: {e.message}", e.problems) from None
        kept = location if isinstance(location, str) else None
        return LoadedFunction(ref, kept, raw, meta, etag)

    def functions(self) -> list[FunctionRef]:
        """Every function of the catalog whose name this tool can hold (see the README)."""
        out: list[FunctionRef] = []
        for ns in self.list_namespaces():
            for name in self.list_functions(ns):
                try:
                    out.append(FunctionRef(namespace_folder(ns), name))
                except WarehouseError:
                    continue
        return sorted(out)


class RestStore:
    """The :class:`~translator.warehouse.store.Store` of a REST catalog: it holds no files this
    tool can reach (the catalog decides which metadata is current), so file operations refuse."""

    protocol = "rest"

    def __init__(self, client: RestCatalogClient) -> None:
        self.client = client

    def location(self, rel: str = "") -> str:
        return f"{self.client.address.rstrip('/')}/{rel}" if rel else self.client.address

    def list_names(self, rel: str) -> list[str]:
        return []

    def list_dirs(self, rel: str) -> list[str]:
        return []

    def _no_files(self, rel: str) -> WarehouseError:
        return WarehouseError(
            f"{self.location(rel)}: a REST catalog serves functions, not files: name the "
            "function instead of a metadata file"
        )

    def read_bytes(self, rel: str) -> bytes:
        raise self._no_files(rel)

    def stat_key(self, rel: str) -> tuple[object, ...]:
        raise self._no_files(rel)

    def create_exclusive(self, rel: str, data: bytes | list[bytes], *, make_dirs: bool) -> None:
        raise self._no_files(rel)

    def remove(self, rel: str) -> None:
        raise self._no_files(rel)

    def move_dir(self, src: str, dst: str) -> None:
        raise self._no_files(src)

    def lock(self, name: str, timeout_s: float) -> contextlib.AbstractContextManager[bool]:
        return contextlib.nullcontext(False)
