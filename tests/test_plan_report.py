"""`plan` as Markdown and HTML, like `audit`: who and what, the verdict, the changes first, what next."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from foretune import __version__
from tests.conftest import run_cli
from tests.support.chromium import open_page
from tests.test_html_report import FIXED_TIME, TEST_VERSION, _compare

BOX = ("plan", "--product", "satellite", "--version", "6.15", "--hosts", "12000", "--cpus", "16", "--ram", "64G")


def test_markdown_plan_leads_with_identity_and_verdict_and_ends_with_what_next() -> None:
    out = run_cli(*BOX, "--format", "markdown", environ={"SOURCE_DATE_EPOCH": FIXED_TIME}).stdout
    lines = out.splitlines()
    assert lines[0] == "# foretune plan: Satellite 6.15 (Foreman 3.9) server, 12000 hosts"
    assert "- Box: 16 CPUs, 64.0 GiB RAM" in lines
    # 12000 hosts: the large profile (10001-20000 hosts in the guide's table)
    assert "- Profile: large (12000 managed hosts fall in the large range (10001-20000 hosts))" in lines
    assert f"- Generated: 2025-07-01 09:00 UTC by foretune {__version__}" in lines
    verdict = next(line for line in lines if line.startswith("## Verdict: "))
    assert verdict.endswith(" to change from the installer's, no problems")
    changes = lines.index(next(line for line in lines if line.startswith("## What foretune changes")))
    kept = lines.index(next(line for line in lines if line.startswith("## Kept as the installer sets them")))
    # the guide for large: Puma workers 12-18 (the installer's auto formula gives min(16 x 1.5, 64 - 1.5) = 24), threads
    # 16, the DB pool threads_max + 4 = 20: changed rows come before the kept ones
    for row in ("| `puma.workers` | 24 | 18 |", "| `puma.threads_max` | 5 | 16 |", "| `foreman.db_pool` | 5 | 20 |"):
        at = next(i for i, line in enumerate(lines) if line.startswith(row))
        assert changes < at < kept
    assert "Foreman tuning guide: 5.2.7 Configuring Puma DB pool" in out  # citation ids resolved to titles
    assert lines.index("## What next") > kept
    assert "- Host: none (planned from options)" in lines and "- Product: Satellite 6.15 (Foreman 3.9), server" in lines
    # the command that writes everything to apply: this plan's own options, then --output-dir
    assert ("1. Write everything to apply: `foretune plan --product satellite --version 6.15 --cpus 16 --ram 64G --hosts 12000 "
            "--output-dir plan/`, then follow plan/APPLY.md") in out
    assert "Run `satellite-installer` after merging custom-hiera.yaml" in out
    assert "then restart httpd." in out  # the LimitNOFILE drop-in


@pytest.mark.parametrize(("name", "start"), [("plan.md", "# foretune plan: "), ("plan.html", "<!DOCTYPE html>")])
def test_output_extension_picks_the_plan_format(tmp_path: Path, name: str, start: str) -> None:
    target = tmp_path / name
    result = run_cli(*BOX, "--output", str(target))
    assert (result.status, result.stdout) == (0, "")
    assert target.read_text(encoding="utf-8").startswith(start)


@pytest.fixture(scope="module")
def plan_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = tmp_path_factory.mktemp("plan") / "plan.html"
    assert run_cli(*BOX, "--output", str(page), environ={"SOURCE_DATE_EPOCH": FIXED_TIME}).status == 0
    page.write_text(page.read_text(encoding="utf-8").replace(f"foretune {__version__}", f"foretune {TEST_VERSION}"),
                    encoding="utf-8")
    return page


@pytest.mark.parametrize(("width", "scheme", "media"), [(1400, "light", "screen"), (1400, "dark", "screen"),
                                                      (400, "light", "screen"), (400, "dark", "screen"), (1400, "light", "print")])
def test_plan_page_screenshots_match_the_reviewed_references(plan_page: Path, width: int, scheme: str, media: str) -> None:
    page = open_page(plan_page, width=width, height=1400, scheme=scheme, media=media, screenshot=True,
                     evaluate={"background": "getComputedStyle(document.body).backgroundColor",
                               "width": "document.documentElement.scrollWidth"})
    assert page.console_errors == [] and page.requests == [plan_page.resolve().as_uri()]
    assert page.values["background"] == ("rgb(21, 25, 29)" if (scheme, media) == ("dark", "screen") else "rgb(255, 255, 255)")
    assert page.values["width"] <= width  # wide tables scroll inside themselves
    _compare(f"plan-{scheme}-{media}-{width}", page.screenshot)


def test_changed_only_keeps_the_changes_and_fits_80_columns() -> None:
    out = run_cli(*BOX, "--changed-only", environ={"COLUMNS": "80"}).stdout
    lines = out.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    assert "puma.workers" in lines and "foreman.db_pool" in lines  # 24 -> 18, 5 -> 20
    assert "apache.mpm" not in out  # event in both columns
    full = run_cli(*BOX, environ={"COLUMNS": "80"}).stdout
    assert "apache.mpm" in full
    # 24 tunables for this box, 10 changed (the Markdown report's two tables): 14 left out
    assert "14 tunables the installer already sets as recommended left out (--changed-only)" in lines
    # the full table names the option that gives the short one
    assert "--changed-only shows the 10 changed values alone" in full.splitlines()


def test_every_citation_id_in_the_table_resolves_to_its_title() -> None:
    out = run_cli(*BOX).stdout
    table, _, sources = out.partition("\nSources:\n")
    ids = {cid.strip() for group in re.findall(r"\[([a-z0-9, -]+)\]", table) for cid in group.split(",")} - {"citations"}  # the header
    listed = {line.split()[0]: line.split(None, 1)[1] for line in sources.splitlines() if line.strip()}
    assert ids and ids <= set(listed)
    assert listed["gf-db-pool"] == "Foreman tuning guide: 5.2.7 Configuring Puma DB pool"


def test_the_table_carries_the_verdict_first_and_what_next_last() -> None:
    lines = run_cli(*BOX, environ={"SOURCE_DATE_EPOCH": FIXED_TIME}).stdout.splitlines()
    # who and when first: no host (planned from options), the generation time and foretune's version
    assert lines[:2] == ["host: none (planned from options)", f"generated: 2025-07-01 09:00 UTC by foretune {__version__}"]
    header_end = lines.index("")  # the box, generation, profile, hardware lines
    assert lines[header_end + 1].startswith("verdict: ") and lines[header_end + 1].endswith(
        " to change from the installer's, no problems")
    steps = lines.index("What next:")
    assert lines.index("Problems: none") < steps < lines.index("Sources:")
    assert lines[steps + 1].startswith("  1.  Write everything to apply: foretune plan --product satellite --version 6.15 "
                                       "--cpus 16 --ram 64G --hosts 12000 --output-dir plan/, then follow plan/APPLY.md")
    assert "  3.  After the systemd drop-ins: systemctl daemon-reload, then restart httpd." in lines


@pytest.mark.parametrize(("box", "line"), [
    (BOX, "services: Puma, Apache event MPM, pulpcore; installer --tuning size profiles"),
    # Satellite 6.2: Passenger and Pulp 2, tuned by hand (no installer tuning profiles before foreman-installer 1.24)
    (("plan", "--product", "satellite", "--version", "6.2", "--hosts", "500", "--cpus", "8", "--ram", "32G"),
     "services: Passenger, Apache prefork MPM, Pulp 2; no installer tuning profiles"),
])
def test_plan_table_names_services_in_words_an_admin_knows(box: tuple[str, ...], line: str) -> None:
    out = run_cli(*box).stdout
    assert line in out.splitlines()
    assert "epoch" not in out and "generation" not in out


def test_db_pool_reason_agrees_with_the_guides_quote_for_the_release() -> None:
    """Satellite 6.15 (foreman-installer 3.9): the guide quotes pool = max(db_pool, threads_max), so with 16 threads
    the installer's pool is 16; foretune's 20 is that plus the 4 Katello listeners, said as such (not as the formula
    of foreman-installer 3.11, which computes threads_max + 4 itself)."""
    out = run_cli("plan", "--product", "satellite", "--version", "6.15", "--hosts", "6000", "--cpus", "16", "--ram", "64G",
                  "--explain", "foreman.db_pool").stdout
    reason = next(line for line in out.splitlines() if line.startswith("foretune: 20"))
    assert "max(db_pool, threads_max) = 16" in reason and "Katello event daemon" in reason
    assert "one per Puma thread plus" not in reason


# each piece of a table cell's code between two break points (<wbr> after a dot, underscore, colon or slash) that the
# browser laid out on more than one line: a name cut inside a word
_CUT_NAMES = ("[...document.querySelectorAll('main td code')].flatMap(c => [...c.childNodes].filter(n => n.nodeType === 3)"
              ".map(n => { const r = document.createRange(); r.selectNodeContents(n); return [n.textContent, r.getClientRects().length]; }))"
              ".filter(x => x[1] > 1).map(x => x[0])")


@pytest.mark.parametrize(("width", "media"), [(1400, "screen"), (400, "screen"), (1400, "print")])
def test_tunable_names_wrap_only_after_a_dot_or_underscore(plan_page: Path, width: int, media: str) -> None:
    """os.tuned_profile may wrap as os.tuned_ / profile, never as os.tuned_p / rofile."""
    html = plan_page.read_text(encoding="utf-8")
    assert "<code>os.<wbr>tuned_<wbr>profile</code>" in html and "<code>puma.<wbr>workers</code>" in html
    page = open_page(plan_page, width=width, height=1400, media=media, evaluate={"cut": _CUT_NAMES, "names": (
        "document.querySelectorAll('main td code').length")})
    assert page.values["names"] > 20
    assert page.values["cut"] == []


def test_plan_from_a_source_names_its_host_and_date_and_the_command_with_from() -> None:
    """The example was collected on satellite.example.com, 2024-02-12 10:14 UTC: every format names both, and What next
    re-runs the plan from the same source (JSON too, with the verdict)."""
    import json

    from tests.conftest import REPO

    source = str(REPO / "examples" / "sosreport-satellite-6.15-mistuned")
    table = run_cli("plan", "--from", source, environ={"SOURCE_DATE_EPOCH": FIXED_TIME}).stdout.splitlines()
    assert table[:3] == ["host: satellite.example.com", "collected: 2024-02-12 10:14 UTC",
                         f"generated: 2025-07-01 09:00 UTC by foretune {__version__}"]
    assert f"  1.  Write everything to apply: foretune plan --from {source} --output-dir plan/, then follow plan/APPLY.md" \
        " (custom-hiera.yaml, installer.sh, drop-ins and commands, in order)." in table  # no sysctl file for this box
    data = json.loads(run_cli("plan", "--from", source, "--hosts", "15120", "--format", "json").stdout)
    assert (data["host"], data["collected_at"]) == ("satellite.example.com", "2024-02-12 10:14 UTC")
    assert data["verdict"].endswith(" to change from the installer's, 1 problem (1 high)")  # the box swaps: see below
    assert data["next_steps"][0].startswith(f"Write everything to apply: `foretune plan --from {source} --hosts 15120 --output-dir plan/`")
    assert list(data)[-1] == "next_steps"


def test_a_plan_from_a_box_short_of_memory_says_so_and_raises_nothing_that_takes_more() -> None:
    """The example measures MemAvailable 2621440 of 66924544 kB (3.9 %) with 1.5 of 4.0 GiB of swap in use: the audit
    refuses the guide's work_mem 8MB until memory is freed (pg-work-mem-low). The plan from the same source says the
    same: a high problem instead of "no problems", work_mem kept at the installer's 4MB, and no raise in what it writes."""
    import json

    from tests.conftest import REPO

    source = str(REPO / "examples" / "sosreport-satellite-6.15-mistuned")
    data = json.loads(run_cli("plan", "--from", source, "--format", "json").stdout)
    assert data["verdict"].endswith(", 1 problem (1 high)")
    (problem,) = data["problems"]
    assert (problem["severity"], problem["code"]) == ("high", "memory-short-measured")
    assert problem["message"].startswith("the box measures only 2.5 GiB of 63.8 GiB available, 1.5 GiB of 4.0 GiB swap in use")
    work_mem = next(t for t in data["tunables"] if t["id"] == "postgresql.work_mem")
    assert (work_mem["installer"]["value"], work_mem["foretune"]["value"], work_mem["differs"]) == ("4MB", "4MB", False)
    assert "work_mem" not in run_cli("plan", "--from", source, "--format", "hiera").stdout
    # a box with memory to spare (the tuned 6.15 fixture) keeps the guide's raise and no such problem
    tuned = json.loads(run_cli("plan", "--from", str(REPO / "tests/fixtures/sosreports/satellite-6.15-tuned"), "--format", "json").stdout)
    assert not [p for p in tuned["problems"] if p["code"] == "memory-short-measured"]


