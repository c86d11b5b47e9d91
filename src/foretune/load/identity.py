"""A registered host's identity certificate as the client certificate of its later calls, as subscription-manager does.

``POST /rhsm/consumers`` answers with ``idCert`` (a PEM certificate and its key). subscription-manager keeps it
and presents it on the TLS handshake of every later call to the server, which identifies the consumer by it.
Python's ssl module reads a certificate chain only from a file: the PEM is written to a new 0600 temporary file,
loaded into a fresh SSLContext (verifying the server as ``--ca``/``--insecure`` say) and removed at once, so
the key is kept in memory only. A new Locust session with its own connections carries that context for the
rest of the host's registration and is closed after it. Over plain HTTP there is no handshake to present a
certificate on, and the host's calls go on the user's session.
"""

from __future__ import annotations

import contextlib
import os
import ssl
import tempfile
from collections.abc import Iterator
from typing import Any

from foretune.load.options import Options


class IdentityError(Exception):
    """The answer of POST /rhsm/consumers carries no usable identity certificate."""


def server_context(opts: Options) -> ssl.SSLContext:
    """An SSLContext that verifies the server as the run asks: against ``--ca``, or not at all with ``--insecure``."""
    if not opts.insecure:
        return ssl.create_default_context(cafile=opts.ca)
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def context(opts: Options, cert_pem: str, key_pem: str) -> ssl.SSLContext:
    """An SSLContext that verifies the server as the run does and presents ``cert_pem``/``key_pem``."""
    ctx = server_context(opts)
    fd, path = tempfile.mkstemp(prefix="foretune-identity-", suffix=".pem")  # mode 0600
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(cert_pem.rstrip("\n") + "\n" + key_pem.rstrip("\n") + "\n")
        try:
            ctx.load_cert_chain(path)
        except (ssl.SSLError, ValueError) as exc:
            raise IdentityError(f"the identity certificate does not load: {exc}") from None
    finally:
        os.unlink(path)
    return ctx


@contextlib.contextmanager
def session(base: Any, opts: Options, id_cert: Any) -> Iterator[Any | None]:
    """A session presenting the host's identity over HTTPS, closed on exit; None over plain HTTP."""
    if not opts.target.startswith("https://"):
        yield None
        return
    if not isinstance(id_cert, dict) or not isinstance(id_cert.get("cert"), str) or not isinstance(id_cert.get("key"), str):
        raise IdentityError("POST /rhsm/consumers answered without idCert (certificate and key)")
    ctx = context(opts, id_cert["cert"], id_cert["key"])
    from locust.contrib.fasthttp import FastHttpSession  # this module runs only inside the Locust process

    identified = FastHttpSession(base_url=base.base_url, request_event=base.request_event, user=base.user,
                                 insecure=opts.insecure, ssl_context_factory=lambda **_ignored: ctx,
                                 network_timeout=opts.timeout, connection_timeout=opts.timeout, max_retries=0)
    try:
        yield identified
    finally:
        with contextlib.suppress(Exception):  # closing idle connections: nothing to report if it fails
            identified.client.clientpool.close()
