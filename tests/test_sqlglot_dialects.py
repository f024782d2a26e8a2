"""The shared sqlglot dialect instances (:mod:`translator.sqlglot_dialects`): one instance serves
every call in every thread only if sqlglot never changes an instance after making it, and gives
what a dialect named by a string gives."""

from __future__ import annotations

import ast
import copy
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError

from benchmarks.corpus import generate
from benchmarks.throughput import _bodies
from translator import sqlglot_dialects
from translator.sqlglot_dialects import (
    GENERIC,
    SPARK,
    TRINO,
    dialect_named,
    parse_one,
    parse_one_with_tokens,
    tokenize,
)

_SQLGLOT = Path(sqlglot.__file__).parent


def _samples() -> list[tuple[str, str, str | None]]:
    """``(body, source, target)`` of the benchmark corpus's bodies, and a few of our own."""
    own: list[tuple[str, str, str | None]] = [
        ("x + 1", "trino", "spark"),
        ("CASE WHEN a[1] > 0 THEN transform(b, v -> v * 2) ELSE ARRAY[c, d] END", "trino", "spark"),
        ("SELECT max(x) FROM (SELECT 1 AS x)", "spark", "trino"),
        ("concat_ws('-', a, b) || date_trunc('MM', d)", "spark", "trino"),
    ]
    return own + _bodies(generate(120, 11))


def test_the_names_give_the_shared_instances() -> None:
    assert dialect_named("spark") is SPARK and dialect_named("trino") is TRINO
    assert type(dialect_named("spark")) is type(Dialect.get_or_raise("spark"))
    assert type(dialect_named("trino")) is type(Dialect.get_or_raise("trino"))
    assert type(GENERIC) is type(Dialect.get_or_raise(None))
    assert type(dialect_named("duckdb")) is type(Dialect.get_or_raise("duckdb"))


def test_sqlglot_assigns_to_a_dialect_only_when_it_makes_it() -> None:
    """Read in sqlglot's source: the base class sets attributes of ``self`` only in
    ``__init__``, no dialect class sets any in a method, and no module assigns to an attribute
    of anything it calls a dialect (``self.dialect.x = ...``, ``dialect.x = ...``) or calls
    ``setattr`` on one."""
    found = []
    for path in sorted(_SQLGLOT.rglob("*.py")):
        # a module per dialect in sqlglot/dialects: its classes are dialects
        found += _dialect_writes(path.read_text(), path.name, path.parent.name == "dialects")
    assert found == []


def test_the_source_check_sees_writes_to_a_dialect() -> None:
    source = """
class Hive(Dialect):
    def __init__(self):
        self.x = 1
    def later(self):
        self.y = 2
    class Parser:
        def parse(self):
            self.sql = ""
            self.dialect.z = 3
def f(dialect, g):
    dialect.settings += 1
    setattr(dialect, "w", 4)
    g.sql = ""
"""
    assert _dialect_writes(source, "hive.py", True) == [
        "hive.py:4 Hive.__init__",
        "hive.py:6 Hive.later",
        "hive.py:10",
        "hive.py:12",
        "hive.py:13 setattr",
    ]
    assert _dialect_writes(source, "parser.py", False) == [
        "parser.py:10",
        "parser.py:12",
        "parser.py:13 setattr",
    ]


def _dialect_writes(source: str, name: str, dialects: bool) -> list[str]:
    """Where ``source`` (a module of sqlglot) may change a dialect instance (see above);
    ``dialects``: its classes are dialects."""
    tree = ast.parse(source, name)
    found = []
    if dialects:
        for cls in tree.body:
            if isinstance(cls, ast.ClassDef):
                found += _self_assignments(cls, name)
    for node in ast.walk(tree):
        for target in _targets(node):
            if _names_a_dialect(target):
                found.append(f"{name}:{target.lineno}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and _names_a_dialect(node.args[0], attribute=False)
        ):
            found.append(f"{name}:{node.lineno} setattr")
    return sorted(found, key=lambda f: int(f.split(":")[1].split()[0]))


def _self_assignments(cls: ast.ClassDef, name: str) -> list[str]:
    """Assignments to ``self.x`` in a dialect class's methods (the base's ``__init__`` aside);
    nested classes (a dialect's Tokenizer, Parser, Generator) are not the dialect."""
    out = []
    for item in cls.body:
        if not isinstance(item, ast.FunctionDef):
            continue
        if cls.name == "Dialect" and item.name == "__init__":
            continue
        for node in ast.walk(item):
            for target in _targets(node):
                if isinstance(target.value, ast.Name) and target.value.id == "self":
                    out.append(f"{name}:{target.lineno} {cls.name}.{item.name}")
    return out


