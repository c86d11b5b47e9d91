"""A broker or the web server ran out of file descriptors ("Too many open files", socket count exceeded)."""

from __future__ import annotations

from foretune.knowledge import module_default, threshold
from foretune.plan.components.mqtt import after_exhaustion
from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity
from foretune.rules.mqtt import MODE_OFF, mode_not_pull
from foretune.rules.values import nofile_text, service_nofile

# service in the incident -> (systemd unit, plan tunable of its limit)
LIMITS = {"httpd": ("httpd", "httpd.limit_nofile"), "qdrouterd": ("qdrouterd", "qdrouterd.limit_nofile"),
          "qpidd": ("qpidd", "qpidd.limit_nofile"), "mosquitto": ("mosquitto", "mosquitto.limit_nofile"),
          "foreman-proxy": ("foreman-proxy", "smart_proxy_dynflow.limit_nofile")}
# service in the incident -> the citations of its limit (a service not named here: all of them)
CITES = {"httpd": ("gf-httpd-nofile",), "qdrouterd": ("g69-qpid",), "qpidd": ("g69-qpid",), "mosquitto": ("gf-pull-rex",)}


class OpenFilesExhausted(Rule):
    id = "open-files-exhausted"
    title = "No service ran out of file descriptors"
    component = "os"
    severity = Severity.CRITICAL
    version_added = "0.1.0"
    basis = Basis.MEASURED
    needs = ("log_incidents",)
    citations = ("gf-httpd-nofile", "g69-qpid", "gf-pull-rex")
    symptom_of = ("httpd-nofile-low", "mosquitto-nofile-low", "qpidd-nofile-low", "qdrouterd-nofile-low",
                  "proxy-dynflow-nofile-low")
    # a service's limit is the root cause only when it quotes the log lines (its failing_when found them for that
    # service): a limit line both name (LimitNOFILE=1024 of two units) joins nothing
    symptom_facts = tuple((root, ("log_incidents",)) for root in symptom_of)

    def check(self, ctx: Context) -> Outcome:
        found = incidents.incidents(ctx, "socket_exhaustion")
        if not found:
            return self.passed("no 'Too many open files' or socket-count errors in the logs")
        worst = found[0]
        service = str(worst.get("service", ""))
        unit, tunable = LIMITS.get(service, (service, ""))
        limits = ctx.facts.value("service_limits")
        current = service_nofile(limits, unit)
        t = ctx.tunables.get(tunable)
        plan = t.foretune.value if t is not None else None
        cites: tuple[str, ...] = CITES.get(service, self.citations)
        look = (f"find what holds {unit}'s descriptors (`ls /proc/$(systemctl show -p MainPID --value {unit})/fd | wc -l`, "
                "`ss -s`)")
        # the limit it ran out at: the one in force, else (mosquitto, which the installer leaves at systemd's default,
        # pfp-mosquitto-pull-mqtt) that default; a plan no higher would not take effect
        ran_out = current if current is not None else (int(module_default("mosquitto_nofile")) if service == "mosquitto" else None)
        if isinstance(plan, int) and (ran_out is None or plan > ran_out):
            recommended: object = plan
            fixes = t.fixes if t is not None else ()
        elif service == "mosquitto" and (not isinstance(plan, int) or current is None):
            # no plan for the broker (the source does not configure pull-REX), or one no higher than the default it ran
            # out at, yet it ran out: sized as `logs` sizes it, for the MQTT clients counted (never an assumed host
            # count), or twice the limit it ran out at
            clients = ctx.hosts if ctx.hosts and not ctx.hosts_assumed else 0
            recommended, doubled = after_exhaustion(clients, current)
            fixes = (Fix("limit", unit, recommended),)
            if doubled:
                cites = (*cites, "foretune-estimate")
                fixes += (Fix("advice", unit, f"then {look}: if something leaks them, twice the limit only delays the "
                                              "next exhaustion"),)
        else:  # the plan's limit is already in force: it ran out anyway, so no fix repeats it
            raised = current * threshold("nofile_raise_after_exhaustion") if current is not None else None
            if raised is not None and raised <= threshold("nofile_kernel_ceiling"):
                # the guide's mechanism (a limits.conf drop-in): room for the next burst while the cause is looked for
                recommended = int(raised)
                cites = (*cites, "foretune-estimate", "linux-nr-open")
                raise_it = (tuple(f._replace(value=recommended) for f in t.fixes) if t is not None and t.fixes
                            else (Fix("limit", unit, recommended),))
                fixes = (*raise_it, Fix("advice", unit, f"then {look}: if something leaks them, twice the limit only "
                                                        "delays the next exhaustion"))
            else:
                recommended = f"a higher LimitNOFILE for {unit}" + (f" than {current}" if current is not None else "")
                fixes = (Fix("advice", unit, f"{look} before raising LimitNOFILE further in a drop-in under "
                             f"/etc/systemd/system/{unit}.service.d/" + (
                                 f" (twice {current} would pass the kernel's fs.nr_open ceiling of "
                                 f"{threshold('nofile_kernel_ceiling')}, which LimitNOFILE cannot exceed)"
                                 if current is not None else "")),)
        have = f"open files {nofile_text(limits, unit)}" if current is not None else "limit not in the source"
        if service == "mosquitto" and mode_not_pull(ctx):
            # the log proves mosquitto serves clients whatever the settings say: a change of mode under way (an installer
            # run in another mode stops mosquitto and removes it); until then its limit is the fix all the same
            have += (f"; {MODE_OFF}, yet clients connect to mosquitto: a change of mode under way (an installer run in "
                     "that mode stops and removes mosquitto); the drop-in serves the clients until then, and for good "
                     "if the hosts should use pull-REX: then run the installer with "
                     "--foreman-proxy-plugin-remote-execution-script-mode pull-mqtt")
            cites = (*cites, "pfp-mosquitto-pull-mqtt")
        # the unit's limit lines only when the source has them: never another unit's in their place
        limit_lines = ctx.evidence("service_limits", about=f"{unit}.service") if current is not None else ()
        return self.failed(f"{service} ran out of descriptors {incidents.span(worst)}: {incidents.quote(worst)}; {have}",
                           current=current, recommended=recommended,
                           evidence=(*incidents.evidence(found), *limit_lines),
                           fixes=fixes, observed=True, citations=cites)


RULE = OpenFilesExhausted()
