"""The audit report around its findings: who and what, the verdict, one snippet per file, and what next."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from foretune import __version__
from foretune.audit.model import Finding, Report
from foretune.plan.model import Fix
from foretune.report.actions import combined_fixes, identity, what_next
from foretune.rules.base import Severity, Status
from tests.conftest import REPO, run_cli

EXAMPLE = REPO / "examples" / "sosreport-satellite-6.15-mistuned"
SOSREPORTS = REPO / "tests" / "fixtures" / "sosreports"
SOURCES = [*sorted(p for p in SOSREPORTS.iterdir() if p.is_dir()), EXAMPLE]


def _audit(source: Path, *extra: str) -> dict[str, object]:
    return dict(json.loads(run_cli("audit", str(source), "--format", "json", *extra).stdout))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_every_high_or_critical_finding_has_a_fix(source: Path) -> None:
    data = _audit(source, "--hosts", "6000")
    bare = [f["rule"] for f in data["findings"]  # type: ignore[attr-defined]
            if f["status"] == "fail" and f["severity"] in ("high", "critical") and not f["fixes"]]
    assert bare == []


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_every_hiera_snippet_names_its_file(source: Path) -> None:
    data = _audit(source, "--hosts", "6000")
    for f in data["findings"]:  # type: ignore[attr-defined]
        for snippet in _texts(f):
            lines = snippet.splitlines()
            # hiera lines to write, or a hiera key to delete; a comment naming what a profile writes is neither
            writes = any(re.match(r"[a-z0-9_]+(::[a-z0-9_]+)+:", line) for line in lines if not line.startswith("#"))
            deletes = any(re.search(r"\b(delete|remove)\b.*::", line) for line in lines)
            if writes:
                assert lines[0].startswith("# /"), (f["rule"], snippet)
            elif deletes:  # the file first, or the command that edits it, which names it
                assert lines[0].startswith("# /") or (
                    lines[0].startswith(("# delete ", "# remove ")) and " from /etc/foreman-installer/custom-hiera.yaml" in lines[0]
                    and all(line.endswith((" /etc/foreman-installer/custom-hiera.yaml", "--write"))
                            for line in lines[1:] if line.startswith(("sed ", "foretune render")))), (f["rule"], snippet)


def _texts(finding: object) -> list[str]:
    """A JSON finding's fixes as the text report shows them."""
    return [fix["text"] for fix in finding["fixes"]]  # type: ignore[index]


def _by_rule(data: dict[str, object]) -> dict[str, dict[str, object]]:
    """Every finding by rule, a symptom listed under its root cause included."""
    return {x["rule"]: x for f in data["findings"] for x in (f, *f["symptoms"])}  # type: ignore[attr-defined]


def test_stale_keys_and_swap_have_fixes_in_the_example() -> None:
    findings = _by_rule(_audit(EXAMPLE))
    # checkpoint_segments is the only entry of config_entries in the example: the hash goes with it
    assert _texts(findings["custom-hiera-stale-keys"]) == [
        "# delete the stale keys (postgresql::server::config_entries/checkpoint_segments) from "
        "/etc/foreman-installer/custom-hiera.yaml (the file before is kept as /etc/foreman-installer/custom-hiera.yaml"
        ".foretune-bak.checkpoint_segments), then run satellite-installer:\n"
        "sed -i.foretune-bak.checkpoint_segments -e '/^postgresql::server::config_entries:/,/^[^[:space:]#]/{/^postgresql::server::"
        "config_entries:/d;/^[[:space:]]\\+checkpoint_segments:/d}' /etc/foreman-installer/custom-hiera.yaml\n"
        "satellite-installer"]
    # swap in use is a symptom of the memory budget over RAM: the fix is given once, under the root cause
    assert [s["rule"] for s in findings["memory-budget-over-ram"]["symptoms"]] == ["swap-in-use"]  # type: ignore[union-attr]
    assert findings["swap-in-use"]["fixes"] == []
    # the 40 Puma workers in force are lowered first (the finding's first fix), then the advice
    lower, advice = findings["memory-budget-over-ram"]["fixes"]  # type: ignore[misc]
    assert lower == {"kind": "installer", "text": "satellite-installer --foreman-foreman-service-puma-workers 18",
                     "command": "satellite-installer --foreman-foreman-service-puma-workers 18", "file": None, "content": None,
                     "options": [{"option": "--foreman-foreman-service-puma-workers", "value": "18"}]}
    assert advice["kind"] == "advice" and advice["command"] is None  # type: ignore[index]
    assert advice["text"].startswith("free memory for the services: move what does not belong")  # type: ignore[index]


