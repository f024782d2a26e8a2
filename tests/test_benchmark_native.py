"""benchmarks/native.py: the native build a benchmark run makes, or why it could not.

The successful build itself (about a minute of mypyc and gcc) is exercised by a benchmark run
and by ``.ci/native-suite.sh``; these tests hold each way a build can fail to a reason and no
traceback, with the real interpreter, compiler lookup and ``setup.py`` run it uses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from benchmarks import native

ROOT = Path(__file__).resolve().parent.parent


def _needs_mypyc_and_cc() -> None:
    pytest.importorskip("mypyc", reason="the build checks mypyc before anything else")
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler on this host")


def test_an_interpreter_without_mypyc_is_not_built_and_says_why(tmp_path: Path) -> None:
    venv.create(tmp_path / "venv", with_pip=False)  # no mypy, no site-packages of ours
    python = tmp_path / "venv" / "bin" / "python"
    cache = tmp_path / "cache"
    made = native.build(ROOT, cache, python=str(python))
    assert not made.built and made.site is None
    assert made.reason.startswith("mypyc is not installed")
    assert made.label() == f"not built: {made.reason}"
    assert not cache.exists()


def test_no_c_compiler_is_not_built_and_says_why(tmp_path: Path) -> None:
    _needs_mypyc_and_cc()
    env = dict(os.environ, CC="iceberg-udf-no-such-cc -O2")
    made = native.build(ROOT, tmp_path / "cache", env=env)
    assert not made.built
    assert made.reason == "no C compiler (iceberg-udf-no-such-cc not found)"
    assert not (tmp_path / "cache").exists()


def test_a_build_error_is_not_built_says_why_and_leaves_nothing(tmp_path: Path) -> None:
    _needs_mypyc_and_cc()
    root = tmp_path / "tree"
    (root / "translator").mkdir(parents=True)
    (root / "translator" / "__init__.py").write_text("", "utf-8")
    (root / "setup.py").write_text('import sys\nprint("compiling")\nsys.exit("gcc: 1 error")\n')
    cache = tmp_path / "cache"
    (cache / ".native-build-crashed").mkdir(parents=True)  # what a killed build leaves
    made = native.build(root, cache)
    assert not made.built
    assert made.reason == "build failed (1): gcc: 1 error"
    # Neither a kept build nor a half one, and the crashed one's folder is gone.
    assert [p.name for p in cache.iterdir()] == [".native-build.lock"]


def test_a_build_kept_in_the_cache_for_the_same_sources_is_reused(tmp_path: Path) -> None:
    _needs_mypyc_and_cc()
    root = tmp_path / "tree"
    (root / "translator").mkdir(parents=True)
    (root / "translator" / "ir.py").write_text("X = 1\n", "utf-8")
    (root / "setup.py").write_text('import sys\nsys.exit("must not build")\n')
    found = native.probe(sys.executable, dict(os.environ))
    assert isinstance(found, dict)
    kept = tmp_path / "cache" / f"native-{native._stamp(root, found)}"
    (kept / "site").mkdir(parents=True)
    (kept / "native-build.json").write_text('{"modules": 31, "seconds": 70.0}', "utf-8")
    made = native.build(root, tmp_path / "cache")
    assert made == native.NativeBuild(str(kept / "site"), 31, 70.0, reused=True)
    assert made.label() == "mypyc, 31 compiled modules (reused from an earlier run)"
    (root / "translator" / "ir.py").write_text("X = 2\n", "utf-8")  # another tree: built anew
    assert native.build(root, tmp_path / "cache").reason == "build failed (1): must not build"


def test_a_kept_build_is_found_by_its_sources_and_a_changed_source_builds_anew(
    tmp_path: Path,
) -> None:
    root = tmp_path / "tree"
    (root / "translator").mkdir(parents=True)
    (root / "translator" / "ir.py").write_text("X = 1\n", "utf-8")
    (root / "setup.py").write_text("", "utf-8")
    probe = {"python": sys.version, "mypyc": "2.4.1", "cc": "gcc"}
    first = native._stamp(root, probe)
    assert native._stamp(root, dict(probe)) == first
    (root / "translator" / "ir.py").write_text("X = 2\n", "utf-8")
    assert native._stamp(root, probe) != first
    assert native._stamp(root, probe | {"mypyc": "2.5.0"}) != native._stamp(root, probe)
    assert native._stamp(root, probe | {"deps": {"sqlglot": "31.0.0"}}) != native._stamp(
        root, probe
    )


def test_the_process_env_loads_the_site_before_the_checkout(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "translator").mkdir(parents=True)
    (site / "translator" / "__init__.py").write_text("", "utf-8")
    code = (
        "import json, benchmarks, translator\n"
        "print(json.dumps([translator.__file__, benchmarks.__file__]))"
    )
    # Run from the checkout, as the benchmark's parts are: its own translator must not win.
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=native.process_env(str(site)),
        capture_output=True,
        text=True,
        check=True,
    )
    mine, bench = json.loads(done.stdout)
    assert Path(mine).parent.parent == site
    assert Path(bench).parent.parent == ROOT


def test_compiled_modules_counts_what_this_process_loaded() -> None:
    import translator.ir

    assert (native.compiled_modules() > 0) == translator.ir.__file__.endswith(".so")


def test_an_unusable_cache_folder_is_not_built_and_says_why(tmp_path: Path) -> None:
    _needs_mypyc_and_cc()
    cache = tmp_path / "cache"
    cache.write_text("a file where the folder should be", "utf-8")
    made = native.build(ROOT, cache)
    assert not made.built
    assert made.reason == f"cannot keep the build in {cache}: File exists"
