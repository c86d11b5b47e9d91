"""From foreman-installer 2.5 (Satellite 6.10-6.14) a server runs qpidd and qdrouterd only with katello-agent enabled.

puppet-katello 20.0.0 manifests/globals.pp: "Katello::HieraBoolean $enable_katello_agent = false," and manifests/qpid.pp:
"if $katello::params::enable_katello_agent { ... $_qpid_ensure = 'present' } else { $_qpid_ensure = 'absent' }";
foreman-installer 2.5.0 pins katello-katello 20.0.0, 2.4.0 (Satellite 6.9 is 2.3) pins 19.0.x, which always runs qpidd.
"""

from __future__ import annotations

import json

from foretune.plan import PlanInput, make_plan
from tests.conftest import run_cli

GIB = 1024**3
QPID = ("qpidd.limit_nofile", "qdrouterd.limit_nofile", "sysctl.fs_aio_max_nr", "qpidd.storage_bytes",
        "qpid.mgmt_pub_interval", "katello.content_action_accept_timeout")


def test_no_katello_agent_on_6_13_means_no_qpid_rows_keys_or_memory() -> None:
    result = run_cli("plan", "--product", "satellite", "--version", "6.13", "--hosts", "3000", "--cpus", "4", "--ram", "20G",
                     "--format", "json")
    assert result.status == 0, result.stderr
    plan = json.loads(result.stdout)
    assert not set(QPID) & {t["id"] for t in plan["tunables"]}
    assert not [item for item in plan["memory_budget"]["items"] if "qpidd" in item["component"] or "qdrouterd" in item["component"]]
    assert "katello-agent hosts: none assumed" in result.stderr
    assert "every one of the 3000 content hosts is assumed" not in result.stderr
    hiera = run_cli("plan", "--product", "satellite", "--version", "6.13", "--hosts", "3000", "--cpus", "4", "--ram", "20G",
                    "--format", "hiera").stdout
    assert "qpid::" not in hiera


def test_katello_agent_hosts_given_on_6_13_size_qpid_and_say_it_must_be_enabled() -> None:
    plan = make_plan(PlanInput("satellite", "6.13", hosts=3000, cpus=8, ram_bytes=32 * GIB, katello_agent_hosts=3000))
    # the Satellite 6.9 guide's "qpidd 4N+500" with N = 3000 is 12500, below the installer's 65536: kept
    qpidd = plan.tunables["qpidd.limit_nofile"].foretune
    assert qpidd.value == 65536
    assert "it runs only with --foreman-proxy-content-enable-katello-agent true (the default is false)" in qpidd.reason
    assert "pk-katello-agent-opt-in" in qpidd.citations
    assert plan.tunables["sysctl.fs_aio_max_nr"].foretune.value == 33 * 3000 + 1  # "more than 33N"


def test_6_9_still_runs_qpidd_for_every_content_host() -> None:
    # foreman-installer 2.3 (puppet-katello 19.0.x): qpidd always runs, so the guide's N content hosts is assumed
    result = run_cli("plan", "--product", "satellite", "--version", "6.9", "--hosts", "3000", "--cpus", "8", "--ram", "32G")
    assert "every one of the 3000 content hosts is assumed to run katello-agent" in result.stderr
    assert "qpidd.limit_nofile" in result.stdout
