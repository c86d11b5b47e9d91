"""What each scenario requests, in order and in number: the request plan ``--dry-run`` prints and the users follow.

The registration polls and their counts, the content scenario's metadata requests, the pull-REX client's calls, and
the API mix and its weights, are cited data (knowledge/data/load.yaml): the counts follow one traced global
registration of a RHEL 9 host (knowledge/load-and-model.md 2.1) and the smart proxy's pull-mode code. Insights
calls are left out, as satperf leaves them out (``--setup-insights false``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from foretune.knowledge import load_data

SCENARIOS = ("registration", "content", "api", "rex-pull")
HOST_PREFIX = "foretune-load"


@dataclass(frozen=True)
class Call:
    """One kind of request of a scenario: its step name, method, path template and how often per iteration."""

    step: str
    method: str
    path: str
    count: int = 1
    note: str = ""
    qos: int = 0  # MQTT calls: the QoS they use


def _data() -> Any:
    return load_data("load.yaml")


def polls(rhel: int = 9) -> list[Call]:
    """The GET polls of one registration after its consumer is created, in subscription-manager's counts for ``rhel``."""
    calls = []
    for entry in _data()["registration_polls"]:
        count = int(entry["count"])
        later = entry.get("from_rhel")
        if later and rhel >= int(later["value"]):
            count = int(later["count"])
        if count:
            calls.append(Call(entry["step"], entry["method"], entry["path"], count))
    return calls


def registration(rhel: int = 9) -> list[Call]:
    """The global registration sequence; ``rhel`` 10 drops the compliance polls."""
    return [
        Call("register_script", "GET", "/register?activation_keys={key}&organization_id={org_id}", 1, "Bearer JWT"),
        Call("rhsm_resources", "GET", "/rhsm/", 1),
        Call("consumer_create", "POST", "/rhsm/consumers?owner={org}&activation_keys={key}", 1,
             "facts JSON; returns the identity certificate"),
        *polls(rhel),
        Call("register_host", "POST", "/register", 1, "uuid and host parameters"),
        Call("upload_profiles", "PUT", "/rhsm/consumers/{uuid}/profiles", 1, "{packages} packages"),
    ]


def _calls(section: str) -> list[Call]:
    return [Call(e["step"], e["method"], e["path"], int(e["count"]), str(e.get("note", "")), int(e.get("qos", 0)))
            for e in _data()[section]]


def metadata() -> list[Call]:
    """dnf's metadata requests of one content iteration, in order."""
    return _calls("content_requests")


def content(packages: int) -> list[Call]:
    """dnf's metadata, then ``packages`` downloads."""
    return [*metadata(), Call("package", "GET", "{repo}/<location from primary>", packages)]


@functools.lru_cache(maxsize=1)
def api_mix() -> tuple[tuple[Call, int], ...]:
    """The read-mostly mix hammer and the web UI make: each call with its weight out of 100."""
    return tuple((Call(e["step"], e["method"], e["path"]), int(e["weight"])) for e in _data()["api_mix"])


def api() -> list[Call]:
    """The API mix, each call with its weight as ``count`` (per 100 requests)."""
    return [Call(c.step, c.method, c.path, weight, "personal access token") for c, weight in api_mix()]


def rex_pull() -> list[Call]:
    """The pull-REX client's calls per host: connect, subscribe, one notification, one job fetch."""
    return _calls("rex_pull")


def rex_call(step: str) -> Call:
    """One step of :func:`rex_pull` by name."""
    return next(c for c in rex_pull() if c.step == step)


def calls(scenario: str, *, packages: int = 5, rhel: int = 9) -> list[Call]:
    if scenario == "registration":
        return registration(rhel)
    if scenario == "content":
        return content(packages)
    if scenario == "api":
        return api()
    return rex_pull()


def host_name(run: str, number: int) -> str:
    """The name of a host a run creates: ``foretune-load-<run>-<n>``; ``--cleanup`` removes exactly these."""
    return f"{HOST_PREFIX}-{run}-{number}"


def host_prefix(run: str) -> str:
    return f"{HOST_PREFIX}-{run}-"
