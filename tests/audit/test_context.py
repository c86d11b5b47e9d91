"""Host figure and profile: chosen as documented, shown in the report header, and capping assumed findings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from foretune.audit.context import build_context
from foretune.audit.runner import run_rule
from foretune.facts.model import Fact, FactSet, Provenance
from foretune.rules.base import Severity, Status
from foretune.rules.registry import get_rule
from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"
GIB = 1024**3


def facts(**values: Any) -> FactSet:
    fs = FactSet("fixture", "test")
    base: dict[str, Any] = {"product": "satellite", "product_version": "6.15.2", "foreman_version": "3.9.1",
                            "role": "server", "cpu_logical": 16, "ram_bytes": 64 * GIB}
    base.update(values)
    for name, value in base.items():
        if value is not None:
            fs.add(Fact(name, value, (Provenance("fixture", f"{name}.file", f"{name}: {value}"),)))
    return fs


def test_declared_profile_wins_and_assumed_hosts_come_from_its_range() -> None:
    ctx, _ = build_context(facts(tuning_profile="medium"))
    assert ctx.plan is not None and ctx.plan.profile == "medium"
    assert ctx.host_figure is not None and ctx.host_figure.assumed
    assert ctx.hosts == 10000  # upper end of medium: 5001-10000 (hardware.yaml, from the guides)
    assert "declared" in ctx.profile_reason


def test_without_declared_profile_the_hardware_picks_the_largest_it_meets() -> None:
    ctx, _ = build_context(facts(cpu_logical=8, ram_bytes=32 * GIB))  # medium: 8 cores, 32 GiB
    assert ctx.plan is not None and ctx.plan.profile == "medium"
    assert ctx.profile_reason.startswith("hardware")


def test_counted_hosts_beat_assumptions_and_hosts_option_beats_both() -> None:
    ctx, _ = build_context(facts(tuning_profile="default", managed_hosts=1200))
    assert ctx.host_figure is not None and (ctx.hosts, ctx.host_figure.assumed) == (1200, False)
    assert "managed_hosts.file" in ctx.host_figure.reason
    ctx, _ = build_context(facts(tuning_profile="default", managed_hosts=1200), hosts=7000)
    assert ctx.host_figure is not None and (ctx.hosts, ctx.host_figure.source) == (7000, "--hosts")
    assert ctx.plan is not None and ctx.plan.profile == "default"  # still the admin's choice


def test_host_independent_rules_run_without_a_host_count() -> None:
    ctx, _ = build_context(facts(tuning_profile="default", thp={"enabled": "always", "defrag": "never"}))
    assert run_rule(get_rule("thp-enabled"), ctx).status == Status.FAIL
    assert run_rule(get_rule("profile-too-small-for-hosts"), ctx).status == Status.SKIP  # would compare the profile with itself


def test_a_finding_on_an_assumed_host_count_says_so_and_stays_at_medium() -> None:
    mqtt = {"pull_rex": True, "mosquitto": True, "rate_limit": None}
    limits = {"mosquitto.service": {"LimitNOFILE": 1024, "LimitNPROC": None, "active": True}}
    ctx, _ = build_context(facts(tuning_profile="medium", mqtt=mqtt, service_limits=limits))
    out = run_rule(get_rule("mosquitto-nofile-low"), ctx)
    assert out.status == Status.FAIL
    assert out.severity is not None and out.severity <= Severity.MEDIUM
    assert "assumed 10000 hosts" in out.message
    given, _ = build_context(facts(tuning_profile="medium", mqtt=mqtt, service_limits=limits), hosts=10000)
    out = run_rule(get_rule("mosquitto-nofile-low"), given)
    assert "assumed" not in out.message


def test_report_header_names_host_figure_and_profile_with_reasons() -> None:
    out = run_cli("audit", str(SOS / "satellite-6.2"), "--fail-on", "critical").stdout
    head = out.splitlines()[:6]
    assert head[4] == ("Hosts     10000 managed hosts (assumed: upper end of the medium profile's range (5001-10000 hosts); "
                       "the source has no host count)")
    assert head[5].startswith("Profile   medium (hardware:") and "no --tuning profiles" in head[5]
    capsule = run_cli("audit", str(SOS / "capsule-6.15-pull-rex"), "--fail-on", "critical").stdout.splitlines()[:6]
    # a Capsule has no profiles: its assumed figure is foretune's own estimate for its 8 CPUs (500 hosts a CPU, the
    # capsule_hosts_per_cpu threshold that capsule-hosts-beyond-tested judges by), not a server profile's range
    assert capsule[4] == ("Hosts     4000 managed hosts (assumed: foretune's estimate for an 8-CPU Capsule (about 4000 hosts, "
                          "from the guide's Smart Proxy tests); the source has no host count)")
    assert capsule[5] == "Profile   none (Capsules have no tuning profiles)"
    data = json.loads(run_cli("audit", str(SOS / "satellite-6.9"), "--format", "json", "--fail-on", "critical").stdout)
    assert (data["hosts"], data["profile"]) == (2150, "medium")
    assert data["hosts_basis"] == "counted in var/lib/foreman-maintain/satellite_metrics.yml"
    assert data["profile_basis"] == "declared: the installer's tuning fact"


def test_katello_agent_queues_give_a_counted_host_figure_and_the_agent_count() -> None:
    ctx, _ = build_context(facts(product_version="6.9.4", foreman_version="2.3.1", tuning_profile="medium",
                                 katello_agent_clients=1200))
    assert ctx.host_figure is not None and (ctx.hosts, ctx.host_figure.assumed) == (1200, False)
    assert "katello_agent_clients.file" in ctx.host_figure.reason
    assert ctx.plan is not None and ctx.plan.input.katello_agent_hosts == 1200
    counted, _ = build_context(facts(product_version="6.9.4", foreman_version="2.3.1", tuning_profile="medium",
                                     katello_agent_clients=40, managed_hosts=3000))
    assert counted.hosts == 3000 and counted.plan is not None and counted.plan.input.katello_agent_hosts == 40


def test_partial_counts_give_a_lower_bound_figure_the_largest_wins_and_keep_the_hardware_profile() -> None:
    ctx, _ = build_context(facts(pull_rex_clients=300, task_hosts=40))
    assert ctx.host_figure is not None and (ctx.hosts, ctx.host_figure.source) == (300, "lower bound")
    assert "pull-REX MQTT clients" in ctx.host_figure.reason and "pull_rex_clients.file" in ctx.host_figure.reason
    assert "at least this many hosts" in ctx.host_figure.reason and not ctx.hosts_assumed
    # 16 CPUs and 64 GiB meet the large profile (guide table): 300 hosts must not shrink the plan to default
    assert ctx.plan is not None and ctx.plan.profile == "large"
    assert ctx.profile_reason.startswith("hardware:")
    tasks, _ = build_context(facts(task_hosts=40, tuning_profile="medium"))
    assert tasks.hosts == 40 and tasks.host_figure is not None and "task export" in tasks.host_figure.reason
    counted, _ = build_context(facts(task_hosts=40, pull_rex_clients=300, managed_hosts=4200))
    assert counted.hosts == 4200 and counted.host_figure is not None and counted.host_figure.source == "source"


def test_report_header_names_a_partial_count_as_a_lower_bound(tmp_path: Path) -> None:
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15-tuned", tree, symlinks=True)
    (tree / "var" / "lib" / "foreman-maintain" / "satellite_metrics.yml").unlink(missing_ok=True)
    (tree / "sos_commands" / "networking").mkdir(parents=True, exist_ok=True)
    (tree / "sos_commands" / "networking" / "ss_-peaonmi").write_text("".join(
        f"tcp ESTAB 0 0 192.0.2.1:1883 192.0.2.{n}:40000 users:((\"mosquitto\",pid=2211,fd={n}))\n" for n in range(10, 40)))
    data = json.loads(run_cli("audit", str(tree), "--format", "json", "--fail-on", "critical").stdout)
    assert data["hosts"] == 30
    assert data["hosts_basis"] == ("pull-REX MQTT clients (addresses connected to mosquitto, or client ids in its log) "
                                   "counted in sos_commands/networking/ss_-peaonmi (at least this many hosts)")
    assert not [f for f in data["findings"] if f["status"] == "fail" and f["severity"] in ("medium", "high", "critical")]
    full = json.loads(run_cli("audit", str(SOS / "satellite-6.15"), "--format", "json", "--fail-on", "critical").stdout)
    assert full["hosts"] == 4200  # foreman-maintain's metrics beat the two hosts the task export names
