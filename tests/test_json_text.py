"""translator/json_text.py: the text pydantic-core writes is the text ``json.dumps`` writes, with
keys sorted and as they come, for every JSON value (and other values go to ``json.dumps``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from translator.json_text import indented_json

_TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from('\x00\x1f\x7f\t\b\f\n\r"\\/é\u2028'))
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=examples(3000), deadline=None)
@given(_JSON, st.booleans())
def test_the_text_is_json_dumps(value: object, sort_keys: bool) -> None:
    expected = json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)
    assert indented_json(value, sort_keys=sort_keys) == expected


@pytest.mark.parametrize("sort_keys", [False, True])
@pytest.mark.parametrize(
    "value",
    [1.5, {"a": (1, 2)}, {1: "x", 2: {"b": 2}}, ["\ud800"], {"b": [0.1, {"a": float("nan")}]}],
)
def test_other_values_are_written_by_json_dumps(value: object, sort_keys: bool) -> None:
    expected = json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)
    assert indented_json(value, sort_keys=sort_keys) == expected
