"""Precedence traps: each a fixture tree (tests/fixtures/changes/<trap> laid over satellite-6.15-tuned) with the change
set expected of it, written by hand.

The base box: Satellite 6.15 (Foreman 3.9, PostgreSQL 12), 16 CPUs, 64 GiB, ``--tuning medium``, Puma 12 workers x 5/5
threads, given ``--hosts 6000`` (medium's range is 5001-10000). What every tree shares, from the guides:
- work_mem 8 MB (gf-postgresql: "work_mem 8 MB"): a PostgreSQL entry, which has no installer option -> custom-hiera;
- 2 Sidekiq workers for 5001-10000 hosts (gf-dynflow, stepped by the profiles' host ranges in planner.yaml) ->
  ``--foreman-dynflow-worker-instances``, an installer option of puppet-foreman;
- hammer's request_timeout -1 at this scale (g62-hammer) -> ``--foreman-cli-request-timeout``: puppet-foreman 16.1.0
  and later write foreman::cli::request_timeout into /etc/hammer/cli.modules.d/foreman.yml, so a hand edit there would
  be reverted by the next installer run.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from foretune.audit.context import build_context
from foretune.audit.runner import run_all
from foretune.changes import build
from foretune.changes.model import ChangeSet
from foretune.commands.audit import change_set
from foretune.facts import read_source
from foretune.plan import PlanInput, make_plan
from foretune.plan.choose import choose_plan
from foretune.plan.model import Fix
from foretune.rules.registry import all_rules
from tests.conftest import REPO, include_conf_d, run_cli

BASE = REPO / "tests" / "fixtures" / "sosreports" / "satellite-6.15-tuned"
TRAPS = REPO / "tests" / "fixtures" / "changes"
HOSTS = 6000
PG = "postgresql::server::config_entries"

SHARED = {
    ("custom-hiera", "set", f"{PG}/work_mem", "8MB"),
    ("installer", "set", "--foreman-dynflow-worker-instances", 2),
    ("installer", "set", "--foreman-cli-request-timeout", -1),
}


def tree(tmp_path: Path, *traps: str) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(BASE, root)
    for trap in traps:
        shutil.copytree(TRAPS / trap, root, dirs_exist_ok=True)
    return root


def audit_changes(root: Path, hosts: int = HOSTS) -> ChangeSet:
    """The change set `audit --output-dir` writes for ``root`` (the same calls as the command)."""
    facts = read_source(str(root), hosts=hosts)
    ctx, _ = build_context(facts, hosts=hosts, bench=[])
    report = SimpleNamespace(findings=run_all(all_rules(), ctx))
    plan = ctx.fix_plan or ctx.plan
    result: ChangeSet = change_set(report, plan, facts)
    return result


def plan_changes(root: Path) -> ChangeSet:
    facts = read_source(str(root), hosts=HOSTS)
    plan = choose_plan(facts, hosts=HOSTS).plan
    assert plan is not None
    return build.from_plan(plan, facts)


def rows(cs: ChangeSet) -> set[tuple[Any, ...]]:
    return {(c.channel, c.op, c.target, c.value) for c in cs.changes}


def test_the_base_tree_needs_only_the_shared_changes(tmp_path: Path) -> None:
    assert rows(audit_changes(tree(tmp_path))) == SHARED


def test_alter_system_is_reset_and_the_profile_gives_the_value(tmp_path: Path) -> None:
    # postgresql.auto.conf: max_connections = '100' wins over postgresql.conf's 1000 (pg-auto-conf-wins). The medium
    # profile already writes 1000 into postgresql.conf, so the one change is ALTER SYSTEM RESET: no pinned custom-hiera
    # value, which would lock out later --tuning changes.
    cs = audit_changes(tree(tmp_path, "auto-conf"))
    assert rows(cs) == SHARED | {("alter-system", "reset", "max_connections", None)}
    reset = next(c for c in cs.changes if c.channel == "alter-system")
    assert "max_connections = '100'" in reset.reason and "pg-auto-conf-wins" in reset.citations
    assert cs.changes[0] == reset  # what shadows goes before the values


def test_a_hand_made_override_is_removed_and_the_installer_takes_its_values(tmp_path: Path) -> None:
    # override.conf sets FOREMAN_PUMA_THREADS_MIN/MAX=16 after installer.conf (systemd-dropin-order): the pool the
    # installer sizes for its own 5 threads is short. The guides' 16 threads min = max, db_pool = threads + 4 = 20,
    # all three through the installer (puppet-foreman options), after the drop-in is gone.
    cs = audit_changes(tree(tmp_path, "override-conf"))
    assert rows(cs) == SHARED | {
        ("dropin", "remove", "foreman.service:override.conf", None),
        ("installer", "set", "--foreman-foreman-service-puma-threads-min", 16),
        ("installer", "set", "--foreman-foreman-service-puma-threads-max", 16),
        ("installer", "set", "--foreman-db-pool", 20),
    }
    removed = next(c for c in cs.changes if c.op == "remove")
    assert removed.file == "/etc/systemd/system/foreman.service.d/override.conf"
    assert [c.channel for c in cs.changes].index("dropin") < [c.channel for c in cs.changes].index("installer")


def test_a_custom_hiera_lock_is_removed_before_the_installer_option(tmp_path: Path) -> None:
    # custom-hiera.yaml pins foreman::db_pool: 5; custom-hiera wins over the answers file (fi-hiera-precedence), so
    # --foreman-db-pool 20 alone would be silently ignored. The set removes the key and gives the option.
    cs = audit_changes(tree(tmp_path, "override-conf", "hiera-lock"))
    assert ("custom-hiera", "remove", "foreman::db_pool", None) in rows(cs)
    assert ("installer", "set", "--foreman-db-pool", 20) in rows(cs)
    assert not any(c.channel == "custom-hiera" and c.op == "set" and c.target == "foreman::db_pool" for c in cs.changes)
    planned = plan_changes(tree(tmp_path / "plan", "hiera-lock"))  # plan --from takes the same way
    assert {("custom-hiera", "remove", "foreman::db_pool", None), ("installer", "set", "--foreman-db-pool", 20)} <= rows(planned)


def test_a_stale_key_is_removed(tmp_path: Path) -> None:
    # checkpoint_segments: removed in PostgreSQL 9.5, PostgreSQL 12 refuses to start with it (fi-checkpoint-segments-removed)
    cs = audit_changes(tree(tmp_path, "stale-key"))
    assert rows(cs) == SHARED | {("custom-hiera", "remove", f"{PG}/checkpoint_segments", None)}
    assert ("custom-hiera", "remove", f"{PG}/checkpoint_segments", None) in rows(plan_changes(tree(tmp_path / "p", "stale-key")))


def test_a_value_the_site_set_higher_on_purpose_is_kept(tmp_path: Path) -> None:
    # custom-hiera.yaml: work_mem 16MB ("our reports sort large sets"), above the guide's 8 MB ("Setting this value to
    # 8 MB should be more than enough"): the plan starts from the site's value and keeps it, saying so; nothing lowers it
    for cs in (audit_changes(tree(tmp_path, "site-higher")), plan_changes(tree(tmp_path / "p", "site-higher"))):
        assert not any(c.target == f"{PG}/work_mem" for c in cs.changes)
    facts = read_source(str(tree(tmp_path / "q", "site-higher")), hosts=HOSTS)
    plan = choose_plan(facts, hosts=HOSTS).plan
    assert plan is not None
    work_mem = plan.tunables["postgresql.work_mem"].foretune
    assert work_mem.value == "16MB"
    assert work_mem.reason.startswith("kept: the custom-hiera.yaml sets more than the guide's 8MB")
    assert rows(audit_changes(tree(tmp_path / "a", "site-higher"))) == SHARED - {("custom-hiera", "set", f"{PG}/work_mem", "8MB")}
    # and said: the kept value is listed as not applied, with or without --prefer foretune (feedback D4)
    facts = read_source(str(tree(tmp_path / "k", "site-higher")), hosts=HOSTS)
    kept = [b.why for b in build.from_plan(plan, facts, lower_site=True).blocked if b.change.tunable == "postgresql.work_mem"]
    assert kept == ["kept 16MB (the custom-hiera.yaml sets more than the guide's 8MB, which it calls \"more than enough\", "
                    "not a ceiling); --prefer foretune lowers no value foretune's plan itself keeps"]


def test_a_profile_the_hardware_refuses_is_blocked_and_the_largest_accepted_one_taken(tmp_path: Path) -> None:
    # 40000 hosts need extra-large; foreman-installer's hardware check asks 32 CPUs and 128 GiB of it (fi-tuning-hook),
    # the box has 16 and 64: --tuning extra-large is refused, large is the largest profile it accepts.
    cs = audit_changes(tree(tmp_path), hosts=40000)
    assert cs.changes[0][:4] == ("profile", "profile", "--tuning", "large")
    refused = [b for b in cs.blocked if b.change.channel == "profile"]
    assert [b.change.value for b in refused] == ["extra-large"]
    assert "refuses --tuning extra-large" in refused[0].why


def test_the_foreman_vhost_keepalive_wins_over_the_global_one() -> None:
    # Foreman 1.12-1.24 (Satellite 6.3-6.7): puppet-foreman writes KeepAlive* into the Foreman vhost, which overrides
    # the server-wide apache::* directives for that vhost (httpd-vhost-overrides, pf-keepalive). A fix given as
    # apache::keepalive_timeout lands on foreman::keepalive_timeout, an installer option.
    plan = make_plan(PlanInput("satellite", "6.6", hosts=3000, cpus=8, ram_bytes=32 * 1024**3))
    cs = build.from_audit([("apache-keepalive", (Fix("hiera", "apache::keepalive_timeout", 3),))], plan)
    changes = [c for c in cs.changes if c.channel != "profile"]
    assert [(c.channel, c.target) for c in changes] == [("installer", "--foreman-keepalive-timeout")]
    assert "httpd-vhost-overrides" in changes[0].citations


@pytest.mark.parametrize("version,expected", [("9.2", None), ("12", "postgresql.auto.conf")])
def test_postgresql_precedence_is_per_release(version: str, expected: str | None) -> None:
    # ALTER SYSTEM and postgresql.auto.conf first in PostgreSQL 9.4 (pg-alter-system-94): Satellite 6.2's 9.2 has none
    from foretune.knowledge.precedence import postgresql_shadow, table

    assert table("postgresql", version)["highest_file"] == expected
    files = [("var/lib/pgsql/data/postgresql.auto.conf", "max_connections = '200'")]
    assert (postgresql_shadow("max_connections", files, version) is not None) == (expected is not None)


def test_a_key_the_release_has_no_module_for_is_blocked() -> None:
    # Satellite 6.15 runs Foreman on Puma: apache::mod::passenger::* is inert since Foreman 2.3 (fi-passenger-keys-removed)
    plan = make_plan(PlanInput("satellite", "6.15", hosts=3000, cpus=8, ram_bytes=32 * 1024**3))
    cs = build.from_audit([("x", (Fix("hiera", "apache::mod::passenger::passengermaxpoolsize", 12),))], plan)
    assert not any("passenger" in c.target for c in cs.changes)
    assert [b.change.target for b in cs.blocked] == ["apache::mod::passenger::passengermaxpoolsize"]
    assert "Passenger settings are inert" in cs.blocked[0].why


def test_raises_that_would_not_fit_in_memory_are_blocked_and_cuts_are_not() -> None:
    # a plan whose services, even at the low ends of their ranges, exceed the RAM (the planner's memory-over-ram):
    # a change that raises Puma workers (about 1 GiB each, gf-puma-autotuning) is refused, one that lowers them is not
    from foretune.plan.model import Problem

    plan = make_plan(PlanInput("satellite", "6.15", hosts=15000, cpus=16, ram_bytes=64 * 1024**3))
    tight = plan._replace(problems=(Problem("high", "memory-over-ram", "13.0 GiB at the low ends, 12.0 GiB RAM"),))
    t = plan.tunables["puma.workers"]
    up = tight._replace(tunables={**plan.tunables, "puma.workers": t._replace(installer=t.installer._replace(value=6))})
    cs = build.from_audit([("puma-workers-outside-range", (Fix("hiera", "foreman::foreman_service_puma_workers", 18),))], up)
    assert [b.change.tunable for b in cs.blocked] == ["puma.workers"] and "memory budget" in cs.blocked[0].why
    down = tight._replace(tunables={**plan.tunables, "puma.workers": t._replace(installer=t.installer._replace(value=40))})
    cs = build.from_audit([("puma-workers-outside-range", (Fix("hiera", "foreman::foreman_service_puma_workers", 18),))], down)
    assert ("installer", "--foreman-foreman-service-puma-workers", 18) in [(c.channel, c.target, c.value) for c in cs.changes]


def test_a_drop_in_read_after_ours_that_lowers_the_limit_is_moved_away(tmp_path: Path) -> None:
    # httpd.service.d/override.conf: LimitNOFILE=4096 sorts after limits.conf, so it would win (systemd-dropin-order)
    # over the guide's 640000 (gf-httpd-nofile); the set moves it away first, then writes limits.conf
    cs = plan_changes(tree(tmp_path, "limit-override"))
    dropins = [(c.op, c.target, c.value, c.file) for c in cs.changes if c.channel == "dropin"]
    assert dropins == [("remove", "httpd.service:override.conf", None, "/etc/systemd/system/httpd.service.d/override.conf"),
                       ("set", "httpd.service:LimitNOFILE", 640000, "/etc/systemd/system/httpd.service.d/limits.conf")]


def test_a_drop_in_read_after_ours_with_a_higher_limit_is_the_sites_and_kept(tmp_path: Path) -> None:
    cs = plan_changes(tree(tmp_path, "limit-higher"))  # override.conf: LimitNOFILE=1048576, above 640000
    assert not [c for c in cs.changes if c.channel == "dropin"]
    kept = [b for b in cs.blocked if b.change.channel == "dropin"]
    assert len(kept) == 1 and kept[0].change.site_value == "LimitNOFILE=1048576" and "never lowered" in kept[0].why


def test_satellite_62_has_no_custom_hiera_a_value_without_option_is_blocked_not_dropped() -> None:
    # Satellite 6.2 (foreman-installer 1.11) reads no custom-hiera.yaml (custom-hiera from 1.14, fi-tuning-yaml)
    plan = make_plan(PlanInput("satellite", "6.2", hosts=3000, cpus=8, ram_bytes=32 * 1024**3))
    cs = build.from_audit([("x", (Fix("hiera", "apache::mod::prefork::serverlimit", 512),
                                  Fix("hiera", "foreman::passenger_min_instances", 6)))], plan)
    assert [(c.channel, c.target) for c in cs.changes] == [("installer", "--foreman-passenger-min-instances")]
    assert [b.change.target for b in cs.blocked] == ["apache::mod::prefork::serverlimit"]
    assert "reads no custom-hiera.yaml" in cs.blocked[0].why


def test_a_value_in_force_from_an_override_is_the_one_a_change_is_told_against() -> None:
    # the answers file says 40 Puma workers, a hand-made override.conf (read after installer.conf,
    # systemd-dropin-order) keeps 10 in force. The set removes override.conf and passes the guide's 18 for large
    # (gf-puma-recommendations): that raises the 10 in force; APPLY.md must not say it "lowers the site's 40".
    from foretune.render import outputs

    plan = make_plan(PlanInput("satellite", "6.15", hosts=15000, cpus=16, ram_bytes=64 * 1024**3))
    t = plan.tunables["puma.workers"]
    plan = plan._replace(tunables={**plan.tunables, "puma.workers": t._replace(
        installer=t.installer._replace(value=40, origin="answers file"))})
    host = build.Host(puma_files=(
        ("etc/systemd/system/foreman.service.d/installer.conf", "Environment=FOREMAN_PUMA_WORKERS=40"),
        ("etc/systemd/system/foreman.service.d/override.conf", "Environment=FOREMAN_PUMA_WORKERS=10")))
    cs = build.from_plan(plan, host)
    workers = cs.for_tunable("puma.workers")
    assert workers is not None and (workers.target, workers.value, workers.site_value) == (
        "--foreman-foreman-service-puma-workers", 18, 10)
    assert "override.conf keeps 10 in force; the 40 set for the installer never took effect" in workers.reason
    assert ("dropin", "remove", "foreman.service:override.conf") in {(c.channel, c.op, c.target) for c in cs.changes}
    assert "lowers the site's" not in outputs.apply_md(plan, cs)


def test_the_budgets_are_made_again_with_the_site_value_the_set_keeps(tmp_path: Path) -> None:
    # custom-hiera.yaml: 40 Puma workers on purpose, above the guide's 8-12 for medium (gf-puma-recommendations); the
    # set keeps them (never lowered silently), so 40 run after it, not 12 (feedback D14). The budgets follow the 40:
    # - connections: the budget of 330 (Puma 12 x 20 pool = 240, Sidekiq 17, hosts queue 3, Candlepin 25, pulpcore 38,
    #   container gateway 4, superuser 3) becomes 800 + 90 = 890 with 40 x 20; + 20 % headroom = 1068, rounded up to
    #   100: max_connections 1100 (above the profile's 1000);
    # - memory: 28 more workers at about 1 GiB each (gf-puma-autotuning: "Each Puma worker consumes around 1 GiB of
    #   RAM.") leave no room on the 63.8 GiB box for work_mem 8MB: 1100 connections x 4 MB more = 4.3 GiB. work_mem
    #   stays 4MB, and the set says so.
    cs = plan_changes(tree(tmp_path, "site-workers-higher"))
    assert rows(cs) == SHARED - {("custom-hiera", "set", f"{PG}/work_mem", "8MB")} | {
        ("profile", "set", "--tuning", "medium"),
        ("custom-hiera", "set", f"{PG}/max_connections", 1100),
        ("installer", "set", "--foreman-foreman-service-puma-threads-min", 16),
        ("installer", "set", "--foreman-foreman-service-puma-threads-max", 16),
        ("installer", "set", "--foreman-db-pool", 20),
        ("dropin", "set", "httpd.service:LimitNOFILE", 640000),
        ("tuned", "set", "profile", "virtual-guest"),
    }
    blocked = {b.change.tunable: b.why for b in cs.blocked}
    assert blocked["puma.workers"] == (
        "custom-hiera.yaml sets foreman::foreman_service_puma_workers: 40, above foretune's 12: the site's value is kept "
        "(never lowered silently); the set is sized for it: postgresql.max_connections 1100")
    assert blocked["postgresql.work_mem"].startswith(
        "not set to 8MB: with the site's foreman_service_puma_workers 40 kept, keep 4MB: 1100 connections x 4MB more = "
        "4.3 GiB does not fit in the ")
    # the audit's set changes only what its findings ask, but holds work_mem for the same reason
    audited = audit_changes(tree(tmp_path / "a", "site-workers-higher"))
    assert rows(audited) == SHARED - {("custom-hiera", "set", f"{PG}/work_mem", "8MB")}
    assert [b.change.tunable for b in audited.blocked] == ["postgresql.work_mem"]
    assert "does not fit" in audited.blocked[0].why


def test_a_box_short_of_memory_now_gets_no_work_mem_raise_from_the_plan_and_plan_says_why(tmp_path: Path) -> None:
    # memory-short: MemAvailable 1572864 kB of MemTotal 66924544 kB (2.4 %, under memory_available_critical_fraction
    # 0.05) with SwapTotal 8388604 - SwapFree 2097148 = 6291456 kB (6.0 GiB, 75 %, over swap_used_high_fraction 0.25)
    # in use. The guide's work_mem 8 MB ("each sort or hash ... may take that much") is held, as the audit holds it
    # (pg-work-mem-low), and plan --from says what the box measures instead of "no problems".
    root = tree(tmp_path, "memory-short")
    cs = plan_changes(root)
    assert not any(c.target == f"{PG}/work_mem" for c in cs.changes)
    [held] = [b for b in cs.blocked if b.change.tunable == "postgresql.work_mem"]
    assert held.why.startswith("the box measures only 1.5 GiB of 63.8 GiB available, 6.0 GiB of 8.0 GiB swap in use: "
                               "no postgresql.work_mem raise while it is short of memory now")
    assert rows(audit_changes(root)) == SHARED - {("custom-hiera", "set", f"{PG}/work_mem", "8MB")}
    result = run_cli("plan", "--from", str(root), "--hosts", str(HOSTS))
    assert result.status == 0, result.stderr
    assert "no problems" not in result.stdout
    assert ("HIGH  the box measures only 1.5 GiB of 63.8 GiB available, 6.0 GiB of 8.0 GiB swap in use: it is short "
            "of memory now, so the change set raises no memory tunable until memory is freed or added") in result.stdout
    fragment = run_cli("plan", "--from", str(root), "--hosts", str(HOSTS), "--format", "hiera")
    assert fragment.status == 0 and "work_mem: 8MB" not in fragment.stdout
    assert "the box measures" not in run_cli("plan", "--from", str(tree(tmp_path / "b")), "--hosts", str(HOSTS)).stdout


def test_a_higher_value_the_site_set_with_alter_system_is_kept_and_said(tmp_path: Path) -> None:
    # postgresql.auto.conf: work_mem = '32MB' and max_connections = '1500', above the guide's 8 MB ("Setting this
    # value to 8 MB should be more than enough") and the medium profile's 1000: ALTER SYSTEM wins over postgresql.conf
    # (pg-auto-conf-wins), and the site set them there on purpose. Neither is reset nor replaced; both are listed as
    # kept (acceptance D18). (The audit's pg-work-mem-low judges an ALTER SYSTEM work_mem above the guide's as a
    # finding of its own, whose fix resets it: that set says so through the finding.)
    cs = plan_changes(tree(tmp_path / "p", "auto-conf-higher"))
    assert not any(c.channel == "alter-system" or "work_mem" in c.target or "max_connections" in c.target
                   for c in cs.changes), rows(cs)
    kept = {b.change.tunable: b.why for b in plan_changes(tree(tmp_path / "k", "auto-conf-higher")).blocked}
    assert kept["postgresql.work_mem"] == ("postgresql.auto.conf sets work_mem = '32MB' (ALTER SYSTEM), above foretune's "
                                           "8MB: the site's value is kept (never lowered silently)")
    assert kept["postgresql.max_connections"] == ("postgresql.auto.conf sets max_connections = '1500' (ALTER SYSTEM), "
                                                  "above foretune's 1000: the site's value is kept (never lowered silently)")


def test_render_from_a_box_short_of_memory_now_raises_no_work_mem(tmp_path: Path) -> None:
    # the same memory-short box through render --from --merge-into: no work_mem 8MB in the merged file, as apply's,
    # plan's and the audit's sets have it (acceptance D21)
    root = tree(tmp_path, "memory-short")
    target = root / "etc/foreman-installer/custom-hiera.yaml"
    result = run_cli("render", "--from", str(root), "--hosts", str(HOSTS), "--merge-into", str(target))
    assert result.status == 0, result.stderr
    assert "work_mem" not in result.stdout
    plain = tree(tmp_path / "b")  # the same box with memory available: render raises it, as before
    result = run_cli("render", "--from", str(plain), "--hosts", str(HOSTS), "--merge-into",
                     str(plain / "etc/foreman-installer/custom-hiera.yaml"))
    assert "+  work_mem: 8MB" in result.stdout


def test_an_alter_system_value_the_audit_judges_is_reset_and_replaced_together(tmp_path: Path) -> None:
    # postgresql.auto.conf: work_mem = '32MB' (above the guide's 8 MB, "Setting this value to 8 MB should be more than
    # enough") and max_connections = '1500' (above the medium profile's 1000). The audit's pg-work-mem-low judges the
    # ALTER SYSTEM work_mem itself and asks for its reset and the guide's 8MB: both go into the set, the 8MB named as
    # lowering the site's 32MB; never the reset alone, after which postgresql.conf's 4MB would run (acceptance D12).
    # max_connections 1500 has no finding: neither reset nor replaced.
    cs = audit_changes(tree(tmp_path, "auto-conf-higher"))
    assert rows(cs) == SHARED | {("alter-system", "reset", "work_mem", None)}
    work_mem = cs.for_tunable("postgresql.work_mem")
    assert work_mem is not None and (work_mem.value, work_mem.site_value) == ("8MB", "32MB")
    assert work_mem.reason.startswith("the pg-work-mem-low finding asks for it, with the reset of postgresql.auto.conf's "
                                      "work_mem = '32MB'")
    assert build.lowers_site_value(work_mem)
    assert not any(b.change.tunable == "postgresql.work_mem" for b in cs.blocked)
    # and APPLY.md says so under the custom-hiera step, after the reset step
    out = tmp_path / "bundle"
    assert run_cli("audit", str(tmp_path / "tree"), "--hosts", str(HOSTS), "--output-dir", str(out)).status in (0, 1)
    text = (out / "APPLY.md").read_text(encoding="utf-8")
    assert "ALTER SYSTEM RESET work_mem;" in text and "kept" not in text.split("Order:")[0]
    assert text.index("ALTER SYSTEM RESET work_mem;") < text.index(
        "   - `postgresql::server::config_entries/work_mem: 8MB` lowers the site's 32MB: the pg-work-mem-low finding asks")


def test_an_alter_system_reset_whose_value_the_set_keeps_back_goes_with_it() -> None:
    # postgresql.auto.conf: work_mem = '32MB', above the guide's 8MB. One finding asks for the reset, another (which
    # judged no ALTER SYSTEM line) for 8MB: that value is the site's, kept (never lowered silently), so the reset goes
    # too; alone it would put postgresql.conf's 4MB in force, neither the site's 32MB nor foretune's 8MB (acceptance D12).
    plan = make_plan(PlanInput("satellite", "6.15", hosts=6000, cpus=16, ram_bytes=64 * 1024**3))
    host = build.Host(postgresql_files=(("var/lib/pgsql/data/postgresql.conf", "work_mem = 4MB"),
                                        ("var/lib/pgsql/data/postgresql.auto.conf", "work_mem = '32MB'")),
                      postgresql_version="12")
    cs = build.from_audit([("rule-a", (Fix("command", "ALTER SYSTEM RESET work_mem;"),)),
                           ("rule-b", (Fix("hiera", f"{PG}/work_mem", "8MB"),))], plan, host)
    assert not any("work_mem" in c.target for c in cs.changes), rows(cs)
    [kept] = [b for b in cs.blocked if "work_mem" in b.change.target]
    assert kept.change.site_value == "32MB" and "never lowered silently" in kept.why
    # one finding asking for both (it judged the ALTER SYSTEM value): the reset and the value, together
    cs = build.from_audit([("pg-work-mem-low", (Fix("command", "ALTER SYSTEM RESET work_mem;"),
                                                Fix("hiera", f"{PG}/work_mem", "8MB")))], plan, host)
    assert {("alter-system", "reset", "work_mem", None), ("custom-hiera", "set", f"{PG}/work_mem", "8MB")} <= rows(cs)


def test_an_included_file_no_finding_is_about_stays_in_the_audit_s_set(tmp_path: Path) -> None:
    # postgresql.conf ends with include_dir = 'conf.d', whose 10-dba.conf sets max_connections = 600 after postgresql.conf's
    # 1000 (pg-config-includes: the last entry wins). 600 is above the connection budget of this box (330, see
    # test_the_budgets_are_made_again_with_the_site_value_the_set_keeps), so no finding is about it: the audit's set,
    # which writes what fixes its findings, leaves the DBA's line alone (acceptance D6); plan's set, which puts the
    # profile's 1000 in force, takes it out and says why.
    root = tree(tmp_path)
    include_conf_d(root, "10-dba.conf", "# DBA include\nmax_connections = 600\n")
    assert rows(audit_changes(root)) == SHARED
    removal = ("file", "remove", "/var/lib/pgsql/data/conf.d/10-dba.conf", "max_connections = 600")
    assert removal in rows(plan_changes(root))


def test_a_pool_lock_below_the_profile_it_moves_to_goes_and_the_profile_gives_the_pool() -> None:
    # Satellite 6.7 (Foreman 1.24), 16 physical cores, 9000 hosts: --tuning medium, whose pool is 30 (foreman-installer
    # 1.24 config/foreman.hiera/tuning/sizes/medium.yaml: "apache::mod::passenger::passenger_max_pool_size: 30"). The
    # site's custom-hiera.yaml locks the pool at 20 (a 6.6-era file). The brief's 1.5 x 16 cores = 24 is below the
    # profile's 30, and the plan never goes below the profile: 30, which the profile gives once the lock is gone. Not
    # 24 written into custom-hiera, where it would still win over the profile (acceptance D13).
    key = "apache::mod::passenger::passenger_max_pool_size"
    plan = make_plan(PlanInput("satellite", "6.7", hosts=9000, cpus=32, physical_cores=16, ram_bytes=64 * 1024**3,
                               configured={key: (20, "custom-hiera.yaml")}))
    assert plan.profile == "medium"
    pool = plan.tunables["passenger.max_pool_size"].foretune
    assert pool.value == 30 and pool.formula == "max(30, ceil(16 x 1.5)) = 30"
    cs = build.from_plan(plan, build.Host(custom_hiera={key: 20}, tuning_profile="default"))
    assert [(c.channel, c.op, c.value) for c in cs.changes if c.target == key] == [("custom-hiera", "remove", None)]
    # a lock above the profile's pool is the site's own start, as before: max(40, 24) = 40
    high = make_plan(PlanInput("satellite", "6.7", hosts=9000, cpus=32, physical_cores=16, ram_bytes=64 * 1024**3,
                               configured={key: (40, "custom-hiera.yaml")}))
    assert high.tunables["passenger.max_pool_size"].foretune.value == 40


def test_apply_md_lists_what_the_installer_lowers_under_the_installer_step() -> None:
    # the answers file says 40 Puma workers, the guide gives 18 for large (gf-puma-recommendations): the installer run
    # lowers them. postgresql.auto.conf's max_connections = '100' is reset, and max_connections is read only at start:
    # a PostgreSQL restart step follows the installer. The note on the lowered workers belongs to the installer's step,
    # not to the restart after it (acceptance D15).
    from foretune.render import outputs

    plan = make_plan(PlanInput("satellite", "6.15", hosts=15000, cpus=16, ram_bytes=64 * 1024**3))
    t = plan.tunables["puma.workers"]
    plan = plan._replace(tunables={**plan.tunables, "puma.workers": t._replace(
        installer=t.installer._replace(value=40, origin="answers file"))})
    host = build.Host(postgresql_files=(("var/lib/pgsql/data/postgresql.conf", "max_connections = 1000"),
                                        ("var/lib/pgsql/data/postgresql.auto.conf", "max_connections = '100'")),
                      postgresql_version="12")
    text = outputs.apply_md(plan, build.from_plan(plan, host))
    installer = text.index(". Run the installer (")
    lowered = text.index("   - `--foreman-foreman-service-puma-workers 18` lowers the site's 40")
    restart = text.index(". Restart PostgreSQL, which the installer does not do")
    assert installer < lowered < restart, text
