"""The ledger of applied statements, so that running a migration again changes nothing."""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from translator.migrate.report import Issue
from translator.warehouse.errors import WarehouseError
from translator.warehouse.journal import Journal
from translator.warehouse.store import LocalStore, Store

#: Where the ledger of applied statements lives, under the warehouse root.
LEDGER_DIR = ".migrations"
_LEDGER_FORMAT_VERSION = 1
_LEDGER_NAME = re.compile(r"^(\d+)\.json$")


class Ledger:
    """Append-only journal of applied statements: file -> statement key -> function.

    One file per applied batch, ``NNNNNN.json``: ``file`` and ``statements`` (``key``,
    ``function``); a batch that committed is its apply's journal linked in, so it also has the
    journal's ``functions`` (ignored here). Both shapes read the same, by older readers too."""

    def __init__(self, store: Store, dialect: str) -> None:
        self.store = store
        self.folder = f"{LEDGER_DIR}/{dialect}"
        self.entries: dict[str, dict[str, str]] = defaultdict(dict)
        self.last = 0

    def load(self) -> None:
        names = sorted(
            (int(m.group(1)), n)
            for n in self.store.list_names(self.folder)
            if (m := _LEDGER_NAME.match(n)) is not None
        )
        for number, name in names:
            rel = f"{self.folder}/{name}"
            try:
                doc = json.loads(self.store.read_bytes(rel).decode("utf-8"))
                file = doc["file"]
                statements = [(s["key"], s["function"]) for s in doc["statements"]]
                if not isinstance(file, str) or not all(
                    isinstance(k, str) and isinstance(f, str) for k, f in statements
                ):
                    raise TypeError("not strings")
            except (ValueError, KeyError, TypeError) as e:
                raise WarehouseError(
                    f"{self.store.location(rel)}: not a migration ledger file ({e}); move it "
                    "away to migrate again"
                ) from None
            self.entries[file].update(statements)
            self.last = max(self.last, number)

    def applied(self, file: str) -> dict[str, str]:
        return self.entries.get(file, {})

    def mismatch(self, file: str, keys_seen: set[str]) -> Issue | None:
        """The warning for statements of ``file`` the ledger has and the file no longer has."""
        gone = set(self.applied(file)) - keys_seen
        if not gone:
            return None
        return Issue(
            "ledger-mismatch",
            f"{len(gone)} statement(s) applied by an earlier migration are no longer in this "
            "file (was it edited after it was migrated?); changed statements are applied as "
            "new ones",
            file=file,
        )

    def record(
        self, file: str, statements: Sequence[tuple[str, str]], journal: Journal | None = None
    ) -> None:
        """Add the entry of ``statements`` of ``file``. When ``journal`` (the apply's, still
        there) carries exactly this entry (:func:`entry`), its file becomes the ledger's next
        file by a second name (a hard link: nothing written or synced again; the caller then
        removes the journal's name); otherwise the entry is written as a file of its own."""
        if not statements:
            return
        doc = entry(file, statements)
        linked = (
            journal is not None
            and journal.written
            and journal.carry == doc
            and journal.store is self.store
            and isinstance(self.store, LocalStore)
        )
        data = b"" if linked else (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()
        number = self.last + 1
        while True:
            rel = f"{self.folder}/{number:06d}.json"
            try:
                if linked:
                    assert journal is not None and isinstance(self.store, LocalStore)
                    self.store.link_exclusive(journal.rel, rel)
                else:
                    self.store.create_exclusive(rel, data, make_dirs=True)
                break
            except FileExistsError:  # another run wrote one meanwhile: take the next number
                number += 1
        self.last = number
        self.entries[file].update(statements)


def entry(file: str, statements: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The ledger's document for ``statements`` (key, function) of ``file``. An apply's journal
    may carry it (then the ledger file is that journal: the same keys, and ``functions``)."""
    return {
        "format-version": _LEDGER_FORMAT_VERSION,
        "file": file,
        "statements": [{"key": k, "function": f} for k, f in statements],
    }


def statement_key(namespace: str, text: str, occurrence: int) -> str:
    digest = hashlib.sha256(f"{namespace}\x00{text}".encode()).hexdigest()[:32]
    return f"{digest}-{occurrence}"
