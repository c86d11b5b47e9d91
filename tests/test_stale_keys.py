"""custom-hiera keys a release does not act on, each gate written by hand from the upstream module at its tags."""

from __future__ import annotations

import pytest

from foretune.knowledge.hiera_keys import stale_keys
from foretune.knowledge.releases import resolve_release

MQTT = "foreman_proxy::plugin::remote_execution::script::mqtt_rate_limit"


@pytest.mark.parametrize(("product", "version", "key", "stale"), [
    # puppet-foreman_proxy 24.1.0 adds $mqtt_rate_limit; foreman-installer 3.5.0/3.5.1 pin 24.0.x, 3.6.0 pins 24.2.x
    ("satellite", "6.13", MQTT, True),  # Foreman 3.5
    ("satellite", "6.14", MQTT, False),  # Foreman 3.7
    # puppet-foreman 17.0.0 (foreman-installer 2.5) adds dynflow_worker_instances/_concurrency and drops dynflow_pool_size
    ("satellite", "6.9", "foreman::dynflow_worker_instances", True),  # Foreman 2.3: puppet-foreman 16.0.0
    ("satellite", "6.10", "foreman::dynflow_worker_instances", False),  # Foreman 3.0
    ("satellite", "6.9", "foreman::dynflow_pool_size", False),
    ("satellite", "6.10", "foreman::dynflow_pool_size", True),
    # puppet-puppet 11.0.0 (foreman-installer 1.21) removes Passenger support
    ("satellite", "6.5", "puppet::server::passenger_min_instances", False),  # Foreman 1.20: puppet-puppet 10.0.x
    ("satellite", "6.6", "puppet::server::passenger_min_instances", True),  # Foreman 1.22
    # puppet-foreman 14.0.0 (foreman-installer 2.0) drops the Foreman vhost's KeepAlive parameters
    ("satellite", "6.7", "foreman::max_keepalive_requests", False),  # Foreman 1.24: puppet-foreman 13.1.x
    ("satellite", "6.8", "foreman::keepalive_timeout", True),  # Foreman 2.1
])
def test_a_key_is_stale_exactly_where_the_module_of_that_release_lacks_it(product: str, version: str, key: str,
                                                                           stale: bool) -> None:
    notes = stale_keys(resolve_release(product, version), {key: 1})
    assert bool(notes) is stale, notes
    if stale:
        assert notes[0].key == key and not notes[0].refused  # inert, not refused: render removes it when asked
