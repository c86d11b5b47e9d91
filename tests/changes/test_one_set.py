"""One change set, every output: one value per tunable and one channel per value, on every fixture and the example;
`audit --output-dir` writes what fixes the findings, with the profile change first and no stale key left."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from foretune.audit.context import build_context
from foretune.audit.runner import run_all
from foretune.changes import build
from foretune.changes.model import CHANNELS, EFFECTS, OPS, ChangeSet
from foretune.commands.audit import change_set
from foretune.facts import read_source
from foretune.plan.choose import choose_plan
from foretune.rules.registry import all_rules
from tests.conftest import REPO, include_conf_d, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"
EXAMPLE = REPO / "examples" / "sosreport-satellite-6.15-mistuned"
SOURCES = sorted([p for p in SOS.iterdir() if p.is_dir()] + [EXAMPLE], key=lambda p: p.name)
# a source with no host count is planned at an assumed figure; give the count where the fixture has none
HOSTS = {"satellite-6.9": 7000, "capsule-6.15-pull-rex": 3000}


def change_sets(source: Path) -> list[ChangeSet]:
    hosts = HOSTS.get(source.name)
    facts = read_source(str(source), hosts=hosts)
    ctx, _ = build_context(facts, hosts=hosts, bench=[])
    sets = []
    if ctx.plan is not None:
        report = SimpleNamespace(findings=run_all(all_rules(), ctx))
        sets.append(change_set(report, ctx.fix_plan or ctx.plan, facts))
    plan = choose_plan(facts, hosts=hosts).plan
    if plan is not None:
        sets.append(build.from_plan(plan, facts))
    return sets


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_a_change_set_never_holds_two_values_for_one_tunable(source: Path) -> None:
    sets = change_sets(source)
    assert sets, source.name
    for cs in sets:
        values = [c for c in cs.changes if c.op == "set"]
        assert len({c.tunable for c in values}) == len(values), [c.tunable for c in values]
        # one place per change: a file edit is one directive of its file (Satellite 6.2 edits several per file)
        places = {(c.channel, c.target, str(c.value).split()[0] if c.channel == "file" else "") for c in cs.changes}
        assert len(places) == len(cs.changes)
        for c in cs.changes:
            assert c.channel in CHANNELS and c.op in OPS and c.effect in EFFECTS, c
        # one channel per value: nothing with an installer option is also (or instead) set in custom-hiera
        for c in values:
            if c.channel == "custom-hiera":
                assert build.installer_option(c.target) is None, c.target
        # a custom-hiera key is never both set and removed
        removed = {c.target for c in cs.changes if c.op == "remove"}
        assert not removed & {c.target for c in values}
        assert sum(c.channel == "profile" for c in cs.changes) <= 1
        if any(c.channel == "profile" for c in cs.changes):
            assert cs.changes[0].channel == "profile"


MISTUNED = ["satellite-6.15", "satellite-6.9", "satellite-6.2", "orcharhino-6.9", "capsule-6.15-pull-rex",
            "satellite-6.15-logstash", "capsule-6.15-measured-failure"]


def audit_out(source: Path, tmp_path: Path) -> tuple[dict[str, str], dict[str, object]]:
    hosts = [str(HOSTS[source.name])] if source.name in HOSTS else []
    out = tmp_path / "out"
    result = run_cli("audit", str(source), *([] if not hosts else ["--hosts", *hosts]), "--out", str(out),
                     "--format", "json", "--fail-on", "critical")
    assert result.status in (0, 1), result.stderr
    files = {str(p.relative_to(out)): p.read_text(encoding="utf-8") for p in sorted(out.rglob("*")) if p.is_file()}
    return files, json.loads(result.stdout)


@pytest.mark.parametrize("name", ["example", *MISTUNED])
def test_audit_out_fixes_the_findings_with_the_profile_first_and_no_stale_key(name: str, tmp_path: Path) -> None:
    source = EXAMPLE if name == "example" else SOS / name
    files, report = audit_out(source, tmp_path)
    failing = [f for f in report["findings"] if f["status"] == "fail" and not f.get("waived")]  # type: ignore[index, union-attr]
    # no stale key survives: each key the stale-keys finding names is gone from the written custom-hiera.yaml
    written = _flat(yaml.safe_load(files.get("custom-hiera.yaml", "")) or {})  # 6.2 reads none: no file
    stale = [key for f in failing if f["rule"] == "custom-hiera-stale-keys" for key in f["current"]]
    for key in stale:
        assert key not in written, key
    if name in ("example", "satellite-6.15"):  # checkpoint_segments (example), maxrequestsperchild (satellite-6.15)
        assert len(stale) == 1
    # the profile change the audit asks for comes first: in installer.sh and as APPLY.md's first step
    asked = [o["value"] for f in failing for fix in f["fixes"] for o in fix["options"] if o["option"] == "--tuning"]
    if asked:
        assert re.search(rf"^\S+-installer \\\n  --tuning {asked[0]}\b", files["installer.sh"], flags=re.M)
        first = files["APPLY.md"].split("\n\n")[1]
        assert first.startswith("First, the tuning profile: `") and f"--tuning {asked[0]}`" in first
    # every value written answers a failing finding: each installer option and custom-hiera value is in a fix line
    fix_text = "\n".join(fix["text"] for f in failing for fix in f["fixes"])
    for option, value in re.findall(r"^  (--[a-z-]+) (\S+?)(?: \\)?$", files["installer.sh"], flags=re.M):
        if option != "--tuning":
            assert f"{option} {value}" in fix_text, option
    site = _flat(yaml.safe_load(_site_hiera(source)) or {})
    for key, value in written.items():
        if site.get(key) != value:  # what the site had stays; anything new comes from a finding's fix
            assert key.rsplit("/", 1)[-1] in fix_text, key


def _flat(hiera: dict[str, object]) -> dict[str, object]:
    """Flattened keys, hashes as ``key/entry`` (the PostgreSQL entries)."""
    return {f"{key}/{k}" if isinstance(value, dict) else key: v for key, value in hiera.items()
            for k, v in (value.items() if isinstance(value, dict) else [(None, value)])}


def _site_hiera(source: Path) -> str:
    path = source / "etc" / "foreman-installer" / "custom-hiera.yaml"
    return path.read_text(encoding="utf-8") if path.exists() else "{}"


def test_the_example_bundle_is_the_large_profile_with_no_double_channel(tmp_path: Path) -> None:
    """The bundled example: tuning default for 15,120 hosts (satellite_metrics.yml); the guide's large profile is for
    10001-20000 hosts ("2. Performance tuning quickstart"), Puma 18 workers (the top of large's 12-18: 16 CPUs allow it),
    16 threads min = max ("we recommend 16 threads with all the tuning profiles"; the answers file already holds
    threads_max 16, so only threads_min is passed, as plan's set has it), db_pool 16 + 4 = 20, Sidekiq 3
    instances x concurrency 5, pulpcore workers min(8, CPUs) = 8, foreman-proxy's dynflow open files 1000000 (the
    installer's own value, not in force: the host shows 1024), hammer's request_timeout -1 (the 6.2 brief's "Set time out
    to -1"; puppet-foreman 16.1.0+ writes foreman::cli::request_timeout into /etc/hammer, so an installer option).
    custom-hiera.yaml loses the stale checkpoint_segments and the foreman::db_pool: 5 that would win over
    --foreman-db-pool; work_mem stays (the guide's 8 MB is held while the box measures MemAvailable 3.9 % with 37.5 %
    of swap in use: pg-work-mem-low, feedback D8), so its hash is left empty. max_connections is not pinned:
    the large profile's 1000 covers the 18 workers the set runs (the 909 the 40 running workers may open go with
    them), and the audit's finding recommends the same 1000 (one value per tunable)."""
    files, _ = audit_out(EXAMPLE, tmp_path)
    # the Puma workers first: memory-budget-over-ram (high, the worst finding) names lowering them as its first fix
    # (after the comment that says a custom-hiera key overrides its option)
    assert [line for line in files["installer.sh"].splitlines()[2:] if not line.startswith("#")] == [
        "satellite-installer \\", "  --tuning large \\", "  --foreman-foreman-service-puma-workers 18 \\",
        "  --foreman-dynflow-worker-concurrency 5 \\", "  --foreman-dynflow-worker-instances 3 \\",
        "  --foreman-db-pool 20 \\", "  --foreman-cli-request-timeout -1 \\",
        "  --foreman-proxy-plugin-dynflow-open-file-limit 1000000 \\",
        "  --foreman-proxy-content-pulpcore-worker-count 8 \\",
        "  --foreman-foreman-service-puma-threads-min 16"]
    hiera = files["custom-hiera.yaml"]
    assert yaml.safe_load(hiera) == {"postgresql::server::config_entries": {}}
    assert "# foretune: removed postgresql::server::config_entries/checkpoint_segments" in hiera
    assert "# foretune: removed foreman::db_pool" in hiera
    steps = files["APPLY.md"]
    assert steps.split("\n\n")[1].startswith("First, the tuning profile: `satellite-installer --tuning large` (now default")
    # every step says how to undo it: custom-hiera, the installer run (hammer's timeout is one of its options, no file
    # edit), the drop-in, os-commands.sh
    numbered = [line for line in steps.splitlines() if re.match(r"\d+\. ", line)]
    assert not any("/etc/hammer" in line for line in numbered)
    assert len(numbered) == 4 and all("Undo:" in line for line in numbered), numbered
    # the answers file's 40 workers (README of the example) are lowered, and APPLY.md says so, never silently
    assert "`--foreman-foreman-service-puma-workers 18` lowers the site's 40" in steps


def test_the_examples_fix_lines_are_the_change_sets() -> None:
    """The fix lines show what the bundle does: the db pool through its installer option after the custom-hiera key
    that would win over it is removed; the Candlepin heap left to the large profile (-Xmx4096m, fi-tuning-profiles),
    which the installer run writes, instead of a pin that would lock out later --tuning changes."""
    result = run_cli("audit", str(EXAMPLE), "--format", "json", "--fail-on", "critical")
    # the Candlepin heap is a value --tuning large writes: listed under profile-too-small-for-hosts, its fix line kept
    fixes = {f["rule"]: [fix["text"] for fix in f["fixes"]] for x in json.loads(result.stdout)["findings"] if x["status"] == "fail"
             for f in (x, *x["symptoms"])}
    assert fixes["foreman-db-pool-too-small"] == [  # each snippet names its file and applies as copied
        "# delete foreman::db_pool from /etc/foreman-installer/custom-hiera.yaml (custom-hiera.yaml sets foreman::db_pool: 5, "
        "which wins over --foreman-db-pool; the file before is kept as /etc/foreman-installer/custom-hiera.yaml.foretune-bak.db_pool):\n"
        "sed -i.foretune-bak.db_pool -e '/^foreman::db_pool:/d' /etc/foreman-installer/custom-hiera.yaml",
        "satellite-installer --foreman-db-pool 20"]
    assert fixes["candlepin-heap-low"] == [
        "# the large profile writes candlepin::java_opts: -Xms1024m -Xmx4096m:\nsatellite-installer --tuning large"]
    assert fixes["profile-too-small-for-hosts"] == ["satellite-installer --tuning large"]


def _journal_rows(root: Path, *args: str) -> set[tuple[str, str, str, str]]:
    result = run_cli("apply", "--root", str(root), "--write", *args)
    assert result.status == 0, result.stderr
    (journal,) = (root / "var/lib/foretune/runs").glob("*/journal.json")
    return {(c["channel"], c.get("op", "set"), c["target"], str(c.get("value"))) for c in json.loads(journal.read_text())["changes"]}


def test_audit_plan_apply_and_apply_audit_take_one_profile_and_one_value_per_tunable(tmp_path: Path) -> None:
    # The example declares --tuning default (6 Puma workers) but manages 15,120 hosts: the guide's large profile
    # (10001-20000 hosts, gf-quickstart), which 16 CPUs and 63.8 GiB meet (foreman-installer 3.9 asks 16 and 64 less
    # its allowance, fi-tuning-hook), with Puma 18 workers (top of large's 12-18, gf-puma-recommendations). Every path
    # that writes a change set for this box moves to large with 18 workers; none stays at default with 6.
    shutil.copytree(EXAMPLE, tmp_path / "a")
    shutil.copytree(EXAMPLE, tmp_path / "b")
    audited = run_cli("audit", str(EXAMPLE), "--output-dir", str(tmp_path / "out"))
    assert audited.status in (0, 1), audited.stderr
    planned = run_cli("plan", "--from", str(EXAMPLE), "--format", "installer")
    assert planned.status == 0, planned.stderr
    applied, applied_audit = _journal_rows(tmp_path / "a"), _journal_rows(tmp_path / "b", "--audit")
    for script in ((tmp_path / "out" / "installer.sh").read_text(), planned.stdout):
        assert "  --tuning large \\\n" in script and "--foreman-foreman-service-puma-workers 18" in script
    for rows in (applied, applied_audit):
        assert ("profile", "set", "--tuning", "large") in rows
        assert ("installer", "set", "--foreman-foreman-service-puma-workers", "18") in rows
    # one change set: the plan's and the audit's are the same, including what the installer gives but the box does
    # not have in force: foreman-proxy runs with 1024 open files (the installer's 1000000, proxy-dynflow-nofile) and
    # THP defrag is 'always' (gf-hardware)
    # work_mem too: the box measures itself short of memory (MemAvailable 3.9 %, 37.5 % of swap in use), so the audit
    # holds the guide's 8MB until memory is freed (pg-work-mem-low, feedback D8), and so does `apply` without --audit
    assert applied == applied_audit
    assert not any("work_mem" in row[2] for row in applied)
    assert ("installer", "set", "--foreman-proxy-plugin-dynflow-open-file-limit", "1000000") in applied
    assert "--foreman-proxy-plugin-dynflow-open-file-limit 1000000" in planned.stdout
    facts = read_source(str(EXAMPLE))
    plan = choose_plan(facts).plan
    assert plan is not None
    from foretune.plan.choose import change_plan

    assert "echo never > /sys/kernel/mm/transparent_hugepage/defrag" in build.from_plan(change_plan(facts) or plan, facts).commands
    values = {(channel, target): value for channel, op, target, value in applied_audit if op == "set"}
    assert len(values) == len([r for r in applied_audit if r[1] == "set"])


def test_apply_md_removes_stale_keys_and_resets_alter_system_before_the_installer_run_then_restarts(tmp_path: Path) -> None:
    # satellite-6.15: custom-hiera.yaml keeps apache::mod::event::maxrequestsperchild (inert since puppetlabs-apache 9),
    # postgresql.auto.conf sets max_connections = '200' over postgresql.conf's 1000 (pg-auto-conf-wins). The stale key
    # goes in the custom-hiera step before the installer run, and no later "delete the stale keys, then run the
    # installer" advice follows it. max_connections needs a server restart, which the installer does not do when
    # postgresql.conf is unchanged: the reset step says to restart and check with SHOW.
    files, _ = audit_out(SOS / "satellite-6.15", tmp_path)
    steps = files["APPLY.md"]
    assert "delete the stale keys" not in steps
    lines = steps.splitlines()
    stale = next(i for i, line in enumerate(lines) if "removes `apache::mod::event::maxrequestsperchild`" in line)
    installer = next(i for i, line in enumerate(lines) if "Run the installer" in line)
    assert stale < installer
    reset = next(line for line in lines if "ALTER SYSTEM RESET max_connections" in line)
    assert "installer run below restarts PostgreSQL" not in reset
    assert "systemctl restart" not in reset and "(the restart step below)" in reset
    # the restart is its own numbered step, once, right after the installer run, and checks with SHOW
    restart = [i for i, line in enumerate(lines) if "`systemctl restart postgresql`" in line]
    assert restart == [installer + 1], restart
    assert re.match(r"\d+\. Restart PostgreSQL, which the installer does not do", lines[installer + 1])
    assert "'SHOW max_connections;'" in lines[installer + 1]


def test_satellite_62_apply_md_carries_the_reports_file_fixes_and_never_lowers_a_site_value(tmp_path: Path) -> None:
    # Satellite 6.2 edits several settings of one file by hand: each fix is its own tunable. The report's file fixes
    # (written from its fix lines): MaxKeepAliveRequests 0 (the brief's katello.conf, which the fixture's vhost does not
    # include: 05-foreman-ssl.conf, which sets MaxKeepAliveRequests 100 itself), PassengerMaxPreloaderIdleTime 0
    # (05-foreman-ssl.conf), shared_buffers = 4992MB (postgresql.conf),
    # mgmt-pub-interval=5 (qpidd.conf). postgresql.conf sets max_connections = 500: the plan's 200 would lower it.
    files, _ = audit_out(SOS / "satellite-6.2", tmp_path)
    edits = re.findall(r"^\d+\. In `([^`]+)` set `([^`]+)`\. Undo: put the old line back\.$", files["APPLY.md"], re.MULTILINE)
    assert sorted(edits) == sorted([
        ("/etc/httpd/conf.d/05-foreman-ssl.conf", "MaxKeepAliveRequests 0"),
        ("/etc/httpd/conf.d/05-foreman-ssl.conf", "PassengerMaxPreloaderIdleTime 0"),
        ("/var/lib/pgsql/data/postgresql.conf", "shared_buffers = 4992MB"),
        ("/etc/qpid/qpidd.conf", "mgmt-pub-interval=5"),
        # passenger-queue-saturated (critical): 250 queued at the queue's 250 with the pool at its size; the queue
        # doubles and MaxClients goes above it: 20 pool + 500 + 150 registrations + 8 Pulp = 678 (ServerLimit 1024 holds it)
        ("/etc/httpd/conf.d/passenger.conf", "PassengerMaxRequestQueueSize 500"),
        ("/etc/httpd/conf.d/prefork.conf", "MaxClients 678")])
    # PassengerMinInstances 6 is puppet-foreman's passenger_min_instances, an installer option on 6.2
    assert files["installer.sh"].splitlines()[-1] == "  --foreman-passenger-min-instances 6"
    # every step says its undo, and the set can be applied with a journal (the installer first, then the edits)
    steps = [line for line in files["APPLY.md"].splitlines() if re.match(r"\d+\. ", line)]
    assert steps and all("Undo:" in step or "again after an undo" in step for step in steps), steps
    assert "`foretune apply --changes changes.json --write --run-installer` runs the installer first" in files["APPLY.md"]
    facts = read_source(str(SOS / "satellite-6.2"))
    planned = build.from_plan(choose_plan(facts).plan, facts)
    assert not any("max_connections" in str(c.value) for c in planned.changes)
    kept = [b for b in planned.blocked if "max_connections" in str(b.change.value)]
    assert len(kept) == 1 and kept[0].change.site_value == "max_connections = 500" and "never lowered" in kept[0].why


def test_a_critical_measured_failure_lowers_a_pinned_site_value_and_says_so(tmp_path: Path) -> None:
    # 31 GiB box, custom-hiera.yaml pins Puma 24 workers ("bumped during registration storm"), an OOM kill of a Puma
    # worker: the CRITICAL puma-workers-over-ram-budget fix is 12 (the guide's medium range 8-12,
    # gf-puma-recommendations). Keeping the pin keeps the OOM: the key goes (custom-hiera wins over the option,
    # fi-hiera-precedence), --foreman-foreman-service-puma-workers 12 is passed, and APPLY.md says it lowers the 24.
    box = SOS / "satellite-6.15-overcommitted"
    files, report = audit_out(box, tmp_path)
    failing = {f["rule"]: f for f in report["findings"] if f["status"] == "fail"}  # type: ignore[index, union-attr]
    assert failing["puma-workers-over-ram-budget"]["severity"] == "critical"
    assert "  --foreman-foreman-service-puma-workers 12" in files["installer.sh"].splitlines()
    assert "foreman_service_puma_workers" not in (yaml.safe_load(files["custom-hiera.yaml"]) or {})
    assert ("`--foreman-foreman-service-puma-workers 12` lowers the site's 24: the critical finding "
            "puma-workers-over-ram-budget asks for it") in files["APPLY.md"]
    assert "Not applied" not in files["APPLY.md"]


def test_a_site_value_above_a_non_critical_fix_is_still_kept() -> None:
    # the same pin, asked down by a medium finding only: kept, never lowered silently
    from foretune.plan import PlanInput, make_plan
    from foretune.plan.model import Fix

    plan = make_plan(PlanInput("satellite", "6.15", hosts=8000, cpus=8, ram_bytes=32 * 1024**3))
    host = build.Host(custom_hiera={"foreman::foreman_service_puma_workers": 24})
    fixes = [("puma-workers-outside-range", (Fix("hiera", "foreman::foreman_service_puma_workers", 12),))]
    kept = build.from_audit(fixes, plan, host)
    assert not any("puma-workers" in c.target for c in kept.changes)
    assert [b.change.site_value for b in kept.blocked] == [24]
    lowered = build.from_audit(fixes, plan, host, lower={"puma-workers-outside-range"})
    assert ("installer", "set", "--foreman-foreman-service-puma-workers", 12) in {
        (c.channel, c.op, c.target, c.value) for c in lowered.changes}
    assert ("custom-hiera", "remove", "foreman::foreman_service_puma_workers") in {
        (c.channel, c.op, c.target) for c in lowered.changes}


@pytest.mark.parametrize("name", ["satellite-6.2-tuned", "capsule-6.2-passenger-tuned"])
def test_a_tuned_62_box_writes_a_bundle_that_says_there_is_nothing_to_change(tmp_path: Path, name: str) -> None:
    # Satellite 6.2 edits files by hand; a tuned box has no edit to make: APPLY.md says so in one line, no "Order:"
    files, _ = audit_out(SOS / name, tmp_path)
    steps = files["APPLY.md"]
    assert "Nothing to change: no step to take, no installer run." in steps
    assert "Order:" not in steps


def test_a_plan_problem_the_box_passes_is_not_in_the_bundles_fix_first_list(tmp_path: Path) -> None:
    # satellite-6.2: postgresql.conf sets max_connections = 500, and pg-max-connections-below-budget passes. The plan's
    # problems compare its budget (138) with the installer's default of 100; on this box they do not hold, so APPLY.md
    # must not ask to "apply the plan's max_connections" (200, which would lower the site's 500).
    files, report = audit_out(SOS / "satellite-6.2", tmp_path)
    status = {f["rule"]: f["status"] for f in report["findings"]}  # type: ignore[index, union-attr]
    assert status["pg-max-connections-below-budget"] == "pass"
    assert "max_connections" not in files["APPLY.md"]


def test_a_declared_profile_the_hardware_refuses_gives_the_audit_the_accepted_profiles_sizing(tmp_path: Path) -> None:
    # The example's box (16 CPUs, 63.8 GiB) declared extra-extra-large, which foreman-installer 3.9's hardware check
    # refuses (48 CPUs, 256 GiB less its 10 % allowance: fi-tuning-hook); the largest profile it accepts is large.
    # Nothing sized for the refused profile could take effect: the audit's bundle moves to --tuning large with large's
    # Puma 18 workers (top of 12-18, gf-puma-recommendations), as plan --from and apply do, never 24 without --tuning.
    tree = tmp_path / "sos"
    shutil.copytree(EXAMPLE, tree, symlinks=True)
    scenario = tree / "etc/foreman-installer/scenarios.d/satellite.yaml"
    scenario.write_text(scenario.read_text(encoding="utf-8").replace("tuning: default", "tuning: extra-extra-large"), encoding="utf-8")
    files, _ = audit_out(tree, tmp_path)
    script = files["installer.sh"]
    assert "  --tuning large \\\n" in script and script.rstrip().endswith("--foreman-foreman-service-puma-workers 18")


def test_apply_prefer_foretune_lowers_a_pinned_site_value_and_says_so(tmp_path: Path) -> None:
    # satellite-6.15-overcommitted pins Puma 24 workers in custom-hiera.yaml. apply keeps it by default (never lowered
    # silently); with --prefer foretune (its --help: "write foretune's") the pin goes and the installer option is
    # passed, and the change says it lowers the site's 24 as asked.
    box = SOS / "satellite-6.15-overcommitted"
    kept, asked = tmp_path / "kept", tmp_path / "asked"
    shutil.copytree(box, kept, symlinks=True)
    shutil.copytree(box, asked, symlinks=True)
    default = run_cli("apply", "--root", str(kept))
    assert default.status == 0, default.stderr
    assert "the site's value is kept (never lowered silently)" in default.stderr
    lowered = run_cli("apply", "--root", str(asked), "--prefer", "foretune")
    assert lowered.status == 0, lowered.stderr
    assert "never lowered silently" not in lowered.stderr
    assert "-foreman::foreman_service_puma_workers: 24" in lowered.stdout
    assert "--foreman-foreman-service-puma-workers" in lowered.stdout + lowered.stderr
    assert "lowers the site's 24: --foreman-foreman-service-puma-workers " in lowered.stdout


def test_plan_and_apply_keep_a_pinned_site_value_but_say_the_audit_lowers_it_and_how(tmp_path: Path) -> None:
    # satellite-6.15-overcommitted: custom-hiera.yaml pins 24 Puma workers, and the box measures an OOM kill of a Puma
    # worker (var/log/messages) and 6.0 GiB of 8.0 GiB swap in use (proc/meminfo). plan --from and apply keep the pin
    # (no measured failure gives a plan the right to lower a site value); the audit's critical
    # puma-workers-over-ram-budget lowers it to 12 (the guide's medium range 8-12, gf-puma-recommendations). The two
    # sets differ on purpose: plan's APPLY.md, its custom-hiera.yaml and apply's output say so, with the audit's value
    # and the command that writes or applies the audit's set.
    box = SOS / "satellite-6.15-overcommitted"
    # the line says too that the budget with the kept 24 workers does not fit the box's 31.1 GiB (MemTotal 32652268
    # kB): 24 workers x ~1 GiB (gf-puma-autotuning) alone take 24 GiB of it (feedback D14)
    over = re.search(r"; with it, even the lowest resident sizes the sources give add up to \d+\.\d GiB but the box has "
                     r"31\.1 GiB: it will swap, and the guides say a Satellite must never swap\.",
                     run_cli("apply", "--root", str(box)).stderr)
    assert over is not None
    said = ("custom-hiera.yaml sets foreman::foreman_service_puma_workers: 24, above foretune's 12: the site's value is "
            f"kept (never lowered silently){over.group(0)[:-1]}. The audit lowers it to 12: its critical finding "
            "puma-workers-over-ram-budget rests on what the box measures (memory-budget-over-ram, oom-kills, swap-in-use); ")
    result = run_cli("plan", "--from", str(box), "--output-dir", str(tmp_path / "plan"))
    assert result.status == 0, result.stderr
    steps = (tmp_path / "plan/APPLY.md").read_text(encoding="utf-8")
    assert (f"- `--foreman-foreman-service-puma-workers` 12: {said}`foretune audit {box} --output-dir fixes/` writes the "
            "set that does it\n") in steps
    hiera = (tmp_path / "plan/custom-hiera.yaml").read_text(encoding="utf-8")
    assert hiera.splitlines()[0] == (f"# foretune: kept --foreman-foreman-service-puma-workers: {said}"
                                     f"`foretune audit {box} --output-dir fixes/` writes the set that does it")
    assert "foreman::foreman_service_puma_workers: 24" in hiera  # kept
    fragment = run_cli("plan", "--from", str(box), "--format", "hiera").stdout
    assert (f"# foretune: kept --foreman-foreman-service-puma-workers: {said}`foretune audit {box} --output-dir fixes/` "
            "writes the set that does it\n---\n") in fragment
    copy = tmp_path / "box"
    shutil.copytree(box, copy, symlinks=True)
    result = run_cli("apply", "--root", str(copy), "--hosts", "9000")
    assert result.status == 0, result.stderr
    assert (f"not applied: puma.workers: {said}`foretune apply --root {copy} --hosts 9000 --audit` applies that set\n"
            in result.stderr)
    result = run_cli("apply", "--root", str(copy), "--hosts", "9000", "--audit")  # the command it names does it
    assert "lowers the site's 24: --foreman-foreman-service-puma-workers 12 (the critical finding" in result.stdout


def test_a_kept_site_value_no_measured_failure_asks_down_says_nothing_of_the_audit(tmp_path: Path) -> None:
    # satellite-6.15 (no OOM kill, no swap): a custom-hiera pin of 30 Puma workers above the plan's value is kept, and
    # the audit, which measures no failure there, lowers nothing: no word of the audit in the line
    box = tmp_path / "box"
    shutil.copytree(SOS / "satellite-6.15", box, symlinks=True)
    (box / "etc/foreman-installer/custom-hiera.yaml").write_text("foreman::foreman_service_puma_workers: 30\n", encoding="utf-8")
    result = run_cli("apply", "--root", str(box))
    assert result.status == 0, result.stderr
    [line] = [line for line in result.stderr.splitlines() if "not applied: puma.workers" in line]
    assert line.endswith("the site's value is kept (never lowered silently)")


def test_apply_says_which_site_values_it_lowers_and_which_restart_it_needs(tmp_path: Path) -> None:
    # satellite-6.15-overcommitted: the critical OOM finding lowers the pinned 24 Puma workers to 12 (gf-puma-recommendations,
    # medium 8-12), and postgresql.auto.conf's max_connections = '300' is reset, which takes effect on a PostgreSQL
    # restart only (pg-alter-system-reset); the installer does not restart it when postgresql.conf is unchanged
    box = tmp_path / "box"
    shutil.copytree(SOS / "satellite-6.15-overcommitted", box, symlinks=True)
    result = run_cli("apply", "--root", str(box), "--audit")
    assert result.status == 0, result.stderr
    assert "lowers the site's 24: --foreman-foreman-service-puma-workers 12 (the critical finding puma-workers-over-ram-budget" in result.stdout
    assert "needs a restart: max_connections takes effect when postgresql restarts" in result.stdout
    assert "`systemctl restart postgresql`" in result.stdout


def test_apply_md_copies_the_merged_file_only_while_the_hosts_file_is_unchanged(tmp_path: Path) -> None:
    # the example's custom-hiera.yaml holds no secret, so the bundle's copy is that file with the changes merged in;
    # the host's file may have changed since the sosreport: APPLY.md says to diff first, and to merge on the host if so
    files, _ = audit_out(EXAMPLE, tmp_path)
    step = next(line for line in files["APPLY.md"].splitlines() if "`custom-hiera.yaml` here is the source's" in line)
    assert "If the host's file is still the one the source holds (`diff` them)" in step
    # merged on the host with the audit's own set (render would plan its own), with a backup, a journal and verify
    assert ("`foretune apply --from live --audit` shows it as a diff, `foretune apply --from live --audit --write` writes it "
            "with a backup and a journal (undo: `foretune apply --rollback last`), `foretune verify` then tells what is in "
            "force") in step
    assert "render --from live --merge-into" not in files["APPLY.md"]
    assert "in its place" not in files["APPLY.md"]


def test_plan_from_shows_in_every_format_the_plan_its_change_set_is_built_from(tmp_path: Path) -> None:
    # the example declares --tuning default for 15,120 hosts, which call for large (10001-20000 hosts,
    # fi-tuning-profiles): the change set moves to large with 18 Puma workers (the top of large's 12-18,
    # gf-puma-recommendations). The table an admin reviews shows that same plan, not the declared default's 6 workers.
    table = run_cli("plan", "--from", str(EXAMPLE))
    assert table.status == 0, table.stderr
    assert "profile: large — the profile the change set moves to: 15120 hosts need it" in table.stdout
    workers = next(line for line in table.stdout.splitlines() if line.startswith("puma.workers "))
    assert workers.split()[4] == "18", workers  # tunable, installer value, its origin, the change mark, foretune
    command = run_cli("plan", "--from", str(EXAMPLE), "--format", "installer").stdout
    assert "--tuning large" in command and "--foreman-foreman-service-puma-workers 18" in command
    data = json.loads(run_cli("plan", "--from", str(EXAMPLE), "--format", "json").stdout)
    assert data["profile"]["name"] == "large"


def test_a_plan_bundle_merges_on_the_host_with_apply_and_the_same_plan_options(tmp_path: Path) -> None:
    # plan --output-dir from options: APPLY.md's merge step applies the set on the host with the same plan inputs,
    # with a backup and a journal, then verify; never render, which would plan on its own
    result = run_cli("plan", "--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G",
                     "--output-dir", str(tmp_path / "p"))
    assert result.status == 0, result.stderr
    steps = (tmp_path / "p/APPLY.md").read_text(encoding="utf-8")
    same = "foretune apply --from live --product satellite --version 6.15 --cpus 16 --ram 64G --hosts 15000"
    assert f"`{same}` shows the same set as a diff and `{same} --write` merges it with a backup and a journal" in steps
    assert "foretune render" not in steps


def test_the_host_side_command_carries_every_plan_input_the_bundle_was_built_with(tmp_path: Path) -> None:
    # every input that changes the plan goes on the host-side command, or `apply --from live` plans on its own from the
    # host's facts: the profile (--tuning), the box, the workload and the switches; a RAM size in MiB stays in MiB
    argv = ["--product", "satellite", "--version", "6.15", "--role", "server", "--cpus", "16", "--physical-cores", "8",
            "--ram", "49152M", "--bare-metal", "--hosts", "15000", "--rex", "pull-mqtt", "--rex-hosts", "4000",
            "--katello-agent-hosts", "0", "--puppet-hosts", "300", "--puppet-runinterval", "3600", "--profile", "large"]
    result = run_cli("plan", *argv, "--output-dir", str(tmp_path / "p"))
    assert result.status == 0, result.stderr
    steps = (tmp_path / "p/APPLY.md").read_text(encoding="utf-8")
    same = ("foretune apply --from live --product satellite --version 6.15 --role server --cpus 16 --physical-cores 8 "
            "--ram 48G --bare-metal --hosts 15000 --rex pull-mqtt --rex-hosts 4000 --katello-agent-hosts 0 "
            "--puppet-hosts 300 --puppet-runinterval 3600 --profile large")
    assert f"`{same}` shows the same set as a diff" in steps, steps
    # plain Foreman and a VM: the switches that say so
    result = run_cli("plan", "--product", "foreman", "--version", "3.9", "--no-katello", "--virtual", "--cpus", "4",
                     "--ram", "1536M", "--hosts", "50", "--output-dir", str(tmp_path / "f"))
    assert result.status == 0, result.stderr
    steps = (tmp_path / "f/APPLY.md").read_text(encoding="utf-8")
    assert ("`foretune apply --from live --product foreman --version 3.9 --no-katello --cpus 4 --ram 1536M --virtual "
            "--hosts 50` shows") in steps, steps


def test_render_from_a_source_takes_the_profile_its_change_set_moves_to(tmp_path: Path) -> None:
    # the example declares default for 15,120 hosts (large: 10001-20000, fi-tuning-profiles): render --from plans as
    # plan --from and the bundles do, so its installer line moves to --tuning large with large's 18 Puma workers
    # (gf-puma-recommendations), never default's values pinned under the profile the bundle asks for
    target = tmp_path / "custom-hiera.yaml"
    shutil.copyfile(EXAMPLE / "etc/foreman-installer/custom-hiera.yaml", target)
    result = run_cli("render", "--from", str(EXAMPLE), "--merge-into", str(target))
    assert result.status == 0, result.stderr
    run_line = next(line for line in result.stderr.splitlines() if "; run: " in line)
    assert "--tuning large " in run_line and "--foreman-foreman-service-puma-workers 18" in run_line
    assert "--tuning default" not in result.stderr + result.stdout


def test_the_bundles_changes_json_applies_as_reviewed(tmp_path: Path) -> None:
    # the example's audit bundle: changes.json is the set its files hold; apply --changes on a copy of the box gives
    # the installer command of installer.sh (--tuning large, 18 Puma workers: gf-puma-recommendations) and the
    # custom-hiera.yaml of the bundle, and APPLY.md offers that path with verify
    files, _ = audit_out(EXAMPLE, tmp_path)
    assert "`foretune apply --changes changes.json` shows it as a diff against the host" in files["APPLY.md"]
    data = json.loads(files["changes.json"])
    assert data["changes"][0]["channel"] == "profile" and data["changes"][0]["value"] == "large"
    box = tmp_path / "box"
    shutil.copytree(EXAMPLE, box, symlinks=True)
    result = run_cli("apply", "--root", str(box), "--changes", str(tmp_path / "out/changes.json"), "--write")
    assert result.status == 0, result.stderr
    command = next(line for line in result.stdout.splitlines() if line.startswith("installer command: "))
    script = " ".join(word for line in files["installer.sh"].splitlines()[2:] if not line.startswith("#") for word in line.split() if word != "\\")
    assert command == "installer command: " + script
    written = (box / "etc/foreman-installer/custom-hiera.yaml").read_text(encoding="utf-8")
    assert yaml.safe_load(written) == yaml.safe_load(files["custom-hiera.yaml"])  # the bundle's adds only comment lines


def test_a_release_without_custom_hiera_gets_no_custom_hiera_file(tmp_path: Path) -> None:
    # Satellite 6.2 (Foreman 1.11) reads no custom-hiera.yaml: a file of that name copied to /etc/foreman-installer/
    # would do nothing; APPLY.md carries the 6.2 channels (installer options, file edits)
    files, _ = audit_out(SOS / "satellite-6.2", tmp_path)
    assert "custom-hiera.yaml" not in files and "APPLY.md" in files and "installer.sh" in files
    hiera = run_cli("audit", str(SOS / "satellite-6.2"), "--format", "hiera")
    assert hiera.status in (0, 1) and "reads no custom-hiera.yaml" in hiera.stdout, hiera.stderr


def test_apply_md_sizes_tomcat_for_the_puma_workers_the_set_leaves(tmp_path: Path) -> None:
    # the example runs 40 Puma workers x 16 threads (640 > Tomcat's 150); its set lowers them to 18, so the server.xml
    # edit asks for 18 x 16 = 288 threads, not 640
    files, _ = audit_out(EXAMPLE, tmp_path)
    assert "--foreman-foreman-service-puma-workers 18" in files["installer.sh"]
    assert 'set maxThreads="288" on the Candlepin HTTPS <Connector>' in files["APPLY.md"]
    assert 'maxThreads="640"' not in files["APPLY.md"]


def test_apply_md_drops_the_tomcat_edit_when_the_set_s_puma_fits_its_default(tmp_path: Path) -> None:
    # the eyes-a OOM box: 24 workers x 16 threads asked for maxThreads 384; the set lowers Puma to 6 workers, whose
    # 6 x 16 = 96 threads fit puppet-candlepin's maxThreads="150": the edit (reverted by every installer run) goes
    from foretune.changes import build
    from foretune.changes.model import Change
    from foretune.plan.model import PlanInput
    from foretune.plan.planner import make_plan

    plan = make_plan(PlanInput("satellite", "6.15", hosts=3000, cpus=4, ram_bytes=20 * 1024**3, profile="default"))
    b = build._Builder(plan, build.Host())
    b.changes["puma.workers"] = Change("puma.workers", "installer", "--foreman-foreman-service-puma-workers", 6)
    b.advice.append((build.TOMCAT_SERVER_XML, 'set maxThreads="384" on the Candlepin HTTPS <Connector> in x'))
    assert [a for a in b.result().advice if a[0] == build.TOMCAT_SERVER_XML] == []


def test_an_audit_bundle_names_the_apply_command_with_the_audits_rules_and_waivers(tmp_path: Path) -> None:
    # audit --ignore httpd-nofile-low --waivers (pg-work-mem-low accepted) on satellite-6.15: the bundle has neither
    # httpd's LimitNOFILE drop-in nor work_mem 8MB. APPLY.md's host command carries the same options, so it gives the
    # same set on the host: apply --audit with them leaves out the same fixes (the journal lists the bundle's changes).
    tree = tmp_path / "host"
    shutil.copytree(SOS / "satellite-6.15", tree, symlinks=True)
    waivers = tmp_path / "w.yaml"
    waivers.write_text("- {rule: pg-work-mem-low, reason: reporting queries sized by hand}\n", encoding="utf-8")
    bundle = tmp_path / "fixes"
    result = run_cli("audit", str(tree), "--ignore", "httpd-nofile-low", "--select", "postgresql,apache,os,puma",
                     "--waivers", str(waivers), "--output-dir", str(bundle))
    assert result.status in (0, 1), result.stderr
    steps = (bundle / "APPLY.md").read_text(encoding="utf-8")
    command = (f"foretune apply --from live --audit --select postgresql,apache,os,puma --ignore httpd-nofile-low "
               f"--waivers {waivers}")
    assert f"`{command}` shows it as a diff, `{command} --write` writes it" in steps
    assert not (bundle / "systemd/httpd.service.d/limits.conf").exists()
    assert "work_mem" not in (bundle / "custom-hiera.yaml").read_text(encoding="utf-8")
    on_host = run_cli("apply", "--root", str(tree), *command.split()[4:], "--write")
    assert on_host.status == 0, on_host.stderr
    [journal] = (tree / "var/lib/foretune/runs").glob("*/journal.json")
    written = sorted(c["tunable"] for c in json.loads(journal.read_text(encoding="utf-8"))["changes"])
    bundled = sorted(c["tunable"] for c in json.loads((bundle / "changes.json").read_text(encoding="utf-8"))["changes"])
    assert written == bundled
    assert "LimitNOFILE" not in on_host.stdout and "work_mem" not in on_host.stdout


def test_apply_takes_select_and_ignore_only_with_audit(tmp_path: Path) -> None:
    tree = tmp_path / "host"
    shutil.copytree(SOS / "satellite-6.15", tree, symlinks=True)
    for option in ("--select", "--ignore"):
        refused = run_cli("apply", "--root", str(tree), option, "httpd")
        assert refused.status == 2 and refused.stderr == (f"foretune: error: {option} goes with --audit (it picks the "
                                                          "audit's rules whose fixes are applied)\n"), refused.stderr
    unknown = run_cli("apply", "--root", str(tree), "--audit", "--select", "nosuch")
    assert unknown.status == 2
    assert unknown.stderr == "foretune: error: unknown rule or component: nosuch (see: foretune rules list)\n"


def test_apply_md_deletes_an_included_line_and_hides_a_run_drop_in_as_apply_does(tmp_path: Path) -> None:
    # the example with postgresql.conf including tuning-local.conf (shared_buffers = 1GB, effective_cache_size = 1GB:
    # the last entry wins, pg-include) and a /run drop-in of httpd read after limits.conf (LimitNOFILE=4096). The set
    # takes those lines out (feedback D8: APPLY.md said "set" them) and hides the /run file with a same-named /etc
    # drop-in (systemd-dropin-dirs; feedback D9: APPLY.md said to mv an /etc path that does not exist).
    box = tmp_path / "box"
    shutil.copytree(EXAMPLE, box, symlinks=True)
    with (box / "var/lib/pgsql/data/postgresql.conf").open("a", encoding="utf-8") as handle:
        handle.write("include 'tuning-local.conf'\n")
    (box / "var/lib/pgsql/data/tuning-local.conf").write_text("shared_buffers = 1GB\neffective_cache_size = 1GB\n",
                                                               encoding="utf-8")
    run_dir = box / "run/systemd/system/httpd.service.d"
    run_dir.mkdir(parents=True)
    (run_dir / "zz-run.conf").write_text("[Service]\nLimitNOFILE=4096\n", encoding="utf-8")
    bundle = tmp_path / "fixes"
    assert run_cli("audit", str(box), "--output-dir", str(bundle)).status in (0, 1)
    steps = (bundle / "APPLY.md").read_text(encoding="utf-8")
    assert "set `shared_buffers = 1GB`" not in steps and "set `effective_cache_size = 1GB`" not in steps
    assert ("In `/var/lib/pgsql/data/tuning-local.conf` delete the line `shared_buffers = 1GB`, then `systemctl restart "
            "postgresql` (PostgreSQL reads it only when it starts)") in steps
    assert ("In `/var/lib/pgsql/data/tuning-local.conf` delete the line `effective_cache_size = 1GB`, then `sudo -u "
            "postgres psql -c 'SELECT pg_reload_conf();'` (a reload is enough)") in steps
    assert "Undo: put the line back and restart again." in steps
    assert "mv /etc/systemd/system/httpd.service.d/zz-run.conf" not in steps
    assert ("Create `/etc/systemd/system/httpd.service.d/zz-run.conf` as a copy of `/run/systemd/system/httpd.service.d/"
            "zz-run.conf` without the lines that shadow the change (`sed '/^LimitNOFILE=/d' /run/systemd/system/"
            "httpd.service.d/zz-run.conf > /etc/systemd/system/httpd.service.d/zz-run.conf`) and run `systemctl "
            "daemon-reload`") in steps
    assert "Undo: remove `/etc/systemd/system/httpd.service.d/zz-run.conf` and run `systemctl daemon-reload`." in steps


def test_the_profile_change_says_why_it_moves_never_forced_with_profile(tmp_path: Path) -> None:
    # the example declares --tuning default for 15,120 hosts (large: 10001-20000 hosts, fi-tuning-profiles). No
    # --profile is given, so neither apply nor apply --audit may record "forced with --profile" (feedback D1); with
    # 8 CPUs and 32 GiB the installer refuses large (16 CPUs, 64 GiB, fi-tuning-hook) and the set moves to medium,
    # saying why.
    box = tmp_path / "box"
    shutil.copytree(EXAMPLE, box, symlinks=True)
    for extra in ((), ("--audit",)):
        result = run_cli("apply", "--root", str(box), *extra)
        assert result.status == 0, result.stderr
        assert ("replaces the site's default: --tuning large (the profile the change set moves to: 15120 hosts need it, "
                "the installer's tuning fact declares default)\n") in result.stdout
        assert "forced with --profile" not in result.stdout
    result = run_cli("apply", "--root", str(box), "--cpus", "8", "--ram", "32G")
    assert result.status == 0, result.stderr
    assert ("replaces the site's default: --tuning medium (the largest profile the installer's hardware check accepts "
            "on this box: 15120 hosts need large, which it refuses; the installer's tuning fact declares default)") in result.stdout


def test_an_audit_set_takes_out_no_include_line_that_nothing_it_changes_needs(tmp_path: Path) -> None:
    # satellite-6.15-tuned with a DBA's conf.d/10-dba.conf (max_connections = 600, which postgresql.conf includes
    # after its own 1000): no finding asks about max_connections and the audit's set neither changes it nor the
    # profile, so `audit --output-dir` leaves the file alone ("writes exactly what fixes the findings"); plan's set,
    # which puts the plan's max_connections in force, takes the line out (pg-config-includes)
    source = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15-tuned", source, symlinks=True)
    include_conf_d(source, "10-dba.conf", "max_connections = 600\n")
    files, _ = audit_out(source, tmp_path)
    assert "10-dba.conf" not in files["APPLY.md"] and "10-dba.conf" not in files["changes.json"]
    facts = read_source(str(source))
    planned = build.from_plan(choose_plan(facts).plan, facts)
    assert planned.for_tunable("unshadow:/var/lib/pgsql/data/conf.d/10-dba.conf:max_connections") is not None


def test_an_scl_postgresql_is_restarted_by_its_own_unit(tmp_path: Path) -> None:
    # satellite-6.9 runs PostgreSQL 12 from the SCL on EL7 (/var/opt/rh/rh-postgresql12/lib/pgsql/data), whose unit is
    # rh-postgresql12-postgresql.service: `systemctl restart postgresql` fails there ("Unit postgresql.service not
    # found"). A postgresql.auto.conf max_connections = '300' below the plan's is reset, then that unit restarts.
    source = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.9", source, symlinks=True)
    data = source / "var/opt/rh/rh-postgresql12/lib/pgsql/data"
    (data / "postgresql.auto.conf").write_text("max_connections = '300'\n", encoding="utf-8")
    out = tmp_path / "plan"
    assert run_cli("plan", "--from", str(source), "--hosts", "7000", "--output-dir", str(out)).status == 0
    steps = (out / "APPLY.md").read_text(encoding="utf-8")
    assert "systemctl restart rh-postgresql12-postgresql" in steps
    assert "systemctl restart postgresql`" not in steps and "systemctl restart postgresql " not in steps
    reset = next(c for c in json.loads((out / "changes.json").read_text(encoding="utf-8"))["changes"]
                 if c["tunable"] == "reset:postgresql:max_connections")
    assert reset["units"] == ["rh-postgresql12-postgresql"]


def test_a_vhost_keepalive_off_is_seen_and_said(tmp_path: Path) -> None:
    # Satellite 6.8 (Foreman 2.0): the server-wide apache::keepalive is the key; the Foreman vhost's own `KeepAlive
    # Off` wins over it for the clients (httpd-vhost-overrides). The plan's KeepAlive On is the installer's too, yet
    # the set gives apache::keepalive and says why it takes effect: puppet-foreman 14 renders the vhost without the
    # line (pf-keepalive-dropped)
    source = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.9-prefork", source, symlinks=True)
    for rpms in (source / "sos_commands/rpm").iterdir():
        rpms.write_text(rpms.read_text(encoding="utf-8").replace("foreman-2.3.1.20-1", "foreman-2.0.3.1-1")
                        .replace("satellite-6.9.4-1", "satellite-6.8.6-1"), encoding="utf-8")
    vhost = source / "etc/httpd/conf.d/05-foreman-ssl.conf"
    facts = read_source(str(source))
    assert build.from_plan(choose_plan(facts, hosts=7000).plan, facts).for_tunable("apache.keepalive") is None  # "on"
    vhost.write_text(vhost.read_text(encoding="utf-8").replace("  KeepAlive on", "  KeepAlive Off"), encoding="utf-8")
    facts = read_source(str(source))
    change = build.from_plan(choose_plan(facts, hosts=7000).plan, facts).for_tunable("apache.keepalive")
    assert change is not None and (change.channel, change.target, change.value) == ("custom-hiera", "apache::keepalive", True)
    assert change.reason.startswith("05-foreman-ssl.conf sets KeepAlive Off itself, which wins over the server-wide value")
    assert "pf-keepalive-dropped" in change.citations
    assert change.overridden_by == ("vhost (05-foreman-ssl.conf)",)


def test_a_62_plan_from_a_box_shows_the_vhost_keepalive_in_force_and_adds_nothing_already_there(tmp_path: Path) -> None:
    # acceptance D1 residue: satellite-6.2 with httpd.conf's KeepAlive On / MaxKeepAliveRequests 0 / KeepAliveTimeout 5
    # and a Foreman vhost that sets only `KeepAlive Off` (its own line wins for the vhost, httpd.conf's others hold):
    # the plan's installer column is Off / 5 / 0 (not puppet-foreman's off / 15 / 100) and the set changes KeepAlive only
    source = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.2", source, symlinks=True)
    conf = source / "etc/httpd/conf/httpd.conf"
    conf.write_text(conf.read_text(encoding="utf-8").replace("KeepAlive Off\nMaxKeepAliveRequests 100\nKeepAliveTimeout 15\n",
                                                             "KeepAlive On\nMaxKeepAliveRequests 0\nKeepAliveTimeout 5\n"),
                    encoding="utf-8")
    vhost = source / "etc/httpd/conf.d/05-foreman-ssl.conf"
    text = vhost.read_text(encoding="utf-8")
    assert "  KeepAlive on\n  MaxKeepAliveRequests 100\n  KeepAliveTimeout 5\n" in text
    vhost.write_text(text.replace("  KeepAlive on\n  MaxKeepAliveRequests 100\n  KeepAliveTimeout 5\n", "  KeepAlive Off\n"),
                     encoding="utf-8")
    facts = read_source(str(source), hosts=6000)
    plan = choose_plan(facts, hosts=6000).plan
    installer = {tid: plan.tunables[tid].installer.value
                 for tid in ("apache.keepalive", "apache.keepalive_timeout", "apache.max_keepalive_requests")}
    assert installer == {"apache.keepalive": False, "apache.keepalive_timeout": 5, "apache.max_keepalive_requests": 0}
    planned = build.from_plan(plan, facts)
    assert planned.for_tunable("apache.keepalive_timeout") is None and planned.for_tunable("apache.max_keepalive_requests") is None
    change = planned.for_tunable("apache.keepalive")
    assert change is not None and (change.target, change.value) == ("/etc/httpd/conf.d/05-foreman-ssl.conf", "KeepAlive On")


def test_each_change_says_what_overrides_it_by_the_release_s_precedence(tmp_path: Path) -> None:
    # the issue: each change carries "what it overrides and what overrides it". By precedence.yaml: custom-hiera over
    # the answers file (an installer option) from foreman-installer 1.14, over the profile too; an included file and
    # postgresql.auto.conf over postgresql.conf (PostgreSQL 9.4+); a drop-in read later over foretune's limits.conf
    run_cli("plan", "--from", str(EXAMPLE), "--output-dir", str(tmp_path))
    changes = {c["tunable"]: c for c in json.loads((tmp_path / "changes.json").read_text(encoding="utf-8"))["changes"]}
    assert changes["profile"]["overridden_by"] == ["answers", "custom-hiera"]
    assert changes["puma.workers"]["overridden_by"] == ["custom-hiera", "foreman.service drop-in read after installer.conf"]
    assert changes["foreman.db_pool"]["overridden_by"] == ["custom-hiera"]
    facts = read_source(str(EXAMPLE), hosts=7000)  # at the medium profile the plan sets PostgreSQL entries
    pg = [c for c in build.from_plan(choose_plan(facts, hosts=7000).plan, facts).changes
          if c.target.startswith("postgresql::server::config_entries") and c.op == "set"]
    assert pg and all(c.overridden_by == ("include", "postgresql.auto.conf") for c in pg)
    assert changes["httpd.limit_nofile"]["overridden_by"] == ["httpd.service drop-in read after limits.conf"]
    # Satellite 6.2 reads no custom-hiera.yaml: its installer option is the top of the installer's layers
    facts = read_source(str(SOS / "satellite-6.2"))
    planned = build.from_plan(choose_plan(facts).plan, facts)
    option = planned.for_tunable("passenger.min_instances")
    assert option is not None and option.channel == "installer" and option.overridden_by == ()
    edit = planned.for_tunable("postgresql.shared_buffers")
    assert edit is not None and edit.overridden_by == ("include",)  # PostgreSQL 9.2: no postgresql.auto.conf yet


def test_no_change_for_a_service_the_box_does_not_run(tmp_path: Path) -> None:
    # satellite-6.2's systemctl lists the Foreman services it runs, and no smart_proxy_dynflow_core (remote execution
    # is not installed): no settings.yml, no drop-in and no restart for it, in any output; each is listed as not applied
    # with why, so that verify is not left pending for a service that never starts
    facts = read_source(str(SOS / "satellite-6.2"))
    planned = build.from_plan(choose_plan(facts).plan, facts)
    assert not [c for c in planned.changes if "smart_proxy_dynflow_core" in (c.target + c.file + " ".join(c.units))]
    said = {b.change.tunable: b.why for b in planned.blocked}
    assert said["smart_proxy_dynflow.limit_nofile"].startswith("smart_proxy_dynflow_core is not on this box")
    assert "smart_proxy_dynflow.database" in said
    out = tmp_path / "out"
    assert run_cli("plan", "--from", str(SOS / "satellite-6.2"), "--output-dir", str(out)).status == 0
    assert not (out / "systemd" / "smart_proxy_dynflow_core.service.d").exists()
    # a unit systemctl lists keeps its change (httpd's limit)
    assert planned.for_tunable("httpd.limit_nofile") is not None
