"""The opt-in native build (mypyc, ``ICEBERG_UDF_MYPYC=1``) as one of the benchmark's builds.

:func:`native_build` compiles ``setup.py``'s native modules once per benchmark run, in a copy of
the checkout (as ``.ci/native-suite.sh`` does: the checkout's own modules stay the pure-Python
ones, and a stray ``.so`` left beside them would change every other figure of the run). What the
measured processes need is kept as a folder shaped like an installed wheel (``translator/`` with
its compiled modules and its grammars, and mypyc's shared library beside it);
:func:`process_env` puts it first on ``PYTHONPATH``. A build that cannot be made (no mypyc, no C
compiler, a build error, a result whose modules are not compiled) is reported with its reason,
so that the run goes on without it.

    python -m benchmarks.native [--cache DIR]    # build (or find) it; print what was built (JSON)

With a cache folder (``python -m benchmarks --reuse DIR``) the build is kept there under a name
derived from everything it is made of (our sources, setup.py, the interpreter and mypy's
version), so a later run of the same tree reuses it and a changed tree builds anew. A build is
made in a temporary folder and renamed into place whole, under a lock on the cache folder: a
crash leaves no half build that a re-run would take (the re-run removes what it left), and of two
parts started at once (``--only``) the second waits for the first's build and uses it.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: What the build interpreter has: mypyc's version (None without it), the C compiler distutils
#: will call (the ``CC`` variable, else the interpreter's own), found on ``PATH`` or not, and the
#: versions of the libraries whose types mypyc compiles our calls against.
_PROBE = """
import json, os, shlex, shutil, sys, sysconfig
from importlib import metadata
try:
    import mypy.version, mypyc.build
    mypyc = mypy.version.__version__
except Exception:
    mypyc = None
