"""Application services: Puma, Foreman DB pool, Dynflow/Sidekiq, Pulp, Apache, Passenger, PostgreSQL files and
version, Redis, Candlepin, qpid, MQTT/pull-REX, MongoDB, hammer."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from foretune.facts.extract.core import Extractor, excerpt
from foretune.facts.extract.installer import packages
from foretune.facts.extract.platform import (
    environment_files,
    list_units,
    service_units,
    unit_environment,
    unit_files,
    units_location,
)
from foretune.facts.model import Provenance
from foretune.facts.numbers import whole
from foretune.facts.parsers.foreman import parse_pumactl_stats
from foretune.facts.parsers.httpd import Directive, parse_directives
from foretune.facts.parsers.keyvalue import parse_env, parse_environment_words
from foretune.facts.parsers.postgresql import parse_postgresql_lines
from foretune.facts.parsers.redis import parse_redis_conf, parse_redis_info
from foretune.facts.parsers.yamlfile import parse_yaml
from foretune.host.redact import redact_text
from foretune.host.sources.base import Raw
from foretune.host.specs import BY_NAME, Spec
from foretune.knowledge.versions import version_key
from foretune.units import jvm_option_text, jvm_size, redis_size

PUMA_DEFAULTS = {"workers": 2, "threads_min": 0, "threads_max": 16}  # foreman config/puma/production.rb
RAILS_DEFAULT_POOL = 5


def _int(value: Any) -> int | None:
    """A count or size from a file: ASCII digits and plausible, else None (see foretune.facts.numbers)."""
    return whole(value)


def puma(x: Extractor) -> None:
    env, where = unit_environment(x, "foreman.service")
    keys = {"workers": "FOREMAN_PUMA_WORKERS", "threads_min": "FOREMAN_PUMA_THREADS_MIN", "threads_max": "FOREMAN_PUMA_THREADS_MAX"}
    found = {k: _int(env.get(v)) for k, v in keys.items() if env.get(v) is not None}
    if where and found:
        value = {**PUMA_DEFAULTS, **found}
        x.known("puma", value, *puma_provenance(x, where, {keys[k]: v for k, v in found.items()}))
    elif "foreman" in packages(x) and not any(n.startswith(("passenger", "mod_passenger")) for n in packages(x)):
        x.known("puma", dict(PUMA_DEFAULTS), x.absent("foreman.service", "no FOREMAN_PUMA_* environment: Foreman's built-in defaults"))
    elif "foreman" in packages(x):
        x.unknown("puma", "Passenger era: Foreman runs inside Apache, not Puma")
    else:
        x.unknown("puma", "Foreman is not installed here")
    loaded = (service_units(x).get("foreman.service") or {}).get("Environment")
    if loaded:  # what systemd runs the unit with now (a drop-in changed since is read only after daemon-reload)
        words = parse_environment_words(str(loaded))
        x.known("puma_loaded", {k: _int(words.get(v)) for k, v in keys.items()},
                x.note("systemctl show foreman.service", " ".join(f"{v}={words[v]}" for v in keys.values() if v in words)
                       or "no FOREMAN_PUMA_* in its Environment"))
    else:
        x.unknown("puma_loaded", "no systemctl show foreman.service (Environment) in the source")
    raw = x.raw("pumactl_stats")
    stats = x.parse(raw, parse_pumactl_stats)
    if raw is not None and stats:
        backlog = excerpt_backlog(raw.text)
        x.known("puma_stats", stats, x.prov(raw, text=excerpt_json(raw.text)), *([x.prov(raw, text=backlog)] if backlog else []))
    else:
        x.unknown("puma_stats", x.why("pumactl_stats") if raw is None else f"{raw.location} has no stats")
    db = x.raw("database_yml")
    data = x.parse(db, parse_yaml)
    if db is None or not data:
        x.unknown("foreman_db_pool", x.why("database_yml") if db is None else f"{db.location} is empty")
        return
    section = data.get("production")
    production: dict[str, Any] = section if isinstance(section, dict) else {}
    pool = _int(production.get("pool"))
    if pool is not None:
        x.known("foreman_db_pool", pool, x.prov(db, r"^\s*pool:"))
    else:
        x.known("foreman_db_pool", RAILS_DEFAULT_POOL, x.absent(db.location, "no line sets pool; the Rails default 5 applies"))


def puma_provenance(x: Extractor, where: str, names: dict[str, int | None]) -> list[Provenance]:
    """The lines that set ``names``, verbatim, from each foreman.service file that sets one (drop-ins in the order
    systemd reads them: a later file's value wins); ``systemctl show`` when no file does."""
    pattern = r"^\s*Environment\s*=.*(" + "|".join(re.escape(n) for n in names) + ")="
    by_location = {r.location: r for r in x.raws("unit_files")}
    read = [loc for loc, _ in unit_files(x).get("foreman.service", [])]  # as systemd reads them; a hidden one left out
    raws = [by_location[loc] for loc in read if loc in by_location and re.search(pattern, by_location[loc].text, re.M)]
    # EnvironmentFile= files that set one: they win over every Environment= line (systemd-environment-file)
    files = [x.note(loc, excerpt(text, r"^\s*(" + "|".join(re.escape(n) for n in names) + ")="))
             for loc, text, variables in environment_files(x, "foreman.service") if any(n in variables for n in names)]
    if not raws and not files:
        return [x.note(where, " ".join(f"{k}={v}" for k, v in names.items()))]
    return [*(x.prov(r, pattern) for r in raws), *files]


def excerpt_json(text: str) -> str:
    """From ``"workers": N`` to ``"booted_workers": N`` (found with str.find: linear on any input)."""
    start = text.find('"workers":')
    end = text.find('"booted_workers":', start + 1) if start != -1 else -1
    if start == -1 or end == -1 or end - start > 200:
        return text.strip()[:120]
    match = re.match(r'"booted_workers":\s{0,8}\d{1,12}', text[end:end + 40], re.ASCII)
    return text[start:end] + match.group(0) if match else text.strip()[:120]


def excerpt_backlog(text: str) -> str | None:
    """The first worker status with requests in its backlog, verbatim, to its pool_capacity (the free threads):
    ``"last_status": {"backlog": 2, "running": 5, "pool_capacity": 0``; None when no backlog is above 0. Found with
    bounded searches."""
    match = re.search(r'"backlog":\s{0,8}[1-9]\d{0,11}', text, re.ASCII)
    if match is None:
        return None
    start = text.rfind('"last_status"', max(0, match.start() - 40), match.start())
    start = text.rfind("{", max(0, match.start() - 8), match.start()) if start == -1 else start
    start = match.start() if start == -1 else start
    capacity = re.compile(r'"pool_capacity":\s{0,8}\d{1,12}', re.ASCII).search(text, match.end(), match.end() + 120)
    if capacity is not None:  # the backlog and the free threads beside it: enough to read the worker's state
        return text[start:capacity.end()]
    end = text.find("}", match.end(), match.end() + 160)
    return text[start:end + 1 if end != -1 else match.end()]


def worker_units_provenance(x: Extractor, workers: list[str], source: str) -> Provenance:
    """The lines of the first and the last pulpcore-worker@N unit as systemd lists them (the count is the highest N
    when they run 1..N), else their names."""
    ordered = sorted(workers, key=lambda u: int(re.sub(r"\D", "", u) or 0))
    ends = list(dict.fromkeys([ordered[0], ordered[-1]])) if ordered else []
    raw = next((r for r in (x.raw("systemctl_units"), x.raw("systemctl_show")) if r is not None and r.location == source), None)
    if raw is None or not ends:
        return x.note(source, " | ".join(ends))
    return x.prov(raw, r"^[\s\u25cf*]*(Id=)?(" + "|".join(re.escape(u) for u in ends) + r")(\s|$)")


def sidekiq_units_provenance(x: Extractor) -> list[Provenance]:
    """The dynflow-sidekiq@worker units (one per Sidekiq worker instance; not the hosts queue) as systemd lists them,
    a line each."""
    units = [u for u in list_units(x) if u.startswith("dynflow-sidekiq@worker") and "hosts-queue" not in u]
    source = units_location(x)
    raw = next((r for r in (x.raw("systemctl_units"), x.raw("systemctl_show")) if r is not None and r.location == source), None)
    if raw is None:
        return []
    return [x.prov(raw, r"^[\s\u25cf*]*(Id=)?" + re.escape(u) + r"(\s|$)") for u in units[:8]]


def dynflow(x: Extractor) -> None:
    files = {posixpath.basename(r.location)[:-4]: r for r in x.raws("dynflow_yml")}
    sysconfig = x.raw("foreman_tasks_sysconfig")
    if files:
        workers = sorted(n for n in files if n.startswith("worker") and not n.startswith("worker-hosts-queue"))
        concurrency = None
        if workers:
            data = x.parse(files[workers[0]], parse_yaml) or {}
            concurrency = _int(data.get("concurrency"))
        value = {"workers": len(workers), "concurrency": concurrency, "orchestrator": "orchestrator" in files, "executors": None}
        provs = [x.prov(files[n], r"concurrency") for n in workers[:2]]
        x.known("dynflow", value, *provs or [x.note("/etc/foreman/dynflow", ", ".join(sorted(files)))],
                *sidekiq_units_provenance(x))
        return
    if sysconfig is not None:
        env = x.parse(sysconfig, lambda t: parse_env(t, strict=False)) or {}
        count = _int(env.get("EXECUTORS_COUNT"))
        value = {"workers": None, "concurrency": None, "orchestrator": False, "executors": count if count is not None else 1}
        x.known("dynflow", value, x.prov(sysconfig, r"EXECUTORS_COUNT") if count is not None else
                x.absent(sysconfig.location, "no line sets EXECUTORS_COUNT; one executor"))
        return
    units = [u for u in list_units(x) if u.startswith("dynflow-sidekiq@")]
    if units:
        workers = [u for u in units if "@worker" in u and "hosts-queue" not in u]
        x.known("dynflow", {"workers": len(workers), "concurrency": None, "orchestrator": any("orchestrator" in u for u in units),
                            "executors": None}, x.note(units_location(x), ", ".join(units)))
        return
    x.unknown("dynflow", "no /etc/foreman/dynflow/*.yml, dynflowd/foreman-tasks sysconfig or dynflow-sidekiq units")


def _gunicorn_workers(exec_start: str) -> int | None:
    match = re.search(r"(?:--workers[ =]|-w\s*)(\d+)", exec_start, re.ASCII)
    return whole(match.group(1)) if match else None


def pulp(x: Extractor) -> None:
    units = list_units(x)
    workers = sorted({u for u in units if re.match(r"pulpcore-worker@\d+\.service$", u)})
    source = units_location(x)
    if not workers:
        names = x.src.glob_names(BY_NAME["wanted_units"])
        workers = sorted({posixpath.basename(n) for n in names if re.search(r"pulpcore-worker@\d+\.service$", n)})
        source = "/etc/systemd/system/multi-user.target.wants"
    files = unit_files(x)
    gunicorn: dict[str, int | None] = {}
    provs = []
    for unit, key in (("pulpcore-api.service", "api_workers"), ("pulpcore-content.service", "content_workers")):
        exec_start = ""
        for location, parsed in files.get(unit, []):
            for line in parsed.get("Service", {}).get("ExecStart", []):
                exec_start = line
                provs.append(x.note(location, " ".join(re.findall(r"(?:--workers[ =]|-w\s*)\d+", line))))
        if not exec_start:
            exec_start = service_units(x).get(unit, {}).get("ExecStart", "")
        gunicorn[key] = _gunicorn_workers(exec_start)
    if workers or any(v is not None for v in gunicorn.values()):
        value = {"workers": len(workers), **gunicorn}
        x.known("pulpcore", value, worker_units_provenance(x, workers, source), *provs)
    else:
        x.unknown("pulpcore", "no pulpcore-worker units or pulpcore unit files")
    raw = x.raw("pulp_workers")
    env = x.parse(raw, lambda t: parse_env(t, strict=False)) or {}
    if raw is not None and _int(env.get("PULP_CONCURRENCY")) is not None:
        x.known("pulp2_workers", _int(env["PULP_CONCURRENCY"]), x.prov(raw, r"^PULP_CONCURRENCY"))
    else:
        x.unknown("pulp2_workers", x.why("pulp_workers") if raw is None else f"{raw.location} sets no PULP_CONCURRENCY")


APACHE_INT = ("ServerLimit", "ThreadsPerChild", "MaxRequestWorkers", "MaxClients", "StartServers", "MaxRequestsPerChild",
              "MaxConnectionsPerChild", "MinSpareThreads", "MaxSpareThreads", "MinSpareServers", "MaxSpareServers",
              "KeepAliveTimeout", "MaxKeepAliveRequests", "ProxyTimeout")
PASSENGER = ("PassengerMaxPoolSize", "PassengerMaxRequestQueueSize", "PassengerMinInstances", "PassengerMaxPreloaderIdleTime",
             "PassengerMaxInstancesPerApp", "PassengerMaxRequests")


def apache(x: Extractor) -> None:
    raws = x.raws("httpd_conf")
    if not raws:
        x.unknown("apache", "no httpd configuration files")
        x.unknown("passenger", "no httpd configuration files")
        x.unknown("httpd_includes", "no httpd configuration files")
        return
    included = [raw for raw in raws if INCLUDED.search("/" + raw.location.lstrip("/"))]
    raws = [raw for raw in raws if raw not in included]
    parsed: list[tuple[str, Directive]] = []
    for raw in raws:
        for directive in x.parse(raw, parse_directives) or []:
            parsed.append((raw.location, directive))
            if directive.name in HTTPD_INCLUDES and any(s.startswith("VirtualHost") for s in directive.sections):
                parsed += _included(x, directive, included)
    _includes(x, raws, parsed)
    mpm = None
    for _location, d in parsed:
        match = re.match(r"mpm_(\w+)_module", d.args) if d.name == "LoadModule" else None
        if match:
            mpm = match.group(1)
    where: dict[str, Provenance] = {}  # directive -> the line its value came from
    modules = x.raw("httpd_modules") if mpm is None else None
    loaded = re.search(r"^\s*mpm_(\w+)_module\b", modules.text, re.MULTILINE | re.ASCII) if modules is not None else None
    if modules is not None and loaded:
        mpm = loaded.group(1)
        where["mpm"] = x.prov(modules, r"^\s*mpm_")
    value: dict[str, Any] = {"mpm": mpm}
    for location, d in parsed:
        if d.name not in APACHE_INT:
            continue
        in_vhost = any(s.startswith("VirtualHost") for s in d.sections)
        mpm_section = [s for s in d.sections if s.startswith("IfModule mpm_")]
        if mpm_section and mpm and mpm_section[-1] != f"IfModule mpm_{mpm}_module":
            continue
        if d.name in ("KeepAliveTimeout", "MaxKeepAliveRequests") and value.get(d.name) is not None and not in_vhost:
            continue
        if not in_vhost or "05-foreman-ssl" in location:
            value[d.name] = _int(d.args)
            where[d.name] = x.note(location, f"{d.name} {d.args}")
    keepalive = [(loc, d) for loc, d in parsed if d.name == "KeepAlive"]
    vhost = [(loc, d) for loc, d in keepalive if "05-foreman-ssl" in loc]
    chosen = (vhost or keepalive)[-1:] if keepalive else []
    value["KeepAlive"] = chosen[0][1].args.lower() == "on" if chosen else None
    if chosen:
        where["KeepAlive"] = x.note(chosen[0][0], f"KeepAlive {chosen[0][1].args}")
    order = ("mpm", *APACHE_INT, "KeepAlive")
    provs = [where[name] for name in sorted(where, key=order.index)]
    for key in ("ServerLimit", "ThreadsPerChild", "MaxRequestWorkers", "MaxClients", "StartServers", "MaxRequestsPerChild",
                "KeepAliveTimeout", "MaxKeepAliveRequests"):
        value.setdefault(key, None)
    x.known("apache", value, *provs or [x.note(raws[0].location, f"mpm {mpm}")])
    # The application's values: its vhost overrides the global context; other vhosts configure other applications.
    # On a server that is Foreman's (05-foreman-ssl.conf and its includes); a Capsule has no Foreman, and Passenger
    # serves Puppet there (25-puppet.conf: the 6.2 brief's Passenger advice "also apply directly to the capsule but in
    # the context of Puppet").
    app = "05-foreman-ssl" if any("05-foreman-ssl" in loc for loc, _d in parsed) else "25-puppet"
    foreman = [(loc, d) for loc, d in parsed if d.name in PASSENGER
               and (app in loc or not any(s.startswith("VirtualHost") for s in d.sections))]
    foreman.sort(key=lambda item: app in item[0])
    chosen_passenger = {d.name: (loc, d) for loc, d in foreman}
    passenger = {name: _int(d.args) for name, (_loc, d) in chosen_passenger.items()}
    module = next(((loc, d) for loc, d in parsed if d.name == "LoadModule" and d.args.startswith("passenger_module")), None)
    if passenger:
        x.known("passenger", passenger, *[x.note(loc, f"{d.name} {d.args}") for loc, d in chosen_passenger.values()][:4])
    elif module is not None:  # Passenger runs with its built-in values for every directive
        x.known("passenger", passenger, x.note(module[0], f"LoadModule {module[1].args}"))
    else:
        x.unknown("passenger", "no Passenger directives (Puma era or Passenger not installed)")


HTTPD_INCLUDES = ("Include", "IncludeOptional")
INCLUDED = re.compile(r"/etc/httpd/conf\.d/[^/]+\.d/[^/]+\.conf$")  # a vhost's include directory: read only where included


def _included(x: Extractor, include: Directive, files: list[Raw]) -> list[tuple[str, Directive]]:
    """The directives of the files a vhost's Include line names, in name order, inside the vhost's sections (httpd
    reads them there, as if written at the Include line)."""
    import fnmatch  # start-up: only when a vhost includes files

    pattern = posixpath.normpath(posixpath.join("/etc/httpd", include.args.strip('"')))
    out: list[tuple[str, Directive]] = []
    for raw in sorted(files, key=lambda r: r.location):
        if fnmatch.fnmatchcase("/" + raw.location.lstrip("/"), pattern):
            out += [(raw.location, Directive(d.name, d.args, (*include.sections, *d.sections), d.line))
                    for d in x.parse(raw, parse_directives) or []]
    return out


def _includes(x: Extractor, raws: list[Raw], parsed: list[tuple[str, Directive]]) -> None:
    """Each httpd file read, with the files it includes and the directives it sets after each include (the last one
    in a context wins): httpd reads a vhost's include directory (conf.d/05-foreman-ssl.d/) only when the vhost
    includes it."""
    files: dict[str, list[dict[str, Any]]] = {}
    for raw in raws:
        path = "/" + raw.location.lstrip("/")
        if not path.startswith("/etc/"):
            continue
        own = [d for loc, d in parsed if loc == raw.location]
        files[path] = [{"include": d.args, "later": sorted({e.name for e in own if e.line > d.line and e.name not in HTTPD_INCLUDES})}
                       for d in own if d.name in HTTPD_INCLUDES]
    provs = [x.note(loc, f"{d.name} {d.args}") for loc, d in parsed if d.name in HTTPD_INCLUDES][:6]
    x.known("httpd_includes", files, *provs or [x.note(raws[0].location, "no Include lines")])


PG_INCLUDES = ("include", "include_if_exists", "include_dir")
PG_EXCERPT = r"^\s*(max_connections|shared_buffers|work_mem|effective_cache_size)"  # the lines quoted as evidence
PG_INCLUDE_DEPTH = 10  # PostgreSQL's CONF_FILE_MAX_DEPTH (src/include/utils/guc.h): deeper nesting is an error there


def _pg_lines(x: Extractor, raw: Raw, provs: list[Provenance], depth: int = 0) -> list[tuple[str, str, str]] | None:
    """Settings of ``raw`` in order as (name, value, file), each include directive replaced by the included file's
    settings (None: unreadable).

    As PostgreSQL reads them: a relative path is relative to the including file's directory and an
    ``include_dir`` contributes its ``*.conf`` files in name order, dot files skipped.
    """
    lines = x.parse(raw, parse_postgresql_lines)
    if lines is None:
        return None
    out: list[tuple[str, str, str]] = []
    for name, value in lines:
        if name not in PG_INCLUDES:
            out.append((name, value, redact_text(raw.location)))
            continue
        if depth >= PG_INCLUDE_DEPTH:
            x.src.problem(f"{raw.location}: {name} '{value}' nests deeper than {PG_INCLUDE_DEPTH} files: not followed")
            continue
        target = posixpath.normpath(value if value.startswith("/") else
                                    posixpath.join("/" + posixpath.dirname(raw.location).lstrip("/"), value))
        if name == "include_dir":
            found = x.src.glob(Spec(f"postgresql_include_dir {target}", paths=(f"{target}/*.conf",), glob=True))
            included = sorted((r for r in found if not posixpath.basename(r.location).startswith(".")),
                              key=lambda r: posixpath.basename(r.location).encode())
        else:
            one = x.src.read_path(target)
            included = [one] if one is not None else []
            if one is None and name == "include":
                x.src.problem(f"{raw.location}: include '{value}': {target} is not in this source, its settings are not read")
        for inner in included:
            settings = _pg_lines(x, inner, provs, depth + 1)
            if settings:
                provs.append(x.prov(inner, PG_EXCERPT))
                out += settings
    return out


def postgresql_files(x: Extractor) -> None:
    conf, auto = x.raw("postgresql_conf"), x.raw("postgresql_auto_conf")
    if conf is not None and (auto is None or posixpath.dirname(auto.location) != posixpath.dirname(conf.location)):
        # postgresql.auto.conf of the data directory whose postgresql.conf is read, never another one's
        auto = x.src.read_path("/" + posixpath.dirname(conf.location).lstrip("/") + "/postgresql.auto.conf")
    settings: dict[str, str] = {}
    sources: dict[str, list[str]] = {}  # setting -> every file that sets it, in the order PostgreSQL reads them
    provs: list[Provenance] = []
    for raw in (conf, auto):
        if raw is None:
            continue
        at = len(provs)
        lines = _pg_lines(x, raw, provs)
        if lines is not None:
            provs.insert(at, x.prov(raw, PG_EXCERPT))
            for name, value, location in lines:
                settings[name] = value
                sources.setdefault(name, []).append(location)
    if conf is None:
        x.unknown("postgresql", x.why("postgresql_conf"))
        x.unknown("postgresql_sources", x.why("postgresql_conf"))
    else:
        x.known("postgresql", settings, *provs)
        x.known("postgresql_sources", sources, *provs[:1])


# postgresql-server (RHEL), rh-postgresqlNN-postgresql-server (EL7 software collection), postgresqlNN-server
# (PGDG), postgresql-NN (Debian)
PG_SERVER_PACKAGE = re.compile(r"^(?:rh-postgresql\d+-postgresql-server|postgresql(?:\d+)?-server|postgresql-\d+)$")
VERSION = re.compile(r"\d+(?:\.\d+)*")


def postgresql_version(x: Extractor) -> None:
    """The PostgreSQL server's version: server_version live, else its package (after ``postgresql_files``/SQL)."""
    settings = x.value("postgresql") or {}
    running = VERSION.match(str(settings.get("server_version") or ""))
    if running:
        provs = x.facts["postgresql"].provenance
        where = provs[0].location if provs else "SHOW ALL"
        x.known("postgresql_version", running.group(0), x.note(where, f"server_version = {settings['server_version']}"))
        return
    raw = x.raw("installed_packages")
    servers = {name: found.group(0) for name, version in packages(x).items()
               if PG_SERVER_PACKAGE.match(name) and (found := VERSION.match(version))}
    if raw is None or not servers:
        x.unknown("postgresql_version", x.why("installed_packages") if raw is None
                  else f"{raw.location} lists no PostgreSQL server package")
        return
    name = _pg_server_in_use(x, servers)
    x.known("postgresql_version", servers[name], x.prov(raw, rf"^{re.escape(name)}-\d"))


def _pg_server_in_use(x: Extractor, servers: dict[str, str]) -> str:
    """The server package whose data directory holds the postgresql.conf read; else the newest installed."""

    provs = x.facts["postgresql"].provenance
    location = provs[0].location if provs else ""
    scl, pgdg = re.search(r"rh-postgresql(\d+)/", location), re.search(r"var/lib/pgsql/(\d+)/", location)
    wanted = (f"rh-postgresql{scl.group(1)}-postgresql-server" if scl else f"postgresql{pgdg.group(1)}-server" if pgdg
              else "postgresql-server" if "var/lib/pgsql/data/" in location else "")
    return wanted if wanted in servers else max(servers, key=lambda name: version_key(servers[name]))


def redis(x: Extractor) -> None:
    conf_raw, info_raw = x.raw("redis_conf"), x.raw("redis_info")
    conf = x.parse(conf_raw, parse_redis_conf) or {}
    info = x.parse(info_raw, parse_redis_info) or {}
    if conf_raw is None and not info:
        x.unknown("redis", x.why("redis_conf"))
        return
    # INFO shows the limit in force; the file only what the next start would use
    maxmemory = _int(info.get("maxmemory")) if "maxmemory" in info else (redis_size(conf["maxmemory"]) if "maxmemory" in conf else None)
    value = {"maxmemory": maxmemory if maxmemory is not None else 0, "used_memory": _int(info.get("used_memory")),
             "version": info.get("redis_version")}
    provs = []
    if conf_raw is not None:
        provs.append(x.prov(conf_raw, r"^\s*#?\s*maxmemory "))
    if info_raw is not None and info:
        provs.append(x.prov(info_raw, r"^(redis_version|used_memory|maxmemory):"))
    x.known("redis", value, *provs)


def candlepin(x: Extractor) -> None:
    raw = x.raw("tomcat_conf")
    if raw is None:
        x.unknown("candlepin", x.why("tomcat_conf"))
        return
    env = x.parse(raw, lambda t: parse_env(t, strict=False)) or {}
    opts = env.get("JAVA_OPTS", "")
    written = jvm_option_text(opts)  # the JVM takes the last -Xmx
    heap = None if written is None else jvm_size(written)
    if written is not None and heap is None:
        x.src.problem(f"{raw.location}: -Xmx{written[:40]} is not a usable heap size: ignored")
    if heap is not None and not 1024**2 <= heap <= 2**50:  # below 1 MiB or above 1 PiB no JVM starts
        x.src.problem(f"{raw.location}: -Xmx{written} is not a plausible heap size: ignored")
        heap = None
    value: dict[str, Any] = {"java_opts": opts, "heap_max_bytes": heap, "tomcat_max_threads": None}
    provs = [x.prov(raw, r"^JAVA_OPTS")]
    xml = x.raw("tomcat_server_xml")
    if xml is not None:
        connector = _connector(xml.text, 'port="23443"')
        threads = re.search(r'maxThreads="(\d{1,9})"', connector, re.ASCII) if connector else None
        if threads:
            value["tomcat_max_threads"] = int(threads.group(1))
            provs.append(x.note(xml.location, f'maxThreads="{threads.group(1)}"'))
    x.known("candlepin", value, *provs)


def _connector(xml: str, attribute: str) -> str | None:
    """The first ``<Connector ...>`` tag holding ``attribute`` (str.find: linear on any input)."""
    start = xml.find("<Connector")
    while start != -1:
        end = xml.find(">", start)
        if end == -1:
            return None
        if attribute in xml[start:end]:
            return xml[start:end + 1]
        start = xml.find("<Connector", end)
    return None


def qpid(x: Extractor) -> None:
    raw = x.raw("qpidd_conf")
    limits = x.value("service_limits") or {}
    pkgs = packages(x)
    if raw is None and ("qpidd.service" not in limits or (pkgs and "qpid-cpp-server" not in pkgs)):
        x.unknown("qpid", "qpidd is not installed (no /etc/qpid/qpidd.conf" + (", no qpid-cpp-server package)" if pkgs else ")"))
        return
    conf = x.parse(raw, lambda t: parse_env(t, strict=False)) or {}
    value = {"mgmt_pub_interval": _int(conf.get("mgmt-pub-interval")),
             "qpidd_nofile": (limits.get("qpidd.service") or {}).get("LimitNOFILE"),
             "qdrouterd_nofile": (limits.get("qdrouterd.service") or {}).get("LimitNOFILE")}
    provs = [x.prov(raw, r"mgmt-pub-interval")] if raw is not None else []
    x.known("qpid", value, *provs or [x.note("systemctl show qpidd.service", "LimitNOFILE")])


def mqtt(x: Extractor) -> None:
    raw = x.raw("rex_settings")
    installed = "mosquitto" in packages(x) or x.raw("mosquitto_conf") is not None
    if raw is None:
        if packages(x) and "foreman-proxy" not in packages(x):
            x.unknown("mqtt", "foreman-proxy is not installed")
        elif packages(x):
            x.known("mqtt", {"pull_rex": False, "ttl": None, "resend_interval": None, "rate_limit": None, "mosquitto": installed},
                    x.note("installed packages", "no remote_execution_ssh.yml: remote execution plugin not configured"))
        else:
            x.unknown("mqtt", x.why("rex_settings"))
        return
    data = x.parse(raw, parse_yaml) or {}
    value = {"pull_rex": str(data.get("mode", "ssh")) == "pull-mqtt", "ttl": _int(data.get("mqtt_ttl")),
             "resend_interval": _int(data.get("mqtt_resend_interval")), "rate_limit": _int(data.get("mqtt_rate_limit")),
             "mosquitto": installed}
    x.known("mqtt", value, x.prov(raw, r"mode|mqtt_(ttl|resend|rate)"))


def mongodb(x: Extractor) -> None:
    raw = x.raw("mongod_conf")
    if raw is None:
        x.unknown("mongodb", x.why("mongod_conf"))
        return
    cache = None
    engine_name = None
    if re.search(r"^[ \t]*storage[.:]", raw.text, re.MULTILINE):
        data = _undotted(x.parse(raw, parse_yaml) or {})
        storage = data.get("storage") if isinstance(data, dict) else None
        engine: Any = storage
        for key in ("wiredTiger", "engineConfig"):
            engine = engine.get(key) if isinstance(engine, dict) else None
        size = engine.get("cacheSizeGB") if isinstance(engine, dict) else None
        if isinstance(size, (int, float)) and not isinstance(size, bool) and 0 < size < 2**20:
            cache = float(size)
        elif size is not None:
            x.src.problem(f"{raw.location}: cacheSizeGB {str(size)[:40]!r} is not a usable size: ignored")
        if isinstance(storage, dict) and isinstance(storage.get("engine"), str):
            engine_name = storage["engine"]
    else:
        match = re.search(r"^[ \t]*storageEngine[ \t]*=[ \t]*(\S+)", raw.text, re.MULTILINE)
        engine_name = match.group(1) if match else None
    if engine_name is None:
        engine_name = _mongodb_default_engine(x)
    x.known("mongodb", {"cache_size_gb": cache, "engine": engine_name},
            x.prov(raw, r"cacheSizeGB|storageEngine|engine:|dbpath"))


def _undotted(data: Any) -> Any:
    """mongod.conf's YAML with puppet-mongodb's flat dotted keys (``storage.wiredTiger.engineConfig.cacheSizeGB: 25.1``,
    the form the installer writes) nested as mongod reads them; nested keys stay as they are."""
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] = {}
    for key, value in data.items():
        parts = str(key).split(".")
        node = out
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        last = parts[-1]
        if isinstance(value, dict) and isinstance(node.get(last), dict):
            node[last].update(value)
        else:
            node[last] = value
    return out


def _mongodb_default_engine(x: Extractor) -> str | None:
    """MongoDB's default engine by server version: MMAPv1 before 3.2, WiredTiger from 3.2 on."""
    for name, version in packages(x).items():
        if "mongodb-server" in name and version:
            major_minor = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
            return "mmapv1" if major_minor < (3, 2) else "wiredTiger"
    return None


def hammer(x: Extractor) -> None:
    raw = x.raw("hammer_conf")
    if raw is None:
        x.unknown("hammer", x.why("hammer_conf"))
        return
    data = x.parse(raw, parse_yaml) or {}
    section = data.get("foreman") if isinstance(data.get("foreman"), dict) else data
    setting = section.get("request_timeout") if isinstance(section, dict) else None
    timeout = -1 if setting in (-1, "-1") else _int(setting)  # -1: no timeout
    x.known("hammer", {"request_timeout": timeout}, x.prov(raw, r"request_timeout") if timeout is not None else
            x.absent(raw.location, "no line sets :request_timeout:, so hammer's default applies"))
