"""The HTML audit report in headless Chromium: no console errors, no network, light/dark/print screenshots
against reviewed references, readable at 400 px, copy buttons that degrade, and a PDF with every fix.

References live in docs/screenshots/ (they double as the reports' pictures in the docs). After a deliberate change of the report's look, rewrite them with
``FORETUNE_UPDATE_SCREENSHOTS=1 .venv/bin/python -m pytest tests/test_html_report.py`` and look at each one
before committing it.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from foretune import __version__
from tests.conftest import REPO, run_cli
from tests.support.chromium import chromium, click_copy_buttons, open_page

EXAMPLE = "examples/sosreport-satellite-6.15-mistuned"
REFERENCES = REPO / "docs" / "screenshots"
# The screenshots (docs pictures too) show one fixed generation time and version, so they stay the same from build to
# build and read as a real report: a time after every fixture's data (the example was collected 2024-02-12, the log
# fixtures end 2025-06-23) and the release the references were reviewed at, not the version of the build under test.
FIXED_TIME = "1751360400"  # 2025-07-01 09:00 UTC
TEST_VERSION = "0.1.0"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's report with a fixed generation time and version text, so screenshots are stable."""
    page = tmp_path_factory.mktemp("html") / "audit.html"
    cwd = Path.cwd()
    os.chdir(REPO)  # the header shows the source path as given
    try:
        result = run_cli("audit", EXAMPLE, "--format", "html", "--output", str(page), environ={"SOURCE_DATE_EPOCH": FIXED_TIME})
    finally:
        os.chdir(cwd)
    assert result.status == 1, result.stderr
    page.write_text(page.read_text(encoding="utf-8").replace(f"foretune {__version__}", f"foretune {TEST_VERSION}"),
                    encoding="utf-8")
    return page


def audit_json() -> dict[str, object]:
    out = run_cli("audit", str(REPO / EXAMPLE), "--format", "json")
    return dict(json.loads(out.stdout))


