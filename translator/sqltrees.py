"""sqlglot trees: a copy of a whole tree at about half the cost of sqlglot's own, its walks as
plain loops, the walk that finds a body's columns and the scopes they sit in, and the walk that
leaves a spent tree to reference counting.

Compile copies a body's tree before rewriting or typing it for a target (sqlglot's generator
may change the tree it writes, and the front end's tree is shared), and walks every tree it
judges several times: sqlglot's deep copy was a few percent of compile, and its ``walk`` (a
chain of generators, a frame per node and per child list) costs about half again what a plain
loop over each node's ``args`` does, for the same nodes in the same order. A walk that asks
several ``isinstance`` questions of each node asks them once per node class
(:class:`ByClass`).
"""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from typing import Any, Generic, TypeVar

from sqlglot import exp

__all__ = [
    "ByClass",
    "breadth_first",
    "column_name",
    "copy_tree",
    "depth_first",
    "has_no_table",
    "plain_scope",
    "scoped_columns",
    "unlink",
    "unlink_listed",
    "unlinked",
]

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

#: The classes whose nodes hold no node: sqlglot makes an identifier of a name's text and a
#: literal of its token's text (``this``, a ``str``; the rest flags). Nearly half of a body's
#: nodes are one of the two; the walks and the copy do not read their arguments for nodes.
#: These classes exactly (a subclass, which sqlglot has none of, is walked as any node).
_LEAVES = frozenset((exp.Identifier, exp.Literal))


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
    leaves = _LEAVES
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
        if node.__class__ in leaves:  # text and flags only (see _LEAVES)
            args.update(node.args)
            if node._hash is not None:
                copy._hash = node._hash
            continue
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
    expr, leaves = exp.Expr, _LEAVES
    i = 0
    while i < len(out):
        node = out[i]
        i += 1
        if node.__class__ in leaves:  # text and flags only (see _LEAVES)
            continue
        for value in node.args.values():
            if isinstance(value, expr):  # the common case first
                append(value)
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, expr):
                        append(v)
    return out


def depth_first(root: exp.Expr) -> list[exp.Expr]:
    """``list(root.walk(bfs=False))``: depth first, each node before its children, children in
    argument order (pushed last to first, so that they come off the stack first to last: no
    list of each node's children is made)."""
    out: list[exp.Expr] = []
    append = out.append
    expr, leaves = exp.Expr, _LEAVES
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        append(node)
        if node.__class__ in leaves:  # text and flags only (see _LEAVES)
            continue
        for value in reversed(node.args.values()):
            if isinstance(value, expr):
                push(value)
            elif isinstance(value, list):
                for v in reversed(value):
                    if isinstance(v, expr):
                        push(v)
    return out


# ------------------------------------------------------------------------------------------
# Columns and their scopes


def column_name(col: Any) -> str:
    """``col.name`` without its two calls where the name is an identifier (as it nearly always
    is)."""
    this = col.args.get("this")
    return this.this if type(this) is exp.Identifier else col.name  # type: ignore[no-any-return]


def has_no_table(col: Any) -> bool:
    """``not col.table``, without its two calls where there is no table part at all."""
    return col.args.get("table") is None or not col.table


def scoped_columns(
    ast: Any, *, unlinking: bool = False
) -> tuple[list[Any], list[Any], set[str], bool]:
    """The columns ``ast`` refers to without a table: all of them, and the free ones (outside
    every query with a FROM, whose tables could bind them: ``(SELECT SUM(c) FROM t WHERE k =
    x)``); its lambdas' variables (lower-cased); and whether any column has a table part.

    ``unlinking``: the walk also does :func:`unlink`'s work on the nodes it visits (every node
    but types), for a tree whose last walk this is, or after which nothing asks a node for its
    parent: one walk of the tree instead of two.

    One walk, on a stack fed each node's children in order (the first spelling of a free name
    is the one reported, so the order is kept). Whether a query encloses a node is known on the
    way down, so a long body costs time in proportion to its size (asking each column's
    ancestors cost time quadratic in the depth of ``x + x + ... + x``); children are read from
    ``args`` as ``iter_expressions`` reads them (a generator per node cost more than the walk)."""
    columns: list[Any] = []
    free: list[Any] = []
    lambda_vars: set[str] = set()
    qualified = _walk_scope(ast, columns, free, lambda_vars, unlinking)
    return columns, free, lambda_vars, qualified


