"""Deep copies of big metadata, fast: the warehouse and merge never share what they change."""

from __future__ import annotations

import copy
from typing import Any, TypeVar

from pydantic import BaseModel

from translator.collector import bulk_allocation

__all__ = ["deep_copy"]

_M = TypeVar("_M", bound=BaseModel)

#: Immutable values ``copy.deepcopy`` returns as they are.
_ATOMIC = frozenset({str, int, bool, float, type(None)})


def deep_copy(model: _M) -> _M:
    """``model.model_copy(deep=True)``, faster on big metadata.

    The same result: pydantic's ``__deepcopy__`` applied to every model in the tree, with lists
    and dicts copied as ``copy.deepcopy`` copies them and one memo, so an object reachable twice
    is copied once. Only the per-object dispatch of ``copy.deepcopy`` is skipped for the values
    metadata is made of (models, lists, dicts, strings, numbers); anything else still goes
    through ``copy.deepcopy`` with the same memo. The cyclic garbage collector is paused while
    the copy is made (it allocates millions of objects for 100k definitions, and creates no
    cycles), as it was before the call.
    """
    with bulk_allocation():
        return _copy_value(model, {})  # type: ignore[no-any-return]


#: Model classes that use pydantic's own ``__deepcopy__`` (see :func:`_plain_model`).
_PLAIN_MODELS: set[type] = set()


def _plain_model(cls: type) -> bool:
    if issubclass(cls, BaseModel) and cls.__deepcopy__ is BaseModel.__deepcopy__:
        _PLAIN_MODELS.add(cls)
        return True
    return False


def _copy_value(value: Any, memo: dict[int, Any]) -> Any:
    cls: Any = type(value)
    if cls in _ATOMIC:
        return value
    found = memo.get(id(value), memo)
    if found is not memo:
        return found
    atomic = _ATOMIC
    if cls is list:
        items: list[Any] = []
        memo[id(value)] = items
        for v in value:
            items.append(v if type(v) in atomic else _copy_value(v, memo))
        return items
    if cls is dict:
        mapping: dict[Any, Any] = {}
        memo[id(value)] = mapping
        for k, v in value.items():
            if type(k) not in atomic:
                k = _copy_value(k, memo)
            mapping[k] = v if type(v) in atomic else _copy_value(v, memo)
        return mapping
    if (cls in _PLAIN_MODELS or _plain_model(cls)) and value.__pydantic_private__ is None:
        m = cls.__new__(cls)
        memo[id(value)] = m
        setattr_ = object.__setattr__
        # the two dicts as copy.deepcopy copies them (the dict branch above memoizes them)
        for name in ("__dict__", "__pydantic_extra__"):
            setattr_(m, name, _copy_value(getattr(value, name), memo))
        setattr_(m, "__pydantic_fields_set__", copy.copy(value.__pydantic_fields_set__))
        setattr_(m, "__pydantic_private__", None)
        return m
    return copy.deepcopy(value, memo)
