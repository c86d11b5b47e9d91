"""Client counts found in a source: MQTT clients in mosquitto's log, hosts named in task exports.

Both are lower bounds of the managed hosts: a pull-REX host that did not connect while the log was
kept, or a host no task touched in the exported window, is not counted.

>>> sorted(mqtt_client_ids("1700000000: New client connected from 192.0.2.5:50312 as host1.example.com (p2, c1, k60).\\n"
...                        "Nov 23 mosquitto[9]: 1700000001: New client connected from ::1:1 as host1.example.com (p2).\\n"
...                        "1700000002: New client connected from 192.0.2.6:1 as auto-0A1B (p2, c1, k60, u'x').\\n"))
['auto-0A1B', 'host1.example.com']
>>> mqtt_client_ids("1700000000: Client host1 disconnected.")
set()
>>> sorted(task_host_names([{"label": "Actions::RemoteExecution::RunHostJob", "action": "Remote action: Run uptime on web1.example.com"},
...                         {"label": "Actions::Katello::Host::Update", "action": "Update for host db1.example.com"},
...                         {"label": "Actions::Katello::Repository::Sync", "action": "Synchronize repository 'x' on cdn.example.com"}]))
['db1.example.com', 'web1.example.com']
"""

from __future__ import annotations

import re

_CONNECTED = re.compile(r"New client connected from \S+ as (\S{1,256}) \(", re.ASCII)
# a host name as Foreman prints it: letters, digits, dots, dashes; at least one dot (an FQDN)
_HOST_IN_ACTION = re.compile(r"(?:\bon|\bhost)\s+([A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63})+)\s*$", re.ASCII)


def mqtt_client_ids(text: str) -> set[str]:
    """Distinct client ids of mosquitto's "New client connected from ADDRESS as ID (...)" lines."""
    if "New client connected" not in text:
        return set()
    return set(_CONNECTED.findall(text))


def task_host_names(rows: list[dict[str, str]]) -> set[str]:
    """Distinct host names that host-scoped tasks (label naming ``Host``) end their ``action`` with."""
    names: set[str] = set()
    for row in rows:
        if "Host" not in row.get("label", ""):
            continue
        match = _HOST_IN_ACTION.search(row.get("action", ""))
        if match:
            names.add(match.group(1).lower())
    return names