def _targets(node: ast.AST) -> list[ast.Attribute]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    else:
        return []
    return [t for t in targets if isinstance(t, ast.Attribute)]


def _names_a_dialect(node: ast.expr, attribute: bool = True) -> bool:
    """Whether ``node`` is ``<something called dialect>.x`` (``attribute``) or the something."""
    if attribute:
        if not isinstance(node, ast.Attribute):
            return False
        node = node.value
    return (isinstance(node, ast.Name) and "dialect" in node.id.lower()) or (
        isinstance(node, ast.Attribute) and "dialect" in node.attr.lower()
    )


def _state(d: Dialect) -> dict[str, Any]:
    return copy.deepcopy(vars(d))


def _round_trip(body: str, source: str, target: str | None, by_name: bool) -> tuple[str, ...]:
    read: Any = source if by_name else dialect_named(source)
    try:
        tree = sqlglot.parse_one(body, read=read)
        out = [tree.sql(dialect=read), repr(tree)]
        if target is not None:
            write: Any = target if by_name else dialect_named(target)
            out.append(tree.sql(dialect=write))
    except SqlglotError as e:
        return (type(e).__name__, str(e))
    return tuple(out)


def test_shared_instances_give_what_names_give_and_stay_as_made() -> None:
    samples = _samples()
    before = {name: _state(dialect_named(name)) for name in ("spark", "trino")}
    before["generic"] = _state(GENERIC)
    for body, source, target in samples:
        assert _round_trip(body, source, target, by_name=False) == _round_trip(
            body, source, target, by_name=True
        )
    assert {name: _state(dialect_named(name)) for name in ("spark", "trino")} == {
        k: v for k, v in before.items() if k != "generic"
    }
    assert _state(GENERIC) == before["generic"]


def test_shared_instances_in_threads_give_what_one_thread_gives() -> None:
    samples = _samples()
    alone = [_round_trip(b, s, t, by_name=False) for b, s, t in samples]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(2):
            assert list(pool.map(lambda x: _round_trip(*x, by_name=False), samples)) == alone


# --------------------------------------------------------------------------------------------
# Tokenizers and parsers kept per thread


def _outcome(call: Any) -> Any:
    """What ``call()`` gives, or the error it raises (class and message)."""
    try:
        return call()
    except (SqlglotError, RecursionError, ValueError) as e:
        return (type(e).__name__, str(e))


def _texts() -> list[tuple[str, Dialect]]:
    """Bodies in both dialects, with texts sqlglot cannot tokenize or parse among them, so a
    kept tokenizer or parser works after a call of its that failed."""
    broken = ["x +", "'unterminated", "CASE WHEN", "", ";", "a b c d", "f(1,, 2)", "x /* open"]
    texts = [(body, dialect_named(source)) for body, source, _ in _samples()]
    for i, text in enumerate(broken):
        texts.insert(3 * i + 1, (text, TRINO if i % 2 else SPARK))
    return texts


def _tokens(tokens: list[Any]) -> list[tuple[Any, ...]]:
    return [(t.token_type, t.text, t.line, t.col, t.start, t.end, t.comments) for t in tokens]


def _kept(text: str, d: Dialect) -> tuple[Any, Any]:
    return (
        _outcome(lambda: _tokens(tokenize(text, d))),
        _outcome(lambda: repr(parse_one(text, d))),
    )


def _fresh(text: str, d: Dialect) -> tuple[Any, Any]:
    return (
        _outcome(lambda: _tokens(sqlglot.tokenize(text, read=d))),
        _outcome(lambda: repr(sqlglot.parse_one(text, read=d))),
    )


def test_kept_tokenizers_and_parsers_give_what_new_ones_give() -> None:
    texts = _texts()
    assert any(isinstance(r[1], tuple) for r in map(lambda x: _fresh(*x), texts[:30]))
    for text, d in texts + texts[::-1]:
        assert _kept(text, d) == _fresh(text, d), text


def test_parse_one_with_tokens_gives_the_tokens_it_parsed() -> None:
    tree, tokens = parse_one_with_tokens("a + f(b)", TRINO)
    assert repr(tree) == repr(sqlglot.parse_one("a + f(b)", read="trino"))
    assert _tokens(tokens) == _tokens(sqlglot.tokenize("a + f(b)", read="trino"))
    block = parse_one("1; 2", SPARK)
    assert repr(block) == repr(sqlglot.parse_one("1; 2", read="spark"))


