"""Pulp: pulpcore workers and its API and content gunicorn processes, or Pulp 2's celery workers."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.plan.constants import const
from foretune.plan.model import Fix, Input, MemoryItem, Setting
from foretune.plan.sizing import Component, Sizing, box, memory_item
from foretune.term import plural


def plan(s: Sizing) -> None:
    if not s.katello:
        return
    if s.f.pulpcore:
        _pulpcore(s)
    if s.f.pulp2:
        cap = module_default("pulp2", "workers_cap")
        want = min(cap, s.inp.cpus)
        inst = Setting(want, f"installer default min(CPUs, {cap})", ("pulp2-worker-defaults",))
        s.add("pulp2.concurrency", "Pulp 2 workers (PULP_CONCURRENCY)", "count", inst,
              s.same(inst, f"one per CPU up to {cap}", "pulp2-worker-defaults", "g62-pulp"), Fix("hiera", "katello::num_pulp_workers", want))


def _pulpcore(s: Sizing) -> None:
    cpus = s.inp.cpus
    cap = module_default("pulpcore", "workers_cap")
    workers = min(cap, cpus)
    cites = ("pulpcore-worker-defaults",)
    if s.f.pulp_api_formula == "one":
        api, api_why = 1, "installer default: one API worker on this release"
    else:
        api_cap = module_default("pulpcore", "api_cap")
        api, api_why = min(api_cap, cpus) + 1, f"installer default min({api_cap}, CPUs) + 1"
    if s.f.pulp_content_formula == "two":
        content, content_why = 2, "installer default: gunicorn -w 2 on this release"
    else:
        content, content_why = 2 * min(cap, cpus) + 1, f"installer default 2 x min({cap}, CPUs) + 1"
    if s.f.pulpcore_worker_count_option:
        inst_w = Setting(workers, f"installer default min({cap}, CPUs)", cites)
        s.add("pulp.workers", "pulpcore workers", "count", inst_w,
              Setting(workers, f"min({cap}, CPUs): more degrade through I/O blocking and load PostgreSQL", cites,
                      f"min({cap}, {cpus}) = {workers}", (Input("pulpcore worker cap", cap, "pulpcore-worker-defaults"), box("CPUs", cpus))),
              Fix("hiera", "foreman_proxy_content::pulpcore_worker_count", workers))
    else:  # puppet-pulpcore 1.1.0 starts pulpcore-worker@1 and @2, and no module of this installer sets another count
        fixed = module_default("pulpcore", "workers_before_option")
        inst_w = Setting(fixed, "puppet-pulpcore runs pulpcore-worker@1 and @2 on this release", ("pulpcore-options-history",))
        s.add("pulp.workers", "pulpcore workers", "count", inst_w,
              s.same(inst_w, "this installer has no worker-count option (foreman-installer 2.2 adds it)"))
    # the gunicorn counts: pulpcore::*_service_worker_count from puppet-pulpcore 3.1.0 (foreman-installer 2.4); before, no key
    gunicorn = s.f.pulpcore_gunicorn_options
    inst_api = Setting(api, api_why, ("pp-gunicorn-history",) if s.f.pulp_api_formula == "one" else cites)
    s.add("pulp.api_workers", "pulpcore API gunicorn workers", "count", inst_api,
          s.same(inst_api, f"{api_why}; no guide asks for more"),
          *((Fix("hiera", "pulpcore::api_service_worker_count", api),) if gunicorn else ()))
    inst_c = Setting(content, content_why, ("pp-gunicorn-history",) if s.f.pulp_content_formula == "two" else cites)
    s.add("pulp.content_workers", "pulpcore content gunicorn workers", "count", inst_c, s.same(inst_c, "installer default"),
          *((Fix("hiera", "pulpcore::content_service_worker_count", content),) if gunicorn else ()))


def memory(s: Sizing) -> list[MemoryItem]:
    t, items = s.tunables, []
    if s.f.pulpcore and s.katello:
        workers = t["pulp.workers"].foretune.value if "pulp.workers" in t else min(module_default("pulpcore", "workers_cap"), s.inp.cpus)
        gunicorn = sum(t[k].foretune.value for k in ("pulp.api_workers", "pulp.content_workers") if k in t)
        items.append(memory_item("pulpcore workers", workers, "pulp_worker", plural(workers, "worker")))
        items.append(memory_item("pulpcore gunicorn", gunicorn, "pulp_gunicorn", plural(gunicorn, "gunicorn process", "gunicorn processes")))
    if s.f.pulp2 and s.katello:
        workers = min(module_default("pulp2", "workers_cap"), s.inp.cpus)
        items.append(memory_item("Pulp 2 workers", workers, "pulp2_worker", plural(workers, "worker")))
        if s.server:
            items.append(memory_item("Pulp 2 wsgi (httpd)", 3, "pulp2_wsgi", "3 wsgi:pulp processes (6.2 brief)"))
    return items


def connections(s: Sizing, installer: bool) -> list[tuple[str, int]]:
    if "pulp.workers" not in s.tunables:
        return []
    pw, pa, pc = (s.value(k, installer) for k in ("pulp.workers", "pulp.api_workers", "pulp.content_workers"))
    per_worker, per_gunicorn = const("pulp_connections_per_worker"), const("pulp_connections_per_gunicorn")
    gunicorn = f"{pa + pc} gunicorn" if per_gunicorn == 1 else f"{pa + pc} gunicorn x {per_gunicorn}"
    return [(f"pulpcore {plural(pw, 'worker')} x {per_worker} + {gunicorn}", pw * per_worker + (pa + pc) * per_gunicorn),
            ("Smart Proxy container gateway", const("proxy_container_gateway_connections"))]


COMPONENT = Component("pulp", memory=memory, connections=connections)
