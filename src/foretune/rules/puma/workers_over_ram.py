"""More Puma workers than the RAM left after the other services can hold."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.recommend import puma_evidence, puma_in_force, puma_source_note
from foretune.units import format_gib


class PumaWorkersOverRam(PlanRule):
    id = "puma-workers-over-ram-budget"
    title = "Puma workers fit the RAM budget"
    component = "puma"
    severity = Severity.HIGH
    version_added = "0.1.0"
    failing_when = (("oom_kill", ()),)
    roles = frozenset({"server"})
    needs = ("puma", "ram_bytes")
    citations = ("gf-puma-autotuning",)
    tunable = "puma.workers"

    def check(self, ctx: Context) -> Outcome:
        # the workers that run hold the memory: pumactl stats, else what systemd loaded, else the drop-in or defaults
        run = puma_in_force(ctx)
        workers = run.workers if run is not None else ctx.facts.value("puma").get("workers")
        if workers is None:
            return self.skipped("Puma worker count unknown")
        source = puma_source_note(run)
        assert ctx.plan is not None
        others = sum(m.bytes for m in ctx.plan.memory if not m.component.startswith("Foreman"))
        room = ctx.facts.value("ram_bytes") - others
        fits = max(0, int(room // (1024**3)))
        t = self.recommendation(ctx)
        if workers <= fits:
            return self.passed(f"{workers} workers fit the {format_gib(room)} left for Puma")
        if workers <= t.foretune.value:
            return self.passed(f"{workers} workers are what the plan gives this box; the box as a whole is short "
                               "of RAM (see memory-budget-over-ram)")
        ram = ctx.facts.value("ram_bytes")
        pressure = ctx.facts.value("memory_pressure") or {}
        available = pressure.get("available_bytes")
        if available is not None and available >= threshold("memory_available_min_fraction") * ram and not pressure.get("oom_kills"):
            return self.passed(f"the budget estimate leaves {format_gib(room)} for {workers} workers, but the box measures "
                               f"{format_gib(available)} available ({available / ram:.0%}) with them running")
        state = (f"measured: only {format_gib(available)} available" if available is not None
                 else "no measurement of available memory in the source")
        return self.failed(f"{workers} Puma workers{source} need about {format_gib(workers * 2**30)} but only {format_gib(room)} is left after the other "
                           f"services ({state}): the box swaps or the OOM killer stops workers", current=workers,
                           recommended=t.foretune.value, evidence=puma_evidence(ctx, run, after=("ram_bytes", "memory_pressure")),
                           fixes=t.fixes, severity=None if available is not None else Severity.MEDIUM)


RULE = PumaWorkersOverRam()
