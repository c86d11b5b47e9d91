"""Every parser on empty, comment-only, realistic and malformed input."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from foretune.facts.parsers import ParseError
from foretune.facts.parsers.foreman import parse_pumactl_stats, parse_tasks_csv
from foretune.facts.parsers.httpd import parse_directives
from foretune.facts.parsers.keyvalue import parse_env
from foretune.facts.parsers.packages import parse_packages
from foretune.facts.parsers.postgresql import parse_postgresql_conf
from foretune.facts.parsers.redis import parse_redis_conf, parse_redis_info
from foretune.facts.parsers.storage import parse_df, parse_lsblk_pairs, parse_mounts
from foretune.facts.parsers.system import parse_lscpu, parse_meminfo, parse_sysctl, parse_tuned_active
from foretune.facts.parsers.systemd import parse_show, parse_unit_file
from foretune.facts.parsers.yamlfile import parse_yaml

POSTGRESQL_CONF = """\
# -----------------------------
# PostgreSQL configuration file
# -----------------------------
max_connections = 1000                  # (change requires restart)
shared_buffers = 4GB
log_line_prefix = '%t [%p] '
search_path = '"$user", public'
work_mem=8MB
"""
EVENT_CONF = """\
<IfModule mpm_event_module>
  ServerLimit            64
  ThreadsPerChild        16
  MaxRequestWorkers      1024
</IfModule>
<IfModule mpm_prefork_module>
  MaxClients 256
