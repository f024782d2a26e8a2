"""Trino DDL from a routine spec: the ``CREATE FUNCTION`` text, and what Trino cannot say."""

from __future__ import annotations

from translator.dialects.base import PROPERTY_KEYS, Rendered, RoutineSpec, walk_type
from translator.dialects.trino.bodies import (
    BodyReading,
    body_is_deterministic,
    query_in_body,
    return_operand,
)
from translator.dialects.trino.lexical import NAME_PARTS, quote_name
from translator.dialects.trino.types import iceberg_to_trino_type
from translator.errors import UnsupportedError, UnsupportedNameError
from translator.names import format_name
from translator.types import FixedType, GeographyType, GeometryType, IcebergType

__all__ = ["render_create"]


def render_create(spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
    """Trino's ``CREATE FUNCTION`` for ``spec``; what Trino cannot say is reported as lossy.

    Refused (:class:`UnsupportedError`): a table function (Trino has none), a two-part name, a
    type Trino has no equivalent for, a body that holds a query (Trino's analyzer allows none in
    a routine). Parameter docs are left out with a note: the
    metadata keeps them, and Trino has nowhere to put them.
    """
    if len(spec.name) not in NAME_PARTS:
        raise UnsupportedNameError(
            f"{format_name(spec.name)}: Trino names a stored function catalog.schema.name (three "
            "parts), an inline one by its name alone"
        )
    if spec.kind == "udtf":
        raise UnsupportedError(
            f"{spec.label} is a table function: Trino has no SQL table functions"
        )
    body = BodyReading(spec.body, spec.body_tree)  # read once, for the three questions below
    if query_in_body(body, spec.body_kind):
        raise UnsupportedError(
            f"{spec.label}: its Trino body holds a query, and Trino allows none in a function "
            "('Queries are not allowed in functions')"
        )
    lossy: list[str] = []
    notes: list[str] = []
    params = []
    for name, ptype, doc in spec.parameters:
        params.append(f"{quote_name(name)} {_emit_type(ptype, f'parameter {name}', lossy)}")
        if doc is not None:
            notes.append(f"parameter {name}'s doc is left out: Trino has no parameter comments")
    lines = [
        f"CREATE {'OR REPLACE ' if or_replace else ''}FUNCTION "
        f"{'.'.join(quote_name(p) for p in spec.name)}({', '.join(params)})",
        f"  RETURNS {_emit_type(spec.return_type, 'the return type', lossy)}",
    ]
    if spec.doc is not None:
        lines.append("  COMMENT '" + spec.doc.replace("'", "''") + "'")
    # Trino's analyzer rejects a characteristic its own finding contradicts: the body decides.
    deterministic = body_is_deterministic(body, spec.body_kind == "compound")
    lines.append("  DETERMINISTIC" if deterministic else "  NOT DETERMINISTIC")
    if deterministic != spec.deterministic:
        notes.append(
            f"written {'' if deterministic else 'NOT '}DETERMINISTIC although the metadata says "
            f"deterministic={str(spec.deterministic).lower()}: Trino rejects a characteristic "
            "that contradicts the functions the body calls"
        )
    if spec.on_null_input == "return-null":
        lines.append("  RETURNS NULL ON NULL INPUT")
    lines += _characteristics(spec, lossy)
    if spec.body_kind == "compound":
        written = spec.body
    elif spec.body_kind == "query":
        written = f"RETURN ({spec.body})"
    else:
        written = f"RETURN {return_operand(body)}"
    lines.append("  " + written)
    return Rendered("\n".join(lines), tuple(lossy), tuple(notes))


def _characteristics(spec: RoutineSpec, lossy: list[str]) -> list[str]:
    """``SECURITY`` and ``WITH (...)`` from where compile kept them (``trino.security``,
    ``trino.property.<name>``), where Trino takes them: SECURITY on a catalog function only
    (an inline one rejects it: "Security mode not supported for inline functions"); properties
    never on a SQL function ("Function language 'SQL' does not support properties")."""
    properties = dict(spec.properties)
    out = []
    security = properties.get(PROPERTY_KEYS["security"].format(dialect="trino"))
    if security in ("DEFINER", "INVOKER"):
        if len(spec.name) == 3:
            out.append(f"  SECURITY {security}")
        else:
            lossy.append(
                f"SECURITY {security} is left out: Trino rejects SECURITY on an inline function "
                "(a one-part name); a catalog.schema.name function keeps it"
            )
    prefix = PROPERTY_KEYS["property"].format(dialect="trino", name="")
    written = [
        f"{k.removeprefix(prefix)} = {v}" for k, v in properties.items() if k.startswith(prefix)
    ]
    if written:
        lossy.append(
            f"WITH ({', '.join(written)}) is left out: Trino rejects properties on a LANGUAGE SQL "
            "function (\"Function language 'SQL' does not support properties\")"
        )
    return out


def _emit_type(t: IcebergType, where: str, lossy: list[str]) -> str:
    """The Trino type of ``t``; a ``fixed[L]`` loses its length, a geometry CRS is not kept."""
    inner = list(walk_type(t))
    if any(isinstance(x, FixedType) for x in inner):
        lossy.append(f"{where}: Iceberg {t} becomes Trino varbinary, which has no fixed length")
    if any(isinstance(x, GeometryType | GeographyType) and x.crs is not None for x in inner):
        lossy.append(f"{where}: Trino's geospatial types carry no CRS, so {t}'s is not kept")
    return iceberg_to_trino_type(t)
