"""One planner module per component: each reads a :class:`~foretune.plan.sizing.Sizing` and adds its own tunables.

A module exports its planning steps (``plan`` or ``plan_*``, adding tunables with their citations and the
arithmetic ``--explain`` shows) and ``COMPONENT``: its share of the memory and PostgreSQL connection budgets.
A new component is one module here, its tests under tests/plan/components/, and its lines below.
"""

from __future__ import annotations

from collections.abc import Callable

from foretune.plan.components import (
    apache,
    candlepin,
    dynflow,
    hammer,
    kernel,
    mongodb,
    mqtt,
    postgresql,
    pulp,
    puma,
    puppet,
    qpid,
    redis,
    smart_proxy,
)
from foretune.plan.sizing import Component, Sizing

# The budgets list each component's memory and connections in this order (the report's order).
COMPONENTS: tuple[Component, ...] = tuple(m.COMPONENT for m in (
    kernel, apache, puma, dynflow, postgresql, candlepin, pulp, mongodb, redis, qpid, mqtt, hammer, puppet, smart_proxy))

# Order matters: Passenger before prefork (ServerLimit uses the pool), every other service before Puma (its
# workers get the RAM that is left), Puma before max_connections, max_connections before the PostgreSQL cache
# settings (they share the memory budget).
STEPS: tuple[Callable[[Sizing], None], ...] = (
    kernel.plan, puma.plan_passenger, apache.plan, dynflow.plan, pulp.plan, candlepin.plan, mongodb.plan, qpid.plan,
    mqtt.plan, smart_proxy.plan, postgresql.plan_memory, puma.plan_puma, puma.plan_db_pool, postgresql.plan_connections,
    postgresql.plan_cache, hammer.plan, puppet.plan)