def test_logstash_box_is_told_to_move_logstash() -> None:
    findings = _by_rule(_audit(SOSREPORTS / "satellite-6.15-logstash"))
    assert findings["swap-in-use"]["fixes"] == []  # listed under memory-budget-over-ram, which gives the fix once
    assert _texts(findings["memory-budget-over-ram"]) == [
        "free memory for the services: the largest process outside the Satellite services in ps: java run by logstash "
        "(PID 2211, 9.0 GiB RSS): move it off this server, or add RAM; swap empties by itself once memory is free (or run "
        "`swapoff -a && swapon -a` when MemAvailable is well above the swap in use)"]


def test_several_keys_make_one_snippet_per_file() -> None:
    fixes = ["apache::mod::event::serverlimit: 64", "# /etc/systemd/system/httpd.service.d/limits.conf\n[Service]\nLimitNOFILE=640000",
             "postgresql::server::config_entries:\n  work_mem: 8MB", "apache::mod::event::maxrequestworkers: 1024",
             "postgresql::server::config_entries:\n  shared_buffers: 8GB", "tuned-adm profile throughput-performance",
             "apache::mod::event::serverlimit: 64"]
    assert combined_fixes(fixes) == [
        "# /etc/foreman-installer/custom-hiera.yaml\n"
        "# merge, do not append: a key the file has takes these lines under it\n"
        "# (foretune audit live --output-dir fixes/ on the box writes fixes/custom-hiera.yaml: the file with them merged)\n"
        "apache::mod::event::serverlimit: 64\n"
        "postgresql::server::config_entries:\n  work_mem: 8MB\n  shared_buffers: 8GB\n"
        "apache::mod::event::maxrequestworkers: 1024",
        "# /etc/systemd/system/httpd.service.d/limits.conf\n[Service]\nLimitNOFILE=640000",
        "tuned-adm profile throughput-performance",
    ]


def test_a_custom_hiera_snippet_says_to_merge_and_keeps_one_postgresql_hash(tmp_path: Path) -> None:
    """Appended to a custom-hiera.yaml that has postgresql::server::config_entries already, pg-work-mem-low's snippet
    would open a second one (a duplicate key): the snippet says to merge, names the command that writes the merged file
    on the box (the audit's own change set: render --from plans the declared profile, not the audit's), and a file's
    deletions join its keys in one snippet. The example with 32 GiB available (its own 2.5 GiB is a measured shortage,
    under which pg-work-mem-low raises nothing)."""
    import shutil

    import yaml

    shutil.copytree(EXAMPLE, tmp_path / "sos", symlinks=True)
    meminfo = tmp_path / "sos" / "proc" / "meminfo"
    meminfo.write_text(meminfo.read_text().replace("MemAvailable:    2621440 kB", "MemAvailable:   33554432 kB"))
    text = run_cli("audit", str(tmp_path / "sos"), environ={"COLUMNS": "200"}).stdout
    block = text[text.index("pg-work-mem-low (postgresql)"):]
    block = block[block.index("fix:") + 4:block.index("see:")]
    assert [line.strip() for line in block.strip().splitlines()] == [
        "# /etc/foreman-installer/custom-hiera.yaml",
        "# merge, do not append: a key the file has takes these lines under it",
        "# (foretune audit live --output-dir fixes/ on the box writes fixes/custom-hiera.yaml: the file with them merged)",
        "postgresql::server::config_entries:", "work_mem: 8MB"]
    assert yaml.safe_load(textwrap.dedent(block).strip()) == {"postgresql::server::config_entries": {"work_mem": "8MB"}}
    deletes = "# /etc/foreman-installer/custom-hiera.yaml\n# delete foreman::db_pool: custom-hiera.yaml sets it"
    assert combined_fixes([deletes, "foreman::db_pool: 20"]) == [
        "# /etc/foreman-installer/custom-hiera.yaml\n"
        "# merge, do not append: a key the file has takes these lines under it\n"
        "# (foretune audit live --output-dir fixes/ on the box writes fixes/custom-hiera.yaml: the file with them merged)\n"
        "# delete foreman::db_pool: custom-hiera.yaml sets it\nforeman::db_pool: 20"]
    assert combined_fixes([deletes]) == [deletes]  # nothing to merge: no merge line


