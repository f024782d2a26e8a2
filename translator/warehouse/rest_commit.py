"""Writing to an Iceberg REST catalog: createFunction and dropFunction, where advertised.

The catalog's write endpoints are our reading of apache/iceberg PR #17966 (unmerged;
``translator/server/functions-write-draft.yaml``): create, drop and exists, no update. So:

* **A new function is created** (``createFunction``) with every definition and its versions up to
  the current one, in version order: the catalog numbers them again and starts the
  definition-log itself (one entry), so the function's history in the catalog starts there.
* **An unchanged function is not written.** ``apply`` merges the DDL into what the catalog
  serves, as on a folder: a deploy run twice finds nothing to change.
* **A change to an existing function is refused** (:class:`HistoryWouldBeLostError`): without an
  update endpoint it would be a drop and a create, and the create makes new version ids,
  timestamps and definition-log, so the function's history would be gone. With
  ``replace_discarding_history`` the caller accepts that: the function is dropped and created
  again (its versions' bodies are kept, renumbered), and the commit carries a note saying so.
* **A drop** is ``dropFunction``, with ``If-Match: <the ETag of the read it decided on>``
  where the catalog sent one (our server honours it: :mod:`translator.server.etags`), so that a
  function another writer changed meanwhile is not dropped: the apply reads it again and decides
  again.
* **Rollback is refused**: it is a change (a new log entry), and re-creating a function to roll
  it back would discard the very history the rollback reads.

Idempotent across crashes without a journal (the catalog holds no files of ours): a create whose
answer was lost, or that another writer won (409), is a :class:`Conflict`, so the apply reads the
catalog again and merges against what is there; an identical function is then unchanged.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from translator.errors import Diagnostic, TranslatorError
from translator.metadata import UdfMetadata, dump_metadata
from translator.warehouse.commit import Committed, Conflict
from translator.warehouse.errors import (
    FunctionChangedError,
    FunctionNotFoundError,
    HistoryWouldBeLostError,
    UnsupportedStorageError,
)
from translator.warehouse.layout import FunctionRef, parse_metadata_name
from translator.warehouse.resolve import Resolved
from translator.warehouse.rest import (
    CREATE_FUNCTION,
    DROP_FUNCTION,
    FunctionExistsError,
    RestCatalogClient,
    RestTransportError,
)

__all__ = ["SERVER_ASSIGNED", "RestCommitter", "create_request", "same_function"]

#: Top-level metadata fields a REST catalog assigns on create: a client never sends them, and
#: our server (:mod:`translator.server.writes`) ignores them in a request.
SERVER_ASSIGNED = ("function-uuid", "format-version", "definition-log", "location")


def create_request(ref: FunctionRef, meta: UdfMetadata) -> dict[str, Any]:
    """The ``CreateFunctionRequest`` that makes ``meta`` in a catalog, as far as a create can:
    each definition with its versions up to the current one (the catalog makes the last one
    sent current), without what the catalog assigns. Unknown fields go along."""
    document = json.loads(dump_metadata(meta))
    definitions = []
    for d in document["definitions"]:
        current = d["current-version-id"]
        versions = sorted(
            (v for v in d["versions"] if v["version-id"] <= current), key=lambda v: v["version-id"]
        )
        sent = {k: v for k, v in d.items() if k not in ("definition-id", "current-version-id")}
        sent["versions"] = [
            {k: x for k, x in v.items() if k not in ("version-id", "timestamp-ms")}
            for v in versions
        ]
        definitions.append(sent)
    rest = {k: v for k, v in document.items() if k not in (*SERVER_ASSIGNED, "definitions")}
    return {"name": ref.name, "definitions": definitions, **rest}


#: The spec's defaults: a catalog may write them out or leave them out, the function is the same.
_DEFAULTS: dict[str, dict[str, Any]] = {
    "function": {"secure": False, "properties": {}},
    "definition": {"return-nullable": True},
    "version": {"deterministic": False, "on-null-input": "call"},
}


def _explicit(obj: dict[str, Any], level: str) -> dict[str, Any]:
    defaults = _DEFAULTS[level]
    return {k: v for k, v in obj.items() if k not in defaults or v != defaults[k]}


def _comparable(request: dict[str, Any]) -> dict[str, Any]:
    out = _explicit(request, "function")
    out["definitions"] = [
        {
            **_explicit(d, "definition"),
            "versions": [_explicit(v, "version") for v in d["versions"]],
        }
        for d in request["definitions"]
    ]
    return out


def same_function(ref: FunctionRef, a: UdfMetadata, b: UdfMetadata) -> bool:
    """Whether ``a`` and ``b`` are the same function as far as a create says (everything but
    what the catalog assigns, a field at the spec's default or left out alike): what "already
    there" means for a catalog without update."""
    return _comparable(create_request(ref, a)) == _comparable(create_request(ref, b))


class RestCommitter:
    """The :class:`~translator.warehouse.commit.Committer` of a REST catalog (module docstring)."""

    def __init__(
        self, client: RestCatalogClient, *, replace_discarding_history: bool = False
    ) -> None:
        self.client = client
        self.replace_discarding_history = replace_discarding_history
        #: The metadata location each function was last read at (:meth:`base`) and the entity
        #: tag it came with, sent as ``If-Match`` when a drop decided on that read.
        self._etags: dict[FunctionRef, tuple[str, str]] = {}

    def allowing(self, replace_discarding_history: bool) -> RestCommitter:
        """This committer, allowed (or not) to drop and re-create a changed function."""
        return RestCommitter(self.client, replace_discarding_history=replace_discarding_history)

    def base(self, ref: FunctionRef) -> Resolved | None:
        try:
            loaded = self.client.load_function(ref)
        except FunctionNotFoundError:
            return None
        location = loaded.metadata_location or f"{self.client.address}#{ref}"
        name = parse_metadata_name(location.rpartition("/")[2])
        if loaded.etag is not None:
            self._etags[ref] = (location, loaded.etag)
        else:
            self._etags.pop(ref, None)
        return Resolved(
            ref, location, location, None if name is None else name.version, loaded.metadata
        )

    def _drop(self, ref: FunctionRef, base: Resolved) -> None:
        """dropFunction of what ``base`` read: with its entity tag where the catalog sent one,
        so that a function changed meanwhile is not dropped (:class:`Conflict`: decided again
        on a re-read)."""
        location, etag = self._etags.get(ref, (None, None))
        try:
            self.client.drop_function(ref, if_match=etag if location == base.location else None)
        except FunctionChangedError as e:
            raise Conflict(e.message) from None

    # -- what may be written -------------------------------------------------------------------

    def _advertised(self) -> set[str]:
        return self.client.endpoints or set()

    def writes_advertised(self) -> bool:
        """Whether the catalog can take any function write (a create)."""
        return CREATE_FUNCTION in self._advertised()

    def refuse(self, what: str) -> UnsupportedStorageError:
        """The refusal of a write this catalog cannot take, saying why."""
        advertised = self._advertised()
        if CREATE_FUNCTION in advertised and DROP_FUNCTION in advertised:
            why = (
                "its function endpoints can create and drop but not update (apache/iceberg PR "
                "#17966), and re-creating a function to change it would discard the history "
                "this needs"
            )
        else:
            why = (
                "it advertises no function writes in /v1/config (the spec's function endpoints "
                "only read; create and drop are apache/iceberg PR #17966, unmerged)"
            )
        return UnsupportedStorageError(
            f"{self.client.address}: cannot {what} in this REST catalog: {why}"
        )

    def refusal(
        self, ref: FunctionRef, base: Resolved | None, meta: UdfMetadata | None
    ) -> TranslatorError | None:
        advertised = self._advertised()
        if meta is None:
            return None if DROP_FUNCTION in advertised else self.refuse(f"drop {ref}")
        if CREATE_FUNCTION not in advertised:
            return self.refuse(f"create {ref}")
        if base is None:
            return None
        if not self.replace_discarding_history:
            return HistoryWouldBeLostError(
                f"{ref} exists in the REST catalog {self.client.address} and this changes it: "
                "the catalog's function endpoints have no update (apache/iceberg PR #17966 "
                "creates and drops only), and dropping and creating it again would discard its "
                "history (definition-log, version ids, timestamps); nothing was written for it. "
                "Allow replacing it with its history discarded to do it anyway"
            )
        if DROP_FUNCTION not in advertised:
            return self.refuse(f"replace {ref}")
        return None

    # -- writing -------------------------------------------------------------------------------

    def commit(self, ref: FunctionRef, base: Resolved | None, meta: UdfMetadata) -> Committed:
        refused = self.refusal(ref, base, meta)
        if refused is not None:
            raise refused
        note = None
        if base is not None:
            with contextlib.suppress(FunctionNotFoundError):  # dropped meanwhile: fine
                self._drop(ref, base)
            note = Diagnostic(
                "history-discarded",
                f"{ref} was dropped and created again in the REST catalog (it has no update): "
                "its definition-log, version ids and timestamps start over; the bodies of its "
                "versions up to each current one are kept",
            )
        try:
            loaded = self.client.create_function(ref, create_request(ref, meta))
        except (FunctionExistsError, RestTransportError) as e:
            # Another writer created it, or the answer was lost: read the catalog again and
            # decide on what it holds (an identical function is then unchanged).
            raise Conflict(e.message) from None
        location = loaded.metadata_location or f"{self.client.address}#{ref}"
        name = parse_metadata_name(location.rpartition("/")[2])
        return Committed(ref, 1 if name is None else name.version, location, location, note)

    def drop(self, ref: FunctionRef, base: Resolved) -> str:
        if DROP_FUNCTION not in self._advertised():
            raise self.refuse(f"drop {ref}")
        try:
            self._drop(ref, base)
        except FunctionNotFoundError as e:
            raise Conflict(e.message) from None  # gone meanwhile: decided again on a re-read
        except RestTransportError as e:
            raise Conflict(e.message) from None
        return ""  # the catalog decides what becomes of its files

    def functions(self) -> list[tuple[FunctionRef, str | None]]:
        return [(ref, None) for ref in self.client.functions()]