def test_a_tokenizer_and_parser_are_kept_and_one_that_raised_is_not() -> None:
    if not sqlglot_dialects.REUSE:
        pytest.skip("ICEBERG_UDF_SQLGLOT_REUSE=0")
    spare = sqlglot_dialects._spare
    parse_one("x + 1", TRINO)
    tokenizer, parser = spare.tokenizers[id(TRINO)], spare.parsers[id(TRINO)]
    parse_one("y * 2", TRINO)
    assert spare.tokenizers[id(TRINO)] is tokenizer and spare.parsers[id(TRINO)] is parser
    with pytest.raises(SqlglotError):
        parse_one("x +", TRINO)
    assert spare.tokenizers[id(TRINO)] is tokenizer and id(TRINO) not in spare.parsers
    parse_one("y * 2", TRINO)
    assert spare.parsers[id(TRINO)] is not parser


def test_an_instance_not_made_shared_gets_new_ones() -> None:
    other = type(TRINO)()
    assert _kept("x + 1", other) == _fresh("x + 1", TRINO)
    assert id(other) not in sqlglot_dialects._spare.parsers


def test_kept_ones_in_threads_give_what_one_thread_gives() -> None:
    texts = _texts()
    alone = [_fresh(text, d) for text, d in texts]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(2):
            assert list(pool.map(lambda x: _kept(*x), texts)) == alone


def test_each_thread_keeps_its_own_tokenizer_and_parser() -> None:
    """A kept parser is never shared between threads: another thread keeps its own."""
    if not sqlglot_dialects.REUSE:
        pytest.skip("ICEBERG_UDF_SQLGLOT_REUSE=0")
    spare = sqlglot_dialects._spare
    parse_one("x + 1", TRINO)
    mine = spare.tokenizers[id(TRINO)], spare.parsers[id(TRINO)]
    with ThreadPoolExecutor(1) as pool:
        theirs = pool.submit(
            lambda: (
                parse_one("y + 2", TRINO),
                (spare.tokenizers[id(TRINO)], spare.parsers[id(TRINO)]),
            )[1]
        ).result()
    assert theirs[0] is not mine[0] and theirs[1] is not mine[1]
    assert (spare.tokenizers[id(TRINO)], spare.parsers[id(TRINO)]) == mine


def test_reuse_can_be_turned_off() -> None:
    code = (
        "from translator import sqlglot_dialects as s\n"
        "s.parse_one('x + 1', s.TRINO)\n"
        "print(s.REUSE, len(s._KEPT), len(s._spare.parsers))\n"
    )
    env = {**os.environ, "ICEBERG_UDF_SQLGLOT_REUSE": "0"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["False", "0", "0"]


def test_sqlglot_resets_every_field_a_tokenizer_or_parser_changes_while_working() -> None:
    """Read in sqlglot's source: what a tokenizer's or parser's methods assign to ``self``
    besides ``__init__`` is assigned anew by ``reset()``, which ``tokenize`` and ``_parse``
    call first; the parser's one exception, ``error_level``, is set back in a ``finally``."""
    core = _class(_SQLGLOT / "tokenizer_core.py", "TokenizerCore")
    assert _first_call(_method(core, "tokenize")) == "reset"
    assert _changed(core) <= _assigned(_method(core, "reset"))
    parser = _class(_SQLGLOT / "parser.py", "Parser")
    assert _first_call(_method(parser, "_parse")) == "reset"
    assert _changed(parser) - _assigned(_method(parser, "reset")) == {"error_level"}
    try_parse = _method(parser, "_try_parse")
    restored = [n for n in ast.walk(try_parse) if isinstance(n, ast.Try) and n.finalbody]
    assert restored and "error_level" in _assigned(restored[0].finalbody)
    for name in ("trino", "presto", "spark", "spark2", "hive"):  # and the parsers we use
        for cls in ast.parse((_SQLGLOT / "parsers" / f"{name}.py").read_text()).body:
            if isinstance(cls, ast.ClassDef):
                assert _changed(cls) == set(), (name, cls.name)
    for name in ("trino", "presto", "spark", "spark2", "hive"):  # their tokenizers' settings
        source = (_SQLGLOT / "dialects" / f"{name}.py").read_text()
        assert "TokenizerCore" not in source and "def tokenize" not in source


def test_a_kept_generator_would_write_another_alias() -> None:
    """Why generators are not kept: the second call of one writes a generated table alias
    with the next number, where a new generator writes the first."""
    alias = exp.TableAlias(columns=[exp.to_identifier("a")])
    generator = SPARK.generator()
    assert generator.generate(alias) == alias.sql(SPARK) == "_t0(a)"
    assert generator.generate(alias) == "_t1(a)"


def _class(path: Path, name: str) -> ast.ClassDef:
    tree = ast.parse(path.read_text(), str(path))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef:
    return next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name)


