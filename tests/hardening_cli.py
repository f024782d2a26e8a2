"""Run the ``iceberg-udf`` command in this process, as a user would see it (issue 15's tests)."""

from __future__ import annotations

import io
import traceback
from contextlib import redirect_stderr, redirect_stdout

from translator.cli import main

#: The exit status :func:`run_cli` gives an exception that escaped the command (a traceback).
ESCAPED = -1


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``(exit status, stdout, stderr)``; an exception that escapes ``main`` is printed as the
    interpreter would (a traceback on stderr) and gives :data:`ESCAPED`."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
        except Exception:
            traceback.print_exc()
            code = ESCAPED
    return code, out.getvalue(), err.getvalue()
