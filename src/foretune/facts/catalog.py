"""The catalogue of logical fact names: the contract between sources, planner and rules.

Values are plain JSON data (so snapshots and rule fixtures can hold them). Sizes are bytes,
durations seconds, counts ints. Keys of dict-valued facts are listed in ``shape``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FactSpec:
    name: str
    shape: str
    doc: str
    needs_root: bool = False


CATALOG: tuple[FactSpec, ...] = (
    # --- product, role and installer -------------------------------------------------------
    FactSpec("product", "str: foreman | satellite | orcharhino", "Product family of the installation."),
    FactSpec("product_version", "str, e.g. '6.15.2'", "Product version (Satellite/orcharhino or Foreman)."),
    FactSpec("foreman_version", "str, e.g. '3.9.1'", "Foreman (or foreman-proxy on a Capsule) version."),
    FactSpec("role", "str: server | capsule", "Whether this is the main server or a Smart Proxy/Capsule."),
    FactSpec("hostname", "str", "The server's host name (report headers)."),
    FactSpec("collected_at", "str: YYYY-MM-DD HH:MM ZONE", "When the sosreport was taken (its date file), with the zone its date file names (UTC, CET); unknown on a live host, read as the report is made."),
    FactSpec("installer_scenario", "str: satellite | capsule | katello | foreman-proxy-content | foreman",
             "Active installer scenario (last_scenario.yaml)."),
    FactSpec("tuning_profile", "str: default | medium | large | extra-large | extra-extra-large | development",
             "The installer's `tuning` fact from the scenario file."),
    FactSpec("installer_answers", "dict: module -> params (secrets redacted)", "The scenario's answers file."),
    FactSpec("custom_hiera", "dict: hiera key -> value (secrets redacted)", "/etc/foreman-installer/custom-hiera.yaml."),
    FactSpec("custom_hiera_text", "str (secrets redacted)", "custom-hiera.yaml as text, for merge previews."),
    FactSpec("effective_hiera", "dict: hiera key -> value",
             "Tuning-relevant hiera reconstructed with the installer's precedence (defaults < common < size < answers < custom-hiera)."),
    # --- hardware and OS -------------------------------------------------------------------
    FactSpec("cpu_logical", "int", "Logical CPUs (what the installer's processors.count sees)."),
    FactSpec("cpu_physical_cores", "int", "Physical cores (sockets x cores per socket)."),
    FactSpec("ram_bytes", "int", "MemTotal in bytes."),
    FactSpec("virtualization", "str: none | kvm | vmware | microsoft | xen | ...", "Hypervisor, or 'none' on bare metal."),
    FactSpec("swap", "dict: total_bytes, used_bytes", "Swap size and use."),
    FactSpec("thp", "dict: enabled, defrag (the selected value, e.g. 'never')", "Transparent huge pages."),
    FactSpec("tuned", "dict: active (str or None), running (bool or None)", "tuned daemon and active profile."),
    FactSpec("tuned_profiles", "dict: profile -> {include: list of profiles, transparent_hugepages: str or None, file}",
             "The tuned profiles on the host (/usr/lib/tuned, /etc/tuned): what each includes and sets for THP."),
    FactSpec("sysctl", "dict: name -> str value", "Kernel parameters (fs.aio-max-nr, vm.*, kernel.sem, ...)."),
    FactSpec("cpu_governor", "str or None", "cpufreq scaling governor (known None when a virtual machine has no cpufreq)."),
    FactSpec("service_limits", "dict: unit -> {LimitNOFILE: int or None (infinity), LimitNPROC: int or None, "
             "active: bool or None, soft_nofile: int or None (LimitNOFILESoft, only when it differs from the hard LimitNOFILE), "
             "dropin_nofile: int (the hard limit, only when a drop-in under /etc/systemd/system sets it), "
             "process_nofile, process_nofile_hard: int or None (soft and hard limit of the running process, only when "
             "/proc/<MainPID>/limits was readable)}",
             "Effective systemd limits per Foreman-stack service (systemctl show, drop-ins, /proc/<pid>/limits)."),
    FactSpec("mounts", "list of {mountpoint, device, fstype, options}", "Mounted filesystems (pseudo filesystems left out)."),
    FactSpec("key_dirs", "dict: path -> {mountpoint, fstype, device, size_bytes (int or None), free_bytes (int or None), "
             "rotational (bool or None; None for network filesystems)}",
             "Storage of /, /var and, when their component is installed or they are mount points, /var/lib/pulp, "
             "/var/lib/pgsql, /var/opt/rh/rh-postgresql12/lib/pgsql, /var/lib/mongodb, /var/lib/qpidd, /var/lib/candlepin, /var/lib/redis."),
    # --- application services --------------------------------------------------------------
    FactSpec("puma", "dict: workers, threads_min, threads_max (ints; from foreman.service.d or defaults)",
             "Foreman Puma configuration: what the admin edits. Rules that size against the Puma that runs (the "
             "Rails pool, max_connections, Tomcat, memory, the worker range) take puma_stats, else puma_loaded, else this."),
    FactSpec("puma_loaded", "dict: workers, threads_min, threads_max (int or None when its Environment does not set it)",
             "The FOREMAN_PUMA_* environment systemd runs foreman.service with now (systemctl show): a drop-in written "
             "since takes effect only after daemon-reload and a restart."),
    FactSpec("puma_stats", "dict: workers, booted_workers, max_threads (largest per worker), backlog (summed over workers); "
             "pool_capacity (free threads, summed) and saturated_workers (workers with none free) when reported",
             "pumactl stats, when available.", needs_root=True),
    FactSpec("foreman_db_pool", "int", "`pool` in /etc/foreman/database.yml."),
    FactSpec("dynflow", "dict: workers (int Sidekiq worker instances or None), concurrency (int per instance or None), "
             "orchestrator (bool), executors (int in the dynflowd/foreman-tasks era, else None)",
             "Dynflow/Sidekiq workers or dynflowd executors."),
    FactSpec("pulpcore", "dict: workers (int), api_workers (int or None), content_workers (int or None)",
             "Pulp 3 worker units and gunicorn worker counts."),
    FactSpec("pulp2_workers", "int", "Pulp 2 PULP_CONCURRENCY (/etc/default/pulp_workers)."),
    FactSpec("apache", "dict: mpm (str: event | prefork | worker or None), ServerLimit, ThreadsPerChild, MaxRequestWorkers, "
             "MaxClients, StartServers, MaxRequestsPerChild, KeepAlive (bool), KeepAliveTimeout, MaxKeepAliveRequests "
             "(int or None when not set); plus MinSpareThreads, MaxSpareThreads, MinSpareServers, MaxSpareServers, "
             "MaxConnectionsPerChild, ProxyTimeout when set. KeepAlive* come from the Foreman vhost (05-foreman-ssl.conf) when it sets them",
             "Apache httpd MPM and limits."),
    FactSpec("httpd_includes", "dict: httpd configuration file (/etc/...) -> list of {include: the Include/IncludeOptional "
             "argument, later: the directives the file sets after it}; [] for a file that includes nothing",
             "What each httpd file includes: a vhost's include directory (conf.d/05-foreman-ssl.d/) is read only when the "
             "vhost includes it, and a directive the vhost sets after the include wins."),
    FactSpec("passenger", "dict: the Passenger* directives present (PassengerMaxPoolSize, PassengerMaxRequestQueueSize, "
             "PassengerMinInstances, PassengerMaxPreloaderIdleTime, PassengerMaxInstancesPerApp, PassengerMaxRequests) -> int",
             "Passenger settings (<= Satellite 6.8)."),
    FactSpec("postgresql", "dict: setting -> str (postgresql.conf + postgresql.auto.conf, or SHOW ALL live)",
             "PostgreSQL settings."),
    FactSpec("postgresql_sources", "dict: setting -> list of files that set it, in the order PostgreSQL reads them "
             "(postgresql.conf, the files it includes, postgresql.auto.conf; the last one wins)",
             "Where each PostgreSQL setting of the files comes from (what overrides what)."),
    FactSpec("postgresql_version", "str, e.g. '12.18' or '9.2.23'",
             "PostgreSQL server version: server_version of SHOW ALL live, else the installed server package (the one "
             "whose data directory holds the postgresql.conf read, when several are installed)."),
    FactSpec("postgresql_connections", "int", "Current PostgreSQL backends (live only).", needs_root=True),
    FactSpec("redis", "dict: maxmemory (int bytes, 0 = no limit; INFO wins over redis.conf), used_memory (int or None), "
             "version (str or None)", "Redis configuration and INFO."),
    FactSpec("candlepin", "dict: java_opts (str), heap_max_bytes (int or None), tomcat_max_threads (int or None when "
             "server.xml does not set it)", "Candlepin JVM and Tomcat."),
    FactSpec("qpid", "dict: mgmt_pub_interval (int or None), qpidd_nofile (int or None), qdrouterd_nofile (int or None)",
             "qpidd/qdrouterd (katello-agent era)."),
    FactSpec("mqtt", "dict: pull_rex (bool), ttl, resend_interval, rate_limit (int or None when unset), "
             "mosquitto (bool: package or /etc/mosquitto/mosquitto.conf present)", "Pull-based REX transport settings."),
    FactSpec("mongodb", "dict: cache_size_gb (float or None), engine (str: wiredTiger | mmapv1, or None; from mongod.conf, "
             "else the server version's default)", "MongoDB storage engine and WiredTiger cache (Pulp 2 era)."),
    FactSpec("hammer", "dict: request_timeout (int or None)", "hammer CLI configuration."),
    # --- workload ----------------------------------------------------------------------------
    FactSpec("managed_hosts", "int", "Hosts managed by this server (live: database; sosreport: foreman-maintain's "
             "satellite_metrics.yml; else --hosts)."),
    FactSpec("tasks", "dict: paused, old_paused (started more than 30 days before the data was taken), running",
             "foreman-tasks backlog (a sosreport holds only the tasks of its last 14 days by default)."),
    FactSpec("max_facts_per_host", "int", "Largest number of fact values on one host (live only)."),
    # --- measured state ------------------------------------------------------------------------
    FactSpec("memory_pressure", "dict: available_bytes (MemAvailable, int or None), swap_in_pages, swap_out_pages, "
             "oom_kills (ints since boot from /proc/vmstat, or None)",
             "Measured memory state: what is available now and how much the box has swapped since boot."),
    FactSpec("process_rss", "dict: service -> {processes: int, rss_bytes: int}",
             "Resident memory per Foreman-stack service, summed from `ps`."),
    FactSpec("other_processes", "list of {command (str, the executable's base name), user (str), pid (int), rss_bytes (int)}, largest first",
             "The five largest processes in `ps` outside the Foreman stack (a co-located logstash or agent), by RSS."),
    FactSpec("passenger_status", "dict: max_pool_size, processes, top_queue, app_queue (ints; queues summed over groups), app_queue_max (the fullest group\'s queue)",
             "`passenger-status --show pool` (Passenger era).", needs_root=True),
    FactSpec("cpu_steal", "dict: mean_percent, max_percent (float), samples, reports (int)",
             "CPU time the hypervisor took from this VM (%steal of sysstat's sar reports, all CPUs)."),
    FactSpec("katello_agent_clients", "int", "katello-agent hosts: pulp.agent.<uuid> queues in `qpid-stat -q` (qpid era)."),
    FactSpec("pull_rex_clients", "int", "Pull-based REX clients: the larger of the distinct remote addresses connected to "
             "mosquitto's listener (`ss -peaonmi` / `netstat -neopa`) and the distinct client ids of \"New client "
             "connected\" lines in /var/log/mosquitto/mosquitto.log (written only with `log_dest file` and `log_type "
             "notice` or `all`, which the installer's syslog, error/warning default leaves out); a lower bound of the hosts using it."),
    FactSpec("task_hosts", "int", "Distinct host names that host-scoped tasks in the exported task list end their action "
             "with: a lower bound of the managed hosts (sos exports only recent tasks)."),
    FactSpec("foreman_table_sizes", "dict: table -> total bytes (table, indexes and TOAST)",
             "Sizes of the foreman database's tables (sosreport foreman_db_tables_sizes)."),
    FactSpec("history_table_rows", "dict: audits, logs (ints; only the tables the source counted)",
             "Row counts of the foreman database's audits and logs tables (sosreport audits_table_count, logs_table_count)."),
    # --- logs ---------------------------------------------------------------------------------
    FactSpec("log_incidents", "list of {kind, service, path, line, count, first, last}", "Incidents found in the server's logs (503 bursts, connection exhaustion, OOM kills, socket exhaustion, queue at capacity)."),
)

BY_NAME = {spec.name: spec for spec in CATALOG}
