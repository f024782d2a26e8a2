"""The ledger of applied statements, so that running a migration again changes nothing."""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Sequence

from translator.warehouse.errors import WarehouseError
from translator.warehouse.store import Store

#: Where the ledger of applied statements lives, under the warehouse root.
LEDGER_DIR = ".migrations"
_LEDGER_FORMAT_VERSION = 1
_LEDGER_NAME = re.compile(r"^(\d+)\.json$")


class Ledger:
    """Append-only journal of applied statements: file -> statement key -> function."""

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

    def record(self, file: str, statements: Sequence[tuple[str, str]]) -> None:
        if not statements:
            return
        doc = {
            "format-version": _LEDGER_FORMAT_VERSION,
            "file": file,
            "statements": [{"key": k, "function": f} for k, f in statements],
        }
        data = (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8")
        number = self.last + 1
        while True:
            try:
                self.store.create_exclusive(
                    f"{self.folder}/{number:06d}.json", data, make_dirs=True
                )
                break
            except FileExistsError:  # another run wrote one meanwhile: take the next number
                number += 1
        self.last = number
        self.entries[file].update(statements)


def statement_key(namespace: str, text: str, occurrence: int) -> str:
    digest = hashlib.sha256(f"{namespace}\x00{text}".encode()).hexdigest()[:32]
    return f"{digest}-{occurrence}"
