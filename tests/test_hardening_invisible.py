"""Issue 15, class 5: invisible characters are ignored between statements and an error inside
one; a statement after one is never counted as "not function DDL" and skipped."""

from __future__ import annotations

import pytest

from translator.api import compile_script
from translator.body_checks import body_problem
from translator.errors import SqlSyntaxError

BETWEEN = ["\ufeff", "\u200b", "\x00", "\u2060", "\ufeff\u200b\x00"]


@pytest.mark.parametrize("dialect", ["spark", "trino"])
@pytest.mark.parametrize("char", BETWEEN)
def test_invisible_characters_between_statements_are_ignored(char: str, dialect: str) -> None:
    script = "".join(
        f"{char}CREATE FUNCTION f{i}(x INT) RETURNS INT RETURN x;\n{char}" for i in range(3)
    )
    result = compile_script(script, dialect).raise_for_errors()
    assert sorted(result.functions) == ["f0", "f1", "f2"]
    assert result.skipped == []


@pytest.mark.parametrize("dialect", ["spark", "trino"])
@pytest.mark.parametrize(
    "script",
    [
        "CREATE\u200bFUNCTION f(x INT) RETURNS INT RETURN x",
        "CREATE FUNCTION f(x INT) RETURNS INT RETURN x \u202e+ 1",
        "CREATE FUNCTION f(x INT)\x00 RETURNS INT RETURN x",
        "CREATE FUNCTION f\ufeff(x INT) RETURNS INT RETURN x",
    ],
)
def test_invisible_characters_inside_a_statement_are_errors(script: str, dialect: str) -> None:
    result = compile_script(script, dialect, file="s.sql")
    assert result.skipped == [] and not result.functions
    (error,) = result.errors
    assert isinstance(error, SqlSyntaxError) and "invisible character U+" in error.message
    assert error.position is not None and error.position.file == "s.sql"


def test_invisible_characters_inside_strings_are_kept() -> None:
    result = compile_script(
        "CREATE FUNCTION f(x STRING) RETURNS STRING RETURN concat(x, '\u200b')", "spark"
    ).raise_for_errors()
    meta = result.functions["f"]
    assert meta is not None
    assert "\u200b" in meta.definitions[0].current_version.representations[0].sql  # type: ignore[union-attr]


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_an_invisible_character_in_a_metadata_body_is_refused(dialect: str) -> None:
    assert "U+202E" in (body_problem("x \u202e+ 1", "expression", dialect) or "")


def test_the_invisible_ranges_kept_are_the_scan_of_this_unicode_version() -> None:
    """invisible.py keeps the scan's result per Unicode version (the scan costs 0.13 s a
    process)."""
    import unicodedata

    from translator import invisible

    found: list[list[int]] = []
    for c in range(0x110000):
        if invisible._invisible(chr(c)):
            if found and found[-1][1] == c - 1:
                found[-1][1] = c
            else:
                found.append([c, c])
    kept = invisible._INVISIBLE_RANGES.get(unicodedata.unidata_version)
    if kept is None:
        pytest.skip(f"no ranges kept for Unicode {unicodedata.unidata_version}: scanned")
    assert tuple(tuple(r) for r in found) == kept
