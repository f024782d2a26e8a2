"""benchmarks/phases.py: every phase it names is a function compile still calls where the tool
wraps it, so no row of its table is a silent zero (a renamed function once stopped the tool)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.phases import _PHASES

ROOT = Path(__file__).resolve().parent.parent


def test_every_phase_is_timed() -> None:
    import translator.dialects.spark as spark_dialect

    if str(spark_dialect.__file__).endswith((".so", ".pyd")):
        # A compiled caller calls a compiled function directly, past the tool's wrapper
        # (setup.py): the phases are the interpreted build's.
        pytest.skip("the front ends are compiled (the native build): their calls cannot be wrapped")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
    }
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.phases",
            "--build",
            "pure",
            "--statements",
            "60",
            "--json",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    seconds = json.loads(out.stdout)
    labels = {label.strip() for label, _, _ in _PHASES} | {"lark: parse the header"}
    assert labels | {"baseline", "compile"} == set(seconds)
    assert all(seconds[label] > 0 for label in labels), seconds
    assert seconds["compile"] > max(seconds[label] for label in labels)
