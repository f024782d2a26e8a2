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


#: The dialects loaded so far, by their lower-case names (keys of :data:`DIALECTS` only).
_LOADED: dict[str, Dialect] = {}


def get_dialect(name: str) -> Dialect:
    """The dialect named ``name`` (any case), loaded on first use. Asked several times a
    statement: a loaded one is one dictionary look-up, not a trip through the import system."""
    loaded = _LOADED.get(name)
    if loaded is not None:
        return loaded
    key = name.lower()
    if key not in DIALECTS:
        from translator.errors import UnsupportedError

        raise UnsupportedError(
            f"unknown dialect {name!r}: supported are {', '.join(sorted(DIALECTS))}"
        )
    module = import_module(f"translator.dialects.{DIALECTS[key]}")
    dialect: Dialect = module.DIALECT
    _LOADED[key] = dialect
    return dialect


def __getattr__(name: str) -> Any:
    if name != "Dialect":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from translator.dialects.base import Dialect

    return Dialect