def _fix_blocks_of(text: str, rule: str) -> list[str]:
    """The code blocks under ``rule`` in a wide terminal report, each dedented."""
    part = text[text.index(f"{rule} ("):]
    part = part[:part.index("see:")]
    # an advice line ("fix: free memory ...") after a block is text, not part of the block
    return [textwrap.dedent(chunk).split("\nfix: ", 1)[0].strip() for chunk in part.split("fix:\n")[1:]]


def test_an_installer_option_fix_is_the_installer_command_of_the_product() -> None:
    """A bare option (--foreman-db-pool 20) pastes as nothing: each fix block is the installer command of the box's
    product, a finding's options together in one (the command What next builds from them all)."""
    wide = {"COLUMNS": "200"}
    text = run_cli("audit", str(EXAMPLE), environ=wide).stdout
    assert _fix_blocks_of(text, "foreman-db-pool-too-small")[1] == "satellite-installer --foreman-db-pool 20"
    assert _fix_blocks_of(text, "sidekiq-concurrency-high") == [
        "satellite-installer --foreman-dynflow-worker-concurrency 5 --foreman-dynflow-worker-instances 3"]
    # a finding's commands in one block, in order: one copy button
    assert _fix_blocks_of(text, "tuned-not-running") == ["systemctl enable --now tuned\ntuned-adm profile virtual-guest"]
    blocks = [b for rule in re.findall(r"^  (?:HIGH|MEDIUM|LOW)\s+([a-z0-9-]+) \(", text, re.M) for b in _fix_blocks_of(text, rule)]
    assert len(blocks) > 12 and not [b for b in blocks if re.search(r"^--", b, re.M)]  # no option alone
    orcharhino = run_cli("audit", str(SOSREPORTS / "orcharhino-6.9"), "--hosts", "2000", environ=wide).stdout
    assert _fix_blocks_of(orcharhino, "puma-workers-outside-range") == ["foreman-installer --foreman-foreman-service-puma-workers 6"]
    markdown = run_cli("audit", str(EXAMPLE), "--format", "markdown").stdout
    assert "```\nsatellite-installer --foreman-db-pool 20\n```" in markdown
    assert not re.search(r"^--", markdown, re.M)
    html = run_cli("audit", str(EXAMPLE), "--format", "html").stdout
    assert "<code>satellite-installer --foreman-db-pool 20</code></pre>" in html
    assert not re.search(r"<code>--[a-z-]+ [^<]*</code></pre>", html)


