"""Apache httpd: LimitNOFILE, the MPM's process and worker limits, KeepAlive in front of Passenger."""

from __future__ import annotations

from foretune.errors import DataError
from foretune.knowledge import module_default, module_default_citation
from foretune.knowledge.profiles import installer_hiera
from foretune.plan.constants import cite, const, versioned
from foretune.plan.model import Fix, Input, MemoryItem, Problem, Setting
from foretune.plan.sizing import C, Component, Sizing, default_profile_hosts, given, memory_item, memory_size


def plan(s: Sizing) -> None:
    sysd = module_default("systemd_default_nofile")
    inst = Setting(sysd, "not set by the installer: systemd's default applies", (module_default_citation("systemd_default_nofile"),))
    if s.f.passenger and s.era62:
        nofile = const("g62_nofile")
        want = Setting(nofile, "the 6.2 brief's limit for registrations at scale", ("g62-apache",), "", (C("g62_nofile"),))
    else:
        nofile = const("httpd_nofile")
        want = Setting(nofile, "the guide's value for busy servers", (cite("httpd_nofile"),), "", (C("httpd_nofile"),))
    s.add("httpd.limit_nofile", "httpd LimitNOFILE", "count", inst, want, Fix("limit", "httpd", nofile))
    if s.f.passenger:
        _keepalive(s)
    if not s.server:
        return
    if s.f.mpm == "event":
        _event(s)
    else:
        _prefork(s)


def _larger_profiles_limit(s: Sizing, key: str) -> int:
    """The ServerLimit the medium and larger --tuning profiles give: foretune's floor above the default profile's hosts."""
    value = installer_hiera(s.release, "medium").get(key)
    if value is None:
        raise DataError(f"{s.release.label}: the medium profile sets no {key}")
    return int(value)


def _event(s: Sizing) -> None:
    mod = module_default("apache", "event")
    key = "apache::mod::event::"
    threads = s.base_setting(key + "threadsperchild", mod["threadsperchild"], "puppetlabs-apache default", mod["citation"])
    limit = s.base_setting(key + "serverlimit", mod["serverlimit"], "puppetlabs-apache default", mod["citation"])
    if key + "maxrequestworkers" in s.base:
        inst_mrw = Setting(s.base[key + "maxrequestworkers"], "profile value", ("apache-module-defaults",))
    elif s.f.apache_event_maxclients:  # puppetlabs-apache 7-8 render MaxClients (MaxRequestWorkers' old name)
        inst_mrw = Setting(s.f.apache_event_maxclients, "not set: puppetlabs-apache renders its MaxClients default",
                           ("apache-event-maxclients",))
    else:
        inst_mrw = Setting(limit.value * threads.value, "not set: Apache uses ServerLimit x ThreadsPerChild", ("apache-module-defaults",))
    inst_mrw_value = inst_mrw.value
    want_limit, want_threads = limit.value, threads.value
    larger, default_hosts = _larger_profiles_limit(s, key + "serverlimit"), default_profile_hosts()
    big = s.inp.hosts > default_hosts or s.profile != "default"
    if big:
        want_limit = max(want_limit, larger)
    want_mrw = want_limit * want_threads
    cites = ("gf-httpd-children", "fi-tuning-profiles")
    s.add("apache.mpm", "Apache MPM", "text", Setting("event", "installer default since Foreman 3.3", ("fi-event-mpm",)),
          Setting("event", "the installer's MPM for this release", ("fi-event-mpm",)))
    s.add("apache.threads_per_child", "ThreadsPerChild (event)", "count", threads,
          s.same(threads, "the profiles' value", *cites), Fix("hiera", key + "threadsperchild", want_threads))
    limit_inputs = (given(limit), *((Input("medium+ profiles' ServerLimit", larger, "fi-tuning-profiles"),) if big else ()))
    s.add("apache.server_limit", "ServerLimit (event)", "count", limit,
          Setting(want_limit, f"{want_limit} processes x {want_threads} threads = {want_mrw} workers above {default_hosts} hosts"
                  if want_limit == larger else "the default profile's limit", cites,
                  f"max({limit.value}, {larger}) = {want_limit}" if big else "", limit_inputs),
          Fix("hiera", key + "serverlimit", want_limit))
    mrw_inputs = (Input("ServerLimit", want_limit, "fi-tuning-profiles"), given(threads, "ThreadsPerChild"))
    if not big and isinstance(inst_mrw_value, int) and inst_mrw_value <= want_mrw:
        # the default profile at its host range: the installer's value is valid (at most ServerLimit x ThreadsPerChild)
        # and the guide raises these only from the medium profile on; pinned in custom-hiera it would lock out --tuning
        mrw = Setting(inst_mrw_value, f"kept: within ServerLimit x ThreadsPerChild ({want_mrw}); the guide's 1024 comes with "
                      "the medium profile, and a custom-hiera value would lock out later --tuning changes", cites,
                      f"{inst_mrw_value} <= {want_limit} x {want_threads} = {want_mrw}", (given(inst_mrw), *mrw_inputs))
    else:
        mrw = Setting(want_mrw, "ServerLimit x ThreadsPerChild: every thread the children can run (it may not be more)",
                      cites, f"{want_limit} x {want_threads} = {want_mrw}", mrw_inputs)
    s.add("apache.max_request_workers", "MaxRequestWorkers (event)", "count", inst_mrw, mrw,
          Fix("hiera", key + "maxrequestworkers", mrw.value))
    if inst_mrw_value > limit.value * threads.value:
        s.problems.append(Problem("high", "apache-workers-over-limit",
                                  f"installer MaxRequestWorkers {inst_mrw_value} exceeds ServerLimit {limit.value} x "
                                  f"ThreadsPerChild {threads.value}", cites))


