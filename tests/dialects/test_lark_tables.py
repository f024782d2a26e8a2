"""lark's own table where the loop has its copy: let go and made again, the same entries in
the same order, when lark's parser runs; where lark's code keeps reading it, one tuple per
distinct entry."""

from __future__ import annotations

import pytest

from translator.dialects.grammar import load_parser
from translator.dialects.inline_loop import _tables
from translator.dialects.lark_tables import LazyParseTable, share_entries


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_lark_s_table_made_again_is_the_one_it_loaded(dialect: str) -> None:
    """What lark's parser reads once the loop has the tables: the same entries, in the same
    order, as a parser loaded afresh has (lark's own parse of every statement is compared to
    the loop's above, errors included)."""
    cached = load_parser(dialect, "start", positions=False)
    assert _tables(cached) is not None
    fresh = load_parser.__wrapped__(dialect, "start", positions=False)
    made = cached.parser.parser.parser.parse_table
    loaded = fresh.parser.parser.parser.parse_table
    assert not isinstance(loaded, LazyParseTable)
    assert (made.start_states, made.end_states) == (loaded.start_states, loaded.end_states)
    assert list(made.states) == list(loaded.states)
    for state, row in loaded.states.items():
        assert list(made.states[state].items()) == list(row.items())


def test_equal_entries_of_a_table_lark_keeps_are_one_tuple() -> None:
    """A table lark's code reads (lark-cython's inline parsers') keeps one tuple per distinct
    entry: a few hundred, where lark made one per entry."""
    parser = load_parser.__wrapped__("trino", "start", positions=False)
    states = parser.parser.parser._parse_table.states
    before = [dict(row) for row in states.values()]
    entries = sum(len(row) for row in before)
    share_entries(parser)
    assert [dict(row) for row in states.values()] == before
    distinct = {id(entry) for row in states.values() for entry in row.values()}
    assert len(distinct) < len(states) + len(parser.rules) < entries / 4
