"""hammer, the CLI: its API request timeout on large collections."""

from __future__ import annotations

from foretune.knowledge import module_default, module_default_citation
from foretune.plan.constants import cite, const
from foretune.plan.model import Fix, Setting
from foretune.plan.sizing import C, Component, Sizing


def plan(s: Sizing) -> None:
    if not s.server:
        return
    at_scale = s.inp.hosts > const("hammer_timeout_from_hosts")
    inst = Setting(module_default("hammer_request_timeout"), "hammer default", (module_default_citation("hammer_request_timeout"),))
    brief = "" if s.era62 else " (the 6.2 brief's; the 6.9 guide's \"Configure hammer to reduce API timeouts\" gives no value)"
    want = (Setting(const("hammer_timeout_at_scale"), "no timeout for API calls on large collections" + brief,
                    ("g62-hammer", cite("hammer_timeout_from_hosts")), "", (C("hammer_timeout_at_scale"), C("hammer_timeout_from_hosts")))
            if at_scale else s.same(inst, "default is fine at this scale"))
    if s.f.hammer_timeout_option:  # puppet-foreman 16.1+ writes it into /etc/hammer: the installer option, kept by every run
        if at_scale:
            want = want._replace(reason=want.reason + "; a box first installed before foreman-installer 2.4 may still have "
                                 "\":request_timeout: 120\" in /root/.hammer/cli.modules.d/foreman.yml (written once, never "
                                 "replaced), which wins over /etc/hammer for root: delete that line",
                                 citations=(*want.citations, "pf-cli-request-timeout"))
        fix = Fix("hiera", "foreman::cli::request_timeout", want.value)
    else:  # the installer writes no timeout into /etc/hammer before puppet-foreman 16.1: the brief's file edit
        fix = Fix("file", "/etc/hammer/cli.modules.d/foreman.yml", f":request_timeout: {want.value}")
    s.add("hammer.request_timeout", "hammer request_timeout", "seconds", inst, want, fix)


COMPONENT = Component("hammer")
