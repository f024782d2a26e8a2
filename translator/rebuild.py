"""Copying and pickling a frozen dataclass by calling its constructor again.

By default ``copy`` and ``pickle`` rebuild a value in two steps: they make an empty one without
its ``__init__`` and then set its fields through the state setter ``dataclass`` gives a class
with slots. Compiled by mypyc (the native build), both steps fail: a class with an ``__init__``
of its own cannot be made without it (``TypeError``) and a frozen dataclass refuses the state
setter (``FrozenInstanceError``). A class whose ``__reduce__`` returns :func:`by_init`'s answer is
rebuilt by a call of the class with its fields instead, which works the same in both builds.

This module is not compiled (setup.py does not list it): it only runs when a value is copied or
pickled, never on the compile path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

#: What a ``__reduce__`` returns: a callable and the arguments that rebuild the value.
Reduced = tuple[Callable[..., object], tuple[object, ...]]


def by_init(value: object) -> Reduced:
    """``value``'s class and the arguments that make it again, read back from its fields: the
    ``__reduce__`` of a frozen dataclass.

    Every field the constructor takes is passed, those at their default too, positional fields
    by position and keyword-only ones by name. The constructor's checks (``__post_init__``, or
    the class's own ``__init__``) run again; that is right, not just harmless: the fields are the
    ones that passed them when the value was made, so they pass again, and a field derived from
    the others (``init=False``, such as a type's nesting) is derived again rather than copied,
    so a copy cannot hold one that disagrees with its fields. A class with an ``InitVar`` is
    refused (``TypeError``): its value went to ``__post_init__`` and was not kept, so the call
    that made the value cannot be made again.
    """
    cls = type(value)
    positional, keywords = _init_fields(cls)
    args = tuple(getattr(value, name) for name in positional)
    if not keywords:
        return cls, args
    return _construct, (cls, args, {name: getattr(value, name) for name in keywords})


def _construct(
    cls: Callable[..., object], args: tuple[object, ...], kwargs: Mapping[str, Any]
) -> object:
    """``cls(*args, **kwargs)``: a module-level function, so pickle can name it; ``deepcopy``
    copies its arguments (a ``functools.partial`` holding the keywords would share them)."""
    return cls(*args, **kwargs)


#: Per class, the names :func:`_init_fields` found.
_INIT_FIELDS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _init_fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of the fields ``cls``'s constructor takes: by position, then by keyword."""
    found = _INIT_FIELDS.get(cls)
    if found is None:
        found = _INIT_FIELDS[cls] = _find_init_fields(cls)
    return found


def _find_init_fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(
            f"{cls.__qualname__} is not a dataclass: it cannot be rebuilt by its fields"
        )
    fields = dataclasses.fields(cls)
    named = {f.name for f in fields}
    pseudo = getattr(cls, "__dataclass_fields__", {})
    initvars = [n for n, f in pseudo.items() if n not in named and _is_initvar(f.type)]
    if initvars:
        raise TypeError(
            f"{cls.__qualname__} cannot be rebuilt by its fields: its InitVar "
            f"{', '.join(initvars)} is not kept"
        )
    init = [f for f in fields if f.init]
    return (
        tuple(f.name for f in init if not f.kw_only),
        tuple(f.name for f in init if f.kw_only),
    )


def _is_initvar(annotation: object) -> bool:
    """Whether a dataclass pseudo-field's annotation is an ``InitVar`` (the other kind is a
    ``ClassVar``); postponed annotations are strings such as ``'dataclasses.InitVar[int]'``."""
    if isinstance(annotation, str):
        return annotation.partition("[")[0].rpartition(".")[2] == "InitVar"
    return annotation is dataclasses.InitVar or isinstance(annotation, dataclasses.InitVar)
