"""Issue 15, class 10: what used to end in a traceback is a clear one-line error (exit 1)."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from tests.hardening_cli import run_cli

DEPLOY = "CREATE FUNCTION ns.f(x INT) RETURNS INT RETURN x + 1;\n"


def _refused(code: int, out: str, err: str, says: str) -> None:
    assert code == 1, err
    assert "Traceback" not in err
    assert says in out + err, err


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("gcs://bucket/wh", "'gcs' file system offers no atomic create-if-absent"),
        ("http://host/wh", "'http' file system"),
        ("zip://x", "'zip' file system"),
        ("s3://key:SECRET@bucket/wh", "error: s3://key:***@bucket/wh: "),  # s3fs or not
    ],
)
def test_tracebacks_warehouse_urls_without_a_safe_file_system(url: str, says: str) -> None:
    code, out, err = run_cli("list", "--warehouse", url)
    _refused(code, out, err, says)
    assert "SECRET" not in err


def test_tracebacks_warehouse_naming_a_file(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    sql = tmp_path / "d.sql"
    sql.write_text(DEPLOY)
    _refused(*run_cli("list", "--warehouse", str(afile)), "not a folder")
    _refused(
        *run_cli("apply", "--warehouse", str(afile), "--dialect", "spark", str(sql)),
        "Not a directory",
    )


@pytest.mark.parametrize(
    ("fault", "says"),
    [(errno.EROFS, "Read-only file system"), (errno.ENOSPC, "No space left on device")],
)
def test_tracebacks_read_only_or_full_warehouse_in_apply_and_drop(
    fault: int, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wh, sql = tmp_path / "wh", tmp_path / "d.sql"
    sql.write_text(DEPLOY)
    assert run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(sql))[0] == 0
    sql.write_text(DEPLOY.replace("CREATE", "CREATE OR REPLACE").replace("+ 1", "+ 2"))

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(fault, os.strerror(fault))

    # The file system's own refusal, injected where it would come (the same on real mounts:
    # test_hardening_real_mounts.py, which needs the right to mount a tmpfs).
    monkeypatch.setattr(os, "link", refuse)
    monkeypatch.setattr(os, "rename", refuse)
    _refused(*run_cli("apply", "--warehouse", str(wh), "--dialect", "spark", str(sql)), says)
    _refused(*run_cli("drop", "--warehouse", str(wh), "ns.f"), says)


def test_tracebacks_a_300_character_name(tmp_path: Path) -> None:
    sql = tmp_path / "long.sql"
    sql.write_text(f"CREATE FUNCTION {'n' * 300}(x INT) RETURNS INT RETURN x;")
    _refused(
        *run_cli("apply", "--warehouse", str(tmp_path / "wh"), "--dialect", "spark", str(sql)),
        "too long for a file name",
    )
    _refused(
        *run_cli("compile", "--dialect", "spark", "--output-dir", str(tmp_path / "o"), str(sql)),
        "too long for a file name",
    )


def _with_doc(tmp_path: Path, doc: str) -> Path:
    sql = tmp_path / "base.sql"
    sql.write_text("CREATE FUNCTION base(x INT) RETURNS INT RETURN x;")
    out = tmp_path / "base.metadata.json"
    assert run_cli("compile", "--dialect", "spark", "-o", str(out), str(sql))[0] == 0
    meta = json.loads(out.read_text())
    meta["definitions"][0]["doc"] = doc
    out.write_text(json.dumps(meta))  # ensure_ascii: the lone surrogate as \\udc80
    return out


def test_tracebacks_a_lone_surrogate_in_a_doc(tmp_path: Path) -> None:
    meta = _with_doc(tmp_path, "\udc80")
    _refused(*run_cli("validate", str(meta)), "surrogate")
    _refused(*run_cli("emit", "--dialect", "spark", "--name", "base", str(meta)), "surrogate")
    sql = tmp_path / "v2.sql"
    sql.write_text("CREATE OR REPLACE FUNCTION base(x INT) RETURNS INT RETURN x + 1;")
    _refused(*run_cli("compile", "--dialect", "spark", "--into", str(meta), str(sql)), "surrogate")
    sql.write_text("CREATE FUNCTION ns.g(x INT) RETURNS INT COMMENT '\\udc80' RETURN x;")
    _refused(
        *run_cli("apply", "--warehouse", str(tmp_path / "wh"), "--dialect", "spark", str(sql)),
        "surrogate",
    )


def test_tracebacks_metadata_nested_hundreds_of_levels_deep(tmp_path: Path) -> None:
    """An unknown field of 600 nested objects ended validate and emit in an internal error
    (the reader's walks ran out of Python's stack); it is a problem at its JSON path."""
    sql = tmp_path / "f.sql"
    sql.write_text("CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1;\n")
    meta = tmp_path / "f.metadata.json"
    assert run_cli("compile", "--dialect", "spark", "-o", str(meta), str(sql))[0] == 0
    text = meta.read_text()
    meta.write_text(text[: text.rindex("}")] + ', "zz": ' + '{"a": ' * 600 + "1" + "}" * 601)
    for argv in (("validate",), ("emit", "--dialect", "trino", "--name", "f")):
        _refused(*run_cli(*argv, str(meta)), "$.zz.a.a.a")
        _refused(*run_cli(*argv, str(meta)), "nested more than 256 objects and arrays deep")
