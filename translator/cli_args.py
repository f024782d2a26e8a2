"""Argument pieces that several subcommands share, so each option is defined once."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from translator.compile import CompileOptions
from translator.dialects import DIALECTS
from translator.errors import TranslatorError

__all__ = ["UsageError", "compile_options", "compile_options_parent", "read_sources"]


class UsageError(Exception):
    """Bad usage found after argument parsing: exit 2 with the message."""


ParserT = TypeVar("ParserT", bound=argparse.ArgumentParser)


def compile_options_parent(cls: type[ParserT]) -> ParserT:
    """``--dialect --strict --target --no-transpile --attach``, for compile and apply."""
    p = cls(add_help=False)
    p.add_argument("--dialect", required=True, choices=sorted(DIALECTS))
    p.add_argument("--strict", action="store_true", help="refuse lossy translations")
    p.add_argument(
        "--target",
        action="append",
        choices=sorted(DIALECTS),
        help="dialect to transpile each new version into (repeatable; default: all others)",
    )
    p.add_argument("--no-transpile", action="store_true", help="store the source body only")
    p.add_argument(
        "--attach",
        action="store_true",
        help="attach each body to the current version of its existing definition",
    )
    return p


def compile_options(args: argparse.Namespace) -> CompileOptions:
    return CompileOptions(
        targets=tuple(args.target) if args.target else None,
        transpile=not args.no_transpile,
        attach=args.attach,
    )


def read_sources(paths: Sequence[str]) -> list[tuple[str, str]]:
    """(display name, text) of each SQL source; ``-`` is standard input.

    An unreadable file is bad input (exit 1), reported by the CLI like any other error.
    """
    out = []
    for p in paths:
        name = "<stdin>" if p == "-" else p
        try:
            # Strict UTF-8 and universal newlines, for standard input as for files.
            if p == "-":
                raw = io.BytesIO(sys.stdin.buffer.read())
                out.append((name, io.TextIOWrapper(raw, encoding="utf-8").read()))
            else:
                out.append((name, Path(p).read_text(encoding="utf-8")))
        except OSError as e:
            raise TranslatorError(f"cannot read {name}: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise TranslatorError(f"cannot read {name}: not UTF-8 text ({e.reason})") from None
    return out
