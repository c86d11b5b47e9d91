"""The installer column against the modules each release pins, written by hand from the upstream files.

Every Satellite release of the table is planned for the same box (default profile: 3000 hosts, 8 CPUs, 32 GiB) and
its installer column is compared with what that release's foreman-installer really applies. Where each value comes
from (read with ``git show TAG:path`` in the upstream repositories):

- The pins: foreman-installer ``Puppetfile.lock`` at the release's tag. 2.3.0 (Satellite 6.9): puppetlabs-apache
  5.6.0, theforeman-foreman 16.0.0, theforeman-pulpcore 2.1.0, katello-candlepin 11.0.0. 3.3.0 (6.12): apache 7.0.0,
  foreman 20.1.0, pulpcore 6.0.0, candlepin 12.3.0, foreman_proxy 22.1.3. 3.5.0 (6.13): apache 8.3.0, foreman 22.1.0,
  pulpcore 7.1.0, candlepin 13.1.0. 3.7.0 (6.14): apache 8.6.0, foreman 23.0.0, pulpcore 8.2.0, candlepin 14.0.0.
  3.9.0 (6.15): apache 11.1.0, foreman 24.1.0, pulpcore 9.0.0, candlepin 15.0.0. 3.12.0 (6.16): apache 12.1.0,
  foreman 25.2.2, pulpcore 10.4.0, candlepin 16.1.0, foreman_proxy 26.1.0.
- config/foreman.hiera/tuning/common.yaml at 2.3.0, 3.3.0, 3.9.0 and 3.12.0: max_connections 500, shared_buffers
  512MB, work_mem 4MB; apache::mod::event::threadsperchild 16 from 3.3.0; qpid::open_file_limit 65536 and
  qpid::router::open_file_limit 150100 at 2.3.0 and 3.3.0, gone at 3.9.0.
- puppetlabs-apache manifests/mod/event.pp: $serverlimit 25, $threadsperchild 25 and $maxclients 150 at v7.0.0,
  v8.3.0 and v8.6.0 (rendered as MaxClients when no maxrequestworkers is set); no $maxclients at v11.1.0 and v12.1.0,
  so Apache caps at ServerLimit 25 x ThreadsPerChild 16 = 400. manifests/mod/prefork.pp at v5.6.0: $serverlimit 256,
  $maxclients 256.
- puppet-foreman: 16.0.0 params.pp workers 2, threads_min 0, threads_max 16, db_pool 5 and config.pp
  max($foreman::db_pool, threads_max) = 16; 20.1.0 to 24.1.0 config.pp workers floor(min(CPUs x 1.5, RAM GiB - 1.5))
  = floor(min(12, 30.5)) = 12, threads_max 5, threads_min pick(undef, threads_max) = 5, db_pool 5; 25.2.2 config.pp
  pick(db_pool, threads_max + 4) = 9; dynflow_worker_instances 1 and dynflow_worker_concurrency 5 (20.1.0 on).
- puppet-pulpcore init.pp: worker_count min(8, CPUs) = 8; at 2.1.0 the content unit runs gunicorn -w 2 and the API
  unit gunicorn's own single worker; from 6.0.0 content 2 x min(8, CPUs) + 1 = 17 and API min(4, CPUs) + 1 = 5.
- puppet-candlepin: $java_opts '-Xms1024m -Xmx4096m' at 11.0.0 (params.pp) through 16.1.0 (init.pp).
- puppet-foreman_proxy manifests/plugin/dynflow/params.pp: $open_file_limit 1000000 (22.1.3).
- Satellite 6.2 (foreman-installer 1.11.0: puppetlabs-apache 1.8.1, theforeman-foreman 5.1.0): apache 1.8.1
  manifests/params.pp $keepalive 'Off', $keepalive_timeout 15, mod/prefork.pp $serverlimit 256 and $maxclients 256;
  puppet-foreman 5.1.0 params.pp $passenger_min_instances 1 and $passenger_start_timeout 600 (EL); no tuning file
  yet (1.14.0 adds it), so PassengerMaxPoolSize is Passenger's own 6 and max_connections PostgreSQL's 100.
"""

