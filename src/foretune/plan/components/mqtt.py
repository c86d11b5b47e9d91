"""Pull-based remote execution over MQTT: mosquitto's file limit and the plugin's rate limit, ttl and resend interval."""

from __future__ import annotations

import math

from foretune.knowledge import module_default, threshold
from foretune.plan.constants import cite, const
from foretune.plan.model import Fix, Input, Setting
from foretune.plan.sizing import C, Component, Sizing, box, num, percent

STEP = 1000  # LimitNOFILE is rounded up to a whole thousand descriptors


def limit_for(hosts: int) -> int:
    """mosquitto's LimitNOFILE for ``hosts`` pull-REX hosts: one descriptor a host plus the headroom, in whole
    thousands, never below systemd's default."""
    headroom = float(const("mosquitto_headroom"))
    return max(int(module_default("mosquitto_nofile")), math.ceil(hosts * (1 + headroom) / STEP) * STEP)


def after_exhaustion(clients: int, current: int | None) -> tuple[int, bool]:
    """mosquitto's LimitNOFILE once it refused connections for want of descriptors: sized for the ``clients`` seen
    (:func:`limit_for`), or, when that is no more than the limit it ran out at (``current``, else systemd's default),
    twice that limit (a foretune estimate); (value, doubled).

    >>> after_exhaustion(1274, None), after_exhaustion(4, None), after_exhaustion(4, 65536)
    ((2000, False), (2048, True), (131072, True))
    """
    want = limit_for(clients)
    ran_out = current if current is not None else int(module_default("mosquitto_nofile"))
    raised = ran_out * threshold("nofile_raise_after_exhaustion")
    if want <= ran_out and raised <= threshold("nofile_kernel_ceiling"):
        return int(raised), True
    return want, False


def plan(s: Sizing) -> None:
    if not (s.f.pull_rex and s.rex_hosts):
        return
    default_nofile = module_default("mosquitto_nofile")
    headroom = const("mosquitto_headroom")
    want = limit_for(s.rex_hosts)
    s.add("mosquitto.limit_nofile", "mosquitto LimitNOFILE", "count",
          Setting(default_nofile, f"systemd default: about {default_nofile} pull-REX hosts", ("gf-pull-rex",)),
          Setting(want, f"one descriptor per pull-REX host ({s.rex_hosts}) plus {percent(headroom)}", ("gf-pull-rex", cite("mosquitto_headroom")),
                  f"max({default_nofile}, ceil({s.rex_hosts} x {num(round(1 + headroom, 6))} / {STEP}) x {STEP}) = {want}",
                  (box("pull-REX hosts", s.rex_hosts), C("mosquitto_headroom"), Input("systemd default", default_nofile, "gf-pull-rex"))),
          Fix("limit", "mosquitto", want))
    rate_default, ttl, resend = module_default("mqtt", "rate_limit"), module_default("mqtt", "ttl"), module_default("mqtt", "resend_interval")
    from_hosts = const("mqtt_rate_limit_from_hosts")
    rate = const("mqtt_rate_limit") if s.rex_hosts > from_hosts else None
    prefix = "foreman_proxy::plugin::remote_execution::script::"
    if rate and not s.f.mqtt_rate_limit_option:  # no option to set it with: unlimited stays, and the row says why
        s.add("mqtt.rate_limit", "MQTT rate limit (concurrent jobs)", "count",
              Setting(rate_default, "plugin default: unlimited", ("rex-mqtt-defaults",)),
              Setting(rate_default, f"unlimited: this installer has no rate-limit option (puppet-foreman_proxy 24.1.0 added it: foreman-installer 3.5.2, 3.6); "
                      f"foretune's estimate, {rate} above {from_hosts} pull hosts, needs a later release",
                      ("rex-mqtt-defaults", "pfp-mqtt-rate-limit", cite("mqtt_rate_limit")), "",
                      (C("mqtt_rate_limit"), C("mqtt_rate_limit_from_hosts"))))
    else:
        s.add("mqtt.rate_limit", "MQTT rate limit (concurrent jobs)", "count",
              Setting(rate_default, "plugin default: unlimited", ("rex-mqtt-defaults",)),
              Setting(rate, f"a foretune estimate to protect the Smart Proxy above {from_hosts} pull hosts; "
                            "raise it while the Smart Proxy keeps up" if rate else "unlimited is fine at this scale",
                      ("gf-pull-rex", cite("mqtt_rate_limit")), "", (C("mqtt_rate_limit"), C("mqtt_rate_limit_from_hosts")) if rate else ()),
              *((Fix("hiera", prefix + "mqtt_rate_limit", rate),) if rate else ()))
    for tid, title, value in (("mqtt.ttl", "MQTT ttl (seconds to pick up a job)", ttl), ("mqtt.resend_interval", "MQTT resend interval", resend)):
        inst = Setting(value, "plugin default", ("rex-mqtt-defaults",))
        s.add(tid, title, "seconds", inst, s.same(inst, "plugin default; raise only when hosts miss notifications", "gf-pull-rex"))


COMPONENT = Component("mqtt")
