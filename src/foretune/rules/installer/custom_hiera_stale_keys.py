"""custom-hiera keys that do nothing (or break things) on this release."""

from __future__ import annotations

import re

from foretune.knowledge.hiera_keys import backup_suffix, delete_command, stale_keys
from foretune.plan.model import Fix
from foretune.rules.base import Context, Evidence, Outcome, Rule, Severity

HIERA_FILE = "/etc/foreman-installer/custom-hiera.yaml"


class CustomHieraStaleKeys(Rule):
    id = "custom-hiera-stale-keys"
    title = "No stale keys in custom-hiera.yaml"
    component = "installer"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    needs = ("custom_hiera",)
    citations = ("fi-checkpoint-segments-removed", "fi-passenger-keys-removed", "fi-event-mpm", "fi-qpid-removed")

    def check(self, ctx: Context) -> Outcome:
        if ctx.release is None:
            return self.skipped("product version unknown")
        notes = stale_keys(ctx.release, ctx.facts.value("custom_hiera") or {})
        if not notes:
            return self.passed("no stale keys")
        harmful = any("checkpoint_segments" in n.key for n in notes)
        installer = "satellite-installer" if ctx.release.product == "satellite" else "foreman-installer"
        names = list(dict.fromkeys(n.key for n in notes))
        hiera = ctx.facts.value("custom_hiera") or {}
        command = delete_command(HIERA_FILE, names, hiera)
        render = f"foretune render --from live --merge-into {HIERA_FILE} --remove-stale --write"
        if command is not None:  # the keys' lines, then the installer run that stops applying them
            text = (f"# delete the stale keys ({', '.join(names)}) from {HIERA_FILE} (the file before is kept as "
                    f"{HIERA_FILE}{backup_suffix(names)}), then run {installer}:\n{command}\n{installer}")
        else:  # a key whose value spans lines: foretune's merge removes it with its lines, keeping the file's comments
            text = (f"# remove the stale keys ({', '.join(names)}) from {HIERA_FILE} with their lines (a backup is kept), "
                    f"then run {installer}:\n{render}\n{installer}")
        fix = Fix("advice", HIERA_FILE, text)
        return self.failed("; ".join(f"{n.key}: {n.reason}" for n in notes), current=[n.key for n in notes],
                           recommended="remove them", evidence=stale_lines(ctx, [n.key for n in notes]) or ctx.evidence("custom_hiera"),
                           fixes=(fix,),
                           severity=Severity.HIGH if harmful else None,
                           citations=tuple(dict.fromkeys(n.citation for n in notes)))  # the sources for the keys found


def stale_lines(ctx: Context, keys: list[str]) -> tuple[Evidence, ...]:
    """The lines of custom-hiera.yaml that set the stale keys, verbatim, each after the line of the key it sits under
    (``postgresql::server::config_entries: | checkpoint_segments: 32``); () when the file's text is not in the source."""
    if not ctx.facts["custom_hiera_text"].known:
        return ()
    text = str(ctx.facts.value("custom_hiera_text"))
    location = ctx.facts["custom_hiera_text"].provenance[0].location
    lines = text.splitlines()
    out: list[Evidence] = []
    for key in dict.fromkeys(keys):
        parent, _, leaf = key.rpartition("/")
        under = next((j for j, line in enumerate(lines) if parent and re.match(rf"['\"]?{re.escape(parent)}['\"]?\s*:", line)), -1)
        at = next((i for i in range(under + 1, len(lines))
                   if re.match(rf"\s*['\"]?{re.escape(leaf)}['\"]?\s*:", lines[i])), None)
        if at is not None:
            shown = [lines[under].strip()] if under >= 0 else []
            out.append(Evidence("custom_hiera", location, " | ".join([*shown, lines[at].strip()])))
    return tuple(out)


RULE = CustomHieraStaleKeys()
