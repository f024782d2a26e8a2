"""translator.rebuild: a frozen dataclass copies and pickles by calling its constructor again,
and every frozen dataclass of the native build's modules does so (compiled, no other way works).
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import pickle
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from typing import Any

import pytest

from tests.test_setup import _setup_module
from translator.rebuild import Reduced, by_init

WAYS: dict[str, Callable[[Any], Any]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda value: pickle.loads(pickle.dumps(value)),
}


@dataclass(frozen=True, slots=True)
class Shape:
    """Every kind of field: positional, defaulted, derived (``init=False``), keyword-only."""

    sides: tuple[int, ...]
    name: str = "shape"
    perimeter: int = field(init=False, compare=False)
    tags: list[str] = field(default_factory=list, kw_only=True, hash=False)

    def __post_init__(self) -> None:
        if any(s <= 0 for s in self.sides):
            raise ValueError("a side must be positive")
        object.__setattr__(self, "perimeter", sum(self.sides))

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0


@dataclass(frozen=True)
class Scaled:
    side: int
    factor: InitVar[int] = 1

    def __post_init__(self, factor: int) -> None:
        object.__setattr__(self, "side", self.side * factor)

    def __reduce__(self) -> Reduced:
        return by_init(self)


class NotData:
    def __reduce__(self) -> Reduced:
        return by_init(self)


@pytest.mark.parametrize("way", sorted(WAYS))
def test_every_kind_of_field_comes_back(way: str) -> None:
    shape = Shape((3, 4, 5), "right", tags=["a"])
    again = WAYS[way](shape)
    assert type(again) is Shape
    assert again == shape and hash(again) == hash(shape)
    assert (again.sides, again.name, again.tags, again.perimeter) == ((3, 4, 5), "right", ["a"], 12)
    if way != "copy":
        assert again.tags is not shape.tags  # a deep copy copies the keyword arguments too


def test_the_reduction_is_the_constructor_and_its_arguments() -> None:
    assert by_init(Point(1, 2)) == (Point, (1, 2))
    shape = Shape((1, 2), tags=["t"])
    rebuild, args = by_init(shape)  # a keyword-only field: a call that passes it by name
    assert args[1:] == (((1, 2), "shape"), {"tags": ["t"]})
    assert rebuild(*args) == shape


def test_the_constructor_checks_again() -> None:
    """A value whose fields were changed past its checks is refused, not copied as it is."""
    shape = Shape((1, 2))
    object.__setattr__(shape, "sides", (0,))
    with pytest.raises(ValueError, match="positive"):
        copy.copy(shape)


@pytest.mark.parametrize("way", sorted(WAYS))
def test_an_init_var_is_refused_loudly(way: str) -> None:
    with pytest.raises(TypeError, match="InitVar factor"):
        WAYS[way](Scaled(2, 3))


def test_a_class_that_is_no_dataclass_is_refused() -> None:
    with pytest.raises(TypeError, match="NotData is not a dataclass"):
        copy.copy(NotData())


def _native_classes() -> list[type]:
    """The classes the native build's modules define."""
    found = []
    for path in _setup_module().NATIVE_MODULES:
        module = importlib.import_module(
            path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        )
        found += [
            v
            for v in vars(module).values()
            if isinstance(v, type) and v.__module__ == module.__name__
        ]
    return found


def test_every_frozen_dataclass_of_the_native_build_reduces_by_its_constructor() -> None:
    """Compiled, a frozen dataclass that pickle rebuilds the default way fails: each must have
    a ``__reduce__`` (its own or a base's)."""
    frozen = [
        c
        for c in _native_classes()
        if dataclasses.is_dataclass(c) and c.__dataclass_params__.frozen  # type: ignore[attr-defined]
    ]
    assert len(frozen) > 30
    missing = [c.__qualname__ for c in frozen if c.__reduce__ is object.__reduce__]
    assert missing == []
