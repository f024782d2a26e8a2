"""Atomic file writes: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from translator.errors import TranslatorError

__all__ = ["atomic_write"]


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, fsync it, rename it over ``path``.

    A file system's refusal (a folder in the way, no permission, a full disk) is a
    :class:`TranslatorError` naming the path, and leaves no temporary file behind.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        if path.parent.exists() and not path.parent.is_dir():
            raise TranslatorError(f"cannot write {path}: {path.parent} is not a folder") from None
        raise TranslatorError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise TranslatorError(f"cannot write {path}: {e.strerror or e}") from None
        raise
