r"""Where things live in a warehouse, and what metadata file names mean.

::

    WAREHOUSE/<namespace>/<function>/metadata/<NNNNN>-<uuid>.metadata.json

``<function>`` is the function's name part exactly as stored: it holds no ``/`` and does not
start with a dot (:func:`translator.fileio.name_part_problem`, the one path rule), and may hold a
dot (Spark's ``\`my.fn\```): a function folder is always one name part, never split.
``<namespace>`` is the namespace's parts joined by ``.`` (a Spark multi-level namespace
``a.b`` is the folder ``a.b``), so a namespace part holding a dot is percent-encoded, the one
encoding of this layout (:func:`namespace_folder`, :func:`namespace_parts`): ``.`` is written
``%2E``, and a ``%`` followed by ``2E`` or ``25`` (either case) is written ``%25``, so the
encoding is reversible; every other ``%`` is kept. A name without a dot and without ``%2E`` or
``%25`` is its own folder, so folders written before this encoding still name the same
functions.

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

import hashlib
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from translator.fileio import name_part_problem
from translator.names import format_name, parse_name
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
    "namespace_folder",
    "namespace_parts",
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
    """A function in the warehouse: its namespace folder and its name; its folder is
    ``namespace/name`` (see the module doc for how namespace parts make one folder).

    SQL names map as both engines use them: ``fn`` is in the default namespace, ``ns.fn`` in
    ``ns``, and ``catalog.ns.fn`` in ``ns``: the warehouse *is* the catalog, so the leading
    catalog part is dropped (apply warns). A Spark multi-level namespace (``cat.a.b.fn``) is
    the folder ``a.b``.
    """

    namespace: str
    name: str
    #: ``str(self)``, once asked for (a migration asks for each function's a dozen times).
    _text: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_part("namespace", self.namespace)
        if "." in self.namespace or "%" in self.namespace:  # else its one part is itself
            parts = self.namespace_parts
            for part in parts:  # each part as the name rule wants it too: ".x", ".." stay out
                _check_part("namespace" if len(parts) == 1 else "namespace part", part)
        _check_part("function name", self.name)

    def __str__(self) -> str:
        """The name as :func:`translator.names.format_name` writes it (``ns."my.fn"``)."""
        text = self._text
        if not text:
            text = format_name(self.parts)
            object.__setattr__(self, "_text", text)
        return text

    @classmethod
    def from_parts(
        cls, parts: tuple[str, ...], default_namespace: str = DEFAULT_NAMESPACE
    ) -> FunctionRef:
        """``(fn,)`` (in ``default_namespace``, a folder), ``(ns, fn)``, or
        ``(catalog, ns..., fn)`` (in ``ns...``)."""
        if len(parts) == 1:
            return cls(default_namespace, parts[0])
        return cls(namespace_folder(parts[-2:-1] if len(parts) == 2 else parts[1:-1]), parts[-1])

    @classmethod
    def parse(cls, text: str, default_namespace: str = DEFAULT_NAMESPACE) -> FunctionRef:
        """A NAME (:func:`translator.names.parse_name`): ``fn``, ``ns.fn``, ``catalog.ns.fn``,
        ``ns."my.fn"``, as :meth:`from_parts` maps parts."""
        return cls.from_parts(parse_name(text), default_namespace)

    @classmethod
    def from_text(cls, text: str) -> FunctionRef:
        """The function ``str(ref)`` wrote (in a ledger): every part but the last is the
        namespace (no catalog part is dropped)."""
        parts = parse_name(text)
        if len(parts) < 2:
            raise WarehouseError(f"{text!r} names no namespace")
        return cls(namespace_folder(parts[:-1]), parts[-1])

    @staticmethod
    def catalog_part(text: str) -> str | None:
        """The catalog part of a name that has one (``cat`` of ``cat.ns.fn``)."""
        parts = parse_name(text)
        return parts[0] if len(parts) >= 3 else None

    @property
    def namespace_parts(self) -> tuple[str, ...]:
        return namespace_parts(self.namespace)

    @property
    def parts(self) -> tuple[str, ...]:
        """The name as SQL name parts (for emitted DDL)."""
        return (*self.namespace_parts, self.name)


def namespace_folder(parts: Sequence[str]) -> str:
    """The folder of a namespace of ``parts`` (see the module doc)."""
    return ".".join(_ENCODE.sub(lambda m: _ESCAPES[m.group()], p) for p in parts)


def namespace_parts(folder: str) -> tuple[str, ...]:
    """The parts of the namespace in ``folder``: :func:`namespace_folder` read back."""
    return tuple(_DECODE.sub(lambda m: _UNESCAPES[m.group().upper()], p) for p in folder.split("."))


#: A dot, or a '%' that reading would take for an escape (see the module doc).
_ENCODE = re.compile(r"\.|%(?=2[Ee5])")
_ESCAPES = {".": "%2E", "%": "%25"}
_DECODE = re.compile(r"%2[Ee5]")
_UNESCAPES = {"%2E": ".", "%25": "%"}


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
    """The uuid in the name of ``ref``'s metadata file number ``version`` (see module doc):
    ``str(uuid.uuid5(_FILE_UUID_NAMESPACE, f"{namespace}/{name}/{version}"))``, made from the
    SHA-1 digest directly (RFC 4122's version and variant bits set as ``uuid5`` sets them),
    without the two ``UUID`` objects (a third of the cost; tests hold it to ``uuid5``)."""
    name = f"{ref.namespace}/{ref.name}/{version}".encode()
    digest = bytearray(hashlib.sha1(_FILE_UUID_NAMESPACE.bytes + name).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


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
