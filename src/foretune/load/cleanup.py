"""``--cleanup RUN``: find the hosts a run created (named exactly foretune-load-RUN-N) and delete them through the API."""

from __future__ import annotations

import base64
import json
import re
import ssl
import urllib.parse
import urllib.request
from typing import Any

from foretune.load import plan

PAGE = 1000


def _context(ca: str | None, insecure: bool) -> ssl.SSLContext:
    if insecure:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    return ssl.create_default_context(cafile=ca)


def _call(method: str, url: str, creds: dict[str, str], ca: str | None, insecure: bool) -> Any:
    token = f"{creds.get('FORETUNE_LOAD_USER', 'admin')}:{creds['FORETUNE_LOAD_TOKEN']}"
    request = urllib.request.Request(url, method=method, headers={
        "Authorization": "Basic " + base64.b64encode(token.encode()).decode(), "Accept": "application/json"})
    context = _context(ca, insecure) if url.startswith("https") else None
    with urllib.request.urlopen(request, timeout=60, context=context) as response:
        return json.loads(response.read() or b"null")


def find(target: str, creds: dict[str, str], run: str, *, ca: str | None = None, insecure: bool = False) -> list[tuple[int, str]]:
    """(id, name) of every host named foretune-load-RUN-<number>: the search narrows, the exact name decides."""
    from foretune.errors import InputError  # start-up: only when find runs

    exact = re.compile(re.escape(plan.host_prefix(run)) + r"\d+\Z")
    query = urllib.parse.urlencode({"search": f"name ~ {plan.host_prefix(run)}", "per_page": PAGE, "page": 1})
    try:
        data = _call("GET", f"{target}/api/v2/hosts?{query}", creds, ca, insecure)
    except (OSError, ValueError) as exc:
        raise InputError(f"--cleanup: cannot list hosts on {target}: {exc}") from None
    rows = data.get("results", []) if isinstance(data, dict) else []
    return [(int(r["id"]), str(r["name"])) for r in rows if isinstance(r, dict) and exact.match(str(r.get("name", "")))]


def remove(target: str, creds: dict[str, str], hosts: list[tuple[int, str]], *, ca: str | None = None,
           insecure: bool = False) -> int:
    removed = 0
    for host_id, _name in hosts:
        try:
            _call("DELETE", f"{target}/api/v2/hosts/{host_id}", creds, ca, insecure)
            removed += 1
        except (OSError, ValueError):
            continue
    return removed
