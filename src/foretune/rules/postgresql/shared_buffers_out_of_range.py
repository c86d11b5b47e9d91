"""shared_buffers outside the guide's range for the release (6.2: 15-25 % of RAM; later: 2 GiB - 25 %)."""

from __future__ import annotations

from foretune.facts.numbers import whole
from foretune.knowledge import threshold
from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.postgresql._defaults import pg_default
from foretune.units import format_gib, format_gib_range, pg_size


class SharedBuffersOutOfRange(PlanRule):
    id = "pg-shared-buffers-out-of-range"
    title = "PostgreSQL shared_buffers within the guide's range for the release"
    component = "postgresql"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("postgresql", "ram_bytes")
    citations = ("gf-postgresql", "g62-postgresql", "pg-docs-92-shared-buffers", "pg-release-93-shared-buffers", "pg-conf-defaults",
                 "foretune-estimate")
    tunable = "postgresql.shared_buffers"

    def check(self, ctx: Context) -> Outcome:
        from foretune.plan.components.postgresql import (
            shared_buffers_range,  # start-up: plan code, only when the check runs
        )

        assert ctx.plan is not None
        current = pg_size(ctx.facts.value("postgresql").get("shared_buffers"))
        if current is None:
            default = pg_default(ctx, "shared_buffers")
            return self.skipped(f"shared_buffers not set: {default.value}, {default.origin}")
        ram = ctx.facts.value("ram_bytes")
        low, high, cite, wording = shared_buffers_range(ctx.plan.release, ram)
        t = self.recommendation(ctx)
        slack = threshold("shared_buffers_range_tolerance")
        if low * (1 - slack) <= current <= high * (1 + slack):
            return self.passed(f"shared_buffers {format_gib(current)} within {format_gib_range(low, high)}: {wording}", citations=(cite,))
        why = "too small to cache the hot tables" if current < low else "more than a quarter of RAM starves the other services"
        shm, said = shm_fixes(ctx)
        shown = current_text if (current_text := str(ctx.facts.value("postgresql")["shared_buffers"]).strip("'\" ")) else format_gib(current)
        return self.failed(f"shared_buffers {shown} is outside {format_gib_range(low, high)}, {wording} of {format_gib(ram)}: {why}{said}",
                           current=ctx.facts.value("postgresql")["shared_buffers"], recommended=t.foretune.value,
                           evidence=ctx.evidence("postgresql", "ram_bytes", about=("shared_buffers", "MemTotal"))
                           + (tuple(e for e in ctx.evidence("sysctl", about=("kernel.shmmax", "kernel.shmall")) if "kernel.shm" in e.excerpt)
                              if shm and ctx.facts["sysctl"].known else ()),
                           fixes=(*shm, *t.fixes), citations=(cite,))


def shm_fixes(ctx: Context) -> tuple[tuple[Fix, ...], str]:
    """PostgreSQL 9.2 takes shared_buffers as one System V segment: the kernel limits the plan's value needs, where the
    source's (RHEL 7's defaults when it does not list them) are lower, and the words saying so; none on later releases
    (the plan has no such tunables)."""
    sysctl = ctx.facts.value("sysctl") or {}
    fixes: list[Fix] = []
    low: list[str] = []
    for tunable, key in (("sysctl.kernel_shmmax", "kernel.shmmax"), ("sysctl.kernel_shmall", "kernel.shmall")):
        t = ctx.tunables.get(tunable)
        if t is None:
            continue
        have = whole(sysctl.get(key))
        have = t.installer.value if have is None else have
        if have < t.foretune.value:
            fixes += t.fixes
            low.append(f"{key} {have} -> {t.foretune.value}")
    said = (f"; PostgreSQL 9.2 takes shared_buffers as one System V shared memory segment, so raise {', '.join(low)} "
            "before restarting it, or it will not start") if low else ""
    return tuple(fixes), said


RULE = SharedBuffersOutOfRange()
