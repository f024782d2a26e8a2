"""One migration run: each file's statements planned, applied and reported (see the package)."""

from __future__ import annotations

import contextlib
import tempfile
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from translator.compile import CompileOptions
from translator.dialects import get_dialect
from translator.errors import Diagnostic, Position, TranslatorError
from translator.frontend import is_function_ddl
from translator.ir import CreateFunction, DropFunction
from translator.merge import Change, function_key
from translator.metadata import deep_copy
from translator.migrate.catalog_sync import sync_to_catalog
from translator.migrate.files import (
    NOT_READ,
    list_migration_files,
    read_script,
    unread_sql_files,
)
from translator.migrate.ledger import Ledger, entry, statement_key
from translator.migrate.names import guess_ref
from translator.migrate.report import (
    FileReport,
    FunctionReport,
    Issue,
    MigrationReport,
    ProgressEvent,
    StatementReport,
    definition_summaries,
    issues_by_function,
)
from translator.migrate.units import Item, Unit, head_line, ledger_statements, mask
from translator.names import format_name
from translator.script import StatementText, scan, split_statements
from translator.statement_cache import parse_statement, remember_split, run_scope
from translator.warehouse.cache import MetadataCache
from translator.warehouse.errors import WarehouseError
from translator.warehouse.layout import FunctionRef, namespace_folder
from translator.warehouse.results import ApplyResult
from translator.warehouse.warehouse import Warehouse

#: How long a run waits for another migration of the same dialect on this machine to finish.
_MIGRATION_LOCK_TIMEOUT_S = 600.0


