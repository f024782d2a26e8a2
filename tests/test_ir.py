"""The IR's values are built by an ``__init__`` that fills their slots directly
(``ir._slot_init``): it must take what the dataclass's own takes and give the same values."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from translator.errors import Position
from translator.ir import Body, CreateFunction, DropFunction, Parameter
from translator.types import PrimitiveType

_CLASSES = [Parameter, Body, CreateFunction, DropFunction]


def _plain(cls: type) -> Any:
    """The same class as the dataclass decorator alone makes it (its own ``__init__``)."""
    spec = {f.name: f for f in dataclasses.fields(cls)}
    namespace: dict[str, Any] = {"__annotations__": {n: Any for n in spec}}
    for name, f in spec.items():
        namespace[name] = dataclasses.field(
            default=f.default, default_factory=f.default_factory, compare=f.compare
        )
    return dataclasses.dataclass(frozen=True, slots=True)(type(cls.__name__, (), namespace))


@pytest.mark.parametrize("cls", _CLASSES)
def test_the_init_takes_what_the_dataclass_init_takes(cls: type) -> None:
    mine = inspect.signature(cls).parameters
    theirs = inspect.signature(_plain(cls)).parameters
    assert list(mine) == list(theirs)
    for name, p in mine.items():
        assert p.kind == theirs[name].kind
        assert (p.default is inspect.Parameter.empty) == (
            theirs[name].default is inspect.Parameter.empty
        )
        assert repr(p.default) == repr(theirs[name].default)


@pytest.mark.parametrize("cls", _CLASSES)
def test_the_init_gives_the_dataclass_init_s_values(cls: type) -> None:
    spec = dataclasses.fields(cls)
    required = [
        f
        for f in spec
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    values = {f.name: object() for f in spec}
    plain = _plain(cls)
    for given in (
        {f.name: values[f.name] for f in required},  # the defaults and factories
        dict(values),  # every field given by name
    ):
        mine, theirs = cls(**given), plain(**given)
        for f in spec:
            a, b = getattr(mine, f.name), getattr(theirs, f.name)
            assert a is b or (type(a) is type(b) and a == b), f.name
    positional = [values[f.name] for f in spec]
    mine = cls(*positional)
    assert [getattr(mine, f.name) for f in spec] == positional
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(mine, spec[0].name, "x")
    factories = [f for f in spec if f.default_factory is not dataclasses.MISSING]
    if factories:  # each value made afresh, never one shared by every instance
        a = cls(**{f.name: values[f.name] for f in required})
        b = cls(**{f.name: values[f.name] for f in required})
        assert all(getattr(a, f.name) is not getattr(b, f.name) for f in factories)


def test_values_compare_and_hash_as_before() -> None:
    at = Position(1, 2, 3)
    p = Parameter("a", PrimitiveType("int"), position=at)
    assert p == Parameter("a", PrimitiveType("int")) and hash(p) == hash(
        Parameter("a", PrimitiveType("int"))
    )
    assert dataclasses.replace(p, doc="d") == Parameter("a", PrimitiveType("int"), "d")
    with pytest.raises(TypeError):
        Parameter("a")  # type: ignore[call-arg]
