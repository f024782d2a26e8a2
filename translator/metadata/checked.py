"""The text of metadata about to be written, and what validation finds in it, at the cost of what
changed.

A commit never writes a file the spec rejects, so it validates what it writes. Parsing the text
it has just dumped and validating all of it cost two more passes over a long history for a
change of one definition. Here the value the text was written from is validated (exactly what
parsing the text would give: :func:`~translator.metadata.dump.encoded_metadata_and_value`), and the
definitions, versions and log entries that the new metadata shares with the metadata it was
merged into are not looked into again (``trusted`` of
:func:`~translator.metadata.validate.validate_metadata`: the checks across them still run).

Sharing is by identity: a merge copies what a statement changes and never changes what it merged
into (:mod:`translator.merge`), and the warehouse never changes metadata it has read or
committed (:mod:`translator.warehouse.cache`), which passed validation when it was read or
written. So an object of ``base`` found in the new metadata is one validation already passed.

A long document (:data:`~translator.metadata.written.LONG` items) is written part by part, and
what the commit keeps of it (:class:`~translator.metadata.written.Written`, kept beside the
cached model by the warehouse) lets the next commit into it reuse the text of every part it
shares and check only its new parts, with the checks across parts run over kept facts
(:mod:`translator.metadata.reuse`). ``ICEBERG_UDF_COMMIT_REUSE=0`` writes and checks every
commit whole, as before.
"""

from __future__ import annotations

import json
import os
from typing import Any

from pydantic_core import PydanticSerializationError

from translator.collector import bulk_allocation
from translator.metadata.dump import encoded_metadata_and_value, plain_value
from translator.metadata.model import UdfMetadata
from translator.metadata.problems import Problem
from translator.metadata.reuse import rewrite
from translator.metadata.validate import validate_metadata
from translator.metadata.written import Written, keep, long_document, written_whole

__all__ = ["REUSE_ENV", "Written", "checked_dump", "checked_write", "reuse_enabled"]

#: Set to 0 (or off, false, no) to write and validate every commit whole (no :class:`Written`).
REUSE_ENV = "ICEBERG_UDF_COMMIT_REUSE"
_OFF = frozenset({"0", "off", "false", "no"})


def reuse_enabled() -> bool:
    return os.environ.get(REUSE_ENV, "").strip().lower() not in _OFF


def checked_dump(meta: UdfMetadata, base: UdfMetadata | None) -> tuple[bytes, list[Problem]]:
    """The file bytes of ``meta`` (``dump_metadata(meta)`` in UTF-8) and their problems (none:
    they may be written), as ``validate_metadata(json.loads(data))`` finds them.

    ``base``: the metadata ``meta`` was merged from, valid and unchanged (None: check it all).
    """
    data, problems, _ = checked_write(meta, base, None)
    return (data if isinstance(data, bytes) else b"".join(data)), problems


def checked_write(
    meta: UdfMetadata, base: UdfMetadata | None, written: Written | None
) -> tuple[bytes | list[bytes], list[Problem], Written | None]:
    """:func:`checked_dump` (the bytes as one piece or, for a long document, as the pieces to
    write one after the other, never joined into a copy of 100 MB), with ``written``: what the
    commit of ``base`` kept of it (None: nothing), whose texts and facts are reused where
    ``meta`` shares its objects (:func:`~translator.metadata.reuse.rewrite`); and what to keep
    of ``meta`` for the next
    commit into it (None: nothing, for a short document, an invalid one, or one written by
    ``json.dumps``).

    The JSON value (a long history's millions of objects) is made and dropped while the cyclic
    collector is paused: were it still alive when the collector is back on, the first young
    collection would traverse all of it for nothing (it holds no cycles).
    """
    reuse = reuse_enabled()
    with bulk_allocation():  # a long history is millions of objects, and no cycles
        if reuse and written is not None and base is not None:
            done = rewrite(meta, written)
            if done is not None:
                return done[0], [], done[1]
        data, value, texts = _whole(meta, reuse)
        if value is None:  # something json.loads reads back otherwise (a float, a tuple)
            assert isinstance(data, bytes)
            return data, validate_metadata(json.loads(data)), None
        trusted = frozenset() if base is None else _shared(meta, base, value)
        problems = validate_metadata(value, trusted)
        kept = None if problems or texts is None else keep(meta, value, texts)
        del value, trusted
    return data, problems, kept


def _whole(
    meta: UdfMetadata, reuse: bool
) -> tuple[bytes | list[bytes], dict[str, Any] | None, Any]:
    """The bytes, the value they were written from (None: see ``encoded_metadata_and_value``),
    and the texts of a long document's parts (None: written in one piece)."""
    if reuse and long_document(meta):
        value, plain = plain_value(meta)
        if plain:
            try:
                done = written_whole(meta, value)
            except PydanticSerializationError:
                done = None
            if done is not None:
                return done[0], value, done[1]
        del value
    data, value_or_none = encoded_metadata_and_value(meta)
    return data, value_or_none, None


def _shared(meta: UdfMetadata, base: UdfMetadata, value: dict[str, Any]) -> frozenset[int]:
    """The ``id()`` of the JSON objects in ``value`` written from definitions, versions and log
    entries that ``meta`` shares with ``base`` (the lists are written in order, one object per
    item)."""
    out: set[int] = set()
    written = value.get("definitions")
    if isinstance(written, list) and len(written) == len(meta.definitions):
        old = {id(d) for d in base.definitions}
        by_id = {d.definition_id: d for d in base.definitions}
        for d, dv in zip(meta.definitions, written, strict=True):
            if id(d) in old:
                out.add(id(dv))
                continue
            was = by_id.get(d.definition_id)  # a copy of it, with a new version or body?
            versions = dv.get("versions")
            if was is None or not isinstance(versions, list) or len(versions) != len(d.versions):
                continue
            old_versions = {id(v) for v in was.versions}
            out.update(
                id(vv) for v, vv in zip(d.versions, versions, strict=True) if id(v) in old_versions
            )
    log = value.get("definition-log")
    if isinstance(log, list) and len(log) == len(meta.definition_log):
        before = base.definition_log
        out.update(
            id(ev) for e, ev, b in zip(meta.definition_log, log, before, strict=False) if e is b
        )
    return frozenset(out)
