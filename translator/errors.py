"""One exception hierarchy, and warnings as data.

Every error that comes from user input carries a :class:`Position` where one exists, so the CLI
can print ``file:line:column``, the source line and a caret, and a library caller can do the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

__all__ = [
    "BodyError",
    "Diagnostic",
    "HistoryError",
    "LossyError",
    "MergeError",
    "MetadataError",
    "NameSyntaxError",
    "Position",
    "RoutineError",
    "SqlSyntaxError",
    "TranslatorError",
    "UnsupportedError",
    "UnsupportedNameError",
    "expected_text",
    "format_diagnostic",
    "position_at",
]


@dataclass(frozen=True, slots=True)
class Position:
    """A place in a source text. ``line`` and ``column`` count from 1; ``offset`` from 0."""

    line: int
    column: int
    offset: int = 0
    file: str | None = None

    def __str__(self) -> str:
        return f"{self.file or '<sql>'}:{self.line}:{self.column}"


def position_at(
    text: str, offset: int, file: str | None = None, base: Position | None = None
) -> Position:
    """The position of ``offset`` in ``text``; ``base`` is where ``text`` itself starts.

    The front ends place every parameter, clause and warning of every statement: the line's
    start is found once and lines are counted only before it (none on a statement's first line).
    """
    if offset < 0:
        offset = 0
    elif offset > len(text):
        offset = len(text)
    line_start = text.rfind("\n", 0, offset) + 1
    pos = _new(Position)  # Position(...) without the frozen dataclass's __init__ (see below)
    if base is None:
        _set_line(pos, text.count("\n", 0, line_start) + 1)
        _set_column(pos, offset - line_start + 1)
        _set_offset(pos, offset)
        _set_file(pos, file)
        return pos
    if line_start:
        _set_line(pos, base.line + text.count("\n", 0, line_start))
        _set_column(pos, offset - line_start + 1)
    else:  # on the first line of ``text``, which starts at ``base``'s column
        _set_line(pos, base.line)
        _set_column(pos, base.column + offset)
    _set_offset(pos, base.offset + offset)
    _set_file(pos, base.file if file is None else file)
    return pos


# The front ends place every parameter, clause and warning: a position's slots are filled
# directly, which is what the generated __init__ of a frozen dataclass does through
# object.__setattr__, at half the cost.
_new = object.__new__
_set_line = Position.__dict__["line"].__set__
_set_column = Position.__dict__["column"].__set__
_set_offset = Position.__dict__["offset"].__set__
_set_file = Position.__dict__["file"].__set__


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A warning, returned with results. ``lossy`` marks information that a translation drops."""

    code: str
    message: str
    position: Position | None = None
    lossy: bool = False

    def __str__(self) -> str:
        where = f"{self.position}: " if self.position else ""
        return f"{where}warning[{self.code}]: {self.message}"


class TranslatorError(Exception):
    """Root of every error this package raises on purpose."""

    code = "error"

    def __init__(
        self,
        message: str,
        position: Position | None = None,
        *,
        source_line: str | None = None,
        expected: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.source_line = source_line
        self.expected = expected

    def __str__(self) -> str:
        return format_diagnostic(self)

    def without_frames(self) -> Self:
        """This error (and each exception it was raised from or during) without its traceback:
        what a result keeps of an error it reports.

        Errors kept as values say what is wrong by their message and position. A caught
        exception's traceback keeps every frame it passed through alive, and with them the
        locals of the parse or merge that raised it (lark tokens and trees, sqlglot trees,
        metadata models): on the benchmark corpus 40% of the objects kept compile results held,
        which every later full collection of the caller's heap walks again. The chained
        exceptions stay; only their frames go.
        """
        seen: set[int] = set()
        pending: list[BaseException | None] = [self]
        while pending:
            e = pending.pop()
            if e is None or id(e) in seen:
                continue
            seen.add(id(e))
            e.__traceback__ = None
            pending += (e.__cause__, e.__context__)
        return self


class SqlSyntaxError(TranslatorError):
    """The SQL text does not follow the dialect's grammar."""

    code = "syntax"


class UnsupportedError(TranslatorError):
    """Well-formed input that Iceberg or the target engine cannot express (a type, a clause)."""

    code = "unsupported"


class BodyError(TranslatorError):
    """A routine body no engine would take: not exactly one expression or query (a second
    statement after a ``;``), broken (``1 +``), or naming what is not a parameter."""

    code = "body"


class LossyError(UnsupportedError):
    """A translation that would drop information, refused because the caller did not allow it.
    ``detail`` says what would be lost; ``refused_by`` says which choice refused it
    (``"allow_lossy"``: lossy output was not allowed; ``"strict"``: strict compilation refuses
    every lossy warning), so a front end can name its own switch for it."""

    def __init__(
        self, detail: str, position: Position | None = None, *, refused_by: str = "allow_lossy"
    ) -> None:
        why = "strict mode refuses lossy translations" if refused_by == "strict" else None
        super().__init__(f"{detail} ({why})" if why else detail, position)
        self.detail = detail
        self.refused_by = refused_by


class NameSyntaxError(TranslatorError):
    """A function name given as text (the command line's NAME) that is malformed: an empty
    part, an unclosed quote (:mod:`translator.names`)."""

    code = "name"


class UnsupportedNameError(UnsupportedError):
    """A function name the target engine cannot write as given (its number of parts): the
    command line can then say how to give another."""


class RoutineError(TranslatorError):
    """A routine the engine's own analyzer rejects after parsing (Trino: a compound body that
    does not end in RETURN, an unknown variable, a query in a routine...). ``engine_code`` is
    the engine's error code (``MISSING_RETURN``, ``TYPE_MISMATCH``...)."""

    code = "routine"

    def __init__(
        self,
        message: str,
        position: Position | None = None,
        *,
        source_line: str | None = None,
        engine_code: str = "",
    ) -> None:
        super().__init__(message, position, source_line=source_line)
        self.engine_code = engine_code


class OverloadError(UnsupportedError):
    """Several definitions to write for an engine without overloading: each would replace the
    one before. ``definitions`` names them, so a caller can pick one."""

    def __init__(self, message: str, definitions: list[str]) -> None:
        super().__init__(message)
        self.definitions = definitions


class MetadataError(TranslatorError):
    """A metadata document that breaks the spec. ``problems`` holds every (json-path, message)."""

    code = "metadata"

    def __init__(self, message: str, problems: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


class MergeError(TranslatorError):
    """A statement that conflicts with existing metadata (already exists, return type changed)."""

    code = "merge"


class HistoryError(TranslatorError):
    """A point of a function's history that its definition-log cannot answer (a time before the
    first entry, an entry number out of range), or a rollback it cannot make."""

    code = "time-travel"


def format_diagnostic(err: TranslatorError) -> str:
    """``file:line:col: error: message``, the source line, a caret, and what was expected."""
    head = f"{err.position}: " if err.position else ""
    lines = [f"{head}error: {err.message}"]
    if err.position is not None and err.source_line is not None:
        src = err.source_line.expandtabs(1)
        lines.append(f"    {src}")
        lines.append("    " + " " * (err.position.column - 1) + "^")
    if err.expected:
        lines.append(expected_text(err.expected))
    return "\n".join(lines)


def expected_text(expected: tuple[str, ...]) -> str:
    """``expected one of: ')', ',', COMMENT``: punctuation quoted, or a bare comma is lost in
    the comma-separated list."""
    shown = (name if any(c.isalnum() for c in name) else f"'{name}'" for name in expected)
    return "expected one of: " + ", ".join(shown)
