"""The migration report as JSON (for machines), Markdown and HTML (for people). Deterministic:
sorted keys, no clock, so two reports of the same run compare equal."""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Iterable, Iterator, Sequence

from translator.json_text import indented_json
from translator.migrate.report import (
    STATEMENT_STATUSES,
    DefinitionSummary,
    FileReport,
    Issue,
    MigrationReport,
    StatementReport,
)


def report_json(report: MigrationReport) -> str:
    """The report for machines: sorted keys, two-space indent, a trailing newline."""
    return indented_json(report.to_json(), sort_keys=True) + "\n"


SUMMARY_ROWS: tuple[tuple[str, str], ...] = (
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


def verdict(report: MigrationReport) -> str:
    s = report.summary()
    if report.failures:
        text = f"{s['failed']} statement(s) failed; every other statement was applied"
    elif report.status == "unchanged":
        text = "unchanged: every statement was applied before, or changes nothing"
    else:
        text = "every statement was applied"
    return text + (" (dry run: nothing was written)" if report.dry_run else "")


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
    return [f.file, f.status, *(str(counts[k]) for k in ("statements", *STATEMENT_STATUSES))]


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
        f"**{_md(verdict(report))}** (exit status {report.exit_code}).",
        "",
        "## Summary",
        "",
        *_md_table(["", "count"], ([label.strip(), str(s[key])] for key, label in SUMMARY_ROWS)),
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
                f"{verdict(report)} (exit status {report.exit_code}).",
                class_="failed" if report.failures else "ok",
            )
            h.text("h2", "Summary")
            h.table(["", "count"], ([label.strip(), str(s[key])] for key, label in SUMMARY_ROWS))
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
