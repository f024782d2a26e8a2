"""The index a merge keeps beside metadata: the same files as reading every definition, kept
only while the metadata is as it was, and off with ICEBERG_UDF_MERGE_INDEX=0."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from translator.api import compile_script
from translator.compile import Context
from translator.metadata import DefinitionVersionRef, UdfMetadata, dump_metadata
from translator.metadata import index as index_module

SCRIPT = [
    "CREATE FUNCTION f(x integer) RETURNS integer RETURN x + 1",
    "CREATE FUNCTION f(x double) RETURNS double RETURN x * 2",
    "CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + 2",
    "CREATE FUNCTION f(x varchar) RETURNS varchar RETURN upper(x)",
    "CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + 3",
]
AFTER = [
    "CREATE OR REPLACE FUNCTION f(x double) RETURNS double RETURN x * 3",
    "CREATE FUNCTION f(x bigint) RETURNS bigint RETURN x",
    "CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + 3",  # unchanged
    "CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + 4;\n"
    "CREATE FUNCTION f(x date) RETURNS date RETURN x;\n"
    "CREATE OR REPLACE FUNCTION f(x date) RETURNS date RETURN date_add('day', 1, x)",
    "DROP FUNCTION f(double)",
    "CREATE OR REPLACE FUNCTION f(x varchar) RETURNS varchar RETURN lower(x)",
]


def _context() -> Context:
    ticks = itertools.count(1_734_507_000_000, 1000)
    return Context(clock=lambda: next(ticks), new_uuid=lambda: "00000000-0000-4000-8000-0000000001")


def _history(edit: Callable[[UdfMetadata], None] | None = None) -> list[str]:
    """Every file of a function built statement by statement, each merged into the last result
    (``edit`` changes the third result in place before the next merge)."""
    ctx = _context()
    meta: UdfMetadata | None = None
    files = []
    for i, sql in enumerate(SCRIPT + AFTER):
        meta = compile_script(sql, "trino", into=meta, context=ctx).raise_for_errors().metadata
        assert meta is not None
        if i == 2 and edit is not None:
            edit(meta)
        files.append(dump_metadata(meta))
    return files


def _without_index(
    monkeypatch: pytest.MonkeyPatch, edit: Callable[[UdfMetadata], None] | None = None
) -> list[str]:
    with monkeypatch.context() as m:
        m.setenv("ICEBERG_UDF_MERGE_INDEX", "0")
        return _history(edit)


def test_the_files_are_those_of_a_merge_that_reads_every_definition(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _history() == _without_index(monkeypatch)


def test_a_merge_keeps_an_index_beside_its_result_and_uses_it() -> None:
    ctx = _context()
    base = compile_script("\n;".join(SCRIPT), "trino", context=ctx).metadata
    assert base is not None
    first = compile_script(AFTER[0], "trino", into=base, context=ctx).metadata
    assert first is not None
    assert id(first) in index_module._kept and id(base) in index_module._kept
    kept = index_module._kept[id(first)]
    index = index_module.index_of(first)
    assert index is not None and index.first is kept.index.first  # used, not read again
    assert index.position("int") == 0 and index.position("string") == 2
    assert index.position("date") is None


def test_the_index_is_off_with_the_environment_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICEBERG_UDF_MERGE_INDEX", "0")
    ctx = _context()
    base = compile_script("\n;".join(SCRIPT), "trino", context=ctx).metadata
    assert base is not None
    result = compile_script(AFTER[0], "trino", into=base, context=ctx).metadata
    assert result is not None
    assert id(base) not in index_module._kept and id(result) not in index_module._kept
    assert index_module.index_of(result) is None


def _rollback_by_hand(meta: UdfMetadata) -> None:
    meta.definitions[0].current_version_id = 1  # a caller's own rollback, in place


def _reverse(meta: UdfMetadata) -> None:
    meta.definitions.reverse()


def _edit_a_reference(meta: UdfMetadata) -> None:
    meta.definition_log[-1].definition_versions[0].version_id = 1


def _replace_a_reference(meta: UdfMetadata) -> None:
    refs = meta.definition_log[-1].definition_versions
    refs[1] = DefinitionVersionRef.model_validate(
        {"definition-id": refs[1].definition_id, "version-id": refs[1].version_id, "x-a": 1}
    )


def _new_list(meta: UdfMetadata) -> None:
    meta.definitions = [d.model_copy() for d in meta.definitions]
    meta.definitions[1].current_version_id = 1


@pytest.mark.parametrize(
    "edit", [_rollback_by_hand, _reverse, _edit_a_reference, _replace_a_reference, _new_list]
)
def test_a_caller_s_change_in_place_is_seen(
    monkeypatch: pytest.MonkeyPatch, edit: Callable[[UdfMetadata], None]
) -> None:
    """What the merge's index says no longer holds: the next merge reads every definition, and
    writes what a merge without an index writes."""
    assert _history(edit) == _without_index(monkeypatch, edit)


def test_at_most_kept_indexes_are_kept() -> None:
    ctx = _context()
    base = compile_script("\n;".join(SCRIPT), "trino", context=ctx).metadata
    results = [
        compile_script(AFTER[0], "trino", into=base, context=ctx).metadata
        for _ in range(index_module.KEPT + 5)
    ]
    assert len(index_module._kept) <= index_module.KEPT
    assert id(results[-1]) in index_module._kept
    del results
    assert len(index_module._kept) <= 1  # each dies with its metadata (base's stays)


def test_positions_scan_then_build_a_table_with_the_same_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first lookups scan the ids, later ones use a dict: the first position either way."""
    monkeypatch.setattr(index_module, "_SCANS", 3)
    ids = ["int", "string", "int", "", "date"]
    positions = index_module.Positions(ids)
    wanted = {"int": 0, "string": 1, "": 3, "date": 4, "long": None, "in": None}
    for _ in range(3):
        for did, p in wanted.items():
            assert positions.get(did) == p
    assert positions._table is not None
    extended = positions.extended({"long": 6, "double": 5})
    assert [extended.get(d) for d in ("int", "double", "long", "x")] == [0, 5, 6, None]
    with pytest.raises(AssertionError):
        positions.extended({"long": 7})


