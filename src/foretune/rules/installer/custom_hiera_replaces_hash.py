"""A custom-hiera hash replaces (does not merge with) the same hash of the tuning profile."""

from __future__ import annotations

from foretune.knowledge.profiles import PG, installer_hiera
from foretune.knowledge.releases import version_key
from foretune.rules.base import Context, Outcome, Rule, Severity

PG_MERGED_SINCE = "1.18"  # lookup_options merge: hash for the PostgreSQL entries (tuning/common.yaml, 2018-04)


class CustomHieraReplacesHash(Rule):
    id = "custom-hiera-replaces-profile-hash"
    title = "custom-hiera hashes do not drop the profile's entries"
    component = "installer"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("custom_hiera",)
    citations = ("fi-hiera-precedence", "fi-tuning-profiles")

    def applies(self, ctx: Context) -> str | None:
        return None if ctx.release is not None else "release unknown"

    def check(self, ctx: Context) -> Outcome:
        assert ctx.release is not None
        custom = ctx.facts.value("custom_hiera") or {}
        profile = ctx.plan.profile if ctx.plan else "default"
        try:
            base = installer_hiera(ctx.release, profile if ctx.release.features.size_profiles else "default")
        except Exception:  # a profile this release lacks: nothing to compare
            base = {}
        merged = {PG} if version_key(ctx.release.foreman_version) >= version_key(PG_MERGED_SINCE) else set()
        lost: dict[str, list[str]] = {}
        for key, value in custom.items():
            theirs = base.get(key)
            if key in merged or not isinstance(value, dict) or not isinstance(theirs, dict):
                continue
            missing = sorted(k for k in theirs if k not in value)
            if missing:
                lost[key] = missing
        if not lost:
            return self.passed("no custom-hiera hash drops profile entries")
        key, missing = next(iter(lost.items()))
        return self.failed(f"custom-hiera's {key} replaces the {profile} profile's hash: {', '.join(missing)} are dropped "
                           "(only the PostgreSQL entries are merged)", current=sorted(lost),
                           recommended=f"repeat {', '.join(missing)} in custom-hiera's {key}, or remove the key",
                           evidence=ctx.evidence("custom_hiera", about=(key, f"{key}:")))


RULE = CustomHieraReplacesHash()