def _walk_scope(
    root: Any, columns: list[Any], free: list[Any] | None, lambda_vars: set[str], unlinking: bool
) -> bool:
    """:func:`scoped_columns`' walk below ``root``; ``free`` None: inside a query with a FROM,
    where no column is free. Whether any column there has a table part."""
    qualified = False
    kinds, expr, leaves = _SCOPE_KINDS, exp.Expr, _LEAVES
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if unlinking:
            node.parent = None
        kind = kinds[type(node)]
        if not kind:  # most inner nodes are none of these: one test instead of four
            pass
        elif kind & _LEAF:  # the root only: a leaf child is never pushed (below)
            continue
        elif kind & _COLUMN:
            if node.args.get("table") is None or not node.table:  # has_no_table, inline
                columns.append(node)
                if free is not None:
                    free.append(node)
            else:
                qualified = True
        elif kind & _LAMBDA:
            lambda_vars.update(ident.name.lower() for ident in node.expressions)
        elif kind & _SELECT and free is not None and node.args.get("from_"):
            # Everything below is in the query. A stack visits a node's descendants right
            # after it: they are walked here, on a stack of their own, in that same order.
            qualified = _walk_scope(node, columns, None, lambda_vars, unlinking) or qualified
            continue
        # A name or a literal (see _LEAVES) is none of what the walk looks for and has nothing
        # below it: it is only unlinked, never pushed (nearly half of a body's nodes).
        for value in node.args.values():
            if isinstance(value, expr):  # the common case first
                if value.__class__ not in leaves:
                    push(value)
                elif unlinking:
                    value.parent = None
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, expr):
                        if v.__class__ not in leaves:
                            push(v)
                        elif unlinking:
                            v.parent = None
    return qualified


#: What the walks here ask of a node, by its class (bits: a column, a lambda, a SELECT, a leaf).
_COLUMN, _LAMBDA, _SELECT, _LEAF = 1, 2, 4, 8
_SCOPED = _COLUMN | _LAMBDA | _SELECT
_SCOPE_KINDS: ByClass[int] = ByClass(
    lambda cls: (
        (_COLUMN if issubclass(cls, exp.Column) else 0)
        | (_LAMBDA if issubclass(cls, exp.Lambda) else 0)
        | (_SELECT if issubclass(cls, exp.Select) else 0)
        | (_LEAF if cls in _LEAVES else 0)
    )
)


def plain_scope(nodes: list[Any]) -> tuple[list[Any], set[str]] | None:
    """The columns without a table part among ``nodes`` and their lambdas' variables (lower
    case), where no node is a query with a FROM (else None: scopes must be walked)."""
    free: list[Any] = []
    shadowed: set[str] = set()
    kinds = _SCOPE_KINDS
    for n in nodes:
        kind = kinds[type(n)]
        if not kind & _SCOPED:
            continue
        if kind & _SELECT and n.args.get("from_"):
            return None
        if kind & _COLUMN and has_no_table(n):
            free.append(n)
        if kind & _LAMBDA:
            shadowed.update(i.name.lower() for i in n.expressions)
    return free, shadowed


def unlink(root: exp.Expr) -> None:
    """Drop the link from each node of ``root``'s tree to its parent, for a tree no one will
    read again: it is then freed by reference counts when its last holder lets go.

    A sqlglot tree is a cycle per node (the parent holds its children in ``args``, each child
    its parent), so a tree compile is done with is garbage only the cyclic collector frees, and
    every allocation counts towards the next young collection until then. Compile makes and
    drops a few trees a statement; unlinked where it is done with them, a compile of 10,000
    statements runs about a third fewer young collections and, since middle and full
    collections are counted in young ones, fewer full collections over the caller's heap.

    A node's type (``_type``) is not walked: sqlglot may annotate nodes with types it shares
    between trees, whose links must stay as they are (a type left linked is freed by the
    collector, as before)."""
    expr, leaves = exp.Expr, _LEAVES
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        node.parent = None
        if node.__class__ in leaves:  # the root only: a leaf child is unlinked where it is met
            continue
        for value in node.args.values():
            if isinstance(value, expr):  # the common case first: no call of type()
                if value.__class__ in leaves:
                    value.parent = None
                else:
                    push(value)
            elif value.__class__ is list:
                for v in value:
                    if isinstance(v, expr):
                        if v.__class__ in leaves:
                            v.parent = None
                        else:
                            push(v)


def unlink_listed(nodes: list[exp.Expr]) -> None:
    """:func:`unlink`'s work on a tree whose nodes a walk listed already (every node but the
    types): a pass over the list instead of another walk. A node sqlglot's generator added to
    the tree after the list was made keeps its link, and waits for the collector as before."""
    for node in nodes:
        node.parent = None


def unlinked(root: exp.Expr) -> bool:
    """Whether :func:`unlink` has been through ``root``'s tree already, so that another walk
    would find nothing to do: its first child has no parent, where in a tree as sqlglot links
    it every child has one. A root without children answers False (its unlink costs nothing)."""
    expr = exp.Expr
    for value in root.args.values():
        if isinstance(value, expr):
            return value.parent is None
        if value.__class__ is list:
            for v in value:
                if isinstance(v, expr):
                    return v.parent is None
    return False
