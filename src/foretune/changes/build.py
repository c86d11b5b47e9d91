"""Building one change set from a plan (its recommendations) or from an audit (its findings' fixes).

Every fix becomes a :class:`~foretune.changes.model.Change` through one channel, and each is checked against what
the host has (:class:`Host`, read from the facts) with the release's precedence tables
(:mod:`foretune.knowledge.precedence`):

- the channel: the installer option where the release's installer has one, custom-hiera.yaml otherwise (custom-hiera
  wins over the answers file, so a value given both ways would silently ignore every later installer flag);
- what shadows it: a custom-hiera.yaml key above an installer option, a postgresql.auto.conf line (ALTER SYSTEM) above
  the postgresql.conf the installer writes, a hand-made drop-in read after the installer's, the Foreman vhost's own
  KeepAlive above the server-wide one; the change set removes what shadows, or says why it cannot take effect;
- the key exists in the release's modules (stale keys the release refuses become ``remove`` changes);
- the installer's hardware check accepts the profile, and the memory budget after the changes fits;
- a value the site set higher on purpose is kept, never lowered silently.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from foretune.changes.model import Blocked, Change, ChangeSet
from foretune.knowledge import load_data, module_default
from foretune.knowledge.model import SIZES
from foretune.knowledge.precedence import (
    PG_RESTART,
    httpd_edit_target,
    pg_restart,
    postgresql_include_shadow,
    postgresql_shadow,
    removed_settings,
    systemd_shadow,
    systemd_shadows,
    table,
    unshadowed_line,
)
from foretune.knowledge.profiles import PG, flatten, installer_hiera
from foretune.plan.measured import SHORTAGE_HOLDS, measured_shortage
from foretune.plan.model import Fix, Plan
from foretune.plan.planner import make_plan
from foretune.plan.refused import accepted_profile, tuning_applies
from foretune.units import parse_size

HIERA_FILE = "/etc/foreman-installer/custom-hiera.yaml"
SYSCTL_FILE = "/etc/sysctl.d/90-foretune.conf"
INSTALLER_MODULES = ("foreman_proxy_content", "foreman_proxy", "foreman", "puppet", "katello")
INSTALLER_DROPIN = "installer.conf"  # puppet-foreman's foreman.service drop-in (manifests/service.pp)
LIMITS_DROPIN = "limits.conf"  # the drop-in a LimitNOFILE change writes
# directives whose 0 means no limit (never shut the preloader down, no cap on keep-alive requests), as apply reads them
ZERO_IS_UNLIMITED = frozenset({"PassengerMaxPreloaderIdleTime", "MaxKeepAliveRequests"})
# changes that set what that drop-in carries (Puma workers and threads) or what is sized from it (the Rails pool)
PUMA_TARGETS = ("foreman::foreman_service_puma_", "foreman::db_pool", "--foreman-foreman-service-puma-", "--foreman-db-pool")
# the apply order of channels and operations: the profile first, then what is removed, then the values
_ORDER = {("profile", "set"): 0, ("custom-hiera", "remove"): 1, ("alter-system", "reset"): 2, ("dropin", "remove"): 3,
          ("file", "remove"): 3,
          ("custom-hiera", "set"): 4, ("installer", "set"): 5, ("file", "set"): 6, ("alter-system", "set"): 7,
          ("dropin", "set"): 8, ("sysctl", "set"): 9, ("tuned", "set"): 10}
# Puma values the installer writes into foreman.service.d/installer.conf, by the environment variable that carries them
PUMA_ENV = {"foreman::foreman_service_puma_workers": "FOREMAN_PUMA_WORKERS",
            "foreman::foreman_service_puma_threads_min": "FOREMAN_PUMA_THREADS_MIN",
            "foreman::foreman_service_puma_threads_max": "FOREMAN_PUMA_THREADS_MAX"}
# tunables that hold memory: a raise of one is blocked when the memory budget after the changes does not fit
MEMORY_TUNABLES = ("puma.workers", "candlepin.heap_max", "postgresql.shared_buffers", "pulp.workers",
                   "dynflow.sidekiq_instances", "passenger.max_pool_size", "passenger.min_instances")


class Host(NamedTuple):
    """What the host has that can shadow a change: read from the facts (or given by hand, for ``render``)."""

    custom_hiera: Mapping[str, Any] = {}  # flattened custom-hiera.yaml (``postgresql::server::config_entries/work_mem``)
    postgresql_files: tuple[tuple[str, str], ...] = ()  # (location, text) in the order PostgreSQL reads them
    postgresql_version: str | None = None  # major ("12", "9.2")
    puma_files: tuple[tuple[str, str], ...] = ()  # (location, text) of foreman.service and its drop-ins
    limit_files: tuple[tuple[str, str], ...] = ()  # (location, LimitNOFILE line) of every unit drop-in that sets one
    tuning_profile: str | None = None  # the profile the installer last ran with
    postgresql_sources: Mapping[str, tuple[str, ...]] = {}  # setting -> the files that set it, in read order
    postgresql_values: Mapping[str, str] = {}  # setting -> the value the files give it (the last one read)
    swap_used: int | None = None  # bytes of swap in use
    swap_total: int | None = None
    mem_available: int | None = None  # MemAvailable, bytes
    ram: int | None = None  # MemTotal, bytes
    puma_workers: int | None = None  # the Puma workers running (pumactl stats, systemctl show), else rendered
    # (location, line) of the Apache and Passenger directives the facts read (Satellite 6.2 edits those files by hand)
    directive_lines: tuple[tuple[str, str], ...] = ()
    # httpd file -> its includes and the directives it sets after each (the httpd_includes fact): what httpd reads
    httpd_includes: Mapping[str, tuple[Mapping[str, Any], ...]] = {}
    postgresql_unit: str = "postgresql"  # the unit PostgreSQL runs as (rh-postgresql12-postgresql: the SCL's on RHEL 7)
    # the Foreman-stack units systemctl show lists (service_limits' "active"); None when the source lists none
    units_listed: frozenset[str] | None = None


def postgresql_unit(files: Iterable[tuple[str, str]], units: Iterable[str] = ()) -> str:
    """The systemd unit of the PostgreSQL the facts read: the SCL's (``rh-postgresql12-postgresql``, whose data
    directory is /var/opt/rh/rh-postgresql12/lib/pgsql/data: Satellite 6.8-6.10 on RHEL 7) when its postgresql.conf is
    the one read, or, without a data directory in the source, when the source lists that unit; else ``postgresql``.

    >>> postgresql_unit([("var/opt/rh/rh-postgresql12/lib/pgsql/data/postgresql.conf", "")])
    'rh-postgresql12-postgresql'
    >>> postgresql_unit([("var/lib/pgsql/data/postgresql.conf", "")], ["rh-postgresql12-postgresql.service"])
    'postgresql'
    >>> postgresql_unit([], ["postgresql.service", "rh-postgresql12-postgresql.service"])
    'rh-postgresql12-postgresql'
    """
    locations = [location for location, _ in files if "/pgsql/" in f"/{location}"]  # not SHOW ALL's (live)
    for location in locations:
        scl = re.search(r"(?:^|/)var/opt/rh/(rh-postgresql\d+)/lib/pgsql/", location)
        if scl:
            return f"{scl.group(1)}-postgresql"
    if locations:
        return "postgresql"
    return next((m.group(1) for unit in sorted(units) if (m := re.fullmatch(r"(rh-postgresql\d+-postgresql)\.service", unit))),
                "postgresql")


def host_of(facts: Any) -> Host:
    """The :class:`Host` of a :class:`~foretune.facts.model.FactSet` (a Host is returned as it is; None: empty)."""
    if facts is None:
        return Host()
    if isinstance(facts, Host):
        return facts
    hiera = facts.value("custom_hiera")
    pg = facts.get("postgresql")
    puma = facts.get("puma")
    limits = facts.get("service_limits")
    version = str(facts.value("postgresql_version") or "")
    major = version.split(".")[0] if version and not version.startswith("9.") else ".".join(version.split(".")[:2])
    return Host(custom_hiera=flatten(hiera) if isinstance(hiera, dict) else {},
                postgresql_files=tuple((p.location, p.excerpt) for p in pg.provenance) if pg is not None and pg.known else (),
                postgresql_version=major or None,
                puma_files=tuple((p.location, p.excerpt.replace(" | ", "\n")) for p in puma.provenance)
                if puma is not None and puma.known else (),
                limit_files=tuple((p.location, p.excerpt) for p in limits.provenance if ".service.d/" in p.location)
                if limits is not None and limits.known else (),
                tuning_profile=facts.value("tuning_profile"),
                postgresql_sources={str(k): tuple(str(f) for f in v) for k, v in (facts.value("postgresql_sources") or {}).items()
                                    if isinstance(v, list)},
                postgresql_values={str(k): str(v) for k, v in (facts.value("postgresql") or {}).items()},
                swap_used=(facts.value("swap") or {}).get("used_bytes"), swap_total=(facts.value("swap") or {}).get("total_bytes"),
                mem_available=(facts.value("memory_pressure") or {}).get("available_bytes"), ram=facts.value("ram_bytes"),
                # what runs: pumactl stats, else what systemd runs foreman.service with, else the drop-in or defaults
                puma_workers=(facts.value("puma_stats") or {}).get("workers") or (facts.value("puma_loaded") or {}).get("workers")
                or (facts.value("puma") or {}).get("workers"),
                directive_lines=tuple((p.location, line) for name in ("passenger", "apache") if (f := facts.get(name)) is not None
                                      and f.known for p in f.provenance for line in p.excerpt.split(" | ")),
                httpd_includes={str(k): tuple(v) for k, v in (facts.value("httpd_includes") or {}).items() if isinstance(v, list)},
                postgresql_unit=postgresql_unit([(p.location, p.excerpt) for p in pg.provenance] if pg is not None and pg.known
                                                else [], (facts.value("service_limits") or {}).keys()),
                units_listed=frozenset(u.removesuffix(".service") for u, e in (facts.value("service_limits") or {}).items()
                                       if isinstance(e, dict) and e.get("active") is not None) or None)


def installer_option(key: str) -> str | None:
    """The installer option for a hiera key of an installer-managed module, else None.

    >>> installer_option("foreman::foreman_service_puma_workers")
    '--foreman-foreman-service-puma-workers'
    >>> installer_option("apache::mod::event::serverlimit") is None
    True
    """
    module, _, param = key.rpartition("::")
    if not module or module.split("::")[0] not in INSTALLER_MODULES:
        return None
    return "--" + f"{module}::{param}".replace("::", "-").replace("_", "-")


def fix_key(fix: Fix) -> str:
    """Where a fix puts its value: its target, and for a file edit the directive it sets, since one file carries
    several (Satellite 6.2's edits).

    >>> fix_key(Fix("file", "/etc/qpid/qpidd.conf", "mgmt-pub-interval=5"))
    '/etc/qpid/qpidd.conf:mgmt-pub-interval'
    >>> fix_key(Fix("file", "/var/lib/pgsql/data/postgresql.conf", "shared_buffers = 4992MB"))
    '/var/lib/pgsql/data/postgresql.conf:shared_buffers'
    >>> fix_key(Fix("hiera", "foreman::db_pool", 20))
    'foreman::db_pool'
    """
    found = re.match(r"\s*([\w.:-]+?)\s*(?:=|\s)", str(fix.value)) if fix.kind == "file" else None
    return f"{fix.target}:{found.group(1)}" if found else fix.target


def installer_program(plan: Plan) -> str:
    """The installer and, for a Capsule, its scenario."""
    capsule = plan.input.role == "capsule"
    if plan.release.product == "satellite":
        return "satellite-installer" + (" --scenario capsule" if capsule else "")
    return "foreman-installer" + (" --scenario foreman-proxy-content" if capsule and plan.input.katello else "")


def _restarts() -> dict[str, str]:
    """The service to restart after a hand edit of each file ("" when a client reads the file)."""
    data = load_data("direct-edits.yaml")
    restarts: dict[str, str] = {str(e[key]): str(e["restart"]) for name, e in data.items() if not name.startswith("_")
                                for key in ("file", "capsule_file") if key in e}
    return {**restarts, **{str(path): str(unit) for path, unit in data["_restart_after_edit"].items()}}


def lowers_site_value(change: Change) -> bool:
    """Whether ``change`` sets a value below the one the site set (only ever said, never silent)."""
    here, ours = _number(change.site_value), _number(change.value)
    return change.op == "set" and here is not None and ours is not None and ours < here


def _number(value: Any) -> float | None:
    """A value as a number to compare a site's with foretune's (sizes as bytes), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and re.fullmatch(r"\d+(\.\d+)?\s*[kKmMgGtT]?B", value.strip()):
        try:
            return float(parse_size(value.strip()))
        except ValueError:
            return None
    return None


def _pg_number(text: str) -> float | None:
    """A PostgreSQL setting's value as a number ("'200'" -> 200, "8MB" -> bytes), or None.

    >>> _pg_number(" '200'"), _pg_number("8MB") == 8 * 1024**2, _pg_number("on")
    (200.0, True, None)
    """
    value = text.strip().strip("'\"").strip()
    try:
        return float(value)
    except ValueError:
        return _number(value)


# directives a vhost may set for itself, over the server-wide value (httpd-vhost-overrides); the MPM's and Passenger's
# pool directives are server-wide only
VHOST_DIRECTIVES = frozenset({"KeepAlive", "KeepAliveTimeout", "MaxKeepAliveRequests", "PassengerMaxRequestQueueSize",
                              "PassengerMinInstances", "PassengerMaxRequests", "PassengerMaxPreloaderIdleTime",
                              "PassengerStartTimeout", "PassengerMaxInstancesPerApp"})
# hammer reads root's ~/.hammer after /etc/hammer (hammer-cli settings.rb; pf-cli-request-timeout)
HAMMER_FILE = "/etc/hammer/cli.modules.d/foreman.yml"
HAMMER_ROOT_FILE = "/root/.hammer/cli.modules.d/foreman.yml"
TOMCAT_SERVER_XML = "/etc/tomcat/server.xml"  # Candlepin's Tomcat (candlepin-tomcat-threads): edited by hand


class _Builder:
    """Collects changes for one plan and host, one per tunable, in the order they arrive (plan or audit)."""

    def __init__(self, plan: Plan, host: Host) -> None:
        self.plan = plan
        self.host = host
        self.release = plan.release
        self.changes: dict[str, Change] = {}
        self.blocked: list[Blocked] = []
        self.commands: list[str] = []
        self.advice: list[tuple[str, str]] = []
        self.given: list[tuple[str, Any, str]] = []
        self.by_target = {fix_key(fix): t.id for t in plan.tunables.values() for fix in t.fixes}
        fv = self.release.foreman_version
        self.installer_table = table("installer", fv)
        self.apache_table = table("apache", fv)
        self.systemd_table = table("systemd", fv)
        self.memory_problem = next((p for p in plan.problems if p.code == "memory-over-ram"), None)
        self.profile_refused = next((p for p in plan.problems if p.code == "installer-will-refuse"), None)
        self.restarts = _restarts()
        self.lower: set[str] = set()  # audit rules whose measured failure may lower a site value (said in the change)
        self.lower_site = False  # --prefer foretune: every site value may be lowered (said in the change)
        self.shortage: str | None = None  # what the source measures when the box is short of memory now (plan's set)
        self.profile_keys = {key for size in SIZES for key in flatten(installer_hiera(self.release, size))} \
            if self.release.features.size_profiles else set()
        # what --tuning at the plan's profile writes (empty for a release or role without size profiles)
        self.profile_values = flatten(installer_hiera(self.release, plan.profile)) \
            if self.release.features.size_profiles and plan.profile in SIZES and plan.input.role == "server" else {}

    # -- adding -------------------------------------------------------------------------------
    def add(self, change: Change) -> None:
        """One value per tunable: the first change of a tunable stands (the plan's, then the audit's)."""
        if change.tunable not in self.changes:
            self.changes[change.tunable] = change

    def block(self, change: Change, why: str, citations: Sequence[str] = ()) -> None:
        if not any(b.change.tunable == change.tunable for b in self.blocked):
            self.blocked.append(Blocked(change, why, tuple(citations)))

    def profile(self, profile: str, source: str = "plan") -> None:
        """The profile change (``--tuning``): first in the set; blocked when the installer's hardware check refuses it."""
        change = Change("profile", "profile", "--tuning", profile, effect="installer-run", source=source,
                        site_value=self.host.tuning_profile, reason=self.plan.profile_reason,
                        citations=("fi-tuning-profiles",))
        if self.profile_refused is not None and profile == self.plan.profile:
            self.block(change, self.profile_refused.message, self.profile_refused.citations)
            return
        self.add(change)

    def fix(self, tunable: str, fix: Fix, reason: str, citations: Sequence[str], source: str = "plan") -> None:
        """One plan :class:`Fix` as a change (or a command, advice, or a blocked change)."""
        cites = tuple(citations)
        if fix.kind == "hiera":
            self._hiera(tunable, fix.target, fix.value, reason, cites, source)
        elif fix.kind == "installer":
            self.add(Change(tunable, "installer", fix.target, fix.value, reason=reason, citations=cites, source=source))
        elif fix.kind == "limit":
            self._limit(tunable, fix, reason, cites, source)
        elif fix.kind == "sysctl":
            self.add(Change(tunable, "sysctl", fix.target, fix.value, effect="sysctl-reload", file=SYSCTL_FILE,
                            reason=reason, citations=cites, source=source))
        elif fix.kind == "file":
            fix, overrides = self._httpd_read(fix)
            site = self._site_file_value(fix)
            unit = self.restarts.get(fix.target, "")
            if site is not None:
                self.block(Change(tunable, "file", fix.target, str(fix.value), file=fix.target, reason=reason,
                                  citations=cites, source=source, site_value=site),
                           f"{fix.target} sets {site}, above foretune's {fix.value}: the site's value is kept "
                           "(never lowered silently)")
                return
            self.add(Change(tunable, "file", fix.target, str(fix.value), effect="restart" if unit else "immediate",
                            units=(unit,) if unit else (), file=fix.target.removesuffix(" on each agent"),
                            reason=f"{reason}; {overrides[1]}" if overrides else reason,
                            overrides=overrides[:1] if "wins" in "".join(overrides[1:]) else (),
                            citations=(*cites, str(self.apache_table["citation"])) if overrides else cites, source=source))
        elif fix.kind == "command":
            self._command(tunable, str(fix.target), reason, cites, source)
        elif fix.kind == "advice" and fix.target == HIERA_FILE and "stale keys" in str(fix.value) \
                and self.release.features.custom_hiera:
            pass  # the set removes every stale key itself (``stale``), before the installer run
        elif fix.kind == "advice" and (fix.target, str(fix.value)) not in self.advice:
            self.advice.append((fix.target, str(fix.value)))
            refused = re.match(r"add hardware .*--tuning (\S+)$", str(fix.value))
            if refused:  # the profile the hosts need, which the installer's hardware check refuses on this box
                self.block(Change("profile", "profile", "--tuning", refused.group(1), source=source,
                                  site_value=self.host.tuning_profile),
                           f"the installer's hardware check refuses --tuning {refused.group(1)} here: {fix.value}",
                           ("fi-tuning-hook",))

    def _httpd_read(self, fix: Fix) -> tuple[Fix, tuple[str, ...]]:
        """``fix`` moved to the file httpd takes it from, with (the file it would have gone to, why) when moved: an
        edit of a vhost's include directory (05-foreman-ssl.d/katello.conf, the 6.2 brief's) goes into the vhost when
        the vhost does not include that directory or sets the directive itself after the include."""
        words = str(fix.value).split()
        directive = words[0] if words else ""
        # the brief's file for the directive (the plan made from the same facts moved it to the vhost already)
        brief = next((str(e["file"]) for e in load_data("direct-edits.yaml").values() if isinstance(e, dict)
                      and str(e.get("line", "")).split(" ")[0] == directive and ".d/" in str(e.get("file", ""))), fix.target)
        target, why = httpd_edit_target(brief if brief.startswith(fix.target.removesuffix(".conf") + ".d/") else fix.target,
                                        directive, self.host.httpd_includes)
        if not why:
            return fix, ()
        return fix._replace(target=target), (brief, why)

    def _site_file_value(self, fix: Fix) -> str | None:
        """The line of a file edit's setting the host already has, when its number is above the edit's (read from
        the PostgreSQL files the facts hold: Satellite 6.2 edits postgresql.conf by hand), else None."""
        if not fix.target.endswith("/postgresql.conf"):
            return self._site_directive(fix)
        name, _, ours = str(fix.value).partition("=")
        found = None
        for location, text in self.host.postgresql_files:
            if location.endswith("postgresql.conf"):
                for line in re.split(r"\n| \| ", text):  # the facts' excerpts join lines with " | "
                    key, sep, value = line.split("#", 1)[0].partition("=")
                    if sep and key.strip() == name.strip():
                        found = (line.strip(), value)
        if found is None:
            return None
        theirs, wanted = _pg_number(found[1]), _pg_number(ours)
        return found[0] if theirs is not None and wanted is not None and theirs > wanted else None

    def _site_directive(self, fix: Fix) -> str | None:
        """The ``Directive value`` line an Apache or Passenger file edit's file already has, when its number is above
        the edit's (0 is no limit for the directives where it means that), as ``apply`` keeps it; else None."""
        words = str(fix.value).split()
        if len(words) != 2:
            return None
        found = None
        for location, line in self.host.directive_lines:
            parts = line.split()
            if "/" + location.lstrip("/") == fix.target and len(parts) == 2 and parts[0] == words[0]:
                found = line.strip()
        if found is None:
            return None
        theirs, ours = (float(v) if re.fullmatch(r"\d+", v) else None for v in (found.split()[1], words[1]))
        if words[0] in ZERO_IS_UNLIMITED:  # 0: no limit (never shut down, no cap), above any other number
            theirs, ours = (float("inf") if v == 0 else v for v in (theirs, ours))
        return found if theirs is not None and ours is not None and theirs > ours else None

    def _limit(self, tunable: str, fix: Fix, reason: str, cites: tuple[str, ...], source: str) -> None:
        """A LimitNOFILE drop-in (``limits.conf``); a drop-in of the unit read after it that sets a lower limit is
        moved away first, one that sets a higher limit is the site's and is kept."""
        unit = f"{fix.target}.service"
        change = Change(tunable, "dropin", f"{unit}:LimitNOFILE", fix.value, effect="daemon-reload", units=(fix.target,),
                        file=f"/etc/systemd/system/{unit}.d/{LIMITS_DROPIN}", reason=reason, citations=cites, source=source)
        shadows = systemd_shadows(unit, "LimitNOFILE", self.host.limit_files, owned=LIMITS_DROPIN)

        def higher(line: str) -> bool:  # the site's limit at or above foretune's
            text = line.rsplit("=", 1)[-1].rsplit(":", 1)[-1].strip()  # "soft:hard" -> the hard limit
            theirs, ours = (int(text) if text.isdigit() else None), _number(fix.value)
            return text == "infinity" or (theirs is not None and ours is not None and theirs >= ours)

        if shadows and higher(shadows[-1].line):  # the limit in force is the site's, above foretune's
            shadow = shadows[-1]
            self.block(change._replace(site_value=shadow.line), f"{shadow.location} sets {shadow.line}, read after "
                       f"{LIMITS_DROPIN}: the site's limit is kept (never lowered silently)", shadow.citations)
            return
        for shadow in shadows:  # every drop-in read after limits.conf with a lower limit goes (or is hidden)
            if not higher(shadow.line):
                self._remove_dropin(unit, "/" + shadow.location.lstrip("/"), shadow.line, source, "LimitNOFILE")
        self.add(change)

    def _command(self, tunable: str, command: str, reason: str, cites: tuple[str, ...], source: str) -> None:
        reset = re.search(r"ALTER SYSTEM RESET (\w+);", command)
        # the audit's command that takes a drop-in's shadowing lines out (precedence.dropin_unshadow_command)
        removed = (re.fullmatch(r"cp -p (/etc/systemd/system/([^/]+)\.d/[^ ]+) /root/\S+ && sed -i .* && systemctl daemon-reload",
                                command)
                   or re.fullmatch(r"mkdir -p \S+ && sed .* (/\S+/([^/]+)\.d/[^ ]+) > /etc/\S+ && systemctl daemon-reload", command))
        tuning = re.search(r"--tuning (\S+)$", command)
        include = re.fullmatch(r"sed -i '/\^\[\[:space:\]\]\*(\w+)\[\[:space:\]\]\*=/d' /\S+", command)
        if include:  # the audit's removal of a line a file postgresql.conf includes sets (audit.effect): a file edit
            self._unshadow_include(include.group(1), source)
        elif reset:
            self._reset(reset.group(1), source)
        elif removed:
            unit, path = removed.group(2), removed.group(1)
            key, files, owned = (("Environment", self.host.puma_files, INSTALLER_DROPIN) if unit == "foreman.service"
                                 else ("LimitNOFILE", self.host.limit_files, LIMITS_DROPIN))
            line = next((sh.line for sh in systemd_shadows(unit, key, files, owned=owned)
                         if "/" + sh.location.lstrip("/") == path), "")
            self._remove_dropin(unit, path, line, source, key)
        elif tuning and not command.startswith("add hardware"):
            self.profile(tuning.group(1), source)
        elif tunable == "os.tuned_profile" and command.startswith("tuned-adm profile "):
            self.add(Change(tunable, "tuned", "profile", command.split()[-1], effect="tuned-adm", file="/etc/tuned/active_profile",
                            reason=reason, citations=cites, source=source))
        elif tunable == "os.tuned_profile":
            pass  # `systemctl enable --now tuned` is part of the tuned step
        elif command in (PG_RESTART, pg_restart(self.host.postgresql_unit)):
            pass  # a finding's restart after ALTER SYSTEM RESET: the reset's change carries it (effect "restart")
        elif command == "systemctl restart foreman" and any(c.channel == "dropin" and c.op == "remove"
                                                            for c in self.changes.values()):
            pass  # puma-dropin-override's restart after the installer run: the drop-in's removal step carries it
        elif command not in self.commands:
            self.commands.append(command)

    def _hiera(self, tunable: str, key: str, value: Any, reason: str, cites: tuple[str, ...], source: str) -> None:
        if not self.release.features.custom_hiera:  # Satellite 6.2: the plan gives file edits; an installer option stays one
            option = installer_option(key)
            if option:
                self.add(Change(tunable, "installer", option, value, reason=reason, citations=cites, source=source))
            else:
                self.block(Change(tunable, "custom-hiera", key, value, reason=reason, citations=cites, source=source),
                           f"{self.release.label} reads no custom-hiera.yaml and has no installer option for {key}",
                           (str(self.installer_table["citation"]),))
            return
        overrides: tuple[str, ...] = ()
        if (key.startswith(("apache::keepalive", "apache::max_keepalive")) and self.release.features.foreman_vhost_keepalive
                and self.plan.input.role == "server"):
            # the Foreman vhost sets its own KeepAlive directives, which win over the server-wide ones
            key = "foreman::" + key.split("::", 1)[1]
            value = value in (True, "On", "on", "true") if key.rsplit("::", 1)[1] == "keepalive" else value
            overrides = ("apache:: (server-wide, below the Foreman vhost)",)
            cites = (*cites, str(self.apache_table["citation"]), "pf-keepalive")
        from foretune.knowledge.hiera_keys import (
            stale_keys,  # start-up: its dataclasses load only when a change is built
        )

        stale = stale_keys(self.release, _nest({key: value}))
        option = installer_option(key) if not key.startswith(PG + "/") else None
        channel = "installer" if option and "answers" in self.installer_table["order"] else "custom-hiera"
        change = Change(tunable, channel, option if option and channel == "installer" else key, value,
                        file="" if channel == "installer" else HIERA_FILE, reason=reason, citations=cites, source=source,
                        overrides=overrides or (("answers", "profile") if channel == "custom-hiera" else ("profile",)))
        if stale:
            self.block(change, f"{key}: {stale[0].reason}: {self.release.label}'s modules have no such key", (stale[0].citation,))
            return
        site = self.host.custom_hiera.get(key)
        if key in self.host.custom_hiera and key in self.profile_values and str(self.profile_values[key]) == str(value):
            # the site pins a key the profile sets, and the profile's value is the one wanted: the fix is removing the
            # pin (pinned again, the key would lock out every later --tuning change)
            self.add(Change(tunable, "custom-hiera", key, None, op="remove", file=HIERA_FILE, source=source, site_value=site,
                            reason=f"custom-hiera.yaml pins {key}: {site}; the {self.plan.profile} profile gives {value}, "
                                   "which the installer run writes once the pin is gone",
                            citations=(*cites, str(self.installer_table["citation"]))))
            if (key, value, self.plan.profile) not in self.given:
                self.given.append((key, value, self.plan.profile))
            return
        if key in self.host.custom_hiera:
            here, ours = _number(site), _number(value)
            lowered = here is not None and ours is not None and here > ours
            if lowered and not self.lower_site and source not in self.lower:
                self.block(change._replace(site_value=site), f"custom-hiera.yaml sets {key}: {site}, above foretune's {value}: "
                           "the site's value is kept (never lowered silently)")
                return
            if lowered and source in self.lower:  # a measured critical failure asks for it: lowered, and said so
                change = change._replace(reason=f"the critical finding {source} asks for it{': ' + reason if reason else ''}")
            elif lowered:
                change = change._replace(reason=f"lowers the site's {site} as asked (--prefer foretune){': ' + reason if reason else ''}")
            if channel == "installer":  # custom-hiera wins over the installer option: the key goes, the option stays
                self.add(Change(f"unshadow:{key}", "custom-hiera", key, None, op="remove", file=HIERA_FILE,
                                reason=f"custom-hiera.yaml sets {key}: {site}, which wins over {option}",
                                citations=(str(self.installer_table["citation"]),), source=source, site_value=site))
            change = change._replace(site_value=site)
        else:
            t = self.plan.tunables.get(tunable)
            if t is not None and t.installer.origin:  # the site set it in the answers file: say what it replaces
                change = change._replace(site_value=t.installer.value)
        shadow_env = systemd_shadow("foreman.service", "Environment", self.host.puma_files, owned=INSTALLER_DROPIN) \
            if key in PUMA_ENV or (option or "") in {installer_option(k) for k in PUMA_ENV} else None
        variable = PUMA_ENV.get(key) or next((v for k, v in PUMA_ENV.items() if installer_option(k) == option), None)
        in_force = re.search(rf"\b{variable}=(\d+)", shadow_env.line) if shadow_env is not None and variable else None
        if in_force and shadow_env is not None:  # the drop-in the set removes gives the value in force, not the answers
            before = change.site_value
            change = change._replace(site_value=int(in_force.group(1)), reason=change.reason + (
                f" ({posixpath.basename(shadow_env.location)} keeps {in_force.group(1)} in force; the {before} set "
                "for the installer never took effect)" if before is not None and str(before) != in_force.group(1) else ""))
        short = self.short_of_memory(value) if tunable == "puma.workers" else ""
        if short:
            self.block(change, short, ("gf-puma-autotuning", "g62-memory"))
            return
        if self.shortage and tunable in SHORTAGE_HOLDS and self._raises(tunable, value):
            self.block(change, f"the box measures {self.shortage}: no {tunable} raise while it is short of memory now; "
                               "free or add memory first (the audit's memory-budget-over-ram names what holds it)",
                       ("g62-memory", "gf-puma-autotuning"))
            return
        if tunable in MEMORY_TUNABLES and self.memory_problem is not None and self._raises(tunable, value):
            self.block(change, f"the memory budget after the changes does not fit: {self.memory_problem.message}",
                       self.memory_problem.citations)
            return
        if key.startswith(PG + "/") and not self.lower_site and source not in self.lower:
            shadow = postgresql_shadow(key.split("/", 1)[1], self.host.postgresql_files, self.host.postgresql_version)
            theirs, ours = (_pg_number(shadow.line.split("=", 1)[-1]) if shadow is not None else None), _pg_number(str(value))
            if shadow is not None and theirs is not None and ours is not None and theirs > ours:
                site = shadow.line.split("=", 1)[-1].strip().strip("'")
                reset = self.changes.get(f"reset:postgresql:{key.split('/', 1)[1]}")
                if reset is None or reset.source != source or source == "plan":
                    # ALTER SYSTEM's value is the site's, above foretune's: kept, not reset and replaced in silence
                    self.block(change._replace(site_value=site),
                               f"postgresql.auto.conf sets {shadow.line} (ALTER SYSTEM), above foretune's {value}: the "
                               "site's value is kept (never lowered silently)", shadow.citations)
                    return
                # the finding judged ALTER SYSTEM's value itself and asks for both its reset and this value: carried
                # out whole, and said, never the reset alone (which would leave postgresql.conf's value in force)
                change = change._replace(site_value=site, reason=f"the {source} finding asks for it, with the reset of "
                                                                 f"postgresql.auto.conf's {shadow.line}: {reason}")
        self.add(change)
        if key.startswith(PG + "/"):
            setting = key.split("/", 1)[1]
            shadow = postgresql_shadow(setting, self.host.postgresql_files, self.host.postgresql_version)
            if shadow is not None:
                self._reset(setting, source, shadow.line, shadow.citations)
            self._unshadow_include(setting, source)
        if key.startswith(PUMA_TARGETS) or (option or "").startswith(PUMA_TARGETS):
            for shadow in systemd_shadows("foreman.service", "Environment", self.host.puma_files, owned=INSTALLER_DROPIN):
                self._remove_dropin("foreman.service", "/" + shadow.location.lstrip("/"), shadow.line, source)
            self._unshadow_environment_files(source)

    def _unshadow_environment_files(self, source: str) -> None:
        """A file a foreman.service EnvironmentFile= line names that sets FOREMAN_PUMA_*: its variables win over the
        installer's Environment= lines wherever each stands (systemd-environment-file), so its Puma lines go (the
        site's other variables there stay)."""
        for location, text in self.host.puma_files:
            if ".service" in location:
                continue  # a unit file or drop-in: systemd_shadows' part
            path = "/" + location.lstrip("/")
            for line in text.replace(" | ", "\n").splitlines():
                found = re.match(r"\s*(FOREMAN_PUMA_\w+)\s*=\s*(\S*)", line)
                if found is None:
                    continue
                self.add(Change(f"unshadow:{path}:{found.group(1)}", "file", path, line.strip(), op="remove",
                                effect="restart", units=("foreman",), file=path, source=source, site_value=found.group(2),
                                reason=f"{path}, which a foreman.service EnvironmentFile= line reads, sets {line.strip()}: "
                                       "EnvironmentFile= wins over the installer's Environment= in installer.conf",
                                citations=(str(self.systemd_table.get("environment_file_citation") or "systemd-environment-file"),)))

    def short_of_memory(self, workers: Any) -> str:
        """Why more Puma workers than run now must wait ("" when they need not): the box swaps and has less memory
        available than the swap tolerance allows (the swap-in-use rule's measure), and each worker takes about 1 GiB
        (gf-puma-autotuning, "Each Puma worker consumes around 1 GiB of RAM.")."""
        from foretune.knowledge import threshold  # start-up: only when a worker raise is checked
        from foretune.plan.constants import const  # start-up: only when a worker raise is checked
        from foretune.units import format_gib  # start-up: only when a worker raise is checked

        h = self.host
        wanted = _number(workers)
        if wanted is None or h.puma_workers is None or wanted <= h.puma_workers:
            return ""
        if (h.swap_used or 0) <= threshold("swap_used_tolerance_bytes"):
            return ""
        if h.mem_available is not None and h.ram and h.mem_available >= threshold("memory_available_min_fraction") * h.ram:
            return ""  # pages parked by an earlier peak: memory is there now
        more = int(wanted) - h.puma_workers
        per = float(const("puma_ram_per_worker_gib"))
        now = (f"only {format_gib(h.mem_available)} of {format_gib(h.ram)} available" if h.mem_available is not None and h.ram
               else "available memory not in the source")
        return (f"the box swaps now ({format_gib(h.swap_used or 0)} of {format_gib(h.swap_total or 0)} swap in use, {now}): "
                f"{h.puma_workers} -> {int(wanted)} Puma workers needs about {more * per:g} GiB more (the guide: \"Each Puma "
                f"worker consumes around {per:g} GiB of RAM.\"); free memory first, then raise the workers")

    def _raises(self, tunable: str, value: Any) -> bool:
        """``value`` is above what the installer gives for ``tunable`` (a change that needs more memory)."""
        t = self.plan.tunables.get(tunable)
        ours = _number(value) if not isinstance(value, str) or not value.startswith("-X") else None
        before = _number(t.installer.value) if t is not None else None
        if t is not None and t.unit == "bytes" and isinstance(t.foretune.value, int):
            ours = float(t.foretune.value)
        return ours is not None and (before is None or ours > before)

    def _reset(self, setting: str, source: str, line: str = "", citations: Sequence[str] = ()) -> None:
        entry = table("postgresql", self.host.postgresql_version)
        if not line:
            shadow = postgresql_shadow(setting, self.host.postgresql_files, self.host.postgresql_version)
            line = shadow.line if shadow is not None else ""
        cites = tuple(citations) or (str(entry["citation"]), str(entry.get("undo_citation", "")))
        restart = setting in (entry.get("restart_settings") or ())  # read only at start (pg-conf-restart); else a reload
        self.add(Change(f"reset:postgresql:{setting}", "alter-system", setting, None, op="reset",
                        effect="restart" if restart else "immediate", units=(self.host.postgresql_unit,) if restart else (),
                        file=f"{self.pg_data_dir()}/postgresql.auto.conf",
                        reason=(f"postgresql.auto.conf sets {line} (ALTER SYSTEM), which wins over postgresql.conf" if line
                                else f"postgresql.auto.conf (ALTER SYSTEM) sets {setting}, which wins over postgresql.conf"),
                        citations=tuple(c for c in cites if c), source=source))

    def _remove_dropin(self, unit: str, path: str, line: str, source: str, directive: str = "Environment") -> None:
        after = INSTALLER_DROPIN if directive == "Environment" else LIMITS_DROPIN
        # the lines that go (apply and the audit's command take only those out: unshadowed_line)
        gone = " | ".join(part for part in line.split(" | ") if part and unshadowed_line(part, unit) != part)
        reason = (f"{posixpath.basename(path)} is read after {after} and sets "
                  f"{gone or 'what the installer sets'}, whatever the installer is told: "
                  f"{'that line goes' if gone and ' | ' not in gone else 'those lines go'}, the site's other settings "
                  "there stay (a file left with no setting goes)")
        cites: tuple[str, ...] = (str(self.systemd_table["citation"]),)
        overrides: tuple[str, ...] = ()
        if not path.startswith("/etc/"):  # /usr/lib (the package's) or /run (runtime): hidden by the same name in /etc
            overrides, path = (path,), f"/etc/systemd/system/{unit}.d/{posixpath.basename(path)}"
            owner = "the runtime file" if path.startswith("/run/") else "the package's file"
            reason += (f"; a drop-in of the same name in /etc/systemd/system/{unit}.d hides it ({owner} "
                       "stays as it is), with the rest of its settings")
            cites += (str(self.systemd_table.get("dropin_dirs_citation") or "systemd-dropin-dirs"),)
        self.add(Change(f"remove:dropin:{overrides[0] if overrides else path}", "dropin", f"{unit}:{posixpath.basename(path)}",
                        None, op="remove", effect="daemon-reload", units=(unit.removesuffix(".service"),), file=path,
                        overrides=overrides, reason=reason, citations=cites, source=source, site_value=gone or None))

    def _unshadow_include(self, setting: str, source: str) -> None:
        """A file postgresql.conf includes that sets ``setting`` after postgresql.conf's own line wins over the value
        the installer writes: its line goes (the site's other settings there stay)."""
        shadow = postgresql_include_shadow(setting, self.host.postgresql_sources, self.host.postgresql_values.get(setting),
                                           self.host.postgresql_version)
        if shadow is None:
            return
        path = "/" + shadow.location.lstrip("/")
        restart = setting in (table("postgresql", self.host.postgresql_version).get("restart_settings") or ())
        self.add(Change(f"unshadow:{path}:{setting}", "file", path, shadow.line, op="remove",
                        effect="restart" if restart else "immediate", units=(self.host.postgresql_unit,), file=path, source=source,
                        site_value=self.host.postgresql_values.get(setting),
                        reason=f"{posixpath.basename(path)}, which postgresql.conf includes, sets {shadow.line} after "
                               "postgresql.conf's own line: the last entry wins, so the installer's value never takes effect",
                        citations=shadow.citations))

    def unshadow_postgresql(self, only: Iterable[str] | None = None) -> None:
        """A postgresql.auto.conf line (ALTER SYSTEM) below the value the plan puts in postgresql.conf is reset,
        whether or not the set changes that value: the profile's (or the installer's) value never takes effect
        while ALTER SYSTEM's stands. A line above it is the site's, kept (never lowered silently). ``only``: the
        settings to look at (an audit's set: those its changes write), None for all."""
        wanted = None if only is None else set(only)
        for t in self.plan.tunables.values():
            if not t.id.startswith("postgresql.") or t.foretune.value is None:
                continue
            setting = t.id.split(".", 1)[1]
            if wanted is not None and setting not in wanted:
                continue
            include = postgresql_include_shadow(setting, self.host.postgresql_sources, self.host.postgresql_values.get(setting),
                                                self.host.postgresql_version)
            if include is not None and not any(c.tunable.endswith(f":{setting}") and c.tunable.startswith("unshadow:/")
                                               for c in self.changes.values()):
                theirs = _pg_number(str(self.host.postgresql_values.get(setting, "")))
                ours = _pg_number(str(t.foretune.value))
                if theirs is None or ours is None or theirs < ours:  # a higher site value is kept (never lowered silently)
                    self._unshadow_include(setting, "plan")
            if f"reset:postgresql:{setting}" in self.changes:
                continue
            shadow = postgresql_shadow(setting, self.host.postgresql_files, self.host.postgresql_version)
            if shadow is None:
                continue
            theirs = _pg_number(shadow.line.split("=", 1)[-1])
            ours = _pg_number(str(t.foretune.value))
            if theirs is not None and ours is not None and theirs > ours and t.id not in self.changes:
                # the site's ALTER SYSTEM value above foretune's: kept, and said
                self.block(Change(t.id, "alter-system", setting, t.foretune.value, op="set", source="plan",
                                  site_value=shadow.line.split("=", 1)[-1].strip().strip("'")),
                           f"postgresql.auto.conf sets {shadow.line} (ALTER SYSTEM), above foretune's {t.foretune.value}: "
                           "the site's value is kept (never lowered silently)", shadow.citations)
            if theirs is not None and ours is not None and theirs >= ours:
                continue
            self._reset(setting, "plan", shadow.line, shadow.citations)

    def pg_data_dir(self) -> str:
        """PostgreSQL's data directory as the facts read it (the SCL's on RHEL 7: /var/opt/rh/rh-postgresql12/lib/pgsql/data)."""
        first = next((loc for loc, _ in self.host.postgresql_files if posixpath.basename(loc) == "postgresql.conf"), None)
        return "/" + posixpath.dirname(first).lstrip("/") if first else "/var/lib/pgsql/data"

    def pg_version(self) -> str | None:
        """The PostgreSQL major in force: the facts', else the release's (12 from Foreman 2.0 on, 9.2 before)."""
        from foretune.knowledge.releases import version_key  # start-up: only when a change set is built

        return self.host.postgresql_version or ("12" if version_key(self.release.foreman_version) >= (2, 0) else None)

    def stale_postgresql(self) -> None:
        """Every line of a PostgreSQL file (postgresql.conf, an included file, postgresql.auto.conf) that sets a
        setting the PostgreSQL in force no longer knows goes: the server refuses to start with it. Not through
        ALTER SYSTEM RESET, which refuses an unknown name too; nor through the installer, which leaves a line it no
        longer manages in place."""
        version = self.pg_version()
        for name, cite in removed_settings(version).items():
            for location in dict.fromkeys(self.host.postgresql_sources.get(name) or ()):
                path = "/" + location.lstrip("/")
                value = self.host.postgresql_values.get(name, "")
                line = f"{name} = '{value}'" if path.endswith("postgresql.auto.conf") else f"{name} = {value}"
                how = ("ALTER SYSTEM RESET refuses a name PostgreSQL does not know, so the line is taken out of the file"
                       if path.endswith("postgresql.auto.conf") else "the installer leaves a line it no longer manages in place")
                self.add(Change(f"stale:{path}:{name}", "file", path, line, op="remove", effect="restart",
                                units=(self.host.postgresql_unit,), file=path, source="stale", site_value=value,
                                reason=f"{posixpath.basename(path)} sets {line}: PostgreSQL {version} no longer knows "
                                       f"{name} and refuses to start with it; {how}",
                                citations=(cite, "fi-checkpoint-segments-removed")))

    def stale(self) -> None:
        """Every custom-hiera.yaml key the release refuses or ignores becomes a ``remove`` change."""
        self.stale_postgresql()
        if not self.release.features.custom_hiera:
            return
        from foretune.knowledge.hiera_keys import (
            stale_keys,  # start-up: its dataclasses load only when a change is built
        )

        for note in stale_keys(self.release, _nest(dict(self.host.custom_hiera))):
            self.add(Change(f"stale:{note.key}", "custom-hiera", note.key, None, op="remove", file=HIERA_FILE,
                            reason=note.reason, citations=(note.citation,), source="stale",
                            site_value=self.host.custom_hiera.get(note.key)))

    def overridden_by(self, c: Change) -> tuple[str, ...]:
        """The places of higher precedence than ``c``'s, by the release's tables: what would win over it (the set
        removes each one the host has that sets the same)."""
        def above(table_: Mapping[str, Any], place: str) -> tuple[str, ...]:
            order = [str(p) for p in table_.get("order") or ()]
            return tuple(order[order.index(place) + 1:]) if place in order else ()

        pg = table("postgresql", self.pg_version())
        if c.op != "set":
            return ()
        if c.channel == "profile":
            return above(self.installer_table, "profile")
        if c.channel == "installer" and c.target.startswith("--foreman-foreman-service-puma-"):
            return (*above(self.installer_table, "answers"), f"foreman.service drop-in read after {INSTALLER_DROPIN}")
        if c.channel == "installer":
            return above(self.installer_table, "answers")
        if c.channel == "custom-hiera" and c.target.startswith(PG):
            return above(pg, "postgresql.conf")  # the installer writes postgresql.conf
        if c.channel == "custom-hiera" and c.target.startswith(("apache::keepalive", "apache::max_keepalive")) \
                and self.plan.input.role == "server":
            return tuple(f"{p} (05-foreman-ssl.conf)" for p in above(self.apache_table, "global"))
        if c.channel == "custom-hiera" and (c.target in PUMA_ENV or c.target.startswith(PUMA_TARGETS)):
            return (f"foreman.service drop-in read after {INSTALLER_DROPIN}",)
        if c.channel == "file" and c.target.endswith("/postgresql.conf"):
            return above(pg, "postgresql.conf")
        directive = str(c.value).split(" ", 1)[0] if c.channel == "file" else ""
        if c.channel == "file" and c.target.startswith("/etc/httpd/") and directive in VHOST_DIRECTIVES:
            if re.search(r"/conf\.d/[^/]+\.d/", c.target):  # read inside the vhost that includes it
                return ("the vhost's own line after its include",)
            if "/05-foreman-ssl.conf" not in c.target and "/25-puppet.conf" not in c.target:  # a Capsule's app is Puppet's
                vhost = "25-puppet.conf" if self.plan.input.role == "capsule" else "05-foreman-ssl.conf"
                return tuple(f"{p} ({vhost})" for p in above(self.apache_table, "global"))
        if c.channel == "file" and c.target == HAMMER_FILE:
            return (HAMMER_ROOT_FILE + " (root's hammer, read after it)",)
        if c.channel == "dropin":
            unit = c.target.split(":", 1)[0]
            return (f"{unit} drop-in read after {posixpath.basename(c.file) or LIMITS_DROPIN}",)
        if c.channel == "sysctl":
            return (f"sysctl.d file read after {posixpath.basename(c.file or SYSCTL_FILE)}",)
        return ()

    def absent_unit(self, c: Change) -> str:
        """The Foreman-stack service ``c`` restarts or writes a drop-in for that the source shows is not on the box
        (systemctl lists every such unit, and not this one), else "": nothing to tune there."""
        listed = self.host.units_listed
        if listed is None:
            return ""
        from foretune.facts.extract.platform import UNIT_PREFIXES  # start-up: only for a set made from a source's facts

        units = (*c.units, c.target.split(":", 1)[0].removesuffix(".service")) if c.channel == "dropin" else c.units
        return next((u for u in units if listed is not None and u not in listed and not u.endswith("@")
                     and u.startswith(UNIT_PREFIXES) and not u.startswith(("foreman.service", "postgresql", "rh-postgresql"))),
                    "")

    def result(self) -> ChangeSet:
        # an ALTER SYSTEM RESET whose setting's value the set does not write (kept, held, refused) goes too: the reset
        # alone would put postgresql.conf's value in force, which is neither the site's nor foretune's (a value the
        # site keeps in custom-hiera.yaml is the one the reset lets take effect: that reset stays)
        held = {b.change.target.split("/", 1)[1] for b in self.blocked
                if b.change.target.startswith(PG + "/") and b.change.target not in self.host.custom_hiera}
        written = {c.target.split("/", 1)[1] for c in self.changes.values() if c.target.startswith(PG + "/") and c.op == "set"}
        for setting in held - written:
            self.changes.pop(f"reset:postgresql:{setting}", None)
        for c in list(self.changes.values()):
            absent = self.absent_unit(c) if c.op == "set" else ""
            if absent:
                del self.changes[c.tunable]
                self.block(c, f"{absent} is not on this box (systemctl lists no {absent}.service among the Foreman services "
                              "it shows): nothing to tune there")
        ordered = sorted((c._replace(overridden_by=c.overridden_by or self.overridden_by(c)) for c in self.changes.values()),
                         key=lambda c: _ORDER.get((c.channel, c.op), 99))
        # a change blocked for one finding that a later (critical) finding's fix made take effect is no longer blocked
        made = [(c.tunable, c.target, c.value) for c in self.changes.values()]
        blocked = tuple(b for b in self.blocked if (b.change.tunable, b.change.target, b.change.value) not in made)
        return ChangeSet(self.release.label, tuple(ordered), blocked, commands=tuple(self.commands),
                         advice=tuple(self._tomcat_for_the_set()), given=tuple(self.given))

    def _tomcat_for_the_set(self) -> list[tuple[str, str]]:
        """The advice, with Tomcat's maxThreads (sized from the Puma workers running now) sized for the Puma workers
        x threads this set leaves; left out when those fit puppet-candlepin's maxThreads 150, which needs no edit."""
        sized = puma_after(self.changes.get("puma.workers"), self.changes.get("puma.threads_max"), self.plan)
        if sized is None or not any(what == TOMCAT_SERVER_XML for what, _ in self.advice):
            return self.advice
        after = sized[0] * sized[1]
        default = module_default("candlepin_tomcat", "max_threads")
        out = []
        for what, text in self.advice:
            if what == TOMCAT_SERVER_XML:
                if isinstance(default, int) and after <= default:
                    continue
                text = re.sub(r'maxThreads="\d+"', f'maxThreads="{after}"', text, count=1)
            out.append((what, text))
        return out


def puma_after(workers: Change | None, threads: Change | None, plan: Plan) -> tuple[int, int] | None:
    """The Puma workers and threads per worker a change set leaves, when it sets the workers (what Candlepin's Tomcat
    is sized for); None when it leaves the workers running now as they are."""
    if workers is None or workers.op != "set":
        return None
    t = plan.tunables.get("puma.threads_max")
    per = threads.value if threads is not None else (t.installer.value if t is not None else None)
    if not isinstance(workers.value, int) or not isinstance(per, int):
        return None
    return workers.value, per


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    """A flattened hiera mapping nested again (PostgreSQL entries under their hash), as stale_keys reads it."""
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        if "/" in key:
            outer, inner = key.split("/", 1)
            nested.setdefault(outer, {})[inner] = value
        else:
            nested[key] = value
    return nested


# tunables whose installer value may not be in force: the units whose measured open-files limit tells
MEASURED_LIMITS = {"smart_proxy_dynflow.limit_nofile": ("foreman-proxy.service", "smart_proxy_dynflow_core.service")}
THP_DEFRAG = "echo never > /sys/kernel/mm/transparent_hugepage/defrag"


def _measured(b: _Builder, facts: Any) -> None:
    """What the facts measure below the plan's value though the plan does not change it (the installer's value is
    not in force): the plan's fixes for it, as the audit's findings ask; THP defrag 'always' while THP is changed."""
    if facts is None or isinstance(facts, Host) or not hasattr(facts, "value"):
        return
    limits = facts.value("service_limits")
    for tunable_id, units in MEASURED_LIMITS.items():
        t = b.plan.tunables.get(tunable_id)
        if t is None or t.differs or not isinstance(limits, dict):
            continue
        entry = next((limits[u] for u in units if isinstance(limits.get(u), dict)), None)
        found = entry.get("process_nofile", entry.get("LimitNOFILE")) if entry is not None else None
        ours = _number(t.foretune.value)
        if isinstance(found, int) and ours is not None and found < ours:
            for fix in t.fixes:
                b.fix(t.id, fix, f"{t.foretune.reason} (in force: {found})", t.foretune.citations)
    thp = facts.value("thp")
    if isinstance(thp, dict) and thp.get("defrag") == "always" and thp.get("enabled") != "never" \
            and THP_DEFRAG not in b.commands:  # gf-hardware; thp-defrag-always asks the same
        b.commands.append(THP_DEFRAG)


THP_NEVER = "echo never > /sys/kernel/mm/transparent_hugepage/enabled"
VHOST_KEEPALIVE = {"apache.keepalive": ("KeepAlive", "apache::keepalive"),
                   "apache.keepalive_timeout": ("KeepAliveTimeout", "apache::keepalive_timeout"),
                   "apache.max_keepalive_requests": ("MaxKeepAliveRequests", "apache::max_keepalive_requests")}


def _vhost_keepalive(b: _Builder) -> None:
    """A KeepAlive directive the Foreman vhost (05-foreman-ssl.conf) sets itself, other than the plan's value, wins
    over the server-wide one for the clients (httpd-vhost-overrides), even where the plan's value is the installer's:
    the set gives the value again through the key that reaches the vhost (foreman:: from puppet-foreman 5.2 to 13), or,
    from puppet-foreman 14, which writes no KeepAlive into the vhost, through apache::, whose installer run renders the
    vhost again without the line. Satellite 6.2 edits the files themselves (its plan's file changes)."""
    if not b.release.features.custom_hiera or b.plan.input.role != "server":
        return
    for tunable, (directive, key) in VHOST_KEEPALIVE.items():
        t = b.plan.tunables.get(tunable)
        if t is None or t.id in b.changes or t.foretune.value is None:
            continue
        line = next((line.strip() for location, line in reversed(b.host.directive_lines) if "05-foreman-ssl" in location
                     and line.split()[:1] == [directive]), None)
        found = line.split()[1] if line is not None and len(line.split()) == 2 else None
        ours = ("On" if t.foretune.value else "Off") if isinstance(t.foretune.value, bool) else str(t.foretune.value)
        if found is None or found.lower() == ours.lower():
            continue
        how = ("the installer writes it into the vhost" if b.release.features.foreman_vhost_keepalive else
               "puppet-foreman writes no KeepAlive into the vhost from 14.0 on, so the installer run renders "
               "05-foreman-ssl.conf again without that line and the server-wide value applies")
        b.fix(t.id, Fix("hiera", key, t.foretune.value),
              f"05-foreman-ssl.conf sets {line} itself, which wins over the server-wide value for the Foreman vhost: "
              f"{how} ({t.foretune.reason})", (*t.foretune.citations, str(b.apache_table["citation"]),
                                                *(() if b.release.features.foreman_vhost_keepalive else ("pf-keepalive-dropped",))))


def _tuned_thp(b: _Builder, facts: Any) -> None:
    """A THP change while the tuned profile in force after the set turns THP on ([vm] transparent_hugepages, its own
    or an included profile's): tuned writes that value back whenever it applies the profile (at every start), and
    ignores it only once the kernel's transparent_hugepage= boot argument is in force. Said, and accounted for: the
    profile is applied before THP is set, and the set says what keeps THP off."""
    if facts is None or isinstance(facts, Host) or not hasattr(facts, "value") or THP_NEVER not in b.commands:
        return
    from foretune.facts.extract.platform import tuned_thp  # start-up: only when a THP change meets tuned

    profiles = facts.value("tuned_profiles")
    tuned = b.changes.get("os.tuned_profile")
    active = facts.value("tuned") or {}
    name = str(tuned.value) if tuned is not None else (active.get("active") if isinstance(active, dict) else None)
    if not isinstance(profiles, dict) or not name:
        return
    value, where = tuned_thp(profiles, name)
    if value not in ("always", "madvise"):
        return
    b.advice.append((f"transparent huge pages and tuned's {name}",
                     f"/{where.lstrip('/')} sets transparent_hugepages={value} in [vm], which tuned writes back whenever it applies "
                     f"{name} (every start), undoing `{THP_NEVER}`; tuned leaves THP alone once the kernel runs with "
                     "transparent_hugepage=never (the grubby line, after a reboot). Until then, set THP after "
                     f"`tuned-adm profile {name}`, or use a profile of your own in /etc/tuned that includes {name} with "
                     "[vm] transparent_hugepages=never"))
    b.commands.remove(THP_NEVER)  # after the tuned step, which apply and APPLY.md print first
    b.commands.append(THP_NEVER)


def from_plan(plan: Plan, facts: Any = None, lower_site: bool = False, refit_kept: bool = True) -> ChangeSet:
    """The change set of a plan: every tunable whose recommendation differs from what the installer gives, checked
    against ``facts`` (a FactSet, a :class:`Host`, or None for a plan made from options alone); ``lower_site``: a
    site value above foretune's is lowered, saying so (``--prefer foretune``), instead of kept.

    When the installer's hardware check refuses the plan's profile, nothing sized for it could take effect: the set
    is that of the plan at the largest profile the check accepts, and the refused profile is listed as blocked.

    A site value the set keeps (above foretune's, never lowered silently) is what runs after the set: the memory and
    connection budgets are made again with it (:func:`kept_plan`), and the set is that plan's. A raise the first
    plan made that the budget with the kept values no longer holds is left out, and said (:func:`refit`).
    ``refit_kept`` False: the first set only (render, whose --prefer decides what is kept, plans again itself)."""
    first = _plan_set(plan, facts, lower_site)
    again = kept_plan(plan, first) if refit_kept else None
    if again is None:
        return first
    return refit(first, _plan_set(again, facts, lower_site), plan, again)


def kept_keys(plan: Plan, changes: ChangeSet, untouched: bool = False) -> dict[str, Any]:
    """The hiera keys whose site value the set keeps above foretune's, with that value (what runs after the set);
    ``untouched`` (an audit's set, which changes only what its findings ask): every site value that differs from
    foretune's and that the set leaves as it is, too."""
    tunables = {b.change.tunable for b in changes.blocked if b.change.site_value is not None and "never lowered silently" in b.why}
    if untouched:
        changed = {c.tunable for c in changes.changes}
        tunables |= {t.id for t in plan.tunables.values() if t.differs and t.installer.origin and t.id not in changed}
    keys: dict[str, Any] = {}
    for tunable in sorted(tunables):
        t = plan.tunables.get(tunable)
        for fix in t.fixes if t is not None else ():
            if fix.kind == "hiera" and fix.target in plan.input.configured:
                keys[fix.target] = plan.input.configured[fix.target][0]
    return keys


def kept_plan(plan: Plan, changes: ChangeSet, untouched: bool = False) -> Plan | None:
    """The plan made again with the site values ``changes`` keeps (their dependants derived from them: the memory
    budget, the connections, work_mem), or None when the set keeps none."""
    keys = kept_keys(plan, changes, untouched)
    if not keys or set(keys) <= plan.input.kept:
        return None
    return make_plan(plan.input._replace(kept=frozenset({*plan.input.kept, *keys})))._replace(profile_reason=plan.profile_reason)


def _kept_words(plan: Plan, changes: ChangeSet, untouched: bool = False) -> str:
    return ", ".join(f"{key.rsplit('::', 1)[-1].rsplit('/', 1)[-1]} {value}"
                     for key, value in kept_keys(plan, changes, untouched).items())


def refit(first: ChangeSet, again: ChangeSet, plan: Plan, kept: Plan) -> ChangeSet:
    """``again`` (the set of the plan ``kept``, made with the site values ``first`` keeps) with what tells it from
    ``first``: each kept value stays listed as kept, now saying the set is sized for it, and each change of ``first``
    that ``again`` leaves out or gives another value is said, with the reason the budgets with the kept values give."""
    words = _kept_words(plan, first)
    values = {c.tunable: c for c in again.changes}
    followed: list[str] = []
    blocked: list[Blocked] = []
    for c in first.changes:
        t = kept.tunables.get(c.tunable)
        if c.op != "set" or t is None or (c.tunable in values and values[c.tunable].value == c.value):
            continue
        if c.tunable in values:
            followed.append(f"{c.tunable} {values[c.tunable].value} (not {c.value})")
            continue
        blocked.append(Blocked(c, f"not set to {c.value}: with the site's {words} kept, {t.foretune.reason}",
                               tuple(t.foretune.citations)))
    for c in again.changes:
        if c.op == "set" and first.for_tunable(c.tunable) is None and c.tunable in kept.tunables:
            followed.append(f"{c.tunable} {c.value}")
    follow = f"; the set is sized for it: {', '.join(followed)}" if followed else ""
    tight = next((p for p in kept.problems if p.code in ("memory-over-ram", "memory-tight")), None)
    if tight is not None:  # the budget with the kept values, as the plan judges it
        follow += f"; with it, {tight.message}"
    kept_blocks = [b._replace(why=b.why + follow) for b in first.blocked if b.change.site_value is not None
                   and "never lowered silently" in b.why]
    said = {b.change.tunable for b in (*kept_blocks, *blocked)}
    return again._replace(blocked=(*kept_blocks, *blocked, *(b for b in again.blocked if b.change.tunable not in said)))


def refit_audit(changes: ChangeSet, plan: Plan) -> ChangeSet:
    """An audit's set (values of ``plan``) with each plan value that the budgets made with the site values the set
    keeps give otherwise: that plan's value, or left out (and said) where it keeps what the installer gives (a work_mem
    raise that no longer fits beside the site's Puma workers). A value a finding asks for itself stays as asked."""
    kept = kept_plan(plan, changes, untouched=True)
    if kept is None:
        return changes
    words = _kept_words(plan, changes, untouched=True)
    out: list[Change] = []
    blocked: list[Blocked] = []
    for c in changes.changes:
        t0, t1 = plan.tunables.get(c.tunable), kept.tunables.get(c.tunable)
        ours = {fix_key(f): f.value for f in t0.fixes} if t0 is not None else {}
        theirs = {fix_key(f): f.value for f in t1.fixes} if t1 is not None else {}
        key = next((k for k, v in ours.items() if installer_option(k) == c.target or k == c.target), None)
        if c.op != "set" or t1 is None or key is None or str(ours[key]) != str(c.value) or str(theirs.get(key)) == str(c.value):
            out.append(c)
        elif not t1.differs:
            blocked.append(Blocked(c, f"not set to {c.value}: with the site's {words} kept, {t1.foretune.reason}",
                                   tuple(t1.foretune.citations)))
        else:
            out.append(c._replace(value=theirs[key], reason=f"with the site's {words} kept: {t1.foretune.reason}"))
    if not blocked and out == list(changes.changes):
        return changes
    return changes._replace(changes=tuple(out), blocked=(*changes.blocked, *blocked))


def _plan_set(plan: Plan, facts: Any = None, lower_site: bool = False) -> ChangeSet:
    accepted = accepted_profile(plan)
    if accepted is not None:
        refused = next(p for p in plan.problems if p.code == "installer-will-refuse")
        b = _Builder(make_plan(plan.input._replace(profile=accepted)), host_of(facts))
        b.lower_site = lower_site
        b.block(Change("profile", "profile", "--tuning", plan.profile, site_value=b.host.tuning_profile,
                       reason=plan.profile_reason, citations=("fi-tuning-profiles",)),
                f"{refused.message}; the set is sized for {accepted}, the largest profile it accepts", refused.citations)
        plan = b.plan
    else:
        b = _Builder(plan, host_of(facts))
        b.lower_site = lower_site
    b.shortage = measured_shortage(facts)  # a plan sizes for the budget, not for a box swapping now: no raise then
    if tuning_applies(plan):
        b.profile(plan.profile)
        if accepted is not None and "profile" in b.changes:
            b.changes["profile"] = b.changes["profile"]._replace(
                reason=f"the largest profile the installer's hardware check accepts here (it refuses the declared "
                       f"{b.blocked[0].change.value})", citations=("fi-tuning-hook", "fi-tuning-profiles"))
    _refused_need(b, plan)
    for t in plan.tunables.values():
        if not t.differs and t.installer.origin and t.foretune.reason.startswith("kept") and t.fixes:
            # the plan keeps a site value above its own (work_mem above the guide's "more than enough"): nothing to
            # write, but listed, so that no site value is kept unsaid
            fix = t.fixes[0]
            b.block(Change(t.id, "custom-hiera" if fix.kind == "hiera" else fix.kind, fix.target, t.installer.value,
                           source="plan", site_value=t.installer.value, citations=tuple(t.foretune.citations)),
                    f"kept {t.installer.value} ({t.foretune.reason.removeprefix('kept: ')})"
                    + ("; --prefer foretune lowers no value foretune's plan itself keeps" if b.lower_site else ""),
                    t.foretune.citations)
        if t.differs:
            for fix in t.fixes:
                b.fix(t.id, fix, t.foretune.reason, t.foretune.citations)
    _measured(b, facts)
    _vhost_keepalive(b)
    _tuned_thp(b, facts)
    b.unshadow_postgresql()
    b.stale()
    return b.result()


def _refused_need(b: _Builder, plan: Plan) -> None:
    """The profile the hosts need, above the set's, when the installer's hardware check refuses it on this box: listed
    as not applied (add hardware first), never left unsaid because the set stays at the profile it accepts."""
    from foretune.knowledge import hardware  # start-up: only when a plan's set is built
    from foretune.units import format_gib  # start-up: only when a plan's set is built

    inp = plan.input
    needed = hardware.profile_for_hosts(inp.hosts)
    if not tuning_applies(plan) or needed not in SIZES or plan.profile not in SIZES or \
            SIZES.index(needed) <= SIZES.index(plan.profile) or any(x.change.channel == "profile" for x in b.blocked):
        return
    need = hardware.enforced(needed, plan.release.foreman_version)
    if need is None or need.met_by(inp.cpus, inp.ram_bytes):
        return
    b.block(Change("profile", "profile", "--tuning", needed, site_value=b.host.tuning_profile, citations=(need.citation,)),
            f"{inp.hosts} hosts need --tuning {needed}, which the installer's hardware check refuses on this box "
            f"({inp.cpus} CPUs, {format_gib(inp.ram_bytes)} RAM; it requires {need.cores} CPUs and {need.ram_gib:g} GiB): "
            f"the set is sized for {plan.profile}; add hardware, then --tuning {needed}", (need.citation,))


def from_audit(fixes: Iterable[tuple[str, Sequence[Fix]]], plan: Plan, facts: Any = None,
               lower: Iterable[str] = (), lower_site: bool = False) -> ChangeSet:
    """The change set that fixes an audit's findings: ``fixes`` holds (rule id, the finding's Fix records) of the
    failing findings; ``plan`` is the plan at the profile the audit asks for (``Context.fix_plan``), the plan the
    findings took their values from. A value the plan has for the same tunable is the plan's, unless the finding asks
    for another (one value per tunable, the same in every output); the profile change comes first.
    ``lower``: the rules of critical findings (a measured failure), whose fixes lower a site value, saying so;
    ``lower_site``: every fix may lower a site value (``--prefer foretune``), saying so."""
    b = _Builder(plan, host_of(facts))
    b.lower = set(lower)
    b.lower_site = lower_site
    fixes = list(fixes)
    asks = [rule for rule, rule_fixes in fixes for f in rule_fixes
            if f.kind == "command" and re.search(r"--tuning \S+$", str(f.target)) and not str(f.target).startswith("add hardware")]
    if tuning_applies(plan) and (asks or (b.host.tuning_profile and b.host.tuning_profile != plan.profile)):
        b.profile(plan.profile, asks[0] if asks else "plan")
    for rule, rule_fixes in fixes:
        for fix in rule_fixes:
            tunable_id = b.by_target.get(fix_key(fix))
            t = plan.tunables.get(tunable_id) if tunable_id else None
            if t is not None and not t.differs and t.installer.origin and t.installer.value == t.foretune.value:
                continue  # the site's answers already give the plan's value: nothing to change, as plan's set has it
            own_value = next((own.value for own in t.fixes if fix_key(own) == fix_key(fix)), None) if t is not None else None
            if t is not None and own_value is not None and fix.kind in ("hiera", "installer", "limit", "file") and fix.value != own_value:
                # the audit asks for a value the plan does not give (max_connections over what the services in force
                # may open, rules.recommend): the finding's value, so the report and the outputs give one number
                b.fix(t.id, fix, f"{rule} asks for {fix.value} for what runs now (the plan gives {own_value})",
                      t.foretune.citations, rule)
            elif t is not None and t.foretune.value is not None:
                # the plan's value for the tunable: the same number in every output; a value the tuning profile
                # already gives is left to the profile (pinning it would lock out later --tuning changes)
                if t.differs or not any(own.target in b.profile_keys for own in t.fixes):
                    for own in t.fixes:
                        b.fix(t.id, own, t.foretune.reason, t.foretune.citations, rule)
                else:
                    b.given += [(own.target, own.value, plan.profile) for own in t.fixes if (own.target, own.value, plan.profile) not in b.given]
            else:
                # a fix of the finding's own (no plan tunable gives it): its file still says which finding asks for it
                b.fix(tunable_id or f"{fix.kind}:{fix_key(fix)}", fix, f"the {rule} finding asks for it", (), rule)
    _tuned_thp(b, facts)
    b.unshadow_postgresql(_written_settings(b))
    b.stale()
    changes = refit_audit(b.result(), plan)
    note = puma_written_back(changes, plan, facts)
    return changes._replace(advice=(*changes.advice, ("puma", note))) if note else changes


def puma_written_back(changes: ChangeSet, plan: Plan, facts: Any) -> str:
    """What the set's installer run does to Puma values in force that the installer does not write (installer.conf
    edited by hand): it rewrites installer.conf from custom-hiera, the answers file or its defaults, and the set's own
    Puma values; ``""`` when the set runs no installer, the values in force are the installer's or are not known."""
    from foretune.logs.source import puma_in_force  # start-up: only for an audit's set with Puma facts

    value = facts.value if facts is not None and hasattr(facts, "value") else None
    runs = any(c.channel in ("installer", "custom-hiera", "profile") for c in changes.changes)
    if value is None or not runs or not (value("installer_answers") or value("custom_hiera")):
        return ""
    run = puma_in_force(value("puma_stats"), value("puma_loaded"), value("puma"))
    if run is None:
        return ""
    workers, threads, name = run
    loaded = value(name) if isinstance(value(name), dict) else {}
    tmin = loaded.get("threads_min") if isinstance(loaded.get("threads_min"), int) else None
    written: dict[str, Any] = {}  # what the installer writes without this set
    after: dict[str, Any] = {}  # and with it
    for key in ("workers", "threads_min", "threads_max"):
        change = changes.for_tunable(f"puma.{key}")
        t = plan.tunables.get(f"puma.{key}")
        written[key] = t.installer.value if t is not None else None
        after[key] = change.value if change is not None and change.op == "set" else written[key]
    if not all(isinstance(v, int) for v in (*written.values(), *after.values())):
        return ""
    if (written["workers"], written["threads_max"]) == (workers, threads) and tmin in (None, written["threads_min"]):
        return ""  # the values in force are the installer's own: no hand edit to lose
    origin = next((t.installer.origin for k in ("threads_max", "workers")
                   if (t := plan.tunables.get(f"puma.{k}")) is not None and t.installer.origin), "")
    where = {"": "the installer's defaults", "custom-hiera.yaml": "custom-hiera.yaml"}.get(origin, f"the {origin}")
    pairs = [(k, v) for k, v in (("workers", workers), ("threads-min", tmin), ("threads-max", threads)) if v is not None]
    if origin == "custom-hiera.yaml":
        keep = "set " + ", ".join(f"foreman::foreman_service_puma_{k.replace('-', '_')}: {v}" for k, v in pairs) + \
               " in /etc/foreman-installer/custom-hiera.yaml (it wins over installer flags)"
    else:
        keep = "pass " + " ".join(f"--foreman-foreman-service-puma-{k} {v}" for k, v in pairs) + " to it (the answers file then keeps them)"
    now = f"{workers} workers x {f'{tmin}/' if tmin is not None else ''}{threads} threads"
    pool = changes.for_tunable("foreman.db_pool")
    sized = (f"the database pool of {pool.value} in this set is sized for the {after['threads_max']} threads after the run; "
             if pool is not None and pool.op == "set" else "")
    return (f"the installer run rewrites foreman.service's installer.conf from {where} and this set: Puma "
            f"{after['workers']} workers x {after['threads_min']}/{after['threads_max']} threads replace the {now} in force "
            f"now (installer.conf edited by hand, not what the installer writes); {sized}what the audit judged against the "
            f"Puma in force now (memory, max_connections, Candlepin threads) is not. To keep {now}, {keep}; otherwise "
            "audit again after the run")


def _written_settings(b: _Builder) -> set[str]:
    """The PostgreSQL settings an audit's set writes into postgresql.conf: its custom-hiera values, the values of the
    profile it moves to, and those a finding asked for that the profile gives. Only what shadows these is taken away:
    a site's ALTER SYSTEM line or included file that no finding is about stays (the audit writes what fixes its
    findings)."""
    keys = {c.target for c in b.changes.values() if c.channel == "custom-hiera" and c.op == "set"}
    keys |= {key for key, _, _ in b.given}
    if "profile" in b.changes:
        keys |= set(b.profile_values)
    return {key.split("/", 1)[1] for key in keys if key.startswith(PG + "/")}


# -- views of a change set (what render and apply read) ---------------------------------------

def hiera_values(changes: ChangeSet) -> dict[str, Any]:
    """The custom-hiera values to set, nested (PostgreSQL entries under one hash)."""
    return _nest({c.target: c.value for c in changes.changes if c.channel == "custom-hiera" and c.op == "set"})


def hiera_removals(changes: ChangeSet) -> list[str]:
    """Flattened custom-hiera keys to remove (stale keys, keys that would shadow an installer option)."""
    return [c.target for c in changes.changes if c.channel == "custom-hiera" and c.op == "remove"]


def installer_options(changes: ChangeSet) -> list[tuple[str, Any]]:
    """The installer options to pass, in order (the profile excluded)."""
    return [(c.target, c.value) for c in changes.changes if c.channel == "installer" and c.op == "set"]


def tomcat_sizing(changes: ChangeSet, plan: Plan) -> tuple[int, int] | None:
    """The Puma workers and threads the set leaves, which its Tomcat advice is sized for (None: the running ones)."""
    return puma_after(changes.for_tunable("puma.workers"), changes.for_tunable("puma.threads_max"), plan)


def profile_change(changes: ChangeSet) -> Change | None:
    """The profile change, when the set has one."""
    return next((c for c in changes.changes if c.channel == "profile"), None)
