"""``routine_from_parts`` builds a RETURN routine without parsing it where the grammar surely
takes it: what it builds must be exactly what the grammar's parse gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from translator.dialects.trino.routines import routine_from_parts
from translator.dialects.trino.routines.syntax import parse_routine
from translator.errors import TranslatorError

_TYPES = st.sampled_from(
    [
        "bigint",
        "varchar",
        "array(bigint)",
        "map(varchar, array(double))",
        'row("a" bigint, "b c" varchar)',
        "row(a bigint, b array(row(c date)))",
        "row(row integer, map map(varchar, integer))",
        "decimal(10,2)",
        "timestamp(3) with time zone",
        "unknown",
        "double precision",
        "interval day to second",
        " bigint",
        "bigint -- c",
        "array(",
        "x y",
        "",
    ]
)
_TEXT = st.text(alphabet="\"' \n\t-/*();$\\aRE\u00e9", max_size=8)


def _statement(name: str, params: list[tuple[str, str]], returns: str, body: str) -> str:
    def quoted(n: str) -> str:
        return '"' + n.replace('"', '""') + '"'

    listed = ", ".join(quoted(n) + " " + t for n, t in params)
    return f"CREATE FUNCTION {quoted(name)}({listed}) RETURNS {returns}\nRETURN {body}"


@settings(max_examples=examples(400), deadline=None)
@given(_TEXT, st.lists(st.tuples(_TEXT, _TYPES), max_size=3), _TYPES, _TEXT)
def test_built_routine_is_the_parsed_one(
    name: str, params: list[tuple[str, str]], returns: str, body: str
) -> None:
    try:
        parsed: object = parse_routine(_statement(name, params, returns, body))
    except (TranslatorError, ValueError) as e:
        parsed = type(e)
    try:
        built: object = routine_from_parts(name, params, returns, body, "")
    except (TranslatorError, ValueError) as e:
        built = type(e)
    assert built == parsed


def test_corpus_shaped_routine() -> None:
    params = [("a", "bigint"), ('we"ird', "array(varchar)")]
    body = "CASE WHEN a > 0 THEN 'x' ELSE NULL END -- trailing"
    built = routine_from_parts("fn", params, "varchar", body, "")
    assert built == parse_routine(_statement("fn", params, "varchar", body))
    assert built.body.value.text == body  # type: ignore[union-attr]
