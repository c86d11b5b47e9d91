"""Safety: nothing is sent without --target and a confirmation, --dry-run sends nothing, TLS is verified,
loopback only under FORETUNE_LOAD_LOOPBACK_ONLY, --cleanup removes exactly the run's hosts."""

from __future__ import annotations

import http.server
import json
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from foretune.load import plan
from tests.conftest import run_cli
from tests.load.conftest import LOOPBACK_ONLY, load, registration_args
from tests.support.lab import Lab

CREDS = {"FORETUNE_LOAD_JWT": "jwt-value", "FORETUNE_LOAD_TOKEN": "token-value"}


@pytest.fixture
def listener() -> Iterator[tuple[str, socket.socket]]:
    """A loopback port that records whether anything connected."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        sock.setblocking(False)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", sock


def _connected(sock: socket.socket) -> bool:
    try:
        conn, _ = sock.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


def test_nothing_is_sent_without_a_target() -> None:
    result = run_cli("load", "api", "--yes", environ={**CREDS, **LOOPBACK_ONLY})
    assert result.status == 2
    assert result.stderr.strip().endswith("--target URL is required: foretune load never picks a server by itself")
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("target", ["http://192.0.2.10", "https://example.com:8443"])
def test_targets_off_loopback_are_refused_under_the_test_guard(target: str) -> None:
    result = run_cli("load", "api", "--target", target, "--yes", environ={**CREDS, **LOOPBACK_ONLY})
    assert result.status == 2
    assert "is not a loopback address" in result.stderr


def test_without_yes_and_without_a_terminal_nothing_is_sent(listener: tuple[str, socket.socket]) -> None:
    url, sock = listener
    result = run_cli("load", "api", "--target", url, environ={**CREDS, **LOOPBACK_ONLY})
    assert result.status == 2
    assert "rerun with --yes" in result.stderr
    assert not _connected(sock)


def test_a_no_at_the_prompt_cancels(listener: tuple[str, socket.socket], monkeypatch: pytest.MonkeyPatch) -> None:
    from foretune.env import Environment

    url, sock = listener
    monkeypatch.setattr(Environment, "stdin_isatty", property(lambda self: True))
    result = run_cli("load", "api", "--target", url, stdin="n\n", environ={**CREDS, **LOOPBACK_ONLY})
    assert result.status == 2
    assert "Continue? [y/N]" in result.stderr and "cancelled; nothing was sent" in result.stderr
    assert not _connected(sock)


def test_dry_run_prints_the_request_plan_and_sends_nothing(listener: tuple[str, socket.socket]) -> None:
    url, sock = listener
    result = run_cli("load", "registration", "--target", url, "--activation-key", "ak", "--organization", "Org",
                     "--run", "r1", "--users", "10", "--step", "10", "--levels", "3", "--dry-run", environ=LOOPBACK_ONLY)
    assert result.status == 0, result.stderr
    out = result.stdout
    assert "closed levels of 10, 20, 30 users, 60 s each, stopping after the first level with failures" in out
    assert " 12 x GET       /rhsm/status" in out
    assert " 13 x GET       /rhsm/consumers/{uuid}/compliance" in out
    assert "  1 x POST      /rhsm/consumers?owner=Org&activation_keys=ak" in out
    assert "hosts: foretune-load-r1-1, foretune-load-r1-2, ... (--cleanup r1 removes them)" in out
    # the trace's counts (knowledge/load-and-model.md 2.1): 6 serials, 1 certificates, 6 accessible_content, 5 consumer
    for line in ("  6 x GET       /rhsm/consumers/{uuid}/certificates/serials", "  1 x GET       /rhsm/consumers/{uuid}/certificates",
                 "  6 x GET       /rhsm/consumers/{uuid}/accessible_content", "  5 x GET       /rhsm/consumers/{uuid}\n"):
        assert line in out, line
    # no --organization-id: GET /register carries no organization_id (never the label)
    assert "  1 x GET       /register?activation_keys=ak  (Bearer JWT)" in out
    with_id = run_cli("load", "registration", "--target", url, "--activation-key", "ak", "--organization", "Org",
                      "--organization-id", "3", "--dry-run", environ=LOOPBACK_ONLY)
    assert "  1 x GET       /register?activation_keys=ak&organization_id=3  (Bearer JWT)" in with_id.stdout
    assert not _connected(sock)
    rhel10 = run_cli("load", "registration", "--target", url, "--activation-key", "ak", "--rhel", "10", "--dry-run",
                     environ=LOOPBACK_ONLY)
    assert "compliance" not in rhel10.stdout


@pytest.mark.parametrize(("argv", "message"), [
    (["--ca", "/nonexistent-ca.pem"], "--ca: cannot read /nonexistent-ca.pem"),
    (["--ca", "/etc/hostname", "--insecure"], "--ca and --insecure contradict each other"),
    (["--cert", "/etc/hostname"], "--cert and --key go together"),
    (["--run", "../x"], "--run: letters, digits and dashes only"),
])
def test_bad_safety_options_are_one_line(argv: list[str], message: str) -> None:
    result = run_cli("load", "api", "--target", "http://127.0.0.1:9", "--yes", *argv, environ={**CREDS, **LOOPBACK_ONLY})
    assert result.status == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_credentials_are_required_and_named_not_shown() -> None:
    result = run_cli("load", "registration", "--target", "http://127.0.0.1:9", "--activation-key", "ak", "--yes",
                     environ=LOOPBACK_ONLY)
    assert result.status == 2
    assert "registration needs FORETUNE_LOAD_JWT (environment variable or --credentials FILE)" in result.stderr


def _tls_server(tmp_path: Path) -> tuple[http.server.ThreadingHTTPServer, Path]:
    cert, key = tmp_path / "server.pem", tmp_path / "server.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"results": []}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, cert


def test_tls_is_verified_against_the_given_ca_unless_insecure(tmp_path: Path) -> None:
    server, cert = _tls_server(tmp_path)
    try:
        url = f"https://127.0.0.1:{server.server_address[1]}"
        common = ["api", "--target", url, "--users", "1", "--duration", "1", "--yes", "--format", "json"]
        unverified = load(*common, env=CREDS)  # the pre-flight request fails: one line, no run
        assert unverified.status == 2 and unverified.stdout == ""
        assert f"cannot connect to {url}: TLS: certificate verify failed" in unverified.stderr
        assert "--ca, or --insecure" in unverified.stderr and len(unverified.stderr.strip().splitlines()) == 1
        for extra in (["--ca", str(cert)], ["--insecure"]):
            verified = load(*common, *extra, env=CREDS)
            assert verified.status == 0, verified.stderr
            assert verified.step("hosts_index")["failures"] == {}
    finally:
        server.shutdown()
        server.server_close()


def test_cleanup_removes_exactly_the_hosts_of_the_run(tmp_path: Path) -> None:
    with Lab(puma_workers=0, puma_threads=4) as lab:
        run = load(*registration_args(lab, "--users", "2", "--duration", "2", "--run", "t1"), env=lab.credentials)
        assert run.status == 0, run.stderr
        created = int(lab.psql("SELECT count(*) FROM hosts"))
        assert created >= 2
        decoys = ["foretune-load-t1x-1", "foretune-load-t1-abc", "web01.example.com", "foretune-load-t2-1"]
        lab.psql("INSERT INTO hosts (name) VALUES " + ", ".join(f"('{d}')" for d in decoys))
        creds = tmp_path / "creds"
        creds.write_text("".join(f"{k}={v}\n" for k, v in lab.credentials.items()))
        listed = run_cli("load", "--cleanup", "t1", "--target", lab.url, "--credentials", str(creds), "--dry-run",
                         environ=LOOPBACK_ONLY)
        assert listed.status == 0, listed.stderr
        assert f"{created} hosts of run t1 would be removed:" in listed.stdout
        assert int(lab.psql("SELECT count(*) FROM hosts")) == created + len(decoys)
        removed = run_cli("load", "--cleanup", "t1", "--target", lab.url, "--credentials", str(creds), "--yes",
                          environ=LOOPBACK_ONLY)
        assert removed.status == 0, removed.stderr
        assert removed.stdout == f"removed {created} of {created} hosts of run t1\n"
        assert sorted(lab.psql("SELECT name FROM hosts").split()) == sorted(decoys)
        assert not any(v in listed.stdout + listed.stderr + removed.stdout + removed.stderr for v in lab.credentials.values()
                       if v != "admin")


def test_compare_of_results_not_of_this_command_is_one_line(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema": "foretune-logs/1"}))
    result = run_cli("load", "--compare", str(other), str(other))
    assert result.status == 2
    assert "is not a foretune load result (foretune-load/1)" in result.stderr


def test_dry_run_prints_the_cited_content_and_rex_pull_calls(listener: tuple[str, socket.socket]) -> None:
    """The content metadata (the traced registration's dnf: repomd, primary, filelists once each) and the pull client's
    calls (the smart proxy's pull_script.rb: its topic at QoS 1 and /ssh/jobs/<job>) come from load.yaml."""
    url, sock = listener
    content = run_cli("load", "content", "--target", url, "--repo", "/pulp/content/Org/Library/r", "--packages", "7",
                      "--dry-run", environ=LOOPBACK_ONLY)
    assert content.status == 0, content.stderr
    for line in ("  1 x GET       /pulp/content/Org/Library/r/repodata/repomd.xml",
                 "  1 x GET       /pulp/content/Org/Library/r/repodata/primary.xml.gz",
                 "  1 x GET       /pulp/content/Org/Library/r/repodata/filelists.xml.gz", "  7 x GET       "):
        assert line in content.stdout, (line, content.stdout)
    rex = run_cli("load", "rex-pull", "--target", url, "--mqtt", "127.0.0.1:1", "--dry-run", environ=LOOPBACK_ONLY)
    assert rex.status == 0, rex.stderr
    assert "SUBSCRIBE yggdrasil/{uuid}/data/in  (QoS 1)" in rex.stdout, rex.stdout
    assert "/ssh/jobs/{job}" in rex.stdout
    assert not _connected(sock)
    assert [(c.step, c.count) for c in plan.metadata()] == [("repomd", 1), ("primary", 1), ("filelists", 1)]
    assert plan.rex_call("notification").qos == 1 and plan.rex_call("mqtt_subscribe").qos == 1


@pytest.mark.parametrize(("output", "message"), [
    ("/nonexistent/dir/x.json", "--output /nonexistent/dir/x.json: directory /nonexistent/dir does not exist"),
    ("/", "--output /: is a directory"),
    ("x.pdf", "--output x.pdf"),
])
def test_a_bad_output_is_refused_before_anything_is_sent(listener: tuple[str, socket.socket], output: str,
                                                          message: str) -> None:
    url, sock = listener
    result = run_cli("load", "api", "--target", url, "--users", "1", "--duration", "5", "--yes", "-o", output,
                     environ={**CREDS, **LOOPBACK_ONLY})
    assert result.status == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not _connected(sock)


def test_a_dead_target_is_one_line_and_no_run() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    started = time.monotonic()
    result = load("api", "--target", url, "--users", "1", "--duration", "5", "--yes", env=CREDS)
    assert result.status == 2 and result.stdout == ""
    assert f"cannot connect to {url}: connection refused; nothing else was sent" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert time.monotonic() - started < 5


def test_refused_credentials_are_one_line_and_no_run(tmp_path: Path) -> None:
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_response(401, "Unauthorized")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        result = load("registration", "--target", url, "--activation-key", "ak", "--users", "2", "--duration", "5",
                      "--yes", env={"FORETUNE_LOAD_JWT": "bad-jwt-value"})
        assert result.status == 2 and result.stdout == ""
        assert "401 Unauthorized from GET /register: check FORETUNE_LOAD_JWT; nothing else was sent" in result.stderr
        assert len(seen) == 1 and "bad-jwt-value" not in result.stderr
        api = load("api", "--target", url, "--yes", env=CREDS)
        assert api.status == 2
        assert "401 Unauthorized from GET /api/v2/hosts: check FORETUNE_LOAD_USER and FORETUNE_LOAD_TOKEN" in api.stderr
    finally:
        server.shutdown()
        server.server_close()


def test_a_ca_file_without_a_certificate_is_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "ca.pem"
    garbage.write_text("not a certificate\n")
    result = run_cli("load", "api", "--target", "https://127.0.0.1:9", "--ca", str(garbage), "--yes",
                     environ={**CREDS, **LOOPBACK_ONLY})
    assert result.status == 2
    assert f"--ca: no certificate in {garbage}" in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["api", "--levels", "100000", "--duration", "600"],
     "--levels x --duration: 100000 levels of 600 s is 694 days; at most a week"),
    (["api", "--max", "2", "--users", "5"], "--max 2 is below --users 5: the first level would not run"),
    (["rex-pull", "--mqtt", "127.0.0.1:99999"], "--mqtt: port out of range (1-65535): 99999"),
    (["--compare", "a.json", "b.json", "--noise", "-5"], "must be more than 0 and below 100 (percent): -5"),
])
def test_out_of_range_settings_are_one_line(listener: tuple[str, socket.socket], argv: list[str], message: str) -> None:
    url, sock = listener
    result = run_cli("load", *argv, "--target", url, "--yes", environ={**CREDS, **LOOPBACK_ONLY})
    assert result.status == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "per second" not in result.stderr
    assert not _connected(sock)


