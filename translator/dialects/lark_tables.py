"""lark's own LALR table, kept small for the garbage collector where lark's code reads it.

The inline loop (:mod:`~translator.dialects.inline_loop`) reads its own copy of a parser's
table. lark's table holds a ``(Shift, state)`` or ``(Reduce, rule)`` tuple per entry, thousands
a grammar, all tracked by the cyclic garbage collector and traversed by each full collection:
where the loop has its copy, lark's is let go and made again only if lark's parser runs
(:class:`LazyParseTable`); where lark's code or lark-cython's keeps reading it, its equal
entries are made one tuple (:func:`share_entries`).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from lark import Lark
from lark.grammar import Rule
from lark.parsers.lalr_analysis import IntParseTable, Reduce, Shift

__all__ = ["LazyParseTable", "share_entries"]


class LazyParseTable(IntParseTable):
    """lark's parse table, made again from the loop's tables when lark first reads it.

    Once the loop has its tables, lark's own parser runs only where the loop refuses a text
    (a syntax error, which lark then reports) or where the caller asks lark for a tree walk of
    a statement the loop cannot give: until then this holds nothing of its own. Made again,
    the entries are the same (equal and in the same order), one tuple per target shared by
    every entry that has it.

    ``actions[state][symbol]`` is the loop's entry: the next state (>= 0), or ``~i`` for a
    reduction by ``rules[i]``; ``states`` are lark's state numbers in lark's order.
    """

    def __init__(
        self,
        actions: list[dict[str, int]],
        rules: tuple[Rule, ...],
        states: tuple[int, ...],
        start_states: dict[str, int],
        end_states: dict[str, int],
    ) -> None:
        self._actions, self._rules, self._states = actions, rules, states
        self.start_states = start_states
        self.end_states = end_states

    @cached_property
    def states(self) -> dict[int, dict[str, tuple[Any, Any]]]:  # type: ignore[override]
        actions = self._actions
        # Any, not tuple[...]: compiled by mypyc, a typed pair is unboxed when read and boxed
        # anew when stored, which would make one tuple per entry again.
        reduces: list[Any] = [(Reduce, rule) for rule in self._rules]
        shifts: list[Any] = [(Shift, state) for state in range(len(actions))]
        return {
            state: {
                symbol: shifts[arg] if arg >= 0 else reduces[~arg]
                for symbol, arg in actions[state].items()
            }
            for state in self._states
        }


def share_entries(parser: Lark) -> None:
    """Let the equal entries of ``parser``'s LALR table be one tuple (lark makes a ``(Shift,
    state)`` or ``(Reduce, rule)`` tuple for each, several thousand a grammar, every one of
    them traversed by each full garbage collection): for a parser whose table lark's own code
    or lark-cython's reads, and which the loop cannot replace (see :class:`LazyParseTable`)."""
    table = getattr(getattr(parser.parser, "parser", None), "_parse_table", None)
    states = getattr(table, "states", None)
    if not isinstance(states, dict):
        return
    shared: dict[Any, Any] = {}  # Any: the same tuple stored, not a copy (see LazyParseTable)
    for row in states.values():
        for symbol, entry in list(row.items()):
            row[symbol] = shared.setdefault(entry, entry)
