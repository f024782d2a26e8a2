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

The :class:`MigrationReport` renders as JSON (:func:`report_json`), Markdown
(:func:`report_markdown`), HTML (:func:`report_html`) and a summary table
(:func:`summary_text`); all are deterministic (sorted keys, no clock) so they can be compared.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import json
import re
import tempfile
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from translator.compile import CompileOptions
from translator.dialects import get_dialect
from translator.errors import Diagnostic, Position, TranslatorError, expected_text
from translator.frontend import is_function_ddl
from translator.ir import CreateFunction, DropFunction
from translator.merge import Change, function_key
from translator.metadata import SqlRepresentation, UdfMetadata, deep_copy
from translator.script import StatementText, scan, split_statements
from translator.warehouse.cache import MetadataCache
from translator.warehouse.errors import WarehouseError
from translator.warehouse.layout import FunctionRef
from translator.warehouse.results import ApplyResult
from translator.warehouse.store import Store
from translator.warehouse.warehouse import Warehouse

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
    "summary_text",
]

#: Where the ledger of applied statements lives, under the warehouse root.
LEDGER_DIR = ".migrations"
REPORT_FORMAT_VERSION = 1
_LEDGER_FORMAT_VERSION = 1
_LEDGER_NAME = re.compile(r"^(\d+)\.json$")
#: How long a run waits for another migration of the same dialect on this machine to finish.
_MIGRATION_LOCK_TIMEOUT_S = 600.0

StatementStatus = Literal["applied", "unchanged", "already-applied", "skipped", "failed"]
FunctionStatus = Literal[
    "created", "updated", "dropped", "unchanged", "created-and-dropped", "absent"
]


# --------------------------------------------------------------------------------------------
# The report


@dataclass(frozen=True, slots=True)
class Issue:
    """A warning or a failure, where it happened and which function it concerns."""

    code: str
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    function: str | None = None
    lossy: bool = False
    #: For failures: the source line the error points into (for a caret), when known.
    source_line: str | None = field(default=None, compare=False)
    #: For syntax errors: what the grammar would have taken there.
    expected: tuple[str, ...] = ()

    @property
    def category(self) -> Literal["untranslatable", "lossy", "warning"]:
        """``untranslatable``: a body with no form in another dialect; ``lossy``: a translation
        that drops information; ``warning``: anything else."""
        if self.code == "no-representation":
            return "untranslatable"
        return "lossy" if self.lossy else "warning"

    @property
    def detail(self) -> str:
        """The message, and what was expected instead, as the command line prints it."""
        if not self.expected:
            return self.message
        return f"{self.message}; {expected_text(self.expected)}"

    @property
    def where(self) -> str:
        parts = [self.file or "<migration>"]
        if self.line is not None:
            parts += [str(self.line), str(self.column or 1)]
        return ":".join(parts)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "function": self.function,
        }
        if self.lossy:
            out["lossy"] = True
        if self.expected:
            out["expected"] = list(self.expected)
        return out


@dataclass(slots=True)
class StatementReport:
    """One statement of a file and what became of it."""

    file: str
    line: int
    column: int
    #: The statement's first line (at most 80 characters), to recognise it by.
    head: str
    kind: Literal["function", "other"]
    status: StatementStatus = "skipped"
    function: str | None = None
    change: Change | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "line": self.line,
            "column": self.column,
            "statement": self.head,
            "kind": self.kind,
            "status": self.status,
        }
        if self.function is not None:
            out["function"] = self.function
        if self.change is not None:
            out["action"] = self.change.action
            out["definition"] = self.change.definition_id
            out["version"] = self.change.version_id
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(slots=True)
class FileReport:
    """One migration file: its statements, and the metadata files committed for it."""

    file: str
    statements: list[StatementReport] = field(default_factory=list)
    #: Metadata files written (relative to the warehouse root); none in a dry run.
    committed: list[str] = field(default_factory=list)
    #: Functions removed from the warehouse (their last definition dropped).
    dropped: list[str] = field(default_factory=list)
    #: Failures that are not one statement's (an unreadable file).
    failed_file: bool = False

    def count(self, status: StatementStatus) -> int:
        return sum(1 for s in self.statements if s.status == status)

    @property
    def status(self) -> Literal["failed", "applied", "unchanged"]:
        if self.failed_file or self.count("failed"):
            return "failed"
        return "applied" if self.count("applied") else "unchanged"

    def counts(self) -> dict[str, int]:
        return {
            "statements": len(self.statements),
            **{s: self.count(s) for s in _STATEMENT_STATUSES},
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "status": self.status,
            "counts": self.counts(),
            "statements": [s.to_json() for s in self.statements],
            "committed": list(self.committed),
            "dropped": list(self.dropped),
        }


_STATEMENT_STATUSES: tuple[StatementStatus, ...] = (
    "applied",
    "unchanged",
    "already-applied",
    "skipped",
    "failed",
)


@dataclass(frozen=True, slots=True)
class DefinitionSummary:
    """A definition as it stands after the migration."""

    definition_id: str
    returns: str
    function_type: str
    versions: tuple[int, ...]
    current_version: int
    #: The dialects the current version has a representation for.
    dialects: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.definition_id,
            "returns": self.returns,
            "function-type": self.function_type,
            "versions": list(self.versions),
            "current-version": self.current_version,
            "dialects": list(self.dialects),
        }


