"""Facts from command files and configuration as real sos releases and services write them.

Each input is written from the real format (the sos release or upstream file is named at each test); expected
values are counted by hand from that input.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from foretune.facts import read_source
from tests.facts.archive import FIXTURES, pack

# sos 3.7 to 3.9 (RHEL 7.7 to 7.9), sos/plugins/foreman.py: 'foreman_tasks_tasks' is in `foremandb`, the queries
# "saved directly as postgres formats them" (`psql foreman -c 'select * from foreman_tasks_tasks'`: aligned table);
# sos 4.0 moved it to `foremancsv` (COPY ... WITH (FORMAT 'csv')).
TASKS_ALIGNED_SOS_39 = """\
                  id                  |              type               |                  label                   |         started_at         |          ended_at          |  state  | result  |             external_id              | parent_task_id |          start_at          | start_before |             action              | user_id |      state_updated_at
--------------------------------------+---------------------------------+------------------------------------------+----------------------------+----------------------------+---------+---------+--------------------------------------+----------------+----------------------------+--------------+---------------------------------+---------+----------------------------
 0b5a4c6e-7d1f-4d6a-9a55-0c2f1f9e2a01 | ForemanTasks::Task::DynflowTask | Actions::Katello::Repository::Sync       | 2021-01-10 02:00:01.123456 |                            | paused  | error   | 5f0c3a1e-0d7e-4a7b-b1c2-3d4e5f6a7b01 |                | 2021-01-10 02:00:01.120000 |              | Synchronize repository 'rhel-7' | 1       | 2021-01-10 02:03:00.000000
 0b5a4c6e-7d1f-4d6a-9a55-0c2f1f9e2a02 | ForemanTasks::Task::DynflowTask | Actions::Katello::Repository::Sync       | 2021-03-01 02:00:01.123456 |                            | paused  | error   | 5f0c3a1e-0d7e-4a7b-b1c2-3d4e5f6a7b02 |                | 2021-03-01 02:00:01.120000 |              | Synchronize repository 'rhel-7' | 1       | 2021-03-01 02:03:00.000000
 0b5a4c6e-7d1f-4d6a-9a55-0c2f1f9e2a03 | ForemanTasks::Task::DynflowTask | Actions::Katello::Host::GenerateApplicability | 2021-03-02 09:00:00.000000 |                       | running | pending | 5f0c3a1e-0d7e-4a7b-b1c2-3d4e5f6a7b03 |                | 2021-03-02 09:00:00.000000 |              | Generate host applicability     | 4       | 2021-03-02 09:00:00.000000
 0b5a4c6e-7d1f-4d6a-9a55-0c2f1f9e2a04 | ForemanTasks::Task::DynflowTask | Actions::Katello::Host::UploadPackageProfile | 2021-03-02 09:10:00.000000 | 2021-03-02 09:10:02.000000 | stopped | success | 5f0c3a1e-0d7e-4a7b-b1c2-3d4e5f6a7b04 |                | 2021-03-02 09:10:00.000000 |              | Upload package profile +| 4       | 2021-03-02 09:10:02.000000
                                      |                                 |                                          |                            |                            |         |         |                                      |                |                            |              | host.example.com                |         |
(4 rows)

