"""The ``iceberg-udf`` command: argument parsing, output and exit codes over :mod:`translator.api`.

Exit codes: 0 success, 1 bad input (SQL, metadata, a conflict), 2 bad usage. Errors never reach
the user as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from translator import __version__

__all__ = ["main"]

EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _cmd_validate(args: argparse.Namespace) -> int:
    from translator.validation import validate_paths

    all_ok = True
    for line, ok in validate_paths([Path(p) for p in args.files]):
        print(line)
        all_ok &= ok
    return EXIT_OK if all_ok else EXIT_INPUT


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="iceberg-udf",
        description="Compile SQL CREATE FUNCTION DDL into Apache Iceberg UDF metadata and back.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("validate", help="check metadata files against the Iceberg UDF spec")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(run=_cmd_validate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
