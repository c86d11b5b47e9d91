"""Service demands per request class: cited idle latencies split by calibrated shares, or a ``foretune load`` result.

A registration is the sequence of ``registration.steps`` in ``knowledge/data/model.yaml`` (the calls one global
registration makes, with their idle latency). Each step's time splits into Ruby CPU (holds its Puma worker's
GVL), backend CPU (Candlepin's Java or PostgreSQL: a core, no GVL) and waiting (neither); the shares and the
CPU speed of the guide's lab are the calibration (``calibration`` in the same file).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from foretune.errors import InputError


class Step(NamedTuple):
    """One request class: ``lump`` simulated requests stand for ``calls`` real ones with the same total demand."""

    name: str
    calls: int
    lump: int
    ruby_s: float  # per simulated request
    backend_cpu_s: float
    wait_s: float
    candlepin: bool
    task_ruby_s: float = 0.0  # asynchronous Dynflow work queued on the hosts queue
    serial_s: float = 0.0  # time inside the serialised section (one request at a time across the server)


class Calibration(NamedTuple):
    ruby_share: float
    backend_cpu_share: float
    speed: float  # demand multiplier: the guide lab's CPUs against the trace's idle server
    cpu_penalty: float
    gvl_penalty: float
    serial_s: float  # per registration, in consumer creation


class Demands(NamedTuple):
    steps: tuple[Step, ...]
    think_s: float  # client time between calls, per registration
    calibration: Calibration
    content_cpu_s: float  # CPU per package request
    content_wait_s: float
    package_kib: float
    api_ruby_s: float
    api_backend_s: float
    source: str
    client_cpu_s: float = 0.0  # CPU a request costs the load generator on the server's own cores (a lab; 0 for hosts)

    def idle_registration_s(self) -> float:
        return sum((s.ruby_s + s.backend_cpu_s + s.wait_s) * s.lump for s in self.steps)


def calibration() -> Calibration:
    from foretune import knowledge  # start-up: only when calibration runs

    data = knowledge.load_data("model.yaml")["calibration"]
    return Calibration(*(float(data[k]["value"]) for k in Calibration._fields))


def build(cal: Calibration | None = None, measured_ms: dict[str, float] | None = None, source: str = "") -> Demands:
    """Demands from the cited step table, with ``measured_ms`` (step -> p50 ms) replacing idle latencies."""
    from foretune import knowledge  # start-up: only when build runs

    data = knowledge.load_data("model.yaml")
    cal = cal or calibration()
    steps = []
    for raw in data["registration"]["steps"]:
        ms = float((measured_ms or {}).get(raw["name"], raw["idle_ms"] / raw["calls"]) * raw["calls"])
        lump = int(raw.get("lump", 1))
        total = ms / 1000.0 * cal.speed / lump
        ruby = total * cal.ruby_share
        backend = (total - ruby) * cal.backend_cpu_share
        task = float(raw.get("task_ms", 0)) / 1000.0 * cal.speed
        serial = cal.serial_s * cal.speed if raw.get("serialised") else 0.0
        steps.append(Step(raw["name"], int(raw["calls"]), lump, ruby, backend, max(total - ruby - backend - serial, 0.0),
                          bool(raw.get("candlepin")), task, serial))
    content = data["content"]
    api = data["api"]
    return Demands(tuple(steps), float(data["registration"]["client_think_s"]["value"]), cal,
                   float(content["cpu_ms"]["value"]) / 1000.0, float(content["wait_ms"]["value"]) / 1000.0,
                   float(content["package_kib"]["value"]), float(api["ruby_ms"]["value"]) / 1000.0 * cal.speed,
                   float(api["backend_ms"]["value"]) / 1000.0 * cal.speed, source or "cited defaults (model.yaml)")


def step_aliases() -> dict[str, str]:
    """Names a ``foretune load`` result may give a step (its name or its request line) -> the model's step."""
    from foretune import knowledge  # start-up: only when step_aliases runs

    found: dict[str, str] = {}
    for raw in knowledge.load_data("model.yaml")["registration"]["steps"]:
        found[raw["name"].lower()] = raw["name"]
        for alias in raw.get("aliases", []):
            found[alias.lower()] = raw["name"]
    return found


def from_load_result(text: str, where: str) -> tuple[dict[str, float], list[str]]:
    """Step p50 latencies (ms per call) from a ``foretune load`` JSON result; unknown steps are returned as notes."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InputError(f"{where}: not JSON ({exc})") from None
    steps = doc.get("steps") if isinstance(doc, dict) else None
    if not isinstance(steps, list) or not steps:
        raise InputError(f"{where}: no steps[] (expected the JSON of foretune load: steps[] with name and p50_ms)")
    aliases = step_aliases()
    found: dict[str, float] = {}
    notes: list[str] = []
    for step in steps:
        if not isinstance(step, dict) or "name" not in step or "p50_ms" not in step:
            raise InputError(f"{where}: every step needs name and p50_ms")
        try:
            p50 = float(step["p50_ms"])
        except (TypeError, ValueError):
            raise InputError(f"{where}: step {step['name']!r}: p50_ms is not a number") from None
        if not p50 > 0 or p50 == float("inf"):
            raise InputError(f"{where}: step {step['name']!r}: p50_ms must be a positive number")
        name = aliases.get(str(step["name"]).strip().lower())
        if name is None:
            notes.append(f"{where}: step {step['name']!r} is not a registration step the model knows; ignored")
        else:
            found[name] = p50
    if not found:
        raise InputError(f"{where}: none of its steps is a registration step the model knows "
                         f"({', '.join(sorted(set(aliases.values())))})")
    return found, notes


def describe(d: Demands) -> list[dict[str, Any]]:
    return [{"step": s.name, "calls": s.calls, "ruby_s": round(s.ruby_s * s.lump, 4),
             "backend_cpu_s": round(s.backend_cpu_s * s.lump, 4), "wait_s": round(s.wait_s * s.lump, 4),
             "candlepin": s.candlepin} for s in d.steps]
