"""Lab rows of the validation: the model's predictions for the lab's configurations against what `foretune load`
measures there (docs/model.md, "Lab rows"). Each case starts the lab once, measures the step latencies with one
user (the demands: latencies, and CPU per registration read from /proc), then three closed levels, each its own
run; the model, given only those latencies and the lab's knobs, must land
within 15 % of each level's registrations per second. Each case takes under 60 s."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import simpy

from foretune.load import plan
from foretune.model import validation
from foretune.model.cpu import SharedCpu
from tests.load.conftest import load, registration_args
from tests.support.lab import Lab

REPO = Path(__file__).resolve().parents[2]
LEVEL_S = 6


class Measured(NamedTuple):
    p50_ms: dict[str, float]  # step latencies with one user
    puma_cpu_s: float  # CPU seconds one registration cost in Puma, in the one-user run
    other_cpu_s: float  # ... in Apache, PostgreSQL and the backend
    levels: list[tuple[int, float, float]]  # (users, registrations/s, other work's runnable jobs) per closed level


def background(seconds: float = 1.5) -> float:
    """With the lab idle: the mean number of runnable jobs of other work on the box (/proc/loadavg's running count,
    less this sampler)."""
    samples, wall = [], time.monotonic()
    while time.monotonic() - wall < seconds:
        samples.append(int(Path("/proc/loadavg").read_text().split()[3].split("/")[0]) - 1)
        time.sleep(0.05)
    return max(sum(samples) / len(samples), 0.0)


def measure(case: validation.LabCase) -> Measured:
    """The low-load step p50s and CPU per registration, and the measured registrations/s per closed level."""
    with Lab(**case.lab) as lab:
        before = lab.cpu_seconds()
        low = load(*registration_args(lab, "--users", "1", "--duration", str(LEVEL_S)), env=lab.credentials)
        after = lab.cpu_seconds()
        assert low.status == 0, low.stderr
        steps = [s for s in low.json()["steps"] if s["name"] != "registration"]
        p50 = {s["name"]: float(s["p50_ms"]) for s in steps}
        # CPU per registration: the run's CPU per request times the requests one registration makes
        per_registration = sum(c.count for c in plan.registration()) / sum(int(s["count"]) for s in steps)
        spent = {name: after[name] - before.get(name, 0.0) for name in after}
        puma = spent.get("puma", 0.0) * per_registration
        other = sum(spent.get(n, 0.0) for n in ("apache", "candlepin", "postgresql")) * per_registration
        levels: list[tuple[int, float, float]] = []
        for users in case.levels:  # each level its own run: no level inherits another's requests in flight
            others = background()  # measured before the level, never during it
            run = load(*registration_args(lab, "--users", str(users), "--duration", str(LEVEL_S)), env=lab.credentials)
            reg = next(s for s in run.json()["steps"] if s["name"] == "registration")
            levels.append((users, float(reg["ok_rps"]), others))
    return Measured(p50, puma, other, levels)


def rows(case: validation.LabCase, got: Measured) -> list[dict[str, Any]]:
    out = []
    for users, measured, others in got.levels:
        calls = [(c.step, c.count) for c in plan.registration()]
        predicted = validation.lab_predict(case, calls, got.p50_ms, got.puma_cpu_s, got.other_cpu_s, users,
                                           background=others)
        out.append({"case": case.name, "users": users, "predicted": predicted, "measured": measured,
                    "puma_cpu_s": got.puma_cpu_s, "other_cpu_s": got.other_cpu_s, "background": others,
                    "error": predicted / measured - 1.0 if measured else float("inf")})
    return out


@pytest.fixture(scope="module", params=validation.LAB_CASES, ids=lambda c: c.name)
def lab_rows(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[float, list[dict[str, Any]]]:
    """One lab case measured once (seconds it took, rows); the rows are also written to a JSON file for the docs."""
    case = request.param
    started = time.monotonic()
    table = rows(case, measure(case))
    took = time.monotonic() - started
    out = tmp_path_factory.mktemp("lab") / "lab-rows.json"
    out.write_text(json.dumps(table, indent=1))
    print(f"lab rows of {case.name} ({took:.0f} s): {json.dumps(table)}")
    return took, table


def test_a_lab_case_runs_in_under_60_s_and_gives_a_row_per_level(lab_rows: tuple[float, list[dict[str, Any]]]) -> None:
    took, table = lab_rows
    assert took < 60, f"a lab case took {took:.0f} s"
    assert len(table) == 3 and all(r["measured"] > 0 and r["predicted"] > 0 for r in table), table
    assert all(r["puma_cpu_s"] > 0 and r["other_cpu_s"] > 0 for r in table), "no CPU measured for the lab's processes"


@pytest.mark.xfail(strict=False, reason="not met on the shared 2-core machine: repeated measurements of one level "
                   "differ by up to a factor of 2 there, and the model's rows missed by -76 to +99 % (docs/model.md, "
                   "'Lab rows'); "
                   "not strict, since the noise lets a case pass now and then")
def test_the_model_predicts_the_lab_within_15_percent(lab_rows: tuple[float, list[dict[str, Any]]]) -> None:
    _, table = lab_rows
    off = [r for r in table if abs(r["error"]) > validation.LAB_TOLERANCE]
    assert not off, json.dumps(table, indent=1)


def test_the_docs_carry_a_lab_row_per_case_and_level() -> None:
    text = (REPO / "docs" / "model.md").read_text(encoding="utf-8")
    for case in validation.LAB_CASES:
        for users in case.levels:
            assert f"| lab | {case.name} | {users} users |" in text, (case.name, users)


def test_other_work_on_the_cores_takes_its_share() -> None:
    """Processor sharing with 2 runnable jobs of other work on 2 cores: one burst runs at 2/3 of a core."""
    env = simpy.Environment()
    cpu = SharedCpu(env, 2, 0.0, background=2)
    env.run(cpu.run(1.0))
    assert env.now == pytest.approx(1.5)


def test_only_serving_path_bursts_pay_the_oversubscription_penalty() -> None:
    """Two 1 s bursts on 1 core, penalty 1: counted, each runs at 1/2 / (1 + 1) = 1/4 of a core (done at 4 s);
    not counted (pulpcore-content), at 1/2 (done at 2 s)."""
    for counted, end in ((True, 4.0), (False, 2.0)):
        env = simpy.Environment()
        cpu = SharedCpu(env, 1, 1.0)
        env.run(env.all_of([cpu.run(1.0, counted=counted), cpu.run(1.0, counted=counted)]))
        assert env.now == pytest.approx(end), counted