"""


def test_tasks_from_sos_39_aligned_psql_table(tmp_path: Path) -> None:
    (tmp_path / "sos_commands" / "foreman").mkdir(parents=True)
    (tmp_path / "sos_commands" / "date").mkdir()
    (tmp_path / "sos_commands" / "foreman" / "foreman_tasks_tasks").write_text(TASKS_ALIGNED_SOS_39)
    (tmp_path / "sos_commands" / "date" / "date").write_text("Tue Mar  2 10:00:00 UTC 2021\n")  # sos 3.9 date plugin
    facts = read_source(str(tmp_path))
    # two paused (one started 2021-01-10, more than 30 days before 2021-03-02), one running
    assert facts.value("tasks") == {"paused": 2, "old_paused": 1, "running": 1}


def test_dropin_soft_and_hard_nofile_pair(tmp_path: Path) -> None:
    # systemd.exec(5): "LimitNOFILE=soft:hard"; a sosreport whose systemd plugin output is missing still has the
    # drop-in (sos systemd plugin copies /etc/systemd)
    dropin = tmp_path / "etc/systemd/system/httpd.service.d"
    dropin.mkdir(parents=True)
    (tmp_path / "sos_commands").mkdir()
    (dropin / "limits.conf").write_text("[Service]\nLimitNOFILE=1024:524288\n")
    limits = read_source(str(tmp_path)).value("service_limits")
    assert limits["httpd.service"]["dropin_nofile"] == 524288
    assert limits["httpd.service"]["LimitNOFILE"] == 524288
    assert limits["httpd.service"]["soft_nofile"] == 1024


# sos systemd plugin, every release: `systemctl show *service --all` -> sos_commands/systemd/systemctl_show_service_--all,
# one block of properties per unit separated by blank lines. systemd 219 (RHEL 7) prints RLIM_INFINITY as a number.
SHOW_RHEL7 = """\
Type=notify
LimitNOFILE=18446744073709551615
LimitNPROC=63413
Id=postgresql.service
ActiveState=active
MainPID=1234

Type=forking
LimitNOFILE=65536
Id=qpidd.service
ActiveState=active
MainPID=0
"""


def test_systemd_219_infinity_and_many_units(tmp_path: Path) -> None:
    show = tmp_path / "sos_commands/systemd"
    show.mkdir(parents=True)
    (show / "systemctl_show_service_--all").write_text(SHOW_RHEL7)
    limits = read_source(str(tmp_path)).value("service_limits")
    assert limits["postgresql.service"]["LimitNOFILE"] is None  # unlimited
    assert limits["postgresql.service"]["LimitNPROC"] == 63413
    assert limits["qpidd.service"]["LimitNOFILE"] == 65536
    assert limits["qpidd.service"]["active"] is True


# PostgreSQL manual, "Managing Configuration File Contents": include_dir 'conf.d' reads the directory's *.conf files
# in file-name order (dot files skipped) where the directive stands; a relative path is relative to the including
# file. sos postgresql plugin: find("*.conf", pghome) copies every .conf under /var/lib/pgsql, conf.d/ included.
POSTGRESQL_CONF_WITH_INCLUDES = """\
max_connections = 100
shared_buffers = 128MB			# min 128kB
work_mem = 4MB
include_dir 'conf.d'			# directory of *.conf files
work_mem = '8MB'
include_if_exists = 'missing.conf'
"""


def test_postgresql_include_dir_in_a_sosreport(tmp_path: Path) -> None:
    data = tmp_path / "var/lib/pgsql/data"
    (data / "conf.d").mkdir(parents=True)
    (tmp_path / "sos_commands").mkdir()
    (data / "postgresql.conf").write_text(POSTGRESQL_CONF_WITH_INCLUDES)
    (data / "conf.d/10-satellite.conf").write_text("max_connections = 500\nshared_buffers = 2GB\nwork_mem = 16MB\n")
    (data / "conf.d/20-later.conf").write_text("shared_buffers = '4GB'\n")
    (data / "conf.d/.00-editor-backup.conf").write_text("shared_buffers = 64MB\n")
    (data / "postgresql.auto.conf").write_text("# Do not edit this file manually!\n# It will be overwritten by the ALTER SYSTEM command.\n"
                                               "max_connections = '600'\n")
    facts = read_source(str(tmp_path))
    settings = facts.value("postgresql")
    assert settings["shared_buffers"] == "4GB"  # 20-later.conf after 10-satellite.conf; the dot file is skipped
    assert settings["work_mem"] == "8MB"  # the line after include_dir wins over conf.d
    assert settings["max_connections"] == "600"  # ALTER SYSTEM's file is read last
    assert "include_dir" not in settings and "include_if_exists" not in settings
    locations = [p.location for p in facts["postgresql"].provenance]
    assert locations[0] == "var/lib/pgsql/data/postgresql.conf"
    assert "var/lib/pgsql/data/conf.d/20-later.conf" in locations
    assert not [p for p in facts.problems if "missing.conf" in p]  # include_if_exists: absence is fine
    tarball = pack(tmp_path, tmp_path.parent / f"{tmp_path.name}.tar.xz")  # a tarball keeps conf.d/*.conf too
    assert read_source(str(tarball)).value("postgresql") == settings


def test_postgresql_include_of_a_file_the_source_lacks_is_reported(tmp_path: Path) -> None:
    data = tmp_path / "var/lib/pgsql/data"
    data.mkdir(parents=True)
    (tmp_path / "sos_commands").mkdir()
    (data / "postgresql.conf").write_text("shared_buffers = 2GB\ninclude '/etc/pg-tuning.conf'\n")
    facts = read_source(str(tmp_path))
    assert facts.value("postgresql") == {"shared_buffers": "2GB"}
    assert any("/etc/pg-tuning.conf" in p and "not read" in p for p in facts.problems)


# puppetlabs-apache manifests/mpm.pp writes "LoadModule mpm_event_module ..." to conf.modules.d/event.load and
# templates/mod/event.conf.erb to conf.modules.d/event.conf; sos's apache plugin copies conf.modules.d/*.conf only
# (sos 3.5 to 4.12 alike) and runs `apachectl -M` -> sos_commands/apache/apachectl_-M.
EVENT_CONF_PUPPET = """\
<IfModule mpm_event_module>
  ServerLimit            64
  StartServers           2
  MaxClients             150
  MinSpareThreads        25
  MaxSpareThreads        75
  ThreadsPerChild        25
  MaxRequestsPerChild    0
  ThreadLimit            64
  ListenBacklog          511
  MaxRequestWorkers      1024
  MaxConnectionsPerChild 0