def test_advice_is_text_not_a_snippet_to_copy() -> None:
    """memory-budget-over-ram's second fix is advice: a sentence after "fix:", never a code block or a copy button
    (its first is the installer command that lowers the 40 Puma workers in force)."""
    advice = "free memory for the services: move what does not belong on this server off it, or add RAM"
    text = run_cli("audit", str(EXAMPLE), environ={"COLUMNS": "200"}).stdout
    assert f"        fix: {advice}; swap empties" in text
    assert _fix_blocks_of(text, "memory-budget-over-ram") == ["satellite-installer --foreman-foreman-service-puma-workers 18"]
    markdown = run_cli("audit", str(EXAMPLE), "--format", "markdown").stdout
    assert f"\nFix: {advice}; swap empties by itself once memory is free (or run `swapoff -a && swapon -a` when" in markdown
    fences = re.findall(r"^```\n(.*?)^```", markdown, re.S | re.M)
    assert fences and not any("free memory" in fence for fence in fences)
    html = run_cli("audit", str(EXAMPLE), "--format", "html").stdout
    assert (f'<p class="advice">Fix: {advice}; swap empties by itself once memory is free (or run '
            "<code>swapoff -a &amp;&amp; swapon -a</code> when") in html
    assert not any("free memory" in pre for pre in re.findall(r"<pre.*?</pre>", html, re.S))


@pytest.mark.parametrize("columns", [60, 70, 80])
def test_fix_snippets_paste_the_same_at_every_width(columns: int) -> None:
    """At 60, 70 and 80 columns a fix block pastes as the wide one: a comment line continues as a comment (its "#"
    kept), a long command continues after " \\", any other line is never broken."""
    wide = run_cli("audit", str(EXAMPLE), environ={"COLUMNS": "400"}).stdout
    narrow = run_cli("audit", str(EXAMPLE), environ={"COLUMNS": str(columns)}).stdout
    rules = re.findall(r"^  (?:HIGH|MEDIUM|LOW)\s+([a-z0-9-]+) \(", wide, re.M)
    assert len(rules) == 20  # six values --tuning large writes are listed under profile-too-small-for-hosts
    for rule in rules:
        for before, after in zip(_fix_blocks_of(wide, rule), _fix_blocks_of(narrow, rule), strict=True):
            lines = after.splitlines()
            comments = [line for line in before.splitlines() if line.startswith("#")]
            assert [w for line in lines if line.lstrip().startswith("#") for w in line.lstrip()[1:].split()] == [
                w for line in comments for w in line[1:].split()], rule  # every comment word, each behind a "#"
            code = [line for line in lines if not line.lstrip().startswith("#")]
            whole = [line for line in before.splitlines() if not line.startswith("#")]
            if not before.startswith("# /"):  # commands: a broken line ends in the shell's continuation
                joined = re.sub(r" \\\n\s*", " ", "\n".join(code)).splitlines()
                assert joined == whole, rule
            else:  # a file's lines stay whole
                assert code == whole, rule


def test_header_names_the_profile_the_host_count_needs() -> None:
    report = Report("s", "sosreport", "Satellite 6.15 (Foreman 3.9)", "server", 7000, "medium",
                    hosts_basis="given with --hosts", profile_basis="declared: the installer's tuning fact")
    assert identity(report).profile == "medium (declared: the installer's tuning fact), which fits 7000 hosts"
    report.hosts = 45000  # extra-large: 40001-60000 hosts
    assert identity(report).profile.endswith("; 45000 hosts need the extra-large profile")
    report.hosts_basis = "assumed: the upper edge of the medium profile's range"
    assert identity(report).profile == "medium (declared: the installer's tuning fact)"  # an assumed count proves nothing


def test_what_next_names_the_restart_and_the_recheck() -> None:
    out = run_cli("audit", str(SOSREPORTS / "satellite-6.9"), "--hosts", "7000").stdout
    steps = out[out.index("== What next"):].splitlines()
    # the set it names is this report's: the --hosts the report was judged with goes with it
    assert steps[1].startswith("  1. Write every fix as one set: `foretune audit ")
    assert " --hosts 7000 --output-dir fixes/`" in steps[1]
    assert any("`systemctl daemon-reload`, then restart httpd." in line for line in steps)  # httpd LimitNOFILE drop-in
    # the installer options of the fixes (db pool, Puma threads and workers), as one command to run; 5 workers fit
    # beside the one Sidekiq worker 6.9's installer runs (it has no worker-instances option, so no
    # sidekiq-too-few-instances finding either)
    assert ("  2. Run `satellite-installer --foreman-db-pool 20 --foreman-foreman-service-puma-threads-min 16 "
            "--foreman-foreman-service-puma-threads-max 16 --foreman-foreman-service-puma-workers 5`: it restarts the "
            "services it reconfigures.") in steps
    # symptoms counted under their cause; the three with no fix (CPU steal, rotational disk, shared device) stay;
    # no Sidekiq advice step: 6.9 has no worker-instances option
    assert any("the 6 problems with a fix above should be gone; the 3 to look into stay until you act on them." in line
               for line in steps)
    assert not any("sidekiq" in line for line in steps)
    assert any("  4. Look into cpu-steal-high, database-on-rotational-disk, databases-share-device: foretune has no fix "
               "to apply for them." in line for line in steps)


