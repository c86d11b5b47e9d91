"""Keep secrets out of every output: mask values whose key names a password, secret, token or key.

>>> redact_data({"foreman": {"db_password": "x", "db_pool": 5}, "oauth_consumer_secret": "y"})
{'foreman': {'db_password': '[redacted]', 'db_pool': 5}, 'oauth_consumer_secret': '[redacted]'}
>>> redact_data({"db_password": ["redacted"]})  # the marker as YAML reads an already redacted text
{'db_password': '[redacted]'}
>>> print(redact_text('password: "hunter2"\\nSECRET_KEY = "abc"\\npool: 5\\n  "PASSWORD": "pw",'))
password: [redacted]
SECRET_KEY = [redacted]
pool: 5
  "PASSWORD": [redacted],
>>> redact_text('keystorePass="secret" port="1"')
'keystorePass="[redacted]" port="1"'
>>> redact_text("jpa.config.hibernate.connection.password=Rm4k")
'jpa.config.hibernate.connection.password=[redacted]'
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[redacted]"
_SECRET_NAME = re.compile(r"(password|passwd|passphrase|secret|token|credential|(^|[_.\-:])key$|^key$|api_?key|private_?key|pass$)",
                          re.IGNORECASE)
_NAME = r"[A-Za-z_][\w.\-:]*"
_LINE = re.compile(
    r"""(?P<pre>^[ \t]*(?:export[ \t]+)?["']?:?(?P<name>""" + _NAME + r""")["']?[ \t]*(?P<sep>[:=])[ \t]*)(?P<value>\S.*?)(?P<post>,?[ \t]*)$""",
    re.MULTILINE)
_ATTR = re.compile(r"""(?P<name>\b\w*(?:pass|password|secret|token)\w*)="[^"]*\"""", re.IGNORECASE)
_INLINE = re.compile(r"(?P<name>\b(?:password|passwd|secret|token)\w*)=(?P<value>[^\s&;,'\"]+)", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """True when a key (last ``::``/``.`` component) names a secret."""
    last = re.split(r"::|/", str(name))[-1]
    return bool(_SECRET_NAME.search(last))


def redact_data(value: Any) -> Any:
    """A copy of ``value`` with secret-named keys' values replaced."""
    if isinstance(value, dict):
        return {k: (REDACTED if is_secret_name(str(k)) and (v == [REDACTED[1:-1]] or (v not in (None, "", {}, [])
                                                           and not isinstance(v, (dict, list))))
                    else redact_data(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_data(v) for v in value]
    return value


def _line(match: re.Match[str]) -> str:
    if not is_secret_name(match.group("name")) or match.group("value").startswith(f'"{REDACTED}"'):
        return match.group(0)
    return f"{match.group('pre')}{REDACTED}{match.group('post')}"


def redact_text(text: str) -> str:
    """``text`` with values of secret-named keys (YAML, ini, shell, Python, XML attributes) replaced."""
    text = _ATTR.sub(lambda m: f'{m.group("name")}="{REDACTED}"', text)
    text = _LINE.sub(_line, text)
    return _INLINE.sub(lambda m: f"{m.group('name')}={REDACTED}", text)
