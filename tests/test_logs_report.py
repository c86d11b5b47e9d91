"""The logs report at the audit report's standard: 80 columns in a terminal, a verdict that leads to an action,
host names folded like ids, distinct short names, and an HTML page with dark, print and narrow layouts."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from foretune import __version__
from foretune.report.charts import bars, lines
from foretune.report.logs_html import charts
from foretune.report.short_names import shorten, shorten_all
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


@pytest.mark.parametrize("source", ["capsule-6.2-passenger", "satellite-6.15-overcommitted"])
def test_a_sosreport_s_report_fits_80_columns_snippets_included(source: str) -> None:
    """The 6.2 Capsule's access logs have no %D: the suggested CustomLog is continued on a second line (Apache joins
    a line ending in a backslash with the next), so the snippet fits 80 columns unwrapped."""
    out = run_cli("logs", str(SOSREPORTS / source), environ={"COLUMNS": "80"}).stdout
    # the source path has a line of its own and is never cut (it is copied whole): only a path longer than the width,
    # as in a clone under a long temporary directory, may pass 80 columns, and only on that line
    assert [line for line in out.splitlines() if len(line) > 80 and line.strip() != str(SOSREPORTS / source)] == []
    if source.startswith("capsule"):
        assert '      CustomLog "/var/log/httpd/foreman-ssl_access_duration_ssl.log" \\\n        "%h %l %u %t' in out


def test_verdict_links_what_the_logs_show_to_an_action() -> None:
    out = run_cli("logs", *LOGS, environ={"COLUMNS": "200"}).stdout
    lines_ = out.splitlines()
    at = lines_.index("VERDICT")
    verdict = lines_[at + 2:lines_.index("INCIDENTS")]
    # foreman-ssl_access_ssl.log holds 24 responses 503 in one burst; dmesg and messages 5 OOM kills (java, ruby)
    assert "  critical: 503 bursts (httpd: 24) → run `foretune audit` (rules puma-pool-saturated, " \
           "apache-workers-over-limit (Puma capacity))" in verdict
    assert verdict[0] == "  critical: OOM kills (java, ruby: 5) → run `foretune audit` (rules oom-kills, memory-budget-over-ram)"
    assert at < lines_.index("INCIDENTS")


def test_quiet_logs_say_nothing_asks_for_a_change() -> None:
    out = run_cli("logs", str(FIXTURES / "production-rails7.log")).stdout
    assert "  no incidents in the logs read (production.log): nothing in them asks for a change\n" in out
    assert "  not among the logs given, so not judged: Apache access log, Apache error log, PostgreSQL log, " in out


def test_short_names_stay_distinct() -> None:
    names = ["Katello::Api::V2::RepositoriesController#sync", "Katello::Api::V2::RepositoriesController#index",
             "Katello::Api::V2::ContentViewVersionsController#promote", "Katello::Api::V2::ContentViewsController#publish"]
    assert len({shorten(n, 40) for n in names}) == 4
    # the word Controller goes first (docs/logs.md), before any namespace: 9 + 5 + 4 + 17 = 35 columns fit 40 whole
    assert shorten(names[0], 40) == "Katello::Api::V2::Repositories#sync"
    # then the cut at "::": 9 + 1 + 17 columns, "V2::" back from the end: 31 fit 31, "Api::" more would not
    assert shorten(names[0], 31) == "Katello::…V2::Repositories#sync"
    svg = bars([(n, 1.0) for n in names], title="p95 by action")
    assert "<title>p95 by action</title>" in svg and 'class="chart"' in svg
    # 46 columns: without the word Controller the name is 9 + 5 + 4 + 27 = 45 columns: whole
    assert ">Katello::Api::V2::ContentViewVersions#promote<" in svg
    chart = lines([("requests/min", [1, 2])], labels=["10:00", "10:01"], title="requests per minute")
    assert "<title>requests per minute</title>" in chart and "font:13px" in chart


def test_short_names_keep_the_controller_and_its_action() -> None:
    """Cut to 20 or 16 columns, a Rails action keeps its controller: the word "Controller" goes before a namespace
    word does; of names that would come out alike, one takes its next form, so they stay distinct."""
    assert shorten("Api::V2::HostsController#index", 20) == "Api::V2::Hosts#index"
    assert shorten("Api::V2::HostsController#index", 16) == "…V2::Hosts#index"
    assert shorten("Katello::Api::Rhsm::CandlepinProxiesController#facts", 24) == "…CandlepinProxies#facts"
    alike = ["Katello::Api::V2::HostsController#index", "Foreman::Api::V2::HostsController#index"]
    assert [shorten(n, 16) for n in alike] == ["…V2::Hosts#index", "…V2::Hosts#index"]
    short = shorten_all(alike, 16)
    assert sorted(short) == ["…Hosts#index", "…V2::Hosts#index"]


def test_a_name_that_cannot_keep_its_controller_gets_a_line_of_its_own() -> None:
    """At 80 columns the action column is 20 wide: Katello's CandlepinProxiesController#consumer_activate cannot keep
    its controller there, so the terminal prints it whole above its figures; a short one stays in its column."""
    out = run_cli("logs", str(FIXTURES / "production-registration.log"), environ={"COLUMNS": "80"}).stdout
    lines_ = out.splitlines()
    at = lines_.index("    Katello::Api::Rhsm::CandlepinProxiesController#consumer_activate")
    assert lines_[at + 1] == "                               4       57.0   3,011   9,000   9,000   9,000    1"
    assert "    Api::V2::Hosts#index       1        1.5     480     480     480     480    0" in lines_
    assert [line for line in lines_ if len(line) > 80] == []


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
    assert f'<p class="meta-line">Generated 2025-07-01 09:00 UTC by foretune {TEST_VERSION}</p>' in html
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


_OVERLAPPING_LABELS = (
    "[...document.querySelectorAll('svg.chart')].map(svg => { const boxes = [...svg.querySelectorAll('text')]"
    ".map(t => t.getBoundingClientRect()).filter(r => r.width > 0); let n = 0;"
    " for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) { const a = boxes[i], b = boxes[j];"
    " if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) n++; }"
    " return n; }).reduce((x, y) => x + y, 0)")


@pytest.mark.parametrize("width", [1400, 400])
def test_no_chart_label_is_drawn_over_another(logs_page: Path, width: int) -> None:
    """Time-axis labels, the legend (the Puma capacity's line included), titles and values: no two overlap, at the
    ends of the time axis either, on a wide page or a phone."""
    page = open_page(logs_page, width=width, evaluate={"overlaps": _OVERLAPPING_LABELS,
                                                       "charts": "document.querySelectorAll('svg.chart').length"})
    assert page.values["charts"] > 10 and page.values["overlaps"] == 0


def test_the_puma_capacity_is_a_legend_line_not_a_label_over_the_plot() -> None:
    svg = lines([("peak concurrent requests", [3.0, 1.0, 1.0])], labels=["10:00", "10:01", "10:02"],
                limit=("Puma capacity", 3.0), title="concurrency per minute")
    # the second legend line, under the series' line (y 30): a dashed swatch and the capacity's name and value
    assert '<text x="68" y="44">Puma capacity 3 (dashed)</text>' in svg
    assert svg.count("Puma capacity") == 2 and 'class="limit"' in svg  # the legend, and the description:
    assert "<desc>peak concurrent requests: peak 3 at 10:00; Puma capacity 3; from 10:00 to 10:02</desc>" in svg


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
    # messages-mosquitto: mosquitto refused connections, and the logs do not say its limit: the drop-in comes first
    assert text[at + 2].startswith("  1. Raise mosquitto's LimitNOFILE to 2,048: paste the drop-in under Fixes")
    assert text[at + 3].startswith("  2. Run `foretune audit` on the box or its sosreport")
    assert text[-1] == "  4. After a change, compare a day before with a day after: `foretune logs --compare --window BEFORE --window AFTER`."
    md = run_cli("logs", *LOGS, "--format", "markdown").stdout
    assert md.rstrip().endswith("4. After a change, compare a day before with a day after: "
                                "`foretune logs --compare --window BEFORE --window AFTER`.")
    quiet = run_cli("logs", str(FIXTURES / "production-rails7.log")).stdout.splitlines()
    assert quiet[quiet.index("WHAT NEXT") + 2].startswith("  1. After a change, compare")  # no incident to audit


_OVERFLOWING_TABLES = ("[...document.querySelectorAll('table')].filter(t => t.scrollWidth > t.clientWidth + 1)"
                       ".map(t => t.scrollWidth).length")


def test_action_names_wrap_whole_in_the_400_px_cards(logs_page: Path) -> None:
    """On a phone each row is a card: a Rails action longer than the card wraps, so the end that tells
    ...CandlepinProxiesController#consumer_create from #server_status is on screen, not scrolled off."""
    assert "Katello::Api::Rhsm::CandlepinProxiesController#" in logs_page.read_text(encoding="utf-8")
    page = open_page(logs_page, width=400, evaluate={"over": _OVERFLOWING_TABLES})
    assert page.values["over"] == 0


def test_logs_tables_fit_a_1400_px_page_without_sideways_scrolling(logs_page: Path) -> None:
    page = open_page(logs_page, width=1400, evaluate={"over": _OVERFLOWING_TABLES})
    assert page.values["over"] == 0  # long action names wrap inside their cell


def test_plan_tables_show_every_column_at_400_px(tmp_path: Path) -> None:
    """At 400 px each plan row is a card: every cell visible under its column's name, no table wider than the page."""
    page_file = tmp_path / "plan.html"
    assert run_cli("plan", "--product", "satellite", "--version", "6.15", "--hosts", "12000", "--cpus", "16", "--ram", "64G",
                   "--output", str(page_file)).status == 0
    html = page_file.read_text(encoding="utf-8")
    assert '<td data-label="tunable"><code>puma.<wbr>workers</code></td>' in html
    hidden = ("[...document.querySelectorAll('td')].filter(td => { const r = td.getBoundingClientRect(); "
              "return r.width > 0 && (r.right > document.documentElement.clientWidth + 1 || r.left < 0); }).length")
    page = open_page(page_file, width=400, evaluate={"over": _OVERFLOWING_TABLES, "hidden": hidden})
    assert (page.values["over"], page.values["hidden"]) == (0, 0)


def test_a_line_charts_legend_sits_under_its_title() -> None:

    svg = lines([("requests/min", [1, 2]), ("5xx/min", [0, 1])], title="production-registration.log: requests per minute")
    ys = [int(y) for y in re.findall(r'<text x="48" y="(\d+)"', svg)[:1]] + [int(y) for y in re.findall(r'<text x="68" y="(\d+)"', svg)]
    assert ys == [14, 30, 44]  # title, then one legend line a series, each below the one before
    # each legend line: the series' colour as a swatch, then its name
    assert re.findall(r'<rect x="48" y="\d+" width="14" height="4" fill="(#[0-9a-f]+)"/><text x="68" y="\d+">([^<]+)</text>', svg) == [
        ("#2e86c1", "requests/min"), ("#c0392b", "5xx/min")]


def test_a_line_chart_has_a_time_axis_with_ticks() -> None:
    """One label per minute: ticks at up to 6 minutes, first and last included, and the axis named."""
    minutes = [f"2024-05-13T08:{m:02d}" for m in range(21)]
    rows = [[m, float(i), 0, 1] for i, m in enumerate(minutes)]
    svg = charts({"production": [{"log": "production.log", "per_minute": rows, "concurrency": {"capacity": None},
                                  "actions": []}]})["Foreman production.log"][0]
    shown = re.findall(r'text-anchor="(?:start|middle|end)">((?:2024-05-13 )?08:\d\d)</text>', svg)
    # the date once, on the first tick; the others the time of day alone
    assert shown == ["2024-05-13 08:00", "08:04", "08:08", "08:12", "08:16", "08:20"]
    assert "time (one point a minute, as the log writes it)" in svg


def test_a_thinned_line_chart_says_what_a_point_is() -> None:
    """A day and a bit of minutes is more than the 720 points a chart draws: a point is the busiest of 3 minutes."""
    rows = [[f"2024-05-13T{m // 60 % 24:02d}:{m % 60:02d}", 1.0, 0, 1] for m in range(1441)]
    svg = charts({"production": [{"log": "production.log", "per_minute": rows, "concurrency": {"capacity": None},
                                  "actions": []}]})["Foreman production.log"][0]
    assert ">time (one point per 3 logged minutes, the highest of them)</text>" in svg and "a minute" not in svg


EXAMPLE = REPO / "examples" / "sosreport-satellite-6.15-mistuned"
SOSREPORTS = REPO / "tests" / "fixtures" / "sosreports"


def test_a_task_export_alone_gets_no_verdict_of_no_incidents() -> None:
    """The example sosreport holds a task export and no production.log, Apache, PostgreSQL, Candlepin or system log:
    the report says which logs it did not find and claims nothing about them; exit 0, a log of Foreman's was read."""
    result = run_cli("logs", str(EXAMPLE), environ={"COLUMNS": "400"})
    assert result.status == 0, result.stderr
    lines_ = result.stdout.splitlines()
    verdict = lines_[lines_.index("VERDICT") + 2:lines_.index("INCIDENTS") - 1]
    assert verdict == ["  no incidents can be seen: no production.log, Apache access log, Apache error log, PostgreSQL log, "
                       "Candlepin log or system log in this source; only the task export was read"]
    assert lines_[lines_.index("INCIDENTS") + 2] == "  none can be found in a task export alone"
    assert "no incidents:" not in result.stdout and "none found" not in result.stdout
    assert lines_[lines_.index("WHAT NEXT") + 2] == (
        "  1. Read the request logs this source lacks: `foretune logs` on the box reads them in place, or name them: "
        "`foretune logs /var/log/foreman/production.log* /var/log/httpd/`.")
    markdown = run_cli("logs", str(EXAMPLE), "--format", "markdown").stdout
    assert "- no incidents can be seen: no production.log, Apache access log" in markdown
    assert "only the task export was read</li>" in run_cli("logs", str(EXAMPLE), "--format", "html").stdout
    data = json.loads(run_cli("logs", str(EXAMPLE), "--format", "json").stdout)
    assert data["not_found"] == ["production", "apache_access", "apache_error", "postgresql", "candlepin", "system"]


def test_logs_not_in_a_source_are_named_beside_what_was_found() -> None:
    """The overcommitted 6.15 box's sosreport has production.log, PostgreSQL's log and messages, no Apache or
    Candlepin log; a 6.2 Capsule's has Apache logs only, and a Capsule writes no production.log, Candlepin or task log."""
    out = run_cli("logs", str(SOSREPORTS / "satellite-6.15-overcommitted"), environ={"COLUMNS": "400"}).stdout
    lines_ = out.splitlines()
    verdict = lines_[lines_.index("VERDICT") + 2:lines_.index("INCIDENTS") - 1]
    source = SOSREPORTS / "satellite-6.15-overcommitted"
    assert verdict[0] == f"  critical: OOM kills (ruby: 1) → run `foretune audit {source}` (rules oom-kills, memory-budget-over-ram)"
    assert f"  1. Run `foretune audit {source}`: the rules the verdict names judge" in out
    assert verdict[-1] == "  not in this source, so not judged: Apache access log, Apache error log, Candlepin log"
    capsule = run_cli("logs", str(SOSREPORTS / "capsule-6.2-passenger"), environ={"COLUMNS": "400"}).stdout
    assert "  not in this source, so not judged: PostgreSQL log, system log\n" in capsule


@pytest.mark.parametrize(("source", "product"), [
    (EXAMPLE, "Satellite 6.15 (Foreman 3.9), server"),
    (SOSREPORTS / "capsule-6.2-passenger", "Satellite 6.2 (Foreman 1.11), capsule"),
])
def test_the_logs_header_names_product_release_and_role_as_the_audit_does(source: Path, product: str) -> None:
    text = run_cli("logs", str(source)).stdout.splitlines()
    assert text[2] == f"  product: {product}"
    audit = run_cli("audit", str(source), "--hosts", "500").stdout
    assert f"\nProduct   {product}\n" in audit  # the same words as the audit's header
    assert f"\nproduct: {product}\n" in run_cli("logs", str(source), "--format", "markdown").stdout
    assert f"<p>product: {product}</p>" in run_cli("logs", str(source), "--format", "html").stdout
    data = json.loads(run_cli("logs", str(source), "--format", "json").stdout)
    assert ", ".join((data["release"], data["role"])) == product
    named = json.loads(run_cli("logs", str(FIXTURES / "production-rails7.log"), "--format", "json").stdout)
    assert "release" not in named  # log files alone name no product


def test_logging_suggestions_give_one_custom_hiera_snippet_under_its_file() -> None:
    """Two PostgreSQL suggestions (the overcommitted box's log has no %p and no duration lines) are one snippet: pasted
    as two, the second postgresql::server::config_entries would replace the first."""
    import yaml

    out = run_cli("logs", str(SOSREPORTS / "satellite-6.15-overcommitted"), environ={"COLUMNS": "80"}).stdout
    part = out[out.index("LOGGING CHANGES"):out.index("WHAT NEXT")]
    block = [line[6:] for line in part[part.index("      # /etc/foreman-installer"):].rstrip().splitlines()]
    assert block[:2] == ["# /etc/foreman-installer/custom-hiera.yaml",
                         "# merge, do not append: a key the file has takes these lines under it"]
    assert part.count("postgresql::server::config_entries:") == 1
    assert yaml.safe_load("\n".join(block)) == {"postgresql::server::config_entries": {
        "log_line_prefix": "%t [%p] ", "log_min_duration_statement": 1000}}
    assert "then run `satellite-installer`: it applies custom-hiera.yaml" in " ".join(out.split())


def test_a_sosreport_is_named_with_its_collection_date_and_the_version() -> None:
    source = SOSREPORTS / "satellite-6.15-overcommitted"
    text = run_cli("logs", str(source)).stdout.splitlines()
    assert text[0] == f"foretune logs — {source}"  # the sosreport, not "4 files in ."
    assert text[1:5] == ["  host: sat615b.example.com", "  product: Satellite 6.15 (Foreman 3.9), server",
                         "  collected: 2024-05-13 09:30 UTC", f"  foretune: {__version__}"]
    markdown = run_cli("logs", str(source), "--format", "markdown").stdout
    assert f"# foretune logs — {source}\n" in markdown and "\ncollected: 2024-05-13 09:30 UTC\n" in markdown
    assert json.loads(run_cli("logs", str(source), "--format", "json").stdout)["collected_at"] == "2024-05-13 09:30 UTC"


def test_a_passenger_box_is_sent_to_the_passenger_rules() -> None:
    """The 6.2 Capsule runs Passenger, not Puma: its queue-full and 503 incidents lead to the rules that judge the
    Passenger queue (its audit fails passenger-queue-too-small), never to the Puma ones the audit skips there."""
    source = SOSREPORTS / "capsule-6.2-passenger"
    out = run_cli("logs", str(source), environ={"COLUMNS": "400"}).stdout
    lines_ = out.splitlines()
    verdict = lines_[lines_.index("VERDICT") + 2:lines_.index("INCIDENTS") - 1]
    assert verdict[:2] == [
        f"  critical: 503 bursts (httpd: 25) → run `foretune audit {source}` (rules passenger-queue-too-small, "
        "passenger-queue-saturated (Passenger queue))",
        f"  critical: Passenger queue full (passenger: 15) → run `foretune audit {source}` (rules "
        "passenger-queue-too-small, passenger-queue-saturated)"]
    assert "puma" not in "\n".join(verdict)
    audit = json.loads(run_cli("audit", str(source), "--format", "json").stdout)
    assert {f["rule"]: f["status"] for f in audit["findings"]}["passenger-queue-too-small"] == "fail"
