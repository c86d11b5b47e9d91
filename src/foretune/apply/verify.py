"""Is the last applied change set in force? Each change is read back twice: where apply wrote it (drift when it
differs from the journal) and where it takes effect (``SHOW``, the running process's soft limits, the kernel's
sysctl values, tuned's active profile, the files the installer renders), pending when only the first holds.

States: ``in force``; ``pending`` (written, waiting for its effect: an installer run, a restart, a reload);
``drift`` (the value differs from the journal where it was written, or differs where it takes effect after a
verify saw it in force); ``not verified`` (foretune cannot read it back where it takes effect: said with why; so is
a PostgreSQL setting taken on a reload that apply --root wrote into the tree's files, since a reload leaves no trace
there: it is neither called in force nor kept pending for ever).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from foretune.apply.edits import (
    AUTO_CONF,
    _key_of,
    auto_conf_values,
    file_of,
    line_value,
    postgresql_file,
    same,
    setting_name,
    sql_literal,
    sysctl_later,
    text_value,
    without_shadowing,
)
from foretune.apply.journal import change_from_dict
from foretune.errors import ForetuneError, InputError
from foretune.safeio import read_bytes, write_file

if TYPE_CHECKING:
    from foretune.apply.host import Host
    from foretune.changes.model import Change
    from foretune.facts.model import FactSet

IN_FORCE, PENDING, DRIFT, UNVERIFIED = "in force", "pending", "drift", "not verified"
STATES = (IN_FORCE, PENDING, DRIFT, UNVERIFIED)
SEEN = "verified.json"  # in the run's directory: the changes a verify has seen in force (a later difference is drift)
PG = "postgresql::server::config_entries"

# the running service's own report, read before the rendered configuration when the source has it
RUNNING: dict[str, tuple[str, str]] = {
    "foreman::foreman_service_puma_workers": ("puma_stats", "workers"),  # pumactl stats
    "foreman::foreman_service_puma_threads_max": ("puma_stats", "max_threads"),
}
# custom-hiera key (or installer option) -> (fact, field) that reads the value back where the installer renders it
READBACK: dict[str, tuple[str, str]] = {
    "foreman::foreman_service_puma_workers": ("puma", "workers"),
    "foreman::foreman_service_puma_threads_min": ("puma", "threads_min"),
    "foreman::foreman_service_puma_threads_max": ("puma", "threads_max"),
    "apache::mod::event::serverlimit": ("apache", "ServerLimit"),
    "apache::mod::event::threadsperchild": ("apache", "ThreadsPerChild"),
    "apache::mod::event::maxrequestworkers": ("apache", "MaxRequestWorkers"),
    "apache::mod::event::startservers": ("apache", "StartServers"),
    "apache::mod::event::minsparethreads": ("apache", "MinSpareThreads"),
    "apache::mod::event::maxsparethreads": ("apache", "MaxSpareThreads"),
    "apache::mod::event::maxrequestsperchild": ("apache", "MaxConnectionsPerChild"),
    "foreman::db_pool": ("foreman_db_pool", ""),  # /etc/foreman/database.yml's pool
    "foreman::cli::request_timeout": ("hammer", "request_timeout"),  # hammer's foreman.yml, read by each hammer command
    "foreman::dynflow_worker_instances": ("dynflow", "workers"),  # the dynflow-sidekiq@worker-N units
    "foreman_proxy_content::pulpcore_worker_count": ("pulpcore", "workers"),
    "pulpcore::api_service_worker_count": ("pulpcore", "api_workers"),
    "pulpcore::content_service_worker_count": ("pulpcore", "content_workers"),
    "qpid::mgmt_pub_interval": ("qpid", "mgmt_pub_interval"),
    "qpid::open_file_limit": ("qpid", "qpidd_nofile"),
    "qpid::router::open_file_limit": ("qpid", "qdrouterd_nofile"),
    # Satellite 6.2's file edits: the running Passenger's pool (passenger-status), not the file edited
    "PassengerMaxPoolSize": ("passenger_status", "max_pool_size"),
    # the prefork MPM (Satellite 6.2-6.9), the server-wide KeepAlive settings and Dynflow's concurrency, as rendered
    "apache::mod::prefork::serverlimit": ("apache", "ServerLimit"),
    "apache::mod::prefork::maxclients": ("apache", "MaxClients"),
    "apache::mod::prefork::startservers": ("apache", "StartServers"),
    "apache::mod::prefork::minspareservers": ("apache", "MinSpareServers"),
    "apache::mod::prefork::maxspareservers": ("apache", "MaxSpareServers"),
    "apache::mod::prefork::maxrequestsperchild": ("apache", "MaxRequestsPerChild"),
    "apache::keepalive": ("apache", "KeepAlive"),
    "apache::keepalive_timeout": ("apache", "KeepAliveTimeout"),
    "apache::max_keepalive_requests": ("apache", "MaxKeepAliveRequests"),
    "foreman::dynflow_worker_concurrency": ("dynflow", "concurrency"),
    "foreman::passenger_min_instances": ("passenger", "PassengerMinInstances"),
    "apache::mod::passenger::passenger_max_instances_per_app": ("passenger", "PassengerMaxInstancesPerApp"),
    "apache::mod::proxy::proxy_timeout": ("apache", "ProxyTimeout"),
    "apache::mod::passenger::passenger_max_pool_size": ("passenger", "PassengerMaxPoolSize"),
    "apache::mod::passenger::passenger_max_request_queue_size": ("passenger", "PassengerMaxRequestQueueSize"),
    # the Foreman vhost's own KeepAlive directives (puppet-foreman's keepalive parameters), which win over apache::'s
    "foreman::keepalive": ("apache", "KeepAlive"),
    "foreman::keepalive_timeout": ("apache", "KeepAliveTimeout"),
    "foreman::max_keepalive_requests": ("apache", "MaxKeepAliveRequests"),
    "foreman::passenger_max_pool_size": ("passenger", "PassengerMaxPoolSize"),
    "foreman::passenger_max_request_queue_size": ("passenger", "PassengerMaxRequestQueueSize"),
    # the Smart Proxy's pull-REX rate limit, as rendered into settings.d/remote_execution_ssh.yml
    "foreman_proxy::plugin::remote_execution::script::mqtt_rate_limit": ("mqtt", "rate_limit"),
}
# the pid file a service writes when it starts, whose time tells a tree's verify that it started after a run: httpd's
# PidFile default run/httpd.pid under ServerRoot /etc/httpd (/etc/httpd/run is a link to /run/httpd on RHEL 7 and 8)
PID_FILES: dict[str, tuple[str, ...]] = {"httpd": ("/run/httpd/httpd.pid", "/var/run/httpd/httpd.pid")}
# facts that list the httpd directives the rendered configuration sets: one it lacks is "not set" there
DIRECTIVE_FACTS = ("apache", "passenger")
# fact fields read from a rendered file, None when that file has no such entry yet: "not set" there (the built-in runs)
UNSET_FIELDS = {("qpid", "mgmt_pub_interval"), ("mqtt", "rate_limit")}  # qpidd.conf, remote_execution_ssh.yml
# a hash key's entries (custom-hiera key -> entry -> (fact, field)) read back where the installer renders them
HASH_READBACK: dict[str, dict[str, tuple[str, str]]] = {
    "mongodb::server::config_data": {"storage.wiredTiger.engineConfig.cacheSizeGB": ("mongodb", "cache_size_gb")},  # mongod.conf
}
# an installer option that sets a unit's LimitNOFILE -> the units whose limit in force tells it (the first one listed)
NOFILE_READBACK: dict[str, tuple[str, ...]] = {
    "foreman_proxy::plugin::dynflow::open_file_limit": ("foreman-proxy.service", "smart_proxy_dynflow_core.service"),
}
# values Puma reads when it starts, read back from the rendered configuration: in force once the running Puma is
PUMA_BOOT = {"foreman::foreman_service_puma_threads_min", "foreman::foreman_service_puma_threads_max", "foreman::db_pool"}
# Puma values the installer writes into foreman.service.d/installer.conf, by the environment variable that carries them
PUMA_ENV = {
    "foreman::foreman_service_puma_workers": "FOREMAN_PUMA_WORKERS",
    "foreman::foreman_service_puma_threads_min": "FOREMAN_PUMA_THREADS_MIN",
    "foreman::foreman_service_puma_threads_max": "FOREMAN_PUMA_THREADS_MAX",
}
EFFECT_WORDS = {
    "installer-run": "an installer run", "restart": "a restart", "daemon-reload": "systemctl daemon-reload and a restart",
    "sysctl-reload": "sysctl --system", "tuned-adm": "tuned-adm profile", "immediate": "a reload",
}


class Check(NamedTuple):
    change: Change
    state: str
    found: str  # the value read back ("" when none could be read)
    where: str  # where it was read
    why: str  # one line: what is pending, what changed it, why it cannot be read back


class Report(NamedTuple):
    run: str
    applied_at: str
    host: str
    release: str
    checks: tuple[Check, ...]

    @property
    def counts(self) -> dict[str, int]:
        return {state: sum(1 for c in self.checks if c.state == state) for state in STATES}

    @property
    def exit_status(self) -> int:
        return 1 if any(c.state in (PENDING, DRIFT) for c in self.checks) else 0


def process_start(unit: str) -> float | None:
    """When ``unit``'s main process on this host started (epoch seconds), from systemctl and /proc; None if unknown."""
    import subprocess  # start-up: only when verify asks systemd

    name = unit if "." in unit else unit + ".service"
    try:
        pid = subprocess.run(["systemctl", "show", "-p", "MainPID", "--value", name], capture_output=True, text=True,
                             timeout=10, check=False).stdout.strip()
        if not pid.isdigit() or pid == "0":
            return None
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            ticks = int(handle.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime, after the command name
        with open("/proc/stat", encoding="ascii") as handle:
            boot = next(int(line.split()[1]) for line in handle if line.startswith("btime "))
    except (OSError, ValueError, IndexError, StopIteration, subprocess.SubprocessError):
        return None
    return boot + ticks / os.sysconf("SC_CLK_TCK")


def _option_key(option: str) -> str | None:
    from foretune.changes.build import installer_option  # start-up: only when verify runs

    return next((key for key in (*READBACK, *NOFILE_READBACK) if installer_option(key) == option), None)


def _effect(change: Change) -> str:
    words = EFFECT_WORDS.get(change.effect, change.effect)
    units = f" of {', '.join(change.units)}" if change.units and change.effect in ("restart", "daemon-reload") else ""
    return words + units


class Verifier:
    """Reads back the changes of one journal on one host; facts and psql are read once, when first needed."""

    def __init__(self, host: Host, journal: dict[str, Any], seen: set[str], facts: Callable[[], FactSet | str]) -> None:
        self.host, self.journal, self.seen = host, journal, seen
        self._facts_loader = facts
        self._facts: FactSet | str | None = None
        self.applied = float(journal.get("epoch", 0))
        self._restart: frozenset[str] | None = None
        self.read_fact = ""  # the fact in_effect read the value from last (its files tell where drift came from)

    def facts(self) -> FactSet | str:
        if self._facts is None:
            self._facts = self._facts_loader()
        return self._facts

    def fact(self, name: str) -> tuple[Any, str]:
        facts = self.facts()
        if isinstance(facts, str):
            return None, facts
        value = facts.value(name)
        return value, "" if value is not None else f"{name} unknown on {self.host.label}"

    # --- where apply wrote it ----------------------------------------------------------------------------------

    def _changed_after(self, host_path: str) -> str:
        try:
            mtime = os.stat(self.host.path(host_path)).st_mtime
        except (OSError, InputError):
            return ""
        if mtime > self.applied + 1:
            return (f"; {host_path} was modified at {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(mtime))}, after run "
                    f"{self.journal['run']}{self._installer_after()}")
        return ""

    def _installer_log_after(self) -> str:
        """"an installer run logged in LOG at TIME" for the first installer log written after the run, else ""."""
        for log in self.INSTALLER_LOGS:
            try:
                mtime = os.stat(self.host.path(log)).st_mtime
            except (OSError, InputError):
                continue
            if mtime > self.applied + 1:
                return f"an installer run logged in {log} at {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(mtime))}"
        return ""

    def _installer_after(self) -> str:
        """An installer run logged after the run ("" when none is): it rewrites the files it manages."""
        logged = self._installer_log_after()
        return f"; {logged}, after the run, rewrites the files it manages" if logged else ""

    # where the installer logs its runs: one run after apply's rewrites what it renders
    INSTALLER_LOGS = ("/var/log/foreman-installer/satellite.log", "/var/log/foreman-installer/capsule.log",
                      "/var/log/foreman-installer/foreman.log", "/var/log/foreman-installer/foreman-proxy-content.log")

    def drift_files(self, fact: str) -> str:
        """The files ``fact`` was read from, each with its modification time and whether it came after the run, and
        an installer run logged after the run ("" when the source does not tell)."""
        facts = self.facts()
        if not fact or isinstance(facts, str):
            return ""
        try:
            provenance = facts[fact].provenance
        except (KeyError, AttributeError):
            return ""
        said = []
        for location in dict.fromkeys(p.location for p in provenance):
            path = "/" + location.lstrip("/")
            if not location.startswith(("etc/", "var/", "/etc/", "/var/")):
                continue  # a command's output (sos_commands), not a file someone edits
            try:  # a link (last_scenario.yaml) is named by the file it leads to, which is the one edited
                real = self.host.resolve(path)
                mtime = os.stat(real).st_mtime
                path = "/" + os.path.relpath(real, self.host.root)
            except (OSError, InputError, ValueError):
                continue
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(mtime))
            said.append(f"{path}, modified at {when}" + (f" (after run {self.journal['run']})" if mtime > self.applied + 1
                                                          else " (before the run)"))
        logged = self._installer_log_after()
        if logged:
            said.append(f"{logged}, after the run")
        return f"; read from {'; '.join(said)}" if said else ""

    def written(self, c: Change) -> tuple[bool, str, str] | None:
        """(as applied?, value found, where) where apply wrote the change; None for what only the installer writes."""
        from foretune.knowledge.profiles import flatten  # start-up: only when verify runs
        from foretune.render.merge import load_mapping  # start-up: only when verify runs

        if c.channel in ("installer", "profile"):
            return None
        if c.channel == "alter-system":
            name = setting_name(c)
            if self.host.has_psql:
                rows = self.host.psql(f"SELECT setting FROM pg_file_settings WHERE name = {sql_literal(name)} "
                                      f"AND sourcefile LIKE '%/{AUTO_CONF}' ORDER BY seqno DESC LIMIT 1")
                setting = rows[0][0] if rows else None
                where = AUTO_CONF
            else:
                directory = self.host.pg_data_dir() or "/var/lib/pgsql/data"
                data = self.host.read(f"{directory}/{AUTO_CONF}")
                setting = auto_conf_values(data.decode("utf-8", "replace")).get(name) if data is not None else None
                where = f"{directory}/{AUTO_CONF}"
            ok = setting is None if c.op == "reset" else same(setting, c.value)
            return ok, "" if setting is None else setting, where
        path = file_of(c)
        data = self.host.read(path)
        text = data.decode("utf-8", "replace") if data is not None else None
        if c.op == "remove" and (c.channel == "custom-hiera" or (c.channel == "dropin" and c.file)):
            if c.channel == "dropin":  # gone, or the shadowing lines gone from it (the site's other settings stay)
                hides = bool(c.overrides) and not c.overrides[0].startswith("/etc/")  # the same name in /etc must stay
                clean = text is not None and without_shadowing(text, c.target) == text
                ok = clean if hides else (text is None or clean)
                return ok, "" if ok else "present", path
            flat = flatten(load_mapping(text or "", path))
            return c.target not in flat, "present" if c.target in flat else "", path
        if text is None:
            return False, "", path
        found: Any
        if c.channel == "custom-hiera":
            try:
                mapping = load_mapping(text, path)
                found = mapping.get(c.target) if isinstance(c.value, dict) else flatten(mapping).get(c.target)
            except (InputError, AttributeError):
                found = None
            if isinstance(c.value, dict):  # a hash (the PostgreSQL entries): each entry as applied
                ok = isinstance(found, dict) and all(same(found.get(k), v) for k, v in c.value.items())
                return ok, "" if found is None else str(found), path
        elif c.channel == "dropin":
            found = line_value(text, c.target.split(":", 1)[-1], "[Service]")
        elif c.channel == "sysctl":
            found = line_value(text, c.target)
        elif c.channel == "tuned":
            found = text.strip() or None
        else:  # file: the line's key and value
            line = str(c.value)
            key = _key_of(line)
            found = line_value(text, key)
            if c.op == "remove":  # the line gone from the file
                return found is None, "" if found is None else f"{key} {found}", path
            wanted = line_value(line, key)
            return found is not None and same(found, wanted), "" if found is None else f"{key} {found}", path
        if c.op == "remove":
            return found is None, "" if found is None else str(found), path
        if c.channel == "dropin" and found is not None and same(found, c.value):
            later = self.later_dropin(path, c.target.split(":", 1)[-1])
            if later is not None:
                return False, f"{c.target.split(':', 1)[-1]}={later[1]}", later[0]
        return found is not None and same(found, c.value), "" if found is None else str(found), path

    def answers_value(self, option: str) -> tuple[str, Any] | None:
        """(where, value) the installer's answers file gives ``option`` (the value its next run keeps), or None."""
        from foretune.changes.build import installer_option  # start-up: only when verify runs

        answers, _ = self.fact("installer_answers")
        if not isinstance(answers, dict):
            return None
        for module, params in answers.items():
            if isinstance(params, dict):
                for param, value in params.items():
                    if installer_option(f"{module}::{param}") == option:
                        return "the installer's answers file", value
        return None

    def shadowed_again(self, c: Change) -> str:
        """Why a drop-in the run removed (or hid) for shadowing a change is as good as back ("" when it is not): a
        drop-in of the unit read after the installer's installer.conf (Puma's environment) or foretune's limits.conf
        (LimitNOFILE) sets what it set, with another value than the run's."""
        from foretune.changes.build import installer_option  # start-up: only when verify runs

        unit = c.target.split(":", 1)[0]
        unit = unit if "." in unit else unit + ".service"
        if unit == "foreman.service":
            wanted = {str(d.get("target")): d.get("value") for d in self.journal.get("changes", [])}
            for key, variable in PUMA_ENV.items():
                later = self.later_environment(unit, variable, after="installer.conf")
                ours = wanted.get(key, wanted.get(installer_option(key) or ""))
                if later is not None and ours is not None and not same(later[1], ours):
                    return (f"{later[0]} sets {variable}={later[1]}, read after installer.conf: the installer's value is "
                            f"shadowed again{self._changed_after(later[0])}")
            return ""
        ours = next((d.get("value") for d in self.journal.get("changes", []) if d.get("target") == f"{unit}:LimitNOFILE"
                     and d.get("op", "set") == "set"), None)
        later = self.later_dropin(f"/etc/systemd/system/{unit}.d/limits.conf", "LimitNOFILE")
        if later is None or ours is None or same(later[1], ours):
            return ""
        return (f"{later[0]} sets LimitNOFILE={later[1]}, read after limits.conf: {unit}'s limit is shadowed again"
                f"{self._changed_after(later[0])}")

    def later_dropin(self, path: str, directive: str) -> tuple[str, str] | None:
        """A drop-in of the same unit that sorts after ``path`` and sets ``directive`` (systemd reads drop-ins of
        /etc, /run and /usr/lib in one order by file name; the last one wins), as (its path, its value)."""
        directory, name = os.path.split(path)
        unit_dir = os.path.basename(directory)
        found: tuple[str, str, str] | None = None
        dirs = [unit_dir]
        if unit_dir.endswith("@.service.d"):  # a template's: an instance reads its own drop-ins too, in the same order
            prefix = unit_dir.removesuffix(".service.d")
            for base in ("/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system"):
                with contextlib.suppress(OSError, InputError):
                    dirs += [d for d in sorted(os.listdir(self.host.resolve(base)))
                             if d.startswith(prefix) and d.endswith(".service.d") and d not in dirs]
        for each in dirs:
            hidden: set[str] = set()  # a drop-in of /etc hides the same name in /run and /usr/lib (systemd-dropin-dirs)
            for base in ("/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system"):
                try:  # read as systemd reads it: a linked drop-in directory too
                    names = os.listdir(self.host.resolve(f"{base}/{each}"))
                except (OSError, InputError):
                    continue
                names, hidden = [n for n in names if n not in hidden], hidden | set(names)
                for other in names:
                    if not other.endswith(".conf") or other <= name:
                        continue
                    try:
                        data = read_bytes(self.host.resolve(f"{base}/{each}/{other}"))
                    except (OSError, InputError):
                        data = None
                    value = line_value(data.decode("utf-8", "replace"), directive, "[Service]") if data is not None else None
                    if value is not None and (found is None or other > found[0]):
                        found = (other, f"{base}/{each}/{other}", value)
        return (found[1], found[2]) if found else None

    # --- where it takes effect ---------------------------------------------------------------------------------

    def _pg(self, name: str) -> tuple[str | None, str, bool, str]:
        """(value, where, pending restart, source file) of a PostgreSQL setting where it takes effect."""
        if self.host.has_psql:
            rows = self.host.psql("SELECT setting, source, pending_restart, COALESCE(sourcefile, '') "
                                  f"FROM pg_settings WHERE name = {sql_literal(name)}")
            shown = self.host.psql(f"SHOW {name}")
            if not rows:
                return None, "SHOW", False, ""
            source = rows[0][3] or rows[0][1]  # the file that sets it, else where from ("command line", "default")
            return shown[0][0] if shown else rows[0][0], f"SHOW {name}", rows[0][2] == "t", source
        values, why = self.fact("postgresql")
        if not isinstance(values, dict):
            return None, why, False, ""
        # a setting neither file sets runs PostgreSQL's default: not the change's value yet (the installer writes it)
        return (str(values[name]) if name in values else "not set"), "postgresql.conf and postgresql.auto.conf", False, ""

    def in_effect(self, c: Change) -> tuple[Any, str, str] | None:
        """(value in effect, where read, extra) or None when it cannot be read back (the why in ``self.why``)."""
        self.why, self.read_fact = "", ""
        if c.channel == "custom-hiera" and c.target == PG and isinstance(c.value, dict):  # the whole hash: each entry
            entries: dict[str, Any] = {}
            for name in c.value:
                entry, where, pending, _ = self._pg(setting_name(c._replace(target=f"{PG}/{name}")))
                if entry is None:
                    self.why = where if not where.startswith("SHOW") else f"PostgreSQL has no setting {name}"
                    return None
                if pending:
                    return {**entries, name: entry}, where, "pending_restart"
                entries[name] = entry
            return entries, "PostgreSQL settings" if self.host.has_psql else "postgresql.conf and postgresql.auto.conf", ""
        if c.channel == "alter-system" or (c.channel == "custom-hiera" and c.target.startswith(PG + "/")):
            name = setting_name(c)
            value, where, pending, source = self._pg(name)
            if pending:
                return value, where, "pending_restart"
            if value is None:
                self.why = where if not where.startswith("SHOW") else f"PostgreSQL has no setting {name}"
                return None
            return value, where, source
        if c.channel == "dropin":
            unit, _, directive = c.target.partition(":")
            unit = unit if "." in unit else unit + ".service"
            if directive != "LimitNOFILE":
                self.why = f"{directive} is read back from the drop-in only"
                return None
            limits, why = self.fact("service_limits")
            if unit.endswith("@.service"):  # a template: no process of its own; each instance reads its drop-ins
                return self.instances_nofile(c, unit, limits, why)
            entry = limits.get(unit) if isinstance(limits, dict) else None
            if not isinstance(entry, dict) or entry.get("process_nofile", "absent") == "absent":
                loaded = entry.get("LimitNOFILE", "absent") if isinstance(entry, dict) else "absent"
                if loaded != "absent" and not same("infinity" if loaded is None else loaded, c.value):
                    return loaded, f"systemctl show {unit} (LimitNOFILE)", ""  # systemd itself has not read the drop-in
                self.why = why or (f"the soft limit in force of {unit}'s main process is not readable (/proc/<MainPID>/limits)"
                                   + ("; systemd has the value (daemon-reload done)" if loaded != "absent" else ""))
                return None
            value = entry["process_nofile"]
            return ("infinity" if value is None else value), f"/proc/<MainPID of {unit}>/limits (soft)", ""
        if c.channel == "sysctl":
            values, why = self.fact("sysctl")
            if not isinstance(values, dict) or c.target not in values:
                self.why = why or f"{c.target} not read on {self.host.label}"
                return None
            return values[c.target], "sysctl", ""
        if c.channel == "tuned":
            tuned, why = self.fact("tuned")
            if isinstance(tuned, dict) and tuned.get("running") is False:  # the profile is written, nothing applies it
                return "", "tuned-adm active", "tuned_not_running"
            if not isinstance(tuned, dict) or not tuned.get("active"):
                self.why = why or "tuned's active profile is unknown"
                return None
            return tuned["active"], "tuned-adm active", ""
        if c.channel == "profile":
            self.read_fact = "tuning_profile"
            value, why = self.fact("tuning_profile")
            if value is None:
                self.why = why
                return None
            if same(value, c.value):  # the scenario file names it: the values the profile renders must say so too
                behind = self.profile_behind(str(c.value))
                if behind:
                    return value, "the installer's answers (tuning)", "profile_behind:" + behind
            return value, "the installer's answers (tuning)", ""
        key = c.target if c.channel == "custom-hiera" else _option_key(c.target) if c.channel == "installer" else None
        if key in RUNNING:
            fact, field = RUNNING[key]
            self.read_fact = fact
            values, _ = self.fact(fact)
            if isinstance(values, dict) and values.get(field) is not None:
                return values[field], "pumactl stats (the running Puma)" if fact == "puma_stats" else f"{fact} {field}", ""
        if key in NOFILE_READBACK:  # the limit in force of the unit the installer writes it for
            limits, why = self.fact("service_limits")
            for unit in NOFILE_READBACK[key]:
                entry = limits.get(unit) if isinstance(limits, dict) else None
                if not isinstance(entry, dict):
                    continue
                if entry.get("process_nofile", "absent") != "absent":
                    value = entry["process_nofile"]
                    return ("infinity" if value is None else value), f"/proc/<MainPID of {unit}>/limits (soft)", ""
                if entry.get("active") is not None:
                    value = entry.get("LimitNOFILE")
                    return ("infinity" if value is None else value), f"systemctl show {unit} (LimitNOFILE)", ""
            self.why = why or f"the open-files limit of {' or '.join(NOFILE_READBACK[key])} is not in the source"
            return None
        if key in HASH_READBACK and isinstance(c.value, dict):  # each entry of the hash, as rendered
            hashed: dict[str, Any] = {}
            for entry, (fact, field) in HASH_READBACK[key].items():
                if entry not in c.value:
                    continue
                self.read_fact = fact
                values, why = self.fact(fact)
                found = values.get(field) if isinstance(values, dict) else None
                if found is None and isinstance(values, dict):
                    found = "not set"  # the rendered file has no such entry yet: the service's built-in value runs
                if found is None:
                    self.why = why or f"{fact} {field} unknown on {self.host.label}"
                    return None
                hashed[entry] = found
            if set(hashed) == set(c.value):
                return hashed, f"{self.read_fact} (the rendered configuration)", ""
        if key in READBACK:
            fact, field = READBACK[key]
            self.read_fact = fact
            values, why = self.fact(fact)
            value = values.get(field) if isinstance(values, dict) and field else values if not field else None
            if value is None and (fact in DIRECTIVE_FACTS or (fact, field) in UNSET_FIELDS) and isinstance(values, dict):
                value = "not set"  # the rendered configuration has no such directive: the module's built-in value runs
            if value is None:
                self.why = why or f"{fact} {field} unknown on {self.host.label}"
                return None
            return value, f"{fact}{' ' + field if field else ''} (the rendered configuration)", ""
        if c.channel == "file" and c.effect == "immediate":  # read where it takes effect: the file itself (hammer's)
            line = str(c.value)
            data = self.host.read(c.target)
            found = line_value(data.decode("utf-8", "replace"), _key_of(line)) if data is not None else None
            return ("" if found is None else f"{_key_of(line)} {found}"), c.target, ""
        if c.channel == "file" and _key_of(str(c.value)) in READBACK:
            fact, field = READBACK[_key_of(str(c.value))]
            values, why = self.fact(fact)
            value = values.get(field) if isinstance(values, dict) else None
            if value is not None:
                return f"{_key_of(str(c.value))} {value}", f"{fact} {field} (the running service)", ""
        if c.channel == "file" and self.restarted(c):
            line = str(c.value)
            data = self.host.read(c.target)
            found = line_value(data.decode("utf-8", "replace"), _key_of(line)) if data is not None else None
            return ("" if found is None else f"{_key_of(line)} {found}"), f"{c.target} (read by {', '.join(c.units)} since)", ""
        if c.channel == "file" and c.units:  # written (drift is told above), read by the service when it restarts
            return "", c.target, "restart_pending:" + self.not_restarted(c)
        if c.channel == "file":
            self.why = f"read back from {c.target} only: whether {', '.join(c.units) or 'its service'} restarted since is not told"
            return None
        self.why = f"foretune does not read {c.target} back where the installer renders it; {file_of(c) or 'the journal'} holds it"
        return None

    def instances_nofile(self, c: Change, unit: str, limits: Any, why: str) -> tuple[Any, str, str] | None:
        """(limit in force, where) of the instances of template ``unit`` (dynflow-sidekiq@.service: its
        dynflow-sidekiq@worker-1.service, ...), each of which reads the template's drop-ins: the soft limit of each
        running process (/proc/PID/limits), else the limit systemd loaded (systemctl show). The first instance that
        differs from the change's value is given (so the change is pending until each runs it), else the value."""
        prefix = unit.removesuffix(".service")
        found: list[tuple[str, Any, str]] = []
        for name, entry in sorted(limits.items()) if isinstance(limits, dict) else ():
            if not (name.startswith(prefix) and name.endswith(".service")) or name == unit or not isinstance(entry, dict):
                continue
            if entry.get("process_nofile", "absent") != "absent":
                value = entry["process_nofile"]
                found.append((name, "infinity" if value is None else value, f"/proc/<MainPID of {name}>/limits (soft)"))
            elif entry.get("active") is not None:  # systemctl show lists it: the limit systemd loaded for it
                value = entry.get("LimitNOFILE")
                found.append((name, "infinity" if value is None else value, f"systemctl show {name} (LimitNOFILE)"))
        dropin = self.dropin_value(c)
        given = f" (its drop-ins give LimitNOFILE={dropin[1]}, {dropin[0]} read last)" if dropin else ""
        if not found:
            self.why = why or f"no instance of {unit} runs on {self.host.label} to read its limit from{given}"
            return None
        behind = next((f for f in found if not same(f[1], c.value)), None)
        if behind is not None:  # one instance runs (or systemd loaded) another limit: waits for the reload and restart
            return behind[1], behind[2], ""
        loaded = [f[0] for f in found if f[2].startswith("systemctl show")]
        if loaded:  # systemd has the value; whether each process was restarted since is not told
            self.why = (f"systemd loaded LimitNOFILE={text_value(c.value)} for {', '.join(loaded)} (daemon-reload done), but "
                        f"the soft limit of the running process is not readable (/proc/<MainPID>/limits){given}")
            return None
        return c.value, ", ".join(f[2] for f in found), ""

    def dropin_value(self, c: Change) -> tuple[str, str] | None:
        """(path, value) of the drop-in that gives the change's directive last, in systemd's order (the drop-ins of
        /etc, /run and /usr/lib in one order by name, /etc's hiding the same name elsewhere), or None."""
        directive = c.target.split(":", 1)[-1]
        path = file_of(c)
        data = self.host.read(path)
        own = line_value(data.decode("utf-8", "replace"), directive, "[Service]") if data is not None else None
        later = self.later_dropin(path, directive)
        return later if later is not None else ((path, own) if own is not None else None)

    def profile_behind(self, profile: str) -> str:
        """Why the profile the scenario file names is not proved in force by what the installer rendered ("" when it
        is): a value the profile sets, that nothing else here sets (custom-hiera.yaml, another change of the run,
        postgresql.auto.conf or an included file), is read back from the rendered configuration with another value.
        The scenario's tuning fact alone does not prove it: the installer writes it whether or not its run got to
        render the profile's values."""
        from foretune.changes.build import installer_option  # start-up: only when verify runs
        from foretune.knowledge.profiles import flatten, installer_hiera  # start-up: only when verify runs
        from foretune.knowledge.releases import resolve_release  # start-up: only when verify runs

        facts = self.facts()
        if isinstance(facts, str):
            return ""
        try:
            release = resolve_release(str(facts.value("product") or ""), str(facts.value("product_version") or ""))
            wanted = flatten(installer_hiera(release, profile))
        except (ForetuneError, ValueError, KeyError):  # a release or profile foretune cannot size: not judged here
            return ""
        journal_keys = set()
        for data in self.journal.get("changes", []):
            target = str(data.get("target", ""))
            journal_keys |= {target, *(k for k in wanted if installer_option(k) == target)}
        site = flatten(facts.value("custom_hiera") or {}) if isinstance(facts.value("custom_hiera"), dict) else {}
        pg = facts.value("postgresql") or {}
        sources = facts.value("postgresql_sources") or {}
        differs = []
        for key, value in wanted.items():
            if key in journal_keys or key in site or key.split("/")[0] in journal_keys:
                continue
            if key.startswith(PG + "/"):
                name = key.split("/", 1)[1]
                files = sources.get(name) or []
                if name not in pg or not files or not str(files[-1]).endswith("/postgresql.conf"):
                    continue  # set elsewhere (ALTER SYSTEM, an include): not the profile's to prove
                found, where = pg[name], "postgresql.conf"
            elif key in READBACK and READBACK[key][1]:
                fact, field = READBACK[key]
                values = facts.value(fact)
                found = values.get(field) if isinstance(values, dict) else None
                where = f"{fact} {field}"
                if found is None:
                    continue
            else:
                continue
            if not same(found, value):
                differs.append(f"{where} gives {key.rsplit('/', 1)[-1].rsplit('::', 1)[-1]} {found}, not the profile's {value}")
        if not differs:
            return ""
        return (f"the scenario file says tuning {profile}, but the rendered configuration is not the profile's: "
                f"{'; '.join(differs[:3])}: the installer run with --tuning {profile} has not completed")

    def overridden(self, c: Change) -> str:
        """What now wins over ``c`` where it takes effect, in one line ("" when nothing does): a postgresql.auto.conf
        line (ALTER SYSTEM) over a value given to postgresql.conf, a foreman.service drop-in read after the
        installer's ``installer.conf`` over a Puma value the installer writes there."""
        if c.op != "set":
            return ""
        if c.channel == "custom-hiera" and c.target.startswith(PG + "/"):
            name = setting_name(c)
            path = f"{self.host.pg_data_dir() or '/var/lib/pgsql/data'}/{AUTO_CONF}"
            try:
                data = self.host.read(path)
            except InputError:
                return ""
            found = auto_conf_values(data.decode("utf-8", "replace")).get(name) if data is not None else None
            if found is None or same(found, c.value):
                return ""
            return (f"{path} sets {name} = '{found}' (ALTER SYSTEM), which wins over postgresql.conf"
                    f"{self._changed_after(path)}: ALTER SYSTEM RESET {name}; and "
                    f"{'a restart' if name in self.restart_settings() else 'a reload (SELECT pg_reload_conf())'}, or keep it on purpose")
        if c.channel == "sysctl":  # a sysctl file read after the one apply wrote sets it too, otherwise
            shadow = sysctl_later(self.host, c.target, file_of(c))
            if shadow is not None and not same(shadow[1], c.value):
                return (f"{shadow[0]} sets {c.target} = {shadow[1]} and is read after {os.path.basename(file_of(c))}: "
                        f"sysctl --system keeps {shadow[1]}{self._changed_after(shadow[0])}; take that line out [sysctl-d-order]")
            return ""
        key = c.target if c.channel == "custom-hiera" else _option_key(c.target) if c.channel == "installer" else None
        variable = PUMA_ENV.get(key or "")
        if variable is None:
            return ""
        from_file = self.environment_file("foreman.service", variable)
        if from_file is not None and not same(from_file[1], c.value):
            return (f"{from_file[0]} sets {variable}={from_file[1]}, read through EnvironmentFile= in {from_file[2]}: it wins "
                    f"over the installer's Environment= in installer.conf{self._changed_after(from_file[0])}")
        later = self.later_environment("foreman.service", variable, after="installer.conf")
        if later is None or same(later[1], c.value):
            return ""
        return (f"{later[0]} sets {variable}={later[1]}, read after installer.conf: it wins over the installer's value"
                f"{self._changed_after(later[0])}")

    def environment_file(self, unit: str, variable: str) -> tuple[str, str, str] | None:
        """(file, value, the unit file or drop-in naming it) of the last EnvironmentFile= of ``unit`` that sets
        ``variable``: those files win over every Environment= line (systemd-environment-file)."""
        places = [f"{base}/{unit}" for base in ("/etc/systemd/system", "/usr/lib/systemd/system")]
        hidden: set[str] = set()
        dropins: dict[str, str] = {}
        for base in ("/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system"):
            try:
                names = os.listdir(self.host.resolve(f"{base}/{unit}.d"))
            except (OSError, InputError):
                continue
            for name in names:
                if name.endswith(".conf") and name not in hidden:
                    dropins[name] = f"{base}/{unit}.d/{name}"
            hidden |= set(names)
        found: tuple[str, str, str] | None = None
        unit_file = next((p for p in places if _exists(self.host, p)), None)  # /etc's replaces the package's
        for place in [*([unit_file] if unit_file else []), *(dropins[n] for n in sorted(dropins, key=lambda n: n.encode()))]:
            try:
                data = read_bytes(self.host.resolve(place))
            except (OSError, InputError):
                continue
            for line in data.decode("utf-8", "replace").splitlines():
                if not line.strip().startswith("EnvironmentFile="):
                    continue
                path = line.strip().removeprefix("EnvironmentFile=").strip().lstrip("-").strip()
                try:
                    text = read_bytes(self.host.resolve(path)).decode("utf-8", "replace") if path.startswith("/") else ""
                except (OSError, InputError):
                    continue
                value = line_value(text, variable)
                if value is not None:
                    found = (path, value.strip().strip('"').strip("'"), place)
        return found

    def later_environment(self, unit: str, variable: str, after: str) -> tuple[str, str] | None:
        """(path, value) of the last drop-in of ``unit`` sorting after ``after`` that sets ``variable`` in an
        Environment= line (systemd reads the drop-ins of every directory in one order by file name)."""
        found: tuple[str, str, str] | None = None
        hidden: set[str] = set()  # a drop-in of /etc hides the same name in /run and /usr/lib (systemd-dropin-dirs)
        for base in ("/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system"):
            try:  # read as systemd reads it: a linked foreman.service.d too
                directory = self.host.resolve(f"{base}/{unit}.d")
                names = os.listdir(directory)
            except (OSError, InputError):
                continue
            names, hidden = [n for n in names if n not in hidden], hidden | set(names)
            for name in names:
                if not name.endswith(".conf") or name <= after:
                    continue
                try:
                    data = read_bytes(self.host.resolve(f"{base}/{unit}.d/{name}"))
                except (OSError, InputError):
                    continue
                for line in (data or b"").decode("utf-8", "replace").splitlines():
                    line = line.strip()
                    if not line.startswith("Environment="):
                        continue
                    for word in line.removeprefix("Environment=").replace('"', " ").split():
                        if word.startswith(variable + "=") and (found is None or name >= found[0]):
                            found = (name, f"{base}/{unit}.d/{name}", word.split("=", 1)[1])
        return (found[1], found[2]) if found else None

    def restart_settings(self) -> frozenset[str]:
        """The settings PostgreSQL reads only when it starts, at the tree's PostgreSQL major (PG_VERSION)."""
        from foretune.knowledge.precedence import table  # start-up: only when verify reads PostgreSQL's files

        if self._restart is None:
            directory = self.host.pg_data_dir()
            try:
                data = self.host.read(f"{directory}/PG_VERSION") if directory else None
            except InputError:
                data = None
            version = data.decode("ascii", "replace").strip() or None if data else None
            entry = table("postgresql", version)  # a removed setting: PostgreSQL did not start with it, so it must start
            self._restart = frozenset((*(entry.get("restart_settings") or ()), *(entry.get("removed_settings") or {})))
        return self._restart

    def postgresql_started(self) -> tuple[float | None, str]:
        """(when PostgreSQL started, the postmaster.pid it was read from): the file's third line is the start time in
        seconds since the epoch; None when there is no such file (PostgreSQL not running, or not in the tree)."""
        path = f"{self.host.pg_data_dir() or '/var/lib/pgsql/data'}/postmaster.pid"
        try:
            data = self.host.read(path)
            return (float(data.decode("ascii", "replace").splitlines()[2]) if data is not None else None), path
        except (InputError, IndexError, ValueError):
            return None, path

    def not_started_since(self) -> str | None:
        """None when postmaster.pid says PostgreSQL started after the run, else what the tree says of its start."""
        started, path = self.postgresql_started()
        if started is not None and started > self.applied:
            return None
        return (f"no {path} tells when it started" if started is None else
                f"{path} says it started at {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(started))}, before run {self.journal['run']}")

    def restart_pending(self, names: list[str]) -> str:
        """Why the files' value of a setting in ``names`` that PostgreSQL reads only at start is not proved to run:
        "" when it is (SHOW read it through psql, or postmaster.pid says PostgreSQL started after the run)."""
        if self.host.has_psql:
            return ""
        restart = sorted(name for name in names if name in self.restart_settings())
        if not restart:
            return ""
        when = self.not_started_since()
        if when is None:
            return ""
        return (f"needs a PostgreSQL restart: PostgreSQL reads {', '.join(restart)} only when it starts, and the files under "
                f"{self.host.label} cannot show the running value ({when}): `systemctl restart {self.pg_unit()}`, or verify with --dsn to "
                "SHOW it")

    def pg_unit(self) -> str:
        """PostgreSQL's unit as the run's changes name it (rh-postgresql12-postgresql: the SCL's on RHEL 7)."""
        return next((str(u).removesuffix(".service") for d in self.journal.get("changes", []) if d.get("channel") in ("alter-system", "file")
                     for u in d.get("units") or () if "postgresql" in str(u)), "postgresql")

    def reload_unseen(self) -> str:
        """Why a setting PostgreSQL takes on a reload, read from the tree's files, is not proved to run ("" when it is:
        SHOW reads it through psql, or postmaster.pid says PostgreSQL started after the run). apply --root edits the
        tree's postgresql.auto.conf (or an included file) and reloads nothing, and a reload leaves no trace in the
        files: foretune cannot tell it happened, so the change is not verified rather than pending for ever."""
        if self.host.has_psql:
            return ""
        when = self.not_started_since()
        if when is None:
            return ""
        return (f"in force once PostgreSQL reloads its configuration (`sudo -u postgres psql -c 'SELECT pg_reload_conf()'`), "
                f"which the files under {self.host.label} cannot show ({when}): verify with --dsn to SHOW it")

    def pg_files_state(self, names: list[str]) -> tuple[str, str]:
        """(state, why) of a PostgreSQL change apply wrote into the tree's files, as the files give it: pending a
        restart for what PostgreSQL reads only at start, not verified until a reload for the rest, else in force."""
        pending = self.restart_pending(names)
        if pending:
            return PENDING, pending
        unseen = self.reload_unseen()
        return (UNVERIFIED, unseen) if unseen else (IN_FORCE, "")

    def _restart_state(self, names: list[str]) -> tuple[str, str]:
        pending = self.restart_pending(names)
        return (PENDING, pending) if pending else (IN_FORCE, "")

    def puma_behind(self) -> str:
        """Why the running Puma does not run the rendered configuration ("" when it does or cannot be told): pumactl
        stats gives another worker count than foreman.service.d/installer.conf renders, so it started before; without
        pumactl stats, systemd still runs foreman.service with other FOREMAN_PUMA_* values (systemctl show)."""
        running, _ = self.fact("puma_stats")
        rendered, _ = self.fact("puma")
        ran = running.get("workers") if isinstance(running, dict) else None
        wants = rendered.get("workers") if isinstance(rendered, dict) else None
        loaded, _ = self.fact("puma_loaded")
        if not isinstance(running, dict) and isinstance(loaded, dict) and isinstance(rendered, dict):
            old = [f"{PUMA_ENV['foreman::foreman_service_puma_' + k]}={loaded[k]}" for k in ("workers", "threads_min", "threads_max")
                   if loaded.get(k) is not None and rendered.get(k) is not None and str(loaded[k]) != str(rendered[k])]
            if old:
                return (f"systemd still runs foreman.service with {' '.join(old)} (systemctl show), not the configuration "
                        "the installer rendered: systemctl daemon-reload && systemctl restart foreman")
        if ran is None or wants is None or str(ran) == str(wants):
            return ""
        return (f"the running Puma (pumactl stats: {ran} workers) started before the configuration the installer rendered "
                f"({wants} workers): systemctl daemon-reload && systemctl restart foreman")

    def removal(self, c: Change) -> str:
        """What a removal did: a drop-in that keeps the site's other settings lost only its shadowing lines."""
        if c.channel == "dropin" and c.file and not c.overrides and self.host.read(c.file) is not None:
            gone = str(c.site_value) if c.site_value else "the lines that shadowed the change"
            return f"{gone} taken out of {c.file} (its other settings stay)"
        return "removed"

    def environment_loaded(self, c: Change) -> bool:
        """FOREMAN_PUMA_* lines taken out of a foreman.service drop-in are in force once systemd runs the unit
        (``systemctl show`` Environment) with what its remaining files give for each of them (daemon-reload done), and
        the running Puma, when pumactl stats tells, runs the rendered configuration (restarted since)."""
        unit = c.target.partition(":")[0]
        removed = re.findall(r"\b(FOREMAN_PUMA_\w+)=", str(c.site_value or ""))
        if c.channel != "dropin" or unit not in ("foreman", "foreman.service") or not removed:
            return False
        loaded, _ = self.fact("puma_loaded")
        fields = {variable: key.removeprefix("foreman::foreman_service_puma_") for key, variable in PUMA_ENV.items()}
        if not isinstance(loaded, dict) or any(variable not in fields for variable in removed):
            return False
        for variable in removed:
            given = self.environment_file("foreman.service", variable) or self.later_environment("foreman.service", variable, "")
            rendered = given[1] if given else None  # (file, value, ...): EnvironmentFile= wins over Environment=
            now = loaded.get(fields[variable])
            if (None if now is None else str(now)) != rendered:
                return False
        return not self.puma_behind()

    def restarted(self, c: Change) -> bool:
        """Every unit of ``c`` has a main process started after the run (so it reads the change): on this host, from
        systemd and /proc; in a tree, from the pid file the service writes when it starts (:data:`PID_FILES`)."""
        if not c.units:
            return False
        if self.host.live:
            return all(started is not None and started > self.applied for started in map(process_start, c.units))
        return all(self.pid_file_start(unit)[0] > self.applied for unit in c.units)

    def pid_file_start(self, unit: str) -> tuple[float, str]:
        """(when the tree's pid file of ``unit`` was written, i.e. the service started; 0 when unknown, its path or "")."""
        for path in PID_FILES.get(unit, ()):
            try:
                return os.stat(self.host.path(path)).st_mtime, path
            except (OSError, InputError):
                continue
        return 0.0, ""

    def not_restarted(self, c: Change) -> str:
        """Why a file edit read by its service at start waits (the service has not been shown to restart since)."""
        units = ", ".join(c.units)
        if self.host.live:
            told = f"{units} has not restarted since run {self.journal['run']}"
        else:
            started = [(unit, *self.pid_file_start(unit)) for unit in c.units]
            told = "; ".join(f"{path} says {unit} started at {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(when))}, "
                             f"before run {self.journal['run']}" if path else
                             f"no pid file under {self.host.label} tells when {unit} started" for unit, when, path in started)
        return (f"written into {c.target}; {_key_of(str(c.value))} takes effect when {units} restarts ({told}): "
                f"`systemctl restart {' '.join(c.units)}`")

    def check_by_hand(self, c: Change) -> Check:
        """A value the admin sets by hand (THP in sysfs): in force when the file reads it back (the choice in
        brackets), pending until then, drift when a verify saw it in force before."""
        data = self.host.read(c.target)
        if data is None:
            return Check(c, UNVERIFIED, "", c.target, f"{c.target} is not in {self.host.label}, so whether "
                         f"`echo {c.value} > {c.target}` took effect is not told")
        text = data.decode("utf-8", "replace").strip()
        chosen = re.search(r"\[(\w+)\]", text)
        now = chosen.group(1) if chosen else (text.split() or [""])[0]
        if now == c.value:
            return Check(c, IN_FORCE, now, c.target, "")
        if c.tunable in self.seen:
            return Check(c, DRIFT, now, c.target, f"{c.target} now gives {now} after a verify saw {c.value} in force (tuned "
                         "applying a profile that sets [vm] transparent_hugepages, or a boot without "
                         f"transparent_hugepage={c.value} on the kernel command line, sets it again){self._changed_after(c.target)}")
        return Check(c, PENDING, now, c.target, f"{c.target} still gives {now}: run by hand `echo {c.value} > {c.target}` "
                     f"(and the set's grubby line, for the boots after)")

    def check(self, c: Change) -> Check:
        if c.channel == "by-hand":
            return self.check_by_hand(c)
        unwritten = {str(f.get("path")) for f in self.journal.get("files", []) if not f.get("done")}
        if c.channel not in ("installer", "profile") and file_of(c) and file_of(c) in unwritten:
            return Check(c, PENDING, "", file_of(c), f"never written: run {self.journal['run']} stopped before "
                         f"{file_of(c)} (`foretune apply --rollback {self.journal['run']}` undoes the rest, or apply again)")
        wrote = self.written(c)
        if wrote is not None and not wrote[0]:
            found, where = wrote[1], wrote[2]
            said = f"{where} now has {found!r}" if found else f"{where} no longer has it"
            if c.op == "remove" and found:
                said = f"{where} has it again"
            if not where.startswith(AUTO_CONF):
                said += f" (applied: {'removed' if c.op != 'set' else repr(str(c.value))})" + self._changed_after(where)
            return Check(c, DRIFT, str(found), where, said)
        if c.op == "remove" and ((c.channel == "custom-hiera" and c.target.startswith(PG + "/")) or postgresql_file(c)):
            values, _ = self.fact("postgresql")
            name = setting_name(c) if c.channel == "custom-hiera" else _key_of(str(c.value))
            if isinstance(values, dict) and name not in values and c.channel == "custom-hiera" and \
                    (c.source == "stale" or c.tunable.startswith("stale:")):
                # a key the PostgreSQL in force refuses (it would not start with it): no file it reads ever had it
                # from the installer, so nothing waits for a restart once the key is gone
                return Check(c, IN_FORCE, "", wrote[2] if wrote else "", "")
            if isinstance(values, dict) and name not in values:
                state, why = self.pg_files_state([name]) if postgresql_file(c) else self._restart_state([name])
                return Check(c, state, "", "postgresql.conf and postgresql.auto.conf", why)
        again = self.shadowed_again(c) if c.op == "remove" and c.channel == "dropin" and c.file else ""
        if again:  # the drop-in went, but another one read later sets the same again: the removal is undone
            return Check(c, DRIFT, "", wrote[2] if wrote else c.file, again)
        if c.op == "remove" and c.channel == "custom-hiera" and (c.source == "stale" or c.tunable.startswith("stale:")) and not c.target.startswith(PG + "/"):
            # a key the release ignores: nothing reads it, so once it is gone from custom-hiera.yaml nothing waits
            return Check(c, IN_FORCE, "", wrote[2] if wrote else "", "")
        if c.op == "remove" and postgresql_file(c) and not self.host.has_psql:  # a line out of an included file, under --root
            state, why = self.pg_files_state([_key_of(str(c.value))])  # postmaster.pid tells a start after the run
            return Check(c, state, "", wrote[2] if wrote else c.target, why)
        if c.op in ("remove", "reset") and c.channel != "alter-system":
            if c.effect == "immediate" or c.tunable in self.seen or self.restarted(c) or self.environment_loaded(c):
                return Check(c, IN_FORCE, "", wrote[2] if wrote else "", "")
            return Check(c, PENDING, "", wrote[2] if wrote else "", f"{self.removal(c)}; in force after {_effect(c)}")
        if c.op == "reset" and c.channel == "alter-system" and not self.host.has_psql:
            # gone from postgresql.auto.conf under --root: a setting PostgreSQL reads at start is in force once it
            # started after the run (postmaster.pid), pending until then; another once the configuration is reloaded,
            # which the files cannot show: not verified (exit status alone) until postmaster.pid shows a start
            state, why = self.pg_files_state(_pg_names(c))
            return Check(c, state, "", wrote[2] if wrote else AUTO_CONF, why)
        if c.op == "set" and c.channel == "file" and postgresql_file(c) and not self.host.has_psql:
            # a line written into the tree's postgresql.conf (Satellite 6.2's edits): pending a restart for what
            # PostgreSQL reads only at start until postmaster.pid shows a start after the run, as ALTER SYSTEM's
            state, why = self.pg_files_state([_key_of(str(c.value))])
            return Check(c, state, wrote[1] if wrote else "", wrote[2] if wrote else c.target, why)
        effect = self.in_effect(c)
        answered = self.answers_value(c.target) if effect is None and c.channel == "installer" else None
        if answered is not None and not same(answered[1], c.value):  # the installer has not run with it yet
            return Check(c, PENDING, str(answered[1]), answered[0], f"{answered[0]} still gives {str(answered[1])!r}: waiting "
                                                                     f"for {_effect(c)} (the rendered value is not in the source)")
        if effect is None:  # never without a reason
            why = self.why or f"{c.target} cannot be read back where it takes effect on {self.host.label}"
            return Check(c, UNVERIFIED, "", wrote[2] if wrote else "", why)
        value, where, extra = effect
        wanted = None if c.op == "reset" else c.value
        if extra.startswith("restart_pending:"):
            return Check(c, PENDING, "", where, extra.split(":", 1)[1])
        if extra == "tuned_not_running":
            return Check(c, PENDING, "", where, f"tuned is not running: `systemctl enable --now tuned && tuned-adm profile "
                                                f"{c.value}` puts the profile in force")
        if extra.startswith("profile_behind:"):
            return Check(c, PENDING, str(value), where, extra.split(":", 1)[1])
        if extra == "pending_restart":
            return Check(c, PENDING, str(value), where, f"PostgreSQL reports pending_restart: `systemctl restart {self.pg_unit()}`")
        # a PostgreSQL setting read from the files (--root without --dsn): in force only once PostgreSQL has started
        # since the run, for what it reads at start (a reset, max_connections, shared_buffers); else pending
        pending = self.restart_pending(_pg_names(c))
        if c.op == "reset" and c.channel == "alter-system":  # SHOW read it, and PostgreSQL reports no pending restart
            if extra.endswith(AUTO_CONF):  # the running value still comes from the line the reset removed
                return Check(c, PENDING, str(value), where, f"{where} gives {value!r} from {extra} still: PostgreSQL has "
                                                            "not reloaded its configuration: SELECT pg_reload_conf()")
            return Check(c, IN_FORCE, str(value), where, "")
        if c.channel == "file":
            wanted = f"{_key_of(str(c.value))} {line_value(str(c.value), _key_of(str(c.value)))}"
        if isinstance(wanted, dict) and isinstance(value, dict):
            if all(same(value.get(k), v) for k, v in wanted.items()):
                return Check(c, PENDING if pending else IN_FORCE, str(value), where, pending)
        elif same(value, wanted) or (isinstance(wanted, int) and str(value).isdigit() and int(value) == wanted) or (
                c.channel == "file" and str(value).split(None, 1)[0] == str(wanted).split(None, 1)[0]
                and same(str(value).split(None, 1)[-1], str(wanted).split(None, 1)[-1])):  # "KeepAlive on" is On
            if c.channel == "sysctl" and (later := self.overridden(c)):  # in the kernel now, gone at the next boot
                return Check(c, DRIFT, str(value), where, f"{later}; the kernel still has {value} until then")
            if c.channel == "alter-system" and not self.host.has_psql:  # written into the tree's postgresql.auto.conf
                state, why = self.pg_files_state(_pg_names(c))
                return Check(c, state, str(value), where, why)
            key = c.target if c.channel == "custom-hiera" else _option_key(c.target) if c.channel == "installer" else None
            if not pending and (key in PUMA_BOOT or key in PUMA_ENV) and "rendered" in where:  # read by Puma when it starts
                pending = self.puma_behind()
            return Check(c, PENDING if pending else IN_FORCE, str(value), where, pending)
        if extra and c.channel == "alter-system" and not extra.endswith(AUTO_CONF) and extra not in ("default", "configuration file"):
            return Check(c, DRIFT, str(value), where, f"{where} gives {value!r}: PostgreSQL takes it from {extra}, "
                                                      "which wins over postgresql.auto.conf")
        overridden = self.overridden(c)
        if overridden:  # something set after the run wins over the change: no installer run or restart brings it
            return Check(c, DRIFT, str(value), where, overridden)
        if c.tunable in self.seen:
            source = f"; set in {extra}" if extra else ""
            return Check(c, DRIFT, str(value), where, f"{where} gives {value!r} after a verify saw {c.value!r} in force{source}"
                                                      f"{self.drift_files(self.read_fact)}")
        key = c.target if c.channel == "custom-hiera" else _option_key(c.target) if c.channel == "installer" else None
        if key in RUNNING and self.puma_behind():  # rendered already: the restart is what it waits for
            return Check(c, PENDING, str(value), where, f"{where} still gives {value!r}: {self.puma_behind()}")
        gives = "give" if " and " in where else "gives"
        return Check(c, PENDING, str(value), where, f"{where} still {gives} {value!r}: waiting for {_effect(c)}")


