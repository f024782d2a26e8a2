"""The nodes of a sqlglot tree as a list, in the orders of sqlglot's own ``walk``.

The analyzer and the meaning rewrite look at every node of every body they judge. sqlglot's
``walk`` is a chain of generators (a frame per node and per child list); a plain loop over each
node's ``args`` gives the same nodes in the same order for about two thirds of the time in
pure Python, and order matters here: the first unknown name (breadth first) and the first
refusal (children before parents, in the depth-first order) are the ones reported.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["breadth_first", "depth_first"]


def breadth_first(root: exp.Expr) -> list[exp.Expr]:
    """``list(root.walk())``: breadth first, children in argument order."""
    out = [root]
    append = out.append
    i = 0
    while i < len(out):
        for value in out[i].args.values():
            if isinstance(value, list):
                for v in value:
                    if isinstance(v, exp.Expr):
                        append(v)
            elif isinstance(value, exp.Expr):
                append(value)
        i += 1
    return out


def depth_first(root: exp.Expr) -> list[exp.Expr]:
    """``list(root.walk(bfs=False))``: depth first, each node before its children, children in
    argument order."""
    out: list[exp.Expr] = []
    append = out.append
    stack = [root]
    pop = stack.pop
    while stack:
        node = pop()
        append(node)
        children: list[exp.Expr] = []
        for value in node.args.values():
            if isinstance(value, list):
                children.extend(v for v in value if isinstance(v, exp.Expr))
            elif isinstance(value, exp.Expr):
                children.append(value)
        children.reverse()
        stack.extend(children)
    return out