</IfModule>
"""
PREFORK_CONF_STOCK = """\
<IfModule mpm_prefork_module>
  MaxClients 256
</IfModule>
"""
APACHECTL_M = """\
Loaded Modules:
 core_module (static)
 so_module (static)
 http_module (static)
 access_compat_module (shared)
 mpm_event_module (shared)
 systemd_module (shared)
"""


def test_apache_mpm_from_apachectl_m_when_the_load_file_is_not_collected(tmp_path: Path) -> None:
    modules = tmp_path / "etc/httpd/conf.modules.d"
    modules.mkdir(parents=True)
    (modules / "event.conf").write_text(EVENT_CONF_PUPPET)
    (modules / "zz-prefork-leftover.conf").write_text(PREFORK_CONF_STOCK)
    (tmp_path / "sos_commands/apache").mkdir(parents=True)
    (tmp_path / "sos_commands/apache/apachectl_-M").write_text(APACHECTL_M)
    apache = read_source(str(tmp_path)).value("apache")
    assert apache["mpm"] == "event"
    assert apache["ServerLimit"] == 64 and apache["MaxRequestWorkers"] == 1024 and apache["ThreadsPerChild"] == 25
    assert apache["MaxClients"] == 150  # the event section's, not the prefork section's 256
    assert read_source(str(pack(tmp_path, tmp_path.parent / f"{tmp_path.name}.tar.gz"))).value("apache") == apache


# sos 3.0 to 3.6 ran foreman-debug into sos_commands/foreman/foreman-debug/; foreman-tasks' foreman-debug.d extension
# (60-dynflow_debug) writes foreman_tasks_tasks.csv with `COPY (select * from foreman_tasks_tasks ...) TO STDOUT
# WITH CSV;`: no header row. Columns of foreman-tasks 0.7 (Satellite 6.2): id .. external_id, parent_task_id,
# start_at, start_before. sos 3.0 to 3.5 write `date` to sos_commands/general/date.
TASKS_FOREMAN_DEBUG_CSV = """\
5d3c1e8a-1111-4c2e-9d3a-0a1b2c3d4e01,Actions::Katello::Repository::Sync,Actions::Katello::Repository::Sync,\
2017-03-01 02:00:01.123456,,paused,error,8e1f0c2a-2222-4b3c-8d4e-0a1b2c3d4e01,,2017-03-01 02:00:01.120000,
5d3c1e8a-1111-4c2e-9d3a-0a1b2c3d4e02,ForemanTasks::Task::DynflowTask,Actions::Katello::Repository::Sync,\
2017-05-28 02:00:01.123456,,paused,error,8e1f0c2a-2222-4b3c-8d4e-0a1b2c3d4e02,,2017-05-28 02:00:01.120000,
5d3c1e8a-1111-4c2e-9d3a-0a1b2c3d4e03,ForemanTasks::Task::DynflowTask,Actions::Katello::Host::Update,\
2017-05-29 09:00:00.000000,2017-05-29 09:00:01.000000,stopped,success,8e1f0c2a-2222-4b3c-8d4e-0a1b2c3d4e03,,\
2017-05-29 09:00:00.000000,
"""


def test_tasks_from_foreman_debug_headerless_csv(tmp_path: Path) -> None:
    debug = tmp_path / "sos_commands/foreman/foreman-debug"
    debug.mkdir(parents=True)
    (tmp_path / "sos_commands/general").mkdir()
    (debug / "foreman_tasks_tasks.csv").write_text(TASKS_FOREMAN_DEBUG_CSV)
    (tmp_path / "sos_commands/general/date").write_text("Mon May 29 10:00:00 UTC 2017\n")
    facts = read_source(str(tmp_path))
    # two paused, the one of 2017-03-01 more than 30 days before the sosreport's date; nothing running
    assert facts.value("tasks") == {"paused": 2, "old_paused": 1, "running": 0}


# sos 4.x foreman plugin: add_cmd_output('systemctl list-units dynflow*', suggest_filename='dynflow_units'); sos runs
# (and lists in sos_reports/manifest.json) its plugins in name order, so this entry comes before the systemd
# plugin's `systemctl list-units`.
DYNFLOW_UNITS = """\
  UNIT                                       LOAD   ACTIVE SUB     DESCRIPTION
  dynflow-sidekiq@orchestrator.service       loaded active running Foreman jobs daemon - orchestrator on sidekiq
  dynflow-sidekiq@worker-1.service           loaded active running Foreman jobs daemon - worker-1 on sidekiq

