"""A commit into a long history at the cost of what it changed: the texts of the parts it shares
with the metadata it was merged into are reused, and only its own parts are validated.

:class:`Written` is what one commit keeps of the document it wrote (valid, or it would not
have been written): each definition's and log entry's text (and each version's and reference's
in a list of at least :data:`LONG` items), with the few facts the checks across objects need
(ids, version ids, specific names, timestamps, the ids the log names). The next commit into that
document (:func:`rewrite`) shares most of its objects with it, by identity: a merge copies what
a statement changes and never changes what it merged into (:mod:`translator.merge`), and the
warehouse never changes the metadata it keeps (:mod:`translator.warehouse.cache`). So a part
found there has that text and passed validation, and only the others are written and checked.

The verdict is the whole document's: each new part gets the checks
:func:`~translator.metadata.validate.validate_metadata` gives it, and the checks across
objects (unique definition ids and specific names, the log's order in time, its references)
run over the facts of every part. :func:`rewrite` only ever proves a document valid: on any
doubt (a problem, or a change whose consequences it does not follow, such as a definition
re-created under an id an older log entry names) it answers None, and the caller validates the
whole document as before, which reports every problem in order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice
from operator import eq, is_, is_not, le
from typing import Any

from pydantic_core import PydanticSerializationError

from translator.metadata.dump import _unusual_seen, metadata_to_json
from translator.metadata.model import (
    Definition,
    DefinitionLogEntry,
    DefinitionVersion,
    DefinitionVersionRef,
    UdfMetadata,
)
from translator.metadata.problems import (
    INT_MAX,
    LONG_MAX,
    LONG_MIN,
    Report,
    get_field,
    get_int_field,
)
from translator.metadata.texts import Items, Text, field_values, item_text, object_chunks
from translator.metadata.validate import _check_definition, _check_specific_name, _check_top
from translator.metadata.written import LONG, Parts, Written

#: The list attributes written from their items' texts.
_LISTS = frozenset({"definitions", "definition_log"})
_VERSIONS = frozenset({"versions"})
_REFS = frozenset({"definition_versions"})

__all__ = ["rewrite"]


class _Doubt(Exception):
    """Something :func:`rewrite` does not prove valid: the whole document is checked instead."""


def rewrite(meta: UdfMetadata, base: Written) -> tuple[list[bytes], Written] | None:
    """The pieces of the file bytes of ``meta``, proven valid, and its :class:`Written`; None
    when not proven
    (or a value must be written otherwise than by pydantic-core: the caller writes it whole)."""
    seen: list[object] = []
    token = _unusual_seen.set(seen)
    try:
        out = _Rewrite(meta, base).run()
    except (_Doubt, PydanticSerializationError):
        return None
    finally:
        _unusual_seen.reset(token)
    return None if seen else out


#: Up to this many changed positions, a list is matched with the old one position by position.
_FEW = 16


def _found(items: list[Any], value: object) -> Iterator[int]:
    """The positions of ``value`` in ``items`` (found by C scans: they are few)."""
    i = -1
    for _ in range(items.count(value)):
        i = items.index(value, i + 1)
        yield i


def _align(
    new: list[Any], old: Sequence[Any], columns: tuple[Sequence[Any], ...]
) -> tuple[list[int], list[list[Any]], bool]:
    """Match ``new``'s items with ``old``'s by identity: for each column (parallel to ``old``),
    a list parallel to ``new`` holding old's value where ``new`` holds old's object; the
    positions of the other items (theirs to fill); and whether the match is position by
    position (a merge changes a few items in place and appends: no hashing, no Python step
    per item; the items matched are then distinct objects). Otherwise matched by ``id()``."""
    n = len(new)
    diff = list(map(is_not, new, old))
    if diff.count(True) <= _FEW:
        m = len(diff)
        fresh = [*_found(diff, True), *range(m, n)]
        cols = [c[:m] if isinstance(c, list) else list(c[:m]) for c in columns]
        for c in cols:
            c += [None] * (n - m)
        return fresh, cols, True
    pos = dict(zip(map(id, old), range(len(old)), strict=True))
    where = list(map(pos.get, map(id, new)))
    fresh = list(_found(where, None))
    for i in fresh:
        where[i] = 0
    at: list[int] = where  # type: ignore[assignment]  # no None left
    return fresh, [list(map(c.__getitem__, at)) for c in columns], False


def _doubt_if(condition: bool) -> None:
    if condition:
        raise _Doubt


class _Rewrite:
    """One :func:`rewrite`: the parts, old and new, their texts and facts, and the verdict."""

    def __init__(self, meta: UdfMetadata, base: Written) -> None:
        self.meta = meta
        self.base = base
        self.check = Report()  # the new parts' own problems: any is a doubt
        self.base_by_id: dict[str, int] | None = None
        self.scans = 0
        #: Definition ids the new log entries name that no definition has.
        self.orphans: set[str] = set()

    def run(self) -> tuple[list[bytes], Written]:
        meta = self.meta
        top = field_values(meta, _LISTS)
        _doubt_if(top is None or type(meta) is not UdfMetadata)
        assert top is not None
        _check_top(dict(top), self.check)
        defs = self._definitions()
        log = self._log(defs)
        self._across(defs, log)
        _doubt_if(bool(self.check.problems))
        lists = {"definitions": defs.texts, "definition-log": log.texts}
        members = [(k, Items(lists[k]) if k in lists else item_text(v, 2)) for k, v in top]
        written = Written(
            defs=tuple(meta.definitions),
            def_texts=defs.texts,
            def_ids=defs.dids,
            def_vids=defs.vids,
            def_names=defs.names,
            long_defs=defs.long,
            log=tuple(meta.definition_log),
            log_texts=log.texts,
            log_ts=log.ts,
            last_refs=log.last,
            orphans=self._orphans(defs),
            versions=self._versions(defs),
        )
        out = object_chunks(members, 0)
        out.append(b"\n")
        return out, written

    def _orphans(self, defs: _Defs) -> frozenset[str]:
        """:attr:`Written.orphans` of ``meta``: those of ``base``, the ids of its definitions
        replaced or gone (some still here: more is safe), and those new entries name."""
        base = self.base
        if defs.in_place:
            gone = [base.def_ids[j] for j in defs.fresh if j < len(base.defs)]
            gone += base.def_ids[len(defs.dids) :]
        else:
            gone = list(set(base.def_ids).difference(defs.dids))
        if not gone and not self.orphans:
            return base.orphans
        return base.orphans.union(gone, self.orphans)

    def _versions(self, defs: _Defs) -> int:
        """How many versions ``meta``'s definitions hold: ``base``'s count, less those of the
        definitions replaced, plus those of the new ones."""
        base = self.base
        if not defs.in_place:
            return sum(map(len, defs.vids))
        gone = [j for j in defs.fresh if j < len(base.defs)]
        gone += range(len(defs.vids), len(base.defs))
        fresh = sum(len(defs.vids[i]) for i in defs.fresh)
        return base.versions - sum(len(base.def_vids[j]) for j in gone) + fresh

    # definitions ----------------------------------------------------------------------------

    def _definitions(self) -> _Defs:
        base, defs = self.base, self.meta.definitions
        _doubt_if(not defs)
        columns = (base.def_texts, base.def_ids, base.def_vids, base.def_names)
        fresh, (texts, dids, vids, names), in_place = _align(defs, base.defs, columns)
        # mostly new (a deep copy): as cheap checked whole
        _doubt_if(len(fresh) > _FEW and 2 * len(fresh) > len(defs))
        out = _Defs(texts, dids, vids, names, long={}, fresh=fresh, in_place=in_place)
        if base.long_defs:
            present = set(map(id, defs))
            out.long = {k: p for k, p in base.long_defs.items() if k in present}
        for i in fresh:
            self._definition(i, out)
        return out

    def _definition(self, i: int, out: _Defs) -> None:
        d = self.meta.definitions[i]
        _doubt_if(type(d) is not Definition)
        path = f"$.definitions[{i}]"
        versions = d.versions
        if type(versions) is list and len(versions) >= LONG:
            text, dv, vids = self._long_definition(d, path, out)
        else:
            dv = metadata_to_json(d)
            _check_definition(dv, path, self.check, frozenset())
            _doubt_if(bool(self.check.problems))
            text = item_text(dv, 4)
            vids = frozenset(v["version-id"] for v in dv["versions"])
        _check_specific_name(dv, path, {}, self.check)
        _doubt_if(bool(self.check.problems))
        out.texts[i], out.dids[i], out.vids[i] = text, dv["definition-id"], vids
        out.names[i] = dv.get("specific-name")

    def _long_definition(
        self, d: Definition, path: str, out: _Defs
    ) -> tuple[Text, dict[str, Any], frozenset[int]]:
        """A long definition: its versions shared with the same definition in ``base`` (a
        prefix of them, as a merge leaves them) are neither written nor checked again."""
        members = field_values(d, _VERSIONS)
        _doubt_if(members is None)
        assert members is not None
        versions = d.versions
        parts = self._base_versions(d.definition_id)
        k = 0
        if parts is not None and len(versions) >= len(parts.objs):
            k = len(parts.objs) if all(map(is_, versions, parts.objs)) else 0
        _doubt_if(any(type(v) is not DefinitionVersion for v in islice(versions, k, None)))
        tail = [metadata_to_json(v) for v in islice(versions, k, None)]
        dv = dict(members)
        trusted: frozenset[int] = frozenset()
        if k:
            assert parts is not None
            stub = {"version-id": max(parts.vids)}  # the order and uniqueness the tail must keep
            dv["versions"], trusted = [stub, *tail], frozenset({id(stub)})
        else:
            dv["versions"] = tail
        _check_definition(dv, path, self.check, trusted)
        _doubt_if(bool(self.check.problems))
        texts = list(parts.texts[:k]) if parts is not None and k else []
        texts += [item_text(v, 8) for v in tail]
        vids = list(parts.vids) if parts is not None and k else []
        vids += [v["version-id"] for v in tail]
        out.long[id(d)] = Parts(tuple(versions), texts, (), vids)
        text = object_chunks(
            ((k2, Items(texts) if k2 == "versions" else item_text(v, 6)) for k2, v in members),
            4,
        )
        return text, dv, frozenset(vids)

    def _base_versions(self, did: object) -> Parts | None:
        if type(did) is not str or not self.base.long_defs:
            return None
        j = self._base_position(did)
        return None if j is None else self.base.long_defs.get(id(self.base.defs[j]))

    def _base_position(self, did: str) -> int | None:
        """Where ``base`` has the definition ``did`` (a C scan for the first few, then a map)."""
        ids = self.base.def_ids
        if self.base_by_id is None:
            self.scans += 1
            if self.scans <= _FEW:
                return ids.index(did) if did in ids else None
            self.base_by_id = dict(zip(ids, range(len(ids)), strict=True))
        return self.base_by_id.get(did)

    # the log --------------------------------------------------------------------------------

    def _log(self, defs: _Defs) -> _Log:
        base, log = self.base, self.meta.definition_log
        last = len(log) - 1
        _doubt_if(last < 0 or not base.log)
        fresh, (texts, ts), _ = _align(log, base.log, (base.log_texts, base.log_ts))
        j = len(base.log) - 1  # the last entry of base, no longer the last: one piece from now
        if j < last and log[j] is base.log[j] and type(texts[j]) is list:
            texts[j] = b"".join(texts[j])
        out = _Log(texts, ts, last=base.last_refs, refs=[])
        if last not in fresh:  # the last entry is an old one: only if it was the last then
            _doubt_if(log[last] is not base.log[-1])
            out.refs.append((base.last_refs, True))
        for i in fresh:
            self._entry(i, i == last, out)
        return out

    def _entry(self, i: int, is_last: bool, out: _Log) -> None:
        e = self.meta.definition_log[i]
        _doubt_if(type(e) is not DefinitionLogEntry)
        path = f"$.definition-log[{i}]"
        refs = e.definition_versions
        if type(refs) is list and len(refs) >= LONG:
            members = field_values(e, _REFS)
            _doubt_if(members is None)
            assert members is not None
            ev = dict(members)
            parts = self._refs(refs, f"{path}.definition-versions")
            text: Text = object_chunks(
                (
                    (
                        k,
                        Items(parts.texts) if k == "definition-versions" else item_text(v, 6),
                    )
                    for k, v in members
                ),
                4,
            )
        else:
            ev = metadata_to_json(e)
            values = get_field(ev, "definition-versions", path, self.check, "array")
            _doubt_if(not values)
            parts = self._ref_values(values, f"{path}.definition-versions", with_texts=False)
            text = item_text(ev, 4)
        ts = get_int_field(ev, "timestamp-ms", path, self.check, low=LONG_MIN, high=LONG_MAX)
        if ts is None or self.check.problems:
            raise _Doubt
        out.texts[i], out.ts[i] = text, ts
        out.refs.append((parts, is_last))
        if is_last:
            out.last = parts

    def _refs(self, refs: list[DefinitionVersionRef], path: str) -> Parts:
        """A long entry's references: those shared with the last entry of ``base`` (a merge's
        new entry shares the references that still hold) reused, the others written."""
        old = self.base.last_refs
        if not old.texts:
            new = self._ref_values([self._ref_value(r) for r in refs], path, with_texts=True)
            return Parts(tuple(refs), new.texts, new.dids, new.vids)
        fresh, (texts, dids, vids), _ = _align(refs, old.objs, (old.texts, old.dids, old.vids))
        for i in fresh:
            one = self._ref_values([self._ref_value(refs[i])], f"{path}[{i}]", with_texts=True)
            texts[i], dids[i], vids[i] = one.texts[0], one.dids[0], one.vids[0]
        return Parts(tuple(refs), texts, dids, vids)

    @staticmethod
    def _ref_value(r: object) -> dict[str, Any]:
        _doubt_if(type(r) is not DefinitionVersionRef)
        return metadata_to_json(r)  # type: ignore[arg-type]

    def _ref_values(self, values: list[Any], path: str, *, with_texts: bool) -> Parts:
        """References written anew: the checks of each on its own (types and ranges)."""
        dids: list[str] = []
        vids: list[int] = []
        for k, rv in enumerate(values):
            where = f"{path}[{k}]"
            _doubt_if(type(rv) is not dict)
            did = get_field(rv, "definition-id", where, self.check, "string")
            vid = get_int_field(rv, "version-id", where, self.check, low=0, high=INT_MAX)
            if did is None or vid is None:
                raise _Doubt
            dids.append(did)
            vids.append(vid)
        texts = tuple(item_text(rv, 8) for rv in values) if with_texts else ()
        return Parts(tuple(values) if with_texts else (), texts, tuple(dids), tuple(vids))

    # across objects -------------------------------------------------------------------------

    def _across(self, defs: _Defs, log: _Log) -> None:
        """The checks that span parts, over every part's facts: a doubt if any would fail."""
        self._unique(defs)
        _doubt_if(not all(map(le, log.ts, islice(log.ts, 1, None))))
        known: dict[str, frozenset[int]] | None = None
        for refs, is_last in log.refs:
            if len(refs.dids) == len(defs.dids) and all(map(eq, refs.dids, defs.dids)):
                # the definitions' order, as a merge writes its entry: ids unique, all found
                _doubt_if(not all(map(frozenset.__contains__, defs.vids, refs.vids)))
                continue
            _doubt_if(len(set(refs.dids)) != len(refs.dids))
            if known is None:
                known = dict(zip(defs.dids, defs.vids, strict=True))
            found = list(map(known.get, refs.dids))
            if None in found:
                _doubt_if(is_last)  # the latest entry names only existing definitions
                pairs = [(f, v) for f, v in zip(found, refs.vids, strict=True) if f is not None]
                _doubt_if(not all(v in f for f, v in pairs))
                self.orphans.update(d for d, f in zip(refs.dids, found, strict=True) if f is None)
            else:
                sets: list[frozenset[int]] = found  # type: ignore[assignment]  # no None
                _doubt_if(not all(map(frozenset.__contains__, sets, refs.vids)))
        # Older entries, checked before against the definitions of base, against the definitions
        # checked anew: each keeps every version it had, or is one no older entry names.
        for i in defs.fresh:
            did = defs.dids[i]
            j = self._base_position(did)
            if j is None:
                _doubt_if(did in self.base.orphans)
            else:
                _doubt_if(not self.base.def_vids[j] <= defs.vids[i])

    def _unique(self, defs: _Defs) -> None:
        """Definition ids and specific names are unique. Matched in place, the definitions
        shared with ``base`` are distinct ones of it, unique there: only the new ones can clash,
        with each other or with a shared one (found by its position in ``base``)."""
        named = partial(is_not, None)
        if not defs.in_place or len(defs.fresh) > _FEW:
            _doubt_if(len(set(defs.dids)) != len(defs.dids))
            names = list(filter(named, defs.names))
            _doubt_if(len(set(names)) != len(names))
            return
        fresh = set(defs.fresh)
        new_ids = [defs.dids[i] for i in defs.fresh]
        new_names = [n for i in defs.fresh if (n := defs.names[i]) is not None]
        _doubt_if(len(set(new_ids)) != len(new_ids) or len(set(new_names)) != len(new_names))
        shared = min(len(self.base.defs), len(defs.dids))
        for value, column in ((new_ids, self.base.def_ids), (new_names, self.base.def_names)):
            for x in value:
                j = column.index(x) if x in column else None
                _doubt_if(j is not None and j < shared and j not in fresh)


@dataclass(slots=True)
class _Defs:
    texts: list[Text]
    dids: list[str]
    vids: list[frozenset[int]]
    names: list[str | None]
    long: dict[int, Parts]
    fresh: list[int]
    #: Matched with ``base``'s definitions position by position (see :func:`_align`).
    in_place: bool


@dataclass(slots=True)
class _Log:
    texts: list[Text]
    ts: list[int]
    last: Parts
    #: The references of the entries checked anew, each with whether it is the latest.
    refs: list[tuple[Parts, bool]]
