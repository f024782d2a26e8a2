"""The front ends' inline parse (the Builder run as lark reduces, no tree) gives what the tree
path gives: the same statements, the same errors, and for Trino the same routine for its checks.

Every statement of the fixtures, the shared corpus and a slice of the benchmark corpus is parsed
both ways; the tree path is forced by declaring every text too deep for the inline one.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from benchmarks.corpus import generate
from tests.dialects import harness
from translator.dialects import get_dialect
from translator.dialects.grammar import inline_parser, load_parser, run_inline
from translator.dialects.spark import parser as spark_parser
from translator.dialects.trino import lexical as trino_lexical
from translator.dialects.trino import parser as trino_parser
from translator.dialects.trino.routines import syntax
from translator.errors import TranslatorError
from translator.frontend import is_function_ddl
from translator.ir import CreateFunction
from translator.script import StatementText, split_statements

_MODULES = {"spark": spark_parser, "trino": trino_parser}


def _texts(dialect: str) -> list[str]:
    out = [p.read_text() for kind in ("valid", "invalid") for p in harness.fixtures(dialect, kind)]
    out += [r["sql"] for r in harness.corpus(dialect)]
    out += [s.text for s in generate(400, 20240607) if s.dialect == dialect]
    return out


def _statements(dialect: str) -> list[StatementText]:
    lex = get_dialect(dialect).lexical
    out = []
    for text in _texts(dialect):
        try:
            out += [p for p in split_statements(text, lex, file="f.sql") if is_function_ddl(p)]
        except TranslatorError:
            continue
    return out


def _outcome(dialect: str, piece: StatementText) -> Any:
    try:
        return get_dialect(dialect).parse_statement(piece)
    except TranslatorError as e:
        return (type(e).__name__, str(e), e.expected)


@pytest.fixture(params=["lark", "lark-cython"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The inline parsers run by lark's tables in :mod:`~translator.dialects.inline_loop` (the
    default), and by lark-cython where installed and asked for."""
    if request.param == "lark-cython":
        pytest.importorskip("lark_cython")
        monkeypatch.setenv("ICEBERG_UDF_LARK_CYTHON", "1")
    else:
        monkeypatch.delenv("ICEBERG_UDF_LARK_CYTHON", raising=False)
    inline_parser.cache_clear()
    yield request.param
    inline_parser.cache_clear()


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_inline_and_tree_paths_agree(
    dialect: str, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pieces = _statements(dialect)
    inline = [_outcome(dialect, p) for p in pieces]
    monkeypatch.setattr(_MODULES[dialect], "shallow", lambda text: False)
    tree = [_outcome(dialect, p) for p in pieces]
    assert len(pieces) > 300
    assert sum(isinstance(x, tuple) for x in inline) > 20  # errors are compared too
    for piece, a, b in zip(pieces, inline, tree, strict=True):
        assert a == b, piece.text


def _builder_routine(piece: StatementText) -> syntax.Routine | None:
    """The routine Trino's inline parse hands its routine checks, or None where that parse
    makes none (a compound body or a deep text takes the tree path; a statement the checks
    skip): the Builder run inline as ``trino_parser._inline`` runs it, its values made a
    routine by the parser's own ``_routine``. Made here, not caught on its way to
    ``check_routine``: compiled by mypyc, the parser calls that directly, past a patch of
    its name."""
    text = piece.text
    if not trino_parser.shallow(text) or trino_parser._BEGIN.search(text) is not None:
        return None
    builder = trino_parser.Builder(text, piece.position, get_dialect("trino"))
    try:
        made = run_inline(
            inline_parser(trino_lexical.NAME, "start", trino_parser.Builder), builder, text
        )
    except Exception:  # an error: the statement's outcome, compared by the test above
        return None
    if not isinstance(made, CreateFunction) or any(
        w.code == "not-trino-syntax" for w in made.warnings
    ):
        return None
    assert builder.assembler is not None and builder.function_at is not None
    return trino_parser._routine(builder, builder.assembler, builder.function_at)


def test_trino_routine_from_builder_is_the_tree_readers(engine: str) -> None:
    """The routine the Trino checks get from the Builder's values is the one read from the tree."""
    seen = [
        (piece.text, routine)
        for piece in _statements("trino")
        if (routine := _builder_routine(piece)) is not None
    ]
    assert len(seen) > 100
    parser = load_parser("trino", "start", positions=False)
    for text, routine in seen:
        assert routine == syntax.read_routine(text, parser.parse(text)), text


@pytest.mark.parametrize("dialect", ["spark", "trino"])
def test_statement_rules_are_reduced_only_at_the_end(dialect: str) -> None:
    """What ``Builder.complete`` relies on: lark reduces a statement's own rule only with the
    end of the input next, so an error raised from it cannot hide a later syntax error."""
    parser = load_parser(dialect, "start", positions=False)
    states = parser.parser.parser.parser.parse_table.states
    seen = set()
    for actions in states.values():
        for token, (action, arg) in actions.items():
            if str(action) == "Reduce" and arg.origin.name in ("create_function", "drop_function"):
                seen.add(arg.origin.name)
                assert token == "$END"
    assert seen == {"create_function", "drop_function"}


def test_threads_parse_inline_side_by_side(engine: str) -> None:
    """One inline parser serves every thread: each runs its own Builder (a stack per thread)."""
    pieces = [("spark", p) for p in _statements("spark")[:150]]
    pieces += [("trino", p) for p in _statements("trino")[:150]]
    alone = [_outcome(d, p) for d, p in pieces]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda dp: _outcome(*dp), pieces))
    assert together == alone
