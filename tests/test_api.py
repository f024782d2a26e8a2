"""translator.api: what a compile result keeps of its errors."""

from __future__ import annotations

import pytest

from translator.api import compile_script
from translator.errors import TranslatorError


def _chain(error: BaseException) -> list[BaseException]:
    out, pending = [], [error]
    while pending:
        e = pending.pop()
        if e is None or any(e is o for o in out):
            continue
        out.append(e)
        pending += [e.__cause__, e.__context__]
    return out


SCRIPT = """
CREATE FUNCTION ok(x INT) RETURNS INT RETURN x + 1;
CREATE FUNCTION broken(x INT RETURNS INT RETURN x;
CREATE FUNCTION bad_body(x INT) RETURNS INT RETURN x +;
CREATE FUNCTION strays(x INT) RETURNS INT RETURN y + 1;
"""


def test_errors_are_values_without_the_frames_they_were_raised_in() -> None:
    result = compile_script(SCRIPT, "spark", file="f.sql")
    assert len(result.errors) == 3 and "ok" in result.functions
    for error in result.errors:
        assert error.position is not None and error.position.file == "f.sql"
        assert error.message
        for e in _chain(error):
            assert e.__traceback__ is None, (error, e)
    # still raised as themselves
    with pytest.raises(TranslatorError) as raised:
        result.raise_for_errors()
    assert raised.value is result.errors[0]


def test_a_parsed_scripts_errors_keep_no_frames_either() -> None:
    from translator.frontend import parse_script

    parsed = parse_script(SCRIPT, "spark", file="f.sql")
    assert parsed.errors  # the unclosed parameter list
    for error in parsed.errors:
        for e in _chain(error):
            assert e.__traceback__ is None, (error, e)
