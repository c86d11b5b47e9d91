"""Each finding's evidence shows the fact it proves, as its file has it: the sizes of the tables it sums, the backlog
it counts, the unit count it judges, the rotational flag it reports. The expected lines are copied by hand from the
fixture files named in each test."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.audit.test_evidence_verbatim import EXAMPLE, SOS, failing, squash


def finding(root: Path, rule: str) -> dict[str, Any]:
    return next(f for f in failing(root) if f["rule"] == rule)


def quoted(f: dict[str, Any]) -> list[str]:
    return [f"{e['location']}: {squash(str(e['excerpt']))}" for e in f["evidence"]]


def test_history_tables_large_quotes_the_rows_it_sums_with_their_sizes() -> None:
    """satellite-6.15 sos_commands/foreman/foreman_db_tables_sizes: dynflow_steps 21 GB, dynflow_actions 6 GB,
    foreman_tasks_tasks 900 MB (total column); 27.9 GiB together."""
    f = finding(SOS / "satellite-6.15", "history-tables-large")
    where = "sos_commands/foreman/foreman_db_tables_sizes: "
    assert quoted(f) == [where + "dynflow_steps | 21 GB | 3 GB | 8192 bytes | 18 GB",
                         where + "dynflow_actions | 6 GB | 1 GB | 8192 bytes | 5 GB",
                         where + "foreman_tasks_tasks | 900 MB | 300 MB | 8192 bytes | 600 MB"]
    assert "dynflow_steps 21.0 GiB" in f["message"]


def test_pg_table_bloat_quotes_the_size_row_and_the_row_count() -> None:
    """satellite-6.15: audits 3 GB in foreman_db_tables_sizes, 42000 rows in audits_table_count."""
    f = finding(SOS / "satellite-6.15", "pg-table-bloat")
    assert quoted(f) == ["sos_commands/foreman/foreman_db_tables_sizes: audits | 3 GB | 800 MB | 8192 bytes | 2 GB",
                         "sos_commands/foreman/audits_table_count: 42000"]


def test_puma_pool_saturated_quotes_a_worker_backlog() -> None:
    """satellite-6.15 sos_commands/foreman/pumactl_stats: 24 workers, each with "backlog": 2 and "pool_capacity": 0."""
    f = finding(SOS / "satellite-6.15", "puma-pool-saturated")
    stats = [e["excerpt"] for e in f["evidence"] if e["location"] == "sos_commands/foreman/pumactl_stats"]
    assert '"last_status": {"backlog": 2, "running": 5, "pool_capacity": 0' in stats
    assert '"workers": 24, "phase": 0, "booted_workers": 24' in stats
    assert f["current"] == 48 and "backlog summed" in f["message"]


def test_pulpcore_workers_high_quotes_the_units_it_counts() -> None:
    """examples' sos_commands/systemd/systemctl_list-units: pulpcore-worker@1 .. @16, all running."""
    f = finding(EXAMPLE, "pulpcore-workers-high")
    assert quoted(f) == ["sos_commands/systemd/systemctl_list-units: pulpcore-worker@1.service loaded active running "
                         "pulpcore-worker@1 | pulpcore-worker@16.service loaded active running pulpcore-worker@16"]
    assert f["current"] == 16


def test_sidekiq_too_few_instances_quotes_the_instances_not_their_concurrency() -> None:
    """examples: one dynflow-sidekiq@worker unit (the hosts queue is not a worker instance); its :concurrency: 15
    belongs to sidekiq-concurrency-high."""
    f = finding(EXAMPLE, "sidekiq-too-few-instances")
    assert quoted(f) == ["sos_commands/systemd/systemctl_list-units: dynflow-sidekiq@worker.service loaded active running "
                         "dynflow-sidekiq@worker"]
    concurrency = finding(EXAMPLE, "sidekiq-concurrency-high")
    assert [e["excerpt"] for e in concurrency["evidence"]] == [":concurrency: 15"]


def test_database_on_rotational_disk_quotes_the_rotational_flag() -> None:
    """satellite-6.9: /var (rhel-var, dm-2) holds PostgreSQL and MongoDB; lsblk_-O_-P says ROTA="1"."""
    f = finding(SOS / "satellite-6.9", "database-on-rotational-disk")
    assert quoted(f)[0] == ('sos_commands/block/lsblk_-O_-P: NAME="rhel-var" KNAME="dm-2" PKNAME="sda2" TYPE="lvm" '
                            'FSTYPE="xfs" MOUNTPOINT="/var" ROTA="1" SCHED=""')
    assert "proc/mounts: /dev/mapper/rhel-var /var xfs rw,seclabel,relatime,attr2,inode64,noquota 0 0" in quoted(f)
    assert "lsblk ROTA=1 for the mount /var" in f["message"]


