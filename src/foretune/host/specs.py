"""Logical inputs: where each one lives on a live host and, in order, in a sosreport.

A spec names files (absolute paths; in a sosreport the same path relative to the archive
root, then the sos 3.x ``foreman-debug`` copy) and/or a live command. Sosreport command
outputs are found through ``sos_reports/manifest.json`` (``exec`` prefix) when present,
then through the ordered ``sos`` candidates. Glob specs return every matching file.
"""

from __future__ import annotations

from dataclasses import dataclass

FOREMAN_DEBUG = "sos_commands/foreman/foreman-debug/"
# the SCL's first: Satellite 6.8-6.10 on RHEL 7 run PostgreSQL 12 there, and the upgrade leaves PostgreSQL 9.2's old
# /var/lib/pgsql/data behind (foreman-installer hooks/pre/30-el7_upgrade_postgresql.rb: postgresql-setup --upgrade)
PG_DATA_DIRS = ("/var/opt/rh/rh-postgresql12/lib/pgsql/data", "/var/lib/pgsql/data", "/var/lib/pgsql/12/data",
                "/var/lib/pgsql/13/data", "/var/opt/rh/rh-postgresql96/lib/pgsql/data", "/var/lib/postgresql/data")
SHOW_PROPERTIES = "Id,ActiveState,SubState,MainPID,LimitNOFILE,LimitNOFILESoft,LimitNPROC,TasksMax,MemoryMax,Environment,ExecStart"


@dataclass(frozen=True)
class Spec:
    name: str
    paths: tuple[str, ...] = ()
    commands: tuple[tuple[str, ...], ...] = ()
    sos: tuple[str, ...] = ()
    sos_exec: tuple[str, ...] = ()
    glob: bool = False
    sensitive: bool = False
    needs_root: bool = False
    collect: bool = True  # `collect` and the collector read it up front (False: only read on demand)


