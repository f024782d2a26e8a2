"""An optional SQL catalog: ``namespace.function`` -> its current metadata file, swapped with CAS.

Without a catalog the file system decides which commit wins (create-if-absent of the next
numbered file). Object stores and shared team setups may prefer a database: the catalog row is
the one source of truth, and a commit is::

    UPDATE iceberg_udf_functions SET metadata_location = :new, previous_metadata_location = :old
     WHERE catalog_name = :c AND function_namespace = :ns AND function_name = :fn
       AND metadata_location = :old

One row changed: committed. None: someone else committed first; the writer re-reads, re-merges
and tries again. A new function is an INSERT that the primary key refuses for all but one
writer. This is the scheme of Iceberg's JDBC catalog for tables, applied to functions.

SQLite (the default, one file) and PostgreSQL (for teams) are tested; any SQLAlchemy database
whose UPDATE reports matched rows should do. Needs ``pip install 'iceberg-udf[catalog]'``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from translator.redact import mask_secrets, url_secrets
from translator.warehouse.errors import UnsupportedStorageError, WarehouseError
from translator.warehouse.layout import FunctionRef

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

__all__ = ["TABLE_NAME", "CatalogConflict", "CatalogEntry", "SqlCatalog"]

TABLE_NAME = "iceberg_udf_functions"


class CatalogConflict(Exception):
    """The row was not what the writer expected: another commit came first."""


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    ref: FunctionRef
    metadata_location: str
    previous_metadata_location: str | None


class SqlCatalog:
    """The catalog table in one database; ``name`` lets several warehouses share a database."""

    def __init__(self, url: str, *, name: str = "default") -> None:
        try:
            import sqlalchemy as sa
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise UnsupportedStorageError(
                "a SQL catalog needs SQLAlchemy: pip install 'iceberg-udf[catalog]'"
            ) from e
        self._sa = sa
        self.url = url
        self.name = name
        self._secrets = url_secrets(url)
        #: How messages name the database: the URL with its password masked.
        self.shown = mask_secrets(url, self._secrets)
        connect_args: dict[str, Any] = {}
        if url.startswith("sqlite"):
            # Writers queue on SQLite's lock instead of failing at once with "database is locked".
            connect_args["timeout"] = 60
        try:
            self.engine: Engine = sa.create_engine(url, connect_args=connect_args)
        except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError, ValueError) as e:
            raise self._error("cannot open", e) from None
        md = sa.MetaData()
        self.table = sa.Table(
            TABLE_NAME,
            md,
            sa.Column("catalog_name", sa.String(255), primary_key=True),
            sa.Column("function_namespace", sa.String(255), primary_key=True),
            sa.Column("function_name", sa.String(255), primary_key=True),
            sa.Column("metadata_location", sa.String(2000), nullable=False),
            sa.Column("previous_metadata_location", sa.String(2000), nullable=True),
        )
        self._create_table()

    def _error(self, doing: str, e: BaseException) -> WarehouseError:
        """``e`` as a one-line error naming the catalog, every secret masked (drivers echo the
        URL, and SQLAlchemy adds the statement and a link; the first line says what failed)."""
        detail = getattr(e, "orig", None) or e
        lines = [ln.strip() for ln in str(detail).strip().splitlines() if ln.strip()]
        first = lines[0] if lines else type(e).__name__
        message = f"catalog {self.shown}: {doing}: {first}"
        return WarehouseError(mask_secrets(message, self._secrets))

    @contextlib.contextmanager
    def _database(self, doing: str) -> Iterator[None]:
        """Database and driver failures (unreachable server, wrong password, unopenable file,
        read-only database) as :class:`WarehouseError`: never a driver's traceback."""
        try:
            yield
        except (CatalogConflict, self._sa.exc.IntegrityError):
            raise  # another writer came first: the caller's business
        except (self._sa.exc.SQLAlchemyError, OSError, ImportError) as e:
            raise self._error(doing, e) from None

    def _create_table(self) -> None:
        """Create the table if missing; two processes doing it at once is not an error."""
        sa = self._sa
        with self._database("cannot open"):
            try:
                self.table.create(self.engine, checkfirst=True)
            except sa.exc.DBAPIError:
                if not sa.inspect(self.engine).has_table(TABLE_NAME):
                    raise

    def close(self) -> None:
        self.engine.dispose()

    def _key(self, ref: FunctionRef) -> Any:
        t = self.table.c
        return (
            (t.catalog_name == self.name)
            & (t.function_namespace == ref.namespace)
            & (t.function_name == ref.name)
        )

    def get(self, ref: FunctionRef) -> CatalogEntry | None:
        t = self.table
        with self._database("cannot read"), self.engine.connect() as conn:
            row = conn.execute(
                self._sa.select(t.c.metadata_location, t.c.previous_metadata_location).where(
                    self._key(ref)
                )
            ).first()
        return None if row is None else CatalogEntry(ref, row[0], row[1])

    def entries(self) -> list[CatalogEntry]:
        t = self.table
        with self._database("cannot read"), self.engine.connect() as conn:
            rows = conn.execute(
                self._sa.select(
                    t.c.function_namespace,
                    t.c.function_name,
                    t.c.metadata_location,
                    t.c.previous_metadata_location,
                )
                .where(t.c.catalog_name == self.name)
                .order_by(t.c.function_namespace, t.c.function_name)
            ).all()
        return [CatalogEntry(FunctionRef(r[0], r[1]), r[2], r[3]) for r in rows]

    def create(self, ref: FunctionRef, location: str) -> None:
        """Register a new function; :class:`CatalogConflict` if it is already registered."""
        try:
            with self._database("cannot write"), self.engine.begin() as conn:
                conn.execute(
                    self.table.insert().values(
                        catalog_name=self.name,
                        function_namespace=ref.namespace,
                        function_name=ref.name,
                        metadata_location=location,
                        previous_metadata_location=None,
                    )
                )
        except self._sa.exc.IntegrityError as e:
            raise CatalogConflict(f"{ref} was registered concurrently") from e

    def swap(self, ref: FunctionRef, expected: str, new: str) -> None:
        """Point ``ref`` at ``new`` if it still points at ``expected`` (compare-and-swap)."""
        with self._database("cannot write"), self.engine.begin() as conn:
            result = conn.execute(
                self.table.update()
                .where(self._key(ref) & (self.table.c.metadata_location == expected))
                .values(metadata_location=new, previous_metadata_location=expected)
            )
        if result.rowcount != 1:
            raise CatalogConflict(f"{ref} no longer points at {expected}")

    def delete(self, ref: FunctionRef, expected: str) -> None:
        """Unregister ``ref`` if it still points at ``expected``."""
        with self._database("cannot write"), self.engine.begin() as conn:
            result = conn.execute(
                self.table.delete().where(
                    self._key(ref) & (self.table.c.metadata_location == expected)
                )
            )
        if result.rowcount != 1:
            raise CatalogConflict(f"{ref} no longer points at {expected}")
