"""Build a PlanInput from facts (a live host, sosreport or snapshot) plus the user's overrides."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from foretune.errors import UsageError
from foretune.plan.model import PlanInput

if TYPE_CHECKING:
    from foretune.facts.model import FactSet


def input_from_facts(facts: FactSet, *, hosts: int | None = None, **overrides: Any) -> PlanInput:
    """PlanInput from facts; ``overrides`` (PlanInput fields) win over facts.

    Raises UsageError naming what is missing when product, version, CPUs, RAM or hosts are unknown.
    """
    product = overrides.pop("product", None) or facts.value("product")
    version = overrides.pop("version", None) or facts.value("product_version")
    cpus = overrides.pop("cpus", None) or facts.value("cpu_logical")
    ram = overrides.pop("ram_bytes", None) or facts.value("ram_bytes")
    host_count = hosts if hosts is not None else facts.value("managed_hosts")
    missing = [name for name, value in (("product", product), ("version", version), ("CPUs", cpus), ("RAM", ram),
                                        ("managed hosts (--hosts)", host_count)) if value is None]
    if missing:
        raise UsageError(f"cannot plan: {', '.join(missing)} unknown in {facts.source_label}")
    virt = facts.value("virtualization")
    fields: dict[str, Any] = {
        "product": product, "version": str(version), "hosts": int(host_count), "cpus": int(cpus), "ram_bytes": int(ram),
        "role": facts.value("role") or "server",
        "physical_cores": facts.value("cpu_physical_cores"),
        "virtual": None if virt is None else virt != "none",
        "foreman_version": facts.value("foreman_version"),
    }
    fields["configured"] = configured_values(facts)
    includes = facts.value("httpd_includes")
    if isinstance(includes, dict):
        fields["httpd_includes"] = includes
    apache = facts.value("apache")
    if isinstance(apache, dict):
        fields["httpd_keepalive"] = {k: apache[k] for k in ("KeepAlive", "KeepAliveTimeout", "MaxKeepAliveRequests")
                                     if apache.get(k) is not None}
    mqtt = facts.value("mqtt") or {}
    if mqtt.get("pull_rex"):
        fields["rex"] = "pull-mqtt"
    fields.update(overrides)
    if fields["physical_cores"] is not None and not 0 < fields["physical_cores"] <= fields["cpus"]:
        fields["physical_cores"] = None
    return PlanInput(**fields)


def configured_values(facts: FactSet) -> dict[str, tuple[Any, str]]:
    """Tuning keys the box sets itself, flattened, with where each is set (custom-hiera wins over the answers file).

    Only tuning keys are kept: passwords and certificates never reach the plan. A key that counts something
    keeps only a whole number (``knowledge.hiera_values``): the facts carry the problem on any other value.
    """
    from foretune.facts.extract.installer import TUNING_PREFIXES  # start-up: only when configured_values runs
    from foretune.knowledge.hiera_values import checked  # start-up: only when configured_values runs

    prefixes = (*TUNING_PREFIXES, "foreman::passenger", "puppet::")

    found: dict[str, tuple[Any, str]] = {}
    answers = facts.value("installer_answers") or {}
    for module, params in answers.items():
        if isinstance(params, dict):
            for param, value in params.items():
                key = f"{module}::{param}"
                if value is not None and not isinstance(value, (dict, list)) and key.startswith(prefixes):
                    value, problem = checked(key, value)
                    if problem is None:
                        found[key] = (value, "answers file")
    found.update(hiera_configured(facts.value("custom_hiera") or {}))
    return found


def hiera_configured(hiera: object) -> dict[str, tuple[Any, str]]:
    """The tuning keys a custom-hiera.yaml mapping sets, flattened, each with "custom-hiera.yaml" as where it is set."""
    from foretune.facts.extract.installer import TUNING_PREFIXES  # start-up: only when a custom-hiera is read
    from foretune.knowledge.hiera_values import checked  # start-up: only when a custom-hiera is read
    from foretune.knowledge.profiles import flatten  # start-up: only when a custom-hiera is read

    prefixes = (*TUNING_PREFIXES, "foreman::passenger", "puppet::")
    found: dict[str, tuple[Any, str]] = {}
    if not isinstance(hiera, dict):
        return found
    try:
        flat = flatten(hiera)
    except AttributeError:  # the PostgreSQL entries are not a map
        flat = {k: v for k, v in hiera.items() if k != "postgresql::server::config_entries"}
    for key, value in flat.items():
        if value is not None and not isinstance(value, list) and str(key).startswith(prefixes):
            value, problem = checked(str(key), value)
            if problem is None:
                found[str(key)] = (value, "custom-hiera.yaml")
    return found
