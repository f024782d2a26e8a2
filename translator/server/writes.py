"""createFunction and dropFunction as we read apache/iceberg PR #17966 (unmerged).

``functions-write-draft.yaml`` beside this module is that reading, as an overlay on the official
OpenAPI document. They are served only when the server is started with writes allowed, and only
with a bearer token (an unauthenticated write is a hostile write: anyone who reaches the port
could replace a function's body).

A create is checked like any metadata this project writes: the request becomes a metadata
document, the document must pass :func:`~translator.metadata.validate_metadata` and every body
must be exactly one body in its own dialect
(:func:`~translator.body_checks.representation_problems`); a problem is a 400 naming its JSON
path, nothing is written. What the server assigns (the PR's list: function-uuid, format-version,
definition-log, definition-id, current-version-id, each version's version-id and timestamp-ms)
comes from the warehouse's injectable clock and uuid
source, so a served test warehouse is byte-stable. The commit is the warehouse's own atomic one:
a function created meanwhile by another writer makes it a 409, as an existing one does.

Our reading where the PR's description is silent: versions are numbered 1, 2, ... in the order
sent and the last is current; the definition-log gets one entry (every definition at its current
version) at the time of the create; fields the request carries that the metadata does not assign
(``doc``, ``properties``, ``secure``, unknown fields at any level) are kept, so nothing a metadata
file can hold is lost by a create.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from translator.errors import TranslatorError
from translator.metadata import UdfMetadata, validate_metadata
from translator.redact import mask_secrets
from translator.server.etags import entity_tag, matches
from translator.types import TypeParseError, definition_id, parse_type_json
from translator.warehouse import (
    FunctionChangedError,
    FunctionNotFoundError,
    FunctionRef,
    Resolved,
)
from translator.warehouse.commit import Conflict
from translator.warehouse.rest_commit import SERVER_ASSIGNED

if TYPE_CHECKING:
    from translator.warehouse import Warehouse

__all__ = ["WriteError", "create_function", "drop_function", "metadata_of_request"]

_MAX_PROBLEMS = 5


class WriteError(Exception):
    """A refused write: the HTTP status, the ``IcebergErrorResponse`` type and the message."""

    def __init__(self, code: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.code, self.kind, self.message = code, kind, mask_secrets(message)


def _bad(message: str) -> WriteError:
    return WriteError(400, "BadRequestException", message)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_request(body: bytes) -> dict[str, Any]:
    """The request's JSON object (NaN and Infinity are not JSON)."""
    try:
        doc = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _bad("the request body is not a JSON document") from None
    if not isinstance(doc, dict):
        raise _bad("a CreateFunctionRequest is a JSON object")
    return doc


def _definition_id(d: dict[str, Any]) -> str:
    """The canonical id of the definition's parameter types; "" when they do not parse (the
    document check then reports the parameter itself)."""
    params = d.get("parameters")
    if not isinstance(params, list):
        return ""
    try:
        return definition_id(
            [parse_type_json(p.get("type")) for p in params if isinstance(p, dict)]
        )
    except (TypeParseError, TranslatorError, RecursionError):
        return ""