def test_nothing_to_apply_on_a_clean_report() -> None:
    assert what_next(Report("s", "live", "Satellite 6.15 (Foreman 3.9)", "server", 100, "default")) == [
        "Nothing to apply. Audit again after upgrades, a change of profile or a large change in host count."]


def test_an_odd_source_name_never_reaches_a_command_line() -> None:
    finding = Finding("thp-enabled", "THP", "os", Severity.MEDIUM, Status.FAIL, "THP on",
                      fixes=("echo never > /sys/kernel/mm/transparent_hugepage/enabled",),
                      fix_records=(Fix("command", "echo never > /sys/kernel/mm/transparent_hugepage/enabled"),))
    report = Report("x; rm -rf /", "sosreport", "Satellite 6.15 (Foreman 3.9)", "server", 100, "default", findings=[finding])
    assert what_next(report)[0] == ("Write every fix as one set: `foretune audit SOURCE --output-dir fixes/`, then follow "
                                    "fixes/APPLY.md (it orders the steps below).")


def test_advice_alone_is_not_sent_to_write_a_set() -> None:
    """A finding whose fix is advice writes no file or command: What next does not send the reader to --output-dir."""
    finding = Finding("memory-budget-over-ram", "memory", "capacity", Severity.HIGH, Status.FAIL, "short of memory",
                      fixes=("free memory for the services: move what does not belong on this server off it, or add RAM",),
                      fix_records=(Fix("advice", "memory", "free memory for the services: move what does not belong on "
                                                           "this server off it, or add RAM"),))
    report = Report("sos", "sosreport", "Satellite 6.15 (Foreman 3.9)", "capsule", 100, "default", findings=[finding])
    steps = what_next(report)
    assert steps[0] == "Follow the advice in the fixes of memory-budget-over-ram: no file carries it."
    assert not any("--output-dir" in step or "APPLY.md" in step for step in steps)


def test_counts_of_one_read_as_one() -> None:
    findings = {f["rule"]: f for f in _audit(EXAMPLE)["findings"]}  # type: ignore[attr-defined]
    # the example runs one Sidekiq worker (etc/foreman/dynflow/worker.yml alone)
    assert findings["sidekiq-too-few-instances"]["message"].startswith("1 Sidekiq worker for 15120 hosts: ")


def test_a_live_audit_is_told_to_write_its_fixes_from_live() -> None:
    finding = Finding("thp-enabled", "THP", "os", Severity.MEDIUM, Status.FAIL, "THP on",
                      fixes=("echo never > /sys/kernel/mm/transparent_hugepage/enabled",),
                      fix_records=(Fix("command", "echo never > /sys/kernel/mm/transparent_hugepage/enabled"),))
    report = Report("this host", "live", "Satellite 6.15 (Foreman 3.9)", "server", 100, "default", findings=[finding])
    assert what_next(report)[0].startswith("Write every fix as one set: `foretune audit live --output-dir fixes/`")


