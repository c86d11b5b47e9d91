"""Pull-based remote execution over MQTT: mosquitto's file limit and the plugin's rate limit."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.plan.components import mqtt
from tests.plan.components.helpers import explain, hiera_and_installer, plan, run


def test_mosquitto_holds_one_descriptor_per_pull_host_plus_a_tenth() -> None:
    # Foreman guide (gf-pull-rex): raise mosquitto's LimitNOFILE with the number of pull hosts;
    # 6000 hosts + 10 % = 6600, rounded up to 7000
    t = run(mqtt.plan, "satellite", "6.15", role="capsule", hosts=6000, rex="pull-mqtt")
    assert t["mosquitto.limit_nofile"].foretune.value == 7000
    assert t["mqtt.rate_limit"].foretune.value == 200  # above 2000 pull hosts
    assert run(mqtt.plan, "satellite", "6.15", hosts=1500, rex="pull-mqtt")["mqtt.rate_limit"].foretune.value is None
    assert run(mqtt.plan, "satellite", "6.15", hosts=6000) == {}  # SSH remote execution


def test_mosquitto_wording_follows_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(load_data("planner.yaml")["mosquitto_headroom"], "value", 0.25)
    p = plan("satellite", "6.15", role="capsule", hosts=6000, rex="pull-mqtt")
    text = explain(p, "mosquitto.limit_nofile")
    assert "foretune: 8000 — one descriptor per pull-REX host (6000) plus 25 %" in text  # 7500, rounded up to 8000
    assert "arithmetic: max(1024, ceil(6000 x 1.25 / 1000) x 1000) = 8000" in text


def test_mqtt_rate_limit_option_only_where_puppet_foreman_proxy_has_it() -> None:
    # $mqtt_rate_limit is first in puppet-foreman_proxy 24.1.0 (script.pp); foreman-installer 3.5.0 pins 24.0.x, 3.6.0 24.2.x
    key = "foreman_proxy::plugin::remote_execution::script::mqtt_rate_limit"
    hiera, command = hiera_and_installer("satellite", "6.13", rex="pull-mqtt")
    assert key not in hiera
    assert "--foreman-proxy-plugin-remote-execution-script-mqtt-rate-limit" not in command
    hiera, command = hiera_and_installer("satellite", "6.14", rex="pull-mqtt")
    assert hiera[key] == 200
    assert "--foreman-proxy-plugin-remote-execution-script-mqtt-rate-limit 200" in command
