"""One merge run's own copies of definitions (translator/merge_owned.py): a script that replaces
one function many times reads its version list once, not once a statement, and every result is
the one merging the statements one run at a time gives."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.test_merge import fixed_context
from translator.api import compile_script
from translator.compile import CompileOptions
from translator.metadata import Definition, UdfMetadata, dump_metadata


def _replaced(n: int, name: str = "f") -> str:
    return "".join(
        f"CREATE OR REPLACE FUNCTION {name}(x INT) RETURNS INT RETURN x + {i};\n" for i in range(n)
    )


@pytest.fixture
def version_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many versions ``Definition.version`` (what ``current_version`` asks) looked at."""
    looked: list[int] = []
    original = Definition.version

    def counted(self: Definition, version_id: int) -> object:
        looked.append(len(self.versions))
        return original(self, version_id)

    monkeypatch.setattr(Definition, "version", counted)
    yield looked


def test_a_script_of_many_replacements_reads_the_version_list_once(
    version_reads: list[int],
) -> None:
    n = 400
    into = compile_script(_replaced(1), "spark", context=fixed_context()).functions["f"]
    assert into is not None
    version_reads.clear()
    result = compile_script(_replaced(n + 1)[1:], "spark", into=into, context=fixed_context())
    assert not result.errors
    meta = result.functions["f"]
    assert meta is not None and len(meta.definitions[0].versions) == n + 1
    # The first statement reads the list it found (twice: is it unchanged? is it current?);
    # every later one knows its own last version.
    assert sum(version_reads) <= 2 * 1 + 2


def test_one_run_gives_what_one_statement_a_run_gives() -> None:
    """Replacements, an unchanged re-run, another signature, an attached body, a drop and a
    create again, a plain CREATE that fails: merged in one run and one statement a run."""
    statements = [
        "CREATE FUNCTION f(x INT) RETURNS INT RETURN x",
        "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 1",
        "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 1",
        "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 2",
        "CREATE FUNCTION f(x INT, y INT) RETURNS INT RETURN x + y",
        "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT COMMENT 'doc' RETURN x + 3",
        "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 9",
        "CREATE OR REPLACE FUNCTION f(x INT, y INT) RETURNS INT RETURN x - y",
        "DROP FUNCTION f",
        "CREATE FUNCTION f(x INT) RETURNS INT RETURN x * 2",
        "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x * 3",
    ]
    whole = compile_script(";\n".join(statements), "spark", context=fixed_context())
    ctx = fixed_context()
    meta: UdfMetadata | None = None
    errors = []
    for sql in statements:
        one = compile_script(sql, "spark", into=meta, context=ctx)
        errors += [e.message for e in one.errors]
        meta = one.functions.get("f", meta)
    assert [e.message for e in whole.errors] == errors
    assert whole.functions["f"] is not None and meta is not None
    assert dump_metadata(whole.functions["f"]) == dump_metadata(meta)


def test_an_attached_body_keeps_what_the_run_knows() -> None:
    """A Trino body attached to the version this run made current is found there, and the next
    replacement is numbered after it."""
    spark = compile_script(_replaced(3), "spark", context=fixed_context())
    meta = spark.functions["f"]
    attached = compile_script(
        "CREATE FUNCTION f(x integer) RETURNS integer RETURN x + 100;\n",
        "trino",
        into=meta,
        options=CompileOptions(attach=True),
        context=fixed_context(),
    )
    assert not attached.errors
    current = attached.functions["f"]
    assert current is not None
    [definition] = current.definitions
    assert definition.current_version_id == 3
    assert {r.dialect for r in definition.current_version.representations} >= {"spark", "trino"}
    again = compile_script(
        "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 7",
        "spark",
        into=current,
        context=fixed_context(),
    )
    assert again.functions["f"] is not None
    assert again.functions["f"].definitions[0].current_version_id == 4