@dataclass(slots=True)
class FunctionReport:
    """A function the migration named: how it ended, and what happened to it on the way."""

    function: str
    existed_before: bool
    definitions: list[DefinitionSummary]
    #: Its current metadata file (relative to the warehouse), None if gone or in a dry run.
    metadata_file: str | None
    exists_after: bool
    changes: list[StatementReport] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    failures: list[Issue] = field(default_factory=list)

    @property
    def status(self) -> FunctionStatus:
        changed = any(s.status == "applied" for s in self.changes)
        if self.exists_after:
            if not self.existed_before:
                return "created"
            return "updated" if changed else "unchanged"
        if self.existed_before:
            return "dropped"
        return "created-and-dropped" if changed else "absent"

    def issues(self, category: str) -> list[Issue]:
        return [w for w in self.warnings if w.category == category]

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "existed-before": self.existed_before,
            "metadata-file": self.metadata_file,
            "definitions": [d.to_json() for d in self.definitions],
            "statements": [
                {
                    "file": s.file,
                    "line": s.line,
                    "column": s.column,
                    "status": s.status,
                    "action": s.change.action if s.change else None,
                    "definition": s.change.definition_id if s.change else None,
                    "version": s.change.version_id if s.change else None,
                }
                for s in self.changes
            ],
            "warnings": [w.to_json() for w in self.issues("warning")],
            "lossy": [w.to_json() for w in self.issues("lossy")],
            "untranslatable": [w.to_json() for w in self.issues("untranslatable")],
            "failures": [f.to_json() for f in self.failures],
        }


