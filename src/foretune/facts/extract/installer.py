"""Product, version, role and the installer's configuration (scenario, tuning, answers, custom-hiera)."""

from __future__ import annotations

import posixpath
from typing import Any

from foretune.errors import ForetuneError
from foretune.facts.extract.core import Extractor
from foretune.facts.parsers.packages import parse_packages
from foretune.facts.parsers.yamlfile import MAX_YAML_BYTES, parse_yaml
from foretune.host.redact import redact_data, redact_text

CAPSULE_SCENARIOS = ("capsule", "foreman-proxy-content")
PG = "postgresql::server::config_entries"
TUNING_PREFIXES = ("foreman::foreman_service_puma", "foreman::db_pool", "foreman::dynflow", "foreman::rails_cache",
                   "foreman_proxy_content::pulpcore", "pulpcore::", "postgresql::server::config_entries", "apache::mod::",
                   "apache::keepalive", "apache::max_keepalive", "apache::keepalive_timeout", "foreman::keepalive", "foreman::max_keepalive",
                   "candlepin::java_opts",
                   "candlepin::tomcat", "qpid::", "katello::num_pulp_workers", "katello::max_tasks_per_pulp_worker",
                   "katello::qpid", "foreman_proxy::plugin::remote_execution", "foreman_proxy::plugin::dynflow",
                   "redis::", "mongodb::")


def packages(x: Extractor) -> dict[str, str]:
    raw = x.raw("installed_packages")
    return x.parse(raw, parse_packages) or {}


def product(x: Extractor) -> None:
    raw = x.raw("installed_packages")
    pkgs = packages(x)
    if raw is None or not pkgs:
        reason = x.why("installed_packages") if raw is None else f"{raw.location} lists no packages"
        for name in ("product", "product_version", "foreman_version"):
            x.unknown(name, reason)
        return
    foreman = pkgs.get("foreman") or pkgs.get("foreman-proxy")
    if foreman:
        which = "foreman" if "foreman" in pkgs else "foreman-proxy"
        x.known("foreman_version", foreman, x.prov(raw, rf"^{which}-\d"))
    else:
        x.unknown("foreman_version", f"{raw.location}: neither foreman nor foreman-proxy is installed")
    orcharhino = sorted(name for name in pkgs if name.startswith("orcharhino"))
    if "satellite" in pkgs or "satellite-capsule" in pkgs:
        name = "satellite" if "satellite" in pkgs else "satellite-capsule"
        x.known("product", "satellite", x.prov(raw, rf"^{name}-\d"))
        x.known("product_version", pkgs[name], x.prov(raw, rf"^{name}-\d"))
    elif orcharhino:
        name = "orcharhino-release" if "orcharhino-release" in pkgs else orcharhino[0]
        x.known("product", "orcharhino", x.prov(raw, rf"^{name}-\d"))
        x.known("product_version", pkgs[name], x.prov(raw, rf"^{name}-\d"))
    elif foreman:
        x.known("product", "foreman", x.prov(raw, r"^foreman(-proxy)?-\d"))
        x.known("product_version", foreman, x.prov(raw, r"^foreman(-proxy)?-\d"))
    else:
        for name in ("product", "product_version"):
            x.unknown(name, f"{raw.location}: no Foreman, Satellite or orcharhino packages")


def installer(x: Extractor) -> None:
    raw = x.raw("last_scenario")
    scenario_data = x.parse(raw, parse_yaml)
    scenario = None
    answers_path = None
    if raw is not None and scenario_data:
        answers_path = str(scenario_data.get("answer_file") or "")
        base = posixpath.basename(answers_path)
        scenario = base[: -len("-answers.yaml")] if base.endswith("-answers.yaml") else None
        if scenario:
            x.known("installer_scenario", scenario, x.prov(raw, r"answer_file"))
        else:
            x.unknown("installer_scenario", f"{raw.location} names no answers file")
        facts = scenario_data.get("facts") or {}
        tuning = facts.get("tuning") if isinstance(facts, dict) else None
        if tuning:
            x.known("tuning_profile", str(tuning), x.prov(raw, r"tuning"))
        else:
            x.unknown("tuning_profile", f"{raw.location} has no tuning fact (installer before Foreman 1.24, or a Capsule)")
    else:
        reason = x.why("last_scenario") if raw is None else f"{raw.location} is empty or unreadable"
        for name in ("installer_scenario", "tuning_profile"):
            x.unknown(name, reason)
    answers: dict[str, Any] | None = None
    if answers_path:
        answers_raw = x.src.read_path(answers_path)
        if answers_raw is not None:
            x.src.sensitive.add(answers_raw.location)
            answers = x.parse(answers_raw, parse_yaml)
            if answers is not None:
                x.known("installer_answers", redact_data(answers), x.prov(answers_raw, r"puma|pulpcore_worker|dynflow|tuning"))
        if answers is None:
            x.unknown("installer_answers", f"{answers_path} not readable" if answers_raw is None else f"{answers_path} is empty")
    else:
        x.unknown("installer_answers", "no scenario file names an answers file")
    hiera_raw = x.raw("custom_hiera")
    hiera = x.parse(hiera_raw, parse_yaml)
    if hiera_raw is not None:
        x.known("custom_hiera", redact_data(hiera or {}), x.prov(hiera_raw))
        if len(hiera_raw.text) <= MAX_YAML_BYTES:
            x.known("custom_hiera_text", redact_text(hiera_raw.text), x.prov(hiera_raw, text="(whole file)"))
        else:
            x.unknown("custom_hiera_text", f"{hiera_raw.location}: ignored: too large ({len(hiera_raw.text) // 1024} KiB)")
    else:
        x.unknown("custom_hiera", x.why("custom_hiera"))
        x.unknown("custom_hiera_text", x.why("custom_hiera"))
    role(x, scenario, raw.location if raw is not None else None)
    _check_counts(x, answers, answers_path or "answers file")
    _check_counts(x, {k: v for k, v in hiera.items() if isinstance(k, str) and "::" in k} if isinstance(hiera, dict) else None,
                  hiera_raw.location if hiera_raw is not None else "custom-hiera.yaml", flat=True)
    effective(x, answers, hiera)