def test_header_names_host_date_product_profile_version_and_time(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    assert "<dt>Host</dt><dd>satellite.example.com</dd>" in html
    assert "<dt>Collected</dt><dd>2024-02-12 10:14 UTC (sosreport examples/sosreport-satellite-6.15-mistuned)</dd>" in html
    assert "<dt>Product</dt><dd>Satellite 6.15 (Foreman 3.9), server</dd>" in html
    assert ("<dt>Managed hosts</dt><dd>15120 managed hosts (counted in var/lib/foreman-maintain/satellite_metrics.yml); "
            "63.8 GiB RAM</dd>") in html
    # the declared profile, and the one 15120 hosts need (large: 10001-20000 hosts in the guide's table)
    assert ("<dt>Profile</dt><dd>default (declared: the installer&#39;s tuning fact); 15120 hosts need the large "
            "profile</dd>") in html
    assert "plan profile" not in html.lower() and "epoch" not in html.lower()
    assert f"<dt>Generated</dt><dd>2025-07-01 09:00 UTC by foretune {TEST_VERSION}</dd>" in html


def test_one_file_that_loads_nothing(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    assert not re.search(r"""\bsrc=|<link\b|@import|url\(""", html), "the report must not load anything"
    page = open_page(report)
    assert page.requests == [report.resolve().as_uri()]
    assert page.console_errors == []


def test_citations_link_where_a_public_address_exists(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    from foretune.knowledge import citations

    assert ('<li><a href="https://docs.theforeman.org/nightly/Tuning_Performance/index-katello.html" rel="noreferrer">'
            "Foreman tuning guide: 5.3.1 open files limit for Apache httpd (LimitNOFILE=640000)</a>" in html)
    assert not citations()["g62-apache"].url  # the 2017 performance brief has no public address
    assert "<li>Satellite 6.2 performance brief: Apache configuration (KeepAlive On" in html


def test_charts_show_the_budgets_and_the_findings(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    assert html.count('<svg class="chart"') == 3  # one memory figure, connections, findings
    # memory, one scale against RAM (the example's meminfo: MemTotal 66924544 kB = 63.8 GiB, MemAvailable 2621440 kB,
    # SwapTotal 4194300 - SwapFree 2621436 = 1572864 kB = 1.5 GiB of swap in use). The box swaps: the chart says it is
    # short of memory in its first line, in the warning colour, naming the findings that say so
    memory = html[html.index("<figcaption>Memory:"):]
    memory = memory[:memory.index("</figure>")]
    assert '<text class="headline over" x="0" y="16" text-anchor="start">short of memory: 2.5 GiB of 63.8 GiB available</text>' in memory
    assert ">1.5 GiB swap in use</text>" in memory and ">see memory-budget-over-ram, swap-in-use</text>" in memory
    # the plan the box needs: the large profile its 15120 hosts need (Puma 18 workers x 1 GiB), which is the memory
    # finding's recommended value, not the RAM
    assert ">the plan this box needs (large profile): 41.5 GiB</text>" in memory
    assert ">Foreman (Puma): 18.0 GiB plan, 40.0 GiB in force</text>" in memory
    # in force: the budget memory-budget-over-ram counts ("about 53.8 GiB"): OS floor 1.5 + httpd 0.7 + Puma 40 workers
    # in force x 1 GiB (the guide's high end) 40 + Sidekiq 2.8 + orchestrator 0.4 + PostgreSQL with 512MB shared_buffers
    # in force 1.6 + Candlepin -Xms 1 GiB .. -Xmx 2 GiB in force 2 + pulpcore 1.8 and gunicorn 2.5 + Redis 0.3 + Smart
    # Proxy 0.25; measured: 66924544 - 2621440 kB = 61.3 GiB in use, 2.5 GiB available, 1.5 GiB of swap past the RAM
    assert ">the services in force: 53.8 GiB</text>" in memory and ">measured: 65.3 GiB</text>" in memory
    assert ">in use (RAM less MemAvailable): 61.3 GiB measured</text>" in memory
    assert ">available (MemAvailable): 2.5 GiB measured</text>" in memory and ">swap in use: 1.5 GiB measured</text>" in memory
    assert 'class="mem-swap"' in memory and "22.3 GiB" not in memory  # never the declared default profile's plan
    finding = next(f for f in audit_json()["findings"] if f["rule"] == "memory-budget-over-ram")  # type: ignore[union-attr]
    assert "budget about 53.8 GiB" in finding["message"]
    # its values: what the box measures in use ((66924544 - 2621440 + 1572864) kB), and the large plan's budget (the
    # one plan --from gives), never the RAM (66924544 kB = 68530733056 bytes)
    assert finding["current"] == (66924544 - 2621440 + 1572864) * 1024
    plan = json.loads(run_cli("plan", "--from", str(REPO / EXAMPLE), "--format", "json").stdout)
    assert plan["profile"]["name"] == "large"
    assert finding["recommended"] == plan["memory_budget"]["total_bytes"] != 68530733056
    assert "(the plan's settings need about 41.5 GiB)" in finding["message"]
    # connections in force (pg-max-connections-below-budget): Puma 40 workers x the pool in force (database.yml
    # pool: 5) = 200, Sidekiq 1 x (15 + 2) + orchestrator (1 + 2) = 20, hosts queue 3, Candlepin 25, pulpcore 16
    # workers x 2 + 22 gunicorn = 54, container gateway 4, superuser_reserved_connections 3: 309, against the 500 in
    # force (the 909 of a pool of 16 threads + 4 is the figure after foreman-db-pool-too-small's fix, not now)
    assert "309 of 500 max_connections in force" in html
    # the example runs 40 Puma workers (pumactl stats) with a pool of 5: each part says its formula and source
    assert "Puma 40 workers x database.yml pool 5, from pumactl stats 200" in html
    # findings by component (the fixture's mistuning): PostgreSQL's work_mem 4MB (low); the connections below the
    # budget in force, shared_buffers 512MB, effective_cache_size and the autovacuum cost limit are values --tuning
    # large writes, listed under profile-too-small-for-hosts (hardware); Pulp on NFS and /var/lib/pgsql 7 % free
    # (medium), PostgreSQL on a rotational disk (low)
    assert "postgresql 1 low; proxy 1 medium; pulp 1 medium; puma 1 medium, 1 low; storage 2 medium, 1 low" in html

def small_png(png: bytes) -> bytes:
    """``png`` as a 256-colour palette PNG: a third of the size, and within the comparison's tolerance of the original
    (the references are docs pictures too)."""
    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                                                                  dither=Image.Dither.NONE)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _compare(name: str, png: bytes) -> None:
    reference = REFERENCES / f"{name}.png"
    if os.environ.get("FORETUNE_UPDATE_SCREENSHOTS"):
        reference.parent.mkdir(parents=True, exist_ok=True)
        reference.write_bytes(small_png(png))
    actual = Image.open(io.BytesIO(png)).convert("RGB")
    expected = Image.open(reference).convert("RGB")
    assert actual.size == expected.size, f"{name}: {actual.size} != reference {expected.size}"
    diff = ImageChops.difference(actual, expected).convert("L").point(lambda v: 255 if v > 48 else 0)
    changed = sum(diff.histogram()[255:]) / (actual.width * actual.height)
    assert changed < 0.01, f"{name}: {changed:.2%} of pixels differ from {reference.name}"


@pytest.mark.parametrize(("width", "scheme", "media"), [(1400, "light", "screen"), (1400, "dark", "screen"),
                                                      (400, "light", "screen"), (400, "dark", "screen"), (1400, "light", "print")])
def test_screenshots_match_the_reviewed_references(report: Path, width: int, scheme: str, media: str) -> None:
    page = open_page(report, width=width, height=1400, scheme=scheme, media=media, screenshot=True,
                     evaluate={"background": "getComputedStyle(document.body).backgroundColor",
                               "width": "document.documentElement.scrollWidth"})
    assert page.console_errors == []
    assert page.values["background"] == ("rgb(21, 25, 29)" if (scheme, media) == ("dark", "screen") else "rgb(255, 255, 255)")
    assert page.values["width"] <= width  # no sideways scrolling, 400 px included
    _compare(f"audit-{scheme}-{media}-{width}", page.screenshot)


def test_print_opens_every_rule_without_javascript(report: Path) -> None:
    hidden = ("[...document.querySelectorAll('details')].filter(d => [...d.children].some("
              "c => c.tagName !== 'SUMMARY' && !c.checkVisibility())).length")
    closed = "document.querySelectorAll('details:not([open])').length"
    screen = open_page(report, javascript=False, evaluate={"hidden": hidden, "closed": closed})
    assert screen.values["closed"] > 0 and screen.values["hidden"] == screen.values["closed"]  # passed rules fold on screen
    # on paper every problem is open; a passed or skipped rule prints its summary line only (the print stays short)
    problems = hidden.replace("document.querySelectorAll('details')", "document.querySelectorAll('details.critical, details.high, details.medium')")
    low = ("[...document.querySelectorAll('details.low')].flatMap(d => [...d.children].filter(c => c.tagName !== 'SUMMARY' "
           "&& !c.checkVisibility()).map(c => c.className))")
    rest = hidden.replace("document.querySelectorAll('details')", "document.querySelectorAll('details.pass, details.skip')")
    printed = open_page(report, javascript=False, media="print", evaluate={"problems": problems, "rest": rest,
                                                                            "count": "document.querySelectorAll('details.pass, details.skip').length",
                                                                            "low": low})
    assert printed.values["problems"] == 0
    assert printed.values["low"] and set(printed.values["low"]) == {"evidence", "refs"}  # a low finding prints its fix
    assert printed.values["rest"] == printed.values["count"] > 0


def test_copy_buttons_appear_only_with_javascript(report: Path) -> None:
    visible = "[...document.querySelectorAll('button.copy')].filter(b => !b.hidden).length"
    count = "document.querySelectorAll('button.copy').length"
    profile = "document.querySelectorAll('#profile-too-small-for-hosts button.copy').length"
    with_js = open_page(report, evaluate={"visible": visible, "count": count, "profile": profile})
    assert with_js.values["count"] > 0 and with_js.values["visible"] == with_js.values["count"]
    assert with_js.values["profile"] == 1  # its consequences (Apache, Candlepin, PostgreSQL) share the one --tuning fix
    without = open_page(report, javascript=False, evaluate={"visible": visible, "pre": "document.querySelectorAll('pre').length"})
    assert without.values["visible"] == 0 and without.values["pre"] == with_js.values["count"]
    assert with_js.console_errors == [] and without.console_errors == []


COPIED = [  # the fixes as the example's report writes them: one snippet per finding and file, applicable as copied
    # the finding's two commands in one block: one button copies both, in order
    ("#thp-enabled div.fix:nth-of-type(1) button.copy",
     "grubby --update-kernel=ALL --args=transparent_hugepage=never\necho never > /sys/kernel/mm/transparent_hugepage/enabled"),
    # a bare installer option is the installer command
    ("#foreman-db-pool-too-small div.fix:nth-of-type(2) button.copy", "satellite-installer --foreman-db-pool 20"),
    # the box needs the large profile, which writes the Apache, Candlepin and PostgreSQL values listed under the
    # finding (foreman-installer sizes/large.yaml): the fix is the profile change, not custom-hiera lines that would
    # pin the values against any later --tuning
    ("#profile-too-small-for-hosts div.fix:nth-of-type(1) button.copy", "satellite-installer --tuning large"),
]


def test_copy_button_copies_exactly_the_fix(report: Path) -> None:
    copied = click_copy_buttons(report, [selector for selector, _ in COPIED])
    assert copied == [(fix, "Copied") for _, fix in COPIED]


def test_copy_button_without_the_clipboard_api_copies_the_same(report: Path) -> None:
    """Browsers that withhold navigator.clipboard (no secure context) take the selection fallback."""
    copied = click_copy_buttons(report, [COPIED[0][0]],
                                before="Object.defineProperty(navigator, 'clipboard', {value: undefined, configurable: true})")
    assert copied == [(COPIED[0][1], "Copied")]


def test_pdf_printed_by_chromium_contains_every_fix(report: Path, tmp_path: Path) -> None:
    pdf = tmp_path / "audit.pdf"
    done = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'profile'}", "--no-pdf-header-footer", f"--print-to-pdf={pdf}",
                           report.as_uri()], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and pdf.exists(), done.stderr[-2000:]
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    flat = re.sub(r"\s+", "", text)
    fixes = [fix["text"] for f in audit_json()["findings"] for fix in f["fixes"]]  # type: ignore[union-attr]
    assert fixes
    # advice prints as text, its `commands` as code (no backticks)
    missing = [fix for fix in fixes if re.sub(r"\s+", "", fix.replace("`", "")) not in flat]
    assert missing == []


def test_the_example_prints_on_few_pages_with_every_fix(report: Path, tmp_path: Path) -> None:
    """The example's A4/letter print was 48 pages: evidence and references of low findings, the findings table (the
    verdict lists the same rules) and the bodies of passed and skipped rules stay on screen; every fix still prints."""
    pdf = tmp_path / "audit.pdf"
    done = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'profile'}", "--no-pdf-header-footer", f"--print-to-pdf={pdf}",
                           report.as_uri()], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and pdf.exists(), done.stderr[-2000:]
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.MULTILINE).group(1))  # type: ignore[union-attr]
    assert pages <= 16, pages
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "What next" in text and "Passed and skipped" in text
    assert "sos_commands/block/lsblk_-O_-P" not in text  # database-on-rotational-disk (low): its evidence stays on screen
    assert "proc/meminfo" in text  # memory-budget-over-ram (high): its evidence prints