def test_long_evidence_is_shortened_around_the_value_it_proves() -> None:
    """installer.conf sets 40 Puma workers in its third Environment line: the shortened excerpt keeps that line
    whole in every format (dropping whole parts, marked with …), never cutting it to 'Environment=FOREM'."""
    text = run_cli("audit", str(EXAMPLE)).stdout
    markdown = run_cli("audit", str(EXAMPLE), "--format", "markdown").stdout
    workers = "Environment=FOREMAN_PUMA_WORKERS=40"
    for out in (text, markdown):
        lines = [line for line in out.splitlines() if "installer.conf" in line]
        assert lines and not any(re.search(r"=FOREM(?!AN_)", line) for line in lines)
    block = text[text.index("puma-workers-outside-range (puma)"):]
    assert workers in block[:block.index("fix:")]


def test_a_wrapped_comment_in_a_fix_stays_a_comment() -> None:
    """At 80 columns the stale-key fix's long comment lines wrap; every wrapped piece keeps its '#', so the snippet
    still pastes into custom-hiera.yaml as comments."""
    from foretune.report import text

    fix = ("# /etc/foreman-installer/custom-hiera.yaml\n"
           "# delete the stale keys (postgresql::server::config_entries/checkpoint_segments), then run satellite-installer;\n"
           "# or let foretune remove them: foretune render --from live --merge-into "
           "/etc/foreman-installer/custom-hiera.yaml --remove-stale --write")
    finding = Finding("custom-hiera-stale-keys", "stale", "installer", Severity.MEDIUM, Status.FAIL, "stale keys", fixes=(fix,))
    out = text.render(Report("s", "sosreport", "Satellite 6.15 (Foreman 3.9)", "server", 100, "default",
                             findings=[finding]), width=80)
    block = out[out.index("fix:") + 4:out.index("== What next")].strip().splitlines()
    assert len(block) > 3 and all(line.strip().startswith("#") for line in block), block
    assert all(len(line) <= 80 for line in block)
    words = " ".join(line.strip().removeprefix("# ").removeprefix("#") for line in block).split()
    assert words == fix.replace("#", " ").split()  # nothing lost or reordered


def test_every_json_report_names_host_and_dates() -> None:
    """audit, plan --from and logs JSON say which host and when: the example's sosreport is of satellite.example.com,
    collected 2024-02-12 10:14; SOURCE_DATE_EPOCH 1700000000 is 2023-11-14 22:13 UTC."""
    from importlib import resources

    import jsonschema

    epoch = {"SOURCE_DATE_EPOCH": "1700000000"}
    audit = json.loads(run_cli("audit", str(EXAMPLE), "--format", "json", environ=epoch).stdout)
    plan = json.loads(run_cli("plan", "--from", str(EXAMPLE), "--format", "json", environ=epoch).stdout)
    logs = json.loads(run_cli("logs", str(EXAMPLE), "--format", "json", environ=epoch).stdout)
    assert audit["profile_needed"] == "large"  # 15120 counted hosts: the large profile's 10001-20000 range
    for data in (audit, plan):
        assert (data["host"], data["collected_at"], data["generated_at"]) == (
            "satellite.example.com", "2024-02-12 10:14 UTC", "2023-11-14 22:13 UTC")
    assert (logs["host"], logs["generated_at"]) == ("satellite.example.com", "2023-11-14 22:13 UTC")
    for data, package, name in ((audit, "foretune.report", "audit-v1.json"), (plan, "foretune.render", "plan-v1.json")):
        jsonschema.validate(data, json.loads(resources.files(package).joinpath("schema", name).read_text(encoding="utf-8")))
    options = json.loads(run_cli("plan", "--product", "satellite", "--version", "6.15", "--hosts", "100", "--cpus", "8", "--ram", "32G", "--format",
                                 "json", environ=epoch).stdout)
    assert (options["host"], options["collected_at"]) == (None, None)


def test_the_text_and_markdown_audit_say_when_they_were_generated() -> None:
    """As the HTML page and the JSON do: the example collected 2024-02-12 10:14 UTC, the report made at
    SOURCE_DATE_EPOCH 1700000000, 2023-11-14 22:13 UTC, by this foretune."""
    epoch = {"SOURCE_DATE_EPOCH": "1700000000", "COLUMNS": "100"}
    text = run_cli("audit", str(EXAMPLE), environ=epoch).stdout
    assert f"\nforetune  {__version__}, report generated 2023-11-14 22:13 UTC\n" in text
    assert "\nCollected 2024-02-12 10:14 UTC\n" in text
    markdown = run_cli("audit", str(EXAMPLE), "--format", "markdown", environ=epoch).stdout
    assert f"\n- foretune: {__version__}, report generated 2023-11-14 22:13 UTC\n" in markdown


