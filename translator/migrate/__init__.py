"""Migrate a directory of legacy SQL scripts into a warehouse, and report what happened.

:func:`migrate_directory` applies every ``.sql`` file of a folder, in natural name order
(``2_x.sql`` before ``10_x.sql``; see :func:`list_migration_files`), statement by statement:

* Function DDL (``CREATE [OR REPLACE] FUNCTION``, ``DROP FUNCTION``) goes through
  :meth:`Warehouse.apply <translator.warehouse.Warehouse.apply>`; everything else (``CREATE
  TABLE``, ``SET``, ``INSERT`` ...) is listed as skipped.
* A failing statement never stops the batch. ``apply`` commits nothing when any statement of
  its script fails, so each file is applied with its failing statements blanked out (replaced
  by spaces, newlines kept): the rest of the file still commits, and every position (in errors
  and warnings) is the statement's line and column in the original file. A file (or each stretch
  of it between Spark ``USE`` statements) is committed as one ``apply``: one new metadata file
  per function it changes, not one per statement. If ``apply`` reports an error it cannot place
  in one statement (a function named two ways), that file's statements are applied one by one.
* An unterminated string or comment swallows the rest of its file: the statements before it are
  applied, the broken statement is a failure.
* Spark's ``USE [NAMESPACE|DATABASE|SCHEMA] [catalog.]ns`` sends the file's later unqualified
  function names to ``ns`` (as Spark does); each file starts again at ``namespace``. Trino keeps
  unqualified function names in its configured default function schema, not the session's, so
  there ``USE`` changes nothing (the statement says so in the report).

Re-running a migration changes nothing. Legacy scripts are written to run once (a plain
``CREATE FUNCTION`` fails the second time, an old ``CREATE OR REPLACE`` would bring back an old
body), so the warehouse keeps a ledger of the statements it has applied, as Flyway keeps a
schema history: ``WAREHOUSE/.migrations/<dialect>/NNNNNN.json``, append-only, one file per
applied batch, each created with the store's atomic create-if-absent (names starting with a dot
are never functions). A statement is known by its file name, its text, the namespace its
unqualified names went to, and its occurrence among identical ones in the file. Applied
statements are not compiled again ("already-applied"); failed ones are retried, so fixing a
broken statement and re-running applies just that statement. A file whose applied statements
are no longer in it (edited after it was migrated) gets a ``ledger-mismatch`` warning.

``dry_run`` writes nothing to the warehouse: the run goes against a throwaway local copy (in a
temporary folder) of the functions the scripts name, so the plan is what a real run would do,
later files seeing earlier files' changes.

The package, one module a job: :mod:`~translator.migrate.files` (which files, in which order),
:mod:`~translator.migrate.ledger`, :mod:`~translator.migrate.units` and
:mod:`~translator.migrate.names` (a file's statements), :mod:`~translator.migrate.run`,
:mod:`~translator.migrate.report` (the :class:`MigrationReport` model) and
:mod:`~translator.migrate.render`: the report as JSON (:func:`report_json`), Markdown
(:func:`report_markdown`) and HTML (:func:`report_html`), all deterministic (sorted keys, no
clock) so they can be compared.

The names load on first use, so a module that needs one part (the report model, the file
listing) does not load the run and everything it drives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from translator.lazy_names import lazy_names

if TYPE_CHECKING:
    from translator.migrate.files import NOT_READ, list_migration_files
    from translator.migrate.ledger import LEDGER_DIR
    from translator.migrate.render import report_html, report_json, report_markdown
    from translator.migrate.report import (
        FileReport,
        FunctionReport,
        Issue,
        MigrationReport,
        ProgressEvent,
        StatementReport,
    )
    from translator.migrate.run import migrate_directory

#: Public name -> the module it is loaded from on first use.
_LAZY = {
    "NOT_READ": "translator.migrate.files",
    "list_migration_files": "translator.migrate.files",
    "LEDGER_DIR": "translator.migrate.ledger",
    "report_html": "translator.migrate.render",
    "report_json": "translator.migrate.render",
    "report_markdown": "translator.migrate.render",
    "FileReport": "translator.migrate.report",
    "FunctionReport": "translator.migrate.report",
    "Issue": "translator.migrate.report",
    "MigrationReport": "translator.migrate.report",
    "ProgressEvent": "translator.migrate.report",
    "StatementReport": "translator.migrate.report",
    "migrate_directory": "translator.migrate.run",
}

__all__ = [
    "LEDGER_DIR",
    "NOT_READ",
    "FileReport",
    "FunctionReport",
    "Issue",
    "MigrationReport",
    "ProgressEvent",
    "StatementReport",
    "list_migration_files",
    "migrate_directory",
    "report_html",
    "report_json",
    "report_markdown",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY)
