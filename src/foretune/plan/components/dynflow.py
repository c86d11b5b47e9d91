"""Foreman's task workers: Dynflow on Sidekiq (instances and threads) or the older dynflowd executors."""

from __future__ import annotations

from foretune.knowledge import module_default, module_default_citation
from foretune.plan.constants import cite, const, stepped
from foretune.plan.model import Fix, MemoryItem, Setting
from foretune.plan.sizing import C, Component, Sizing, box, given, memory_item, num
from foretune.term import plural


def plan(s: Sizing) -> None:
    if not s.server:
        return
    if s.f.sidekiq:
        _sidekiq(s)
        return
    table = const("dynflowd_executors_by_ram_gib")
    want = stepped("dynflowd_executors_by_ram_gib", s.ram_gib, inclusive=False)
    default = module_default("dynflowd", "executors")
    if s.era62:  # foreman-tasks 0.7 reads no EXECUTORS_COUNT: one executor runs, nothing to change
        runs = Setting(default, "foreman-tasks default: one executor", ("ft-sysconfig-62",))
        s.add("dynflow.executors", "foreman-tasks executors", "count", runs,
              Setting(default, "one executor: foreman-tasks 0.7 (Satellite 6.2) has no EXECUTORS_COUNT setting, and the "
                      "6.2 brief gives no count", ("ft-sysconfig-62",), "", (given(runs, "executors that run"),)))
        return
    s.add("dynflow.executors", "dynflowd EXECUTORS_COUNT", "count",
          Setting(default, "dynflowd default", (module_default_citation("dynflowd"),)),
          Setting(want, _executor_steps(table), (cite("dynflowd_executors_by_ram_gib"),),
                  f"step table {table} at {s.ram_gib:.1f} GiB",
                  (C("dynflowd_executors_by_ram_gib"), box("RAM GiB", round(s.ram_gib, 1)))),
          Fix("file", s.f.tasks_sysconfig, f"EXECUTORS_COUNT={want}"))


def _executor_steps(table: list[list[float | None]]) -> str:
    """The executors-by-RAM step table in words: ``executors by RAM: 1 below 28.8 GiB, 2 below 65 GiB, 3 at 65 GiB or more``."""
    steps = [f"{count} below {num(bound)} GiB" for bound, count in table if bound is not None]
    last_bound = table[-2][0] if len(table) > 1 and table[-2][0] is not None else 0
    return f"executors by RAM: {', '.join(steps)}, {table[-1][1]} at {num(last_bound)} GiB or more"


def _sidekiq(s: Sizing) -> None:
    default_instances, default_concurrency = module_default("dynflow_sidekiq", "instances"), module_default("dynflow_sidekiq", "concurrency")
    inst = stepped("sidekiq_instances_by_hosts", s.inp.hosts)
    conc = const("sidekiq_concurrency")
    if s.f.dynflow_worker_options:
        s.add("dynflow.sidekiq_instances", "Dynflow Sidekiq worker instances", "count",
              Setting(default_instances, "puppet-foreman default", ("pf-dynflow",)),
              Setting(inst, f"more instances rather than more threads; {inst} for {plural(s.inp.hosts, 'host')} (the guide goes from "
                            "one to three; the step by the profiles' host ranges is a foretune estimate)",
                      (cite("sidekiq_instances_by_hosts"), "foretune-estimate"), f"step table {const('sidekiq_instances_by_hosts')} at {plural(s.inp.hosts, 'host')}",
                      (C("sidekiq_instances_by_hosts"), box("hosts", s.inp.hosts))),
              Fix("hiera", "foreman::dynflow_worker_instances", inst))
    else:  # one worker runs: the plan neither changes nor budgets a second one (pf-dynflow-pool)
        one = Setting(default_instances, "puppet-foreman default: one worker", ("pf-dynflow-pool",))
        s.add("dynflow.sidekiq_instances", "Dynflow Sidekiq worker instances", "count", one,
              Setting(default_instances, f"one worker: this installer has no worker-instances option (puppet-foreman 17, "
                      f"foreman-installer 2.5, added it); the guide's more instances ({inst} for {plural(s.inp.hosts, 'host')}) "
                      "come with a later release", ("pf-dynflow-pool", cite("sidekiq_instances_by_hosts")), "",
                      (given(one, "workers that run"), C("sidekiq_instances_by_hosts"), box("hosts", s.inp.hosts))))
    s.add("dynflow.sidekiq_concurrency", "Dynflow Sidekiq concurrency per instance", "count",
          Setting(default_concurrency, "puppet-foreman default", ("pf-dynflow",)),
          Setting(conc, f"limited benefit above {conc} threads (Ruby)", ("gf-dynflow",), "", (C("sidekiq_concurrency"),)),
          # before puppet-foreman 17 the single worker's concurrency is foreman::dynflow_pool_size (pf-dynflow-pool)
          Fix("hiera", "foreman::dynflow_worker_concurrency" if s.f.dynflow_worker_options else "foreman::dynflow_pool_size", conc))


def _hosts_queue(s: Sizing) -> bool:
    """Katello runs one more Sidekiq worker for its hosts queue on releases that have it."""
    return bool(s.katello and s.f.hosts_queue)


def memory(s: Sizing) -> list[MemoryItem]:
    t, items = s.tunables, []
    if "dynflow.sidekiq_instances" in t:
        n = t["dynflow.sidekiq_instances"].foretune.value + (1 if _hosts_queue(s) else 0)
        items.append(memory_item("Dynflow Sidekiq", n, "sidekiq_instance",
                                 f"{plural(n, 'worker')} (incl. the hosts queue)" if _hosts_queue(s) else plural(n, "worker")))
        items.append(memory_item("Dynflow orchestrator", 1, "dynflow_orchestrator", "one orchestrator"))
    if "dynflow.executors" in t:
        n = t["dynflow.executors"].foretune.value
        items.append(memory_item("dynflowd", n, "dynflowd_executor", plural(n, "executor")))
    return items


def connections(s: Sizing, installer: bool) -> list[tuple[str, int]]:
    t, budget = s.tunables, []
    if "dynflow.sidekiq_instances" in t:
        inst, conc = s.value("dynflow.sidekiq_instances", installer), s.value("dynflow.sidekiq_concurrency", installer)
        extra = const("sidekiq_connections_extra")
        budget.append((f"Sidekiq {plural(inst, 'worker')} x ({conc} + {extra}) + orchestrator (1 + {extra})", inst * (conc + extra) + 1 + extra))
        if _hosts_queue(s):
            budget.append((f"Katello hosts-queue worker (1 + {extra})", 1 + extra))
    if "dynflow.executors" in t:
        n = s.value("dynflow.executors", installer)
        rails_pool = module_default("foreman_db_pool", "base")  # each executor's ActiveRecord pool
        budget.append((f"dynflowd {plural(n, 'executor')} x {rails_pool}", n * rails_pool))
    return budget


COMPONENT = Component("dynflow", memory=memory, connections=connections)
