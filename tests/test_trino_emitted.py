"""Every Trino statement this tool emits is one Trino accepts: its parser and its routine rules.

The statements: every version of every definition compiled from every fixture script, every
metadata fixture, and every SQL record of the shared corpora (Spark and Trino), emitted as Trino
DDL (lossy emission allowed: losing a comment does not make a statement invalid). A refusal is
fine; a statement written is judged twice:

- by Trino's own parser (``shared/tools/trino-grammar-check``, one JVM for the whole batch);
- by the rules Trino's routine analyzer applies after parsing, which the parser cannot see
  (:func:`routine_rule_violations`): no query anywhere in the body ("Queries are not allowed in
  functions"), DETERMINISTIC exactly when the body calls nothing non-deterministic, no aggregate.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from tests.conftest import SHARED
from translator.api import compile_script
from translator.dialects.trino.bodies import calls_nondeterministic
from translator.emit import emit_ddl
from translator.errors import TranslatorError
from translator.frontend import parse_script
from translator.ir import CreateFunction
from translator.metadata import UdfMetadata, read_metadata_file

ROOT = Path(__file__).resolve().parent.parent
CHECKER = SHARED / "tools" / "trino-grammar-check" / "trino_check.py"

#: Statements Trino accepts that this check cannot confirm, each with its reason.
NOT_CHECKABLE = {
    # shared/tools/trino-grammar-check's grammar snapshot has no FOR ... DO ... END FOR, which
    # newer Trino releases (and their docs, where these come from) accept.
    "trino/valid/compound_for.sql sum_odd(long) v1": "FOR loop",
    "trino_docs_examples_sum_odd sum_odd(long) v1": "FOR loop",
    "trino_docs_for_sum_range sum_range(long) v1": "FOR loop",
}


def _fixture_scripts() -> Iterator[tuple[str, str, str]]:
    """(label, dialect, script) for every fixture script whose dialect is known."""
    for path in sorted((ROOT / "fixtures").rglob("*.sql")):
        rel = path.relative_to(ROOT / "fixtures").as_posix()
        text = path.read_text()
        if rel.startswith(("spark/", "migrations/spark")):
            yield rel, "spark", text
        elif rel.startswith(("trino/", "migrations/trino")):
            yield rel, "trino", text
        else:  # examples/, merge/: a script may be either; try both
            yield rel, "spark", text
            yield rel, "trino", text


def _corpus_scripts() -> Iterator[tuple[str, str, str]]:
    for dialect in ("spark", "trino"):
        for line in (SHARED / "corpus" / f"{dialect}.jsonl").read_text().splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            if r["kind"] == "sql":
                yield r["id"], dialect, r["sql"]


def _emitted(label: str, meta: UdfMetadata, name: str) -> Iterator[tuple[str, str]]:
    """Every version of every definition as Trino DDL, under a catalog.schema.name name."""
    qualified = ("cat", "sch", name.split(".")[-1])
    for d in meta.definitions:
        for v in d.versions:
            try:
                result = emit_ddl(
                    meta,
                    "trino",
                    qualified,
                    definition=d.definition_id,
                    version=v.version_id,
                    allow_lossy=True,
                )
            except TranslatorError:
                continue  # refused: nothing written
            for statement in result.ddl:
                yield f"{label} {name}({d.definition_id}) v{v.version_id}", statement


def emitted_statements() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for label, dialect, script in [*_fixture_scripts(), *_corpus_scripts()]:
        result = compile_script(script, dialect)
        for key, meta in result.functions.items():
            if meta is not None:
                out += _emitted(label, meta, key)
    for path in sorted((ROOT / "fixtures" / "metadata" / "valid").glob("*.json")):
        out += _emitted(path.name, read_metadata_file(path), "f")
    return out


def routine_rule_violations(statement: str) -> list[str]:
    """What Trino's routine analyzer would reject in ``statement`` that its parser accepts.

    The statement is read back with this tool's Trino front end; the body's sqlglot tree (or,
    for a compound body, its tokens) is checked.
    """
    parsed = parse_script(statement, "trino")
    if parsed.errors:
        return [f"the Trino front end refuses it: {parsed.errors[0]}"]
    (stmt,) = parsed.statements
    assert isinstance(stmt, CreateFunction)
    problems = [f"{w.code}: {w.message}" for w in stmt.warnings if w.code == "trino-rejects"]
    if stmt.body.kind == "compound":
        tokens = sqlglot.tokenize(stmt.body.text, read="trino")
        if any(t.text.upper() in ("SELECT", "VALUES", "TABLE") for t in tokens):
            problems.append("Queries are not allowed in functions (a query in the block)")
        return problems
    ast = stmt.body.ast
    if ast is None:
        return [*problems, f"sqlglot cannot read the body: {stmt.body.parse_error}"]
    if any(True for _ in ast.find_all(exp.Query, exp.Exists)):
        problems.append("Queries are not allowed in functions")
    if any(True for _ in ast.find_all(exp.AggFunc, exp.Window)):
        problems.append("an aggregate or window function in a routine body")
    deterministic = stmt.deterministic is not False
    if deterministic and calls_nondeterministic(ast):
        problems.append("Non-deterministic function declared DETERMINISTIC")
    if not deterministic and not calls_nondeterministic(ast):
        problems.append("Deterministic function declared NOT DETERMINISTIC")
    return problems


def _trino_parser_verdicts(statements: list[str]) -> list[dict[str, Any]]:
    payload = "".join(json.dumps({"sql": s}) + "\n" for s in statements)
    done = subprocess.run(
        [str(CHECKER), "--jsonl", "-"], input=payload, capture_output=True, text=True, check=True
    )
    verdicts = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert len(verdicts) == len(statements), done.stderr
    return verdicts


@pytest.fixture(scope="module")
def statements() -> list[tuple[str, str]]:
    return emitted_statements()


@pytest.mark.skipif(
    not CHECKER.exists() or shutil.which("java") is None, reason="needs trino-grammar-check"
)
def test_every_emitted_trino_statement_parses_in_trino(
    statements: list[tuple[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    verdicts = _trino_parser_verdicts([s for _, s in statements])
    bad = {
        label: f"{v['error']}: {s}"
        for (label, s), v in zip(statements, verdicts, strict=True)
        if not v["ok"] and label not in NOT_CHECKABLE
    }
    with capsys.disabled():
        print(
            f"\nTrino statements emitted: {len(statements)}, rejected by Trino's parser: {len(bad)}"
        )
    assert len(statements) > 150  # the fixtures and corpora do give statements
    assert bad == {}


def test_every_emitted_trino_statement_keeps_trinos_routine_rules(
    statements: list[tuple[str, str]],
) -> None:
    bad = {label: problems for label, s in statements if (problems := routine_rule_violations(s))}
    assert bad == {}


@pytest.mark.parametrize(
    ("statement", "problem"),
    [
        ("CREATE FUNCTION f() RETURNS int RETURN (SELECT 123)", "Queries are not allowed"),
        ("CREATE FUNCTION f(x int) RETURNS boolean RETURN (x IN (SELECT 1))", "Queries"),
        ("CREATE FUNCTION f() RETURNS boolean RETURN (EXISTS (SELECT 1))", "Queries"),
        ("CREATE FUNCTION f() RETURNS double RETURN 42 * random()", "Non-deterministic"),
        ("CREATE FUNCTION f() RETURNS int NOT DETERMINISTIC RETURN abs(-42)", "Deterministic"),
        ("CREATE FUNCTION f() RETURNS int BEGIN RETURN (SELECT 1); END", "Queries"),
    ],
)
def test_the_rule_check_sees_what_trinos_analyzer_rejects(statement: str, problem: str) -> None:
    assert any(problem in p for p in routine_rule_violations(statement))


def test_the_rule_check_passes_what_trino_accepts() -> None:
    assert routine_rule_violations("CREATE FUNCTION f(x int) RETURNS int RETURN x + 1") == []
    assert (
        routine_rule_violations(
            "CREATE FUNCTION f() RETURNS double NOT DETERMINISTIC RETURN random()"
        )
        == []
    )