def test_what_next_names_only_the_files_the_output_dir_writes(tmp_path: Path) -> None:
    """Satellite 6.2's installer reads no custom-hiera.yaml (its options go to the answers file; the 6.2 brief's
    tunings are edits of the files it writes, then `katello-service restart`): its What next names no such file.
    A plan that writes no sysctl file names none either."""
    old = ("plan", "--product", "satellite", "--version", "6.2", "--hosts", "100", "--cpus", "8", "--ram", "32G")
    markdown = run_cli(*old, "--format", "markdown").stdout
    steps = markdown[markdown.index("## What next"):]
    assert "then follow plan/APPLY.md (installer.sh, the file edits, drop-ins, sysctl and commands, in order)." in steps
    assert ("2. Satellite 6.2 (Foreman 1.11) reads no custom-hiera.yaml: run `satellite-installer` with the options in "
            "installer.sh (its answers file keeps them), then make the file edits APPLY.md lists") in steps
    assert "merging custom-hiera.yaml" not in steps and "(custom-hiera.yaml" not in steps
    assert run_cli(*old, "--output-dir", str(tmp_path / "p62")).status == 0
    assert not (tmp_path / "p62" / "custom-hiera.yaml").exists() and (tmp_path / "p62" / "installer.sh").exists()
    new = ("plan", "--product", "satellite", "--version", "6.15", "--hosts", "100", "--cpus", "8", "--ram", "32G")
    steps = run_cli(*new, "--format", "markdown").stdout
    assert "then follow plan/APPLY.md (custom-hiera.yaml, installer.sh, drop-ins and commands, in order)." in steps
    assert run_cli(*new, "--output-dir", str(tmp_path / "p615")).status == 0
    assert not (tmp_path / "p615" / "sysctl.d").exists()


