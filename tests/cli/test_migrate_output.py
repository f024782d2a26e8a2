"""What ``iceberg-udf migrate`` prints while it runs (``translator.cli.output``): one line per
file, or a bar redrawn in place on a terminal, and the events it draws from."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from tests.migrate.helpers import SPARK_DIR, migrate, run_cli, write_dir
from translator.cli.output import MigrationProgress
from translator.migrate import ProgressEvent


def test_progress_without_a_terminal_is_one_line_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        capsys, "migrate", "--dialect", "spark", str(SPARK_DIR), "--warehouse", str(tmp_path)
    )
    assert code == 1
    assert "\r" not in err
    lines = [line for line in err.splitlines() if line.startswith("[")]
    assert lines == [
        "[1/4] 1_orders_schema.sql: 6 statement(s): 2 applied, 4 skipped",
        "[2/4] 2_reporting.sql: 5 statement(s): 3 applied, 2 skipped",
        "[3/4] 10_pricing_v2.sql: 8 statement(s): 4 applied, 1 skipped, 3 failed",
        "[4/4] 11_cleanup.sql: 4 statement(s): 1 applied, 2 unchanged, 1 skipped",
    ]
    assert f"{SPARK_DIR}/10_pricing_v2.sql:10:35: error: unexpected 'RETURNS'" in err
    assert f"{SPARK_DIR}/1_orders_schema.sql:18:36: warning[lossy-type]" in err
    # The summary table goes to standard output.
    assert re.search(r"\n    failed +3\n", out)
    assert re.search(r"\n  untranslatable bodies +1\n", out)


def test_progress_on_a_terminal_is_a_rich_bar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("TERM", "xterm")
    out = Tty()
    progress = MigrationProgress(out, "src")
    src = write_dir(
        tmp_path / "src",
        {"1.sql": "CREATE FUNCTION f() RETURNS INT RETURN 1;", "2.sql": "DROP FUNCTION nope;"},
    )
    migrate(src, tmp_path / "wh", "spark", progress=progress)
    progress.finish()
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())  # colours, cursor moves
    assert re.search(r"migrate .*━.* 0/2 .*1\.sql", text)  # rich's bar, drawn at each file
    assert re.search(r"migrate .*━.* 2/2 .*2\.sql", text)
    assert "src/2.sql:1:1: error: function nope does not exist\n" in text  # above the bar
    assert "[1/2]" not in text  # the plain lines are for pipes and files


def test_progress_events(tmp_path: Path) -> None:
    events: list[ProgressEvent] = []
    migrate(SPARK_DIR, tmp_path, "spark", progress=events.append)
    assert [(e.index, e.file, e.done is not None) for e in events][:3] == [
        (1, "1_orders_schema.sql", False),
        (1, "1_orders_schema.sql", True),
        (2, "2_reporting.sql", False),
    ]
    assert [len(e.failures) for e in events if e.done] == [0, 0, 3, 0]
