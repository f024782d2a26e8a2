"""Issue 15, in bulk: generated hostile inputs of every class fed to the ``iceberg-udf`` command.

Whatever the input, the command ends with an exit status and its own message: no traceback, no
file written outside the folder it was given, no secret in what it prints, and no DDL it emits
holds a second statement. Each test's figures are in its assertion messages.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.hardening_cli import ESCAPED, run_cli
from translator.dialects import get_dialect
from translator.script import split_statements

EXAMPLES = examples(int(os.environ.get("ICEBERG_UDF_BULK_EXAMPLES", "60")))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,
)

#: Pieces attackers and accidents are made of.
FRAGMENTS = [
    "1", "x", " + ", ";", " DROP TABLE victim", "--", "/*", "*/", "'", '"', "`", "$$", "\n",
    "\\", "(", ")", "\u200b", "\ufeff", "\x00", "\u202e", "\udc80", " ", "..", "/", "é",
    "BEGIN", "END", "RETURN", "SELECT", "\r", "\\udc80", "\\u0000",
]  # fmt: skip
hostile_text = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=12).map("".join)
hostile_name = st.one_of(
    hostile_text,
    st.sampled_from(["/tmp/pwned", "x/../../../pwned", "..", ".hidden", "a\\b", "n" * 300]),
)


class Sandbox:
    """A folder with ``target/`` (where the command may write) and a sentinel around it."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="iceberg-udf-bulk-"))
        self.target = self.root / "target"
        (self.root / "outside").mkdir()
        (self.root / "outside" / "keep.txt").write_text("untouched")
        self.before = self.outside_files()

    def outside_files(self) -> list[str]:
        return sorted(
            str(p.relative_to(self.root))
            for p in self.root.rglob("*")
            if not p.is_relative_to(self.target)
        )

    def file(self, name: str, text: str) -> str:
        path = self.root / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        self.before = self.outside_files()
        return str(path)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def sandbox() -> Iterator[Sandbox]:
    box = Sandbox()
    try:
        yield box
    finally:
        box.close()


def check(box: Sandbox, *argv: str) -> tuple[int, str, str]:
    code, out, err = run_cli(*argv)
    assert code != ESCAPED and "Traceback" not in err, (argv, err[-2000:])
    assert code in (0, 1, 2), (argv, code, err)
    assert box.outside_files() == box.before, ("written outside the target", argv)
    assert "SECRET" not in out + err, ("a secret in the output", argv)
    return code, out, err


def assert_one_statement_each(ddl: str, dialect: str) -> None:
    """Every statement of emitted DDL is a CREATE FUNCTION: nothing was smuggled in."""
    for stmt in split_statements(ddl, get_dialect(dialect).lexical):
        assert stmt.text.startswith("CREATE "), ("a smuggled statement", stmt.text)


def _base_metadata(box: Sandbox) -> dict[str, object]:
    sql = box.file("base.sql", "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1;")
    out = box.root / "base.metadata.json"
    assert run_cli("compile", "--dialect", "spark", "-o", str(out), sql)[0] == 0
    doc: dict[str, object] = json.loads(out.read_text())
    return doc


@SETTINGS
@given(body=hostile_text, dialect=st.sampled_from(["spark", "trino"]))
def test_bulk_smuggled_bodies_in_metadata(body: str, dialect: str) -> None:
    for box in sandbox():
        doc = _base_metadata(box)
        version = doc["definitions"][0]["versions"][0]  # type: ignore[index]
        version["representations"] = [{"type": "sql", "dialect": dialect, "sql": body}]
        meta = box.file("evil.json", json.dumps(doc))
        check(box, "validate", meta)
        for target in ("spark", "trino"):
            code, out, _ = check(box, "emit", "--dialect", target, "--name", "f", meta)
            if code == 0:
                assert_one_statement_each(out, target)


@SETTINGS
@given(body=hostile_text, doc=hostile_text, dialect=st.sampled_from(["spark", "trino"]))
def test_bulk_hostile_scripts(body: str, doc: str, dialect: str) -> None:
    quote = "'" + doc.replace("'", "''") + "'"  # backslashes left to the dialect's escapes
    scripts = {
        "doc": f"CREATE FUNCTION f(x INT) RETURNS INT COMMENT {quote} RETURN x + 1;\n",
        "body": f"CREATE FUNCTION g(x INT) RETURNS INT RETURN {body};\n",
        "tail": f"CREATE FUNCTION h(x INT) RETURNS INT RETURN x{body};\n",
    }
    for box in sandbox():
        target = str(box.target)
        for fn, script in zip("fgh", scripts.values(), strict=True):
            sql = box.file("s.sql", script)
            check(box, "compile", "--dialect", dialect, "--output-dir", target, sql)
            code, _, _ = check(box, "apply", "--warehouse", target, "--dialect", dialect, sql)
            if code != 0:
                continue
            for argv in (
                ("show", f"default.{fn}"),
                ("emit", f"default.{fn}", "--dialect", dialect),
            ):
                code, out, _ = check(box, argv[0], "--warehouse", target, *argv[1:])
                if code == 0 and argv[0] == "emit":
                    assert_one_statement_each(out, dialect)


@SETTINGS
@given(name=hostile_name, namespace=hostile_name)
def test_bulk_hostile_names(name: str, namespace: str) -> None:
    quoted = "`" + name.replace("`", "``") + "`"
    ns = "`" + namespace.replace("`", "``") + "`"
    script = f"CREATE FUNCTION {quoted}(x INT) RETURNS INT RETURN x;\n"
    script += f"CREATE FUNCTION {ns}.{quoted}(x INT) RETURNS INT RETURN x;\n"
    for box in sandbox():
        sql = box.file("n.sql", script)
        target = str(box.target)
        check(box, "compile", "--dialect", "spark", "--output-dir", target, sql)
        check(box, "apply", "--warehouse", target, "--dialect", "spark", sql)
        src = box.root / "migrations"
        src.mkdir()
        (src / "1.sql").write_text(script, encoding="utf-8", errors="surrogatepass")
        box.before = box.outside_files()
        check(box, "migrate", "--dialect", "spark", str(src), "--warehouse", target)


schemes = st.sampled_from(
    ["postgresql+psycopg", "postgresql", "mysql", "nodialect", "postgresql+nodriver", "sqlite"]
)
hosts = st.sampled_from(["127.0.0.1:1", "localhost:1", "host", "[::1]:1", ""])
storage = st.sampled_from(["gcs", "http", "zip", "s3", "ftp", "memory"])


@SETTINGS
@given(scheme=schemes, host=hosts, extra=st.sampled_from(["", "?password=SECRET", "?x=1"]))
def test_bulk_secrets_in_catalog_urls(scheme: str, host: str, extra: str) -> None:
    url = f"{scheme}://alice:SECRET@{host}/db{extra}"
    for box in sandbox():
        box.target.mkdir()
        check(box, "list", "--warehouse", str(box.target), "--catalog", url)


@SETTINGS
@given(protocol=storage, extra=st.sampled_from(["", "/wh", "/a/../b"]))
def test_bulk_secrets_in_warehouse_urls(protocol: str, extra: str) -> None:
    for box in sandbox():
        check(box, "list", "--warehouse", f"{protocol}://key:SECRET@bucket{extra}")