def _exists(host: Host, path: str) -> bool:
    try:
        return os.path.isfile(host.resolve(path))
    except InputError:
        return False


def _pg_names(c: Change) -> list[str]:
    """The PostgreSQL settings ``c`` changes (none when it is not a PostgreSQL setting)."""
    if c.channel == "alter-system" or (c.channel == "custom-hiera" and c.target.startswith(PG + "/")):
        return [setting_name(c)]
    if c.channel == "custom-hiera" and c.target == PG and isinstance(c.value, dict):
        return [str(name) for name in c.value]
    return []


def _unshadowed(checks: tuple[Check, ...]) -> tuple[Check, ...]:
    """A custom-hiera key removed so that an installer option takes effect is in force once that option's value is:
    the installer has run without it (else the removal would stay pending for ever)."""
    from foretune.changes.build import installer_option  # start-up: only when a set is verified

    options = {c.change.target for c in checks if c.state == IN_FORCE and c.change.channel == "installer"}
    return tuple(c._replace(state=IN_FORCE, why="") if c.state == PENDING and c.change.tunable.startswith("unshadow:")
                 and installer_option(c.change.target) in options else c for c in checks)


# the by-hand commands whose value verify reads back: transparent huge pages (sysfs shows the choice in brackets)
THP_COMMAND = re.compile(r"echo (\w+) > (/sys/kernel/mm/transparent_hugepage/(enabled|defrag))")


