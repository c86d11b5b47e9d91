"""Correctly tuned fixture sosreports of every generation: no finding at medium or above, with and without --hosts.

The tuned trees follow each guide's primary recommendation for their release (values noted per tree):
- satellite-6.2-tuned (sos 3.x, foreman-debug): httpd/qpidd/qdrouterd LimitNOFILE=1000000 and
  fs.aio-max-nr 1000000 (6.2 brief, 5.12), THP never, Passenger queue 1000 below prefork MaxClients 1170,
  PassengerMinInstances 6 in the Foreman vhost (over passenger.conf's 3), PassengerMaxPreloaderIdleTime 0, KeepAlive On with MaxKeepAliveRequests 0,
  shared_buffers 4GB (the brief's 15-25 % of memory), max_connections 1200 (at least the 1170 registrations
  Apache admits: "max_connections to the amount of content hosts being registered concurrently"),
  mgmt-pub-interval 5; no host count in the source.
- satellite-6.9-tuned (sos 3.x, foreman-debug): medium profile, Puma 8 workers with threads 16/16
  ("t_min=16"), Rails pool 20 for 16 threads + 4, httpd LimitNOFILE=640000, cacheSizeGB 6
  ("approximately 6GB for a 32GB server") in mongod.conf as puppet-mongodb writes it (flat dotted keys:
  storage.wiredTiger.engineConfig.cacheSizeGB: 6); host count from foreman-maintain.
- satellite-6.15-tuned (sos 4.x): medium profile, 12 Puma workers (guide 8-12), httpd LimitNOFILE=640000,
  foreman-proxy LimitNOFILE=1000000, THP never, no stale custom-hiera key; no host count in the source.
- satellite-6.14-tuned (sos 4.x): the 6.15 tree on Satellite 6.14.2 (foreman-installer 3.7): Puma threads 16/16
  ("we recommend 16 threads with all the tuning profiles") and pool 16, the installer's own value before
  puppet-foreman 25.0.0 (max(db_pool 5, threads_max)); no qpidd installed (katello-agent off), kernel default
  fs.aio-max-nr 65536; no pumactl stats; no host count in the source.
- orcharhino-6.9-tuned (sos 4.x): default profile at the profile's own values, 6 Puma workers (guide 4-6),
  httpd LimitNOFILE=640000 (orcharhino guide 5.3.1).
- capsule-6.15-pull-rex-tuned (sos 4.x): httpd 640000, foreman-proxy 1000000, mosquitto 65536.
- capsule-6.2-passenger-tuned (sos 3.x): a Satellite 6.2 Capsule at the brief's Capsule example (5.9): passenger.conf
  PassengerMaxPoolSize 12 (1.5 x 8 cores) and PassengerMaxRequestQueueSize 200, 25-puppet.conf PassengerMinInstances 2
  and PassengerMaxPreloaderIdleTime 0, KeepAlive On / MaxKeepAliveRequests 0 / KeepAliveTimeout 5, httpd, qpidd and
  qdrouterd LimitNOFILE=1000000; Puppet's access log with no 503 (see test_passenger_capsule.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"
MEDIUM_UP = {"medium", "high", "critical"}
# hosts inside each box's profile range, as a support engineer would pass them
TUNED = {"satellite-6.2-tuned": "4000", "satellite-6.9-tuned": "4000", "satellite-6.14-tuned": "9000",
         "satellite-6.15-tuned": "9000",
         "orcharhino-6.9-tuned": "3000", "capsule-6.15-pull-rex-tuned": "3000", "capsule-6.2-passenger-tuned": "600"}


def findings(name: str, *extra: str) -> list[dict[str, object]]:
    result = run_cli("audit", str(SOS / name), "--format", "json", "--fail-on", "critical", *extra)
    assert result.status == 0, result.stderr
    data = json.loads(result.stdout)
    return [f for f in data["findings"] if f["status"] in ("fail", "error")]


@pytest.mark.parametrize("name", sorted(TUNED))
@pytest.mark.parametrize("with_hosts", [False, True], ids=["no-context", "with-hosts"])
def test_tuned_server_has_no_medium_or_higher_finding(name: str, with_hosts: bool) -> None:
    extra = ("--hosts", TUNED[name]) if with_hosts else ()
    loud = [(f["rule"], f["severity"], f["message"]) for f in findings(name, *extra) if f["severity"] in MEDIUM_UP]
    assert loud == []
    assert not [f for f in findings(name, *extra) if f["status"] == "error"]


def test_tuned_fixtures_cover_both_sos_layouts() -> None:
    layouts = {name: (SOS / name / "sos_commands" / "foreman" / "foreman-debug").is_dir() for name in TUNED}
    assert layouts["satellite-6.2-tuned"] and layouts["satellite-6.9-tuned"]
    assert (SOS / "capsule-6.2-passenger-tuned" / "version.txt").read_text(encoding="utf-8").startswith("sosreport: 3.")
    assert not layouts["satellite-6.15-tuned"] and not layouts["orcharhino-6.9-tuned"]


def test_release_gates_on_a_correct_6_14_install() -> None:
    # pool = threads is puppet-foreman's own value before 25.0.0: a low recommendation, not a fault; with no qpidd
    # installed the qpid-only rules do not run
    result = run_cli("audit", str(SOS / "satellite-6.14-tuned"), "--format", "json", "--fail-on", "critical")
    by_rule = {f["rule"]: f for f in json.loads(result.stdout)["findings"]}
    pool = by_rule["foreman-db-pool-too-small"]
    assert (pool["status"], pool["severity"], pool["current"]) == ("fail", "low", 16)
    assert "installer value" in pool["message"]
    for rule in ("fs-aio-max-nr-low", "qpid-mgmt-pub-interval"):
        assert by_rule[rule]["status"] == "skip" and "qpidd is not installed" in by_rule[rule]["message"]


def test_every_tuned_fixture_is_a_negative_control() -> None:
    assert sorted(p.name for p in SOS.iterdir() if p.is_dir() and p.name.endswith("-tuned")) == sorted(TUNED)


def _findings(source: Path) -> dict[str, dict[str, object]]:
    return {f["rule"]: f for f in json.loads(run_cli("audit", str(source), "--format", "json").stdout)["findings"]}


def test_work_mem_appended_as_the_guide_says_is_no_lock(tmp_path: Path) -> None:
    # the guide's PostgreSQL procedure: "Append /etc/foreman-installer/custom-hiera.yaml" with work_mem: 8MB ("Setting
    # this value to 8 MB should be more than enough"): a box that did so must go quiet, while a pin of a limit the
    # profiles set to another value (Apache prefork 256, the profiles' 1024 on 6.9 medium) still locks them out
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15-tuned", tree, symlinks=True)
    hiera = tree / "etc/foreman-installer/custom-hiera.yaml"
    hiera.write_text("---\npostgresql::server::config_entries:\n  random_page_cost: 1.1\n  work_mem: 8MB\n", encoding="utf-8")
    assert _findings(tree)["custom-hiera-locks-profile"]["status"] == "pass"
    hiera.write_text("---\npostgresql::server::config_entries:\n  work_mem: 8MB\n  max_connections: 300\n", encoding="utf-8")
    locked = _findings(tree)["custom-hiera-locks-profile"]
    assert (locked["status"], locked["current"]) == ("fail", ["postgresql::server::config_entries/max_connections"])
