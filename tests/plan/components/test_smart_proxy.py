"""The Smart Proxy's dynflow limits and database."""

from __future__ import annotations

from foretune.plan.components import smart_proxy
from tests.plan.components.helpers import plan, run


def test_satellite_62_follows_the_brief_for_remote_execution() -> None:
    # the 6.2 brief: LimitNOFILE=1000000 for smart_proxy_dynflow_core and an in-memory sqlite database (:database: "")
    t = run(smart_proxy.plan, "satellite", "6.2", physical_cores=4)
    assert t["smart_proxy_dynflow.limit_nofile"].foretune.value == 1000000
    assert t["smart_proxy_dynflow.database"].foretune.value == "in-memory"
    assert [(f.kind, f.value) for f in t["smart_proxy_dynflow.database"].fixes] == [("file", ':database: ""')]
    # puppet-foreman_proxy 2.5.0 (pinned by foreman-installer 1.11.0) dynflow/params.pp: an absolute path
    assert t["smart_proxy_dynflow.database"].installer.value == "/var/lib/foreman-proxy/dynflow/dynflow.sqlite"


def test_later_releases_keep_the_installer_s_limit() -> None:
    t = run(smart_proxy.plan, "satellite", "6.15")["smart_proxy_dynflow.limit_nofile"]
    assert t.foretune.value == t.installer.value and "smart_proxy_dynflow.database" not in run(smart_proxy.plan, "satellite", "6.15")


def test_pull_rex_capsule_does_not_give_the_ssh_reason() -> None:
    # pull-based remote execution: hosts subscribe to mosquitto (the guide's pull-REX section), the Smart Proxy's
    # dynflow holds no SSH connection per host; the installer's LimitNOFILE stays, worded for that
    t = plan("satellite", "6.15", role="capsule", hosts=6000, rex="pull-mqtt").tunables["smart_proxy_dynflow.limit_nofile"]
    assert t.foretune.value == t.installer.value == 1000000
    assert "SSH" not in t.foretune.reason.split(";")[0] and "mosquitto" in t.foretune.reason
    assert plan("satellite", "6.15", role="capsule", hosts=6000).tunables["smart_proxy_dynflow.limit_nofile"].foretune.reason == (
        "SSH remote execution holds one descriptor per connection")
