"""The logs report at the audit report's standard: 80 columns in a terminal, a verdict that leads to an action,
host names folded like ids, distinct short names, and an HTML page with dark, print and narrow layouts."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from foretune import __version__
from foretune.report.charts import bars, lines, shorten
from tests.conftest import REPO, run_cli
from tests.support.chromium import open_page
from tests.test_html_report import FIXED_TIME, TEST_VERSION, _compare

FIXTURES = REPO / "tests" / "logs" / "fixtures"
LOGS = sorted(str(p) for p in FIXTURES.iterdir())


def test_terminal_text_fits_80_columns() -> None:
    out = run_cli("logs", *LOGS, environ={"COLUMNS": "80"}).stdout
    assert len(out.splitlines()) > 100
    assert [line for line in out.splitlines() if len(line) > 80] == []
    assert out.splitlines()[0] == "foretune logs — 17 files in " + os.path.relpath(FIXTURES) if not LOGS[0].startswith("/") \
        else out.splitlines()[0] == f"foretune logs — 17 files in {FIXTURES}"


def test_verdict_links_what_the_logs_show_to_an_action() -> None:
    out = run_cli("logs", *LOGS, environ={"COLUMNS": "200"}).stdout
    lines_ = out.splitlines()
    at = lines_.index("VERDICT")
    verdict = lines_[at + 2:lines_.index("INCIDENTS")]
    # foreman-ssl_access_ssl.log holds 24 responses 503 in one burst; dmesg and messages 5 OOM kills (java, ruby)
    assert "  503 bursts (httpd: 24) -> run `foretune audit` (rules puma-pool-saturated, apache-workers-over-limit " \
           "(Puma capacity))" in verdict
    assert verdict[0] == "  OOM kills (java, ruby: 5) -> run `foretune audit` (rules oom-kills, memory-budget-over-ram)"
    assert at < lines_.index("INCIDENTS")


def test_quiet_logs_say_nothing_asks_for_a_change() -> None:
    out = run_cli("logs", str(FIXTURES / "production-rails7.log")).stdout
    assert "  no incidents: nothing in these logs asks for a change" in out


def test_short_names_stay_distinct() -> None:
    names = ["Katello::Api::V2::RepositoriesController#sync", "Katello::Api::V2::RepositoriesController#index",
             "Katello::Api::V2::ContentViewVersionsController#promote", "Katello::Api::V2::ContentViewsController#publish"]
    assert len({shorten(n, 40) for n in names}) == 4
    assert shorten(names[0], 40) == "Katello::Api…RepositoriesController#sync"  # 12 + 1 + 27 columns
    svg = bars([(n, 1.0) for n in names], title="p95 by action")
    assert "<title>p95 by action</title>" in svg and 'class="chart"' in svg
    assert "Katello:…ContentViewVersionsController#promote" in svg  # 46 columns: 8 + 1 + 37
    chart = lines([("requests/min", [1, 2])], labels=["10:00", "10:01"], title="requests per minute")
    assert "<title>requests per minute</title>" in chart and "font:13px" in chart


@pytest.fixture(scope="module")
def logs_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = tmp_path_factory.mktemp("logs") / "logs.html"
    cwd = Path.cwd()
    os.chdir(REPO)
    try:
        relative = [os.path.relpath(p, REPO) for p in LOGS]
        assert run_cli("logs", *relative, "--output", str(page), environ={"SOURCE_DATE_EPOCH": FIXED_TIME}).status == 0
    finally:
        os.chdir(cwd)
    page.write_text(page.read_text(encoding="utf-8").replace(f"foretune {__version__}", f"foretune {TEST_VERSION}"),
                    encoding="utf-8")
    return page


def test_logs_page_names_its_source_version_and_time(logs_page: Path) -> None:
    html = logs_page.read_text(encoding="utf-8")
    assert "<h1>foretune logs — 17 files in tests/logs/fixtures</h1>" in html
    assert f'<p class="meta-line">Generated 2023-11-14 22:13 UTC by foretune {TEST_VERSION}</p>' in html
    assert "prefers-color-scheme:dark" in html and "@media print" in html


@pytest.mark.parametrize(("width", "scheme", "media"), [(1400, "light", "screen"), (1400, "dark", "screen"),
                                                      (400, "light", "screen"), (400, "dark", "screen"), (1400, "light", "print")])
def test_logs_page_screenshots_match_the_reviewed_references(logs_page: Path, width: int, scheme: str, media: str) -> None:
    page = open_page(logs_page, width=width, height=1400, scheme=scheme, media=media, screenshot=True,
                     evaluate={"background": "getComputedStyle(document.body).backgroundColor",
                               "width": "document.documentElement.scrollWidth"})
    assert page.console_errors == [] and page.requests == [logs_page.resolve().as_uri()]
    assert page.values["background"] == ("rgb(21, 25, 29)" if (scheme, media) == ("dark", "screen") else "rgb(255, 255, 255)")
    assert page.values["width"] <= width  # tables and charts scroll inside themselves
    _compare(f"logs-{scheme}-{media}-{width}", page.screenshot)


def test_a_suggestion_names_its_source_by_title() -> None:
    out = run_cli("logs", str(FIXTURES / "postgresql-Mon.log"), environ={"COLUMNS": "400"}).stdout
    # the log lines have no %p: the suggestion cites the PostgreSQL documentation by its title, not its id
    assert ("(source: PostgreSQL documentation, Error Reporting and Logging: log_line_prefix escapes and "
            "log_min_duration_statement)") in out
    assert "[postgresql-log-line-prefix]" not in out


def test_a_sosreport_names_its_host_in_every_format() -> None:
    example = str(REPO / "examples" / "sosreport-satellite-6.15-mistuned")
    text = run_cli("logs", example).stdout.splitlines()
    assert text[1] == "  host: satellite.example.com"  # the example's hostname file
    assert "host: satellite.example.com" in run_cli("logs", example, "--format", "markdown").stdout
    assert "<p>host: satellite.example.com</p>" in run_cli("logs", example, "--format", "html").stdout
    assert '"host": "satellite.example.com"' in run_cli("logs", example, "--format", "json").stdout


def test_every_format_ends_with_what_next() -> None:
    text = run_cli("logs", *LOGS).stdout.splitlines()
    at = text.index("WHAT NEXT")
    assert text[at + 2].startswith("  1. Run `foretune audit` on the box or its sosreport")
    assert text[-1] == "  3. After a change, compare a day before with a day after: `foretune logs --compare --window BEFORE --window AFTER`."
    md = run_cli("logs", *LOGS, "--format", "markdown").stdout
    assert md.rstrip().endswith("3. After a change, compare a day before with a day after: "
                                "`foretune logs --compare --window BEFORE --window AFTER`.")
    quiet = run_cli("logs", str(FIXTURES / "production-rails7.log")).stdout.splitlines()
    assert quiet[quiet.index("WHAT NEXT") + 2].startswith("  1. After a change, compare")  # no incident to audit


_OVERFLOWING_TABLES = ("[...document.querySelectorAll('table')].filter(t => t.scrollWidth > t.clientWidth + 1)"
                       ".map(t => t.scrollWidth).length")


def test_logs_tables_fit_a_1400_px_page_without_sideways_scrolling(logs_page: Path) -> None:
    page = open_page(logs_page, width=1400, evaluate={"over": _OVERFLOWING_TABLES})
    assert page.values["over"] == 0  # long action names wrap inside their cell


def test_plan_tables_show_every_column_at_400_px(tmp_path: Path) -> None:
    """At 400 px each plan row is a card: every cell visible under its column's name, no table wider than the page."""
    page_file = tmp_path / "plan.html"
    assert run_cli("plan", "--product", "satellite", "--version", "6.15", "--hosts", "12000", "--cpus", "16", "--ram", "64G",
                   "--output", str(page_file)).status == 0
    html = page_file.read_text(encoding="utf-8")
    assert '<td data-label="tunable"><code>puma.workers</code></td>' in html
    hidden = ("[...document.querySelectorAll('td')].filter(td => { const r = td.getBoundingClientRect(); "
              "return r.width > 0 && (r.right > document.documentElement.clientWidth + 1 || r.left < 0); }).length")
    page = open_page(page_file, width=400, evaluate={"over": _OVERFLOWING_TABLES, "hidden": hidden})
    assert (page.values["over"], page.values["hidden"]) == (0, 0)


def test_a_line_charts_legend_sits_under_its_title() -> None:

    svg = lines([("requests/min", [1, 2]), ("5xx/min", [0, 1])], title="production-registration.log: requests per minute")
    ys = [int(y) for y in re.findall(r'<text x="48" y="(\d+)"', svg)[:3]]
    assert ys == [14, 30, 44]  # title, then one legend line a series, each below the one before