def metadata_of_request(
    request: dict[str, Any], *, now: int, function_uuid: str
) -> tuple[str, dict[str, Any]]:
    """The function name and the metadata document a ``CreateFunctionRequest`` asks for, the
    server-assigned fields filled in (see the module docstring). Shape errors are 400s; the
    document itself is checked by the caller."""
    name = request.get("name")
    if not isinstance(name, str):
        raise _bad("$.name: a CreateFunctionRequest needs the function's name, a string")
    definitions = request.get("definitions")
    if not isinstance(definitions, list) or not definitions:
        raise _bad("$.definitions: a CreateFunctionRequest needs at least one definition")
    out_defs: list[dict[str, Any]] = []
    log_refs: list[dict[str, Any]] = []
    for i, d in enumerate(definitions):
        if not isinstance(d, dict):
            raise _bad(f"$.definitions[{i}]: a definition is a JSON object")
        versions = d.get("versions")
        if not isinstance(versions, list) or not versions:
            raise _bad(f"$.definitions[{i}].versions: a definition needs at least one version")
        new_versions = []
        for j, v in enumerate(versions, 1):
            if not isinstance(v, dict):
                raise _bad(f"$.definitions[{i}].versions[{j - 1}]: a version is a JSON object")
            new_versions.append({**v, "version-id": j, "timestamp-ms": now})
        did = _definition_id(d)
        out_defs.append(
            {
                **d,
                "definition-id": did,
                "versions": new_versions,
                "current-version-id": len(new_versions),
            }
        )
        log_refs.append({"definition-id": did, "version-id": len(new_versions)})
    kept = {k: v for k, v in request.items() if k not in ("name", "definitions", *SERVER_ASSIGNED)}
    document = {
        "function-uuid": function_uuid,
        "format-version": 1,
        "definitions": out_defs,
        "definition-log": [{"timestamp-ms": now, "definition-versions": log_refs}],
        **kept,
    }
    return name, document


def _checked(document: dict[str, Any]) -> UdfMetadata:
    """The model of ``document``, or a 400 listing what is wrong with it (JSON paths)."""
    from translator.body_checks import representation_problems
    from translator.metadata.read import metadata_from_document

    meta = None
    try:
        problems = [str(p) for p in validate_metadata(document)]
        if not problems:
            try:
                meta = metadata_from_document(document)
            except ValueError as e:  # pydantic's ValidationError: a shape the checks missed
                problems = [f"$: {e.__class__.__name__}"]
        if meta is not None:
            problems = [f"{path}: {why}" for path, why in representation_problems(meta)]
    except RecursionError:
        raise _bad("the request nests too deeply to be checked") from None
    if problems or meta is None:
        listed = "; ".join(problems[:_MAX_PROBLEMS])
        more = (
            f" (and {len(problems) - _MAX_PROBLEMS} more)" if len(problems) > _MAX_PROBLEMS else ""
        )
        raise _bad(f"the function this request describes is not valid metadata: {listed}{more}")
    return meta


def create_function(warehouse: Warehouse, namespace: str, body: bytes) -> FunctionRef:
    """Create the function a ``CreateFunctionRequest`` describes in ``namespace`` (a warehouse
    namespace the caller found to exist); 409 when it exists."""
    request = parse_request(body)
    context = warehouse.context
    name, document = metadata_of_request(
        request, now=context.clock(), function_uuid=context.new_uuid()
    )
    try:
        ref = FunctionRef(namespace, name)
    except TranslatorError as e:
        raise _bad(f"$.name: {e.message}") from None
    meta = _checked(document)
    exists = WriteError(409, "AlreadyExistsException", f"function {ref} already exists")
    if warehouse.committer.base(ref) is not None:
        raise exists
    try:
        warehouse.committer.commit(ref, None, meta)
    except Conflict:  # created meanwhile by another writer
        raise exists from None
    return ref


def drop_function(
    warehouse: Warehouse, ref: FunctionRef, *, if_match: list[str] | None = None
) -> None:
    """Drop ``ref`` through the warehouse (its own retry and tombstone rules); 404 if absent.
    ``if_match``: the entity tags of an ``If-Match`` header (:mod:`.etags`): drop only while
    the function is one of them, else 412 (checked again if another writer commits first)."""
    only_if: Callable[[Resolved], bool] | None = None
    if if_match is not None:
        tags, store = if_match, warehouse.store

        def only_if(current: Resolved) -> bool:
            tag = entity_tag(current.location, store.read_bytes(current.path))
            return matches(tags, tag, weak=False)

    try:
        warehouse.drop(ref, only_if=only_if)
    except FunctionNotFoundError as e:
        raise WriteError(404, "NoSuchFunctionException", e.message) from None
    except FunctionChangedError:
        raise WriteError(
            412,
            "CommitFailedException",
            f"{ref} is not the version If-Match names (it changed since it was read); not dropped",
        ) from None