def _check_counts(x: Extractor, data: dict[str, Any] | None, where: str, *, flat: bool = False) -> None:
    """A problem for each tuning key that counts something but holds no whole number (the plan leaves it out)."""
    from foretune.knowledge.hiera_values import checked  # start-up: only when _check_counts runs

    if not isinstance(data, dict):
        return
    pairs: list[tuple[str, Any]] = []
    if flat:
        pairs = [(k, v) for k, v in data.items()]
        entries = data.get(PG)
        if isinstance(entries, dict):
            pairs += [(f"{PG}/{name}", v) for name, v in entries.items()]
    else:
        for module, params in data.items():
            if isinstance(params, dict):
                pairs += [(f"{module}::{param}", v) for param, v in params.items()]
    for key, value in pairs:
        if _tuning_key(key):
            _, problem = checked(key, value)
            if problem:
                x.src.problem(redact_text(f"{where}: {problem}; left out, the plan uses the installer's value"))


def role(x: Extractor, scenario: str | None, location: str | None) -> None:
    pkgs = packages(x)
    if scenario:
        value = "capsule" if scenario in CAPSULE_SCENARIOS else "server"
        x.known("role", value, x.note(location or "last_scenario.yaml", f"scenario {scenario}"))
    elif pkgs:
        value = "server" if "foreman" in pkgs else ("capsule" if "foreman-proxy" in pkgs else "")
        if value:
            raw = x.raw("installed_packages")
            x.known("role", value, x.note(raw.location if raw is not None else "installed packages", "foreman installed" if value == "server" else "foreman-proxy without foreman"))
        else:
            x.unknown("role", "neither foreman nor foreman-proxy is installed")
    else:
        x.unknown("role", "no scenario file and no package list")


def _tuning_key(key: str) -> bool:
    return key.startswith(TUNING_PREFIXES)


def effective(x: Extractor, answers: dict[str, Any] | None, hiera: dict[str, Any] | None) -> None:
    """Installer defaults (common + size) < answers file < custom-hiera; the PostgreSQL hash merges key by key."""
    layers: list[str] = []
    merged: dict[str, Any] = {}
    product_name, version = x.value("product"), x.value("product_version")
    if product_name and version:
        try:
            from foretune.knowledge.profiles import installer_hiera, tuning_files  # start-up: only when effective runs
            from foretune.knowledge.releases import resolve_release  # start-up: only when effective runs

            release = resolve_release(product_name, version, foreman_version=x.value("foreman_version"))
            profile = x.value("tuning_profile") or "default"
            merged = installer_hiera(release, profile if profile != "development" else "default", x.value("role") or "server")
            layers.append(f"installer {release.foreman_version} {tuning_files(release, profile)}")
        except ForetuneError as exc:
            x.src.problem(f"installer defaults for {product_name} {version} unknown: {exc}")
    if answers:
        for module, params in answers.items():
            if isinstance(params, dict):
                for param, value in params.items():
                    key = f"{module}::{param}"
                    if _tuning_key(key):
                        merged[key] = value
        layers.append("answers file")
    if hiera:
        for key, value in hiera.items():
            if key == PG and isinstance(value, dict):
                merged[PG] = {**(merged.get(PG) or {}), **value}
            elif _tuning_key(str(key)):
                merged[str(key)] = value
        layers.append("custom-hiera.yaml")
    if not layers:
        x.unknown("effective_hiera", "no product version, answers file or custom-hiera to build it from")
        return
    x.known("effective_hiera", redact_data(merged), x.note("installer precedence", " < ".join(layers)))