from __future__ import annotations

from typing import Any

import pytest

from foretune.plan import PlanInput, make_plan

GIB = 1024**3

COMMON_3X: dict[str, Any] = {
    "apache.mpm": "event", "apache.threads_per_child": 16, "apache.server_limit": 25,
    "dynflow.sidekiq_instances": 1, "dynflow.sidekiq_concurrency": 5,
    "pulp.workers": 8, "pulp.api_workers": 5, "pulp.content_workers": 17,
    "candlepin.heap_max": 4 * GIB, "smart_proxy_dynflow.limit_nofile": 1000000,
    "postgresql.shared_buffers": "512MB", "postgresql.max_connections": 500, "postgresql.work_mem": "4MB",
    "puma.workers": 12, "puma.threads_min": 5, "puma.threads_max": 5,
}

EXPECTED: dict[str, dict[str, Any]] = {
    "6.2": {"apache.mpm": "prefork", "apache.server_limit": 256, "apache.max_clients": 256, "apache.keepalive": False,
            "apache.keepalive_timeout": 15, "passenger.max_pool_size": 6, "passenger.min_instances": 1,
            "passenger.start_timeout": 600, "postgresql.max_connections": 100},
    "6.9": {"apache.mpm": "prefork", "apache.server_limit": 256, "apache.max_clients": 256,
            "pulp.workers": 8, "pulp.api_workers": 1, "pulp.content_workers": 2,
            "candlepin.heap_max": 4 * GIB, "smart_proxy_dynflow.limit_nofile": 1000000,
            "postgresql.shared_buffers": "512MB", "postgresql.max_connections": 500, "postgresql.work_mem": "4MB",
            "puma.workers": 2, "puma.threads_min": 0, "puma.threads_max": 16, "foreman.db_pool": 16,
            "qpidd.limit_nofile": 65536, "qdrouterd.limit_nofile": 150100},
    "6.12": {**COMMON_3X, "apache.max_request_workers": 150, "foreman.db_pool": 5,
             "qpidd.limit_nofile": 65536, "qdrouterd.limit_nofile": 150100},
    "6.13": {**COMMON_3X, "apache.max_request_workers": 150, "foreman.db_pool": 5,
             "qpidd.limit_nofile": 65536, "qdrouterd.limit_nofile": 150100},
    "6.14": {**COMMON_3X, "apache.max_request_workers": 150, "foreman.db_pool": 5,
             "qpidd.limit_nofile": 65536, "qdrouterd.limit_nofile": 150100},
    "6.15": {**COMMON_3X, "apache.max_request_workers": 400, "foreman.db_pool": 5},
    "6.16": {**COMMON_3X, "apache.max_request_workers": 400, "foreman.db_pool": 9},
}


@pytest.mark.parametrize("version", sorted(EXPECTED, key=lambda v: tuple(int(x) for x in v.split("."))))
def test_installer_column_is_what_the_pinned_modules_give(version: str) -> None:
    # 3000 katello-agent hosts: from foreman-installer 2.5 (6.10-6.14) qpidd runs only with katello-agent enabled
    plan = make_plan(PlanInput("satellite", version, hosts=3000, cpus=8, ram_bytes=32 * GIB,
                               katello_agent_hosts=0 if version in ("6.15", "6.16") else 3000))
    actual = {tid: plan.tunables[tid].installer.value for tid in EXPECTED[version] if tid in plan.tunables}
    assert actual == EXPECTED[version]
    if version in ("6.15", "6.16"):  # 3.9.0's tuning/common.yaml has no qpid limits: no qpidd on these releases
        assert "qpidd.limit_nofile" not in plan.tunables