def _prefork(s: Sizing) -> None:
    mod = module_default("apache", "prefork")
    key = "apache::mod::prefork::"
    limit = s.base_setting(key + "serverlimit", mod["serverlimit"], "puppetlabs-apache default", mod["citation"])
    clients = s.base_setting(key + "maxclients", mod["maxclients"], "puppetlabs-apache default", mod["citation"])
    if s.f.passenger:
        pool = s.value("passenger.max_pool_size")
        queue = s.value("passenger.max_request_queue_size")
        pulp_cap = module_default("pulp2", "workers_cap")
        pulp = min(pulp_cap, s.inp.cpus)
        regs = const("prefork_concurrent_registrations")
        want = max(limit.value, pool + queue + regs + pulp)
        why = f"PassengerMaxPoolSize {pool} + queue {queue} + {regs} concurrent registrations + {pulp} Pulp processes"
        if s.era62 and pool + queue < clients.value:
            want = limit.value
            why = f"the brief: prefork needs no change while PassengerMaxPoolSize {pool} + queue {queue} stay below MaxClients"
        cites: tuple[str, ...] = ("g62-apache", "g62-passenger") if want == limit.value and s.era62 else ("g69-apache",)
        formula = (f"{pool} + {queue} < {clients.value}: keep {want}" if want == limit.value and s.era62
                   else f"max({limit.value}, {pool} + {queue} + {regs} + min({pulp_cap}, {s.inp.cpus})) = {want}")
        inputs: tuple[Input, ...] = (given(limit), Input("PassengerMaxPoolSize", pool, "g62-passenger"),
                                     Input("PassengerMaxRequestQueueSize", queue, "g62-passenger"),
                                     C("prefork_concurrent_registrations"), Input("Pulp processes", pulp, "pulp2-worker-defaults"))
    else:
        larger, default_hosts = _larger_profiles_limit(s, key + "serverlimit"), default_profile_hosts()
        want = max(limit.value, larger if s.inp.hosts > default_hosts else limit.value)
        why = f"the medium+ profiles' {larger} above {default_hosts} hosts" if want == larger else "the installer's value"
        cites = ("fi-tuning-profiles", "g69-apache")
        formula = ""
        inputs = (Input("medium+ profiles' ServerLimit", larger, "fi-tuning-profiles"),) if want == larger else (given(limit),)
    s.add("apache.mpm", "Apache MPM", "text", Setting("prefork", "the installer's MPM for this release", ("fi-event-mpm",)),
          Setting("prefork", "event MPM arrived with Foreman 3.3; keep what the installer manages", ("fi-event-mpm",)))
    s.add("apache.server_limit", "ServerLimit (prefork)", "count", limit, Setting(want, why, cites, formula, inputs),
          Fix("hiera", key + "serverlimit", want))
    if s.era62 and s.f.passenger and want == limit.value and pool + queue < clients.value:
        # the brief asks no change while the pool and queue stay below MaxClients: the MaxClients in force stays too
        s.add("apache.max_clients", "MaxClients / MaxRequestWorkers (prefork)", "count", clients,
              s.same(clients, f"the brief: no change while PassengerMaxPoolSize {pool} + queue {queue} stay below it", *cites),
              Fix("hiera", key + "maxclients", clients.value))
        return
    s.add("apache.max_clients", "MaxClients / MaxRequestWorkers (prefork)", "count", clients,
          Setting(want, "equal to ServerLimit", cites, "MaxClients = ServerLimit", (Input("ServerLimit", want, cites[0]),)),
          Fix("hiera", key + "maxclients", want))