deps = {}
for name in ("sqlglot", "lark", "pydantic", "setuptools"):
    try:
        deps[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
        deps[name] = None
cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
words = shlex.split(cc)
print(json.dumps({"mypyc": mypyc, "python": sys.version, "deps": deps,
                  "cc": words[0] if words else "",
                  "cc_found": bool(words) and shutil.which(words[0]) is not None}))
"""

#: Which translator modules a process loaded from compiled code, printed as JSON.
_LOADED = """
import json, sys, translator.ir
from benchmarks.native import compiled_modules
print(json.dumps({"ir": translator.ir.__file__, "compiled": compiled_modules()}))
"""

#: The outcome of a build kept in a cache folder.
_DONE = "native-build.json"


@dataclass(frozen=True)
class NativeBuild:
    """A native build ready to run (``site`` set), or why there is none (``reason``)."""

    site: str | None
    modules: int = 0
    seconds: float = 0.0
    reused: bool = False
    reason: str = ""

    @property
    def built(self) -> bool:
        return self.site is not None

    def label(self) -> str:
        """What the tables say about it."""
        if self.site is None:
            return f"not built: {self.reason}"
        how = "reused from an earlier run" if self.reused else f"built in {self.seconds:.0f} s"
        return f"mypyc, {self.modules} compiled modules ({how})"


def compiled_modules() -> int:
    """How many of the loaded ``translator`` modules are compiled code (0: interpreted)."""
    return sum(
        1
        for name, module in list(sys.modules.items())
        if (name == "translator" or name.startswith("translator."))
        and str(getattr(module, "__file__", "") or "").endswith((".so", ".pyd"))
    )


def process_env(site: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a process that runs the native build: ``site`` first on the path,
    then the checkout (``benchmarks`` and the rest). ``PYTHONSAFEPATH`` keeps the current folder
    (the checkout, whose ``translator`` is the interpreted one) off the front of ``sys.path``,
    where ``python -m`` and ``python -c`` would put it."""
    out = dict(os.environ if env is None else env)
    path = [site, str(ROOT), *filter(None, out.get("PYTHONPATH", "").split(os.pathsep))]
    out["PYTHONPATH"] = os.pathsep.join(path)
    out["PYTHONSAFEPATH"] = "1"
    return out


def _one_line(text: str, limit: int = 200) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    last = lines[-1] if lines else "no output"
    return last if len(last) <= limit else last[: limit - 3] + "..."


def _stamp(root: Path, found: dict[str, Any]) -> str:
    """A name for the build made of ``root``'s sources with this interpreter and mypyc."""
    made_by = [found["python"], found["mypyc"], found["cc"], found.get("deps")]
    h = hashlib.sha256(json.dumps(made_by, sort_keys=True).encode())
    files = [root / "setup.py", root / "pyproject.toml"]
    files += sorted((root / "translator").rglob("*.py")) + sorted((root / "grammars").glob("*"))
    for path in files:
        if path.is_file():
            h.update(str(path.relative_to(root)).encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def _ignore_in(root: Path) -> Callable[[str, list[str]], set[str]]:
    """What the copy leaves out: the checkout's venv, git and build folders, compiled modules
    and bytecode (a stale ``.so`` would shadow the source it was built from)."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        top = Path(folder) == root
        return {
            n
            for n in names
            if (top and n in (".venv", ".git", "build"))
            or n == "__pycache__"
            or n.endswith((".so", ".pyd"))
        }

    return ignore


def _build_into(work: Path, root: Path, python: str, env: dict[str, str]) -> NativeBuild:
    """Compile a copy of ``root`` in ``work`` and keep its importable part in ``work/site``."""
    t0 = time.perf_counter()
    src = work / "src"
    shutil.copytree(root, src, ignore=_ignore_in(root))
    log = work / "build.log"
    cmd = [python, "setup.py", "-q", "build_ext", "--inplace", "-j", "2"]
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(
            cmd, cwd=src, env=env | {"ICEBERG_UDF_MYPYC": "1"}, stdout=out, stderr=out, check=False
        )
    if done.returncode != 0:
        text = log.read_text("utf-8", errors="replace")
        return NativeBuild(None, reason=f"build failed ({done.returncode}): {_one_line(text)}")
    site = work / "site"
    shutil.copytree(src / "translator", site / "translator")
    if (src / "grammars").is_dir():  # where a wheel puts them (pyproject.toml's package-dir)
        shutil.copytree(src / "grammars", site / "translator" / "grammars", dirs_exist_ok=True)
    for lib in src.glob("*.so"):  # mypyc's shared library, a top-level module
        shutil.copy2(lib, site / lib.name)
    shutil.rmtree(src)
    # From the checkout, as the benchmark's parts run: its interpreted modules must not win.
    check = subprocess.run(
        [python, "-c", _LOADED],
        cwd=root,
        env=process_env(str(site), env),
        capture_output=True,
        text=True,
        check=False,
    )
    if check.returncode != 0:
        return NativeBuild(None, reason=f"the build does not import: {_one_line(check.stderr)}")
    loaded = json.loads(check.stdout)
    if not loaded["compiled"] or not loaded["ir"].endswith((".so", ".pyd")):
        return NativeBuild(None, reason=f"the build's translator.ir is not compiled: {loaded}")
    modules = sum(1 for _ in (site / "translator").rglob("*.so"))
    return NativeBuild(str(site), modules=modules, seconds=time.perf_counter() - t0)


def probe(python: str, env: dict[str, str]) -> dict[str, Any] | str:
    """What ``python`` has to build with (mypyc's version, the C compiler), or why it cannot
    be asked."""
    try:
        done = subprocess.run(
            [python, "-c", _PROBE], env=env, capture_output=True, text=True, check=False
        )
    except OSError as e:
        return f"cannot run {python}: {e.strerror}"
    if done.returncode != 0:
        return f"cannot run {python}: {_one_line(done.stderr)}"
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def build(
    root: Path = ROOT,
    cache: Path | None = None,
    python: str = sys.executable,
    env: dict[str, str] | None = None,
    scratch: Path | None = None,
) -> NativeBuild:
    """The native build of ``root``: from ``cache`` when it holds one of the same sources, else
    built (into ``cache`` when given, else into ``scratch``, which the caller removes).

    Never raises for a build that cannot be made: the result says why."""
    base_env = dict(os.environ if env is None else env)
    base_env.pop("PYTHONSAFEPATH", None)
    found = probe(python, base_env)
    if isinstance(found, str):
        return NativeBuild(None, reason=found)
    if found["mypyc"] is None:
        return NativeBuild(None, reason="mypyc is not installed (setup.py names the mypy to use)")
    if not found["cc_found"]:
        return NativeBuild(None, reason=f"no C compiler ({found['cc'] or 'none'} not found)")
    if cache is None:
        return _build_once(root, python, base_env, scratch)
    try:
        return _cached(root, python, base_env, cache, _stamp(root, found))
    except (OSError, ValueError, KeyError, TypeError) as e:  # an unusable cache folder
        what = e.strerror if isinstance(e, OSError) and e.strerror else type(e).__name__
        return NativeBuild(None, reason=f"cannot keep the build in {cache}: {what}")


def _cached(root: Path, python: str, env: dict[str, str], cache: Path, stamp: str) -> NativeBuild:
    """The build kept in ``cache`` for these sources, made there first if it is not."""
    cache.mkdir(parents=True, exist_ok=True)
    final = cache / f"native-{stamp}"
    with (cache / ".native-build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process ends
        if (final / _DONE).is_file():
            kept = json.loads((final / _DONE).read_text("utf-8"))
            return NativeBuild(str(final / "site"), int(kept["modules"]), kept["seconds"], True)
        for stale in cache.glob(".native-build-*"):  # a crashed build's: nobody else builds
            shutil.rmtree(stale, ignore_errors=True)
        made = _build_once(root, python, env, cache)
        if not made.built:
            return made
        assert made.site is not None
        work = Path(made.site).parent
        (work / _DONE).write_text(json.dumps(asdict(made)), "utf-8")
        work.rename(final)
        return NativeBuild(str(final / "site"), made.modules, made.seconds)


def _build_once(root: Path, python: str, env: dict[str, str], where: Path | None) -> NativeBuild:
    """A build in a new folder under ``where``; a failed one's folder is removed."""
    work = Path(tempfile.mkdtemp(prefix=".native-build-", dir=where))
    try:
        made = _build_into(work, root, python, env)
    except OSError as e:
        made = NativeBuild(None, reason=f"build failed: {e.strerror or e}")
    if not made.built:
        shutil.rmtree(work, ignore_errors=True)
    return made


@contextlib.contextmanager
def native_build(cache: Path | None = None, root: Path = ROOT) -> Iterator[NativeBuild]:
    """:func:`build` for the length of a benchmark run: a build made outside ``cache`` is
    removed when the block ends."""
    with tempfile.TemporaryDirectory(prefix="iceberg-udf-native-") as scratch:
        yield build(root, cache, scratch=Path(scratch))


def main() -> None:
    ap = argparse.ArgumentParser(description="build (or find) the native build; print it (JSON)")
    ap.add_argument("--cache", type=Path, default=None, help="keep the build here (else removed)")
    args = ap.parse_args()
    with native_build(args.cache) as made:
        json.dump(asdict(made) | {"label": made.label()}, sys.stdout)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main()
