"""One test helper: two model trees alike to the object, not merely equal.

pydantic's ``==`` ignores what a byte-stable dump depends on: the order of a model's fields, which
fields count as set, unknown keys, and ``str`` subclasses (a lark token) standing in for ``str``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def assert_same(a: Any, b: Any, path: str = "$") -> None:
    """``a`` and ``b`` hold equal values of the same types; models with the same fields in the
    same order, the same fields set, unknown keys and private state; dicts with the same keys in
    the same order."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, BaseModel):
        assert a.model_fields_set == b.model_fields_set, path
        assert a.__pydantic_private__ == b.__pydantic_private__, path
        assert_same(a.__dict__, b.__dict__, path)
        assert_same(a.__pydantic_extra__, b.__pydantic_extra__, f"{path}(extra)")
    elif isinstance(a, dict):
        assert list(a) == list(b), path
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{path}[{i}]")
    else:
        assert a == b, path
