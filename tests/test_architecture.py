"""The module boundaries of ``../shared/docs/architecture.md``, held by reading the imports.

Every import counts, a function-level (lazy) one too: a boundary is about what a module needs,
not about when it loads it.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "translator"

ENGINES = ("translator.dialects", "translator.spark", "pyspark")
CLI = ("translator.cli",)
STORE = ("translator.warehouse", "translator.migrate")

#: module (a file, or a folder's every file) -> what it must never import (prefixes).
NEVER: dict[str, tuple[str, ...]] = {
    "translator/types.py": ENGINES + CLI,
    "translator/metadata": ENGINES + CLI + STORE,
    "translator/history.py": ENGINES + CLI + STORE,
    "translator/ir.py": ("translator.metadata", *ENGINES),
    "translator/dialects": CLI + STORE,
    "translator/bodies.py": CLI + STORE,
    "translator/compile.py": CLI + STORE,
    "translator/merge.py": CLI + STORE,
    "translator/emit.py": CLI + STORE,
    "translator/warehouse": CLI,
    "translator/migrate": CLI,
    "translator/server": (*CLI, "translator.migrate", "pyspark"),
    "translator/spark.py": CLI,
    "translator/frontend.py": CLI + STORE,
    "translator/statement_cache.py": CLI + STORE,
    "translator/script.py": ENGINES + CLI + STORE,
    "translator/collector.py": ("translator.metadata", *ENGINES, *CLI, *STORE),
    "translator/names.py": ("translator.metadata", *ENGINES, *CLI, *STORE),
    "translator/api.py": (*CLI, "pyspark"),
}


def imports_of(path: Path, package: str | None = None) -> set[str]:
    """Every module ``path`` imports, absolute, at any depth of its code (``package``: the
    package relative imports start from; by default the one ``path`` is in)."""
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    if package is None:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _files(where: str) -> list[Path]:
    path = ROOT / where
    return sorted(path.rglob("*.py")) if path.is_dir() else [path]


def _hits(imported: set[str], banned: tuple[str, ...]) -> list[str]:
    return sorted(m for m in imported if any(m == b or m.startswith(b + ".") for b in banned))


@pytest.mark.parametrize("where", sorted(NEVER))
def test_a_module_never_imports_what_the_architecture_keeps_out(where: str) -> None:
    broken = {
        str(f.relative_to(ROOT)): hits
        for f in _files(where)
        if (hits := _hits(imports_of(f), NEVER[where]))
    }
    assert broken == {}


def test_the_boundaries_name_real_modules() -> None:
    """A rule about a module that moved would pass for ever: each one names something real."""
    for where in NEVER:
        assert (ROOT / where).exists(), where
    every = {".".join(p.relative_to(ROOT).with_suffix("").parts) for p in PACKAGE.rglob("*.py")}
    every |= {m.removesuffix(".__init__") for m in every}
    for banned in {b for rules in NEVER.values() for b in rules if b.startswith("translator")}:
        assert banned in every, banned


def test_the_import_reader_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from translator.cli import main\n    from .. import merge\n")
    found = imports_of(probe, "translator.dialects")
    assert {"translator.cli.main", "translator.merge"} <= found
    assert _hits(found, CLI) == ["translator.cli", "translator.cli.main"]


def test_importing_the_library_loads_no_pyspark_and_no_cli() -> None:
    """Nor the optional extras: the server framework, the HTTP client, object-store drivers."""
    code = (
        "import sys, translator, translator.api, translator.warehouse, translator.migrate\n"
        "extras = ('pyspark', 'starlette', 'uvicorn', 'httpx', 's3fs', 'sqlalchemy')\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in extras"
        " or m.split('.')[:2] in (['translator', 'cli'], ['translator', 'server']))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_the_built_wheel_carries_the_grammars_and_data(tmp_path: Path) -> None:
    """A plain install (not only an editable one) must find the grammars. Built from a copy of
    the sources, so that setuptools' build folders stay out of the work tree."""
    src = tmp_path / "src"
    for name in ("pyproject.toml", "README.md"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, src / name)
    for folder in ("translator", "grammars"):
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__"))
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip_wheel, "-q", "-w", str(tmp_path), str(src)], check=True)
    (wheel,) = tmp_path.glob("iceberg_udf-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for grammar in (ROOT / "grammars").glob("*.lark"):
        assert f"translator/grammars/{grammar.name}" in names
    for data in (ROOT / "translator" / "data").glob("*.txt"):
        assert f"translator/data/{data.name}" in names
    assert "translator/py.typed" in names
    # every module, so that a new package left out of pyproject's list fails here, not for users
    for module in PACKAGE.rglob("*.py"):
        assert str(module.relative_to(ROOT)) in names, module


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (lazy and type-checking imports included: a
    cycle through them is still two modules that each need the other). ``from p import m``
    imports module ``p.m`` where there is one; else it needs ``p`` itself."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}

    def owner(name: str) -> str:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(owner(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                targets.update(owner(f"{base}.{alias.name}") for alias in node.names)
        graph[name] = {t for t in targets if t and t != name}
    return graph


def test_no_import_cycle() -> None:
    graph = _import_graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, path)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert cycles == []


def test_no_module_is_over_500_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 500
    }
    assert long == {}


def test_the_public_api_is_importable_from_the_package() -> None:
    import translator

    for name in (
        "compile_script",
        "CompileResult",
        "load_metadata",
        "emit_ddl",
        "Warehouse",
        "TranslatorError",
    ):
        assert hasattr(translator, name), name
