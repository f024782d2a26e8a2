"""The warehouse's folder layout: metadata file names, derived file uuids, function names."""

from __future__ import annotations

import re
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from translator.fileio import name_part_problem
from translator.warehouse import (
    FunctionRef,
    WarehouseError,
)
from translator.warehouse.layout import (
    _FILE_UUID_NAMESPACE,
    derived_file_uuid,
    metadata_path,
    parse_metadata_name,
)


def test_metadata_file_names() -> None:
    assert parse_metadata_name("00001-6f1f4b53-2c1e-5a43-9d0e-1c3b8e4a7d21.metadata.json") == (
        parse_metadata_name("00001-6f1f4b53-2c1e-5a43-9d0e-1c3b8e4a7d21.metadata.json")
    )
    named = parse_metadata_name("00012-6F1F4B53-2C1E-5A43-9D0E-1C3B8E4A7D21.metadata.json")
    assert named is not None and named.version == 12 and named.file_uuid is not None
    assert parse_metadata_name("7.metadata.json").version == 7  # type: ignore[union-attr]
    assert parse_metadata_name("v3.metadata.json").version == 3  # type: ignore[union-attr]
    for not_metadata in (
        ".00002-x.metadata.json.abc.tmp",
        "00002-notauuid.metadata.json",
        "version-hint.text",
        "00002.metadata.json.tmp",
        "x.metadata.json",
    ):
        assert parse_metadata_name(not_metadata) is None, not_metadata


def test_file_uuids_are_derived_so_racing_writers_aim_at_one_name() -> None:
    ref = FunctionRef("default", "add_one")
    assert derived_file_uuid(ref, 2) == derived_file_uuid(FunctionRef("default", "add_one"), 2)
    assert derived_file_uuid(ref, 2) != derived_file_uuid(ref, 3)
    assert derived_file_uuid(ref, 2) != derived_file_uuid(FunctionRef("other", "add_one"), 2)
    assert re.fullmatch(
        r"default/add_one/metadata/00002-[0-9a-f-]{36}\.metadata\.json",
        metadata_path(ref, 2, derived_file_uuid(ref, 2)),
    )


@settings(max_examples=examples(2000), deadline=None)
@given(
    # one part, as written: no '.' and no '%' ("%2E" is a percent-escaped '.', refused)
    namespace=st.text(min_size=1).filter(
        lambda t: name_part_problem(t) is None and "." not in t and "%" not in t
    ),
    name=st.text(min_size=1).filter(lambda t: name_part_problem(t) is None),
    version=st.integers(min_value=1, max_value=10**7),
)
def test_derived_file_uuids_are_uuid5_of_folder_and_version(
    namespace: str, name: str, version: int
) -> None:
    """Fixed forever: writers of every release must aim at the same name for a version."""
    expected = uuid.uuid5(_FILE_UUID_NAMESPACE, f"{namespace}/{name}/{version}")
    assert derived_file_uuid(FunctionRef(namespace, name), version) == str(expected)
    assert derived_file_uuid(FunctionRef("default", "add_one"), 2) == str(
        uuid.uuid5(uuid.UUID("6f1f4b53-2c1e-5a43-9d0e-1c3b8e4a7d21"), "default/add_one/2")
    )


def test_function_names() -> None:
    assert FunctionRef.parse("add_one") == FunctionRef("default", "add_one")
    assert FunctionRef.parse("add_one", "sales") == FunctionRef("sales", "add_one")
    assert FunctionRef.parse("iceberg.sales.f") == FunctionRef("sales", "f")  # catalog dropped
    assert FunctionRef.catalog_part("iceberg.sales.f") == "iceberg"
    assert FunctionRef.parse("cat.a.b.f") == FunctionRef("a.b", "f")
    assert FunctionRef("a.b", "f").parts == ("a", "b", "f")
    for bad in ("", ".hidden", "x/y", "..", "a\\b"):
        with pytest.raises(WarehouseError):
            FunctionRef("default", bad)
