"""Where things live in a warehouse, and what metadata file names mean.

::

    WAREHOUSE/<namespace>/<function>/metadata/<NNNNN>-<uuid>.metadata.json

``NNNNN`` is the metadata file's version number, zero-padded to five digits and counting from
00001; every change writes the next number and no file is ever rewritten. Names that start with
a dot (temporary files, ``<namespace>/.dropped/``, ``WAREHOUSE/.locks/``) are never metadata or
functions, so a half-written temporary file can never be taken for the current one.

The ``<uuid>`` of a file this package writes without a catalog is *derived* from the function's
folder and the version number (:func:`derived_file_uuid`), not random: every writer racing for
version N then aims at the same name, and the file system's atomic create-if-absent lets exactly
one of them win. A random uuid would let two writers each create "their" version N.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from translator.fileio import name_part_problem
from translator.warehouse.errors import WarehouseError

__all__ = [
    "DEFAULT_NAMESPACE",
    "FunctionRef",
    "MetadataName",
    "derived_file_uuid",
    "function_dir",
    "metadata_dir",
    "metadata_file_name",
    "metadata_path",
    "parse_metadata_name",
    "tombstone_dir",
]

DEFAULT_NAMESPACE = "default"

#: The namespace of the uuid5 names derived for metadata files (fixed forever: changing it
#: would let writers of two releases create the same version twice).
_FILE_UUID_NAMESPACE = uuid.UUID("6f1f4b53-2c1e-5a43-9d0e-1c3b8e4a7d21")

_UUID = r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
#: ``V.metadata.json``, ``V-uuid.metadata.json`` (Iceberg's writers), ``vV.metadata.json``
#: (Hadoop-table style). Anything else in ``metadata/`` is not a metadata file.
_NAME = re.compile(
    rf"^(?:v(?P<hadoop>\d+)|(?P<version>\d+)(?:-(?P<uuid>{_UUID}))?)\.metadata\.json$"
)


@dataclass(frozen=True, slots=True, order=True)
class FunctionRef:
    """A function in the warehouse: ``namespace.name``; its folder is ``namespace/name``.

    SQL names map as both engines use them: ``fn`` is in the default namespace, ``ns.fn`` in
    ``ns``, and ``catalog.ns.fn`` in ``ns``: the warehouse *is* the catalog, so the leading
    catalog part is dropped (apply warns). A Spark multi-level namespace (``cat.a.b.fn``) is
    kept as one dotted folder name (``a.b``).
    """

    namespace: str
    name: str

    def __post_init__(self) -> None:
        for what, part in (("namespace", self.namespace), ("function name", self.name)):
            _check_part(what, part)

    def __str__(self) -> str:
        return f"{self.namespace}.{self.name}"

    @classmethod
    def parse(cls, text: str, default_namespace: str = DEFAULT_NAMESPACE) -> FunctionRef:
        """``fn`` (in ``default_namespace``), ``ns.fn``, or ``catalog.ns.fn`` (in ``ns``)."""
        parts = text.split(".")
        if len(parts) == 1:
            return cls(default_namespace, parts[0])
        if len(parts) == 2:
            return cls(parts[0], parts[1])
        return cls(".".join(parts[1:-1]), parts[-1])

    @staticmethod
    def catalog_part(text: str) -> str | None:
        """The catalog part of a dotted name that has one (``cat`` of ``cat.ns.fn``)."""
        parts = text.split(".")
        return parts[0] if len(parts) >= 3 else None

    @property
    def parts(self) -> tuple[str, ...]:
        """The name as SQL name parts (for emitted DDL)."""
        return (*self.namespace.split("."), self.name)


def _check_part(what: str, part: str) -> None:
    """Names become folder names: refuse what would escape or hide the folder."""
    problem = name_part_problem(part)
    if problem is not None:
        raise WarehouseError(f"invalid {what} {part!r}: {problem}")


@dataclass(frozen=True, slots=True)
class MetadataName:
    """What a metadata file's name says: its version number and, if present, its uuid."""

    name: str
    version: int
    file_uuid: str | None


def parse_metadata_name(name: str) -> MetadataName | None:
    """The version in ``name``, or None when ``name`` is not a metadata file name."""
    m = _NAME.match(name)
    if m is None:
        return None
    digits = m.group("hadoop") or m.group("version")
    return MetadataName(name, int(digits), m.group("uuid"))


def derived_file_uuid(ref: FunctionRef, version: int) -> str:
    """The uuid in the name of ``ref``'s metadata file number ``version`` (see module doc)."""
    return str(uuid.uuid5(_FILE_UUID_NAMESPACE, f"{ref.namespace}/{ref.name}/{version}"))


def metadata_file_name(version: int, file_uuid: str) -> str:
    return f"{version:05d}-{file_uuid}.metadata.json"


def function_dir(ref: FunctionRef) -> str:
    """The function's folder, relative to the warehouse root: what ``location`` points at."""
    return f"{ref.namespace}/{ref.name}"


def metadata_dir(ref: FunctionRef) -> str:
    return f"{function_dir(ref)}/metadata"


def metadata_path(ref: FunctionRef, version: int, file_uuid: str) -> str:
    return f"{metadata_dir(ref)}/{metadata_file_name(version, file_uuid)}"


def tombstone_dir(ref: FunctionRef, timestamp_ms: int) -> str:
    """Where ``drop`` moves a function's folder: hidden (dot) so listings skip it, kept so a
    mistaken drop can be undone by moving the folder back."""
    return f"{ref.namespace}/.dropped/{ref.name}-{timestamp_ms}-{uuid.uuid4().hex[:8]}"