2 loaded units listed.
"""


def test_manifest_lookup_skips_a_command_that_only_starts_alike(tmp_path: Path) -> None:
    tree = tmp_path / "sos"
    shutil.copytree(FIXTURES / "satellite-6.15", tree, symlinks=True)
    (tree / "sos_commands/foreman/dynflow_units").write_text(DYNFLOW_UNITS)
    manifest = tree / "sos_reports/manifest.json"
    data = json.loads(manifest.read_text())
    plugins = data["components"]["report"]["plugins"]
    plugins["foreman"]["commands"].insert(0, {"command": "systemctl", "exec": "systemctl list-units dynflow*",
                                              "filepath": "sos_commands/foreman/dynflow_units", "return_code": 0})
    data["components"]["report"]["plugins"] = dict(sorted(plugins.items()))
    manifest.write_text(json.dumps(data))
    facts = read_source(str(tree))
    assert facts.value("pulpcore")["workers"] == 8  # pulpcore-worker@1..8 in systemctl_list-units
    assert facts["pulpcore"].provenance[0].location == "sos_commands/systemd/systemctl_list-units"


# sos 3.9 block plugin (RHEL 7.9): `lsblk` and `lsblk -t` (no `lsblk -O -P` before sos 4.3), run with LC_ALL=C, so
# lsblk draws its tree in ASCII; util-linux 2.23 column sets.
LSBLK_SOS_39 = """\
NAME              MAJ:MIN RM  SIZE RO TYPE MOUNTPOINT
sda                 8:0    0  100G  0 disk\x20
|-sda1              8:1    0    1G  0 part /boot
`-sda2              8:2    0   99G  0 part\x20
  |-rhel-root     253:0    0   91G  0 lvm  /
  `-rhel-swap     253:1    0    8G  0 lvm  [SWAP]
