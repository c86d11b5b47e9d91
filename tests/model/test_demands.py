"""Service demands: the cited step table, and a foretune load result replacing what it measured."""

from __future__ import annotations

import json
import re

import pytest

from foretune.errors import InputError
from foretune.model import demands


def test_idle_registration_is_the_traces_server_time() -> None:
    dem = demands.build(demands.Calibration(0.1, 0.1, 1.0, 0.0, 0.0, 0.0))
    # hand sum of the trace's steps: 103 + 3256 + 2199 + 765 + 267 + 253 + 159 ms
    assert dem.idle_registration_s() == pytest.approx(7.002, abs=1e-6)
    consumer = next(s for s in dem.steps if s.name == "consumer_create")
    assert consumer.ruby_s == pytest.approx(0.3256) and consumer.candlepin


def test_a_load_result_replaces_the_steps_it_names() -> None:
    text = json.dumps({"steps": [{"name": "POST /rhsm/consumers", "count": 10, "failures": 0, "p50_ms": 1000,
                                  "p95_ms": 2000, "p99_ms": 3000, "rps": 1.0},
                                 {"name": "GET /rhsm/status", "p50_ms": 10},
                                 {"name": "something else", "p50_ms": 5}]})
    measured, notes = demands.from_load_result(text, "run.json")
    assert measured == {"consumer_create": 1000.0, "rhsm_polls": 10.0}
    assert notes == ["run.json: step 'something else' is not a registration step the model knows; ignored"]
    dem = demands.build(demands.Calibration(0.1, 0.1, 1.0, 0.0, 0.0, 0.0), measured_ms=measured)
    # 1000 ms for the consumer and 46 polls x 10 ms, the rest as cited
    assert dem.idle_registration_s() == pytest.approx(1.0 + 0.46 + 0.103 + 0.765 + 0.267 + 0.253 + 0.159)


@pytest.mark.parametrize(("text", "message"), [
    ("not json", "not JSON"),
    ("[]", "no steps[]"),
    ('{"steps": []}', "no steps[]"),
    ('{"steps": [{"name": "x"}]}', "needs name and p50_ms"),
    ('{"steps": [{"name": "GET /register", "p50_ms": "fast"}]}', "not a number"),
    ('{"steps": [{"name": "GET /register", "p50_ms": -3}]}', "positive"),
    ('{"steps": [{"name": "other", "p50_ms": 3}]}', "none of its steps"),
])
def test_bad_load_results_are_one_clear_error(text: str, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        demands.from_load_result(text, "run.json")
