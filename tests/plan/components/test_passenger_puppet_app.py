"""Satellite 6.2 server: the brief's per-application Passenger block applies to Puppet's vhost as to Foreman's.

The 6.2 performance brief, 5.4: "PassengerMinInstances 6 PassengerStartTimeout 500 PassengerMaxPreloaderIdleTime 0
PassengerMaxRequests 10000", given for /etc/httpd/conf.d/05-foreman-ssl.conf and again for the "Puppet Passenger
application configuration: /etc/httpd/conf.d/25-puppet.conf".
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

G62 = ["--product", "satellite", "--version", "6.2", "--hosts", "8000", "--cpus", "16", "--physical-cores", "8",
       "--ram", "48G", "--katello-agent-hosts", "6000", "--puppet-hosts", "2000"]


def test_puppets_vhost_gets_max_requests_and_preloader_idle_time(tmp_path: Path) -> None:
    result = run_cli("plan", *G62, "--output-dir", str(tmp_path / "out"))
    assert result.status == 0, result.stderr
    apply = (tmp_path / "out" / "APPLY.md").read_text(encoding="utf-8")
    for line in ("In `/etc/httpd/conf.d/25-puppet.conf` set `PassengerMaxRequests 10000`.",
                 "In `/etc/httpd/conf.d/25-puppet.conf` set `PassengerMaxPreloaderIdleTime 0`.",
                 "In `/etc/httpd/conf.d/05-foreman-ssl.conf` set `PassengerMaxRequests 10000`.",
                 "In `/etc/httpd/conf.d/05-foreman-ssl.conf` set `PassengerMaxPreloaderIdleTime 0`."):
        assert line in apply, line
    # no such installer key exists: the names only route the file edit, never a hiera key or an installer option
    assert "puppet::server::passenger_max_requests" not in apply