# sos before 4.3 runs plain `lsblk` and `lsblk -t`: written as RHEL 7's util-linux prints them under LC_ALL=C
LSBLK = """\
NAME                     MAJ:MIN RM  SIZE RO TYPE MOUNTPOINT
sda                        8:0    0   50G  0 disk
|-sda1                     8:1    0    1G  0 part /boot
`-sda2                     8:2    0   49G  0 part
  |-rhel-root            253:0    0   45G  0 lvm  /
  `-rhel-swap            253:1    0    4G  0 lvm  [SWAP]
sdb                        8:16   0  500G  0 disk
|-vg_data-lv_mongodb     253:2    0  200G  0 lvm  /var/lib/mongodb
`-vg_data-lv_pulp        253:3    0  300G  0 lvm  /var/lib/pulp
"""
LSBLK_T = """\
NAME                   ALIGNMENT MIN-IO OPT-IO PHY-SEC LOG-SEC ROTA SCHED    RQ-SIZE   RA WSAME
sda                            0    512      0     512     512    1 deadline     128 4096   32M
|-sda1                         0    512      0     512     512    1 deadline     128 4096   32M
`-sda2                         0    512      0     512     512    1 deadline     128 4096   32M
  |-rhel-root                  0    512      0     512     512    1              128 4096   32M
  `-rhel-swap                  0    512      0     512     512    1              128 4096   32M
sdb                            0    512      0     512     512    0 deadline     128 4096    0B
|-vg_data-lv_mongodb           0    512      0     512     512    0              128 4096    0B
`-vg_data-lv_pulp              0    512      0     512     512    0              128 4096    0B
"""


def test_the_rotational_flag_from_lsblk_t_is_quoted_from_its_line(tmp_path: Path) -> None:
    """satellite-6.2 as sos 3.x collects it: / (rhel-root, PostgreSQL) on a rotational disk, /var/lib/mongodb on an SSD:
    the finding names PostgreSQL only and quotes lsblk -t's header and rhel-root's line with its ROTA 1."""
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.2", tree, symlinks=True)
    block = tree / "sos_commands" / "block"
    (block / "lsblk_-O_-P").unlink()
    (block / "lsblk").write_text(LSBLK, encoding="utf-8")
    (block / "lsblk_-t").write_text(LSBLK_T, encoding="utf-8")
    f = finding(tree, "database-on-rotational-disk")
    assert f["message"].startswith("/var/lib/pgsql on rotational storage (lsblk ROTA=1 for the mount /)")
    assert "mongodb" not in f["message"]
    first = f["evidence"][0]
    assert first["location"] == "sos_commands/block/lsblk_-t"
    header, row = str(first["excerpt"]).split("\n")
    assert squash(header).split()[6] == "ROTA" and squash(row) == "rhel-root 0 512 0 512 512 1 128 4096 32M"



def test_custom_hiera_stale_keys_quotes_the_stale_line_under_its_key() -> None:
    """examples' etc/foreman-installer/custom-hiera.yaml sets checkpoint_segments: 32 under
    postgresql::server::config_entries (PostgreSQL 9.5 removed it): the evidence is that line, not the file's first."""
    f = finding(EXAMPLE, "custom-hiera-stale-keys")
    assert quoted(f) == ["etc/foreman-installer/custom-hiera.yaml: postgresql::server::config_entries: | checkpoint_segments: 32"]


def test_a_host_count_given_with_hosts_is_quoted_from_the_command_line() -> None:
    """satellite-6.15-profile-too-small counts 28000 managed hosts (satellite_metrics.yml); with --hosts 19000 the
    finding's 19000 comes from the command line: that is its evidence, and the message says the source counts 28000."""
    import json

    from tests.conftest import run_cli

    data = json.loads(run_cli("audit", str(SOS / "satellite-6.15-profile-too-small"), "--hosts", "19000",
                              "--format", "json", "--fail-on", "critical").stdout)
    f = next(x for x in data["findings"] if x["rule"] == "profile-too-small-for-hosts")
    assert "19000 hosts (given with --hosts; the source counts 28000) need large" in f["message"]
    assert quoted(f)[1:] == ["command line: --hosts 19000",
                             "var/lib/foreman-maintain/satellite_metrics.yml: hosts_by_type_count: | Managed: 28000"]