def test_plan_markdown_says_which_custom_hiera_keys_to_delete_and_keeps_code_in_problems() -> None:
    """The example's custom-hiera.yaml sets foreman::db_pool: 5, which wins over the --foreman-db-pool 20 of the
    installer command, and checkpoint_segments, which PostgreSQL 12 refuses: the Markdown (and so the HTML) says to
    delete both before its installer command, as the table and APPLY.md do; the problem's command stays a code span."""
    from tests.conftest import REPO

    example = REPO / "examples" / "sosreport-satellite-6.15-mistuned"
    markdown = run_cli("plan", "--from", str(example), "--format", "markdown").stdout
    apply = markdown[markdown.index("## To apply"):]
    assert "- `foreman::db_pool`: custom-hiera.yaml sets foreman::db\\_pool: 5, which wins over --foreman-db-pool" in apply
    assert "- `postgresql::server::config_entries/checkpoint_segments`: removed in PostgreSQL 9.5" in apply
    assert apply.index("Delete these keys") < apply.index("--foreman-db-pool 20")
    assert f"`foretune audit {example}` names what holds it" in markdown and "\\`" not in markdown
    html = run_cli("plan", "--from", str(example), "--format", "html").stdout
    assert "<code>foreman::db_pool</code>" in html and f"<code>foretune audit {example}</code>" in html
