"""The ``iceberg-udf`` command line, apart from the library it drives.

:mod:`~translator.cli.console` (the entry point, :func:`main`), :mod:`~translator.cli.args`
(exit codes, shared options, opening a warehouse), one module per command group, and
:mod:`~translator.cli.output` (text and JSON). The library returns data and typed errors; this
package renders them and adds the hints that name command-line flags.
"""

from __future__ import annotations

from translator.cli.args import UsageError
from translator.cli.console import build_parser, main

__all__ = ["UsageError", "build_parser", "main"]
