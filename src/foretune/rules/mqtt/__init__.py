"""Pull-based remote execution over MQTT: mosquitto's descriptor limit and the plugin's settings."""

from __future__ import annotations

from foretune.rules.base import Context

MODE_OFF = "pull-based remote execution is off (remote_execution_ssh.yml's :mode: is not pull-mqtt)"


def mode_not_pull(ctx: Context) -> bool:
    """The Smart Proxy's remote_execution_ssh.yml is in the source and sets another ``:mode:`` than pull-mqtt."""
    fact = ctx.facts["mqtt"]
    return (fact.known and not (fact.value or {}).get("pull_rex")
            and any("remote_execution_ssh.yml" in p.location for p in fact.provenance))


def pull_rex_off(ctx: Context) -> str | None:
    """Why the source does not enable pull-based remote execution, in the admin's terms, or None when it does: the
    Smart Proxy's remote_execution_ssh.yml sets another ``:mode:``, or the source has no such file."""
    fact = ctx.facts["mqtt"]
    if fact.known and (fact.value or {}).get("pull_rex"):
        return None
    return MODE_OFF if mode_not_pull(ctx) else "pull-based remote execution is not configured (no remote_execution_ssh.yml in the source)"


def pull_rex_not_planned(ctx: Context, *, broker: bool = False) -> str:
    """Why the plan sizes nothing for MQTT: the release has no pull-based remote execution, or the source does not
    enable it (the installer sets mosquitto up only in pull-mqtt mode). When mosquitto serves clients all the same
    (its log or the socket list counts them: a change of mode under way, as an installer run in another mode stops and
    removes mosquitto), the reason says so; for the broker's own rule (``broker``) it says where a measured descriptor
    shortage of mosquitto is reported."""
    assert ctx.plan is not None
    if not ctx.plan.release.features.pull_rex:
        return f"{ctx.plan.release.label} has no pull-based remote execution (MQTT)"
    why = pull_rex_off(ctx)
    if why is None:
        return "pull-based remote execution is on, but no pull-REX host count is known to size for"
    clients = ctx.facts.value("pull_rex_clients")
    if not clients:
        return f"{why}: no pull-REX hosts to size for"
    refused = broker and any(isinstance(i, dict) and i.get("kind") == "socket_exhaustion" and i.get("service") == "mosquitto"
                             for i in ctx.facts.value("log_incidents") or [])
    return (f"{why}, though {clients} MQTT clients connect to mosquitto: the plan sizes pull-REX only in pull-mqtt mode"
            + ("; mosquitto's refused connections are in open-files-exhausted, with its drop-in" if refused else ""))
