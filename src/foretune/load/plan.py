"""What each scenario requests, in order and in number: the request plan ``--dry-run`` prints and the users follow.

Registration counts follow one traced global registration of a RHEL 9 host (ehelms/foreman-ai-harness
``foreman/global-registration-api-analysis.md``, summarised in knowledge/load-and-model.md §2.1): about 12
``/rhsm/status``, 6 serials, 6 accessible_content, 13 compliance (none on RHEL 10) and 5 consumer polls.
Insights calls are left out, as satperf leaves them out (``--setup-insights false``).
"""

from __future__ import annotations

from dataclasses import dataclass

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


def registration(rhel: int = 9) -> list[Call]:
    """The global registration sequence; ``rhel`` 10 drops the compliance polls."""
    uuid = "/rhsm/consumers/{uuid}"
    calls = [
        Call("register_script", "GET", "/register?organization_id={org}&activation_keys={key}", 1, "Bearer JWT"),
        Call("rhsm_resources", "GET", "/rhsm/", 1),
        Call("consumer_create", "POST", "/rhsm/consumers?owner={org}&activation_keys={key}", 1,
             "facts JSON; returns the identity certificate"),
        Call("status", "GET", "/rhsm/status", 12),
        Call("serials", "GET", uuid + "/certificates/serials", 6),
        Call("certificates", "GET", uuid + "/certificates", 1),
        Call("accessible_content", "GET", uuid + "/accessible_content", 6),
        Call("consumer_show", "GET", uuid, 5),
    ]
    if rhel < 10:
        calls.append(Call("compliance", "GET", uuid + "/compliance", 13))
    calls += [
        Call("register_host", "POST", "/register", 1, "uuid and host parameters"),
        Call("upload_profiles", "PUT", uuid + "/profiles", 1, "{packages} packages"),
    ]
    return calls


def content(packages: int) -> list[Call]:
    """dnf's metadata, then ``packages`` downloads."""
    return [
        Call("repomd", "GET", "{repo}/repodata/repomd.xml"),
        Call("primary", "GET", "{repo}/repodata/primary.xml.gz"),
        Call("filelists", "GET", "{repo}/repodata/filelists.xml.gz"),
        Call("package", "GET", "{repo}/<location from primary>", packages),
    ]


# the read-mostly mix hammer and the web UI make (weights out of 100); a foretune estimate
API_MIX: tuple[tuple[Call, int], ...] = (
    (Call("hosts_index", "GET", "/api/v2/hosts?per_page=20&page={page}"), 40),
    (Call("host_show", "GET", "/api/v2/hosts/{id}"), 30),
    (Call("organizations", "GET", "/api/v2/organizations"), 10),
    (Call("dashboard", "GET", "/api/v2/dashboard"), 10),
    (Call("status", "GET", "/api/v2/status"), 10),
)


def api() -> list[Call]:
    """The API mix, each call with its weight as ``count`` (per 100 requests)."""
    return [Call(c.step, c.method, c.path, weight, "personal access token") for c, weight in API_MIX]


def rex_pull() -> list[Call]:
    return [
        Call("mqtt_connect", "CONNECT", "mqtt://{mqtt}", 1, "one client per host, client id = host uuid"),
        Call("mqtt_subscribe", "SUBSCRIBE", "yggdrasil/{uuid}/data/in", 1, "QoS 1"),
        Call("notification", "PUBLISH", "yggdrasil/{uuid}/data/in", 1, "fan-out, measured publish to receipt"),
        Call("job_fetch", "GET", "/ssh/jobs/{job}", 1, "the job the notification names"),
    ]


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
