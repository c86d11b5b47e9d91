"""Build a FactSet from any source: every catalogue fact is either known (with provenance) or unknown with a reason."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from foretune.facts.catalog import CATALOG
from foretune.facts.extract import installer, logs, measured, platform, services, workload
from foretune.facts.extract.core import Extractor
from foretune.facts.model import LOST, Fact, FactSet, Provenance
from foretune.host.sources.base import Source

if TYPE_CHECKING:
    from foretune.host.sources.live import LiveHost

ENV_REDIS_URL = "FORETUNE_REDIS_URL"
# what a fact lost to the damage was looked for in, where its reason when absent would say the source has none
LOST_WHY = {"managed_hosts": "the archive may hold the host count (foreman-maintain's metrics) past the damage: give --hosts"}


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
            x.unknown(spec.name, reason := _absent_reason(source, spec.name, spec.needs_root))
            if source.unsure and not reason.startswith("only read live"):  # what gives it may be past the damage
                partial.add(spec.name)
    incomplete = getattr(source, "incomplete", None)
    if incomplete:
        if _logs_cut(source):
            partial.add("log_incidents")
        else:  # every log read whole: its incidents stand (the Puma capacity they are weighed against is its own fact)
            partial.discard("log_incidents")
        if getattr(source, "garbled", False):  # gzip's CRC covers the whole stream: every member may be changed
            partial.update(x.facts.facts)
        for name in partial:  # a fact a read lost to the damage left unknown is not judged, whatever it looked for
            fact = x.facts[name]
            if not fact.known and not fact.lost:
                x.facts.add(Fact.unknown(name, f"{LOST}: {LOST_WHY.get(name) or fact.unknown_reason}"))
        x.facts.damage = damage_line(source, x.facts, partial)
        x.facts.garbled = bool(getattr(source, "garbled", False))
        source.problems[:] = [x.facts.damage, *(p for p in source.problems if not _told(source, p))]
        where = f"{source.label.rsplit('/', 1)[-1]} is {incomplete}"
        x.facts.partial.update((name, f"read in part: {where}, so what came after that was not read")
                               for name in partial if x.facts[name].known)
    x.facts.problems.extend(source.problems)
    return x.facts


def _logs_cut(source: Source) -> bool:
    """Whether the damage cut a log (the member it came in) or may have taken some (a directory logs are in was not
    finished); logs read whole before it count in full."""
    from foretune.logs.kinds import PATTERNS, kind_of  # start-up: only for a damaged archive

    may_lose = getattr(source, "may_lose_matches", None)
    cut = getattr(source, "cut_at", None)
    if may_lose is None:
        return True
    return any(may_lose(pattern) for pattern, _ in PATTERNS) or (
        cut is not None and kind_of(cut) is not None and bool(getattr(source, "read_in_part", lambda rel: True)(cut)))


def _told(source: Source, problem: str) -> bool:
    """A log-reading problem about the member the damage cut: the damage line says how far it was read."""
    cut = getattr(source, "cut_at", None)
    return bool(cut) and problem.startswith(f"{cut}: truncated or corrupt after ")


def damage_line(source: Source, facts: FactSet, partial: set[str]) -> str:
    """The damage in one line: where, why, the facts lost to it and the facts read in part (a fact read whole before
    the damage is neither). ``partial``: the facts whose reads the damage lost or cut."""
    name = source.label.rsplit("/", 1)[-1]
    what = getattr(source, "damage", None) or getattr(source, "incomplete", "damaged")
    cut = getattr(source, "cut_at", None)
    read_to = next((p.split(": truncated or corrupt ", 1)[1].split(" (", 1)[0] for p in source.problems
                    if cut and p.startswith(f"{cut}: truncated or corrupt after ")), None)
    lost = [spec.name for spec in CATALOG if spec.name in partial and not facts[spec.name].known]
    part = [spec.name + (f" ({cut} read {read_to})" if spec.name == "log_incidents" and read_to else "")
            for spec in CATALOG if spec.name in partial and facts[spec.name].known]
    garbled = ("; gzip checks its data only at the end of the stream, so every member read may hold damaged data"
               if getattr(source, "garbled", False) else "")
    return (f"{name} is {what}{garbled}: facts lost to the damage: {', '.join(lost) or 'none'}"
            + (f"; read in part: {', '.join(part)}" if part else ""))


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