def by_hand_changes(journal: dict[str, Any]) -> list[Change]:
    """The journal's by-hand commands that set a value verify can read back, as changes of the ``by-hand`` channel."""
    from foretune.changes.model import Change  # start-up: only when verify runs

    out = []
    for command in journal.get("by_hand") or ():
        found = THP_COMMAND.fullmatch(str(command).strip())
        if found:
            out.append(Change("os.thp" if found.group(3) == "enabled" else "os.thp_defrag", "by-hand", found.group(2),
                              found.group(1), effect="immediate", reason=f"by hand: {command}", citations=("gf-hardware",)))
    return out


def verify(host: Host, directory: Path, journal: dict[str, Any], facts: Callable[[], FactSet | str], *,
           remember: bool = True) -> Report:
    """Check every change of ``journal``; remember the ones in force (in ``verified.json``) to tell drift later."""
    seen_path = directory / SEEN
    try:
        seen = set(json.loads(read_bytes(seen_path, 1 << 20)).get("in_force", []))
    except (OSError, ValueError, AttributeError):
        seen = set()
    changes = [change_from_dict(data, f"{directory}/journal.json") for data in journal.get("changes", [])]
    changes += by_hand_changes(journal)
    verifier = Verifier(host, journal, seen, facts)
    checks = _unshadowed(tuple(verifier.check(c) for c in changes))
    now_in_force = seen | {c.change.tunable for c in checks if c.state == IN_FORCE}
    if remember and now_in_force != seen:
        with contextlib.suppress(OSError):  # a read-only image: drift is then told by the journal's values only
            write_file(seen_path, json.dumps({"in_force": sorted(now_in_force)}) + "\n", mode=0o600)
    return Report(str(journal.get("run")), str(journal.get("time")), host.label, str(journal.get("release", "")), checks)
