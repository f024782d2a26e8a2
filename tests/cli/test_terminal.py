"""Tables through rich on a terminal, the plain text of before everywhere else."""

from __future__ import annotations

import io
import re

import pytest

from translator.cli.output import list_text, print_history, print_list
from translator.warehouse.layout import FunctionRef
from translator.warehouse.summary import FunctionInfo, HistoryEntry

INFOS = [
    FunctionInfo(FunctionRef("sales", "add_one"), 2, "sales/add_one/metadata/00002.metadata.json"),
    FunctionInfo(FunctionRef("x", "[bold]evil"), 1, "x/[red]f/metadata/1.metadata.json"),
]


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def test_list_on_a_terminal_is_a_rich_table_that_prints_names_as_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", "120")
    out = Tty()
    print_list(INFOS, out)
    text = _plain(out.getvalue())
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    assert lines[0].split() == ["FUNCTION", "DEFINITIONS", "METADATA", "FILE"]
    assert set(lines[1]) <= {"─", " "}  # rich's header rule
    assert lines[2].split() == ["sales.add_one", "2", "sales/add_one/metadata/00002.metadata.json"]
    assert lines[3].split() == [
        "x.[bold]evil",
        "1",
        "x/[red]f/metadata/1.metadata.json",
    ]


def test_off_a_terminal_the_lines_are_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    print_list(INFOS, out)
    assert out.getvalue() == list_text(INFOS)
    assert out.getvalue().splitlines()[0].split() == ["FUNCTION", "DEFINITIONS", "METADATA", "FILE"]
    monkeypatch.setenv("TERM", "dumb")
    tty = Tty()
    print_list(INFOS, tty)
    assert tty.getvalue() == list_text(INFOS)


def test_history_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", "120")
    entries = [
        HistoryEntry(1, 1734507000000, (("int", 1),), False),
        HistoryEntry(2, 1734507000123, (("int", 2),), True),
    ]
    out = Tty()
    print_history("sales.add_one", "f.metadata.json", entries, out)
    lines = [line.strip() for line in _plain(out.getvalue()).splitlines() if line.strip()]
    assert lines[0] == "sales.add_one: 2 log entries (f.metadata.json)"
    assert lines[-1].split() == [
        "2*",
        "2024-12-18T07:30:00.123Z",
        "1734507000123",
        "int",
        "->",
        "v2",
    ]
