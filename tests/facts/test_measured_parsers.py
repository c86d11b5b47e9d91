"""Parsers of measured state: ps RSS per service, /proc/vmstat, passenger-status, sar %steal."""

from __future__ import annotations

from pathlib import Path

import pytest

from foretune.facts.parsers import ParseError
from foretune.facts.parsers.process import parse_passenger_pool, parse_ps_rss, parse_sar_steal, parse_vmstat

PS = """USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
foreman     4100  6.1  1.6 1843212 1102336 ?     -    Feb01 812:10 puma: cluster worker 0: 4090 [foreman]
foreman        -  0.0    -      -     - -        Ssl  -       0:00 -
postgres    3001  0.2  6.6 4732128 4456448 ?     -    Feb01  31:00 /usr/bin/postmaster -D /var/lib/pgsql/data
foreman     3500  1.0  0.9 1243212 612352 ?      -    Feb01 120:00 sidekiq 6.5.12  [0 of 5 busy]
root           1  0.0  0.0 174800 13920 ?        -    Feb01   1:02 /usr/lib/systemd/systemd
"""


def test_ps_rss_is_summed_per_service_and_thread_lines_are_skipped() -> None:
    assert parse_ps_rss(PS) == {"Foreman (Puma)": {"processes": 1, "rss_bytes": 1102336 * 1024},
                                "PostgreSQL": {"processes": 1, "rss_bytes": 4456448 * 1024},
                                "Dynflow Sidekiq": {"processes": 1, "rss_bytes": 612352 * 1024}}


def test_ps_without_header_is_an_error_and_empty_is_nothing() -> None:
    with pytest.raises(ParseError):
        parse_ps_rss("4100 puma\n")
    assert parse_ps_rss("") == {}


def test_vmstat_counters() -> None:
    assert parse_vmstat("pswpin 1024\npswpout 70312\noom_kill 2\n") == {"pswpin": 1024, "pswpout": 70312, "oom_kill": 2}
    with pytest.raises(ParseError):
        parse_vmstat("pswpin lots\n")


def test_passenger_pool_sums_the_application_queues() -> None:
    text = ("Max pool size : 20\nProcesses     : 20\nRequests in top-level queue : 3\n"
            "/usr/share/foreman#default:\n  Requests in queue: 250\n/etc/puppet/rack#default:\n  Requests in queue: 7\n")
    assert parse_passenger_pool(text) == {"max_pool_size": 20, "processes": 20, "top_queue": 3, "app_queue": 257,
                                          "app_queue_max": 250}  # the limit is per application: its fullest queue


def test_sar_steal_reads_all_cpu_rows_with_am_pm_and_24h_clocks() -> None:
    am_pm = ("12:00:01 AM     CPU     %user     %nice   %system   %iowait    %steal     %idle\n"
             "12:10:01 AM     all     35.10      0.00      6.20      0.30     14.80     43.60\n"
             "12:10:01 AM       0     36.00      0.00      6.00      0.20     15.00     42.80\n"
             "Average:        all     35.10      0.00      6.20      0.30     14.80     43.60\n")
    assert parse_sar_steal(am_pm) == [14.80]
    h24 = ("00:00:01        CPU     %user     %nice   %system   %iowait    %steal     %idle\n"
           "00:10:01        all      5,10      0,00      1,20      0,30      2,50     90,90\n\n"
           "00:00:01     proc/s   cswch/s\n00:10:01       all      1.00\n")
    assert parse_sar_steal(h24) == [2.5]


def test_table_sizes_from_pretty_psql_output() -> None:
    from foretune.facts.parsers.process import parse_table_sizes

    text = ("        table_name        |  total  |  index  |   toast    |  table\n"
            "--------------------------+---------+---------+------------+---------\n"
            " dynflow_steps            | 38 GB   | 4 GB    | 8192 bytes | 34 GB\n"
            " audits                   | 512 MB  | 100 MB  | 8192 bytes | 412 MB\n"
            " settings                 | 64 kB   | 32 kB   | 8192 bytes | 24 kB\n(3 rows)\n")
    assert parse_table_sizes(text) == {"dynflow_steps": 38 * 1024**3, "audits": 512 * 1024**2, "settings": 64 * 1024}


def test_agent_queues_are_counted_once_each() -> None:
    from foretune.facts.parsers.process import count_agent_queues

    text = ("  pulp.agent.0a4b9c2e-55e1-4d1f-8c35-0c9c1f6f8a01  Y  0 0 0\n"
            "  pulp.agent.0a4b9c2e-55e1-4d1f-8c35-0c9c1f6f8a01  Y  0 0 0\n"
            "  pulp.agent.1b7de0f3-6c2a-4e0b-9d11-4a1e2b3c4d5e  Y  0 0 0\n  celery  Y  0 12 12\n")
    assert count_agent_queues(text) == 2


