"""A new definition-log entry's references, sharing those of the last entry that still hold.

Every merge appends an entry naming every definition's current version: 100k of them in a long
history. Sharing the last entry's reference objects where they still hold (never changed in
place; written out as copies) makes no 100k models a merge, validates none of exact types, and
lets a commit reuse their texts (:mod:`translator.metadata.reuse`).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter, countOf, ne

from translator.metadata.model import Definition, DefinitionVersionRef, trusted

__all__ = ["InOrder", "log_references", "new_ref", "read_in_order"]


def log_references(
    defs: list[Definition], last: list[DefinitionVersionRef]
) -> list[DefinitionVersionRef]:
    """The references to each definition's current version, in the definitions' order,
    sharing the last entry's (``last``) where they hold and are shareable."""
    refs = _same_order_refs(defs, last)
    return _matched_refs(defs, last) if refs is None else refs


def _matched_refs(
    defs: list[Definition], last: list[DefinitionVersionRef]
) -> list[DefinitionVersionRef]:
    """The references, each definition's matched with the last entry's by position
    and, once the orders differ, by definition id."""
    by_id: dict[str, DefinitionVersionRef] | None = None  # once the orders differ
    refs, known = [], len(last)
    for i, d in enumerate(defs):
        did, vid = d.definition_id, d.current_version_id
        ref = last[i] if i < known else None
        if by_id is not None or (ref is not None and ref.definition_id != did):
            by_id = by_id or {r.definition_id: r for r in last}
            ref = by_id.get(did)
        if ref is None or ref.version_id != vid or not _shareable(ref):
            ref = new_ref(did, vid)
        refs.append(ref)
    return refs


_REF_FIELDS = frozenset({"definition_id", "version_id"})
_DID, _VID = attrgetter("definition_id"), attrgetter("version_id")
_CURRENT = attrgetter("current_version_id")
_EXTRA, _SET = attrgetter("__pydantic_extra__"), attrgetter("__pydantic_fields_set__")


def _same_order_refs(
    defs: list[Definition], last: list[DefinitionVersionRef]
) -> list[DefinitionVersionRef] | None:
    """The references when the last entry names the definitions in their order (a
    merge keeps it: new ones at the end) and every one of its references is shareable, decided
    a list at a time (no Python step per definition: 100k of them); None otherwise."""
    n = len(last)
    if len(defs) < n or n == 0:
        return None
    dids = list(map(_DID, defs))
    if not _shareable_in_order(dids[:n], last):
        return None
    vids = list(map(_CURRENT, defs))
    old_vids = list(map(_VID, last))
    if set(map(type, dids)) != {str} or set(map(type, old_vids)) != {int}:
        return None
    refs = list(last)
    changed = list(map(ne, vids, old_vids))
    i = -1
    for _ in range(changed.count(True)):
        i = changed.index(True, i + 1)
        refs[i] = new_ref(dids[i], vids[i])
    refs += map(new_ref, dids[n:], vids[n:])
    return refs


#: :func:`read_in_order` reads this many definitions and references at a time, so that each of
#: its passes finds the objects of a slice still in the processor's caches (at 100k definitions
#: a pass over the whole list finds none of them there).
_SLICE = 1024


@dataclass(frozen=True, slots=True)
class InOrder:
    """What :func:`read_in_order` found: the definitions' ids, and two new lists each of the
    definitions and of the references (copies made while the objects were in the caches: one
    for an index to compare against, one for a merge to change)."""

    ids: list[str]
    definitions: list[Definition]
    refs: list[DefinitionVersionRef]
    spare_definitions: list[Definition]
    spare_refs: list[DefinitionVersionRef]


def read_in_order(defs: list[Definition], last: list[DefinitionVersionRef]) -> InOrder | None:
    """The definitions' ids if ``last`` names every definition, in their order, at its current
    version, with references all shareable and of exact types; None otherwise. (What a merge's
    log entry makes true: :mod:`translator.metadata.index` relies on it.)

    Every definition and reference is read: a slice at a time, each slice by a few C-level
    passes (no Python step per definition), the copies made from the slices.
    """
    n = len(defs)
    if n != len(last) or not last:
        return None
    if n <= _SLICE:
        ids = _in_order(defs, last)
        if ids is None:
            return None
        return InOrder(ids, list(defs), list(last), list(defs), list(last))
    out = InOrder([], [], [], [], [])
    for i in range(0, n, _SLICE):
        d, r = defs[i : i + _SLICE], last[i : i + _SLICE]
        ids = _in_order(d, r)
        if ids is None:
            return None
        out.ids.extend(ids)
        out.definitions.extend(d)
        out.refs.extend(r)
        out.spare_definitions.extend(d)
        out.spare_refs.extend(r)
    return out


def _in_order(defs: list[Definition], last: list[DefinitionVersionRef]) -> list[str] | None:
    """:func:`read_in_order`'s checks of two lists of the same length: the ids, or None."""
    n = len(last)
    dids = list(map(_DID, defs))
    if not _shareable_in_order(dids, last) or countOf(map(type, dids), str) != n:
        return None
    vids = list(map(_VID, last))
    if countOf(map(type, vids), int) != n or vids != list(map(_CURRENT, defs)):
        return None
    return dids


def _shareable_in_order(dids: list[str], last: list[DefinitionVersionRef]) -> bool:
    """Whether ``last`` names ``dids`` in order with references all of the exact class, with no
    unknown keys and both fields set."""
    if dids != list(map(_DID, last)):
        return False
    n = len(last)
    if countOf(map(type, last), DefinitionVersionRef) != n or any(map(_EXTRA, last)):
        return False
    return countOf(map(_SET, last), _REF_FIELDS) == n


def new_ref(did: str, vid: int) -> DefinitionVersionRef:
    """A reference; checked by pydantic unless of the exact types (a model's fields may hold
    others: assignment is not validated)."""
    if type(did) is str and type(vid) is int:
        return trusted(DefinitionVersionRef, {"definition_id": did, "version_id": vid})
    return DefinitionVersionRef(definition_id=did, version_id=vid)


def _shareable(r: DefinitionVersionRef) -> bool:
    """No unknown keys (they belong to the entry that has them), exact types, both fields set."""
    return (
        type(r) is DefinitionVersionRef
        and not r.__pydantic_extra__
        and r.__pydantic_fields_set__ == _REF_FIELDS
        and type(r.definition_id) is str
        and type(r.version_id) is int
    )
