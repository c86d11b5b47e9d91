"""Render one :class:`~foretune.plan.model.Fix` as the text an admin applies (shared by plan and audit)."""

from __future__ import annotations

from typing import Any

from foretune.changes.build import installer_option  # noqa: F401  (one home: the change set's channel rule)
from foretune.changes.model import Change
from foretune.knowledge.profiles import PG
from foretune.plan.model import Fix

SYSCTL_FILE = "/etc/sysctl.d/90-foretune.conf"


def yaml_scalar(value: Any) -> str:
    """A YAML scalar as the installer's hiera files write it.

    >>> yaml_scalar("%t "), yaml_scalar(8), yaml_scalar(True), yaml_scalar("4GB")
    ("'%t '", '8', 'true', '4GB')
    """
    import yaml  # start-up: PyYAML loads only when YAML is read or written

    text: str = yaml.safe_dump(value, default_flow_style=True, width=1000).strip()
    return text[:-4].rstrip() if text.endswith("\n...") else text.removesuffix("...").strip()


def dropin_path(unit: str) -> str:
    return f"/etc/systemd/system/{unit}.service.d/limits.conf"


def render_fix(fix: Fix) -> str:
    """The fix as a snippet: a hiera line, a drop-in, a sysctl line, a command or a file line."""
    if fix.kind == "hiera":
        if fix.target.startswith(PG + "/"):
            return f"{PG}:\n  {fix.target.split('/', 1)[1]}: {yaml_scalar(fix.value)}"
        if isinstance(fix.value, dict):
            inner = "\n".join(f"  {k}: {yaml_scalar(v)}" for k, v in fix.value.items())
            return f"{fix.target}:\n{inner}"
        return f"{fix.target}: {yaml_scalar(fix.value)}"
    if fix.kind == "limit":
        return f"# {dropin_path(fix.target)}\n[Service]\nLimitNOFILE={fix.value}"
    if fix.kind == "sysctl":
        return f"# {SYSCTL_FILE}\n{fix.target} = {fix.value}"
    if fix.kind == "file":
        return f"# {fix.target}\n{fix.value}"
    if fix.kind == "installer":
        return f"{fix.target} {fix.value}"
    return str(fix.target if fix.kind == "command" else fix.value)


def render_change(change: Change) -> str:
    """A change as the snippet an admin applies, in its channel: an installer option, a custom-hiera line, a drop-in."""
    if change.channel == "installer":
        return f"{change.target} {yaml_scalar(change.value)}"
    if change.channel == "profile":
        return f"--tuning {change.value}"
    if change.channel == "custom-hiera":
        return render_fix(Fix("hiera", change.target, change.value))
    if change.channel == "dropin":
        return f"# {change.file}\n[Service]\n{change.target.split(':', 1)[1]}={change.value}"
    if change.channel == "sysctl":
        return f"# {change.file}\n{change.target} = {change.value}"
    return f"# {change.target}\n{change.value}"
