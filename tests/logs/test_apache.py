"""Apache access logs of the Puppet-era Capsules: host names folded, Puppet agents counted as Puppet."""

from __future__ import annotations

import json

from tests.conftest import REPO, run_cli


def test_a_6_2_capsule_s_puppet_routes_fold_the_host_and_count_as_puppet() -> None:
    """capsule-6.2-passenger's puppet_access_ssl.log: Puppet 3.8 agents call /production/node/<certname> with the
    User-Agent "Ruby". The certname is folded like an id (one endpoint, not one per host) and the client is Puppet."""
    source = REPO / "tests" / "fixtures" / "sosreports" / "capsule-6.2-passenger"
    data = json.loads(run_cli("logs", str(source), "--format", "json").stdout)
    access = next(a for a in data["apache_access"] if a["log"] == "puppet_access_ssl.log")
    assert [e[0] for e in access["top_endpoints"]][:1] == ["GET /production/node/:host"]
    assert not any("host0" in str(e[0]) for e in access["top_endpoints"])
    assert {k: n for k, n, *_ in access["client_kinds"]} == {"puppet": 40}