def _assigned(where: ast.AST | list[ast.stmt]) -> set[str]:
    """The attributes of ``self`` assigned in ``where``."""
    nodes = where if isinstance(where, list) else [where]
    return {
        t.attr
        for top in nodes
        for node in ast.walk(top)
        for t in _targets(node)
        if isinstance(t.value, ast.Name) and t.value.id == "self"
    }


def _changed(cls: ast.ClassDef) -> set[str]:
    """The attributes of ``self`` assigned in ``cls``'s methods other than ``__init__`` and
    ``reset``, or changed in place (``self.x.append(...)``, ``self.x[k] = ...``). Class
    settings (upper case) are left out: a new parser shares them as much as a kept one does
    (the parser of ``CONNECT BY PRIOR`` changes one for the span of that parse)."""
    out: set[str] = set()
    for item in cls.body:
        if isinstance(item, ast.FunctionDef) and item.name not in ("__init__", "reset"):
            out |= _assigned(item)
            for node in ast.walk(item):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    changed = node.func.value if node.func.attr in _MUTATORS else None
                elif isinstance(node, (ast.Assign, ast.AugAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    changed = next((t.value for t in targets if isinstance(t, ast.Subscript)), None)
                else:
                    changed = None
                if (
                    isinstance(changed, ast.Attribute)
                    and isinstance(changed.value, ast.Name)
                    and changed.value.id == "self"
                ):
                    out.add(changed.attr)
    return {name for name in out if not name.isupper()}


_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "add", "setdefault"}
)


def _first_call(method: ast.FunctionDef) -> str:
    body = [
        s
        for s in method.body
        if not isinstance(s, ast.Expr) or not isinstance(s.value, ast.Constant)
    ]
    call = body[0].value if isinstance(body[0], ast.Expr) else None
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
    return call.func.attr


def _nested_subqueries(depth: int) -> str:
    return "SELECT x FROM " + "(SELECT x FROM " * depth + "t" + ")" * depth


def test_a_text_nested_deeper_than_the_bound_is_too_deep_before_sqlglot_parses_it() -> None:
    limit = sqlglot_dialects.MAX_BRACKET_DEPTH
    with pytest.raises(RecursionError, match=f"deeper than {limit} brackets"):
        parse_one(_nested_subqueries(limit + 1), SPARK)
    with pytest.raises(RecursionError, match=f"deeper than {limit} brackets"):
        parse_one("x" + "[0" * (limit + 1) + "]" * (limit + 1), TRINO)


def test_brackets_that_nest_nothing_are_not_counted() -> None:
    many = "(" * (sqlglot_dialects.MAX_BRACKET_DEPTH + 50)
    assert parse_one(f"'{many}'", TRINO).name == many  # in a string
    assert parse_one(f'"{many}"', TRINO).name == many  # in a quoted name
    side_by_side = " + ".join(["(1)"] * (sqlglot_dialects.MAX_BRACKET_DEPTH + 50))
    assert len(list(parse_one(side_by_side, TRINO).find_all(exp.Paren))) == len(many)


def test_a_chain_of_subscripts_longer_than_the_bound_is_too_deep() -> None:
    """Each subscript wraps the chain before it; for Trino sqlglot's parser types the whole chain
    again at each one (quadratic time), so a chain longer than the bound is refused before
    sqlglot parses it, however it is linked (``][``, ``].a[``, a field named by a keyword)."""
    limit = sqlglot_dialects.MAX_BRACKET_DEPTH
    for dialect in (TRINO, SPARK):
        assert parse_one("x" + "[1]" * limit, dialect) is not None
        for link in ("", ".a", ".value", ' ."b c"'):
            text = "x" + f"[1]{link}" * (limit + 1)
            with pytest.raises(RecursionError, match=f"more than {limit} subscripts"):
                parse_one(text, dialect)


def test_subscripts_that_do_not_chain_are_not_counted() -> None:
    many = sqlglot_dialects.MAX_BRACKET_DEPTH + 50
    for dialect in (TRINO, SPARK):
        side_by_side = " + ".join(["x[1]"] * many)
        assert len(list(parse_one(side_by_side, dialect).find_all(exp.Bracket))) == many
        in_calls = "f(" + ", ".join(["x[1][2]"] * many) + ")"
        assert len(list(parse_one(in_calls, dialect).find_all(exp.Bracket))) == 2 * many
        in_parens = "(" + ") + (".join(["x[1]"] * many) + ")"
        assert len(list(parse_one(in_parens, dialect).find_all(exp.Bracket))) == many


def test_a_long_chain_is_refused_in_linear_time() -> None:
    """30,000 chained subscripts took minutes before the bound (sqlglot's quadratic typing)."""
    import time

    started = time.process_time()
    with pytest.raises(RecursionError):
        parse_one("x" + "[1]" * 30_000, TRINO)
    assert time.process_time() - started < 5
