"""Iceberg types: lenient reading, canonical writing, and the definition-id built from them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from translator.types import (
    EDGE_ALGORITHMS,
    MAX_TYPE_NESTING,
    PRIMITIVE_NAMES,
    DecimalType,
    FixedType,
    GeographyType,
    GeometryType,
    IcebergType,
    ListType,
    MapType,
    PrimitiveType,
    StructField,
    StructType,
    TypeParseError,
    check_id_safe,
    definition_id,
    parse_type_json,
    parse_type_string,
    type_to_json,
)

# --------------------------------------------------------------------------------------------
# Primitives

ALL_PRIMITIVES = [
    "boolean",
    "int",
    "long",
    "float",
    "double",
    "date",
    "time",
    "timestamp",
    "timestamptz",
    "timestamp_ns",
    "timestamptz_ns",
    "string",
    "uuid",
    "binary",
    "variant",
    "unknown",
]


def test_the_primitive_list_is_the_specs() -> None:
    assert set(ALL_PRIMITIVES) == PRIMITIVE_NAMES


@pytest.mark.parametrize("name", ALL_PRIMITIVES)
def test_primitive_reads_and_writes_its_name(name: str) -> None:
    t = parse_type_string(name)
    assert t == PrimitiveType(name)
    assert str(t) == name
    assert type_to_json(t) == name
    assert parse_type_json(name) == t
    assert t.is_primitive


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("decimal(9,2)", DecimalType(9, 2)),
        ("decimal(38,0)", DecimalType(38, 0)),
        ("decimal(1,1)", DecimalType(1, 1)),
        ("fixed[16]", FixedType(16)),
        ("fixed[1]", FixedType(1)),
        ("geometry", GeometryType()),
        ("geometry(OGC:CRS84)", GeometryType("OGC:CRS84")),
        ("geometry(srid:4326)", GeometryType("srid:4326")),
        ("geography", GeographyType()),
        ("geography(OGC:CRS84)", GeographyType("OGC:CRS84")),
        ("geography(srid:4326,karney)", GeographyType("srid:4326", "karney")),
    ],
)
def test_parameterised_primitive_is_canonical(text: str, expected: IcebergType) -> None:
    t = parse_type_string(text)
    assert t == expected
    assert str(t) == text
    assert t.is_primitive


@pytest.mark.parametrize("algorithm", sorted(EDGE_ALGORITHMS))
def test_every_edge_algorithm_is_accepted(algorithm: str) -> None:
    assert str(parse_type_string(f"geography(OGC:CRS84,{algorithm})")).endswith(f",{algorithm})")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("INT", "int"),
        ("Int", "int"),
        ("  long ", "long"),
        ("TIMESTAMPTZ_NS", "timestamptz_ns"),
        ("Decimal(9,2)", "decimal(9,2)"),
        ("decimal(9, 2)", "decimal(9,2)"),
        ("DECIMAL ( 9 , 2 )", "decimal(9,2)"),
        ("fixed[ 16 ]", "fixed[16]"),
        ("FIXED[16]", "fixed[16]"),
        ("Geometry", "geometry"),
        ("geometry( OGC:CRS84 )", "geometry(OGC:CRS84)"),
        ("GEOGRAPHY(OGC:CRS84, Spherical)", "geography(OGC:CRS84,spherical)"),
    ],
)
def test_reading_is_lenient_writing_is_canonical(text: str, canonical: str) -> None:
    assert str(parse_type_string(text)) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "must not be empty"),
        ("   ", "must not be empty"),
        ("foo", "not an Iceberg type"),
        ("varchar", "not an Iceberg type"),
        ("int4", "not an Iceberg type"),
        ("list", "nested type"),
        ("map", "nested type"),
        ("struct", "nested type"),
        ("list<int>", "not an Iceberg type"),
        ("decimal", "not an Iceberg type"),
        ("decimal(9)", "not an Iceberg type"),
        ("decimal(0,0)", "precision 0"),
        ("decimal(39,2)", "precision 39"),
        ("decimal(5,6)", "scale 6"),
        ("decimal(-1,0)", "not a non-negative whole number"),
        ("decimal(a,b)", "not a non-negative whole number"),
        ("fixed", "not an Iceberg type"),
        ("fixed[0]", "at least 1"),
        ("fixed[x]", "not a non-negative whole number"),
        ("fixed[²]", "not a non-negative whole number"),
        ("fixed(16)", "not an Iceberg type"),
        ("int[4]", "not an Iceberg type"),
        ("geometry()", "not an Iceberg type"),
        ("geometry(a,b)", "not an Iceberg type"),
        ("geography(x),geography(y)", "CRS"),
        ("geometry(a)b)", "CRS"),
        ("geography(OGC:CRS84,flat)", "edge algorithm"),
    ],
)
def test_bad_type_strings_are_rejected(text: str, message: str) -> None:
    with pytest.raises(TypeParseError, match=message.replace("(", r"\(")):
        parse_type_string(text)


def test_constructors_check_their_bounds() -> None:
    for make in (
        lambda: PrimitiveType("INT"),
        lambda: DecimalType(39, 0),
        lambda: DecimalType(9, 10),
        lambda: FixedType(0),
        lambda: GeographyType(None, "spherical"),
        lambda: GeometryType(""),
        lambda: GeometryType("a b"),
    ):
        with pytest.raises(TypeParseError):
            make()


def test_non_string_is_not_a_type_string() -> None:
    with pytest.raises(TypeParseError, match="type string is expected"):
        parse_type_string(5)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Nested types

ID_NAME = StructType(
    [StructField("id", PrimitiveType("int")), StructField("name", PrimitiveType("string"))]
)
ID_NAME_JSON = {
    "type": "struct",
    "fields": [{"name": "id", "type": "int"}, {"name": "name", "type": "string"}],
}


def test_list_map_struct_read_and_write() -> None:
    lst = {"type": "list", "element": "int"}
    mp = {"type": "map", "key": "string", "value": "int"}
    assert parse_type_json(lst) == ListType(PrimitiveType("int"))
    assert parse_type_json(mp) == MapType(PrimitiveType("string"), PrimitiveType("int"))
    assert parse_type_json(ID_NAME_JSON) == ID_NAME
    for value in (lst, mp, ID_NAME_JSON):
        t = parse_type_json(value)
        assert type_to_json(t) == value
        assert not t.is_primitive
    assert str(parse_type_json(lst)) == "list<int>"
    assert str(parse_type_json(mp)) == "map<string,int>"
    assert str(ID_NAME) == "struct<id:int,name:string>"


def test_nesting_to_any_depth() -> None:
    t: IcebergType = PrimitiveType("long")
    text = "long"
    for depth in range(30):
        if depth % 3 == 0:
            t, text = ListType(t), f"list<{text}>"
        elif depth % 3 == 1:
            t, text = MapType(PrimitiveType("string"), t), f"map<string,{text}>"
        else:
            t, text = StructType([StructField(f"f{depth}", t)]), f"struct<f{depth}:{text}>"
    assert str(t) == text
    assert parse_type_json(type_to_json(t)) == t


def test_empty_struct_is_a_type() -> None:
    t = parse_type_json({"type": "struct", "fields": []})
    assert t == StructType([])
    assert str(t) == "struct<>"


def test_table_schema_keys_are_ignored() -> None:
    """A type copied from a table schema carries ids and flags; the UDF spec ignores them."""
    value = {
        "type": "struct",
        "schema-id": 0,
        "fields": [
            {"id": 1, "name": "id", "required": True, "type": "int", "doc": "the key"},
            {
                "id": 2,
                "name": "tags",
                "required": False,
                "type": {
                    "type": "list",
                    "element-id": 3,
                    "element-required": False,
                    "element": "string",
                },
            },
            {
                "id": 4,
                "name": "attrs",
                "required": False,
                "type": {
                    "type": "map",
                    "key-id": 5,
                    "key": "string",
                    "value-id": 6,
                    "value-required": True,
                    "value": "long",
                },
            },
        ],
    }
    t = parse_type_json(value)
    assert str(t) == "struct<id:int,tags:list<string>,attrs:map<string,long>>"
    assert type_to_json(t) == {
        "type": "struct",
        "fields": [
            {"name": "id", "type": "int", "doc": "the key"},
            {"name": "tags", "type": {"type": "list", "element": "string"}},
            {"name": "attrs", "type": {"type": "map", "key": "string", "value": "long"}},
        ],
    }


def test_struct_field_doc_is_kept_but_not_part_of_identity() -> None:
    with_doc = parse_type_json(
        {"type": "struct", "fields": [{"name": "a", "type": "int", "doc": "x"}]}
    )
    without = parse_type_json({"type": "struct", "fields": [{"name": "a", "type": "int"}]})
    assert with_doc == without
    assert hash(with_doc) == hash(without)
    assert isinstance(with_doc, StructType)
    assert with_doc.fields[0].doc == "x"


def test_nested_reading_is_lenient_about_case_and_inner_strings() -> None:
    t = parse_type_json(
        {"type": "LIST", "element": {"type": "Map", "key": "STRING", "value": "Decimal(9, 2)"}}
    )
    assert str(t) == "list<map<string,decimal(9,2)>>"


@pytest.mark.parametrize(
    ("value", "path", "message"),
    [
        (5, "", "string or an object"),
        (None, "", "string or an object"),
        (["int"], "", "string or an object"),
        ({}, ".type", "string 'type'"),
        ({"type": 1}, ".type", "string 'type'"),
        ({"type": "set", "element": "int"}, ".type", "unsupported nested type"),
        ({"type": "list"}, ".element", "needs 'element'"),
        ({"type": "list", "element": "foo"}, ".element", "not an Iceberg type"),
        ({"type": "map", "key": "int"}, ".value", "needs 'value'"),
        ({"type": "map", "value": "int"}, ".key", "needs 'key'"),
        ({"type": "struct"}, ".fields", "'fields' list"),
        ({"type": "struct", "fields": ["a"]}, ".fields[0]", "must be an object"),
        ({"type": "struct", "fields": [{"type": "int"}]}, ".fields[0].name", "non-empty 'name'"),
        ({"type": "struct", "fields": [{"name": "a"}]}, ".fields[0].type", "needs a 'type'"),
        (
            {
                "type": "struct",
                "fields": [{"name": "a", "type": "int"}, {"name": "a", "type": "int"}],
            },
            ".fields",
            "duplicate field name",
        ),
        (
            {"type": "list", "element": {"type": "struct", "fields": [{"name": "a", "type": "x"}]}},
            ".element.fields[0].type",
            "not an Iceberg type",
        ),
    ],
)
def test_bad_type_json_reports_a_relative_path(value: Any, path: str, message: str) -> None:
    with pytest.raises(TypeParseError, match=message) as info:
        parse_type_json(value)
    assert info.value.path == path


# --------------------------------------------------------------------------------------------
# definition-id


def _types(*values: Any) -> list[IcebergType]:
    return [parse_type_json(v) for v in values]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ([], ""),
        (["int"], "int"),
        (["int", "string"], "int,string"),
        (
            ["int", {"type": "list", "element": "int"}, ID_NAME_JSON],
            "int,list<int>,struct<id:int,name:string>",
        ),
        (["decimal(9,2)", "fixed[16]", "timestamptz_ns"], "decimal(9,2),fixed[16],timestamptz_ns"),
        (
            [{"type": "map", "key": "string", "value": {"type": "list", "element": ID_NAME_JSON}}],
            "map<string,list<struct<id:int,name:string>>>",
        ),
        (
            [
                {
                    "type": "list",
                    "element": {
                        "type": "map",
                        "key": "int",
                        "value": {"type": "list", "element": "long"},
                    },
                }
            ],
            "list<map<int,list<long>>>",
        ),
        (["Decimal( 9, 2 )", "INT"], "decimal(9,2),int"),
    ],
)
def test_definition_id_examples(params: list[Any], expected: str) -> None:
    assert definition_id(_types(*params)) == expected


@pytest.mark.parametrize(
    "name", ["a,b", "a:b", "a<b", "a>b", "a b", "a(b", "a]b", "a'b", 'a"b', "a`b", "a\tb"]
)
def test_field_names_that_make_the_id_ambiguous_are_refused(name: str) -> None:
    t = StructType([StructField(name, PrimitiveType("int"))])
    with pytest.raises(TypeParseError, match="ambiguous"):
        check_id_safe(ListType(t))
    with pytest.raises(TypeParseError, match="ambiguous"):
        definition_id([PrimitiveType("int"), MapType(PrimitiveType("string"), t)])


def test_unicode_and_underscore_field_names_are_fine() -> None:
    t = StructType([StructField("größe_1", PrimitiveType("int"))])
    assert definition_id([t]) == "struct<größe_1:int>"


# --------------------------------------------------------------------------------------------
# Properties

SAFE_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=6)
CRS = st.sampled_from([None, "OGC:CRS84", "srid:4326", "projjson:my_crs"])


@st.composite
def _decimals(draw: st.DrawFn) -> IcebergType:
    precision = draw(st.integers(1, 38))
    return DecimalType(precision, draw(st.integers(0, precision)))


@st.composite
def _geographies(draw: st.DrawFn) -> IcebergType:
    crs = draw(CRS)
    algorithm = None if crs is None else draw(st.sampled_from([None, *sorted(EDGE_ALGORITHMS)]))
    return GeographyType(crs, algorithm)


PRIMITIVES: st.SearchStrategy[IcebergType] = st.one_of(
    st.sampled_from(sorted(PRIMITIVE_NAMES)).map(PrimitiveType),
    _decimals(),
    st.integers(1, 10**6).map(FixedType),
    CRS.map(GeometryType),
    _geographies(),
)


def _nest(children: st.SearchStrategy[IcebergType]) -> st.SearchStrategy[IcebergType]:
    fields = st.lists(st.tuples(SAFE_NAME, children), max_size=4, unique_by=lambda f: f[0])
    return st.one_of(
        children.map(ListType),
        st.tuples(children, children).map(lambda kv: MapType(*kv)),
        fields.map(lambda fs: StructType(StructField(n, t) for n, t in fs)),
    )


TYPES = st.recursive(PRIMITIVES, _nest, max_leaves=12)
FAST = settings(max_examples=examples(200), deadline=None)


@FAST
@given(TYPES)
def test_json_form_round_trips(t: IcebergType) -> None:
    as_json = type_to_json(t)
    assert parse_type_json(as_json) == t
    assert type_to_json(parse_type_json(as_json)) == as_json


@FAST
@given(TYPES)
def test_canonical_string_of_a_primitive_reads_back(t: IcebergType) -> None:
    if t.is_primitive:
        assert parse_type_string(str(t)) == t


#: Few, short names and types, so that near-collisions of ids are actually tried.
SMALL_TYPES = st.recursive(
    st.sampled_from([PrimitiveType("int"), PrimitiveType("long"), DecimalType(1, 0), FixedType(1)]),
    lambda children: st.one_of(
        children.map(ListType),
        st.tuples(children, children).map(lambda kv: MapType(*kv)),
        st.lists(
            st.tuples(st.sampled_from(["a", "b", "ab"]), children),
            max_size=2,
            unique_by=lambda f: f[0],
        ).map(lambda fs: StructType(StructField(n, t) for n, t in fs)),
    ),
    max_leaves=4,
)


@FAST
@given(st.lists(SMALL_TYPES, max_size=3), st.lists(SMALL_TYPES, max_size=3))
def test_different_signatures_never_share_a_definition_id(
    a: list[IcebergType], b: list[IcebergType]
) -> None:
    assert (definition_id(a) == definition_id(b)) == (a == b)


class _IdReader:
    """Reads a definition-id back into types: ids that all read back cannot collide."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def signature(self) -> list[IcebergType]:
        if not self.text:
            return []
        out = [self.type()]
        while self.pos < len(self.text):
            self.expect(",")
            out.append(self.type())
        return out

    def expect(self, char: str) -> None:
        assert self.text[self.pos] == char, (self.text, self.pos)
        self.pos += 1

    def word(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",:<>()[]":
            self.pos += 1
        return self.text[start : self.pos]

    def type(self) -> IcebergType:
        start, name = self.pos, self.word()
        if name in ("list", "map", "struct"):
            self.expect("<")
            if name == "list":
                t: IcebergType = ListType(self.type())
            elif name == "map":
                key = self.type()
                self.expect(",")
                t = MapType(key, self.type())
            else:
                t = StructType(self.fields())
            self.expect(">")
            return t
        if self.pos < len(self.text) and self.text[self.pos] in "([":
            self.pos = self.text.index(")" if self.text[self.pos] == "(" else "]", self.pos) + 1
        return parse_type_string(self.text[start : self.pos])

    def fields(self) -> list[StructField]:
        out: list[StructField] = []
        while self.text[self.pos] != ">":
            if out:
                self.expect(",")
            name = self.word()
            self.expect(":")
            out.append(StructField(name, self.type()))
        return out


@FAST
@given(st.lists(TYPES, max_size=4))
def test_a_definition_id_reads_back_as_its_signature(types: list[IcebergType]) -> None:
    assert _IdReader(definition_id(types)).signature() == types


def _nested(kind: str, depth: int) -> IcebergType:
    t: IcebergType = PrimitiveType("int")
    for _ in range(depth):
        if kind == "list":
            t = ListType(t)
        elif kind == "map":
            t = MapType(PrimitiveType("string"), t)
        else:
            t = StructType([StructField("a", t)])
    return t


@pytest.mark.parametrize("kind", ["list", "map", "struct"])
def test_a_type_nests_at_most_max_type_nesting_deep(kind: str) -> None:
    """Every walk over a type recurses per level: a type hundreds of levels deep made the
    definition-id's str() run out of Python's stack. The limit is the type's own rule, so a
    front end and a metadata file meet it alike (the JSON form is refused at its path)."""
    deepest = _nested(kind, MAX_TYPE_NESTING)
    assert parse_type_json(type_to_json(deepest)) == deepest
    assert definition_id([deepest]).count("<") == MAX_TYPE_NESTING
    with pytest.raises(TypeParseError, match=f"nests more than {MAX_TYPE_NESTING} lists"):
        _nested(kind, MAX_TYPE_NESTING + 1)
    wrapped = {"type": "list", "element": type_to_json(deepest)}
    with pytest.raises(TypeParseError) as info:
        parse_type_json({"type": "list", "element": wrapped})
    assert info.value.path == ".element"
