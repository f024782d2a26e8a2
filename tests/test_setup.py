"""setup.py: the native (mypyc) build is opt-in, and its module list names real modules."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _setup_module() -> ModuleType:
    """setup.py as a module (its ``setup()`` call runs only as a script)."""
    spec = importlib.util.spec_from_file_location("iceberg_udf_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_the_variable_nothing_is_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ICEBERG_UDF_MYPYC", raising=False)
    setup = _setup_module()
    assert not setup.wanted()
    assert setup.ext_modules() == []
    monkeypatch.setenv("ICEBERG_UDF_MYPYC", "0")
    assert setup.ext_modules() == []


def test_asked_for_without_mypyc_the_build_says_what_it_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Never a pure build that looks native: the build stops, naming the mypy it needs; only
    pip's question for the build requirements (egg_info) gets the empty list."""
    monkeypatch.setenv("ICEBERG_UDF_MYPYC", "1")
    monkeypatch.setitem(sys.modules, "mypyc.build", None)  # import fails as if not installed
    setup = _setup_module()
    monkeypatch.setattr(sys, "argv", ["setup.py", "bdist_wheel"])
    with pytest.raises(SystemExit, match=r"mypy==\d"):
        setup.ext_modules()
    monkeypatch.setattr(sys, "argv", ["setup.py", "egg_info"])
    assert setup.ext_modules() == []


def test_every_native_module_is_a_module_of_the_package() -> None:
    setup = _setup_module()
    names = setup.NATIVE_MODULES
    assert len(names) == len(set(names)) > 20
    for name in names:
        path = ROOT / name
        assert path.is_file() and path.suffix == ".py", name
        assert path.relative_to(ROOT).parts[0] == "translator", name
    # what the native build leaves out for mypyc's sake (the module's docstring says why)
    for left_out in (
        "translator/errors.py",
        "translator/dialects/transformers.py",
        "translator/dialects/trino/routines/expr_types.py",
    ):
        assert left_out not in names
        assert Path(left_out).name in (setup.__doc__ or ""), left_out


def test_no_native_function_binds_one_name_to_two_kinds_of_exception() -> None:
    """mypyc gives a local one type, that of its first binding: in a compiled function,
    ``except Refused as e`` and then ``except SqlglotError as e`` made the second handler raise
    ``TypeError: Refused object expected``, so the native build refused a Trino body sqlglot
    cannot write in Spark with another message than the interpreted one. Each kind of
    exception a function catches by name gets a name of its own."""
    setup = _setup_module()
    found = []
    for name in setup.NATIVE_MODULES:
        tree = ast.parse((ROOT / name).read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            kinds: dict[str, set[str]] = {}
            for node in ast.walk(fn):
                if isinstance(node, ast.ExceptHandler) and node.name and node.type is not None:
                    kinds.setdefault(node.name, set()).add(ast.unparse(node.type))
            found += [
                f"{name}:{fn.lineno} {fn.name}: {var} {sorted(types)}"
                for var, types in kinds.items()
                if len(types) > 1
            ]
    assert found == []