def test_a_link_in_the_findings_table_opens_a_folded_rule(tmp_path: Path) -> None:
    """A waived finding stays in the table, but its rule is folded below: following the link unfolds it."""
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("- rule: thp-enabled\n  reason: accepted until the next maintenance window\n", encoding="utf-8")
    page = tmp_path / "audit.html"
    run_cli("audit", str(REPO / EXAMPLE), "--waivers", str(waivers), "--format", "html", "--output", str(page))
    opened = open_page(page, evaluate={
        "before": "document.getElementById('thp-enabled').open",
        "click": "document.querySelector('table.findings a[href=\"#thp-enabled\"]').click(); location.hash",
        "after": "document.getElementById('thp-enabled').open"})
    assert opened.values == {"before": False, "click": "#thp-enabled", "after": True}


def test_logs_report_needs_no_sideways_scrolling(tmp_path: Path) -> None:
    page = tmp_path / "logs.html"
    fixtures = sorted(str(p) for p in (REPO / "tests" / "logs" / "fixtures").iterdir())
    assert run_cli("logs", *fixtures, "--format", "html", "--output", str(page)).status == 0
    for width in (400, 1000):
        shown = open_page(page, width=width, evaluate={"width": "document.documentElement.scrollWidth"})
        assert shown.values["width"] <= width