def _keepalive(s: Sizing) -> None:
    ka, ka_cite = versioned("keepalive", s.fv)
    cites = ("g62-apache",) if s.server else ("g62-apache", "g62-capsule")
    # the Foreman vhost's own directives win over the server-wide ones for the vhost that serves the clients
    vhost = s.server and s.f.foreman_vhost_keepalive
    prefix = "foreman::" if vhost else "apache::"
    # Satellite 6.2 (files foretune edits): the directives the Foreman vhost runs with, its own over httpd.conf's
    box = s.inp.httpd_keepalive if s.era62 else {}

    def installer(directive: str, default: object) -> Setting:
        if directive in box:
            return Setting(box[directive], "in force for the Foreman vhost (its own line, else httpd.conf's)", ("g62-apache",))
        return Setting(default, "puppet-foreman default", (ka_cite,))

    s.add("apache.keepalive", "KeepAlive", "bool", installer("KeepAlive", ka["keepalive"]),
          Setting(True, "fewer TCP connections and less Apache CPU", cites), Fix("hiera", prefix + "keepalive", True if vhost else "On"))
    timeout = const("keepalive_timeout")
    s.add("apache.keepalive_timeout", "KeepAliveTimeout", "seconds", installer("KeepAliveTimeout", ka["keepalive_timeout"]),
          Setting(timeout, "between 2 and 5 seconds", cites, "", (C("keepalive_timeout"),)),
          Fix("hiera", prefix + "keepalive_timeout", timeout))
    mkr = const("max_keepalive_requests")
    s.add("apache.max_keepalive_requests", "MaxKeepAliveRequests", "count",
          installer("MaxKeepAliveRequests", ka["max_keepalive_requests"]),
          Setting(mkr, "0 = unlimited requests per connection", cites, "", (C("max_keepalive_requests"),)),
          Fix("hiera", prefix + "max_keepalive_requests", mkr))


def memory(s: Sizing) -> list[MemoryItem]:
    t = s.tunables
    if s.f.mpm == "event":
        limit = (t["apache.server_limit"].foretune.value if "apache.server_limit" in t
                 else s.base.get("apache::mod::event::serverlimit") or module_default("apache", "event")["serverlimit"])
        return [memory_item("Apache httpd", limit, "httpd_event_child", f"{limit} event children (ServerLimit)")]
    children = t["apache.server_limit"].foretune.value if "apache.server_limit" in t else module_default("apache", "prefork")["serverlimit"]
    return [memory_item("Apache httpd", children, "httpd_prefork_child",
                        f"{children} prefork children x {memory_size('httpd_prefork_child')} (6.2 brief's passenger-memory-stats)")]


COMPONENT = Component("apache", memory=memory)
