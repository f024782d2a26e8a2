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
"""

from __future__ import annotations

import json
from typing import Any

from translator.collector import bulk_allocation
from translator.metadata.dump import encoded_metadata_and_value
from translator.metadata.model import UdfMetadata
from translator.metadata.problems import Problem
from translator.metadata.validate import validate_metadata

__all__ = ["checked_dump"]


def checked_dump(meta: UdfMetadata, base: UdfMetadata | None) -> tuple[bytes, list[Problem]]:
    """The file bytes of ``meta`` (``dump_metadata(meta)`` in UTF-8) and their problems (none:
    they may be written), as ``validate_metadata(json.loads(data))`` finds them.

    ``base``: the metadata ``meta`` was merged from, valid and unchanged (None: check it all).

    The JSON value (a long history's millions of objects) is made and dropped while the cyclic
    collector is paused: were it still alive when the collector is back on, the first young
    collection would traverse all of it for nothing (it holds no cycles).
    """
    with bulk_allocation():  # a long history is millions of objects, and no cycles
        data, value = encoded_metadata_and_value(meta)
        if value is None:  # something json.loads reads back otherwise (a float, a tuple)
            return data, validate_metadata(json.loads(data))
        trusted = frozenset() if base is None else _shared(meta, base, value)
        problems = validate_metadata(value, trusted)
        del value, trusted
    return data, problems


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
