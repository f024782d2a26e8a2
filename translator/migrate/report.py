"""The migration report: what became of each file, statement and function.

Plain data with a ``to_json`` each; :mod:`translator.migrate.render` writes it as JSON,
Markdown or HTML."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from translator.errors import expected_text
from translator.merge import Change
from translator.metadata import SqlRepresentation, UdfMetadata

REPORT_FORMAT_VERSION = 1

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
            **{s: self.count(s) for s in STATEMENT_STATUSES},
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


STATEMENT_STATUSES: tuple[StatementStatus, ...] = (
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


def definition_summaries(meta: UdfMetadata | None) -> list[DefinitionSummary]:
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


def issues_by_function(issues: Iterable[Issue]) -> dict[str | None, list[Issue]]:
    """The issues of each function, in order: one pass, so that the reports of a migration
    cost time linear in its size, not functions x warnings."""
    out: dict[str | None, list[Issue]] = defaultdict(list)
    for issue in issues:
        out[issue.function].append(issue)
    return out