def test_the_examples_readme_agrees_with_its_audit_on_paused_tasks() -> None:
    """The example's 10 old paused tasks are under foretune's 100 (the guides set no limit): the audit passes them,
    and the README lists them as fine, not as wrong on purpose."""
    findings = {f["rule"]: f for f in _audit(EXAMPLE)["findings"]}  # type: ignore[attr-defined]
    assert findings["paused-tasks-backlog"]["status"] == "pass"
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    wrong, fine = readme.split("## Fine on purpose")
    assert "paused" not in wrong and "`paused-tasks-backlog` passes" in fine


@pytest.mark.parametrize("columns", [60, 80])
def test_what_next_commands_paste_whole_in_a_terminal(columns: int) -> None:
    """The installer command of What next is drawn under its step, each broken line ending in " \\", so pasted it
    runs with every option; a finding whose fix another one gives is not listed as one without a fix."""
    out = run_cli("audit", str(EXAMPLE), environ={"COLUMNS": str(columns)}).stdout
    steps = out[out.index("== What next"):out.index("summary:")]
    assert "then run the command below: it restarts the services it reconfigures." in " ".join(steps.split())
    block = steps[steps.index("satellite-installer"):steps.index("  3. ")].rstrip().splitlines()
    assert all(line.endswith(" \\") for line in block[:-1]) and not block[-1].endswith("\\")
    assert re.sub(r" \\\n\s*", " ", "\n".join(block)) == (
        # the profile first, then the options in the order of the findings (the memory finding's Puma workers first),
        # as installer.sh has them
        "satellite-installer --tuning large --foreman-foreman-service-puma-workers 18 "
        "--foreman-dynflow-worker-concurrency 5 --foreman-dynflow-worker-instances 3 "
        "--foreman-db-pool 20 --foreman-cli-request-timeout -1 --foreman-proxy-plugin-dynflow-open-file-limit 1000000 "
        "--foreman-proxy-content-pulpcore-worker-count 8 --foreman-foreman-service-puma-threads-min 16")
    # every line fits but one word longer than a line (the source's absolute path)
    assert all(len(line) <= columns or " " not in line.strip().removesuffix(" \\") for line in steps.splitlines())
    assert "sidekiq-too-few-instances" not in steps  # its fix is part of sidekiq-concurrency-high's
    assert ("Run the commands in the fixes of thp-defrag-always, thp-enabled, tuned-not-running (fixes/APPLY.md puts "
            "them in order).") in " ".join(steps.split())
    # pg-work-mem-low's fix is advice while the box is short of memory (free or add memory first, feedback D8)
    assert ("Follow the advice in the fixes of candlepin-tomcat-threads, memory-budget-over-ram, pg-work-mem-low: no "
            "file carries it.") in " ".join(steps.split())
    html = run_cli("audit", str(EXAMPLE), "--format", "html").stdout
    assert '<pre id="next-2-2"><code>satellite-installer --tuning large --foreman-foreman-service-puma-workers 18 ' in html


def test_what_next_closes_every_format() -> None:
    """What next is the last section in every format: in HTML after the passed and skipped rules, too."""
    html = run_cli("audit", str(EXAMPLE), "--format", "html").stdout
    assert html.index("<h2>Passed and skipped</h2>") < html.index('<h2 id="what-next">What next</h2>')
    assert "<h2" not in html[html.index('<h2 id="what-next">'):][5:]
    markdown = run_cli("audit", str(EXAMPLE), "--format", "markdown").stdout
    assert "\n## " not in markdown[markdown.index("## What next"):][3:]
    text = run_cli("audit", str(EXAMPLE), "--verbose").stdout
    assert text.index("== passed and skipped") < text.index("== What next")


