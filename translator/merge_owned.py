"""The definitions one merge run has copied for its statements, and what it knows of each.

A statement never changes a definition it merges into: it first replaces it in the run's
private metadata by a copy of its own (:meth:`OwnedDefinitions.own`). A script that replaces one
function n times would so copy the definition's list of versions n times, and each statement
also needs the definition's current version and its highest version id, each a pass over the
list: n statements over a growing list, n squared steps (16,000 such statements took 12 s).

The run copies a definition once and then keeps changing its own copy. What it appended itself
it knows without looking: right after a new version is appended with the highest id and made
current, the current version is the last one and the highest id is its id, as long as the list
keeps that length (nothing else appends to or removes from a run's own copy; attaching a
representation replaces a version where it stands). Everything else (the first statement to
touch a definition, a definition not appended to) reads the list as before, so every answer is
exactly the list's.
"""

from __future__ import annotations

from operator import attrgetter

from translator.metadata import Definition, DefinitionVersion, UdfMetadata
from translator.metadata.index import DefinitionIndex
from translator.metadata.model import quiet_assign

__all__ = ["OwnedDefinitions"]

_VERSION_ID = attrgetter("version_id")


class OwnedDefinitions:
    """One merge run's own copies of definitions (module doc)."""

    __slots__ = ("_copies", "_tips")

    def __init__(self) -> None:
        #: id -> copy; the copies are held here, so no other object can take their ids.
        self._copies: dict[int, Definition] = {}
        #: id of a copy -> the length of its version list when the run appended its last
        #: version and made it current.
        self._tips: dict[int, int] = {}

    def own(
        self, meta: UdfMetadata, d: Definition, index: DefinitionIndex | None = None
    ) -> Definition:
        """``d`` replaced in ``meta`` by a copy a statement may change (its version list is new;
        the versions themselves are still shared), or ``d`` itself if it is this run's copy."""
        if self._copies.get(id(d)) is d:
            return d
        mine = d.model_copy()
        quiet_assign(mine, "versions", list(d.versions))
        p = None if index is None else index.position(d.definition_id)
        if p is None or meta.definitions[p] is not d:
            p = next((i for i, x in enumerate(meta.definitions) if x is d), None)
        if p is None:
            raise AssertionError(f"definition {d.definition_id!r} is not in the metadata")
        meta.definitions[p] = mine
        if index is not None:
            index.owned(p)
        self._copies[id(mine)] = mine
        return mine

    def appended_current(self, d: Definition) -> None:
        """The run has just appended ``d``'s new last version, with its highest id, as current."""
        if self._copies.get(id(d)) is d:
            self._tips[id(d)] = len(d.versions)

    def _tip(self, d: Definition) -> DefinitionVersion | None:
        if self._copies.get(id(d)) is not d or self._tips.get(id(d)) != len(d.versions):
            return None
        return d.versions[-1]

    def current(self, d: Definition) -> DefinitionVersion:
        """``d.current_version``."""
        tip = self._tip(d)
        return d.current_version if tip is None else tip

    def next_version_id(self, d: Definition) -> int:
        """One more than the highest version id of ``d``."""
        tip = self._tip(d)
        if tip is not None:
            return tip.version_id + 1
        highest: int = max(map(_VERSION_ID, d.versions))
        return highest + 1
