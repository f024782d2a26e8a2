"""The migration report as HTML and Markdown (``translator.migrate.render``): well formed, and
the SQL it quotes is never markup."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.migrate.helpers import SPARK_DIR, migrate, run_cli, write_dir
from translator.migrate import report_html, report_markdown


class _Checker(HTMLParser):
    """Every element closed, in order; void elements need no end tag."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "link"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []
        self.seen: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (tag, self.stack)
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_report_is_well_formed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "r.html"
    code, _, _ = run_cli(
        capsys,
        "migrate",
        "--dialect",
        "spark",
        str(SPARK_DIR),
        "--warehouse",
        str(tmp_path / "wh"),
        "--report-html",
        str(page),
    )
    assert code == 1
    html_text = page.read_text()
    assert html_text.startswith("<!DOCTYPE html>")
    checker = _Checker()
    checker.feed(html_text)
    checker.close()
    assert checker.stack == []
    assert checker.seen[:3] == ["html", "head", "meta"]
    text = "".join(checker.text)
    assert "10_pricing_v2.sql:22:1" in text and "function discount_rate does not exist" in text
    assert "Spark VARCHAR(20) is stored as Iceberg string" in text
    assert "Untranslatable bodies" in text
    # Text from the SQL is escaped, never markup.
    assert "<'" not in html_text


def test_reports_escape_what_they_quote(tmp_path: Path) -> None:
    src = write_dir(
        tmp_path / "src",
        {"1.sql": "CREATE FUNCTION `a|b<i>`() RETURNS INT RETURN 1;\nDROP FUNCTION `x|<b>`;\n"},
    )
    report = migrate(src, tmp_path / "wh", "spark")
    md = report_markdown(report)
    assert "function x\\|\\<b\\> does not exist" in md
    page = report_html(report)
    assert "<b>" not in page and "&lt;b&gt;" in page
    checker = _Checker()
    checker.feed(page)
    assert checker.stack == []