@dataclass(slots=True)
class MigrationReport:
    """Everything a migration run did. ``exit_code``: 0 all good, 1 something failed."""

    source: str
    dialect: str
    namespace: str
    dry_run: bool
    strict: bool
    files: list[FileReport] = field(default_factory=list)
    functions: dict[str, FunctionReport] = field(default_factory=dict)
    #: Every warning of the run (those of a function are also in its FunctionReport).
    warnings: list[Issue] = field(default_factory=list)
    #: Every failed statement (and unreadable file), in file order.
    failures: list[Issue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    @property
    def status(self) -> Literal["failed", "applied", "unchanged"]:
        if self.failures:
            return "failed"
        return "applied" if any(f.status == "applied" for f in self.files) else "unchanged"

    def summary(self) -> dict[str, int]:
        """The counts of the summary table (``warnings`` excludes lossy and untranslatable)."""
        statuses = Counter(s.status for f in self.files for s in f.statements)
        fn = Counter(f.status for f in self.functions.values())
        cats = Counter(w.category for w in self.warnings)
        return {
            "files": len(self.files),
            "statements": sum(statuses.values()),
            "applied": statuses["applied"],
            "unchanged": statuses["unchanged"],
            "already-applied": statuses["already-applied"],
            "skipped": statuses["skipped"],
            "failed": len(self.failures),
            "functions-created": fn["created"],
            "functions-updated": fn["updated"],
            "functions-dropped": fn["dropped"],
            "functions-unchanged": fn["unchanged"],
            "warnings": cats["warning"],
            "lossy": cats["lossy"],
            "untranslatable": cats["untranslatable"],
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "format-version": REPORT_FORMAT_VERSION,
            "source": self.source,
            "dialect": self.dialect,
            "namespace": self.namespace,
            "dry-run": self.dry_run,
            "strict": self.strict,
            "status": self.status,
            "exit-code": self.exit_code,
            "summary": self.summary(),
            "files": [f.to_json() for f in self.files],
            "functions": {k: v.to_json() for k, v in sorted(self.functions.items())},
            "failures": [f.to_json() for f in self.failures],
            "warnings-without-function": [w.to_json() for w in self.warnings if w.function is None],
        }


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """Sent before (``done`` None) and after each file (``done``: its report)."""

    index: int
    total: int
    file: str
    done: FileReport | None = None
    #: The failures and warnings of the finished file.
    failures: tuple[Issue, ...] = ()
    warnings: tuple[Issue, ...] = ()


# --------------------------------------------------------------------------------------------
# Files


def _natural_key(name: str) -> tuple[tuple[tuple[int, int, str], ...], str]:
    parts = re.split(r"(\d+)", name)
    key = tuple((0, int(p), "") if p.isdigit() else (1, 0, p.casefold()) for p in parts if p != "")
    return key, name


def list_migration_files(src_dir: str | Path) -> list[Path]:
    """The ``.sql`` files (any case) directly in ``src_dir``, hidden ones left out, in natural
    order: runs of digits compare as numbers (``2_x.sql`` before ``10_x.sql``, ``V2__`` before
    ``V10__``), the rest case-insensitively; ties (``1_a`` and ``01_a``) by the plain name.
    Sub-folders are not read."""
    src = Path(src_dir)
    if not src.is_dir():
        raise NotADirectoryError(f"{src}: not a directory")
    found = [
        p
        for p in src.iterdir()
        if p.suffix.lower() == ".sql" and not p.name.startswith(".") and p.is_file()
    ]
    return sorted(found, key=lambda p: _natural_key(p.name))


#: The warning code for a ``.sql`` file a migration leaves alone (it is in a sub-folder).
NOT_READ = "not-read"


def _unread_sql_files(src: Path) -> list[str]:
    """``.sql`` files in sub-folders (not hidden ones), which a migration does not read: named,
    so that a script filed one folder down is not lost without a word."""
    out = []
    for p in src.rglob("*"):
        rel = p.relative_to(src)
        hidden = any(part.startswith(".") for part in rel.parts)
        if len(rel.parts) > 1 and p.suffix.lower() == ".sql" and p.is_file() and not hidden:
            out.append(rel.as_posix())
    return sorted(out, key=_natural_key)


# --------------------------------------------------------------------------------------------
# The ledger of applied statements


class _Ledger:
    """Append-only journal of applied statements: file -> statement key -> function."""

    def __init__(self, store: Store, dialect: str) -> None:
        self.store = store
        self.folder = f"{LEDGER_DIR}/{dialect}"
        self.entries: dict[str, dict[str, str]] = defaultdict(dict)
        self.last = 0

    def load(self) -> None:
        names = sorted(
            (int(m.group(1)), n)
            for n in self.store.list_names(self.folder)
            if (m := _LEDGER_NAME.match(n)) is not None
        )
        for number, name in names:
            rel = f"{self.folder}/{name}"
            try:
                doc = json.loads(self.store.read_bytes(rel).decode("utf-8"))
                file = doc["file"]
                statements = [(s["key"], s["function"]) for s in doc["statements"]]
                if not isinstance(file, str) or not all(
                    isinstance(k, str) and isinstance(f, str) for k, f in statements
                ):
                    raise TypeError("not strings")
            except (ValueError, KeyError, TypeError) as e:
                raise WarehouseError(
                    f"{self.store.location(rel)}: not a migration ledger file ({e}); move it "
                    "away to migrate again"
                ) from None
            self.entries[file].update(statements)
            self.last = max(self.last, number)

    def applied(self, file: str) -> dict[str, str]:
        return self.entries.get(file, {})

    def record(self, file: str, statements: Sequence[tuple[str, str]]) -> None:
        if not statements:
            return
        doc = {
            "format-version": _LEDGER_FORMAT_VERSION,
            "file": file,
            "statements": [{"key": k, "function": f} for k, f in statements],
        }
        data = (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8")
        number = self.last + 1
        while True:
            try:
                self.store.create_exclusive(
                    f"{self.folder}/{number:06d}.json", data, make_dirs=True
                )
                break
            except FileExistsError:  # another run wrote one meanwhile: take the next number
                number += 1
        self.last = number
        self.entries[file].update(statements)


def _statement_key(namespace: str, text: str, occurrence: int) -> str:
    digest = hashlib.sha256(f"{namespace}\x00{text}".encode()).hexdigest()[:32]
    return f"{digest}-{occurrence}"


# --------------------------------------------------------------------------------------------
# The run


@dataclass(slots=True)
class _Item:
    """A function statement to apply."""

    piece: StatementText
    report: StatementReport
    ref: FunctionRef
    #: The name as the statement wrote it (dotted), to attribute unpositioned warnings.
    key: str
    ledger_key: str

    @property
    def start(self) -> int:
        return self.piece.position.offset

    @property
    def end(self) -> int:
        return self.piece.position.offset + len(self.piece.text)


@dataclass(slots=True)
class _Unit:
    """Consecutive function statements of one file whose unqualified names share a namespace."""

    namespace: str
    items: list[_Item] = field(default_factory=list)


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _mask(text: str, keep: Sequence[_Item], pieces: Sequence[StatementText], tail: int) -> str:
    """``text`` with every statement but ``keep`` (and everything from ``tail`` on) blanked:
    the kept statements stay at their offsets, lines and columns, with their ``;``."""
    kept = {id(it.piece) for it in keep}
    out: list[str] = []
    pos = 0
    for p in pieces:
        if id(p) in kept:
            continue
        start, end = p.position.offset, p.position.offset + len(p.text)
        out.append(text[pos:start])
        out.append(_blank(text[start:end]))
        pos = end
    out.append(text[pos:tail])
    out.append(_blank(text[tail:]))
    return "".join(out)


def _head(text: str) -> str:
    first = text.split("\n", 1)[0].strip()
    return first if len(first) <= 80 else first[:77] + "..."


class _Run:
    def __init__(
        self,
        warehouse: Warehouse,
        dialect: str,
        namespace: str,
        *,
        dry_run: bool,
        strict: bool,
        options: CompileOptions | None,
        report: MigrationReport,
        scratch_root: str | None,
    ) -> None:
        self.real = warehouse
        self.dialect = dialect
        self.lang = get_dialect(dialect)
        self.namespace = namespace
        self.dry_run = dry_run
        self.strict = strict
        self.options = options
        self.report = report
        self.target = warehouse
        if scratch_root is not None:
            self.target = Warehouse(
                scratch_root,
                namespace=namespace,
                cache=MetadataCache(),
                context=warehouse.context,
                lock_timeout_s=0,
            )
        self.ledger = _Ledger(warehouse.store, dialect)
        #: Function -> whether it existed before this run touched it.
        self.existed: dict[FunctionRef, bool] = {}
        self.statements_of: dict[FunctionRef, list[StatementReport]] = defaultdict(list)
        # Per file, reset by run_file:
        self.file = ""
        self.file_report = FileReport("")
        self.text = ""
        self.pieces: list[StatementText] = []
        self.tail = 0
        self.broken: StatementReport | None = None
        self.keys_seen: set[str] = set()

    # -- functions, before and after ---------------------------------------------------------

    def touch(self, ref: FunctionRef) -> None:
        """Note whether ``ref`` exists before this run changes it; a dry run copies it into the
        scratch warehouse first."""
        if ref in self.existed:
            return
        try:
            base = self.real.committer.base(ref)
        except TranslatorError:
            base = None  # unreadable: applying to it reports the problem
        self.existed[ref] = base is not None
        if base is not None and self.target is not self.real:
            self.target.committer.commit(ref, None, deep_copy(base.metadata))

    def function_reports(self) -> dict[str, FunctionReport]:
        out: dict[str, FunctionReport] = {}
        for ref in sorted(self.statements_of):
            self.touch(ref)
            try:
                now = self.target.committer.base(ref)
            except TranslatorError:
                now = None
            meta = now.metadata if now is not None else None
            name = str(ref)
            out[name] = FunctionReport(
                function=name,
                existed_before=self.existed[ref],
                definitions=_definitions(meta),
                metadata_file=None if now is None or self.dry_run else now.path,
                exists_after=now is not None,
                changes=[s for s in self.statements_of[ref] if s.status != "skipped"],
                warnings=[w for w in self.report.warnings if w.function == name],
                failures=[f for f in self.report.failures if f.function == name],
            )
        return out

    # -- one file ----------------------------------------------------------------------------

    def run_file(self, name: str, path: Path) -> FileReport:
        self.file = name
        self.file_report = FileReport(name)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as e:
            reason = e.strerror if isinstance(e, OSError) else f"not UTF-8 text ({e.reason})"
            self.file_report.failed_file = True
            self.report.failures.append(Issue("unreadable", f"cannot read: {reason}", file=name))
            return self.file_report
        self.text = text
        self.broken = None
        self.keys_seen = set()
        failures, warnings = len(self.report.failures), len(self.report.warnings)
        self.pieces, self.tail = self.split(text)
        for unit in self.plan():
            self.apply_unit(unit)
        self.check_ledger()
        # Statements fail in two passes (parsing, then applying): list them in file order.
        self.report.failures[failures:] = sorted(self.report.failures[failures:], key=_line)
        self.report.warnings[warnings:] = sorted(self.report.warnings[warnings:], key=_line)
        return self.file_report

    def split(self, text: str) -> tuple[list[StatementText], int]:
        """The statements, and where an unterminated string or comment starts the broken rest
        of the file (``len(text)`` if none)."""
        lex = self.lang.lexical
        try:
            return split_statements(text, lex, file=self.file), len(text)
        except TranslatorError as e:
            broken_at = e.position.offset if e.position is not None else 0
            head = split_statements(text[:broken_at], lex, file=self.file)
            complete: list[StatementText] = []
            for p in head:
                end = p.position.offset + len(p.text)
                after = scan(text[end:broken_at], lex)
                if not any(t.kind == "punct" and t.text == ";" for t in after):
                    break  # the statement the broken token belongs to
                complete.append(p)
            rest = head[len(complete)] if len(complete) < len(head) else None
            where = rest.position if rest is not None else e.position
            where = where or Position(1, 1, 0, self.file)
            kind: Literal["function", "other"] = (
                "function" if rest is not None and is_function_ddl(rest) else "other"
            )
            self.broken = StatementReport(
                self.file, where.line, where.column, _head(text[where.offset :]), kind
            )
            self.fail(self.broken, e)
            return complete, where.offset

    def plan(self) -> list[_Unit]:
        """Classify every statement; group the function statements to apply into units."""
        namespace = self.namespace
        applied = self.ledger.applied(self.file)
        seen: Counter[tuple[str, str]] = Counter()
        units: list[_Unit] = []
        for piece in self.pieces:
            st = StatementReport(
                self.file,
                piece.position.line,
                piece.position.column,
                _head(piece.text),
                "function" if is_function_ddl(piece) else "other",
            )
            self.file_report.statements.append(st)
            if st.kind == "other":
                namespace = self.other_statement(piece, st, namespace)
                continue
            seen[(namespace, piece.text)] += 1
            lkey = _statement_key(namespace, piece.text, seen[(namespace, piece.text)])
            self.keys_seen.add(lkey)
            if lkey in applied:
                st.status = "already-applied"
                st.function = applied[lkey]
                ns, _, fn = applied[lkey].rpartition(".")
                with contextlib.suppress(WarehouseError):
                    self.statements_of[FunctionRef(ns, fn)].append(st)
                continue
            try:
                parsed = self.lang.parse_statement(piece)
                if not isinstance(parsed, CreateFunction | DropFunction):  # pragma: no cover
                    raise TranslatorError("not function DDL", piece.position)
                key = function_key(parsed.name)
                ref = FunctionRef.parse(key, namespace)
            except TranslatorError as e:
                if e.position is None:
                    e.position = piece.position
                guessed = _guess_ref(piece, self.dialect, namespace)
                if guessed is not None:  # so the function's report lists the failure too
                    st.function = str(guessed)
                    self.statements_of[guessed].append(st)
                self.fail(st, e)
                continue
            st.function = str(ref)
            self.statements_of[ref].append(st)
            if not units or units[-1].namespace != namespace:
                units.append(_Unit(namespace))
            units[-1].items.append(_Item(piece, st, ref, key, lkey))
        if self.broken is not None:
            self.file_report.statements.append(self.broken)
        return units

    def other_statement(self, piece: StatementText, st: StatementReport, namespace: str) -> str:
        """Skip a statement that is not function DDL; a Spark ``USE`` changes the namespace."""
        words = [t.upper for t in piece.words[:2] if t.kind == "word"]
        st.detail = f"not function DDL ({' '.join(words) or piece.text[:20]})"
        target = _use_target(piece, self.dialect)
        if target is None:
            return namespace
        if not target:
            st.detail = "USE: does not name a namespace; unqualified names stay in " + namespace
            return namespace
        if not get_dialect(self.dialect).use_sets_function_namespace:
            st.detail = (
                f"USE: {self.dialect} keeps unqualified function names in its default function "
                f"schema, not the session's: they stay in namespace {namespace}"
            )
            return namespace
        new = ".".join(target[1:]) if len(target) > 1 else target[0]
        try:
            FunctionRef(new, "x")
        except WarehouseError as e:
            self.fail(st, TranslatorError(f"USE: {e.message}", piece.position))
            return namespace
        st.detail = f"USE: unqualified function names go to namespace {new}"
        return new

    def fail(self, st: StatementReport, e: TranslatorError) -> None:
        if st.status != "failed":  # the first error of a statement is its detail
            st.status, st.detail = "failed", e.message
        p = e.position
        line = p.line if p is not None else st.line
        lines = self.text.split("\n")
        self.report.failures.append(
            Issue(
                e.code,
                e.message,
                file=self.file,
                line=line,
                column=p.column if p is not None else st.column,
                function=st.function,
                # the file's own line (a front end's may have the statement alone)
                source_line=lines[line - 1] if 0 < line <= len(lines) else e.source_line,
                expected=e.expected,
            )
        )

    # -- applying ----------------------------------------------------------------------------

    def apply(
        self, keep: Sequence[_Item], namespace: str
    ) -> tuple[ApplyResult | None, list[TranslatorError]]:
        sql = _mask(self.text, keep, self.pieces, self.tail)
        try:
            result = self.target.apply(
                sql,
                self.dialect,
                file=self.file,
                namespace=namespace,
                options=self.options,
                strict=self.strict,
            )
        except TranslatorError as e:
            return None, [e]
        return result, list(result.errors)

    def apply_unit(self, unit: _Unit) -> None:
        for it in unit.items:
            self.touch(it.ref)
        keep = list(unit.items)
        while keep:
            result, errors = self.apply(keep, unit.namespace)
            if result is not None and not errors:
                self.succeeded(keep, result)
                return
            if result is not None and (result.committed or result.dropped):
                self.partly_committed(keep, result, errors)
                return
            blamed: dict[int, list[TranslatorError]] = defaultdict(list)
            unplaced: list[TranslatorError] = []
            for e in errors:
                culprit = self.item_at(keep, e.position)
                if culprit is None:
                    unplaced.append(e)
                else:
                    blamed[id(culprit)].append(e)
            if unplaced:
                self.one_by_one(keep, unit.namespace)
                return
            for it in keep:
                for e in blamed.get(id(it), []):
                    self.fail(it.report, e)
            keep = [it for it in keep if id(it) not in blamed]

    def one_by_one(self, items: Sequence[_Item], namespace: str) -> None:
        """Apply each statement alone: errors that name no statement then name this one."""
        for it in items:
            result, errors = self.apply([it], namespace)
            if result is not None and not errors:
                self.succeeded([it], result)
            elif result is not None and (result.committed or result.dropped):
                self.partly_committed([it], result, errors)
            else:
                for e in errors:
                    self.fail(it.report, e)

    def item_at(self, items: Sequence[_Item], p: Position | None) -> _Item | None:
        if p is None or p.file != self.file:
            return None
        for it in items:
            if it.start <= p.offset <= it.end:
                return it
        return None

    def succeeded(self, items: Sequence[_Item], result: ApplyResult) -> None:
        queues: dict[str, deque[Change]] = defaultdict(deque)
        for c in result.changes:
            queues[c.function].append(c)
        for it in items:
            q = queues[str(it.ref)]
            it.report.change = q.popleft() if q else None
            changed = it.report.change is not None and it.report.change.action != "unchanged"
            it.report.status = "applied" if changed else "unchanged"
            if it.report.change is not None and it.report.change.detail:
                it.report.detail = it.report.change.detail
        for w in result.warnings:
            self.warn(w, items)
        if not self.dry_run:
            self.file_report.committed += [c.path for c in result.committed]
            self.file_report.dropped += [str(d.ref) for d in result.dropped]
            self.ledger.record(self.file, [(it.ledger_key, str(it.ref)) for it in items])

    def partly_committed(
        self, items: Sequence[_Item], result: ApplyResult, errors: Sequence[TranslatorError]
    ) -> None:
        """A commit gave up (other writers kept winning) after some functions committed: their
        statements count as applied, the others' as failed."""
        done = {c.ref for c in result.committed} | {d.ref for d in result.dropped}
        changed = {c.function for c in result.changes if c.action != "unchanged"}
        ok = [it for it in items if it.ref in done or str(it.ref) not in changed]
        self.succeeded(ok, result)
        for it in items:
            if all(it is not o for o in ok):
                for e in errors:
                    self.fail(it.report, e)

    def warn(self, w: Diagnostic, items: Sequence[_Item]) -> None:
        it = self.item_at(items, w.position)
        if it is None and w.position is None:
            it = next((i for i in items if w.message.startswith(f"{i.key}:")), None)
        p = w.position or (it.piece.position if it is not None else None)
        issue = Issue(
            w.code,
            w.message,
            file=self.file,
            line=p.line if p is not None else None,
            column=p.column if p is not None else None,
            function=str(it.ref) if it is not None else None,
            lossy=w.lossy,
        )
        self.report.warnings.append(issue)

    def check_ledger(self) -> None:
        gone = set(self.ledger.applied(self.file)) - self.keys_seen
        if gone:
            self.report.warnings.append(
                Issue(
                    "ledger-mismatch",
                    f"{len(gone)} statement(s) applied by an earlier migration are no longer in "
                    "this file (was it edited after it was migrated?); changed statements are "
                    "applied as new ones",
                    file=self.file,
                )
            )


def _line(issue: Issue) -> tuple[int, int]:
    return (issue.line or 0, issue.column or 0)


def _use_target(piece: StatementText, dialect: str) -> list[str] | None:
    """The name parts of a ``USE`` statement; None if it is no USE, [] if it names none."""
    return get_dialect(dialect).use_target(piece)


def _guess_ref(piece: StatementText, dialect: str, namespace: str) -> FunctionRef | None:
    """The function a statement that does not parse names, read from its tokens, if it can be
    told (:meth:`~translator.dialects.base.Dialect.function_name_of`)."""
    parts = get_dialect(dialect).function_name_of(piece)
    if parts is None:
        return None
    try:
        return FunctionRef.parse(".".join(parts), namespace)
    except WarehouseError:
        return None


def _definitions(meta: UdfMetadata | None) -> list[DefinitionSummary]:
    if meta is None:
        return []
    out = []
    for d in meta.definitions:
        reps = d.current_version.representations
        out.append(
            DefinitionSummary(
                definition_id=d.definition_id,
                returns=str(d.iceberg_return_type),
                function_type=d.function_type,
                versions=tuple(sorted(v.version_id for v in d.versions)),
                current_version=d.current_version_id,
                dialects=tuple(sorted(r.dialect for r in reps if isinstance(r, SqlRepresentation))),
            )
        )
    return sorted(out, key=lambda d: d.definition_id)


def migrate_directory(
    src_dir: str | Path,
    warehouse: Warehouse,
    dialect: str,
    *,
    namespace: str | None = None,
    dry_run: bool = False,
    strict: bool = False,
    options: CompileOptions | None = None,
    progress: Callable[[ProgressEvent], None] | None = None,
    source_name: str | None = None,
) -> MigrationReport:
    """Apply every ``.sql`` file of ``src_dir`` to ``warehouse`` (see the module docstring).

    ``namespace`` takes unqualified names (default: the warehouse's). ``strict`` refuses lossy
    translations (each refused statement is a failure). ``progress`` hears about each file
    before and after it runs. ``source_name`` is how the report names ``src_dir`` (default: as
    given). A failing statement is in the report; only a broken warehouse raises.
    """
    files = list_migration_files(src_dir)
    lang = get_dialect(dialect)
    ns = namespace or warehouse.namespace
    FunctionRef(ns, "x")  # a bad namespace fails here, before anything runs
    report = MigrationReport(
        source=source_name if source_name is not None else str(src_dir),
        dialect=lang.name,
        namespace=ns,
        dry_run=dry_run,
        strict=strict,
    )
    report.warnings += [
        Issue(NOT_READ, "sub-folders are not read: this file was not migrated", file=rel)
        for rel in _unread_sql_files(Path(src_dir))
    ]
    with contextlib.ExitStack() as stack:
        scratch = None
        if dry_run:
            scratch = stack.enter_context(
                tempfile.TemporaryDirectory(prefix="iceberg-udf-dry-run-")
            )
        else:
            # One migration per dialect at a time on this machine: the second then reads the
            # ledger the first wrote (across machines the ledger's create-if-absent still holds).
            stack.enter_context(
                warehouse.store.lock(f"migrate-{lang.name}", _MIGRATION_LOCK_TIMEOUT_S)
            )
        run = _Run(
            warehouse,
            lang.name,
            ns,
            dry_run=dry_run,
            strict=strict,
            options=options,
            report=report,
            scratch_root=scratch,
        )
        run.ledger.load()
        for index, path in enumerate(files, 1):
            name = path.name
            if progress is not None:
                progress(ProgressEvent(index, len(files), name))
            failures, warnings = len(report.failures), len(report.warnings)
            report.files.append(run.run_file(name, path))
            if progress is not None:
                progress(
                    ProgressEvent(
                        index,
                        len(files),
                        name,
                        report.files[-1],
                        tuple(report.failures[failures:]),
                        tuple(report.warnings[warnings:]),
                    )
                )
        report.functions = run.function_reports()
    return report


# --------------------------------------------------------------------------------------------
# Rendering


def report_json(report: MigrationReport) -> str:
    """The report for machines: sorted keys, two-space indent, a trailing newline."""
    return json.dumps(report.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


_SUMMARY_ROWS: tuple[tuple[str, str], ...] = (
    ("files", "files"),
    ("statements", "statements"),
    ("applied", "  applied"),
    ("unchanged", "  unchanged"),
    ("already-applied", "  already applied"),
    ("skipped", "  skipped (not function DDL)"),
    ("failed", "  failed"),
    ("functions-created", "functions created"),
    ("functions-updated", "functions updated"),
    ("functions-dropped", "functions dropped"),
    ("functions-unchanged", "functions unchanged"),
    ("warnings", "other warnings"),
    ("lossy", "lossy translations"),
    ("untranslatable", "untranslatable bodies"),
)


def _verdict(report: MigrationReport) -> str:
    s = report.summary()
    if report.failures:
        text = f"{s['failed']} statement(s) failed; every other statement was applied"
    elif report.status == "unchanged":
        text = "unchanged: every statement was applied before, or changes nothing"
    else:
        text = "every statement was applied"
    return text + (" (dry run: nothing was written)" if report.dry_run else "")


def summary_text(report: MigrationReport) -> str:
    """The summary table printed at the end of a run."""
    s = report.summary()
    width = max(len(label) for _, label in _SUMMARY_ROWS)
    lines = [
        f"{'Dry run of the migration' if report.dry_run else 'Migrated'} {report.source} "
        f"({report.dialect}, unqualified names into {report.namespace}):",
    ]
    lines += [f"  {label.ljust(width)}  {s[key]:>6}" for key, label in _SUMMARY_ROWS]
    lines.append(_verdict(report))
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """Text for a Markdown table cell or list item: nothing in it is markup."""
    text = " ".join(text.split())
    return re.sub(r"([\\`*\[\]<>|])", r"\\\1", text)


def _code(text: str) -> str:
    text = " ".join(text.split())
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _def_cells(d: DefinitionSummary) -> list[str]:
    return [
        _code(f"({d.definition_id})"),
        _code(d.returns),
        ", ".join(str(v) for v in d.versions),
        str(d.current_version),
        ", ".join(d.dialects),
    ]


_DEF_HEADER = ("definition", "returns", "versions", "current", "dialects")
_CHANGE_HEADER = ("where", "status", "action", "definition", "version")
_FAILURE_HEADER = ("where", "function", "code", "message")
_FILE_HEADER = (
    "file",
    "status",
    "statements",
    "applied",
    "unchanged",
    "already applied",
    "skipped",
    "failed",
)


def _change_cells(s: StatementReport) -> list[str]:
    c = s.change
    return [
        f"{s.file}:{s.line}:{s.column}",
        s.status,
        c.action if c else "",
        f"({c.definition_id})" if c and c.definition_id is not None else "",
        str(c.version_id) if c and c.version_id is not None else "",
    ]


def _file_cells(f: FileReport) -> list[str]:
    counts = f.counts()
    return [f.file, f.status, *(str(counts[k]) for k in ("statements", *_STATEMENT_STATUSES))]


_SECTIONS = (
    ("lossy", "Lossy translations"),
    ("untranslatable", "Untranslatable bodies"),
    ("warning", "Other warnings"),
)


def report_markdown(report: MigrationReport) -> str:
    """The report for people, as Markdown."""
    s = report.summary()
    lines = [
        f"# Migration report: {_md(report.source)}",
        "",
        f"Dialect **{report.dialect}**, unqualified names into **{_md(report.namespace)}**"
        f"{', dry run' if report.dry_run else ''}{', strict' if report.strict else ''}.",
        "",
        f"**{_md(_verdict(report))}** (exit status {report.exit_code}).",
        "",
        "## Summary",
        "",
        *_md_table(["", "count"], ([label.strip(), str(s[key])] for key, label in _SUMMARY_ROWS)),
        "",
        "## Failed statements",
        "",
    ]
    if report.failures:
        lines += _md_table(
            _FAILURE_HEADER,
            (
                [_code(f.where), _code(f.function) if f.function else "", f.code, _md(f.detail)]
                for f in report.failures
            ),
        )
    else:
        lines.append("None.")
    lines += ["", "## Functions", ""]
    if not report.functions:
        lines.append("None.")
    for name, fn in sorted(report.functions.items()):
        lines += [f"### {_code(name)}: {fn.status}", ""]
        if fn.definitions:
            lines += _md_table(_DEF_HEADER, (_def_cells(d) for d in fn.definitions))
        else:
            lines.append("No definitions: the function is not in the warehouse.")
        if fn.metadata_file:
            lines += ["", f"Metadata file: {_code(fn.metadata_file)}"]
        if fn.changes:
            lines += [
                "",
                "Statements:",
                "",
                *_md_table(_CHANGE_HEADER, map(_change_cells, fn.changes)),
            ]
        for category, title in _SECTIONS:
            found = fn.issues(category)
            if found:
                lines += ["", f"{title}:", ""]
                lines += [f"- {_code(w.where)} {w.code}: {_md(w.message)}" for w in found]
        if fn.failures:
            lines += ["", "Failed statements:", ""]
            lines += [f"- {_code(f.where)} {f.code}: {_md(f.detail)}" for f in fn.failures]
        lines.append("")
    loose = [w for w in report.warnings if w.function is None]
    if loose:
        lines += ["## Warnings not tied to a function", ""]
        lines += [f"- {_code(w.where)} {w.code}: {_md(w.message)}" for w in loose]
        lines.append("")
    lines += ["## Files", "", *_md_table(_FILE_HEADER, map(_file_cells, report.files)), ""]
    return "\n".join(lines)


class _Html:
    """A tiny writer that closes every element it opens."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    @contextlib.contextmanager
    def tag(self, name: str, **attrs: str) -> Iterator[None]:
        extra = "".join(f' {k.rstrip("_")}="{html.escape(v)}"' for k, v in attrs.items())
        self.parts.append(f"<{name}{extra}>")
        yield
        self.parts.append(f"</{name}>")

    def text(self, name: str, value: str, **attrs: str) -> None:
        with self.tag(name, **attrs):
            self.parts.append(html.escape(value))

    def table(self, header: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
        with self.tag("table"):
            with self.tag("thead"), self.tag("tr"):
                for h in header:
                    self.text("th", h)
            with self.tag("tbody"):
                for r in rows:
                    with self.tag("tr"):
                        for c in r:
                            self.text("td", c)

    def issues(self, items: Sequence[Issue]) -> None:
        with self.tag("ul"):
            for w in items:
                with self.tag("li"):
                    self.text("code", w.where)
                    self.parts.append(" " + html.escape(f"{w.code}: {w.message}"))


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}"
    ".failed{color:#a00}"
)


def report_html(report: MigrationReport) -> str:
    """The report for people, as a standalone HTML page."""
    s = report.summary()
    h = _Html()
    h.parts.append("<!DOCTYPE html>\n")
    with h.tag("html", lang="en"):
        with h.tag("head"):
            h.parts.append('<meta charset="utf-8">')
            h.text("title", f"Migration report: {report.source}")
            h.text("style", _CSS)
        with h.tag("body"):
            h.text("h1", f"Migration report: {report.source}")
            h.text(
                "p",
                f"Dialect {report.dialect}, unqualified names into {report.namespace}"
                f"{', dry run' if report.dry_run else ''}{', strict' if report.strict else ''}.",
            )
            h.text(
                "p",
                f"{_verdict(report)} (exit status {report.exit_code}).",
                class_="failed" if report.failures else "ok",
            )
            h.text("h2", "Summary")
            h.table(["", "count"], ([label.strip(), str(s[key])] for key, label in _SUMMARY_ROWS))
            h.text("h2", "Failed statements")
            if report.failures:
                h.table(
                    _FAILURE_HEADER,
                    ([f.where, f.function or "", f.code, f.detail] for f in report.failures),
                )
            else:
                h.text("p", "None.")
            h.text("h2", "Functions")
            if not report.functions:
                h.text("p", "None.")
            for name, fn in sorted(report.functions.items()):
                with h.tag("section", id=f"fn-{name}"):
                    h.text("h3", f"{name}: {fn.status}")
                    if fn.definitions:
                        h.table(
                            _DEF_HEADER,
                            (
                                [
                                    f"({d.definition_id})",
                                    d.returns,
                                    ", ".join(str(v) for v in d.versions),
                                    str(d.current_version),
                                    ", ".join(d.dialects),
                                ]
                                for d in fn.definitions
                            ),
                        )
                    else:
                        h.text("p", "No definitions: the function is not in the warehouse.")
                    if fn.metadata_file:
                        h.text("p", f"Metadata file: {fn.metadata_file}")
                    if fn.changes:
                        h.text("h4", "Statements")
                        h.table(_CHANGE_HEADER, map(_change_cells, fn.changes))
                    for category, title in _SECTIONS:
                        found = fn.issues(category)
                        if found:
                            h.text("h4", title)
                            h.issues(found)
                    if fn.failures:
                        h.text("h4", "Failed statements")
                        h.issues(fn.failures)
            loose = [w for w in report.warnings if w.function is None]
            if loose:
                h.text("h2", "Warnings not tied to a function")
                h.issues(loose)
            h.text("h2", "Files")
            h.table(_FILE_HEADER, map(_file_cells, report.files))
    h.parts.append("\n")
    return "".join(h.parts)
