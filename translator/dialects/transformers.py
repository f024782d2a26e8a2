"""A Builder seen through lark's Transformer interface: the tree walk and the inline parsers'
callbacks (:mod:`translator.dialects.grammar` runs both).

lark finds a rule's method by name on the object it is given, so both classes answer names
that are not their own: :class:`Walk` derives from lark's ``Transformer`` and passes what it
lacks to the Builder, :class:`Callbacks` gains an attribute per rule when it is made. Neither
can be a class compiled by mypyc (one that derives from an interpreted class may not define
``__getattr__``, and a compiled instance gains no attributes), so they live here, in a module
the native build leaves interpreted, and :mod:`~translator.dialects.grammar` compiles.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from lark import Token, Transformer

from translator.dialects.inline_loop import METHOD

__all__ = ["Callbacks", "Walk"]


class Callbacks:
    """A stand-in Transformer for :func:`~translator.dialects.grammar.inline_parser`: one
    attribute per rule that ``builder`` has a method for, calling that method on the innermost
    builder of ``running.stack`` (the Builders
    :func:`~translator.dialects.grammar.run_inline` is running in this thread)."""

    def __init__(self, builder: type, rules: set[str], running: threading.local) -> None:
        for rule in rules:
            method = getattr(builder, str(rule), None)
            if str(rule).startswith("_") or not callable(method):
                continue

            # run_inline has made this thread's stack: callbacks run only inside it
            def call(
                children: list[Any],
                method: Callable[..., Any] = method,
                running: threading.local = running,
            ) -> Any:
                return method(running.stack[-1], children)

            setattr(call, METHOD, method)  # the inline loop calls it on the Builder itself
            setattr(self, str(rule), call)


class Walk(Transformer[Token, Any]):
    """lark's tree walk calling a Builder's methods, one a rule, as if the Builder were the
    Transformer: lark finds a rule's method with ``getattr`` on the walk, which passes the
    names it does not have itself to the Builder. The Builders stay plain classes (a class
    compiled by mypyc cannot derive from lark's), and the inline loop calls them directly."""

    def __init__(self, builder: object) -> None:
        super().__init__(visit_tokens=False)
        self._builder = builder

    def __getattr__(self, name: str) -> Any:
        return getattr(self._builder, name)
