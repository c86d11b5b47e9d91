"""Client counts found in a source: MQTT clients in mosquitto's log and sockets, hosts named in task exports.

Both are lower bounds of the managed hosts: a pull-REX host that did not connect while the log was
kept, or a host no task touched in the exported window, is not counted.

>>> sorted(mqtt_client_ids("1700000000: New client connected from 192.0.2.5:50312 as host1.example.com (p2, c1, k60).\\n"
...                        "Nov 23 mosquitto[9]: 1700000001: New client connected from ::1:1 as host1.example.com (p2).\\n"
...                        "1700000002: New client connected from 192.0.2.6:1 as auto-0A1B (p2, c1, k60, u'x').\\n"))
['auto-0A1B', 'host1.example.com']
>>> mqtt_client_ids("1700000000: Client host1 disconnected.")
set()
>>> sorted(mqtt_peers("tcp   ESTAB  0  0  192.0.2.1:1883  192.0.2.11:40312  users:((\\"mosquitto\\",pid=2211,fd=9))\\n"
...                   "tcp   ESTAB  0  0  192.0.2.1:1883  192.0.2.11:40999  users:((\\"mosquitto\\",pid=2211,fd=10))\\n"
...                   "tcp        0      0 [::ffff:192.0.2.1]:1883 [::ffff:192.0.2.12]:51020 ESTABLISHED 0 1 2211/mosquitto\\n"
...                   "tcp   LISTEN 0  100  0.0.0.0:1883  0.0.0.0:*  users:((\\"mosquitto\\",pid=2211,fd=5))\\n"
...                   "tcp   ESTAB  0  0  127.0.0.1:1883  127.0.0.1:50000\\n"
...                   "tcp   ESTAB  0  0  192.0.2.1:443  192.0.2.13:1883\\n", 1883))
['192.0.2.11', '192.0.2.12']
>>> sorted(task_host_names([{"label": "Actions::RemoteExecution::RunHostJob", "action": "Remote action: Run uptime on web1.example.com"},
...                         {"label": "Actions::Katello::Host::Update", "action": "Update for host db1.example.com"},
...                         {"label": "Actions::Katello::Repository::Sync", "action": "Synchronize repository 'x' on cdn.example.com"}]))
['db1.example.com', 'web1.example.com']
"""

from __future__ import annotations

import re

_CONNECTED = re.compile(r"New client connected from (\S+) as (\S{1,256}) \(", re.ASCII)
# a host name as Foreman prints it: letters, digits, dots, dashes; at least one dot (an FQDN)
_HOST_IN_ACTION = re.compile(r"(?:\bon|\bhost)\s+([A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63})+)\s*$", re.ASCII)


def mqtt_client_ids(text: str) -> set[str]:
    """Distinct client ids of mosquitto's "New client connected from ADDRESS as ID (...)" lines; clients
    from loopback addresses (the server's own, as in ``mqtt_peers``) are left out."""
    if "New client connected" not in text:
        return set()
    return {cid for address, cid in _CONNECTED.findall(text) if not _loopback(address.rsplit(":", 1)[0].strip("[]"))}


def _loopback(address: str) -> bool:
    address = address[len("::ffff:"):] if address.startswith("::ffff:") else address
    return address.startswith("127.") or address == "::1"


def mqtt_peers(text: str, port: int) -> set[str]:
    """Distinct remote addresses with an established TCP connection to local ``port`` (``ss -peaonmi`` or
    ``netstat -neopa``); loopback peers (the server's own clients) are left out."""
    local_end = f":{port}"
    peers: set[str] = set()
    for line in text.splitlines():
        if local_end not in line or ("ESTAB" not in line):
            continue
        tokens = line.split()
        for i, token in enumerate(tokens[:-1]):
            if token.endswith(local_end) and ":" in tokens[i + 1]:
                peer = tokens[i + 1].rsplit(":", 1)[0].strip("[]")
                peer = peer[len("::ffff:"):] if peer.startswith("::ffff:") else peer
                if peer and not _loopback(peer):
                    peers.add(peer)
                break
    return peers


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
