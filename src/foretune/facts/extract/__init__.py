"""Build a FactSet from any source: every catalogue fact is either known (with provenance) or unknown with a reason."""

from __future__ import annotations

import sys
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
    installer.product(x)
    installer.installer(x)
    platform.identity(x)
    platform.memory(x)
    platform.cpus(x)
    platform.thp_and_tuned(x)
    platform.sysctls(x)
    platform.service_limits(x)
    platform.storage(x)
    services.puma(x)
    services.dynflow(x)
    services.pulp(x)
    services.apache(x)
    _postgresql_and_live(x)
    services.postgresql_version(x)
    _redis(x)
    services.redis(x)
    services.candlepin(x)
    services.qpid(x)
    services.mqtt(x)
    services.mongodb(x)
    services.hammer(x)
    workload.hosts_and_tasks(x)
    measured.memory_pressure(x)
    measured.process_rss(x)
    measured.passenger_status(x)
    measured.cpu_steal(x)
    measured.table_sizes(x)
    measured.history_table_rows(x)
    measured.katello_agents(x)
    measured.pull_rex_clients(x)
    measured.task_hosts(x)
    logs.log_incidents(x)
    if hosts is not None and not x.has("managed_hosts"):
        x.known("managed_hosts", hosts, Provenance(source.kind, "command line", f"--hosts {hosts}"))
    for spec in CATALOG:
        if spec.name not in x.facts.facts:
            x.unknown(spec.name, _absent_reason(source, spec.name, spec.needs_root))
    x.facts.problems.extend(source.problems)
    incomplete = getattr(source, "incomplete", None)
    if incomplete:
        missing = [spec.name for spec in CATALOG if not x.facts[spec.name].known]
        name = source.label.rsplit("/", 1)[-1]
        x.facts.problems.append(f"{name}: {incomplete}: these facts may be missing: {', '.join(missing) or 'none'}")
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
