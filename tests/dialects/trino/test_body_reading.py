"""Emit asks three things of a Trino body (a query in it? deterministic? the RETURN operand):
:class:`translator.dialects.trino.bodies.BodyReading` has sqlglot read it once for all three,
with the answers each gives the body's text alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from translator.dialects.trino import bodies
from translator.dialects.trino.bodies import (
    BodyReading,
    body_is_deterministic,
    query_in_body,
    return_operand,
)

_BODIES = [
    ("x + 1", "expression"),
    ("a = b", "expression"),
    ("NOT flag", "expression"),
    ("EXISTS (SELECT 1)", "expression"),
    ("x IN (SELECT y FROM t)", "expression"),
    ("rand() * x", "expression"),
    ("uuid()", "expression"),
    ("x +", "expression"),  # sqlglot cannot read it: the token checks answer
    ("random(x) +", "expression"),
    ("'unterminated", "expression"),  # nor tokenize it
    ("SELECT 1", "query"),
    ("BEGIN RETURN random(); END", "compound"),
    ("BEGIN DECLARE v int DEFAULT (SELECT 1); RETURN v; END", "compound"),
    ("BEGIN RETURN 'x; END", "compound"),
]


def _answers(body: Any, kind: str) -> tuple[Any, ...]:
    """What the Trino generator asks of a body of ``kind`` (the RETURN operand: of an
    expression only)."""
    out: list[Any] = []
    asks = [
        lambda: query_in_body(body, kind),
        lambda: body_is_deterministic(body, kind == "compound"),
    ]
    if kind == "expression":
        asks.append(lambda: return_operand(body))
    for ask in asks:
        try:
            out.append(ask())
        except Exception as e:  # the same error either way
            out.append((type(e).__name__, str(e)))
    return tuple(out)


@pytest.mark.parametrize(("text", "kind"), _BODIES)
def test_one_reading_gives_what_the_text_gives(text: str, kind: str) -> None:
    assert _answers(BodyReading(text), kind) == _answers(text, kind)


def test_a_reading_parses_and_tokenizes_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    parse_one, tokenize = bodies.parse_one, bodies.tokenize

    def counted_parse(text: str, dialect: Any) -> Any:
        calls.append("parse")
        return parse_one(text, dialect)

    def counted_tokenize(text: str, dialect: Any) -> Any:
        calls.append("tokenize")
        return tokenize(text, dialect)

    monkeypatch.setattr(bodies, "parse_one", counted_parse)
    monkeypatch.setattr(bodies, "tokenize", counted_tokenize)
    _answers(BodyReading("a = b"), "expression")
    assert calls == ["parse"]
    calls.clear()
    _answers("a = b", "expression")
    assert calls == ["parse", "parse", "parse"]
    calls.clear()
    _answers(BodyReading("x +"), "expression")
    assert calls == ["parse", "tokenize"]
    calls.clear()
    _answers(BodyReading("BEGIN RETURN 1; END"), "compound")
    assert calls == ["tokenize"]


def test_emit_reads_a_stored_trino_body_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check of the stored body and the Trino generator share one sqlglot reading."""
    from translator import bodies as shared
    from translator.api import compile_script
    from translator.emit import emit_ddl

    body = "x > 0 AND rand() > 0.5"  # a predicate: RETURN puts it in parentheses
    meta = compile_script(
        f"CREATE FUNCTION f(x integer) RETURNS boolean NOT DETERMINISTIC RETURN {body}", "trino"
    ).raise_for_errors()
    read: list[str] = []
    for module in (shared, bodies):
        parse_one = module.parse_one

        def counted(text: str, dialect: Any, *rest: Any, parse_one: Any = parse_one) -> Any:
            read.append(text)
            return parse_one(text, dialect, *rest)

        monkeypatch.setattr(module, "parse_one", counted)
    ddl = emit_ddl(meta.functions["f"], "trino", ("f",)).text
    assert read == [body]
    assert f"RETURN ({body})" in ddl and "NOT DETERMINISTIC" in ddl


@pytest.mark.parametrize("compound", [False, True])
def test_a_body_sqlglot_cannot_tokenize_is_refused_with_its_reason(compound: bool) -> None:
    """A stored body read from a metadata file may not tokenize (``x'...'`` is a binary
    literal, and these are no hex digits): nothing then tells which functions it calls, so
    emit refuses it with a BodyError instead of failing inside sqlglot."""
    from translator.dialects.trino.bodies import body_is_deterministic
    from translator.errors import BodyError

    with pytest.raises(BodyError, match="cannot be tokenized"):
        body_is_deterministic("x' DROP TABLE victim*/'x", compound)


def test_emit_refuses_a_stored_trino_body_that_does_not_tokenize(tmp_path: Path) -> None:
    """The command exits with the body's error (found by the hostile-metadata property test)."""
    from tests.hardening_cli import run_cli

    base = tmp_path / "base.sql"
    base.write_text("CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1;", encoding="utf-8")
    meta = tmp_path / "f.json"
    assert run_cli("compile", "--dialect", "spark", "-o", str(meta), str(base))[0] == 0
    doc = json.loads(meta.read_text(encoding="utf-8"))
    body = "x' DROP TABLE victim\u200b*/'x"
    doc["definitions"][0]["versions"][0]["representations"] = [
        {"type": "sql", "dialect": "trino", "sql": body}
    ]
    meta.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = run_cli("emit", "--dialect", "trino", "--name", "f", str(meta))
    assert code == 1 and out == ""
    assert err.startswith("error: the Trino body cannot be tokenized") and "internal" not in err