class _Run:
    """One migration: the ledger, the functions it touches, and the file being applied."""

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
        seed: bool = True,
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
        self.seed = seed  # a scratch warehouse starts as a copy of the functions it touches
        self.ledger = Ledger((warehouse if seed else self.target).store, dialect)
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
        if base is not None and self.target is not self.real and self.seed:
            self.target.committer.commit(ref, None, deep_copy(base.metadata))

    def function_reports(self) -> dict[str, FunctionReport]:
        out: dict[str, FunctionReport] = {}
        warnings, failures = map(issues_by_function, (self.report.warnings, self.report.failures))
        for ref in sorted(self.statements_of):
            self.touch(ref)
            try:
                now = self.target.committer.base(ref)
            except TranslatorError:
                now = None
            name = str(ref)
            out[name] = FunctionReport(
                function=name,
                existed_before=self.existed[ref],
                definitions=definition_summaries(None if now is None else now.metadata),
                metadata_file=None if now is None or self.dry_run else now.path,
                exists_after=now is not None,
                changes=[s for s in self.statements_of[ref] if s.status != "skipped"],
                warnings=warnings.get(name, []),
                failures=failures.get(name, []),
            )
        return out

    # -- one file ----------------------------------------------------------------------------

    def run_file(self, name: str, path: Path) -> FileReport:
        self.file = name
        self.file_report = FileReport(name)
        try:
            text = read_script(path)
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
        if (gone := self.ledger.mismatch(self.file, self.keys_seen)) is not None:
            self.report.warnings.append(gone)
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
                self.file, where.line, where.column, head_line(text[where.offset :]), kind
            )
            self.fail(self.broken, e)
            return complete, where.offset

    def plan(self) -> list[Unit]:
        """Classify every statement; group the function statements to apply into units."""
        namespace = self.namespace
        applied = self.ledger.applied(self.file)
        seen: Counter[tuple[str, str]] = Counter()
        units: list[Unit] = []
        for piece in self.pieces:
            st = StatementReport(
                self.file,
                piece.position.line,
                piece.position.column,
                head_line(piece.text),
                "function" if is_function_ddl(piece) else "other",
            )
            self.file_report.statements.append(st)
            if st.kind == "other":
                namespace = self.other_statement(piece, st, namespace)
                continue
            seen[(namespace, piece.text)] += 1
            lkey = statement_key(namespace, piece.text, seen[(namespace, piece.text)])
            self.keys_seen.add(lkey)
            if lkey in applied:
                st.status = "already-applied"
                st.function = applied[lkey]
                with contextlib.suppress(TranslatorError):
                    self.statements_of[FunctionRef.from_text(applied[lkey])].append(st)
                continue
            try:
                parsed = parse_statement(self.lang, piece)
                if not isinstance(parsed, CreateFunction | DropFunction):  # pragma: no cover
                    raise TranslatorError("not function DDL", piece.position)
                key = function_key(parsed.name)
                ref = FunctionRef.from_parts(parsed.name, namespace)
            except TranslatorError as e:
                if e.position is None:
                    e.position = piece.position
                guessed = guess_ref(piece, self.dialect, namespace)
                if guessed is not None:  # so the function's report lists the failure too
                    st.function = str(guessed)
                    self.statements_of[guessed].append(st)
                self.fail(st, e)
                continue
            st.function = str(ref)
            self.statements_of[ref].append(st)
            if not units or units[-1].namespace != namespace:
                units.append(Unit(namespace))
            units[-1].items.append(Item(piece, st, ref, key, lkey))
        if self.broken is not None:
            self.file_report.statements.append(self.broken)
        return units

    def other_statement(self, piece: StatementText, st: StatementReport, namespace: str) -> str:
        """Skip a statement that is not function DDL; a Spark ``USE`` changes the namespace."""
        words = [t.upper for t in piece.words[:2] if t.kind == "word"]
        st.detail = f"not function DDL ({' '.join(words) or piece.text[:20]})"
        target = self.lang.use_target(piece)
        if target is None:
            return namespace
        if not target:
            st.detail = "USE: does not name a namespace; unqualified names stay in " + namespace
            return namespace
        if not self.lang.use_sets_function_namespace:
            st.detail = (
                f"USE: {self.dialect} keeps unqualified function names in its default function "
                f"schema, not the session's: they stay in namespace {namespace}"
            )
            return namespace
        parts = target[1:] if len(target) > 1 else target
        new = namespace_folder(parts)
        try:
            FunctionRef(new, "x")
        except WarehouseError as e:
            self.fail(st, TranslatorError(f"USE: {e.message}", piece.position))
            return namespace
        st.detail = f"USE: unqualified function names go to namespace {format_name(parts)}"
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
        self, keep: Sequence[Item], namespace: str
    ) -> tuple[ApplyResult | None, list[TranslatorError]]:
        sql = mask(self.text, keep, self.pieces, self.tail)
        # It splits into the kept statements, as they are: the apply need not scan it again.
        remember_split(sql, self.lang.lexical, self.file, [it.piece for it in keep])
        # The journal carries the ledger's entry: linked into the ledger once applied (succeeded)
        carry = None if self.dry_run else entry(self.file, ledger_statements(keep))
        try:
            result = self.target.apply(
                sql,
                self.dialect,
                file=self.file,
                namespace=namespace,
                options=self.options,
                strict=self.strict,
                keep_journal=True,  # cleared once the ledger has the statements (succeeded)
                journal_carry=carry,
            )
        except TranslatorError as e:
            return None, [e]
        return result, list(result.errors)

    def apply_unit(self, unit: Unit) -> None:
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

    def one_by_one(self, items: Sequence[Item], namespace: str) -> None:
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

    def item_at(self, items: Sequence[Item], p: Position | None) -> Item | None:
        if p is None or p.file != self.file:
            return None
        for it in items:
            if it.start <= p.offset <= it.end:
                return it
        return None

    def succeeded(self, items: Sequence[Item], result: ApplyResult) -> None:
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
            self.ledger.record(self.file, ledger_statements(items), result.journal)
            if result.journal is not None:
                result.journal.clear()

    def partly_committed(
        self, items: Sequence[Item], result: ApplyResult, errors: Sequence[TranslatorError]
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

    def warn(self, w: Diagnostic, items: Sequence[Item]) -> None:
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


def _line(issue: Issue) -> tuple[int, int]:
    return (issue.line or 0, issue.column or 0)


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
    replace_discarding_history: bool = False,
) -> MigrationReport:
    """Apply every ``.sql`` file of ``src_dir`` to ``warehouse`` (see the module docstring).

    ``namespace`` takes unqualified names (default: the warehouse's). ``strict`` refuses lossy
    translations (each refused statement is a failure). ``progress`` hears about each file
    before and after it runs. ``source_name`` is how the report names ``src_dir`` (default: as
    given). A failing statement is in the report; only a broken warehouse raises. Into a REST
    catalog: :mod:`.catalog_sync` (``replace_discarding_history`` too).
    """
    if not dry_run:
        warehouse.require_writable("migrate")
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
        Issue(NOT_READ, why, file=rel) for rel, why in unread_sql_files(Path(src_dir))
    ]
    with contextlib.ExitStack() as stack:
        scratch, rest = None, warehouse.rest is not None
        if dry_run or rest:
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
            seed=not rest,
        )
        run.ledger.load()
        for index, path in enumerate(files, 1):
            name = path.name
            if progress is not None:
                progress(ProgressEvent(index, len(files), name))
            failures, warnings = len(report.failures), len(report.warnings)
            with run_scope():  # its plan, lock names and compiles parse each statement once
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
        if rest:
            replace = replace_discarding_history
            sync_to_catalog(report, run.target, warehouse, dry_run, replace)
    return report
