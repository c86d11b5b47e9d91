"""PostgreSQL: shared_buffers, 9.2's System V limits, max_connections from the connection budget, the cache settings."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.knowledge.hiera_keys import stale_keys
from foretune.knowledge.releases import resolve_release
from foretune.plan.components import postgresql
from tests.plan.components.helpers import GIB, explain, plan, run


def test_shared_buffers_between_2_gib_and_a_quarter_of_ram() -> None:
    # Foreman guide: "An optimal value for this will vary between 2 GiB to a maximum of 25% of your total system memory"
    assert run(postgresql.plan_memory, "satellite", "6.15", cpus=16, ram_gib=64)["postgresql.shared_buffers"].foretune.value == "2GB"
    # plain Foreman 3.12 (no Katello: no Candlepin or Pulp) on 12 GiB: 25 % = 3 GiB, and 2GB leaves Puma its 4-6 workers
    assert plan("foreman", "3.12", katello=False, hosts=3000, cpus=4, ram_gib=12).tunables[
        "postgresql.shared_buffers"].foretune.value == "2GB"
    assert postgresql.shared_buffers_range(resolve_release("satellite", "6.15"), 64 * GIB) == (
        2 * GIB, 16 * GIB, "gf-postgresql", "2 GiB - 25 % of RAM (the guide)")


def test_satellite_62_shared_buffers_and_kernel_limits_follow_the_brief() -> None:
    # the 6.2 brief: "set shared_buffers to 15% - 25% of memory"; 15 % of 48 GiB = 7372.8 MB, rounded up to 58 x 128 MB
    t = plan("satellite", "6.2", hosts=8000, cpus=16, physical_cores=8, ram_gib=48).tunables
    assert t["postgresql.shared_buffers"].foretune.value == "7424MB"
    assert t["sysctl.kernel_shmmax"].foretune.value == 8 * GIB  # 7424 MB x 1.1 = 8166 MB, rounded up to whole GiB
    assert t["sysctl.kernel_shmall"].foretune.value == 268435456  # RHEL 7's default already covers 8 GiB in 4 KiB pages
    # "you might need to set the value to 200 when you are registering 200 content hosts in parallel"
    assert t["postgresql.max_connections"].foretune.value == 200


def test_max_connections_is_the_budget_plus_a_fifth_rounded_to_100() -> None:
    p = plan("satellite", "6.15", hosts=3000, cpus=16, ram_gib=64)
    need = sum(n for _, n in p.connection_budget)
    assert need == 6 * 20 + (1 * 7 + 3) + 3 + 25 + (8 * 2 + 22) + 4 + 3  # Puma, Sidekiq, hosts queue, Candlepin, Pulp, gateway, reserved
    mc = p.tunables["postgresql.max_connections"]
    assert mc.foretune.formula == "max(500, ceil(203 x 1.2 / 100) x 100) = 500"  # 243.6 rounds up to 300: the profile's 500 stays


def test_work_mem_is_the_guides_8_mb_when_it_fits() -> None:
    # Foreman guide: "Setting this value to 8 MB should be more than enough for most of the intensive operations"
    t = plan("satellite", "6.15", hosts=3000, cpus=16, ram_gib=64).tunables["postgresql.work_mem"]
    assert (t.installer.value, t.foretune.value) == ("4MB", "8MB")
    assert t.foretune.reason.startswith("the guide's 8MB: 500 connections x 4MB more")


def test_explain_words_the_budget_and_range_from_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    data = load_data("planner.yaml")
    monkeypatch.setitem(data["pg_connection_headroom"], "value", 0.5)
    monkeypatch.setitem(data["pg_shared_buffers_max_fraction"], "value", 0.3)
    monkeypatch.setitem(data["pg_work_mem"], "value", "16MB")
    p = plan("satellite", "6.15", hosts=3000, cpus=16, ram_gib=64)
    text = explain(p, "postgresql.max_connections")
    assert "connection budget 203 + 50 % headroom" in text and "ceil(203 x 1.5 / 100) x 100" in text
    assert "at most 30 % of RAM" in explain(p, "postgresql.shared_buffers")
    assert "floor(64.0 GiB x 30 %)" in explain(p, "postgresql.shared_buffers")
    assert "the guide's 16MB: 500 connections x 12MB more" in explain(p, "postgresql.work_mem")


def test_satellite_62_postgresql_defaults_are_92s() -> None:
    # Satellite 6.2 runs PostgreSQL 9.2 on RHEL 7 and its installer sets no PostgreSQL entries. PostgreSQL 9.2 manual,
    # 18.4.1 shared_buffers: "The default is typically 32 megabytes (32MB)"; the 9.3 release notes: "the previous
    # maximum was 32MB". The 6.2 brief, 5.13: "increase max_connections setting (set to 100 by default)".
    t = plan(product="satellite", version="6.2", hosts=5000, cpus=16, physical_cores=8, ram_bytes=32 * GIB).tunables
    assert t["postgresql.shared_buffers"].installer.value == "32MB"
    assert t["postgresql.shared_buffers"].installer.citations == ("pg-docs-92-shared-buffers",)
    assert t["postgresql.max_connections"].installer.value == 100
    assert "gf-postgresql" not in t["postgresql.max_connections"].installer.citations  # the Foreman guide gives no default
    # a later release with no profile value: PostgreSQL's newest default, cited to PostgreSQL
    later = plan(product="satellite", version="6.16", hosts=3000, cpus=4, ram_bytes=20 * GIB).tunables
    assert later["postgresql.effective_cache_size"].installer.value == "4GB"  # 9.4 release notes: "to 4GB"
    assert later["postgresql.effective_cache_size"].installer.citations == ("pg-release-94-defaults",)


def test_62_shared_buffers_step_and_kernel_defaults_follow_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    data = load_data("planner.yaml")
    monkeypatch.setitem(data["pg62_shared_buffers_step_mib"], "value", 1024)
    monkeypatch.setitem(data["rhel7_shmmax"], "value", 16 * GIB)
    p = plan("satellite", "6.2", hosts=8000, cpus=16, physical_cores=8, ram_gib=48)
    sb = p.tunables["postgresql.shared_buffers"].foretune
    # 15 % of 48 GiB = 7.2 GiB, rounded up to whole 1 GiB steps
    assert (sb.value, sb.formula) == ("8GB", "ceil(48.0 GiB x 0.15 / 1GB) x 1GB = 8GB")
    assert sb.reason.endswith("rounded up to 1GB")
    shmmax = p.tunables["sysctl.kernel_shmmax"]
    assert shmmax.installer.value == shmmax.foretune.value == 16 * GIB  # ceil(8 GiB x 1.1) = 9 GiB is below it
    assert shmmax.foretune.formula == "max(17179869184, ceil(8GB x 1.1) in GiB) = 17179869184"


def test_site_values_are_the_start_and_never_lowered_silently() -> None:
    # 002 (Foreman guide) PostgreSQL: "Setting this value to 8 MB should be more than enough" (work_mem) -- a site's
    # 16MB is more, on purpose: kept. The guide's autovacuum_vacuum_cost_limit is 2000; a site's 3000 is kept.
    site = {"postgresql::server::config_entries/work_mem": ("16MB", "custom-hiera.yaml"),
            "postgresql::server::config_entries/autovacuum_vacuum_cost_limit": (3000, "custom-hiera.yaml"),
            "postgresql::server::config_entries/max_connections": (1500, "custom-hiera.yaml"),
            "postgresql::server::config_entries/shared_buffers": ("16GB", "custom-hiera.yaml")}
    t = plan("satellite", "6.15", hosts=8000, cpus=8, ram_gib=32, configured=site).tunables
    assert t["postgresql.work_mem"].installer.value == "16MB" and t["postgresql.work_mem"].foretune.value == "16MB"
    assert t["postgresql.work_mem"].foretune.reason.startswith("kept: the custom-hiera.yaml sets more than the guide's 8MB")
    assert t["postgresql.autovacuum_vacuum_cost_limit"].foretune.value == 3000
    assert t["postgresql.max_connections"].foretune.value == 1500  # never below the value in force
    # "between 2 GiB to a maximum of 25% of your total system memory": 25 % of 32 GiB = 8GB, below the site's 16GB -- said first
    sb = t["postgresql.shared_buffers"]
    assert sb.foretune.value == "8GB"
    assert sb.foretune.reason.startswith("below the 16GB the custom-hiera.yaml sets: ")
    # without site values the guide's figures apply (the medium profile's work_mem is PostgreSQL's 4MB)
    plain = plan("satellite", "6.15", hosts=8000, cpus=8, ram_gib=32).tunables
    assert plain["postgresql.autovacuum_vacuum_cost_limit"].foretune.value == 2000


def test_shared_buffers_is_not_raised_at_pumas_cost() -> None:
    # the guide: "An optimal value for this will vary between 2 GiB to a maximum of 25% of your total system memory" is a
    # range; its Puma table: default profile 4 - 6 workers, "Each Puma worker consumes around 1 GiB of RAM". On a plain
    # Foreman box of 8 GiB, 2GB for PostgreSQL would leave room for only 2 workers: the value in force, 512MB, stays.
    t = plan("foreman", "3.12", katello=False, hosts=3000, cpus=4, ram_gib=8).tunables
    sb = t["postgresql.shared_buffers"]
    assert (sb.installer.value, sb.foretune.value) == ("512MB", "512MB")
    assert sb.foretune.reason.startswith("kept: 2GB would leave RAM for 2 Puma workers, below the guide's 4 for default")
    assert t["puma.workers"].foretune.value == 3  # one more than with 2GB of shared_buffers


def test_a_memory_range_past_ram_is_never_no_problem() -> None:
    # The guide's medium box (8 CPUs, 32 GiB): 12 Puma workers (range 8 - 12) fit at the planning sizes, but the high
    # ends of the services' ranges pass 32 GiB: a low problem that says how many Puma workers fewer keep even them in
    # RAM (never a second worker count beside the plan's 12).
    p = plan("satellite", "6.15", hosts=8000, cpus=8, ram_gib=32)
    high = sum(m.high_bytes for m in p.memory)
    assert high > 32 * GIB >= sum(m.bytes for m in p.memory)
    found = [q for q in p.problems if q.code == "memory-range-over-ram"]
    assert [q.severity for q in found] == ["low"]
    assert "or run 3 Puma workers fewer (the guide's range starts at 8)" in found[0].message


def test_effective_cache_size_is_a_hint_not_lowered_without_cause() -> None:
    # PostgreSQL's manual: effective_cache_size "has no effect on the size of shared memory allocated by PostgreSQL, nor
    # does it reserve kernel disk cache". foreman-installer 3.9.0 config/foreman.hiera/tuning/sizes/medium.yaml:
    # effective_cache_size: 16GB -- on the guide's medium box (32 GiB) it stays.
    t = plan("satellite", "6.15", hosts=8000, cpus=8, ram_gib=32).tunables["postgresql.effective_cache_size"]
    assert (t.installer.value, t.foretune.value) == ("16GB", "16GB")
    assert t.foretune.reason == "kept: a planner hint that reserves no memory, and 16GB is within the 32.0 GiB RAM"
    # the default profile sets none: 4GB is PostgreSQL's own default (9.4 release notes), and named so
    small = plan("satellite", "6.15", hosts=3000, cpus=4, ram_gib=20).tunables["postgresql.effective_cache_size"]
    assert small.foretune.value == "4GB"
    assert "at most PostgreSQL's default 4GB" in small.foretune.reason and "profile's 4GB" not in small.foretune.reason
    assert small.foretune.citations[0] == "pg-release-94-defaults"


def test_explain_quotes_the_sentence_with_the_number_and_links_the_release() -> None:
    # gf-postgresql has four quotes; work_mem's explanation shows only those that name work_mem
    text = explain(plan("satellite", "6.15", hosts=8000, cpus=8, ram_gib=32), "postgresql.work_mem")
    foretune_part = text.split("\nforetune: ", 1)[1].split("\narithmetic:", 1)[0]
    assert '"Setting this value to 8 MB should be more than enough for most of the intensive operations on Foreman."' in foretune_part
    assert "autovacuum_vacuum_cost_limit to 2000" not in foretune_part and "between 2 GiB to a maximum" not in foretune_part
    # the installer's value comes from Satellite 6.15's foreman-installer, tag 3.9.0, medium profile
    assert "https://github.com/theforeman/foreman-installer/blob/3.9.0/config/foreman.hiera/tuning/sizes/medium.yaml" in text
    assert "/blob/1.24.0/" not in text
    large = explain(plan("foreman", "3.12", hosts=15000, cpus=16, ram_gib=64), "postgresql.shared_buffers")
    assert "https://github.com/theforeman/foreman-installer/blob/3.12.0/config/foreman.hiera/tuning/sizes/large.yaml" in large
    # Satellite 6.4 is foreman-installer 1.18: its single tuning.yaml, at that tag
    old = explain(plan("satellite", "6.4", hosts=3000, cpus=8, ram_gib=32), "postgresql.max_connections")
    assert "https://github.com/theforeman/foreman-installer/blob/1.18.0/config/foreman.hiera/tuning.yaml" in old


def test_a_pulp_2_capsule_has_no_postgresql_budget() -> None:
    # the 6.2 brief's capsule runs Pulp 2 on MongoDB, Puppet under Passenger and qpid: no service there uses PostgreSQL,
    # so there is no connection budget (not a lone "3 superuser reserved" of a server that does not run)
    p = plan("satellite", "6.2", role="capsule", hosts=600, cpus=8, physical_cores=4, ram_gib=16, puppet_hosts=600)
    assert p.connection_budget == () and p.installer_connection_budget == ()
    # a pulpcore Capsule (6.15) keeps its budget, closed by the reserved slots
    assert plan("satellite", "6.15", role="capsule", hosts=600, cpus=8, ram_gib=16).connection_budget[-1] == ("superuser reserved", 3)


def test_a_sites_lower_max_connections_is_raised_to_at_least_the_profiles() -> None:
    # foreman-installer's large profile sets max_connections 1000 (the guide's example config: "max_connections: 1000");
    # a site's 500 is in force, but the recommendation never goes below the profile's value
    site = {"postgresql::server::config_entries/max_connections": (500, "custom-hiera.yaml")}
    t = plan("satellite", "6.15", hosts=15000, cpus=16, ram_gib=64, configured=site).tunables["postgresql.max_connections"]
    assert (t.installer.value, t.foretune.value) == (500, 1000)
    assert t.foretune.reason.endswith("never below the profile's 1000")


def test_checkpoint_segments_stays_on_postgresql_92_and_goes_with_postgresql_12() -> None:
    # foreman-installer 1.24.0's sizes/large.yaml sets checkpoint_segments: 32 for PostgreSQL 9.2 (Satellite 6.7);
    # e077f41 drops it at 2.0.0 because PostgreSQL 12 refuses it. 6.7 keeps 32; the hiera output leaves it alone too.
    t = plan("satellite", "6.7", hosts=12000, cpus=16, ram_gib=64).tunables["postgresql.checkpoint_segments"]
    assert (t.installer.value, t.foretune.value, t.differs) == (32, 32, False)
    assert "PostgreSQL 12" not in t.foretune.reason.split(";")[0]
    # from 2.0 on the key is refused wherever it is still written (stale-hiera.yaml, refused: true)
    note = stale_keys(resolve_release("satellite", "6.9"), {"postgresql::server::config_entries": {"checkpoint_segments": 32}})
    assert [(n.key, n.refused) for n in note] == [("postgresql::server::config_entries/checkpoint_segments", True)]


def test_shared_buffers_takes_what_ram_leaves_over_the_guides_lowest_puma_workers() -> None:
    # Satellite 6.15, 6 CPUs, 17 GiB, default profile (512MB): 5.6 GiB is left for Puma beside the other services with
    # 512MB, 4.1 GiB with 2GB, short of the guide's 4 workers x 1.10 GiB = 4.39 GiB by 0.29 GiB. shared_buffers gets
    # 512MB + floor((1536MB - 0.29 GiB) / 256MB) x 256MB = 1536MB, and Puma keeps 4 workers (4.6 GiB / 1.10). One GiB
    # less keeps 512MB with 4 workers; one GiB more gives 2GB with 4: more RAM never lowers either setting.
    def at(ram_gib: int) -> tuple[object, object]:
        t = plan("satellite", "6.15", hosts=1000, cpus=6, ram_gib=ram_gib).tunables
        return t["postgresql.shared_buffers"].foretune.value, t["puma.workers"].foretune.value

    assert [at(16), at(17), at(18)] == [("512MB", 4), ("1536MB", 4), ("2GB", 4)]
    assert plan("satellite", "6.15", hosts=1000, cpus=6, ram_gib=17).tunables["postgresql.shared_buffers"].foretune.reason \
        .startswith("what RAM leaves over the guide's 4 Puma workers for default, in 256MB steps: 2GB would leave RAM for 3")