@pytest.mark.parametrize("slice_size", [1, 2, 3])
def test_definitions_read_a_slice_at_a_time(
    monkeypatch: pytest.MonkeyPatch, slice_size: int
) -> None:
    """Reading the definitions in slices changes nothing a merge writes, nor what it sees."""
    from translator.metadata import sharing

    monkeypatch.setattr(sharing, "_SLICE", slice_size)
    assert _history() == _without_index(monkeypatch)
    for edit in (_rollback_by_hand, _reverse, _edit_a_reference, _replace_a_reference):
        assert _history(edit) == _without_index(monkeypatch, edit)


def test_reading_in_order_refuses_what_a_later_slice_breaks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from translator.metadata import sharing

    monkeypatch.setattr(sharing, "_SLICE", 2)
    ctx = _context()
    meta = compile_script("\n;".join(SCRIPT), "trino", context=ctx).metadata
    assert meta is not None
    defs, refs = meta.definitions, meta.definition_log[-1].definition_versions
    read = sharing.read_in_order(defs, refs)
    assert read is not None
    assert read.ids == [d.definition_id for d in defs]
    assert read.definitions == defs and read.definitions is not defs
    assert read.refs == refs and read.refs is not refs
    broken = [*refs[:-1], sharing.new_ref(refs[-1].definition_id, 99)]
    assert sharing.read_in_order(defs, broken) is None
    unset = refs[-1].model_copy()
    unset.__pydantic_fields_set__.discard("version_id")
    assert sharing.read_in_order(defs, [*refs[:-1], unset]) is None
    assert sharing.read_in_order(defs, refs[:-1]) is None


def _chain(steps: list[tuple[str, str, bool]]) -> tuple[list[str], list[UdfMetadata]]:
    """Each step (sql, dialect, attach) merged into the last result: the files and results."""
    from translator.compile import CompileOptions

    ctx = _context()
    meta: UdfMetadata | None = None
    files, results = [], []
    for sql, dialect, attach in steps:
        options = CompileOptions(attach=attach)
        out = compile_script(sql, dialect, into=meta, context=ctx, options=options)
        meta = out.raise_for_errors().metadata
        assert meta is not None
        files.append(dump_metadata(meta))
        results.append(meta)
    return files, results


_ATTACHING = [
    ("\n;".join(SCRIPT), "trino", False),
    ("CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 30", "spark", True),
    ("CREATE OR REPLACE FUNCTION f(x double) RETURNS double RETURN x * 5", "trino", False),
    (
        "CREATE FUNCTION f(x bigint) RETURNS bigint RETURN x;\n"
        "CREATE OR REPLACE FUNCTION f(x bigint) RETURNS bigint RETURN x + 1",
        "trino",
        False,
    ),
    ("CREATE FUNCTION f(x STRING) RETURNS STRING RETURN lower(x)", "spark", True),
    ("CREATE OR REPLACE FUNCTION f(x integer) RETURNS integer RETURN x + 9", "trino", False),
]


def test_a_result_s_copies_are_made_when_a_merge_checks_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A result's index keeps what its merge changed, not copies of its lists, until the next
    merge into it checks them; the files are those of merges that read every definition, with
    replacements, attached bodies and definitions added and replaced in one script."""
    files, results = _chain(_ATTACHING)
    for meta in results[1:]:
        kept = index_module._kept.get(id(meta))
        assert kept is not None
    last = index_module._kept[id(results[-1])]
    assert last.changes is not None  # nothing merged into the last result yet
    assert index_module.index_of(results[-1]) is not None
    assert last.changes is None
    assert last.definitions == results[-1].definitions
    assert last.refs == results[-1].definition_log[-1].definition_versions
    with monkeypatch.context() as m:
        m.setenv("ICEBERG_UDF_MERGE_INDEX", "0")
        assert _chain(_ATTACHING)[0] == files


def test_a_caller_s_change_to_a_result_is_seen_before_its_copies_are_made() -> None:
    """A definition replaced in the result's list before anything checked the index: the
    check sees it (and the last entry no longer names the definitions: no index)."""
    meta = _chain(_ATTACHING[:3])[1][-1]
    assert index_module._kept[id(meta)].changes is not None
    meta.definitions[1] = meta.definitions[1].model_copy(update={"definition_id": "x"})
    assert index_module.index_of(meta) is None
