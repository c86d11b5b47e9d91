"""Puma threads: min equal to max, at the guides' 16 (5, the installer default, is the cited alternative)."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Context, Outcome, PlanRule, Severity

THREAD_WORDS = ("FOREMAN_PUMA_THREADS_MIN", "FOREMAN_PUMA_THREADS_MAX", "threads_min", "threads_max")


class PumaThreadsMinBelowMax(PlanRule):
    id = "puma-threads-min-below-max"
    title = "Puma threads_min equals threads_max (16 with every profile)"
    component = "puma"
    severity = Severity.LOW  # never more: the guide calls the default 5 "a good choice as well"
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("puma",)
    citations = ("gf-puma-threads", "gf-puma-recommendations")
    tunable = "puma.threads_min"
    # threads a hand-made foreman.service drop-in sets are that file's problem (puma-dropin-override): listed under it
    symptom_of = ("puma-dropin-override",)
    symptom_facts = (("puma-dropin-override", ("puma",)),)

    def check(self, ctx: Context) -> Outcome:
        assert ctx.plan is not None
        puma = ctx.facts.value("puma")
        tmin, tmax = puma.get("threads_min"), puma.get("threads_max")
        if tmin is None or tmax is None:
            return self.skipped("Puma thread counts unknown")
        tmax_plan = ctx.tunables["puma.threads_max"]
        want = tmax_plan.foretune.value
        alternative = threshold("puma_threads_alternative")  # the installer default the guide accepts
        fixes = (*self.recommendation(ctx).fixes, *tmax_plan.fixes)
        advice = (f"the guides recommend {want} threads with every profile (\"we recommend 16 threads with all the tuning "
                  f"profiles\", up to 23 % faster than 4 in their registration test); {alternative}/{alternative}, the installer "
                  "default, is the cited alternative (\"Keeping default 5 min/max threads is a good choice as well.\")")
        if tmin < tmax:
            return self.failed(f"threads {tmin}-{tmax}: min below max costs memory (the guide: about 12 % less memory with "
                               f"min = max); {advice}", current=f"{tmin}-{tmax}", recommended=f"{want}-{want}",
                               evidence=ctx.evidence("puma", about=THREAD_WORDS), fixes=fixes, severity=Severity.LOW)
        if tmax == want:
            return self.passed(f"threads {tmin}/{tmax}, the guides' recommendation")
        if tmax == alternative:
            return self.passed(f"threads {tmin}/{tmax}: the installer default, which the guide calls \"a good choice as well\"; "
                               f"the plan recommends {want} (\"we recommend 16 threads with all the tuning profiles\")")
        return self.failed(f"threads {tmin}/{tmax}: neither the guides' {want} nor the installer default {alternative}; {advice}",
                           current=f"{tmin}-{tmax}", recommended=f"{want}-{want}", evidence=ctx.evidence("puma", about=THREAD_WORDS), fixes=fixes,
                           severity=Severity.LOW)


RULE = PumaThreadsMinBelowMax()
