"""Redis: nothing to tune, a share of the memory budget on releases that run it."""

from __future__ import annotations

from tests.plan.components.helpers import GIB, plan


def test_redis_memory_only_where_the_release_runs_redis() -> None:
    redis = [m for m in plan("satellite", "6.15").memory if m.component == "Redis"]
    # planner.yaml memory/redis: a foretune estimate of 0.1-0.5 GiB, planned at its middle, 0.3 GiB
    assert len(redis) == 1 and redis[0].bytes == int(0.3 * GIB)
    assert (redis[0].low_bytes, redis[0].high_bytes) == (int(0.1 * GIB), int(0.5 * GIB))
    assert not [m for m in plan("satellite", "6.7").memory if m.component == "Redis"]  # Satellite 6.7: dynflowd, no Redis


def test_redis_makes_thp_advice_name_it() -> None:
    # the Foreman guide's Redis section asks for transparent huge pages off
    assert "gf-redis" in plan("satellite", "6.15").tunables["os.thp"].foretune.citations
