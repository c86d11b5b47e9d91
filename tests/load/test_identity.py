"""After POST /rhsm/consumers a host presents the identity certificate it was given, over HTTPS, as subscription-manager
does; each registration is traced (start, end, first-try success). The lab speaks plain HTTP, so a small TLS server
of the test's own, on 127.0.0.1, answers the registration calls and refuses a consumer's calls without its identity."""

from __future__ import annotations

import json
import ssl
import subprocess
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.load.conftest import load
from tests.load.test_scenarios import SCHEMA

UUID = "0f0e0d0c-0b0a-4909-8807-060504030201"


def _openssl(*argv: str, cwd: Path) -> None:
    subprocess.run(["openssl", *argv], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA, the server's certificate for 127.0.0.1 and the identity certificate of consumer UUID, all from that CA."""
    d = tmp_path_factory.mktemp("pki")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test-ca", "-keyout", "ca.key",
             "-out", "ca.pem", cwd=d)
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    for name, subject, ext in (("server", "/CN=127.0.0.1", ["-extfile", "san.ext"]), ("identity", f"/CN={UUID}", [])):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
                 "-out", f"{name}.pem", *ext, cwd=d)
    return d


class Server(ThreadingHTTPServer):
    daemon_threads = True
    seen: Counter[tuple[str, bool]]
    id_cert: dict[str, str]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Server

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        path = self.path.split("?")[0]
        peer = self.connection.getpeercert()  # type: ignore[attr-defined]
        subject = dict(item[0] for item in peer["subject"]) if peer else {}
        identified = subject.get("commonName") == UUID
        self.server.seen[(path, identified)] += 1
        if path in ("/register", "/rhsm/"):
            self._answer(200, {})
        elif path == "/rhsm/consumers" and self.command == "POST":
            self._answer(200, {"uuid": UUID, "name": "x", "idCert": self.server.id_cert})
        elif not identified:  # a consumer's calls: only with its identity certificate
            self._answer(403, {"displayMessage": "Invalid credentials."})
        else:
            self._answer(200, {})

    do_GET = do_POST = do_PUT = _handle


@pytest.fixture
def tls_server(pki: Path) -> Iterator[Server]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki / "ca.pem"))
    context.verify_mode = ssl.CERT_OPTIONAL  # as Katello's vhost: registration without a certificate, then with one
    context.load_cert_chain(pki / "server.pem", pki / "server.key")
    server = Server(("127.0.0.1", 0), Handler)
    server.seen = Counter()
    server.id_cert = {"cert": (pki / "identity.pem").read_text(), "key": (pki / "identity.key").read_text()}
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _register(server: Server, pki: Path) -> Any:
    url = f"https://127.0.0.1:{server.server_address[1]}"
    return load("registration", "--target", url, "--ca", str(pki / "ca.pem"), "--activation-key", "ak", "--organization-id",
                "1", "--users", "2", "--duration", "8", "--profile-packages", "10", "--yes", "--format", "json",
                env={"FORETUNE_LOAD_JWT": "jwt-value-123"})


def test_later_calls_present_the_identity_certificate(tls_server: Server, pki: Path) -> None:
    run = _register(tls_server, pki)
    assert run.status == 0, run.stdout[-2000:] + run.stderr
    flows = run.step("registration")
    assert flows["count"] >= 1 and flows["failures"] == {}
    seen = tls_server.seen
    assert seen[(f"/rhsm/consumers/{UUID}/compliance", True)] >= 13 * flows["count"]
    assert seen[("/rhsm/status", True)] >= 12 * flows["count"]
    assert seen[(f"/rhsm/consumers/{UUID}/profiles", True)] == run.step("upload_profiles")["count"]
    assert seen[("/rhsm/consumers", False)] == run.step("consumer_create")["count"]  # before it has one
    assert not [key for key, n in seen.items() if key[0].startswith(f"/rhsm/consumers/{UUID}") and not key[1]]
    jsonschema.validate(run.json(), SCHEMA)
    trace = run.json()["registrations"]
    assert trace["total"] == flows["count"] and trace["first_try_ok"] == flows["count"]
    host = trace["hosts"][0]
    assert host["first_try_ok"] and host["failure"] is None and 0 <= host["start_s"] < host["end_s"]


def test_a_certificate_the_server_refuses_fails_the_registration_at_its_first_call(tls_server: Server, pki: Path) -> None:
    tls_server.id_cert = {"cert": (pki / "server.pem").read_text(), "key": (pki / "server.key").read_text()}  # not the consumer's
    run = _register(tls_server, pki)
    assert run.status == 1
    assert run.step("status")["failures"] == {"403": run.step("status")["count"]}
    trace = run.json()["registrations"]
    assert trace["total"] >= 1 and trace["first_try_ok"] == 0
    assert {(h["failure"], h["failed_step"]) for h in trace["hosts"]} == {("403", "status")}
