"""PassengerMaxRequestQueueSize at or above Apache's MaxClients/ServerLimit (Passenger era)."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.passenger._passenger import passenger_era

PASSENGER_DEFAULT_QUEUE = 100
PREFORK_DEFAULT = 256  # puppetlabs-apache prefork serverlimit and maxclients


class PassengerQueueOverMaxclients(Rule):
    id = "passenger-queue-over-maxclients"
    title = "Passenger queue below Apache's MaxClients and ServerLimit"
    component = "passenger"
    severity = Severity.MEDIUM
    roles = frozenset({"server"})
    needs = ("passenger", "apache")
    citations = ("g62-passenger", "apache-module-defaults")

    def applies(self, ctx: Context) -> str | None:
        return passenger_era(ctx)

    def check(self, ctx: Context) -> Outcome:
        queue = ctx.facts.value("passenger").get("PassengerMaxRequestQueueSize") or PASSENGER_DEFAULT_QUEUE
        apache = ctx.facts.value("apache")
        clients = min(apache.get("MaxClients") or apache.get("MaxRequestWorkers") or PREFORK_DEFAULT,
                      apache.get("ServerLimit") or PREFORK_DEFAULT)
        if queue < clients:
            return self.passed(f"queue {queue} below MaxClients/ServerLimit {clients}")
        return self.failed(f"PassengerMaxRequestQueueSize {queue} is not below Apache's {clients} MaxClients/ServerLimit: "
                           "queued requests hold every Apache process and content downloads wait behind them",
                           current=queue, recommended=f"< {clients}, or raise ServerLimit and MaxClients above it",
                           evidence=(*ctx.evidence("passenger", about="PassengerMaxRequestQueueSize"),
                                     *ctx.evidence("apache", about=("MaxClients", "ServerLimit", "MaxRequestWorkers"))))


RULE = PassengerQueueOverMaxclients()