@pytest.mark.parametrize(("lang", "size"), [("de_DE.UTF-8", "A4"), ("en_GB.UTF-8", "A4"), ("en_US.UTF-8", "letter")])
def test_print_page_size_follows_the_locale(lang: str, size: str) -> None:
    html = run_cli("audit", EXAMPLE, "--format", "html", environ={"LANG": lang}).stdout
    assert f"@page{{size:{size}}}" in html
    plan = run_cli("plan", "--product", "satellite", "--version", "6.15", "--hosts", "12000", "--cpus", "16", "--ram", "64G",
                   "--format", "html", environ={"LC_PAPER": lang}).stdout
    assert f"@page{{size:{size}}}" in plan


def test_no_locale_leaves_the_page_size_to_the_browser(report: Path) -> None:
    assert "@page{size:" not in report.read_text(encoding="utf-8")


def test_findings_only_print_leaves_out_the_passed_rules_and_charts(report: Path) -> None:
    shown = "getComputedStyle(document.querySelector('.rest')).display + ' ' + getComputedStyle(document.querySelector('.charts')).display"
    tick = "document.getElementById('findings-only').checked = true; " + shown
    assert open_page(report, media="print", evaluate={"all": shown}).values["all"] == "block grid"
    only = open_page(report, media="print", evaluate={"only": tick}).values["only"]
    assert only == "none none"
    problems = "getComputedStyle(document.getElementById('what-next')).display"
    assert open_page(report, media="print", evaluate={"next": "document.getElementById('findings-only').checked = true; "
                                                              + problems}).values["next"] == "block"