def test_every_format_shows_when_a_waiver_expires(tmp_path: Path) -> None:
    """A waiver with `expires: 2099-01-31` is labelled with that date, one without with "no expiry date", in text,
    Markdown, HTML and JSON (waived_until)."""
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("- rule: thp-enabled\n  reason: next maintenance window\n  expires: 2099-01-31\n"
                       "- rule: tuned-not-running\n  reason: the hypervisor team owns it\n", encoding="utf-8")
    args = ("audit", str(EXAMPLE), "--waivers", str(waivers))
    text = run_cli(*args).stdout
    assert "(waived until 2099-01-31: next maintenance window)" in text
    assert "(waived, no expiry date: the hypervisor team owns it)" in text
    assert "_waived until 2099-01-31: next maintenance window_" in run_cli(*args, "--format", "markdown").stdout
    assert "<p>Waived until 2099-01-31: next maintenance window</p>" in run_cli(*args, "--format", "html").stdout
    found = {f["rule"]: f for f in json.loads(run_cli(*args, "--format", "json").stdout)["findings"]}
    assert (found["thp-enabled"]["waived_until"], found["tuned-not-running"]["waived_until"]) == ("2099-01-31", None)
    assert found["tuned-not-running"]["waived"] == "the hypervisor team owns it"


def test_the_collection_date_names_its_time_zone() -> None:
    """The 6.2 fixture's date file says "Thu Nov  9 16:30:02 EST 2017": the header says EST, not a bare time."""
    text = run_cli("audit", str(SOSREPORTS / "satellite-6.2")).stdout
    assert "\nCollected 2017-11-09 16:30 EST\n" in text
    assert "- Collected: 2024-02-12 10:14 UTC" in run_cli("audit", str(EXAMPLE), "--format", "markdown").stdout


def test_passenger_edits_come_after_the_installer_and_restart_httpd() -> None:
    """6.2: passenger.conf is written by the installer's apache module, so its edit follows the run, then httpd
    restarts (6.2 brief: "systemctl daemon-reload / katello-service restart"); each finding's fix says so alone."""
    data = _audit(SOSREPORTS / "satellite-6.2", "--hosts", "6000")
    passenger = [f for f in data["findings"] if any("passenger.conf" in x for x in _texts(f))]  # type: ignore[attr-defined]
    assert passenger
    for f in passenger:
        edit = f["fixes"][0]
        assert edit["kind"] == "file" and edit["file"] == "/etc/httpd/conf.d/passenger.conf", f["rule"]
        assert "# edit this after the installer run: the run rewrites this file" in edit["text"]
        assert "systemctl restart httpd" in [x["command"] for x in f["fixes"]], f["rule"]
    out = run_cli("audit", str(SOSREPORTS / "satellite-6.2"), "--hosts", "6000").stdout
    steps = " ".join(out[out.index("== What next"):].split())
    after = steps[steps.index("After the installer run (it rewrites"):]
    assert "/etc/httpd/conf.d/passenger.conf" in after[:after.index("systemctl restart httpd")]
    assert steps.index("Run `satellite-installer") < steps.index("After the installer run (it rewrites")
    assert "systemctl restart httpd" in steps


def test_a_drop_in_fix_reloads_systemd_and_restarts_its_unit() -> None:
    """Guide 5.5.1 step 3: "systemctl daemon-reload" then "systemctl restart mosquitto.service"."""
    data = _audit(SOSREPORTS / "capsule-6.15-measured-failure")
    mqtt = next(f for f in data["findings"]  # type: ignore[attr-defined]
                if f["fixes"] and f["fixes"][0]["text"].startswith("# /etc/systemd/system/mosquitto.service.d/"))
    assert mqtt["fixes"][0]["file"] == "/etc/systemd/system/mosquitto.service.d/limits.conf"
    assert mqtt["fixes"][-1]["command"] == "systemctl daemon-reload && systemctl restart mosquitto"
