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

#: Records Trino did not accept that this tool refuses too: id -> part of the error. Most are
#: Trino's own analyzer's verdicts (translator.dialects.trino.routines), in Trino's words.
REFUSED_HERE = {
    # The docs' REPEAT has no UNTIL ... END REPEAT (the record's own note says so).
    "trino_docs_iterate_count": "expected one of: UNTIL",
    "trino_testanalyzer_dup_called_on_null_input": "Multiple null-call clauses specified",
    "trino_testanalyzer_dup_language": "Multiple language clauses specified",
    "trino_testanalyzer_dup_deterministic": "Multiple deterministic clauses specified",
    "trino_testanalyzer_unknown_param_type": "unknown Trino type abc",
    "trino_testanalyzer_unknown_return_type": "unknown Trino type abc",
    "trino_testanalyzer_language_javascript": "only SQL representations",
    "trino_testanalyzer_return_varchar2_too_short": "Value of RETURN must evaluate to varchar(2) "
    "(actual: varchar(4))",
    "trino_testanalyzer_return_double_as_bigint": "Value of RETURN must evaluate to bigint "
    "(actual: double)",
    "trino_testanalyzer_not_deterministic_on_deterministic_body": "Deterministic function "
    "declared NOT DETERMINISTIC",
    "trino_testanalyzer_implicit_deterministic_random": "Non-deterministic function declared "
    "DETERMINISTIC",
    "trino_testanalyzer_elseif_condition_type": "Condition of ELSEIF clause must evaluate to "
    "boolean (actual: double)",
    "trino_testanalyzer_case_when_value_type": "WHEN clause value must evaluate to CASE value "
    "type integer (actual: varchar(3))",
    "trino_testanalyzer_case_when_condition_type": "Condition of WHEN clause must evaluate to "
    "boolean (actual: integer)",
    "trino_testanalyzer_missing_return_empty_block": "Function must end in a RETURN statement",
    "trino_testanalyzer_missing_return_after_if": "Function must end in a RETURN statement",
    "trino_testanalyzer_variable_redeclared": "Variable already declared in this scope: x",
    "trino_testanalyzer_variable_redeclared_in_list": "Variable already declared in this scope: x",
    "trino_testanalyzer_variable_duplicated_in_one_declare": "Variable already declared in this "
    "scope: x",
    "trino_testanalyzer_assignment_unknown_target": "Variable cannot be resolved: x",
    "trino_testanalyzer_while_condition_type": "Condition of WHILE statement must evaluate to "
    "boolean (actual: integer)",
    "trino_testanalyzer_iterate_unknown_label": "Label not defined: abc",
    "trino_testanalyzer_duplicate_while_label_nested": "Label already declared in this scope: abc",
    "trino_testanalyzer_duplicate_repeat_label_nested": "Label already declared in this scope: abc",
    "trino_testanalyzer_subquery_in_return": "Queries are not allowed in functions",
    "trino_testanalyzer_subquery_in_block_return": "Queries are not allowed in functions",
    # Nothing shows Trino ran it; its note expects this rejection.
    "sqlglot_trino_f_L230": "Deterministic function declared NOT DETERMINISTIC",
    # Trino rejected the inline form for SECURITY and WITH; its body is deterministic too.
    "sqlglot_trino_custom_sqrt_L263": "Deterministic function declared NOT DETERMINISTIC",
    "sqlglot_trino_simple_if_L319": "Function must end in a RETURN statement",
    "sqlglot_trino_f_L363": "Deterministic function declared NOT DETERMINISTIC",
    "sqlglot_trino_last_stmt_L439": "Function must end in a RETURN statement",
    "sqlglot_trino_last_stmt_L475": "Function must end in a RETURN statement",
    "sqlglot_trino_last_stmt_L555": "Function must end in a RETURN statement",
}

#: Records Trino did not accept that parse here with a warning saying why Trino rejects them.
WARNED_HERE: dict[str, str] = {}


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
    assert outcome == {"parsed": 23, "refused": 33}
    assert len(PYTHON) == 3  # all refused
    assert set(REFUSED_HERE) | set(WARNED_HERE) <= {r["id"] for r in NOT_ACCEPTED}
