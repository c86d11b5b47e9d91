"""PassengerMaxRequestQueueSize at or above Apache's MaxClients/ServerLimit (Passenger era)."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.rules.apache._prefork import prefork_clients
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.passenger._passenger import passenger_era


class PassengerQueueOverMaxclients(Rule):
    id = "passenger-queue-over-maxclients"
    title = "Passenger queue below Apache's MaxClients and ServerLimit"
    component = "passenger"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    roles = frozenset({"server", "capsule"})  # 6.2 brief 5.9: Passenger advice "also apply directly to the capsule"
    needs = ("passenger", "apache")
    citations = ("g62-passenger", "passenger-queue-default", "apache-prefork-defaults")

    def applies(self, ctx: Context) -> str | None:
        return passenger_era(ctx)

    def check(self, ctx: Context) -> Outcome:
        queue = (ctx.facts.value("passenger").get("PassengerMaxRequestQueueSize")
                 or module_default("passenger", "max_request_queue_size"))
        clients = min(prefork_clients(ctx.facts.value("apache")))
        if queue < clients:
            return self.passed(f"queue {queue} below MaxClients/ServerLimit {clients}")
        return self.failed(f"PassengerMaxRequestQueueSize {queue} is not below Apache's {clients} MaxClients/ServerLimit: "
                           "queued requests hold every Apache process and content downloads wait behind them",
                           current=queue, recommended=f"< {clients}, or raise ServerLimit and MaxClients above it",
                           evidence=(*ctx.evidence("passenger", about="PassengerMaxRequestQueueSize"),
                                     *ctx.evidence("apache", about=("MaxClients", "ServerLimit", "MaxRequestWorkers"))))


RULE = PassengerQueueOverMaxclients()
