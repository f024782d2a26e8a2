"""Every memo in the library is bounded, unless what keys it is fixed by the code itself.

A memo keyed by what a script or a metadata file says (a type's text, a name) grows with every
new input: in a long-running process (``iceberg-udf serve``, a deploy loop) an unbounded one is a
leak that hostile input can drive. The allowed unbounded ones are keyed by grammar names,
dialects, lexical settings and the like: a handful of keys for the life of the process.
"""

from __future__ import annotations

import importlib
import pkgutil

import translator

#: Unbounded memos and what bounds their keys.
FIXED_KEYS = {
    "translator.bodies.builtin_functions": "a dialect name",
    "translator.body_checks._plain_pattern": "a dialect's lexical settings",
    "translator.dialects.grammar.load_parser": "a grammar file and start rule",
    "translator.dialects.grammar.inline_parser": "a grammar, start rule and Builder class",
    "translator.dialects.grammar._compiled": "a pattern of a grammar's terminals",
    "translator.frontend._function_ddl": "no argument",
    "translator.invisible.invisible_class": "no argument",
    "translator.script._token_pattern": "a dialect's lexical settings",
    "translator.script._split_pattern": "a dialect's lexical settings",
    "translator.script._after_end": "no argument",
}


def _memos() -> dict[str, int | None]:
    found: dict[str, int | None] = {}
    for info in pkgutil.walk_packages(translator.__path__, "translator."):
        if info.name.endswith(".__main__"):
            continue  # runs the command when imported
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            params = getattr(value, "cache_parameters", None)
            if params is None or getattr(value, "__module__", None) != info.name:
                continue  # not a functools memo, or one imported from elsewhere
            found[f"{info.name}.{name}"] = params()["maxsize"]
    return found


def test_every_memo_keyed_by_input_is_bounded() -> None:
    memos = _memos()
    assert len(memos) > 20  # the walk found the library's memos
    unbounded = {name for name, size in memos.items() if size is None}
    assert unbounded <= set(FIXED_KEYS), sorted(unbounded - set(FIXED_KEYS))


def test_the_list_of_fixed_keys_names_real_memos() -> None:
    memos = _memos()
    assert set(FIXED_KEYS) <= set(memos), sorted(set(FIXED_KEYS) - set(memos))