</IfModule>
"""
SHOW = "Id=httpd.service\nLimitNOFILE=65536\nActiveState=active\n\nId=redis.service\nLimitNOFILE=10240\n"

# parser, empty/comment-only result, comment-only text, realistic text, check on realistic result, malformed text
CASES: list[tuple[str, Callable[[str], Any], Any, str, str, Callable[[Any], bool], str | None]] = [
    ("postgresql.conf", parse_postgresql_conf, {}, "# nothing\n#port = 5432\n", POSTGRESQL_CONF,
     lambda r: r == {"max_connections": "1000", "shared_buffers": "4GB", "log_line_prefix": "%t [%p] ",
                     "search_path": '"$user", public', "work_mem": "8MB"}, "= 5\n"),
    ("httpd", parse_directives, [], "# nothing\n", EVENT_CONF,
     lambda r: [d.name for d in r] == ["ServerLimit", "ThreadsPerChild", "MaxRequestWorkers", "MaxClients"], "</VirtualHost>\n"),
    ("sysconfig", parse_env, {}, "# EXECUTORS_COUNT=2\n", "EXECUTORS_COUNT=3\nexport X='y z'\n",
     lambda r: r == {"EXECUTORS_COUNT": "3", "X": "y z"}, "EXECUTORS_COUNT 3\n"),
    ("systemctl show", parse_show, {}, "", SHOW, lambda r: r["httpd.service"]["LimitNOFILE"] == "65536", "LimitNOFILE=1\n"),
    ("unit file", parse_unit_file, {}, "# comment\n; other\n", "[Service]\nLimitNOFILE=1\nExecStart=/bin/a \\\n  --workers 5\n",
     lambda r: r["Service"]["ExecStart"] == ["/bin/a --workers 5"], "LimitNOFILE=1\n"),
    ("meminfo", parse_meminfo, {}, "", "MemTotal:       65536 kB\nHugePages_Total:       0\n",
     lambda r: r == {"MemTotal": 65536 * 1024, "HugePages_Total": 0}, "MemTotal 65536\n"),
    ("lscpu", parse_lscpu, {}, "", "CPU(s):  16\nSocket(s): 2\n", lambda r: r["Socket(s)"] == "2", "no colon here\n"),
    ("sysctl", parse_sysctl, {}, "# only comments\n", "fs.aio-max-nr = 1048576\n", lambda r: r == {"fs.aio-max-nr": "1048576"},
     "garbage line\n"),
    ("mounts", parse_mounts, [], "# none\n", "/dev/sdb /var/lib/pulp xfs rw 0 0\n", lambda r: r[0]["mountpoint"] == "/var/lib/pulp",
     "/dev/sdb /var/lib/pulp\n"),
    ("df", parse_df, {}, "", "Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/mapper/a-very-long-name\n 100 50 50 50% /x\n",
     lambda r: r["/x"]["free_bytes"] == 50 * 1024, "no header\n"),
    ("lsblk", parse_lsblk_pairs, [], "", 'NAME="sda" ROTA="0"\n', lambda r: r == [{"NAME": "sda", "ROTA": "0"}], "sda 0\n"),
    ("yaml", parse_yaml, None, "# only\n", ":facts:\n  :tuning: large\n", lambda r: r == {"facts": {"tuning": "large"}}, "a: b: c\n"),
    ("redis info", parse_redis_info, {}, "", "# Memory\nused_memory:100\n", lambda r: r["used_memory"] == "100",
     "Error: Connection reset by peer\n"),
    ("pumactl", parse_pumactl_stats, None, "", '{"workers": 3, "booted_workers": 2, "worker_status": []}',
     lambda r: r == {"workers": 3, "booted_workers": 2}, "{not json"),
    ("tasks csv", parse_tasks_csv, [], "", "id,label,state\n1,Sync,paused\n", lambda r: r[0]["label"] == "Sync", "a,b\n1,2\n"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_parser(case: tuple[str, Callable[[str], Any], Any, str, str, Callable[[Any], bool], str | None]) -> None:
    _name, parser, empty, comment_only, sample, check, malformed = case
    assert parser("") == empty
    if comment_only:
        assert parser(comment_only) == empty
    assert check(parser(sample))
    if malformed is not None:
        with pytest.raises(ParseError) as info:
            parser(malformed)
        assert "\n" not in str(info.value)


def test_lenient_parsers_ignore_noise() -> None:
    assert parse_packages("# header\nnot-a-package\nfoo-1.2-3.el8.noarch  Mon\n") == {"foo": "1.2"}
    assert parse_redis_conf("# c\n\nmaxmemory 1gb\n") == {"maxmemory": "1gb"}
    assert parse_tuned_active("Cannot talk to TuneD daemon via DBus.\n") is None


def test_apache_directives_separated_by_tabs_are_read() -> None:
    # Apache splits a directive from its arguments on any whitespace: a passenger.conf indented and separated with
    # tabs by hand ("\tPassengerMaxPoolSize\t12") sets the pool as the same line with spaces does
    text = "<IfModule mod_passenger.c>\n\tPassengerMaxPoolSize\t12\n\tPassengerMaxRequestQueueSize\t200\n</IfModule>\n"
    found = [(d.name, d.args, d.sections) for d in parse_directives(text)]
    assert found == [("PassengerMaxPoolSize", "12", ("IfModule mod_passenger.c",)),
                     ("PassengerMaxRequestQueueSize", "200", ("IfModule mod_passenger.c",))]
    assert [(d.name, d.args) for d in parse_directives("ServerLimit\t\t512\nKeepAlive\n")] == [("ServerLimit", "512"),
                                                                                           ("KeepAlive", "")]


def test_candlepins_tomcat_started_by_its_bootstrap_class_is_no_outsider() -> None:
    # Satellite 6.2's tomcat.service runs "/usr/lib/jvm/jre/bin/java ... org.apache.catalina.startup.Bootstrap start"
    # as user tomcat, with no /usr/share/tomcat on its command line: that java is Candlepin, never "the largest process
    # outside the Satellite services" (a co-located logstash is)
    from foretune.facts.parsers.process import parse_ps_others, parse_ps_rss

    ps = ("USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
          "tomcat    1301  2.0  4.4 9000000 1468006 ?    Sl   Dec28  90:00 /usr/lib/jvm/jre/bin/java -Xms1024m -Xmx4096m "
          "org.apache.catalina.startup.Bootstrap start\n"
          "logstash  2200  9.0 28.0 12000000 9437184 ?   Sl   Dec28 900:00 /usr/share/logstash/jdk/bin/java -Xmx8g "
          "org.logstash.Logstash\n")
    assert [(p["command"], p["user"], p["pid"]) for p in parse_ps_others(ps)] == [("java", "logstash", 2200)]
    assert parse_ps_rss(ps)["Candlepin"]["rss_bytes"] == 1468006 * 1024
