"""``position_at`` places an offset as counting lines and columns from the start would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from translator.errors import Position, position_at


def _counted(text: str, offset: int, file: str | None, base: Position | None) -> Position:
    """Walk the text character by character up to ``offset`` (clamped into the text)."""
    offset = max(0, min(offset, len(text)))
    line, column = (1, 1) if base is None else (base.line, base.column)
    for ch in text[:offset]:
        line, column = (line + 1, 1) if ch == "\n" else (line, column + 1)
    if base is None:
        return Position(line, column, offset, file)
    return Position(line, column, base.offset + offset, base.file if file is None else file)


_TEXT = st.text(alphabet=st.sampled_from("ab \n\r\t(é"), max_size=40)
_BASE = st.none() | st.builds(
    Position,
    st.integers(1, 50),
    st.integers(1, 50),
    st.integers(0, 500),
    st.none() | st.just("s.sql"),
)


@given(_TEXT, st.integers(-3, 45), st.none() | st.just("f.sql"), _BASE)
def test_position_at_counts_lines_and_columns(
    text: str, offset: int, file: str | None, base: Position | None
) -> None:
    got = position_at(text, offset, file, base)
    assert got == _counted(text, offset, file, base)
    assert type(got) is Position
