"""qpid (katello-agent): file limits, fs.aio-max-nr, journal space, the accept timeout."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.plan import PlanInput, make_plan
from foretune.plan.components import qpid
from tests.plan.components.helpers import GIB, explain, plan, run


def test_limits_follow_the_69_guides_per_host_rules() -> None:
    # Satellite 6.9 guide (g69-qpid): qpidd 4 x hosts + 500, qdrouterd 3 x hosts + 100, fs.aio-max-nr 33 x hosts + 1,
    # 2 MiB of /var/lib/qpidd per host
    t = run(qpid.plan, "satellite", "6.9", hosts=20000, katello_agent_hosts=20000)
    assert t["qpidd.limit_nofile"].foretune.value == 80500
    assert t["qdrouterd.limit_nofile"].foretune.value == 150100  # the profiles' limit is more than 3 x 20000 + 100
    assert t["sysctl.fs_aio_max_nr"].foretune.value == 660001
    assert t["qpidd.storage_bytes"].foretune.value == 40000 * 1024**2
    assert t["katello.content_action_accept_timeout"].foretune.value == 60


def test_satellite_62_takes_the_briefs_flat_values() -> None:
    # the 6.2 brief: "LimitNOFILE=1000000" and "echo 1000000 > /proc/sys/fs/aio-max-nr"
    t = run(qpid.plan, "satellite", "6.2", physical_cores=4, katello_agent_hosts=3000)
    assert t["qpidd.limit_nofile"].foretune.value == 1000000 and t["sysctl.fs_aio_max_nr"].foretune.value == 1000000
    assert run(qpid.plan, "satellite", "6.15") == {}  # katello-agent left with qpid


def test_qpid_wording_follows_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    data = load_data("planner.yaml")
    monkeypatch.setitem(data["aio_per_host"], "value", 40)
    monkeypatch.setitem(data["qpidd_storage_per_host_mib"], "value", 3)
    p = plan("satellite", "6.9", hosts=20000, katello_agent_hosts=20000)
    assert "arithmetic: max(65536, 40 x 20000 + 1) = 800001" in explain(p, "sysctl.fs_aio_max_nr")
    assert "more than 40 x 20000 katello-agent hosts" in explain(p, "sysctl.fs_aio_max_nr")
    storage = p.tunables["qpidd.storage_bytes"].foretune
    assert (storage.reason.split(' (N = ')[0], storage.formula) == ("3 MiB per katello-agent host x 20000", "20000 x 3 MiB")


def test_qpid_options_only_where_puppet_qpid_has_them() -> None:
    # puppet-qpid: $open_file_limit first in 2.2.0, $mgmt_pub_interval first in 4.1.0; Katello 3.4 (Foreman 1.15,
    # Satellite 6.3) pins katello/qpid 2.1.x, Katello 3.7 (Foreman 1.18, Satellite 6.4) 4.2.x
    def qpid_fixes(version: str) -> set[tuple[str, str, object]]:
        plan = make_plan(PlanInput("satellite", version, hosts=12000, cpus=16, ram_bytes=64 * GIB, katello_agent_hosts=3000))
        return {(fix.kind, fix.target, fix.value) for t in plan.tunables.values() if t.component.startswith("q")
                for fix in t.fixes if t.differs and fix.kind != "advice"}
    assert qpid_fixes("6.3") == {("limit", "qpidd", 65536), ("hiera", "qpid::router::open_file_limit", 150100),
                                 ("file", "/etc/qpid/qpidd.conf", "mgmt-pub-interval=5")}
    assert qpid_fixes("6.4") == {("hiera", "qpid::open_file_limit", 65536), ("hiera", "qpid::router::open_file_limit", 150100),
                                 ("hiera", "qpid::mgmt_pub_interval", 5)}


def test_capsules_run_no_qpidd_once_their_module_declares_no_broker() -> None:
    # puppet-foreman_proxy_content has manifests/broker.pp (class { 'qpid': }) up to 14.2.0 and none from 15.0.0;
    # foreman-installer's Puppetfile.lock pins 14.0.0 at tag 2.3.0 and 17.0.0 at 2.4.0 (18.2.0 at 2.5.0, 24.2.0 at 3.7.0)
    for product, version in (("foreman", "2.4"), ("satellite", "6.10"), ("satellite", "6.12"), ("satellite", "6.14")):
        p = plan(product, version, role="capsule", hosts=3000, katello_agent_hosts=2000)
        ids = {tid for tid in p.tunables if tid.startswith(("qpid", "qdrouterd", "sysctl.fs_aio"))}
        assert ids == {"qdrouterd.limit_nofile"}, (product, version)
        assert p.tunables["qdrouterd.limit_nofile"].fixes[0].target == "qpid::router::open_file_limit"
        keys = {fix.target for t in p.tunables.values() for fix in t.fixes}
        assert not any(key.startswith("qpid::") and not key.startswith("qpid::router::") for key in keys), (product, version)
        names = [item.component for item in p.memory]
        assert "qdrouterd" in names and "qpidd + qdrouterd" not in names, (product, version)
    p = plan("foreman", "2.3", role="capsule", hosts=3000, katello_agent_hosts=2000)  # 14.0.0: the Capsule's own qpidd
    assert {"qpidd.limit_nofile", "qpid.mgmt_pub_interval", "sysctl.fs_aio_max_nr"} <= set(p.tunables)
    assert "qpidd + qdrouterd" in [item.component for item in p.memory]


def test_no_mgmt_pub_interval_without_katello_agent_hosts() -> None:
    # the guides give mgmt-pub-interval for katello-agent's 'not-attached' channel errors: no agents, no advice
    assert "qpid.mgmt_pub_interval" not in plan("satellite", "6.9", katello_agent_hosts=0).tunables
    assert "qpid.mgmt_pub_interval" not in plan("satellite", "6.2", role="capsule", katello_agent_hosts=0, physical_cores=4).tunables
    assert plan("satellite", "6.9", katello_agent_hosts=10).tunables["qpid.mgmt_pub_interval"].foretune.value == 5


def test_each_formula_row_says_which_hosts_its_n_counts() -> None:
    # Satellite 6.9 guide: "(N x 3) + 100, where N is the number of content hosts", "(N x 4) + 500, where N is the number
    # of content hosts", "bigger than 33 multiplied by the maximum number of the content hosts", "2MB disk space per
    # content host". foretune's N is the katello-agent hosts (3000 of 7000 here), and every such row states it.
    t = run(qpid.plan, "satellite", "6.9", hosts=7000, katello_agent_hosts=3000)
    assert t["qpidd.limit_nofile"].foretune.value == 65536  # 4 x 3000 + 500 = 12500, below the profiles' 65536
    assert t["sysctl.fs_aio_max_nr"].foretune.value == 99001  # 33 x 3000 + 1
    for tid in ("qpidd.limit_nofile", "qdrouterd.limit_nofile", "sysctl.fs_aio_max_nr", "qpidd.storage_bytes"):
        assert "N = katello-agent hosts: the guide's N is 'content hosts'" in t[tid].foretune.reason, tid


def test_no_katello_agent_hosts_leave_aio_at_the_kernel_default() -> None:
    # 6.2 brief 5.12: fs.aio-max-nr 1000000 is for katello-agent at scale; the 6.9 guide sizes it by "33 multiplied by
    # the maximum number of the content hosts" using katello-agent: with none, the kernel's 65536 stays, said plainly
    t = run(qpid.plan, "satellite", "6.2", role="capsule", hosts=600, physical_cores=4, ram_gib=16)
    assert t["sysctl.fs_aio_max_nr"].foretune.value == 65536
    assert t["sysctl.fs_aio_max_nr"].foretune.reason == "no katello-agent hosts: nothing for qpidd's linear store to size"



def test_open_file_limits_with_no_katello_agent_hosts_keep_the_installers() -> None:
    # Satellite 6.9 guide: qpidd "4N+500", qdrouterd "3N+100"; with N = 0 both are below what the installer sets
    # (qpidd 65536, qdrouterd 150100), which stay, said plainly
    t = plan("satellite", "6.9", hosts=3000, cpus=8, ram_gib=32).tunables
    assert (t["qpidd.limit_nofile"].foretune.value, t["qdrouterd.limit_nofile"].foretune.value) == (65536, 150100)
    assert t["qpidd.limit_nofile"].foretune.reason == "no katello-agent hosts: 4 x 0 + 500 is below the installer's 65536, kept"


def test_a_capsule_without_katello_agent_hosts_runs_no_qdrouterd_from_installer_2_5() -> None:
    # puppet-foreman_proxy_content 18.0.0+ (foreman-installer 2.5; 6.12 pins 21.1.0) declares the dispatch router with
    # ensure => absent unless enable_katello_agent (default false): no qdrouterd row, no qdrouterd memory
    p = plan("satellite", "6.12", role="capsule", katello_agent_hosts=0)
    assert "qdrouterd.limit_nofile" not in p.tunables
    assert not [m for m in p.memory if "qdrouterd" in m.component]
    # with katello-agent hosts it runs once enabled: 3 x 3000 + 100 = 9100, below the installer's 150100, kept
    p = plan("satellite", "6.12", role="capsule", katello_agent_hosts=3000)
    t = p.tunables["qdrouterd.limit_nofile"]
    assert t.foretune.value == 150100 and "--foreman-proxy-content-enable-katello-agent true" in t.foretune.reason
    assert [m.component for m in p.memory if "qdrouterd" in m.component] == ["qdrouterd"]
    # 6.9 (foreman-installer 2.3, puppet-foreman_proxy_content 14.0.0: qpid_router = true) runs it regardless
    assert "qdrouterd.limit_nofile" in plan("satellite", "6.9", role="capsule", katello_agent_hosts=0).tunables
