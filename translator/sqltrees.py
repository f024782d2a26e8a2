"""sqlglot trees: a copy of a whole tree at about half the cost of sqlglot's own, and its walks
as plain loops.

Compile copies a body's tree before rewriting or typing it for a target (sqlglot's generator
may change the tree it writes, and the front end's tree is shared), and walks every tree it
judges several times: sqlglot's deep copy was a few percent of compile, and its ``walk`` (a
chain of generators, a frame per node and per child list) costs about half again what a plain
loop over each node's ``args`` does, for the same nodes in the same order.
"""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from typing import Any, Generic, TypeVar

from sqlglot import exp

__all__ = ["ByClass", "breadth_first", "copy_tree", "depth_first"]

V = TypeVar("V")


class ByClass(dict[type, V], Generic[V]):
    """A value for each node class, found by ``of(cls)`` the first time a class is looked up.

    A walk that asks several ``isinstance`` questions of every node (is it a column, a lambda,
    a query...) asks them once per class this way: one dictionary look-up of ``type(node)`` a
    node, where most nodes answer no to every question. ``of`` must use ``issubclass`` (what
    ``isinstance`` asks of a node's class), so the answers are the same.
    """

    def __init__(self, of: Callable[[type], V]) -> None:
        super().__init__()
        self._of = of

    def __missing__(self, cls: type) -> V:
        value = self._of(cls)
        self[cls] = value
        return value


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


def breadth_first(root: exp.Expr) -> list[exp.Expr]:
    """``list(root.walk())``: breadth first, children in argument order."""
    out = [root]
    append = out.append
    expr = exp.Expr
    i = 0
    while i < len(out):
        for value in out[i].args.values():
            if isinstance(value, list):
                for v in value:
                    if isinstance(v, expr):
                        append(v)
            elif isinstance(value, expr):
                append(value)
        i += 1
    return out


def depth_first(root: exp.Expr) -> list[exp.Expr]:
    """``list(root.walk(bfs=False))``: depth first, each node before its children, children in
    argument order (pushed last to first, so that they come off the stack first to last: no
    list of each node's children is made)."""
    out: list[exp.Expr] = []
    append = out.append
    expr = exp.Expr
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        append(node)
        for value in reversed(node.args.values()):
            if isinstance(value, expr):
                push(value)
            elif isinstance(value, list):
                for v in reversed(value):
                    if isinstance(v, expr):
                        push(v)
    return out
