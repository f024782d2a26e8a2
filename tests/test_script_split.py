"""The statement splitter (one scan in runs) against the plain rules it implements: every token
scanned, ``;`` ending a statement at the top level, ``BEGIN``/``CASE`` ... ``END`` nesting once
a statement has said FUNCTION. Same statements, positions, tokens and errors."""

from __future__ import annotations

import time
from itertools import islice
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import FIXTURES, examples
from tests.timing import assert_linear
from translator.dialects import get_dialect
from translator.errors import TranslatorError
from translator.frontend import is_function_ddl
from translator.script import Lexical, StatementText, Token, scan, split_statements

_SIGNIFICANT = frozenset({"word", "number", "string", "qident", "dollar", "punct"})
_QUALIFIERS = frozenset({"IF", "WHILE", "LOOP", "REPEAT", "CASE", "FOR"})


def _reference(script: str, lex: Lexical) -> list[tuple[str, int, list[Token], Token | None]]:
    """(text, offset, tokens, first invisible) of each statement, token by token."""
    tokens = list(scan(script, lex, file="f.sql"))
    out: list[tuple[str, int, list[Token], Token | None]] = []
    current: list[Token] = []
    depth: list[str] = []
    in_function, prev = False, ""

    def emit() -> None:
        sig = [k for k, t in enumerate(current) if t.kind in _SIGNIFICANT]
        if not sig:
            return
        part = current[sig[0] : sig[-1] + 1]
        base, end = part[0].start, part[-1].end
        local = [Token(t.kind, t.start - base, t.end - base, t.text) for t in part]
        hidden = next((t for t in local if t.kind == "invisible"), None)
        out.append((script[base:end], base, local, hidden))

    for k, tok in enumerate(tokens):
        if tok.kind == "word":
            w = tok.upper
            if w == "FUNCTION":
                in_function = True
            elif in_function and w == "BEGIN":
                depth.append("BEGIN")
            elif depth and w == "CASE" and prev != "END":
                depth.append("CASE")
            elif depth and w == "END":
                nxt = next((t for t in tokens[k + 1 :] if t.kind in _SIGNIFICANT), None)
                word = nxt.upper if nxt is not None and nxt.kind == "word" else ""
                if word == "CASE" or word not in _QUALIFIERS:
                    depth.pop()
            prev = w
        elif tok.kind == "punct" and tok.text == ";" and not depth:
            emit()
            current, in_function, prev = [], False, ""
            continue
        elif tok.kind in _SIGNIFICANT:
            prev = ""
        current.append(tok)
    emit()
    return out


def _split(script: str, lex: Lexical) -> list[tuple[str, int, list[Token], Token | None]]:
    return [
        (p.text, p.position.offset, list(p.tokens), p.first_invisible())
        for p in split_statements(script, lex, file="f.sql")
    ]


def _outcome(f: Any, script: str, lex: Lexical) -> Any:
    try:
        return f(script, lex)
    except TranslatorError as e:
        return str(e)


def _check(script: str) -> None:
    for dialect in ("spark", "trino"):
        lex = get_dialect(dialect).lexical
        assert _outcome(_split, script, lex) == _outcome(_reference, script, lex)


def test_fixture_scripts_split_as_the_rules_say() -> None:
    paths = sorted(FIXTURES.rglob("*.sql"))
    assert len(paths) > 50
    for path in paths:
        _check(path.read_text())


_PIECES = [
    "CREATE FUNCTION f() RETURNS int ", "BEGIN ", "END ", "END IF", "END CASE", "CASE ", "IF ",
    "WHILE ", "LOOP", "RETURN 1", "; ", ";", "\n", " ", "'a;b'", "'it''s'", "\"q;\"", "`b;`",
    "-- c;\n", "/* c; */", "$$ x; $$", "$t$ y; $t$", "x", "1end", "end1", "ca\u017fe", "\u200b",
    "\ufeff", "(", ")", "-", "/", "$", "'", "/*", "é", "\\'", "e", "nd", "function", "begin",
]  # fmt: skip


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_any_script_splits_as_the_rules_say(pieces: list[str]) -> None:
    _check("".join(pieces))


def test_split_time_is_linear() -> None:
    """A long routine body and a script of many statements: 4x the text, about 4x the time."""
    lex = get_dialect("trino").lexical
    unit = "CREATE FUNCTION f() RETURNS int BEGIN IF x THEN RETURN 1; END IF; RETURN b; END;\n"

    def split(k: int) -> object:
        script = unit * k + "CREATE FUNCTION g() RETURNS int RETURN " + "x + " * (k * 20) + "1"
        return split_statements(script, lex)

    assert_linear(split, 1000, warm=100)


_CREATE_MODIFIERS = frozenset({"OR", "REPLACE", "TEMPORARY", "TEMP"})


def _function_ddl_by_words(stmt: StatementText) -> bool:
    words = list(islice(stmt.iter_words(), 5))
    if not words or words[0].kind != "word" or words[0].upper not in ("CREATE", "DROP"):
        return False
    for tok in words[1:]:
        if tok.kind != "word":
            return False
        if tok.upper == "FUNCTION":
            return True
        if tok.upper not in _CREATE_MODIFIERS:
            return False
    return False


_HEADS = [
    "CREATE", "create", "DROP", "OR", "REPLACE", "TEMPORARY", "temp", "FUNCTION", "function",
    "functions", "FUNCTIONx", "x", " ", "\n", "/* c */", "-- c\n", "\u200b", "(", "`function`",
    "$x", "1", "funct\u0131on", "f",
]  # fmt: skip


@settings(max_examples=examples(1000), deadline=None)
@given(st.lists(st.sampled_from(_HEADS), max_size=12))
def test_function_ddl_is_the_first_words(pieces: list[str]) -> None:
    try:
        statements = split_statements("".join(pieces), get_dialect("spark").lexical)
    except TranslatorError:  # an unterminated $x$ quote
        return
    for stmt in statements:
        assert is_function_ddl(stmt) == _function_ddl_by_words(stmt), stmt.text


def test_function_ddl_look_is_linear() -> None:
    stmt = split_statements("CREATE" + " " * 200_000 + "x", get_dialect("spark").lexical)[0]
    t0 = time.process_time()
    assert not is_function_ddl(stmt)
    assert time.process_time() - t0 < 1


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), max_size=20))
def test_scan_gives_the_statement_tokens(pieces: list[str]) -> None:
    """``scan`` of one statement's text gives the tokens the splitter made for it."""
    lex = get_dialect("spark").lexical
    try:
        parts = split_statements("".join(pieces), lex)
    except TranslatorError:
        return
    for p in parts:
        assert list(scan(p.text, lex)) == list(p.tokens)


def test_scan_is_lazy() -> None:
    """A caller that stops early never reaches an unterminated literal further on."""
    lex = get_dialect("trino").lexical
    tokens = scan("a; 'unterminated", lex)
    assert [t.text for t in islice(tokens, 2)] == ["a", ";"]
    try:
        list(scan("a; 'unterminated", lex))
    except TranslatorError as e:
        assert "unterminated" in str(e)
    else:  # pragma: no cover - the test's own failure
        raise AssertionError("an unterminated string must raise")
