"""Finishing an apply that a crash (``kill -9``, a power cut) interrupted between two commits.

A script that changes several functions commits them one after the other: each is atomic, the
set is not. Before its first commit, ``apply`` writes a journal,
``WAREHOUSE/.journal/<key>.json``, naming every function it is about to commit and the metadata
file each change was computed from (its *base*); ``key`` is a hash of the script, its dialect,
namespace and options, so only the same apply finds it. A run that ends, well or not, removes
its journal; only a crash leaves one behind.

Re-running the same apply reads the journal: a function whose current file is no longer its
recorded base may have been committed by the interrupted run, so it is compiled against that base
again, reproducing the change the interrupted run made. If the current file holds exactly that
change (:func:`same_change`: equal but for timestamps, and for the UUID of a function the run
created), it was the interrupted run's commit and is not committed twice; otherwise another writer
committed in between, and this run's change is compiled against the current file and committed on
top of it, with a warning. The script thus ends up applied once, as if the crash had not happened,
and no other writer's change is lost or taken for this run's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from translator.errors import TranslatorError
from translator.metadata import UdfMetadata, dump_metadata, load_metadata
from translator.warehouse.errors import WarehouseError
from translator.warehouse.layout import FunctionRef, metadata_dir
from translator.warehouse.store import Store

__all__ = ["JOURNAL_DIR", "Journal", "committed_before", "journal_key", "same_change"]

JOURNAL_DIR = ".journal"


def journal_key(
    sources: Sequence[tuple[str | None, str]], dialect: str, namespace: str, settings: str
) -> str:
    """What identifies one apply: the same script, dialect, namespace and ``settings``."""
    text = json.dumps([list(s) for s in sources] + [dialect, namespace, settings])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class Journal:
    """The functions an apply is committing and the base of each (see the module doc)."""

    def __init__(self, store: Store, key: str, carry: Mapping[str, Any] | None = None) -> None:
        self.store = store
        self.rel = f"{JOURNAL_DIR}/{key}.json"
        self.bases: dict[FunctionRef, str | None] = {}
        #: The caller's own record of the apply, written into the journal's document beside
        #: ``functions`` (migrate's ledger entry, linked into its ledger once the commits are
        #: done: one synced file an apply instead of two).
        self.carry: dict[str, Any] = dict(carry or {})
        #: Whether the journal's file, as :meth:`record` last wrote it, is there.
        self.written = False

    def recorded(self) -> dict[FunctionRef, str | None]:
        """What an interrupted run of the same apply recorded (empty: none)."""
        try:
            data = self.store.read_bytes(self.rel)
        except (FileNotFoundError, NotADirectoryError):
            return {}
        except OSError as e:  # no descriptor left, an I/O error: the file may be fine
            raise WarehouseError(
                f"{self.store.location(self.rel)}: cannot read the journal of an interrupted "
                f"apply ({e.strerror or e})"
            ) from None
        try:
            return _entries(json.loads(data))
        except (ValueError, WarehouseError) as e:
            raise WarehouseError(
                f"{self.store.location(self.rel)}: unreadable journal of an interrupted apply "
                f"({e}); delete it to apply from scratch"
            ) from None

    def record(self, bases: Mapping[FunctionRef, str | None]) -> None:
        """Add ``bases`` (first one recorded wins) and write the journal before a commit."""
        for ref, base in bases.items():
            self.bases.setdefault(ref, base)
        doc = {
            **self.carry,
            "functions": [
                {"namespace": r.namespace, "name": r.name, "base": b}
                for r, b in sorted(self.bases.items())
            ],
        }
        data = (json.dumps(doc, indent=2) + "\n").encode()
        # A new file, never rewritten in place: it may be linked. The name is usually free (a
        # run removes its journal as it ends), so the old file (this apply's earlier record, or
        # an interrupted run's) is removed only when it is there, not asked for on every record.
        if self.written:
            self.store.remove(self.rel)
            self.written = False
        try:
            self.store.create_exclusive(self.rel, data, make_dirs=True)
        except FileExistsError:
            self.store.remove(self.rel)
            self.store.create_exclusive(self.rel, data, make_dirs=True)
        self.written = True

    def clear(self) -> None:
        self.store.remove(self.rel)
        self.written = False


def _entries(raw: object) -> dict[FunctionRef, str | None]:
    """The recorded functions of a journal's document, its shape checked (a file in the
    warehouse may hold anything): ``{"functions": [{"namespace", "name", "base"}, ...]}``."""
    functions = raw.get("functions", []) if isinstance(raw, dict) else None
    if not isinstance(functions, list):
        raise ValueError("not a journal: no list of functions")
    out: dict[FunctionRef, str | None] = {}
    for entry in functions:
        if not isinstance(entry, dict):
            raise ValueError("a function's entry is not an object")
        namespace, name, base = entry.get("namespace"), entry.get("name"), entry.get("base")
        if not (isinstance(namespace, str) and isinstance(name, str)):
            raise ValueError("a function's entry has no namespace or name")
        if base is not None and not isinstance(base, str):
            raise ValueError(f"{namespace}.{name}: its base is not a path")
        ref = FunctionRef(namespace, name)
        if base is not None and not _in_metadata_folder(ref, base):
            raise ValueError(f"{ref}: its base {base!r} is not a file in its metadata folder")
        out[ref] = base
    return out


def _in_metadata_folder(ref: FunctionRef, path: str) -> bool:
    """Whether ``path`` names a file directly in ``ref``'s metadata folder, the only place a
    commit's base can be: a journal is a file anyone who can write the warehouse may have
    made, and its paths must not lead a re-run to read elsewhere."""
    folder, _, name = path.rpartition("/")
    return folder == metadata_dir(ref) and name not in ("", ".", "..")


def committed_before(
    recorded: Mapping[FunctionRef, str | None],
    current: Mapping[FunctionRef, str | None],
    store: Store,
) -> dict[FunctionRef, UdfMetadata | None]:
    """The functions the interrupted run committed, each with the base to compile against.

    ``current`` maps each recorded function to its current file (None: there is none).
    """
    out: dict[FunctionRef, UdfMetadata | None] = {}
    for ref, base in recorded.items():
        now = current.get(ref)
        if now == base:
            continue  # not committed yet: this run commits it
        out[ref] = None if base is None else _read_base(store, ref, base)
    return out


def _read_base(store: Store, ref: FunctionRef, path: str) -> UdfMetadata:
    """The base file; a function the interrupted run dropped has it in ``.dropped/``."""
    candidates = [path]
    name = path.rpartition("/")[2]
    for folder in store.list_dirs(f"{ref.namespace}/.dropped"):
        if folder.startswith(f"{ref.name}-"):
            candidates.append(f"{ref.namespace}/.dropped/{folder}/metadata/{name}")
    for rel in candidates:
        try:
            data = store.read_bytes(rel)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as e:  # a folder in its place, no permission, an I/O error
            raise WarehouseError(
                f"{store.location(rel)}: cannot read the base the interrupted apply recorded "
                f"for {ref} ({e.strerror or e})"
            ) from None
        try:
            return load_metadata(data.decode("utf-8"), source=store.location(rel))
        except (TranslatorError, UnicodeDecodeError):
            continue
    raise WarehouseError(
        f"{ref}: the interrupted apply recorded {path} as its base, which is gone; delete "
        f"{JOURNAL_DIR}/ to apply from scratch"
    )


def same_change(
    expected: UdfMetadata | None, current: UdfMetadata | None, *, created: bool
) -> bool:
    """Whether ``current`` is the document the interrupted run committed, given ``expected``, the
    same change computed again from the recorded base (None: the function dropped). Timestamps
    come from the clock of the run, and a function the run ``created`` got a fresh UUID and had
    no location before its commit set it: these cannot match; every other field must."""
    if expected is None or current is None:
        return expected is None and current is None
    ignored = {"timestamp-ms", *(("function-uuid", "location") if created else ())}
    return _without(json.loads(dump_metadata(expected)), ignored) == _without(
        json.loads(dump_metadata(current)), ignored
    )


def _without(value: object, keys: set[str]) -> object:
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value
