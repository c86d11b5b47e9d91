"""Syslog lines carry no year: it comes from the sosreport's date and the file's place in rotation, never from the
clock or a checkout's mtime; a line that carries its own date keeps it."""

from __future__ import annotations

import io

from foretune.logs.prefilter import consume_incidents
from foretune.logs.system import SystemLog
from foretune.logs.timeutil import log_ended

KILL = b"kernel: Out of memory: Killed process 4242 (java) total-vm:12GB, anon-rss:9GB\n"


def test_a_dated_rotation_ends_on_its_name_and_the_rest_on_the_collection() -> None:
    checkout = 1795000000.0  # November 2026: what a fresh checkout's mtime says
    assert log_ended("var/log/messages-20231231", (2024, 1), checkout) == (2023, 12)
    assert log_ended("var/log/messages-20231231.gz", (2024, 1), checkout) == (2023, 12)
    assert log_ended("var/log/messages", (2024, 1), checkout) == (2024, 1)
    assert log_ended("var/log/messages.2", (2024, 1), checkout) == (2024, 1)


def test_december_lines_of_a_january_sosreport_are_of_the_year_before() -> None:
    log = SystemLog("var/log/messages-20240107", ended=log_ended("var/log/messages-20240107", (2024, 2), None))
    consume_incidents(log, io.BytesIO(b"Dec 30 23:59:01 sat " + KILL + b"Jan  2 00:00:05 sat " + KILL))
    (incident,) = [i.as_dict() for i in log.incidents.values()]
    assert (incident["first"], incident["last"], incident["count"]) == ("2023-12-30T23:59:01", "2024-01-02T00:00:05", 2)


def test_a_line_with_its_own_date_keeps_it() -> None:
    log = SystemLog("var/log/messages", ended=(2024, 2))  # rsyslog's RFC 3339 format: the line says 2021
    consume_incidents(log, io.BytesIO(b"2021-06-14T03:12:09.412771+00:00 sat69 " + KILL))
    (incident,) = [i.as_dict() for i in log.incidents.values()]
    assert incident["first"] == "2021-06-14T03:12:09" and incident["service"] == "java"


MOSQUITTO = (b'1763288900: Unable to accept new connection, system socket count has been exceeded. Try increasing '
             b'"ulimit -n" or equivalent.\n')


def test_mosquittos_own_log_is_an_incident_source_with_its_epoch_dates() -> None:
    # mosquitto.conf's `log_dest file /var/log/mosquitto/mosquitto.log` writes seconds since the epoch; 1763288900 is
    # 2025-11-16T10:28:20 UTC (by hand: date -u -d @1763288900). "New client connected" lines are no incident.
    log = SystemLog("var/log/mosquitto/mosquitto.log", ended=(2025, 11))
    consume_incidents(log, io.BytesIO(b"1763287000: New client connected from 10.2.0.0:40000 as host0000 (p2, c1, k60).\n"
                                      + MOSQUITTO + MOSQUITTO.replace(b"1763288900", b"1763288901")))
    (incident,) = [i.as_dict() for i in log.incidents.values()]
    assert (incident["kind"], incident["service"], incident["count"]) == ("socket_exhaustion", "mosquitto", 2)
    assert (incident["first"], incident["last"]) == ("2025-11-16T10:28:20", "2025-11-16T10:28:21")
    assert log.bad == 0
