"""Build a FactSet from any source: every catalogue fact is either known (with provenance) or unknown with a reason."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from foretune.facts.catalog import CATALOG
from foretune.facts.extract import installer, logs, measured, platform, services, workload
from foretune.facts.extract.core import Extractor
from foretune.facts.model import FactSet, Provenance
from foretune.host.sources.base import Source

if TYPE_CHECKING:
    from foretune.host.sources.live import LiveHost

ENV_REDIS_URL = "FORETUNE_REDIS_URL"


def extract(source: Source, *, hosts: int | None = None) -> FactSet:
    """Read every fact of the catalogue from ``source``."""
    x = Extractor(source)
    partial: set[str] = set()  # facts that read (or looked for) a file a cut archive may have lost, or such a fact
    for step in STEPS:
        known_before, unsure_before, used_before = set(x.facts.facts), len(source.unsure), len(x.used)
        step(x)
        if len(source.unsure) > unsure_before or partial.intersection(x.used[used_before:]):
            partial.update(name for name in x.facts.facts if name not in known_before)
    if hosts is not None and not x.has("managed_hosts"):
        x.known("managed_hosts", hosts, Provenance(source.kind, "command line", f"--hosts {hosts}"))
    for spec in CATALOG:
        if spec.name not in x.facts.facts:
            x.unknown(spec.name, _absent_reason(source, spec.name, spec.needs_root))
    x.facts.problems.extend(source.problems)
    incomplete = getattr(source, "incomplete", None)
    if incomplete:
        partial.add("log_incidents")  # the logs beyond the cut are not read
        if incomplete.startswith("corrupt"):  # damage found by a checksum: what came before it may be changed too
            partial.update(x.facts.facts)
        missing = [spec.name for spec in CATALOG if not x.facts[spec.name].known]
        unsure = [spec.name for spec in CATALOG if x.facts[spec.name].known and spec.name in partial]
        name = source.label.rsplit("/", 1)[-1]
        x.facts.problems.append(f"{name}: {incomplete}: these facts may be missing: {', '.join(missing) or 'none'}"
                                + (f"; these may be incomplete or wrong (they read files the damage may have lost or "
                                   f"changed): {', '.join(unsure)}"
                                   if unsure else ""))
    return x.facts


def _absent_reason(source: Source, name: str, needs_root: bool) -> str:
    if source.kind == "sosreport":
        if name in ("postgresql_connections", "max_facts_per_host"):
            return "only read live (needs the database)"
        if name == "managed_hosts":
            return "the sosreport has no host count (no foreman-maintain metrics): give --hosts"
    if needs_root and source.kind == "live":
        return "needs root"
    return "not available in this source"


def _live(src: Source) -> LiveHost | None:
    """``src`` when it reads this host; the live module is imported only by a run that reads one."""
    module = sys.modules.get("foretune.host.sources.live")
    return src if module is not None and isinstance(src, module.LiveHost) else None


def _postgresql_and_live(x: Extractor) -> None:
    services.postgresql_files(x)
    from foretune.host.sources.replay import Replay  # start-up: only when _postgresql_and_live runs

    live = _live(x.src)
    if live is not None:
        from foretune.facts.extract.live_sql import live_sql  # start-up: only when _postgresql_and_live runs

        live_sql(x, live)
    elif isinstance(x.src, Replay):  # a collector snapshot: the query outputs it recorded
        from foretune.facts.extract.live_sql import recorded_sql  # start-up: only when _postgresql_and_live runs

        recorded_sql(x, x.src, x.src.raw)


def _redis(x: Extractor) -> None:
    """Live: a Redis named by FORETUNE_REDIS_URL (redis://host:port or unix:///path) replaces the default."""
    from foretune.host.specs import BY_NAME  # start-up: only when _redis runs

    live = _live(x.src)
    if live is None:
        return
    url = live.environ.get(ENV_REDIS_URL)
    if not url:
        return
    argv = ["redis-cli", "-s", url[len("unix://"):], "info"] if url.startswith("unix://") else ["redis-cli", "-u", url, "info"]
    x._cache["redis_info"] = live.run(argv, BY_NAME["redis_info"])


# every extraction step, in order (later steps read facts earlier ones set)
STEPS: tuple[Callable[[Extractor], None], ...] = (
    installer.product,
    installer.installer,
    platform.identity,
    platform.memory,
    platform.cpus,
    platform.thp_and_tuned,
    platform.tuned_profiles,
    platform.sysctls,
    platform.service_limits,
    platform.storage,
    services.puma,
    services.dynflow,
    services.pulp,
    services.apache,
    _postgresql_and_live,
    services.postgresql_version,
    _redis,
    services.redis,
    services.candlepin,
    services.qpid,
    services.mqtt,
    services.mongodb,
    services.hammer,
    workload.hosts_and_tasks,
    measured.memory_pressure,
    measured.process_rss,
    measured.other_processes,
    measured.passenger_status,
    measured.cpu_steal,
    measured.table_sizes,
    measured.history_table_rows,
    measured.katello_agents,
    measured.pull_rex_clients,
    measured.task_hosts,
    logs.log_incidents,
)
