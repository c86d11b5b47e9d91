"""Candlepin's Tomcat has fewer request threads than Foreman can send it at once."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.plan.model import Fix
from foretune.rules.base import Context, Evidence, Outcome, Rule, Severity
from foretune.rules.recommend import (
    overridden_threads,
    puma_evidence,
    puma_in_force,
    puma_source_note,
    recommended,
    sized_for_running_workers,
)

SERVER_XML = "/etc/tomcat/server.xml"


class TomcatThreadsLow(Rule):
    id = "candlepin-tomcat-threads"
    title = "Candlepin Tomcat threads cover Foreman's concurrency"
    component = "candlepin"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("candlepin", "puma")
    citations = ("candlepin-tomcat-threads", "foretune-estimate")

    def check(self, ctx: Context) -> Outcome:
        read = ctx.facts.value("candlepin").get("tomcat_max_threads")
        threads = read or module_default("candlepin_tomcat", "max_threads")
        shown = f"{threads}" if read else f"{threads} (not in the source: puppet-candlepin's default)"
        run = puma_in_force(ctx)  # what runs: pumactl stats, else what systemd loaded, else the drop-in or defaults
        if run is None:
            return self.skipped("Puma workers or threads unknown")
        workers, per, source = run.workers, run.threads, puma_source_note(run)
        after = overridden_threads(ctx)  # the pool's fix removes a hand-made drop-in's threads: size for the installer's
        per, gone = (after, " once the hand-made drop-in is removed") if after is not None else (per, "")
        concurrency = int(workers) * int(per)
        if threads >= concurrency:
            return self.passed(f"Tomcat maxThreads {shown} >= Puma's {workers} x {per} = {concurrency} threads{source}")
        # the report recommends another Puma worker count: Tomcat is sized for it, as the change set (APPLY.md) sizes
        # it, so the report gives one value for maxThreads
        other = recommended(ctx, "puma.workers") if sized_for_running_workers(ctx) else None
        want: int | str = concurrency
        note = ""
        if other is not None and isinstance(other.value, int) and other.value * int(per) > threads:
            want = other.value * int(per)
            note = (f"; set for the {other.value} Puma workers this report recommends, {other.value} x {per} = {want} "
                     f"({concurrency} while the {workers} run)")
        elif other is not None and isinstance(other.value, int):  # the recommended workers fit the threads in force
            want = f"{threads} once the Puma workers are {other.value}"
            note = (f"; the {other.value} Puma workers this report recommends need {other.value * int(per)}, which "
                     f"{threads} holds: lowering the workers (puma-workers-outside-range) is the fix")
        return self.failed(f"Tomcat maxThreads {shown} < Puma's {workers} workers x {per} threads{gone} = {concurrency}{source}: "
                           f"during registration bursts Candlepin calls queue in Tomcat and time out{note}",
                           current=threads, recommended=want,
                           evidence=(*(ctx.evidence("candlepin", about="maxThreads") if read else
                                       (Evidence("candlepin", "module default", f"maxThreads {threads}: no maxThreads in the source, "
                                                                                 "puppet-candlepin's default"),)),
                                     *puma_evidence(ctx, run)),
                           fixes=(server_xml_edit(want),) if isinstance(want, int) else ())


def server_xml_edit(threads: int) -> Fix:
    """The hand edit of server.xml, with its caveat: puppet-candlepin writes the file from its template, where
    maxThreads is the literal 150 at every release, and no installer option sets it."""
    return Fix("advice", SERVER_XML,
               f'set maxThreads="{threads}" on the Candlepin HTTPS <Connector> in {SERVER_XML}, then `systemctl restart '
               'tomcat`; no installer option sets it (puppet-candlepin writes the file with maxThreads="150" at every '
               "release), so every installer run puts 150 back: repeat the edit after each run")


RULE = TomcatThreadsLow()