SPECS: tuple[Spec, ...] = (
    Spec("installed_packages", commands=(("rpm", "-qa", "--qf", "%{NAME}-%{VERSION}-%{RELEASE}.%{ARCH}\\n"),
                                         ("dpkg-query", "-W", "-f", "${Package} ${Version}\\n")),
         sos=("installed-rpms", "sos_commands/rpm/package-data", FOREMAN_DEBUG + "installed_packages"),
         sos_exec=("sh -c rpm --nodigest -qa",)),
    # the root `date` link points at `timedatectl` output from sos 4.2 on (sos commit 82f12d17), so the date plugin's
    # file comes first
    Spec("sos_date", commands=(), sos=("sos_commands/date/date", "sos_commands/general/date", "date"), sos_exec=("date",)),
    Spec("hostname", paths=("/etc/hostname",), commands=(("hostname",),),
         sos=("hostname", "sos_commands/general/hostname", "sos_commands/host/hostname"), sos_exec=("hostname",)),
    Spec("last_scenario", paths=("/etc/foreman-installer/scenarios.d/last_scenario.yaml",)),
    Spec("scenario_files", paths=("/etc/foreman-installer/scenarios.d/*.yaml",), glob=True, sensitive=True),
    Spec("custom_hiera", paths=("/etc/foreman-installer/custom-hiera.yaml",), sensitive=True),
    Spec("meminfo", paths=("/proc/meminfo",)),
    Spec("lscpu", commands=(("lscpu",),), sos=("sos_commands/processor/lscpu",), sos_exec=("lscpu",)),
    Spec("detect_virt", commands=(("systemd-detect-virt",),), sos=("sos_commands/systemd/systemd-detect-virt",)),
    Spec("thp_enabled", paths=("/sys/kernel/mm/transparent_hugepage/enabled",)),
    Spec("thp_defrag", paths=("/sys/kernel/mm/transparent_hugepage/defrag",)),
    Spec("tuned_active", commands=(("tuned-adm", "active"),), sos=("sos_commands/tuned/tuned-adm_active",),
         sos_exec=("tuned-adm active",)),
    # the profiles tuned can apply (/etc/tuned's replaces the package's of the same name): what each sets for THP
    Spec("tuned_profiles", paths=("/usr/lib/tuned/*/tuned.conf", "/etc/tuned/*/tuned.conf"), glob=True),
    Spec("sysctl", commands=(("sysctl", "-a"),), sos=("sos_commands/kernel/sysctl_-a",), sos_exec=("sysctl -a",)),
    Spec("cpu_governor", paths=("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",)),
    Spec("systemctl_show", commands=(("systemctl", "show", "--all", "-p", SHOW_PROPERTIES, "*.service"),),
         sos=("sos_commands/systemd/systemctl_show_service_--all",), sos_exec=("systemctl show service --all",)),
    Spec("systemctl_units", commands=(("systemctl", "list-units", "--all", "--no-pager", "--plain", "--type=service"),),
         sos=("sos_commands/systemd/systemctl_list-units", "sos_commands/systemd/systemctl_list-units_--all"),
         sos_exec=("systemctl list-units",)),
    # drop-ins of /run and /usr/lib too: systemd reads them all, in one lexical order by file name (systemd-dropin-dirs)
    Spec("unit_files", paths=("/etc/systemd/system/*.service", "/etc/systemd/system/*.service.d/*.conf",
                              "/run/systemd/system/*.service.d/*.conf", "/usr/lib/systemd/system/*.service.d/*.conf"), glob=True),
    Spec("wanted_units", paths=("/etc/systemd/system/multi-user.target.wants/*",), glob=True),
    Spec("mounts", paths=("/proc/mounts",)),
    Spec("process_limits", paths=("/proc/[0-9]*/limits",), glob=True, collect=False),  # per service, by MainPID
    Spec("df", commands=(("df", "-al", "-x", "autofs"),), sos=("sos_commands/filesys/df_-al_-x_autofs", "sos_commands/filesys/df_-al"),
         sos_exec=("df -al",)),
    Spec("lsblk", commands=(("lsblk", "-P", "-o", "NAME,KNAME,PKNAME,TYPE,FSTYPE,MOUNTPOINT,ROTA"),),
         sos=("sos_commands/block/lsblk_-O_-P",), sos_exec=("lsblk -O -P",)),
    # sos before 4.3 (all of RHEL 7, RHEL 8 up to 8.5) runs plain `lsblk` and `lsblk -t` instead of `lsblk -O -P`
    Spec("lsblk_tree", sos=("sos_commands/block/lsblk",), sos_exec=("lsblk",)),
    Spec("lsblk_topology", sos=("sos_commands/block/lsblk_-t",), sos_exec=("lsblk -t",)),
    Spec("database_yml", paths=("/etc/foreman/database.yml",), sensitive=True, needs_root=True),
    Spec("dynflow_yml", paths=("/etc/foreman/dynflow/*.yml",), glob=True),
    Spec("foreman_tasks_sysconfig", paths=("/etc/sysconfig/dynflowd", "/etc/sysconfig/foreman-tasks")),
    Spec("pumactl_stats", commands=(("pumactl", "stats", "-S", "/usr/share/foreman/tmp/puma.state"),),
         sos=("sos_commands/foreman/pumactl_stats", "sos_commands/foreman/foreman-puma-status"), sos_exec=("pumactl stats",),
         needs_root=True),
    Spec("tasks_csv", sos=("sos_commands/foreman/foreman_tasks_tasks", FOREMAN_DEBUG + "foreman_tasks_tasks.csv"),
         sos_exec=("foreman_tasks_tasks",)),
    Spec("foreman_metrics", paths=("/var/lib/foreman-maintain/satellite_metrics.yml",), needs_root=True),
    Spec("httpd_conf", paths=("/etc/httpd/conf/httpd.conf", "/etc/httpd/conf.modules.d/*.load", "/etc/httpd/conf.modules.d/*.conf",
                              "/etc/httpd/conf.d/*.conf",
                              # a vhost's include directory (05-foreman-ssl.d/), read where the vhost includes it
                              "/etc/httpd/conf.d/*.d/*.conf", "/etc/apache2/apache2.conf", "/etc/apache2/mods-enabled/*.load",
                              "/etc/apache2/mods-enabled/*.conf", "/etc/apache2/sites-enabled/*.conf"), glob=True),
    # sos never copies conf.modules.d/*.load (where the installer's LoadModule mpm_*_module line is): its apache
    # plugin runs `apachectl -M` (every sos release), which lists the MPM loaded
    Spec("httpd_modules", sos=("sos_commands/apache/apachectl_-M",), sos_exec=("apachectl -M",)),
    Spec("postgresql_conf", paths=tuple(f"{d}/postgresql.conf" for d in PG_DATA_DIRS), needs_root=True),
    Spec("postgresql_auto_conf", paths=tuple(f"{d}/postgresql.auto.conf" for d in PG_DATA_DIRS), needs_root=True),
    # `include_dir 'conf.d'` (the PostgreSQL manual's example): collected up front so a snapshot holds what
    # postgresql.conf includes; other include targets are read on demand where the source can
    Spec("postgresql_conf_d", paths=tuple(f"{d}/conf.d/*.conf" for d in PG_DATA_DIRS), glob=True, needs_root=True),
    Spec("redis_conf", paths=("/etc/redis/redis.conf", "/etc/redis.conf", "/etc/opt/rh/rh-redis5/redis.conf"), needs_root=True),
    Spec("redis_info", commands=(("redis-cli", "info"),), sos=("sos_commands/redis/redis-cli_info",), sos_exec=("redis-cli info",)),
    Spec("tomcat_conf", paths=("/etc/tomcat/tomcat.conf", "/etc/sysconfig/tomcat", "/etc/tomcat/conf.d/jvm.conf")),
    Spec("tomcat_server_xml", paths=("/etc/tomcat/server.xml",), sensitive=True, needs_root=True),
    Spec("qpidd_conf", paths=("/etc/qpid/qpidd.conf",)),
    Spec("pulp_workers", paths=("/etc/default/pulp_workers",)),
    Spec("mongod_conf", paths=("/etc/opt/rh/rh-mongodb34/mongod.conf", "/etc/mongod.conf")),
    Spec("rex_settings", paths=("/etc/foreman-proxy/settings.d/remote_execution_ssh.yml",), needs_root=True),
    Spec("mosquitto_conf", paths=("/etc/mosquitto/mosquitto.conf",)),
    Spec("hammer_conf", paths=("/etc/hammer/cli.modules.d/foreman.yml",)),
    Spec("vmstat", paths=("/proc/vmstat",)),
    # qpid-stat -q as the katello/foreman/qpid sos plugins ran it: one pulp.agent.<uuid> queue per katello-agent host
    Spec("qpid_queues", paths=("/sos_commands/katello/qpid-stat_-q*", "/sos_commands/foreman/qpid-stat_-q*",
                               "/sos_commands/qpid/qpid-stat_-q*", "/sos_commands/pulp/qpid-stat_-q*"), glob=True),
    # mosquitto logs each connection ("New client connected from ... as ID") at notice level, to this file when
    # `log_dest file` says so (the installer's syslog destination and error/warning levels leave it out)
    Spec("mosquitto_logs", paths=("/var/log/mosquitto/mosquitto.log*",), glob=True),
    # `select count(*) from audits|logs` as the sos foreman plugin runs it (psql aligned output)
    Spec("audits_count", sos=("sos_commands/foreman/audits_table_count",), sos_exec=("audits_table_count",)),
    Spec("logs_count", sos=("sos_commands/foreman/logs_table_count",), sos_exec=("logs_table_count",)),
    # sockets: each pull-REX host keeps one MQTT connection to mosquitto open
    Spec("sockets", commands=(("ss", "-tanp"),), sos=("sos_commands/networking/ss_-peaonmi", "sos_commands/networking/netstat_-W_-neopa",
                                                      "sos_commands/networking/netstat_-neopa", FOREMAN_DEBUG + "ss",
                                                      FOREMAN_DEBUG + "netstat"),
         sos_exec=("ss -peaonmi", "netstat -W -neopa", "netstat -neopa")),
    Spec("foreman_table_sizes", sos=("sos_commands/foreman/foreman_db_tables_sizes",), sos_exec=("foreman_db_tables_sizes",)),
    # sysstat's daily text reports (`sar -A`); a sosreport also keeps them under sos_commands/sar/
    Spec("sar", paths=("/var/log/sa/sar[0-9]*", "/sos_commands/sar/sar[0-9]*"), glob=True),
    Spec("ps", commands=(("ps", "auxwww"),),
         sos=("sos_commands/process/ps_auxwwwm", "sos_commands/process/ps_auxwww", "sos_commands/process/ps_auxfwww", "ps",
              FOREMAN_DEBUG + "ps-awfux"), sos_exec=("ps auxwwwm", "ps auxwww")),
    Spec("passenger_pool", commands=(("passenger-status", "--show", "pool"),),
         sos=("sos_commands/foreman/passenger-status_--show_pool", FOREMAN_DEBUG + "passenger_status_pool"),
         sos_exec=("passenger-status --show pool",), needs_root=True),
)

BY_NAME = {spec.name: spec for spec in SPECS}


def sos_candidates(spec: Spec) -> list[str]:
    """Ordered archive-relative candidates of a non-glob spec (manifest lookups come first, elsewhere)."""
    out = list(spec.sos)
    for path in spec.paths:
        rel = path.lstrip("/")
        out += [rel, FOREMAN_DEBUG + rel]
    return out


def sos_patterns(spec: Spec) -> list[str]:
    """Archive-relative glob patterns of a glob spec."""
    out: list[str] = []
    for path in spec.paths:
        rel = path.lstrip("/")
        out += [rel, FOREMAN_DEBUG + rel]
    return out
