"""A Spark statement's text and the values the Transformer builds from it.

:class:`Source` places offsets of one statement in the script, raises the errors that point at
them and collects the statement's warnings; the dataclasses are the intermediate values the
parser and the assembler pass between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from lark import Token

from translator.dialects.grammar import error_at
from translator.dialects.spark.lexical import NAME_PARTS, Name
from translator.errors import Diagnostic, Position, SqlSyntaxError, TranslatorError, position_at
from translator.types import IcebergType

if TYPE_CHECKING:
    from translator.dialects.base import Dialect, TypeInference

__all__ = ["Clause", "Default", "NotNull", "Source", "Span", "TypeArgs", "Typed"]


class Source:
    """One statement's ``text`` and ``base`` (where it starts in the script; None for a lone
    type), the ``warnings`` met so far, and the ``dialect`` whose policies apply."""

    text: str
    base: Position | None
    warnings: list[Diagnostic]
    dialect: Dialect | None
    infer: TypeInference | None

    def position(self, offset: int) -> Position:
        return position_at(self.text, offset, None, self.base)

    def fail(self, cls: type[TranslatorError], message: str, offset: int) -> NoReturn:
        """Raise ``cls`` at ``offset`` with the source line, so the CLI can draw a caret."""
        raise error_at(cls, message, self.text, offset, self.base)

    def local_offset(self, position: Position | None) -> int:
        """Where ``position`` (an absolute script position) falls in this statement's text."""
        if position is None:
            return 0
        return position.offset - (self.base.offset if self.base else 0)

    def warn(self, code: str, message: str, offset: int, *, lossy: bool = True) -> None:
        self.warnings.append(Diagnostic(code, message, self.position(offset), lossy=lossy))

    def function_parts(self, name: tuple[Name, ...]) -> tuple[str, ...]:
        """Spark's case rule for function names: every part is lower-cased, backquoted or not
        (Spark's session catalog stores them so, so `Ab` and `ab` are one function there and
        here); at most 3 parts."""
        if len(name) > max(NAME_PARTS):
            self.fail(
                SqlSyntaxError,
                f"function name has {len(name)} parts: at most catalog.schema.function",
                name[0].offset,
            )
        return tuple(n.text.lower() for n in name)


# Intermediate values the Transformer passes upwards
#
# Every offset comes from a token or from a child's value: the parser runs without lark's
# position tracking (``propagate_positions``), which would cost about a third of the parse.
# They are not frozen: a frozen dataclass's __init__ costs about four times as much, and these
# live only while one statement is built.


@dataclass(slots=True)
class Clause:
    """One header clause. ``group`` names what may appear once (Spark's DUPLICATE_CLAUSES)."""

    kind: str
    group: str
    offset: int
    value: Any = None


@dataclass(slots=True)
class Default:
    text: str
    offset: int


@dataclass(slots=True)
class NotNull:
    offset: int


@dataclass(slots=True)
class Typed:
    """A parsed type and where it starts."""

    type: IcebergType
    offset: int


@dataclass(slots=True)
class TypeArgs:
    """A primitive type's ``(arg, ...)`` and where its ``)`` ends."""

    args: list[Token]
    end: int


#: Where a piece of a DEFAULT expression starts and ends, so the whole can be sliced as written.
Span = tuple[int, int]
