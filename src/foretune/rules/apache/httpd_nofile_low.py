"""httpd's open-files limit is below the guide's value."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.values import nofile_text, service_nofile


class HttpdNofileLow(PlanRule):
    id = "httpd-nofile-low"
    title = "httpd LimitNOFILE at the guide's value"
    component = "apache"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    failing_when = (("socket_exhaustion", ("httpd",)),)
    needs = ("service_limits",)
    citations = ("gf-httpd-nofile", "g62-apache")
    tunable = "httpd.limit_nofile"

    def check(self, ctx: Context) -> Outcome:
        limits = ctx.facts.value("service_limits")
        current = service_nofile(limits, "httpd")
        if current is None:
            return self.skipped("httpd.service limits not in the source")
        t = self.recommendation(ctx)
        if current >= t.foretune.value:
            return self.passed(f"httpd open files {nofile_text(limits, 'httpd')}", citations=t.foretune.citations)
        return self.failed(f"httpd open files {nofile_text(limits, 'httpd')}, recommended {t.foretune.value}; busy servers run out of descriptors (\"Too many open files\")",
                           current=current, recommended=t.foretune.value, evidence=ctx.evidence("service_limits", about="httpd.service"), fixes=t.fixes,
                           citations=t.foretune.citations)


RULE = HttpdNofileLow()
