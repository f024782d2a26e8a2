"""What a commit keeps of the long document it wrote: the texts of its parts, with the facts
the checks across objects need, for the next commit into it (:mod:`translator.metadata.reuse`).

A long document's text is written part by part (:mod:`translator.metadata.texts`): each
definition and log entry, and each version and reference of a long list, on its own. The texts
are kept with the objects they were written from (alive: they are known by identity).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from translator.metadata.model import Definition, DefinitionLogEntry, UdfMetadata
from translator.metadata.texts import Items, Text, item_text, object_chunks

__all__ = ["LONG", "Parts", "Written", "keep", "long_document", "written_whole"]

#: A list this long (a definition's versions, a log entry's references, or a document's
#: definitions, versions and log entries together) is written item by item.
LONG = 64


@dataclass(frozen=True, slots=True)
class Parts:
    """A long list's items (kept alive: they are known by identity), their texts, and the ids
    validation reads from them (version ids, or a reference's definition and version)."""

    objs: Sequence[Any]
    texts: Sequence[bytes]
    dids: Sequence[str]
    vids: Sequence[int]


@dataclass(frozen=True, slots=True)
class Written:
    """What a commit keeps of the valid document it wrote, for the next commit into it (its
    sequences are never changed once made)."""

    defs: tuple[Definition, ...]
    def_texts: Sequence[Text]
    def_ids: Sequence[str]
    def_vids: Sequence[frozenset[int]]
    def_names: Sequence[str | None]
    #: The versions of each long definition, by the definition's ``id()``.
    long_defs: dict[int, Parts]
    log: tuple[DefinitionLogEntry, ...]
    log_texts: Sequence[Text]
    log_ts: Sequence[int]
    #: The last log entry's references (and their texts, when it is long).
    last_refs: Parts
    #: The definition ids the log names that no definition has (these and maybe more: a
    #: definition created under one of them is checked against every entry).
    orphans: frozenset[str]
    #: How many versions the definitions hold together.
    versions: int

    @property
    def size(self) -> int:
        """How many texts it holds (the cache's weight of it)."""
        return len(self.defs) + len(self.log) + sum(len(p.objs) for p in self.long_defs.values())


def long_document(meta: UdfMetadata) -> bool:
    """Whether ``meta`` is written part by part (and its texts kept)."""
    return len(meta.definition_log) + sum(map(len, (d.versions for d in meta.definitions))) >= LONG


# --------------------------------------------------------------------------------------------
# A whole document (no texts to reuse)


def written_whole(meta: UdfMetadata, value: dict[str, Any]) -> tuple[list[bytes], Any] | None:
    """The pieces of the file bytes of ``meta`` from its JSON value, part by part, and what
    :func:`keep` needs to keep them; None if the value's shape is not the models' (the caller
    writes it whole).
    :class:`~pydantic_core.PydanticSerializationError` as from ``to_json``."""
    defs, log = value.get("definitions"), value.get("definition-log")
    if type(defs) is not list or type(log) is not list or len(defs) != len(meta.definitions):
        return None
    if len(log) != len(meta.definition_log):
        return None
    def_texts: list[Text] = []
    long_defs: dict[int, list[bytes]] = {}
    for d, dv in zip(meta.definitions, defs, strict=True):
        versions = dv.get("versions") if type(dv) is dict else None
        if type(versions) is list and len(versions) >= LONG:
            texts = [item_text(v, 8) for v in versions]
            long_defs[id(d)] = texts
            def_texts.append(_object(dv, "versions", texts, 4))
        else:
            def_texts.append(item_text(dv, 4))
    log_texts: list[Text] = []
    last_texts: list[bytes] = []
    for i, ev in enumerate(log):
        refs = ev.get("definition-versions") if type(ev) is dict else None
        if type(refs) is list and len(refs) >= LONG:
            texts = [item_text(r, 8) for r in refs]
            text = _object(ev, "definition-versions", texts, 4)
            if i == len(log) - 1:
                last_texts = texts
            log_texts.append(text if i == len(log) - 1 else b"".join(text))  # done with
        else:
            log_texts.append(item_text(ev, 4))
    lists = {"definitions": def_texts, "definition-log": log_texts}
    members = [(k, Items(lists[k]) if k in lists else item_text(v, 2)) for k, v in value.items()]
    out = object_chunks(members, 0)
    out.append(b"\n")
    return out, (def_texts, long_defs, log_texts, last_texts)


def keep(meta: UdfMetadata, value: dict[str, Any], texts: Any) -> Written:
    """The :class:`Written` of ``meta``, valid, written by :func:`written_whole` from ``value``."""
    def_texts, long_texts, log_texts, last_texts = texts
    defs, log = value["definitions"], value["definition-log"]
    long_defs = {}
    for d, dv in zip(meta.definitions, defs, strict=True):
        if id(d) in long_defs or id(d) not in long_texts:
            continue
        vids = tuple(v["version-id"] for v in dv["versions"])
        long_defs[id(d)] = Parts(tuple(d.versions), tuple(long_texts[id(d)]), (), vids)
    last = log[-1]["definition-versions"] if log else []
    last_obj = meta.definition_log[-1].definition_versions if log else []
    return Written(
        defs=tuple(meta.definitions),
        def_texts=tuple(def_texts),
        def_ids=tuple(dv["definition-id"] for dv in defs),
        def_vids=tuple(frozenset(v["version-id"] for v in dv["versions"]) for dv in defs),
        def_names=tuple(dv.get("specific-name") for dv in defs),
        long_defs=long_defs,
        log=tuple(meta.definition_log),
        log_texts=tuple(log_texts),
        log_ts=tuple(ev["timestamp-ms"] for ev in log),
        last_refs=Parts(
            tuple(last_obj) if last_texts else (),
            tuple(last_texts),
            tuple(r["definition-id"] for r in last),
            tuple(r["version-id"] for r in last),
        ),
        orphans=frozenset(r["definition-id"] for ev in log for r in ev["definition-versions"])
        - frozenset(dv["definition-id"] for dv in defs),
        versions=sum(len(dv["versions"]) for dv in defs),
    )


def _object(
    value: dict[str, Any], long_key: str, texts: Sequence[Text], indent: int
) -> list[bytes]:
    """The text of an object whose ``long_key`` list is written from its items' ``texts``."""
    inner = indent + 2
    return object_chunks(
        ((k, Items(texts) if k == long_key else item_text(v, inner)) for k, v in value.items()),
        indent,
    )
