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
* **Reading only**: the spec's function endpoints are read-only (writes are apache/iceberg PR
  #17966, not merged); :class:`RestCommitter` refuses every write with a message saying so.

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
    FunctionNotFoundError,
    UnsupportedStorageError,
    WarehouseError,
)
from translator.warehouse.layout import FunctionRef, namespace_folder, parse_metadata_name
from translator.warehouse.resolve import Resolved

__all__ = [
    "SCHEMES",
    "TOKEN_ENV",
    "LoadedFunction",
    "RestCatalogClient",
    "RestCommitter",
    "RestStore",
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
#: Endpoints PR #17966 would add; advertised or not, writing is refused (see the docstring).
CREATE_FUNCTION = "POST /v1/{prefix}/namespaces/{namespace}/functions"
DROP_FUNCTION = "DELETE /v1/{prefix}/namespaces/{namespace}/functions/{function}"
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


@dataclass(frozen=True, slots=True)
class LoadedFunction:
    """One ``loadFunction`` answer: where the metadata lives, its text as sent, and its model."""

    ref: FunctionRef
    metadata_location: str | None
    text: str
    metadata: UdfMetadata


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
        try:
            r = self._http.get(path, params=params)
        except self._httpx.HTTPError as e:
            raise WarehouseError(
                f"{self.address}: cannot reach the catalog: {type(e).__name__}: {e}"
            ) from None
        return r.status_code, r.text

    def _fail(self, path: str, status: int, text: str) -> WarehouseError:
        message = ""
        try:
            error = json.loads(text).get("error", {})
            message = f": {error.get('type', '')}: {error.get('message', '')}"
        except (ValueError, AttributeError):
            pass
        if status in (401, 403, 419):
            hint = f" (set {TOKEN_ENV} to the catalog's bearer token)" if status != 403 else ""
            return WarehouseError(f"{self.address}: not authorized ({status}){message}{hint}")
        return WarehouseError(f"{self.address}: GET {path} answered {status}{message}")

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

    def load_function(self, ref: FunctionRef) -> LoadedFunction:
        self.require(LOAD_FUNCTION)
        ns = list(ref.namespace_parts)
        path = f"{self._root()}/namespaces/{self._ns_path(ns)}/functions/{quote(ref.name, safe='')}"
        status, text = self._get(path)
        if status == 404:
            raise FunctionNotFoundError(f"function {ref} does not exist in {self.address}")
        if status != 200:
            raise self._fail(path, status, text)
        try:
            body = json.loads(text)
        except ValueError:
            raise WarehouseError(
                f"{self.address}: loadFunction of {ref} answered with no JSON"
            ) from None
        raw = raw_member(text, "metadata") if isinstance(body, dict) else None
        if raw is None:
            raise WarehouseError(f"{self.address}: loadFunction of {ref} has no metadata")
        location = body.get("metadata-location")
        source = f"{self.address} {ref}"
        try:
            meta = load_metadata(raw, source=location or source)
        except MetadataError as e:
            raise MetadataError(f"{source}: {e.message}", e.problems) from None
        return LoadedFunction(ref, location if isinstance(location, str) else None, raw, meta)

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

    def create_exclusive(self, rel: str, data: bytes, *, make_dirs: bool) -> None:
        raise self._no_files(rel)

    def remove(self, rel: str) -> None:
        raise self._no_files(rel)

    def move_dir(self, src: str, dst: str) -> None:
        raise self._no_files(src)

    def lock(self, name: str, timeout_s: float) -> contextlib.AbstractContextManager[bool]:
        return contextlib.nullcontext(False)


class RestCommitter:
    """The :class:`~translator.warehouse.commit.Committer` of a REST catalog: reads, no writes."""

    def __init__(self, client: RestCatalogClient) -> None:
        self.client = client

    def base(self, ref: FunctionRef) -> Resolved | None:
        try:
            loaded = self.client.load_function(ref)
        except FunctionNotFoundError:
            return None
        location = loaded.metadata_location or f"{self.client.address}#{ref}"
        name = parse_metadata_name(location.rpartition("/")[2])
        return Resolved(
            ref, location, location, None if name is None else name.version, loaded.metadata
        )

    def refuse(self, what: str) -> WarehouseError:
        advertised = self.client.endpoints or set()
        if CREATE_FUNCTION in advertised and DROP_FUNCTION in advertised:
            why = (
                "it advertises create/drop (apache/iceberg PR #17966, not merged), but that draft "
                "replaces a function's version ids and definition-log on create and has no update, "
                "so every change would drop the function's history; this tool does not write "
                "through it yet"
            )
        else:
            why = "it advertises no function writes (the spec's function endpoints only read)"
        return UnsupportedStorageError(
            f"{self.client.address}: cannot {what} in this REST catalog: {why}"
        )

    def commit(self, ref: FunctionRef, base: Resolved | None, meta: UdfMetadata) -> Any:
        raise self.refuse(f"commit {ref}")

    def drop(self, ref: FunctionRef, base: Resolved) -> str:
        raise self.refuse(f"drop {ref}")

    def functions(self) -> list[tuple[FunctionRef, str | None]]:
        return [(ref, None) for ref in self.client.functions()]
