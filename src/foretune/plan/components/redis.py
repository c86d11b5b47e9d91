"""Redis (Foreman 3.x and later): Dynflow's and Pulp's task state; nothing to tune, a share of the memory budget."""

from __future__ import annotations

from foretune.plan.model import MemoryItem
from foretune.plan.sizing import Component, Sizing, memory_item


def memory(s: Sizing) -> list[MemoryItem]:
    return [memory_item("Redis", 1, "redis", "task state only")] if s.f.redis else []


COMPONENT = Component("redis", memory=memory)
