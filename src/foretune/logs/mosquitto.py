"""mosquitto's messages (its own ``mosquitto.log`` with ``log_dest file``, or its lines in the system log): clients
connected, disconnects by cause, and connections refused because the broker ran out of descriptors.

The messages are mosquitto's own (``src/handle_connect.c``, ``src/loop.c`` and ``src/net.c`` of mosquitto 1.6 and
2.0), after the ``1763288900: `` epoch stamp: ``New client connected from 192.0.2.11:40312 as host1.example.com
(p2, c1, k60).``, ``Client host1.example.com disconnected.`` (the client said goodbye), ``Client host1.example.com has exceeded
timeout, disconnecting.``, ``Client host1.example.com closed its connection.`` (2.0; ``Socket error on client
host1.example.com, disconnecting.`` in 1.6) and ``Unable to accept new connection, system socket count has been exceeded. Try increasing
"ulimit -n" or equivalent.``
"""

from __future__ import annotations

from typing import Any

CONNECTED = b"New client connected from "
REFUSED = (b"socket count has been exceeded", b"socket count exceeded")
# how a client went, by the end of mosquitto's message
DISCONNECTS = ((b" disconnected.", "disconnected by the client"), (b" has exceeded timeout, disconnecting.", "keepalive timeout"),
               (b" closed its connection.", "connection lost"), (b"Socket error on client ", "connection lost"),
               (b" disconnected: ", "connection lost"), (b" disconnected due to ", "protocol or size error"),
               (b" disconnected, not authorised.", "not authorised"))
MAX_CLIENTS = 200_000  # distinct client ids kept (one a pull-REX host; the largest profile plans for 60,000 hosts)


class Broker:
    """What mosquitto's messages say about its clients."""

    def __init__(self) -> None:
        self.connections = 0
        self.clients: set[bytes] = set()
        self.disconnects: dict[str, int] = {}
        self.refused = 0
        self.per_minute: dict[int, int] = {}  # connections accepted a minute

    def see(self, message: bytes, t: int | None) -> bool:
        """Count one message (the text after the epoch stamp); True when it is a refused connection."""
        if message.startswith(CONNECTED):
            self.connections += 1
            words = message.split(b" as ", 1)
            if len(words) == 2 and len(self.clients) < MAX_CLIENTS:
                self.clients.add(words[1].split(b" ", 1)[0])
            if t is not None:
                self.per_minute[t - t % 60] = self.per_minute.get(t - t % 60, 0) + 1
            return False
        if any(needle in message for needle in REFUSED):
            self.refused += 1
            return True
        for needle, cause in DISCONNECTS:
            if needle in message:
                self.disconnects[cause] = self.disconnects.get(cause, 0) + 1
                break
        return False

    @property
    def seen(self) -> bool:
        return bool(self.connections or self.refused or self.disconnects)

    def merge(self, other: Broker) -> None:
        self.connections += other.connections
        self.clients |= set(list(other.clients)[:max(MAX_CLIENTS - len(self.clients), 0)])
        self.refused += other.refused
        for cause, n in other.disconnects.items():
            self.disconnects[cause] = self.disconnects.get(cause, 0) + n
        for minute, n in other.per_minute.items():
            self.per_minute[minute] = self.per_minute.get(minute, 0) + n

    def summary(self) -> dict[str, Any]:
        """Connections, distinct clients (at least, past :data:`MAX_CLIENTS`), disconnects by cause, refused
        connections and the most connections accepted in one minute (a reconnect storm after a restart shows there).

        >>> b = Broker()
        >>> b.see(b"New client connected from 192.0.2.11:40312 as host1.example.com (p2, c1, k60).", 120)
        False
        >>> b.see(b"Client host1.example.com has exceeded timeout, disconnecting.", 180)
        False
        >>> b.see(b'Unable to accept new connection, system socket count has been exceeded. Try increasing "ulimit -n" or equivalent.', 181)
        True
        >>> b.summary()
        {'connections': 1, 'clients': 1, 'clients_capped': False, 'disconnects': {'keepalive timeout': 1}, 'refused': 1, 'peak_connections_per_minute': 1}
        """
        return {"connections": self.connections, "clients": len(self.clients), "clients_capped": len(self.clients) >= MAX_CLIENTS,
                "disconnects": dict(sorted(self.disconnects.items(), key=lambda kv: -kv[1])), "refused": self.refused,
                "peak_connections_per_minute": max(self.per_minute.values(), default=0)}