sdb                 8:16   0  200G  0 disk\x20
`-vg_pgsql-pgsql  253:2    0  200G  0 lvm  /var/lib/pgsql
sr0                11:0    1 1024M  0 rom\x20\x20
"""
LSBLK_T_SOS_39 = """\
NAME             ALIGNMENT MIN-IO OPT-IO PHY-SEC LOG-SEC ROTA SCHED    RQ-SIZE   RA WSAME
sda                      0    512      0     512     512    1 deadline     128 4096   32M
|-sda1                   0    512      0     512     512    1 deadline     128 4096   32M
`-sda2                   0    512      0     512     512    1 deadline     128 4096   32M
  |-rhel-root            0    512      0     512     512    1              128 4096   32M
  `-rhel-swap            0    512      0     512     512    1              128 4096   32M
sdb                      0   4096      0    4096     512    0 noop         128 4096    0B
`-vg_pgsql-pgsql         0   4096      0    4096     512    0              128 4096    0B
sr0                      0    512      0     512     512    1 deadline     128  128    0B
"""
MOUNTS_RHEL7 = """\
/dev/mapper/rhel-root / xfs rw,seclabel,relatime,attr2,inode64,noquota 0 0
/dev/sda1 /boot xfs rw,seclabel,relatime,attr2,inode64,noquota 0 0
/dev/mapper/vg_pgsql-pgsql /var/lib/pgsql xfs rw,seclabel,relatime,attr2,inode64,noquota 0 0
"""


def test_rotational_from_sos_39_lsblk_and_lsblk_t(tmp_path: Path) -> None:
    block = tmp_path / "sos_commands/block"
    block.mkdir(parents=True)
    (tmp_path / "proc").mkdir()
    (block / "lsblk").write_text(LSBLK_SOS_39)
    (block / "lsblk_-t").write_text(LSBLK_T_SOS_39)
    (tmp_path / "proc/mounts").write_text(MOUNTS_RHEL7)
    dirs = read_source(str(tmp_path)).value("key_dirs")
    assert dirs["/"]["rotational"] is True
    assert dirs["/var/lib/pgsql"]["rotational"] is False
    assert dirs["/var/lib/pgsql"]["mountpoint"] == "/var/lib/pgsql"
    assert read_source(str(pack(tmp_path, tmp_path.parent / f"{tmp_path.name}.tar"))).value("key_dirs") == dirs


def test_collected_at_from_the_date_plugin_not_the_timedatectl_root_link(tmp_path: Path) -> None:
    # sos 4.2+ (commit 82f12d17 "[date,systemd] Switch 'date' root symlink to timedatectl"); no manifest here
    (tmp_path / "sos_commands/date").mkdir(parents=True)
    (tmp_path / "sos_commands/systemd").mkdir()
    (tmp_path / "sos_commands/date/date").write_text("Mon Feb 12 10:11:12 UTC 2024\n")
    (tmp_path / "sos_commands/systemd/timedatectl").write_text(
        "               Local time: Mon 2024-02-12 10:11:12 UTC\n           Universal time: Mon 2024-02-12 10:11:12 UTC\n"
        "                 RTC time: Mon 2024-02-12 10:11:11\n                Time zone: UTC (UTC, +0000)\n")
    (tmp_path / "date").symlink_to("sos_commands/systemd/timedatectl")
    assert read_source(str(tmp_path)).value("collected_at") == "2024-02-12 10:11 UTC"  # with the zone the date file names


def test_a_snapshot_without_a_date_file_is_dated_by_its_own_time(tmp_path: Path) -> None:
    """A snapshot whose collected_at is unknown (a live host gives no date file) takes its metadata.time, in UTC
    (feedback R9: the header said "Collected unknown")."""
    import gzip
    import json

    snapshot = tmp_path / "snap.json.gz"
    with gzip.open(snapshot, "wt", encoding="utf-8") as out:
        json.dump({"format": "foretune-snapshot", "format_version": 1, "metadata": {"host": "sat", "time": "2026-11-27T04:55:12Z"},
                   "facts": {"collected_at": {"unknown": True, "reason": "not available on a live host"}}}, out)
    facts = read_source(str(snapshot))
    assert facts.value("collected_at") == "2026-11-27 04:55 UTC"
    assert facts["collected_at"].provenance[0].location == "metadata.time"