def test_a_time_limit_shorter_than_the_ramp_is_said(listener: tuple[str, socket.socket]) -> None:
    url, sock = listener
    result = run_cli("load", "api", "--target", url, "--time-limit", "1", "--duration", "30", "--dry-run",
                     environ={**CREDS, **LOOPBACK_ONLY})
    assert result.status == 0
    assert "note: --time-limit 1 s ends the run before its 1 level of 30 s (30 s)" in result.stdout
    assert not _connected(sock)


def test_an_api_mix_without_hosts_says_host_show_was_left_out() -> None:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"results": []}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        run = load("api", "--target", f"http://127.0.0.1:{server.server_address[1]}", "--users", "1", "--duration", "1",
                   "--max-requests", "200", "--yes", "--format", "json", env=CREDS)
        assert run.status == 0, run.stderr
        doc = run.json()
        assert "host_show" not in {s["name"] for s in doc["steps"]}
        assert ("api: the server listed no hosts, so host_show (30 % of the mix) was sent as hosts_index: the mix had no "
                "host_show calls while there were none") in doc["notes"]
    finally:
        server.shutdown()
        server.server_close()


def test_an_unreachable_broker_is_one_line_and_no_run(listener: tuple[str, socket.socket]) -> None:
    url, sock = listener
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    result = load("rex-pull", "--target", url, "--mqtt", f"127.0.0.1:{port}", "--users", "2", "--duration", "5", "--yes")
    assert result.status == 2 and result.stdout == ""
    assert f"cannot connect to the MQTT broker 127.0.0.1:{port}: connection refused; nothing else was sent" in result.stderr
    assert not _connected(sock)
