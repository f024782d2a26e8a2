"""The Trino corpus: real function DDL from Trino's docs and tests, and sqlglot's Trino tests.

Every SQL statement Trino accepted must parse. The ones Trino rejected (or that nothing shows it
ran) are pinned here one by one: most are rejected by Trino's analyzer (type checks, scopes of
variables and labels), which this tool does not redo, so they parse; the ones this tool refuses,
or warns about, say so below. Python routines are refused: Iceberg has only SQL representations.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.dialects import harness
from translator.errors import UnsupportedError
from translator.frontend import parse_script
from translator.ir import CreateFunction

CORPUS = harness.corpus_path("trino")
RECORDS: list[dict[str, Any]] = harness.corpus("trino")
pytestmark = pytest.mark.skipif(not RECORDS, reason=f"no corpus at {CORPUS}")

ACCEPTED = [r for r in RECORDS if r["kind"] == "sql" and r["engine_accepts"] is True]
NOT_ACCEPTED = [r for r in RECORDS if r["kind"] == "sql" and r["engine_accepts"] is not True]
PYTHON = [r for r in RECORDS if r["kind"] == "python"]

#: Records Trino did not accept that this tool refuses too: id -> part of the error.
REFUSED_HERE = {
    # The docs' REPEAT has no UNTIL ... END REPEAT (the record's own note says so).
    "trino_docs_iterate_count": "expected one of: UNTIL",
    "trino_testanalyzer_dup_called_on_null_input": "multiple null-input clauses",
    "trino_testanalyzer_dup_language": "multiple LANGUAGE clauses",
    "trino_testanalyzer_dup_deterministic": "multiple DETERMINISTIC clauses",
    "trino_testanalyzer_unknown_param_type": "unknown Trino type abc",
    "trino_testanalyzer_unknown_return_type": "unknown Trino type abc",
    "trino_testanalyzer_language_javascript": "only SQL representations",
}

#: Records Trino did not accept that parse here with a warning saying why Trino rejects them.
WARNED_HERE = {
    "trino_testanalyzer_missing_return_empty_block": "trino-rejects",
    "trino_testanalyzer_missing_return_after_if": "trino-rejects",
    "sqlglot_trino_simple_if_L319": "trino-rejects",
    "sqlglot_trino_last_stmt_L439": "trino-rejects",
    "sqlglot_trino_last_stmt_L475": "trino-rejects",
    "sqlglot_trino_last_stmt_L555": "trino-rejects",
    "trino_testanalyzer_return_varchar2_too_short": "lossy-type",
}


def _ids(records: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in records]


@pytest.mark.parametrize("record", ACCEPTED, ids=_ids(ACCEPTED))
def test_statements_trino_accepted_parse(record: dict[str, Any]) -> None:
    parsed = parse_script(record["sql"], "trino", file=record["id"])
    assert parsed.errors == [], [str(e) for e in parsed.errors]
    (stmt,) = parsed.statements
    assert isinstance(stmt, CreateFunction)
    assert stmt.body.text in record["sql"]
    features = set(record.get("features") or ())
    if "compound_begin_end" in features:
        assert stmt.body.kind == "compound"
    if "return_expression" in features:
        assert stmt.body.kind == "expression"
        assert stmt.body.parse_error is None, stmt.body.parse_error
    if "not_deterministic" in features:
        assert stmt.deterministic is False
    if "name_3part" in features:
        assert len(stmt.name) == 3
    assert not any(w.code in ("trino-rejects", "not-trino-syntax") for w in stmt.warnings)


@pytest.mark.parametrize("record", NOT_ACCEPTED, ids=_ids(NOT_ACCEPTED))
def test_statements_trino_did_not_accept(record: dict[str, Any]) -> None:
    parsed = parse_script(record["sql"], "trino", file=record["id"])
    if record["id"] in REFUSED_HERE:
        (err,) = parsed.errors
        assert REFUSED_HERE[record["id"]] in str(err)
        return
    assert parsed.errors == [], [str(e) for e in parsed.errors]
    (stmt,) = parsed.statements
    assert isinstance(stmt, CreateFunction)
    codes = {w.code for w in stmt.warnings}
    if record["id"] in WARNED_HERE:
        assert WARNED_HERE[record["id"]] in codes
    else:
        assert not codes & {"trino-rejects", "not-trino-syntax"}


@pytest.mark.parametrize("record", PYTHON, ids=_ids(PYTHON))
def test_python_routines_are_refused(record: dict[str, Any]) -> None:
    parsed = parse_script(record["sql"], "trino", file=record["id"])
    assert parsed.statements == []
    (err,) = parsed.errors
    assert isinstance(err, UnsupportedError)
    assert "only SQL representations" in err.message


def test_corpus_figures() -> None:
    """How the corpus fares, in numbers (a change here is a change in behaviour)."""
    outcome = {"parsed": 0, "refused": 0}
    for r in NOT_ACCEPTED:
        outcome["refused" if r["id"] in REFUSED_HERE else "parsed"] += 1
    assert len(ACCEPTED) == 61  # all of them parse (test above)
    assert outcome == {"parsed": 49, "refused": 7}
    assert len(PYTHON) == 3  # all refused
    assert set(REFUSED_HERE) | set(WARNED_HERE) <= {r["id"] for r in NOT_ACCEPTED}