def test_mqtt_clients_and_task_hosts_are_read_from_a_sosreport(tmp_path: Path) -> None:
    from foretune.facts import read_source

    (tmp_path / "sos_commands" / "foreman").mkdir(parents=True)
    (tmp_path / "var" / "log" / "mosquitto").mkdir(parents=True)
    (tmp_path / "var" / "log" / "mosquitto" / "mosquitto.log").write_text(
        "1707731920: New client connected from 192.0.2.11:40312 as web01.example.com (p2, c1, k60, u'web01').\n"
        "1707732067: Client web01.example.com closed its connection.\n"
        "1707732069: New client connected from 192.0.2.11:40340 as web01.example.com (p2, c1, k60, u'web01').\n"
        "1707732135: New client connected from 192.0.2.13:33002 as db01.example.com (p2, c1, k60, u'db01').\n")
    (tmp_path / "sos_commands" / "foreman" / "foreman_tasks_tasks").write_text(
        "id,label,started_at,state,result,action\n"
        "1,Actions::RemoteExecution::RunHostJob,2024-02-12 09:40:02,stopped,success,Remote action: Run uptime on app01.example.com\n"
        "2,Actions::RemoteExecution::RunHostJob,2024-02-12 09:41:02,stopped,success,Remote action: Run uptime on APP01.example.com\n"
        "3,Actions::Katello::Repository::Sync,2024-02-12 09:42:02,stopped,success,Synchronize repository on cdn.example.com\n")
    facts = read_source(str(tmp_path))
    assert facts.value("pull_rex_clients") == 2  # web01 reconnected: counted once
    assert facts["pull_rex_clients"].provenance[0].location == "var/log/mosquitto/mosquitto.log"
    assert facts.value("task_hosts") == 1  # the repository sync is not host-scoped
    assert "app01.example.com" in facts["task_hosts"].provenance[0].excerpt


def test_clients_of_the_server_itself_are_not_managed_hosts(tmp_path: Path) -> None:
    from foretune.facts import read_source

    # mosquitto 2.0.11 on a box without foreman-proxy: two mosquitto_pub runs on the box itself
    (tmp_path / "sos_commands").mkdir()
    (tmp_path / "var" / "log" / "mosquitto").mkdir(parents=True)
    log = tmp_path / "var" / "log" / "mosquitto" / "mosquitto.log"
    log.write_text(
        "1795465585: New connection from 127.0.0.1:48906 on port 1883.\n"
        "1795465585: New client connected from 127.0.0.1:48906 as auto-2CBE3D04-541A-6AF7-EF73-5374D4698EEF (p2, c1, k60).\n"
        "1795465585: New client connected from ::1:48922 as auto-09C80A37-2F8D-4E96-E021-F55A4B96A7CA (p2, c1, k60).\n"
        "1795465586: New client connected from ::ffff:127.0.0.1:48930 as local.example.com (p2, c1, k60).\n")
    assert not read_source(str(tmp_path))["pull_rex_clients"].known
    with log.open("a") as f:
        f.write("1795465590: New client connected from 192.0.2.11:40312 as web01.example.com (p2, c1, k60).\n")
    assert read_source(str(tmp_path)).value("pull_rex_clients") == 1


def test_no_connection_lines_leave_the_client_count_unknown(tmp_path: Path) -> None:
    from foretune.facts import read_source

    (tmp_path / "sos_commands").mkdir()
    (tmp_path / "var" / "log" / "mosquitto").mkdir(parents=True)
    (tmp_path / "var" / "log" / "mosquitto" / "mosquitto.log").write_text("1707731882: Error: out of memory.\n")
    facts = read_source(str(tmp_path))
    assert not facts["pull_rex_clients"].known and "no MQTT connections" in str(facts["pull_rex_clients"].unknown_reason)


def test_psql_count_reads_the_number_and_refuses_an_error() -> None:
    from foretune.facts.parsers.process import parse_psql_count

    assert parse_psql_count(" count  \n--------\n 1500000\n(1 row)\n\n") == 1500000
    with pytest.raises(ParseError):
        parse_psql_count('psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed\n')


def test_connected_mqtt_peers_beat_a_shorter_log_and_use_the_configured_listener(tmp_path: Path) -> None:
    from foretune.facts import read_source

    (tmp_path / "sos_commands" / "networking").mkdir(parents=True)
    (tmp_path / "etc" / "mosquitto").mkdir(parents=True)
    (tmp_path / "var" / "log" / "mosquitto").mkdir(parents=True)
    (tmp_path / "etc" / "mosquitto" / "mosquitto.conf").write_text("log_dest syslog\nlistener 8883\n")
    (tmp_path / "var" / "log" / "mosquitto" / "mosquitto.log").write_text(
        "1707731920: New client connected from 192.0.2.11:40312 as web01.example.com (p2, c1, k60).\n")
    ss = "Netid State  Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n" + "".join(
        f'tcp   ESTAB  0      0      192.0.2.1:8883     192.0.2.{n}:4{n}000 users:(("mosquitto",pid=2211,fd={n}))\n'
        for n in (11, 12, 13)) + 'tcp   ESTAB  0      0      192.0.2.1:1883     192.0.2.99:40000 users:(("other",pid=1,fd=3))\n'
    (tmp_path / "sos_commands" / "networking" / "ss_-peaonmi").write_text(ss)
    facts = read_source(str(tmp_path))
    assert facts.value("pull_rex_clients") == 3  # port 1883 is not this mosquitto's listener
    first = facts["pull_rex_clients"].provenance[0]
    assert first.location == "sos_commands/networking/ss_-peaonmi" and "port 8883" in first.excerpt


def test_foreman_debug_netstat_counts_mqtt_peers(tmp_path: Path) -> None:
    from foretune.facts import read_source

    debug = tmp_path / "sos_commands" / "foreman" / "foreman-debug"
    debug.mkdir(parents=True)
    (debug / "netstat").write_text(  # foreman-debug's `netstat -putna`
        "Proto Recv-Q Send-Q Local Address   Foreign Address   State       PID/Program name\n"
        "tcp        0      0 0.0.0.0:1883    0.0.0.0:*         LISTEN      2211/mosquitto\n"
        "tcp        0      0 192.0.2.1:1883  192.0.2.21:40312  ESTABLISHED 2211/mosquitto\n"
        "tcp        0      0 192.0.2.1:1883  192.0.2.22:40313  ESTABLISHED 2211/mosquitto\n")
    facts = read_source(str(tmp_path))
    assert facts.value("pull_rex_clients") == 2
    assert facts["pull_rex_clients"].provenance[0].location == "sos_commands/foreman/foreman-debug/netstat"
