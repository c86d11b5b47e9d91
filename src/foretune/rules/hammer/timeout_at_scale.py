"""hammer times out on large collections."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.plan.constants import const
from foretune.rules.base import Context, Outcome, PlanRule, Severity


class HammerTimeoutAtScale(PlanRule):
    id = "hammer-timeout-at-scale"
    title = "hammer request_timeout disabled at scale"
    component = "hammer"
    severity = Severity.LOW
    version_added = "0.1.0"
    unsafe_fix = True
    uses_hosts = True
    roles = frozenset({"server"})
    needs = ("hammer",)
    citations = ("g62-hammer", "hammer-request-timeout")
    tunable = "hammer.request_timeout"

    def check(self, ctx: Context) -> Outcome:
        timeout = ctx.facts.value("hammer").get("request_timeout")
        t = self.recommendation(ctx)
        want = t.foretune.value
        shown = timeout if timeout is not None else f"{module_default('hammer_request_timeout')} (default)"
        if want != -1 or timeout == -1:
            return self.passed(f"request_timeout {shown}")
        if ctx.hosts_assumed:  # the verdict would rest on an assumed figure: say up to where the timeout in force does
            limit = const("hammer_timeout_from_hosts")
            return self.failed(f"request_timeout {shown} is enough up to {limit} hosts (a foretune estimate); beyond, hammer "
                               "calls on large collections time out", current=timeout, recommended=want,
                               evidence=ctx.evidence("hammer"), fixes=t.fixes)
        return self.failed(f"request_timeout {shown} with {ctx.hosts} hosts: "
                           "hammer calls on large collections fail", current=timeout, recommended=want,
                           evidence=ctx.evidence("hammer"), fixes=t.fixes)


RULE = HammerTimeoutAtScale()
