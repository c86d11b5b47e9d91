"""The resources of one box, read from a plan's tunables (what the box runs) with ``--set`` what-ifs on top."""

from __future__ import annotations

from typing import Any, NamedTuple

from foretune.errors import UsageError


class Network(NamedTuple):
    """Capacities of the serving path; every field is a count or seconds."""

    cpus: int
    ram_gib: float
    apache_slots: int  # MaxRequestWorkers (event) or MaxClients (prefork)
    apache_backlog: int  # ListenBacklog: connections waiting for a slot
    puma_workers: int
    puma_threads: int  # threads_max per worker
    puma_backlog: int  # foreman.socket listen backlog (net.core.somaxconn caps it)
    db_pool: int  # ActiveRecord pool per Puma worker
    pg_max_connections: int
    pg_other_connections: int  # Candlepin, Pulp, Sidekiq, smart proxy: what the plan's budget gives besides Puma
    candlepin_threads: int  # Tomcat maxThreads
    candlepin_accept: int  # Tomcat acceptCount: the OS backlog once maxConnections connections are open
    sidekiq_hosts_queue: int  # concurrency of the hosts_queue worker (profile uploads)
    content_workers: int  # pulpcore-content processes
    mosquitto_nofile: int
    client_timeout_s: float  # subscription-manager server_timeout
    proxy_timeout_s: float  # Apache ProxyTimeout towards Puma
    network_mbps: float  # the box's network link
    generation: str = "puma-event"
    cpu_background: float = 0.0  # cores taken by other work (a shared box); 0 for a server
    candlepin_max_connections: int = 0  # Tomcat maxConnections: connections held waiting for a thread (0: none)
    puma_handoff_s: float = 0.0  # a freed thread's idle time before it takes a request from the backlog (0: at once)

    def describe(self) -> dict[str, Any]:
        return dict(self._asdict())


# --set names: plan tunable ids and the short names the issue and the guides use -> Network fields
SET_NAMES: dict[str, tuple[str, ...]] = {
    "puma.workers": ("puma_workers",),
    "foreman.puma_workers": ("puma_workers",),
    "puma.threads_max": ("puma_threads",),
    "puma.threads_min": (),  # memory only: the model's threads are threads_max
    "foreman.puma_threads": ("puma_threads",),
    "foreman.db_pool": ("db_pool",),
    "postgresql.max_connections": ("pg_max_connections",),
    "apache.max_request_workers": ("apache_slots",),
    "apache.max_clients": ("apache_slots",),
    "apache.listen_backlog": ("apache_backlog",),
    "sysctl.somaxconn": ("puma_backlog",),
    "candlepin.max_threads": ("candlepin_threads",),
    "candlepin.max_connections": ("candlepin_max_connections",),
    "pulp.content_workers": ("content_workers",),
    "mosquitto.limit_nofile": ("mosquitto_nofile",),
    "dynflow.hosts_queue_concurrency": ("sidekiq_hosts_queue",),
    "cpus": ("cpus",),
    "proxy_timeout": ("proxy_timeout_s",),
    "client_timeout": ("client_timeout_s",),
    "network_mbps": ("network_mbps",),
}


def parse_sets(items: list[str] | None) -> dict[str, float]:
    """``--set NAME=VALUE`` pairs; an unknown name or a non-number is a usage error."""
    found: dict[str, float] = {}
    for item in items or []:
        name, sep, raw = item.partition("=")
        name = name.strip().lower()
        if not sep or not name:
            raise UsageError(f"--set {item!r}: expected TUNABLE=VALUE, e.g. foreman.puma_threads=16")
        if name not in SET_NAMES:
            raise UsageError(f"--set {name}: not a tunable the model knows (one of {', '.join(sorted(SET_NAMES))})")
        try:
            value = float(raw)
        except ValueError:
            raise UsageError(f"--set {name}={raw}: the value must be a number") from None
        if value <= 0 or value != value or value == float("inf"):
            raise UsageError(f"--set {name}={raw}: the value must be a positive number")
        found[name] = value
    return found


def apply_sets(net: Network, sets: dict[str, float]) -> Network:
    """``net`` with the what-ifs applied; the pool follows threads as the installer makes it (db_pool >= threads)."""
    changes: dict[str, Any] = {}
    for name, value in sets.items():
        for fieldname in SET_NAMES[name]:
            changes[fieldname] = value if fieldname.endswith(("_s", "_mbps")) else round(value)
    out = net._replace(**changes)
    if "puma_threads" in changes and "db_pool" not in changes:
        out = out._replace(db_pool=max(out.db_pool, out.puma_threads))
    return out


def _value(plan: Any, tid: str, column: str, default: Any) -> Any:
    tunable = plan.tunables.get(tid)
    if tunable is None:
        return default
    setting = getattr(tunable, column)
    return default if setting.value is None else setting.value


def from_plan(plan: Any, column: str = "installer") -> Network:
    """The box as ``plan`` describes it: ``column`` "installer" (what runs) or "foretune" (what plan recommends)."""
    from foretune import knowledge  # start-up: only when from_plan runs

    data = knowledge.load_data("model.yaml")["network"]
    features = plan.release.features
    if not getattr(features, "puma", False):
        raise UsageError(f"{plan.release.product} {plan.release.version} runs Passenger, not Puma: the model covers "
                         "the Puma generations only (see docs/model.md, limitations)")
    inp = plan.input
    threads = int(_value(plan, "puma.threads_max", column, 16))
    workers = int(_value(plan, "puma.workers", column, 2))
    pool = int(_value(plan, "foreman.db_pool", column, threads))
    slots = _value(plan, "apache.max_request_workers", column, None) or _value(plan, "apache.max_clients", column, 256)
    budget = dict(plan.installer_connection_budget if column == "installer" else plan.connection_budget)
    others = sum(v for k, v in budget.items() if "puma" not in k.lower() and "foreman" not in k.lower())
    content = _value(plan, "pulp.content_workers", column, 2 * min(8, inp.cpus) + 1)
    return Network(
        cpus=inp.cpus, ram_gib=inp.ram_bytes / 2**30, apache_slots=int(slots),
        apache_backlog=int(data["apache_listen_backlog"]["value"]),
        puma_workers=workers, puma_threads=threads,
        puma_backlog=int(data["puma_socket_backlog"]["value"]),
        db_pool=max(pool, 1), pg_max_connections=int(_value(plan, "postgresql.max_connections", column, 500)),
        pg_other_connections=int(others),
        candlepin_threads=int(knowledge.module_default("candlepin_tomcat", "max_threads")),
        candlepin_accept=int(data["candlepin_accept_count"]["value"]),
        candlepin_max_connections=int(data["candlepin_max_connections"]["value"]),
        sidekiq_hosts_queue=int(data["hosts_queue_concurrency"]["value"]),
        content_workers=int(content),
        mosquitto_nofile=int(knowledge.module_default("mosquitto_nofile")),
        client_timeout_s=float(data["client_timeout"]["value"]),
        proxy_timeout_s=float(data["proxy_timeout"]["value"]),
        network_mbps=float(data["network_mbps"]["value"]),
        generation=str(plan.release.generation),
    )
