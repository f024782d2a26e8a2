"""sqlglot trees: a copy of a whole tree at about half the cost of sqlglot's own.

Compile copies a body's tree several times (before typing it for a target, before rewriting it
for Trino or for Trino's meaning in Spark): sqlglot's deep copy was a few percent of compile.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from sqlglot import exp

__all__ = ["copy_tree"]

#: The types of the values of a ``meta`` that a plain ``dict`` copy copies exactly (a set: the
#: check of a node's meta is one C-level ``issuperset``, not a generator per node).
_SCALARS = frozenset((int, str, float, bool, type(None)))


def copy_tree(root: Any) -> Any:
    """``root.copy()``, the same tree at about half the cost.

    sqlglot's ``Expr.__deepcopy__`` hands each node's ``meta`` (its token's line, column and
    offsets) to ``copy.deepcopy``, whose per-object dispatch is most of the copy's time; a dict
    of scalars is copied as a dict here, and everything else exactly as sqlglot does it. A child
    is linked to its copied parent directly: ``set``/``append`` would walk up the ancestors to
    clear hashes that a copy under construction does not have yet (so, as there, a copied hash
    survives on the nodes without children only)."""
    out = root.__class__()
    stack = [(root, out)]
    pop, push = stack.pop, stack.append
    while stack:
        node, copy = pop()
        if node.comments is not None:
            copy.comments = list(node.comments)
        if node._type is not None:
            copy._type = copy_tree(node._type)
        meta = node._meta
        if meta is not None:
            scalars = _SCALARS.issuperset(map(type, meta.values()))
            copy._meta = dict(meta) if scalars else deepcopy(meta)
        args = copy.args
        leaf = True  # sqlglot's set/append would clear a copied hash below: kept on leaves only
        for key, value in node.args.items():
            if isinstance(value, exp.Expr):
                # ``copy.set(key, child)`` without its walk up the (hashless) ancestors.
                child = value.__class__()
                child.parent, child.arg_key = copy, key
                push((value, child))
                args[key] = child
                leaf = False
            elif type(value) is list:
                items: list[Any] = []
                args[key] = items
                for v in value:
                    leaf = False
                    if isinstance(v, exp.Expr):
                        # ``copy.append(key, child)``, likewise.
                        child = v.__class__()
                        child.parent, child.arg_key, child.index = copy, key, len(items)
                        push((v, child))
                        items.append(child)
                    else:
                        copy.append(key, v)
            else:
                args[key] = value
        if leaf and node._hash is not None:
            copy._hash = node._hash
    return out
