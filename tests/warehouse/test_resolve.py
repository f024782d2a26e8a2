"""Which metadata file is current (translator.warehouse.resolve): version numbers, an explicit
file, a function uuid, the latest log timestamp, broken and ambiguous files."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.warehouse.helpers import (
    T0,
    UUID_A,
    UUID_B,
    current_body,
    put_file,
    small_doc,
    warehouse,
)
from translator.errors import MetadataError
from translator.warehouse import (
    FunctionNotFoundError,
    ResolveOptions,
    WarehouseError,
)


def test_highest_version_number_wins_and_other_files_are_ignored(tmp_path: Path) -> None:
    put_file(tmp_path, "1.metadata.json", small_doc(UUID_A, "one", [T0]))
    put_file(
        tmp_path, f"00002-{uuid.uuid4()}.metadata.json", small_doc(UUID_A, "two", [T0, T0 + 1])
    )
    put_file(tmp_path, "v3.metadata.json", small_doc(UUID_A, "three", [T0, T0 + 1, T0 + 2]))
    put_file(tmp_path, ".00004-x.metadata.json.123.tmp", "{ half a fil")
    put_file(tmp_path, "notes.json", "not metadata")
    wh = warehouse(tmp_path)
    r = wh.load("f")
    assert r.version == 3 and current_body(r) == "three + 3"
    assert r.path == "default/f/metadata/v3.metadata.json"


def test_an_explicit_metadata_file_wins_over_every_rule(tmp_path: Path) -> None:
    put_file(tmp_path, "1.metadata.json", small_doc(UUID_A, "one", [T0]))
    put_file(tmp_path, "2.metadata.json", small_doc(UUID_B, "two", [T0, T0 + 1]))
    wh = warehouse(tmp_path)
    for given in (
        "1.metadata.json",
        "metadata/1.metadata.json",
        str(tmp_path / "default" / "f" / "metadata" / "1.metadata.json"),
    ):
        opts = ResolveOptions(
            metadata_file=given, function_uuid=UUID_B, latest_by_log_timestamp=True
        )
        assert current_body(wh.load("f", resolve=opts)) == "one + 1", given
    with pytest.raises(FunctionNotFoundError, match="does not exist"):
        wh.load("f", resolve=ResolveOptions(metadata_file="9.metadata.json"))


def test_function_uuid_filter_is_case_insensitive(tmp_path: Path) -> None:
    put_file(tmp_path, "1.metadata.json", small_doc(UUID_A, "a", [T0]))
    put_file(tmp_path, "2.metadata.json", small_doc(UUID_A, "a", [T0, T0 + 1]))
    put_file(tmp_path, "3.metadata.json", small_doc(UUID_B, "b", [T0]))
    wh = warehouse(tmp_path)
    assert wh.load("f").version == 3
    r = wh.load("f", resolve=ResolveOptions(function_uuid=UUID_A.upper()))
    assert r.version == 2 and r.metadata.function_uuid == UUID_A
    with pytest.raises(FunctionNotFoundError, match="no metadata file has function-uuid"):
        wh.load("f", resolve=ResolveOptions(function_uuid=str(uuid.uuid4())))


def test_latest_by_log_timestamp(tmp_path: Path) -> None:
    put_file(tmp_path, "1.metadata.json", small_doc(UUID_A, "late", [T0, T0 + 50_000]))
    put_file(tmp_path, "2.metadata.json", small_doc(UUID_A, "early", [T0, T0 + 10]))
    wh = warehouse(tmp_path)
    assert wh.load("f").version == 2
    r = wh.load("f", resolve=ResolveOptions(latest_by_log_timestamp=True))
    assert r.version == 1 and current_body(r) == "late + 2"


def test_two_files_with_one_version_number_are_reported(tmp_path: Path) -> None:
    put_file(tmp_path, f"00001-{uuid.uuid4()}.metadata.json", small_doc(UUID_A, "a", [T0]))
    put_file(tmp_path, f"00001-{uuid.uuid4()}.metadata.json", small_doc(UUID_A, "b", [T0]))
    with pytest.raises(WarehouseError, match="two metadata files claim version 1"):
        warehouse(tmp_path).load("f")


def test_a_broken_numbered_file_is_an_error_not_skipped(tmp_path: Path) -> None:
    put_file(tmp_path, "1.metadata.json", small_doc(UUID_A, "a", [T0]))
    put_file(tmp_path, "2.metadata.json", '{"function-uuid": ')
    with pytest.raises(MetadataError, match=r"2\.metadata\.json"):
        warehouse(tmp_path).load("f")
