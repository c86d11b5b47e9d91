"""Measured failure comes first: a failure the source shows is critical and quoted, whatever the host figure.

capsule-6.15-measured-failure (sos 4.x) is capsule-6.15-pull-rex-tuned (httpd 640000, foreman-proxy 1000000,
mosquitto LimitNOFILE=65536, the installer's values) with two things it measured, written by hand in the
formats those programs write:
- var/log/messages: mosquitto's "Unable to accept new connection, system socket count has been exceeded.
  Try increasing "ulimit -n" or equivalent." three times;
- sos_commands/kernel/dmesg: the kernel's "Out of memory: Killed process 3310 (pulpcore-worker)", which only
  the ring buffer holds (the messages file kept no kill).
Expected, with and without --hosts: oom-kills and open-files-exhausted critical, each quoting its line, basis
measured; MUST NOT: any other finding at medium or above (every setting is the tuned tree's).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"


@pytest.mark.parametrize("extra", [(), ("--hosts", "3000"), ("--hosts", "200")], ids=["no-context", "3000", "200"])
def test_measured_failures_are_critical_and_quoted(extra: tuple[str, ...]) -> None:
    result = run_cli("audit", str(SOS / "capsule-6.15-measured-failure"), *extra, "--format", "json", "--fail-on", "critical")
    assert result.status == 1, result.stderr  # --fail-on critical
    failing = {f["rule"]: f for f in json.loads(result.stdout)["findings"] if f["status"] == "fail"}
    oom, sockets = failing["oom-kills"], failing["open-files-exhausted"]
    assert (oom["severity"], oom["basis"]) == ("critical", "measured")
    assert "Out of memory: Killed process 3310 (pulpcore-worker)" in oom["message"]
    assert any(e["location"] == "sos_commands/kernel/dmesg" for e in oom["evidence"])
    assert (sockets["severity"], sockets["basis"]) == ("critical", "measured")
    assert "system socket count has been exceeded" in sockets["message"] and sockets["message"].startswith("mosquitto")
    loud = {rule for rule, f in failing.items() if f["severity"] in ("medium", "high", "critical")}
    assert loud == {"oom-kills", "open-files-exhausted"}
