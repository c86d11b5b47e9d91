"""One iteration of each HTTP scenario, on a Locust FastHttpSession: the calls plan.py lists, in its order and number."""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import random
import re
import time
from typing import Any

from foretune.load import identity, plan
from foretune.load.options import Options
from foretune.load.results import Recorder, classify

_numbers = itertools.count(1)
_LOCATION = re.compile(rb'<location href="([^"]+)"')


class Exhausted(Exception):
    """The request cap is reached: the iteration ends without being counted."""


class _Gated:
    """The session, refusing to send once the run's request cap is reached."""

    def __init__(self, client: Any, rec: Recorder) -> None:
        self.client = client
        self.rec = rec

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        if self.rec.exhausted():
            raise Exhausted
        return self.client.request(method, path, **kwargs)

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.request("POST", path, **kwargs)


class StepFailed(Exception):
    def __init__(self, kind: str, step: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.step = step


def _check(response: Any, step: str = "") -> Any:
    status = int(getattr(response, "status_code", 0) or 0)
    kind = classify(status, getattr(response, "error", None))
    if kind is not None:
        raise StepFailed(kind, step)
    return response


def facts(name: str) -> dict[str, str]:
    """About 200 facts, as subscription-manager sends them (the keys Katello reads for the OS among them)."""
    base = {"distribution.name": "Red Hat Enterprise Linux", "distribution.version": "9.6", "distribution.id": "Plow",
            "uname.machine": "x86_64", "network.fqdn": name, "network.hostname": name, "cpu.cpu_socket(s)": "1",
            "cpu.core(s)_per_socket": "2", "memory.memtotal": "3880000", "virt.is_guest": "true"}
    base.update({f"lscpu.flag{i}": "yes" for i in range(190)})
    return base


def profile(packages: int) -> list[dict[str, Any]]:
    rpms = [{"name": f"package-{i}", "version": "1.0", "release": "1.el9", "epoch": 0, "arch": "x86_64",
             "vendor": "Red Hat, Inc."} for i in range(packages)]
    return [{"profile_type": "rpm", "profile": rpms}, {"profile_type": "enabled_repos", "profile": []},
            {"profile_type": "modulemd", "profile": []}]


def registration(client: Any, opts: Options, rec: Recorder) -> None:
    """One global registration of a new host named foretune-load-<run>-<n>; the flow fails at its first failed call."""
    name = plan.host_name(opts.run, next(_numbers))
    started, wall = time.perf_counter(), time.time()
    kind: str | None = None
    step: str | None = None
    message = ""
    try:
        _registration(_Gated(client, rec), opts, name, rec)
    except StepFailed as exc:
        kind, step = exc.kind, exc.step or None
    except identity.IdentityError as exc:  # the host could not present its identity: its later calls cannot succeed
        kind, step, message = "identity", "consumer_create", str(exc)
    rec.record("registration", (time.perf_counter() - started) * 1000, kind, message=message, flow=True)
    rec.trace(name, wall, time.time(), kind, step)


def _registration(client: Any, opts: Options, name: str, rec: Recorder) -> None:
    jwt = {"Authorization": f"Bearer {opts.credentials.get('FORETUNE_LOAD_JWT', '')}"}
    org, key = opts.organization, opts.activation_key
    scope = f"&organization_id={opts.organization_id}" if opts.organization_id is not None else ""
    _check(client.get(f"/register?activation_keys={key}{scope}", name="register_script", headers=jwt), "register_script")
    _check(client.get("/rhsm/", name="rhsm_resources"), "rhsm_resources")
    body = {"type": {"label": "system"}, "name": name, "facts": facts(name), "installedProducts": [],
            "contentTags": [], "role": "", "usage": "", "addOns": [], "serviceLevel": ""}
    created = _check(client.post(f"/rhsm/consumers?owner={org}&activation_keys={key}", name="consumer_create", json=body),
                     "consumer_create")
    consumer = json.loads(created.content)
    uuid = consumer["uuid"]
    with identity.session(client.client, opts, consumer.get("idCert")) as session:
        host = _Gated(session, rec) if session is not None else client  # subscription-manager's calls: its identity
        polls = plan.polls(opts.rhel)
        for round_number in range(max(c.count for c in polls)):
            for call in polls:
                if round_number < call.count:
                    _check(host.get(call.path.format(uuid=uuid), name=call.step), call.step)
        _check(client.post("/register", name="register_host", data=f"uuid={uuid}", headers={  # curl, with the JWT
            **jwt, "Content-Type": "application/x-www-form-urlencoded"}), "register_host")
        _check(host.request("PUT", f"/rhsm/consumers/{uuid}/profiles", name="upload_profiles",
                            json=profile(opts.profile_packages)), "upload_profiles")


def content(client: Any, opts: Options, rec: Recorder) -> None:
    """dnf: repomd.xml, primary, filelists, then ``packages`` downloads (random picks from primary)."""
    started = time.perf_counter()
    kind: str | None = None
    repo = opts.repo.rstrip("/")
    client = _Gated(client, rec)
    try:
        fetched = {}
        for call in plan.metadata():
            for _ in range(call.count):
                fetched[call.step] = _check(client.get(call.path.format(repo=repo), name=call.step))
        data = fetched["primary"].content
        locations = _LOCATION.findall(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
        if not locations:
            raise StepFailed("empty-repository")
        for location in random.choices(locations, k=opts.packages):
            _check(client.get(f"{repo}/{location.decode('utf-8', 'replace')}", name="package"))
    except StepFailed as exc:
        kind = exc.kind
    rec.record("download", (time.perf_counter() - started) * 1000, kind, flow=True)


class ApiState:
    def __init__(self) -> None:
        self.ids: list[int] = []


def api(client: Any, opts: Options, rec: Recorder, state: ApiState) -> None:
    """One call of the read-mostly mix, picked by weight."""
    auth = (opts.credentials.get("FORETUNE_LOAD_USER", "admin"), opts.credentials.get("FORETUNE_LOAD_TOKEN", ""))
    mix = plan.api_mix()
    call = random.choices([c for c, _ in mix], weights=[w for _, w in mix])[0]
    if call.step == "host_show" and not state.ids:
        call = mix[0][0]
    path = call.path.format(page=random.randint(1, 3), id=random.choice(state.ids) if state.ids else 0)
    response = _Gated(client, rec).get(path, name=call.step, auth=auth)
    if call.step == "hosts_index" and int(getattr(response, "status_code", 0) or 0) == 200 and len(state.ids) < 1000:
        with contextlib.suppress(ValueError, KeyError, TypeError, AttributeError):
            rows = json.loads(response.content).get("results", [])
            state.ids.extend(int(row["id"]) for row in rows)
            if not rows and not state.ids:
                show = next((w for c, w in mix if c.step == "host_show"), 0)
                rec.note_once(f"api: the server listed no hosts, so host_show ({show} % of the mix) was sent as "
                              "hosts_index: the mix had no host_show calls while there were none")
