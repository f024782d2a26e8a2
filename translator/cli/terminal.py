"""What a person at a terminal sees: rich tables and a rich progress bar.

Only when the stream is a terminal (and ``TERM`` is not ``dumb``); redirected to a file or a
pipe, the commands print the plain lines of :mod:`translator.cli.output` exactly as before, so
scripts that read them keep working. Every cell is a :class:`rich.text.Text`, never markup: a
function name or a file path like ``[bold]x`` is printed as written. rich honours ``NO_COLOR``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

__all__ = ["BarProgress", "on_terminal", "print_table"]


def on_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def _console(out: TextIO) -> Console:
    from rich.console import Console

    return Console(file=out, highlight=False, soft_wrap=False)


def print_table(
    out: TextIO,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    title: str | None = None,
    right: Sequence[int] = (),
) -> None:
    """``title`` on its own line, then ``rows`` under ``header`` as a rich table (columns in
    ``right`` right-aligned)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    t = Table(box=box.SIMPLE_HEAD)
    for i, name in enumerate(header):
        t.add_column(Text(name), justify="right" if i in right else "left", overflow="fold")
    for row in rows:
        t.add_row(*(Text(cell) for cell in row))
    console = _console(out)
    if title:  # a line of its own: a table title would wrap at the table's width
        console.print(Text(title))
    console.print(t)


class BarProgress:
    """A progress bar on a terminal; lines printed through it appear above the bar."""

    def __init__(self, out: TextIO, label: str) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.progress: Progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[item]}"),
            console=_console(out),
            transient=True,
        )
        self.label = label
        self.task: TaskID | None = None

    def update(self, done: int, total: int, item: str) -> None:
        if self.task is None:
            self.progress.start()
            self.task = self.progress.add_task(self.label, total=total, item=item)
        self.progress.update(self.task, completed=done, total=total, item=item)
        self.progress.refresh()  # each file's step is drawn, not only the timer's

    def line(self, text: str) -> None:
        from rich.text import Text

        self.progress.console.print(Text(text))

    def finish(self) -> None:
        if self.task is not None:
            self.progress.stop()
            self.task = None
