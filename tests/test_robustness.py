"""Whatever comes in, only the package's own errors come out.

Metadata files are read from disks other tools write, and emit renders whatever a valid file
holds: names, docs and parameter names a hostile or newer writer chose, every Iceberg type. Each
must end as a result or a :class:`TranslatorError`, never another exception.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from tests.conftest import FIXTURES, examples
from tests.metadata.test_validation import _document_with
from tests.test_types import TYPES
from translator.api import compile_script
from translator.emit import emit_ddl
from translator.errors import MetadataError, TranslatorError, UnsupportedError
from translator.metadata import dump_metadata, load_metadata
from translator.types import IcebergType

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)

#: Keys of the spec, so that random documents get past the first checks now and then.
SPEC_KEYS = st.sampled_from(
    [
        "function-uuid",
        "format-version",
        "definitions",
        "definition-log",
        "definition-id",
        "parameters",
        "return-type",
        "versions",
        "current-version-id",
        "version-id",
        "representations",
        "type",
        "sql",
        "dialect",
        "timestamp-ms",
        "definition-versions",
        "name",
        "doc",
    ]
)
SPEC_SHAPED = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 3) | st.sampled_from(["int", "sql", "spark", ""]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(SPEC_KEYS, children, max_size=6)
    ),
    max_leaves=30,
)

NAMES = st.text(min_size=1, max_size=12)
SETTINGS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _loads_or_says_why(text: str) -> None:
    """Loads, and then writes back what loads the same; or a MetadataError that says why."""
    try:
        meta = load_metadata(text)
    except MetadataError as e:
        assert e.message and (e.problems or "JSON" in e.message)
        return
    written = dump_metadata(meta)
    assert dump_metadata(load_metadata(written)) == written


@SETTINGS
@given(JSON | SPEC_SHAPED)
def test_any_json_loads_or_is_a_metadata_error(doc: Any) -> None:
    _loads_or_says_why(json.dumps(doc))


@SETTINGS
@given(st.text(max_size=200))
def test_any_text_loads_or_is_a_metadata_error(text: str) -> None:
    _loads_or_says_why(text)


@SETTINGS
@given(
    TYPES,
    TYPES,
    st.lists(NAMES, min_size=1, max_size=3),
    NAMES,
    st.none() | st.text(max_size=12),
    st.sampled_from(["x", "p + 1", "SELECT 1", "BEGIN RETURN p; END", "p ||| ", "(", " "]),
    st.sampled_from(["spark", "trino", "python"]),
    st.booleans(),
    st.sampled_from(["call", "return-null"]),
)
def test_emit_renders_any_valid_metadata_or_refuses_it(
    param: IcebergType,
    returns: IcebergType,
    name: list[str],
    param_name: str,
    doc: str | None,
    body: str,
    dialect: str,
    deterministic: bool,
    on_null: str,
) -> None:
    document = _document_with(param, returns)
    d = document["definitions"][0]
    d["parameters"][0]["name"] = param_name
    if doc is not None:
        d["doc"] = doc
        d["parameters"][0]["doc"] = doc
    version = d["versions"][0]
    version["representations"] = [{"type": "sql", "dialect": dialect, "sql": body}]
    version["deterministic"] = deterministic
    version["on-null-input"] = on_null
    try:
        meta = load_metadata(json.dumps(document))
    except MetadataError:
        reject()  # the validator's business, tested on its own
    for target in ("spark", "trino"):
        for lossy in (False, True):
            try:
                result = emit_ddl(meta, target, tuple(name), allow_lossy=lossy, or_replace=lossy)
            except TranslatorError as e:
                assert e.message
                continue
            assert result.text.startswith("CREATE ") and result.text.endswith(";\n")


def _statements(dialect: str) -> list[str]:
    folder = FIXTURES / dialect / "valid"
    return [p.read_text() for p in sorted(folder.glob("*.sql"))]


SOURCES = {d: _statements(d) for d in ("spark", "trino")}


@st.composite
def mutated_scripts(draw: st.DrawFn) -> tuple[str, str]:
    """A valid fixture script of one dialect, cut, spliced and sprinkled with SQL punctuation."""
    dialect = draw(st.sampled_from(sorted(SOURCES)))
    text = draw(st.sampled_from(SOURCES[dialect]))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        end = min(len(text), at + draw(st.integers(0, 12)))
        insert = draw(st.sampled_from(["", "(", ")", ",", "'", '"', "`", ";", " END ", "--", "/*"]))
        text = text[:at] + insert + text[end:]
    return dialect, text


@SETTINGS
@given(mutated_scripts())
def test_compile_of_any_script_reports_its_errors_and_never_raises(script: tuple[str, str]) -> None:
    dialect, text = script
    result = compile_script(text, dialect)
    for e in result.errors:
        assert isinstance(e, TranslatorError)
        assert e.position is None or 1 <= e.position.line <= text.count("\n") + 1


@pytest.mark.parametrize("depth", [65, 150])
@pytest.mark.parametrize(
    ("dialect", "opener", "closer", "leaf"),
    [
        ("spark", "ARRAY<", ">", "INT"),
        ("spark", "STRUCT<a:", ">", "INT"),
        ("spark", "MAP<INT,", ">", "INT"),
        ("trino", "array(", ")", "integer"),
        ("trino", "row(a ", ")", "integer"),
        ("trino", "map(integer,", ")", "integer"),
    ],
)
def test_a_type_nested_too_deeply_is_refused_at_its_start(
    dialect: str, opener: str, closer: str, leaf: str, depth: int
) -> None:
    """400 nested arrays parsed, and the definition-id's str() then ran out of Python's stack
    (a RecursionError out of compile_script; the command's internal error). The refusal is at
    the whole type's start, a parameter's or the return type's: it was at the level 64 in from
    the innermost (types are built inside out), somewhere in the middle of the type, and a
    Spark struct's message began with the whole type's text."""
    deep = f"{opener * depth}{leaf}{closer * depth}"
    returns = f"CREATE FUNCTION f(x {leaf}) RETURNS "
    for sql, column in (
        (f"CREATE FUNCTION f(x {deep}) RETURNS {leaf} RETURN 1", len("CREATE FUNCTION f(x ") + 1),
        (f"{returns}{deep} RETURN NULL", len(returns) + 1),
    ):
        (error,) = compile_script(sql, dialect).errors
        assert isinstance(error, UnsupportedError)
        assert error.message == "the type nests more than 64 lists, maps and structs deep"
        assert error.position is not None
        assert (error.position.line, error.position.column) == (1, column), sql[:80]


def test_a_metadata_type_nested_too_deeply_is_refused_at_the_type() -> None:
    """The JSON path was that of the level 64 in from the innermost (``...type.element.element
    ...``, as long as the nesting past the limit): it is the type's own path."""
    doc = json.loads((FIXTURES / "metadata" / "valid" / "two-definitions.json").read_text())
    t: Any = "int"
    for _ in range(70):
        t = {"type": "list", "element-id": 1, "element": t, "element-required": False}
    doc["definitions"][0]["parameters"][0]["type"] = t
    with pytest.raises(MetadataError) as info:
        load_metadata(json.dumps(doc))
    assert info.value.problems == [
        (
            "$.definitions[0].parameters[0].type",
            "the type nests more than 64 lists, maps and structs deep",
        )
    ]
