"""A command loads what it runs, not what the other commands run: the parser (``--help``, a usage
error) loads no SQL, metadata or warehouse machinery, and a command loads neither the server nor
the REST client unless it serves or speaks to one. Each is checked in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

#: The heavy parts a command loads only if it needs them.
_HEAVY = (
    "sqlglot",
    "lark",
    "pydantic",
    "rich",
    "translator.compile",
    "translator.metadata",
    "translator.migrate.run",
    "translator.warehouse.warehouse",
    "translator.warehouse.rest",
    "translator.server",
)


def _loaded_after(code: str) -> set[str]:
    """The modules of :data:`_HEAVY` loaded once ``code`` ran in a fresh interpreter."""
    probe = (
        f"import sys\n{code}\nimport json\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({_HEAVY!r}))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    loaded: list[str] = json.loads(out.splitlines()[-1])
    return {m for m in loaded if any(m == h or m.startswith(h + ".") for h in _HEAVY)}


def test_the_parser_loads_none_of_what_the_commands_run() -> None:
    code = "from translator.cli.console import build_parser\nbuild_parser()"
    assert _loaded_after(code) == set()


def test_help_and_bad_usage_load_none_of_it() -> None:
    for argv in (["--help"], ["compile", "--dialect", "nope", "x.sql"], ["migrate"]):
        code = (
            "from translator.cli.console import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass"
        )
        assert _loaded_after(code) == set(), argv


def test_a_compile_loads_no_warehouse_runner_server_or_rest_client(tmp_path: Path) -> None:
    sql = tmp_path / "f.sql"
    sql.write_text("CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1;\n")
    code = (
        "import contextlib, io\nfrom translator.cli.console import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['compile', '--dialect', 'spark', {str(sql)!r}]) == 0"
    )
    loaded = _loaded_after(code)
    assert {"sqlglot", "lark", "pydantic", "translator.compile"} <= loaded
    assert not loaded & {
        "translator.warehouse.warehouse",
        "translator.warehouse.rest",
        "translator.migrate.run",
        "translator.server",
    }
