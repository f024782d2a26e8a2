"""The engines: one package per dialect, each stating its differences over :mod:`.base`.

The rest of the package reaches a dialect only through :func:`get_dialect`, so adding an engine
means adding a package here (a :class:`~translator.dialects.base.Dialect` subclass exposed as
``DIALECT``) and a grammar in ``grammars/``.

Only :func:`get_dialect` loads a dialect (and :class:`Dialect` the base class, with sqlglot): the
names in :data:`DIALECTS` cost nothing to import, for the command line's choices.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from translator.dialects.base import Dialect

__all__ = ["DIALECTS", "Dialect", "get_dialect"]

#: Metadata dialect identifier -> package name.
DIALECTS = {"trino": "trino", "spark": "spark"}


def get_dialect(name: str) -> Dialect:
    key = name.lower()
    if key not in DIALECTS:
        from translator.errors import UnsupportedError

        raise UnsupportedError(
            f"unknown dialect {name!r}: supported are {', '.join(sorted(DIALECTS))}"
        )
    module = import_module(f"translator.dialects.{DIALECTS[key]}")
    return module.DIALECT  # type: ignore[no-any-return]


def __getattr__(name: str) -> Any:
    if name != "Dialect":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from translator.dialects.base import Dialect

    return Dialect
