"""The migration report as HTML and Markdown (``translator.migrate.render``): well formed, and
the SQL it quotes is never markup."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.migrate.helpers import SPARK_DIR, migrate, run_cli, write_dir
from translator.migrate import report_html, report_markdown
from translator.migrate.render import json_text


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


_TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from('\x00\x1f\x7f\t\b\f\n\r"\\/é\u2028'))
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=examples(3000), deadline=None)
@given(_JSON)
def test_report_json_text_is_json_dumps(value: object) -> None:
    """The report is written by pydantic-core where it writes what ``json.dumps`` writes."""
    assert json_text(value) == json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize(
    "value",
    [1.5, {"a": (1, 2)}, {1: "x", 2: {"b": 2}}, ["\ud800"], {"b": [0.1, {"a": float("nan")}]}],
)
def test_report_json_text_of_other_values_is_json_dumps(value: object) -> None:
    assert json_text(value) == json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
