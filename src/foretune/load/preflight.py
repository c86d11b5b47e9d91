"""One request before the ramp: a target that cannot be reached, a TLS failure or refused credentials end the run
before any load is sent, in one line, instead of a full run of identical failures.

The request is one call of the scenario's first step (``GET /register`` with the JWT, ``repomd.xml`` with the
client certificate, the API mix's first call with the access token); rex-pull opens one TCP connection to the
broker. Any answer other than 401/403 passes: a 503 or a slow answer is what the run is there to measure.
"""

from __future__ import annotations

import base64
import errno
import http.client
import socket
import ssl
from urllib.parse import urlsplit

from foretune.load import plan
from foretune.load.identity import server_context
from foretune.load.options import Options

PREFLIGHT_TIMEOUT_S = 30.0  # at most; a shorter --timeout wins


class Unfit(Exception):
    """The pre-flight request failed: the run would send nothing but failures."""


def _request(opts: Options) -> tuple[str, str, dict[str, str], str]:
    """The first step's call: method, path, headers and the credential to name when it is refused."""
    if opts.scenario == "registration":
        scope = f"&organization_id={opts.organization_id}" if opts.organization_id is not None else ""
        return ("GET", f"/register?activation_keys={opts.activation_key}{scope}",
                {"Authorization": f"Bearer {opts.credentials.get('FORETUNE_LOAD_JWT', '')}"}, "FORETUNE_LOAD_JWT")
    if opts.scenario == "content":
        first = plan.metadata()[0]
        return first.method, first.path.format(repo=opts.repo.rstrip("/")), {}, "--cert/--key"
    call = plan.api_mix()[0][0]
    user, token = opts.credentials.get("FORETUNE_LOAD_USER", "admin"), opts.credentials.get("FORETUNE_LOAD_TOKEN", "")
    basic = base64.b64encode(f"{user}:{token}".encode()).decode()
    return (call.method, call.path.format(page=1, id=0), {"Authorization": f"Basic {basic}"},
            "FORETUNE_LOAD_USER and FORETUNE_LOAD_TOKEN")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS: certificate verify failed: {exc.verify_message or exc.reason} (give the server's CA with --ca, or --insecure)"
    if isinstance(exc, ssl.SSLError):
        return f"TLS: {exc.reason or exc}"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return "no answer (timed out)"
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve the host ({exc.strerror or exc})"
    if isinstance(exc, OSError) and exc.errno is not None:
        return (exc.strerror or errno.errorcode.get(exc.errno, str(exc))).lower()
    return str(exc) or type(exc).__name__


def check(opts: Options) -> str:
    """Send the pre-flight request; raise ``Unfit`` with one line, else return what it found (for the notes)."""
    timeout = min(opts.timeout, PREFLIGHT_TIMEOUT_S)
    if opts.scenario == "rex-pull":
        assert opts.mqtt is not None
        host, port = opts.mqtt
        try:
            socket.create_connection((host, port), timeout=timeout).close()
        except OSError as exc:
            raise Unfit(f"cannot connect to the MQTT broker {host}:{port}: {_reason(exc)}") from None
        return f"pre-flight: MQTT broker {host}:{port} accepts connections"
    method, path, headers, credential = _request(opts)
    parts = urlsplit(opts.target)
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        context = server_context(opts)
        if opts.client_cert:
            context.load_cert_chain(opts.client_cert, opts.client_key)
        connection = http.client.HTTPSConnection(parts.netloc, timeout=timeout, context=context)
    else:
        connection = http.client.HTTPConnection(parts.netloc, timeout=timeout)
    try:
        connection.request(method, path, headers=headers)
        response = connection.getresponse()
        response.read()
        status, reason = response.status, response.reason
    except (OSError, http.client.HTTPException) as exc:
        raise Unfit(f"cannot connect to {opts.target}: {_reason(exc)}") from None
    finally:
        connection.close()
    step = path.split("?")[0]
    if status in (401, 403):
        raise Unfit(f"{status} {reason} from {method} {step}: check {credential}")
    return f"pre-flight: {method} {step} answered {status}"
