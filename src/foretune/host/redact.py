"""Keep secrets out of every output: by key name and by position, in parsed values and in raw texts.

A value is secret when its key names one (``db_password``, ``keyStorePassword``, ``requirepass``,
``masterauth``, ``oauth_consumer_secret``, ``SECRET_KEY``), and wherever its position says so:
the password of a URL's userinfo, ``password=`` inside a connection string, the lines of a YAML
block scalar, list or mapping under a secret key, a value continued on the next line, the
assignments of a systemd ``Environment=`` whose names contain PASS, SECRET, TOKEN or KEY,
command-line options named secret (``--db-password=X``, ``--oauth-consumer-secret X``), the password
options of hammer, redis-cli, curl and mysql (``-p X``, ``-a X``, ``-u user:X``), a token as a URL's
whole userinfo, and the body of a PEM private key.
A value found secret once is also masked wherever else it appears in the same text or document.

>>> redact_data({"foreman": {"db_password": "x", "db_pool": 5}, "oauth_consumer_secret": "y"})
{'foreman': {'db_password': '[redacted]', 'db_pool': 5}, 'oauth_consumer_secret': '[redacted]'}
>>> print(redact_text('password: "hunter2"\\nSECRET_KEY = "abc"\\npool: 5\\n  "PASSWORD": "pw",'))
password: "[redacted]"
SECRET_KEY = "[redacted]"
pool: 5
  "PASSWORD": "[redacted]",
>>> redact_text('keystorePass="secret" port="1"')
'keystorePass="[redacted]" port="1"'
>>> redact_text("requirepass foobared")
'requirepass [redacted]'
>>> redact_text("primary_conninfo = 'host=db1 user=rep password=s3cr3t port=5432'")
"primary_conninfo = 'host=db1 user=rep password=[redacted] port=5432'"
>>> redact_text("url: postgres://foreman:s3cr3t@db.example.com/foreman")
'url: postgres://foreman:[redacted]@db.example.com/foreman'
>>> print(redact_text("token: |\\n  abc\\n  def\\nnext: 1"))
token: |
  [redacted]
  [redacted]
next: 1

Every pattern here runs in time linear in the length of its input (no nested or overlapping
quantifiers; runs are anchored by a look-behind so each starts once), and a line longer than
``LONG_LINE`` that may hold a secret is replaced whole.
"""

from __future__ import annotations

import functools
import re
from typing import Any

REDACTED = "[redacted]"
LONG_LINE = 65536  # characters; no configuration line is that long, a longer one is masked whole
MIN_SCRUB = 6  # a secret value this long is also masked where it appears elsewhere
MAX_SCRUB = 64  # ... for at most this many distinct values per text (bounded work)

_WORDS = ("password", "passwd", "passphrase", "secret", "token", "credential", "apikey", "privatekey", "masterauth",
          "requirepass", "sessionid")
_LAST = frozenset({"pass", "pw", "pwd", "key", "auth", "psk", "signature"})
_DIRECTORY = frozenset({"pwd", "oldpwd"})  # the shell's working directories (sudo logs ``PWD=/root``), when a path
_NOT_SECRET = ("proxypass",)  # Apache ProxyPass, ProxyPassReverse, ProxyPassMatch
# settings *about* a secret, not the secret: password_encryption, password_file, token_timeout, ...
_ABOUT = frozenset({"encryption", "file", "path", "dir", "length", "timeout", "duration", "expiry", "lifetime", "policy",
                    "type", "method", "mode", "enabled", "size", "count", "min", "max"})
_ENV_WORDS = ("PASS", "SECRET", "TOKEN", "KEY")
_TRIVIAL = frozenset({"", "true", "false", "yes", "no", "on", "off", "null", "none", "~", '""', "''", "[]", "{}"})

_HINT_WORDS = ("pass", "secret", "token", "key", "pw", "auth", "credential", "psk", "://", "bearer", "cookie", "session", "user",
               "hammer", "redis-cli", "curl", "mysql", "-u")
_HINT = re.compile("|".join(re.escape(w) for w in _HINT_WORDS), re.IGNORECASE)
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SPLIT = re.compile(r"::|/")
# A key at the start of a line: YAML (``- key:``, ``:key:``, ``"key":``), ini/shell (``export KEY=``), ``key value``.
_HEAD = re.compile(r"""(?P<indent>[ \t]*)(?:export[ \t]+)?(?P<dash>(?:-[ \t]+)*)(?P<key>["']?:?(?P<name>[A-Za-z_][\w.\-]{0,200}"""
                   r"""(?:::[\w.\-]{1,200}){0,20})["']?)(?P<sep>[ \t]*[=:](?![:=])[ \t]*|[ \t]+)""")
_BLOCK_KEY = re.compile(r"""["']?:?[A-Za-z_][\w.\-]{0,200}(?:::[\w.\-]{1,200}){0,20}["']?[ \t]*:(?:[ \t]+|$)""")
_DASHES = re.compile(r"(?:-[ \t]+)*")
_PROPS = re.compile(r"(?:[&!][^\s]{0,200}[ \t]+)*")
_INDICATOR = re.compile(r"[|>][0-9+\-]{0,3}(?:[ \t]+#.*)?")
_DQ = re.compile(r'"(?:[^"\\]|\\.)*"')
_SQ = re.compile(r"'(?:[^']|'')*'")
# ``name=value`` / ``name: value`` anywhere in a line, for names that may name a secret (checked in Python).
_PAIR = re.compile(r"""(?<![\w.\-])(?=[\w.\-]{0,200}?(?:pass|secret|token|key|pw|auth|credential|psk|session))"""
                   r"""(?P<name>-?[A-Za-z_][\w.\-]{0,200})(?P<q>["']{0,2})[ \t]*(?:=>|[=:])[ \t]*""", re.IGNORECASE)
_VALUE = re.compile(r"""""(?:[^"\n]|"(?!"))*""|''(?:[^'\n]|'(?!'))*''|"(?:[^"\\\n]|\\.)*"?|'[^'\n]*'?|[^\s"'&;,})\]<>]+""")
_URL = re.compile(r"""(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s/@:'"]{0,1000}:(?P<pw>[^\s/'"]*)@""")
_ELEMENT = re.compile(r"<(?P<tag>[A-Za-z_][\w.\-:]{0,100})>(?P<value>[^<\n]+)</")
_ENV_QUOTED = re.compile(r'"(?P<name>[A-Za-z_]\w{0,200})=(?P<value>(?:[^"\\\n]|\\.)*)"')
_ENV_BARE = re.compile(r'(?<![\w"])(?P<name>[A-Za-z_]\w{0,200})=(?P<value>[^\s"]+)')
# Secrets by position in protocol and command texts (each anchored by a literal word, so linear):
# HTTP ``Authorization: Bearer X`` (also ``RequestHeader set Authorization "Basic X"``, Ruby/Java maps of headers)
_AUTHZ = re.compile(r"""(?<![A-Za-z0-9])(?:proxy-)?authorization["']?(?:[ \t]*(?:=>|[:=])[ \t]*|[ \t]+)["']?"""
                    r"""(?:(?:bearer|basic|digest|negotiate|token|oauth|hmac|ntlm)[ \t]+)?(?P<value>[^\s"',;}\]]+)""", re.IGNORECASE)
_BEARER = re.compile(r"""(?<![A-Za-z0-9])bearer[ \t]+(?P<value>[A-Za-z0-9\-._~+/]{12,}=*)""", re.IGNORECASE)
# ``Cookie: a=1; _session_id=X`` and ``Set-Cookie:``: every value
_COOKIE = re.compile(r"""(?<![A-Za-z0-9])(?:set-)?cookie["']?(?:[ \t]*(?:=>|[:=])[ \t]*|[ \t]+)["']?(?P<value>[^"'\n]*)""", re.IGNORECASE)
_COOKIE_PAIR = re.compile(r"(?<![^;,\s])(?P<name>[^=;,\s]{1,200})=(?P<value>[^;,\s]+)")
# SQL ``ALTER USER x WITH PASSWORD 'X'``, ``CREATE ROLE x ENCRYPTED PASSWORD 'X'``
# (also ``E'X'`` escape strings and ``$$X$$`` / ``$tag$X$tag$`` dollar quoting)
_SQL_PASSWORD = re.compile(r"""(?<![A-Za-z0-9_])password[ \t]+(?P<value>[Ee]?'(?:[^'\n]|'')*'?|\$\w{0,50}\$[^$\n]*(?:\$\w{0,50}\$)?)""",
                           re.IGNORECASE)
# ``sshpass -p X`` (and ``-pX``)
_SSHPASS = re.compile(r"""(?<![\w\-])sshpass[ \t]+(?:-[A-Za-oq-z][^\s]*[ \t]+){0,10}-p[ \t]*(?P<value>'[^'\n]*'?|"[^"\n]*"?|[^\s'"]+)""")
# Redis ACL rules (``user default on >X #hash``, ``ACL SETUSER x on >X``): passwords and their hashes
_ACL = re.compile(r"""(?:(?<![^\s"'])user|(?<![A-Za-z0-9])acl[ \t]+setuser)[ \t]+[^\s"']{1,200}"""
                  r"""(?=[ \t]+(?:on|off|reset|nopass|allkeys|allcommands|allchannels|[~&+\-%<>#!]))(?P<value>[^\n"']*)""",
                  re.IGNORECASE)
# Command-line options whose name says secret: ``--db-password=X``, ``--oauth-consumer-secret X``
_OPTION = re.compile(r"""(?<![\w\-])--(?P<name>[A-Za-z][\w\-]{0,200})(?P<sep>=|[ \t]+)(?P<value>'[^'\n]*'?|"[^"\n]*"?|[^\s'"]+)""")
# Short options that carry a password for a known command: ``hammer -p X``, ``redis-cli -a X``, ``curl -u user:X``, ``mysql -pX``
_COMMAND = re.compile(r"""(?<![\w\-])(?P<cmd>hammer|redis-cli|curl|mysql|mysqladmin|mysqldump)(?![\w\-])(?P<args>[^\n|;&]*)""")
_SHORT = re.compile(r"""(?<!\S)-(?P<opt>-user|[A-Za-z])[ \t=]*(?!-)(?P<value>'[^'\n]*'?|"[^"\n]*"?|[^\s'"]+)""")
_SHORT_SECRET = {"hammer": "p", "redis-cli": "a", "curl": "u", "mysql": "p", "mysqladmin": "p", "mysqldump": "p"}
# ``-u user:X`` / ``--user user:X`` (curl, wget, httpie, ...; ``-u 1000:1000``, a uid:gid, aside)
_USER_PW = re.compile(r"""(?<!\S)(?:-u|--user)(?:[ \t]+|=)?[^\s:'"-][^\s:'"]{0,200}:(?P<value>[^\s'"]+)""")
# ``RequestHeader set X-Api-Key X`` (Apache ``Header``/``RequestHeader`` with a secret-named header)
_HEADER_SET = re.compile(r"""(?<![\w\-])(?:request)?header[ \t]+(?:always[ \t]+)?(?:set|add|append|merge|setifempty)[ \t]+"""
                         r"""["']?(?P<name>[\w\-]{1,200})["']?[ \t]+(?P<value>"[^"\n]*"?|'[^'\n]*'?|[^\s"']+)""", re.IGNORECASE)
# A URL whose whole userinfo is a token: ``https://TOKEN@host/``
_URL_TOKEN = re.compile(r"""(?<![A-Za-z0-9+.\-])https?://(?P<pw>[^\s/@:'"]{1,1000})@""", re.IGNORECASE)
# A PEM private key: every line between its BEGIN and END lines
_PEM = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----")
_PEM_END = "-----END"
_ACL_RULE = re.compile(r"(?<![^ \t])(?P<op>[<>#!])(?P<value>[^ \t]+)")


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """True when a key (its last ``::``/``/`` component) names a secret.

    >>> [is_secret_name(n) for n in ("foreman::db_password", "keyStorePassword", "requirepass", "ssl_key",
    ...                               "PassengerMaxPoolSize", "ProxyPass", "KeepAlive", "db_pool", "password_encryption")]
    [True, True, True, True, False, False, False, False, False]
    """
    last = _SPLIT.split(name)[-1]
    if len(last) > 256:
        return False
    squashed = re.sub(r"[^a-z0-9]", "", last.lower())
    if squashed.startswith(_NOT_SECRET):
        return False
    parts = [part.lower() for part in _PARTS.findall(last)]
    if len(parts) > 1 and parts[-1] in _ABOUT:
        return False
    if any(word in squashed for word in _WORDS):
        return True
    if last.isupper() and "PASS" in last.replace("PASSENGER", ""):  # SSHPASS, PGPASS, DB_PASS_FILE aside: shell variables
        return True
    return bool(parts) and parts[-1] in _LAST


@functools.lru_cache(maxsize=1024)
def is_secret_env_name(name: str) -> bool:
    """A systemd ``Environment=`` name holding a secret: contains PASS, SECRET, TOKEN or KEY (PASSENGER aside)."""
    upper = name.upper().replace("PASSENGER", "")
    return any(word in upper for word in _ENV_WORDS) or is_secret_name(name)


# --- parsed values ----------------------------------------------------------------------------

def _masked(value: Any) -> Any:
    """Everything under a secret key: scalars masked, structure (keys, list lengths) kept.

    >>> _masked(["redacted"])  # an unquoted marker, as YAML reads an already redacted text, stays the marker
    '[redacted]'
    """
    if value == [REDACTED[1:-1]]:
        return REDACTED
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    if value is None or isinstance(value, bool) or value == "":
        return value
    return REDACTED


def _collect(value: Any, secrets: set[str], under_secret: bool = False) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _collect(v, secrets, under_secret or is_secret_name(str(k)))
    elif isinstance(value, list):
        for v in value:
            _collect(v, secrets, under_secret)
    elif under_secret and isinstance(value, str) and len(value) >= 4 and value != REDACTED:
        secrets.add(value)


def _key(key: Any, secrets: set[str]) -> Any:
    """A mapping key as text may hold a secret too (a URL with userinfo as a report's row name)."""
    return _scrub(redact_text(key), secrets) if isinstance(key, str) else key


def _clean(value: Any, secrets: set[str]) -> Any:
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for k, v in value.items():
            key = _key(k, secrets)
            if key in out:  # two keys masked alike ("pw:a", "pw:b"): both entries kept, told apart by their order
                key = next(f"{key} ({n})" for n in range(2, len(value) + 2) if f"{key} ({n})" not in out)
            out[key] = _masked(v) if is_secret_name(str(k)) else _clean(v, secrets)
        return out
    if isinstance(value, list):
        return [_clean(v, secrets) for v in value]
    if isinstance(value, str):
        if value in secrets:
            return REDACTED
        return _scrub(redact_text(value), secrets)
    return value


def redact_data(value: Any) -> Any:
    """A copy of ``value`` with secret-named keys' values masked (nested lists and maps too), every string
    redacted as text, and any value found under a secret key masked wherever else it appears (YAML aliases)."""
    secrets: set[str] = set()
    _collect(value, secrets)
    return _clean(value, secrets)


# --- raw texts --------------------------------------------------------------------------------

def _scrub(text: str, secrets: set[str]) -> str:
    if not secrets or len(secrets) > MAX_SCRUB:
        return text
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= MIN_SCRUB and secret not in REDACTED and secret in text:
            text = text.replace(secret, REDACTED)
    return text


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value.strip("\"'")


def _needs_masking(value: str) -> bool:
    inner = _unquoted(value)
    return inner.lower() not in _TRIVIAL and not inner.startswith("[redacted")


class _Block:
    """Lines under a secret YAML key: more indented than the key (or a list at its indentation)."""

    def __init__(self, column: int, scalar: bool) -> None:
        self.column = column
        self.scalar = scalar

    def feed(self, body: str) -> str | None:
        stripped = body.lstrip(" \t")
        if not stripped:
            return body
        indent = len(body) - len(stripped)
        if indent < self.column or (indent == self.column and not stripped.startswith("-")):
            return None
        head = body[:indent]
        if self.scalar:
            return head + REDACTED
        dashes = _DASHES.match(stripped)
        rest = stripped[dashes.end():] if dashes else stripped
        head += stripped[: len(stripped) - len(rest)]
        key = _BLOCK_KEY.match(rest)
        if key:
            value = rest[key.end():]
            return head + rest[:key.end()] + (REDACTED if value.strip() else "")
        return head + (REDACTED if rest.strip() else rest)


class _Quote:
    """The continuation lines of a quoted secret that did not close on its first line."""

    def __init__(self, quote: str) -> None:
        self.quote = quote
        self.done = False

    def feed(self, body: str) -> str | None:
        if self.done:
            return None
        indent = body[: len(body) - len(body.lstrip(" \t"))]
        at = body.find(self.quote)
        if at < 0:
            return indent + REDACTED
        self.done = True
        return indent + REDACTED + body[at:]


class _Pem:
    """The lines of a PEM private key, up to its END line (kept)."""

    def __init__(self) -> None:
        self.done = False

    def feed(self, body: str) -> str | None:
        if self.done:
            return None
        if _PEM_END in body:
            self.done = True
            return body
        indent = body[: len(body) - len(body.lstrip(" \t"))]
        return indent + REDACTED if body.strip() else body


class _Backslash:
    """Lines continued with a trailing backslash (Java properties, shell)."""

    def __init__(self) -> None:
        self.more = True

    def feed(self, body: str) -> str | None:
        if not self.more:
            return None
        self.more = body.rstrip().endswith("\\")
        indent = body[: len(body) - len(body.lstrip(" \t"))]
        return indent + REDACTED + ("\\" if self.more else "")


def _head(body: str, secrets: set[str]) -> tuple[str, _Block | _Quote | _Backslash | _Pem | None]:
    """Redact the value of a secret key at the start of ``body``; may open a multi-line state."""
    m = _HEAD.match(body)
    if not m or not is_secret_name(m.group("name")):
        return body, None
    sep = m.group("sep")
    yaml_like = ":" in sep
    column = len(m.group("indent")) + len(m.group("dash"))
    value = body[m.end():]
    if not value.strip():
        return body, (_Block(column, scalar=False) if yaml_like else None)
    props = _PROPS.match(value)
    cut = props.end() if props else 0
    core = value[cut:]
    if yaml_like and (not core.strip() or _INDICATOR.fullmatch(core.strip())):
        return body, _Block(column, scalar=bool(core.strip()))
    if not _needs_masking(core) or _is_directory(m.group("name"), core):
        return body, None
    keep = body[: m.end() + cut]
    quote = core[:1]
    if quote in "\"'":
        closed = (_DQ if quote == '"' else _SQ).match(core)
        if closed:
            secrets.add(core[1: closed.end() - 1])
            return keep + quote + REDACTED + quote + core[closed.end():], None
        return keep + quote + REDACTED, _Quote(quote)
    text = core.rstrip()
    if sep == "=" and m.group("name").isupper() and (" " in text or "\t" in text):  # ``PGPASSWORD=x psql ...``: a prefix
        word = text.split(None, 1)[0]                                                # assignment ends at the first blank
        secrets.add(word)
        return keep + REDACTED + core[len(word):], None
    trail = core[len(text):]
    comma = ""
    if text.endswith(","):
        text, comma = text[:-1], ","
    secrets.add(text)
    new = keep + REDACTED + comma + trail
    if yaml_like:
        return new, _Block(column, scalar=True)  # a plain scalar may go on, more indented
    if text.endswith("\\"):
        return new, _Backslash()
    return new, None


def _pairs(body: str, secrets: set[str]) -> tuple[str, _Quote | _Backslash | None]:
    """``secret_name=value`` and ``secret_name: value`` anywhere in the line; a value that goes on
    past the line (an open quote, a trailing backslash) opens a state for the next lines."""
    out: list[str] = []
    state: _Quote | _Backslash | None = None
    pos = 0
    while True:
        m = _PAIR.search(body, pos)
        if not m:
            break
        value = _VALUE.match(body, m.end())
        if (not value or not is_secret_name(m.group("name")) or not _needs_masking(value.group(0))
                or _is_directory(m.group("name"), value.group(0))):
            out.append(body[pos:m.end()])
            pos = m.end()
            continue
        raw = value.group(0)
        quote = raw[:2] if raw.startswith(('""', "''")) and len(raw) > 2 else raw[:1] if raw[:1] in "\"'" else ""
        closing = quote if len(raw) > len(quote) and raw.endswith(quote) else ""
        secrets.add(raw[len(quote): len(raw) - len(closing)])
        out.append(body[pos:m.end()] + quote + REDACTED + closing)
        pos = value.end()
        if pos >= len(body.rstrip()):
            state = _Quote(quote[:1]) if quote and not closing else _Backslash() if raw.endswith("\\") else None
    out.append(body[pos:])
    return "".join(out), state


def _is_directory(name: str, value: str) -> bool:
    """``PWD=/root``: the working directory, not a password."""
    return name.lower() in _DIRECTORY and _unquoted(value).startswith("/")


def _option(m: re.Match[str], secrets: set[str]) -> str:
    value = m.group("value")
    if (not is_secret_name(m.group("name")) or not _needs_masking(value)
            or (m.group("sep") != "=" and value.startswith("-"))):
        return m.group(0)
    secrets.add(_unquoted(value))
    quote = value[:1] if value[:1] in "'\"" else ""
    closing = quote if len(value) > 1 and value.endswith(quote) else ""
    return m.group(0)[: m.start("value") - m.start()] + quote + REDACTED + closing


def _command(m: re.Match[str], secrets: set[str]) -> str:
    secret = _SHORT_SECRET[m.group("cmd")]
    joined = m.group("cmd").startswith("mysql")  # mysql takes ``-pX`` only: ``-p X`` prompts, X is the database

    def mask(short: re.Match[str]) -> str:
        whole = short.group(0)
        value = short.group("value")
        opt = "u" if short.group("opt") == "-user" and m.group("cmd") == "curl" else short.group("opt")
        if opt != secret or not _needs_masking(value) or (joined and whole[2:3] in " \t"):
            return whole
        start = short.start("value") - short.start()
        if secret == "u":  # curl -u user:password
            colon = value.find(":")
            if colon < 0 or colon == len(value) - 1:
                return whole
            secrets.add(_unquoted(value[colon + 1:]))
            quote = value[:1] if value[:1] in "'\"" else ""
            closing = quote if len(value) > 1 and value.endswith(quote) else ""
            return whole[:start] + value[: colon + 1] + REDACTED + closing
        secrets.add(_unquoted(value))
        quote = value[:1] if value[:1] in "'\"" else ""
        closing = quote if len(value) > 1 and value.endswith(quote) else ""
        return whole[:start] + quote + REDACTED + closing

    return m.group("cmd") + _SHORT.sub(mask, m.group("args"))


def _header_set(m: re.Match[str], secrets: set[str]) -> str:
    value = m.group("value")
    if not is_secret_name(m.group("name")) or not _needs_masking(value):
        return m.group(0)
    secrets.add(_unquoted(value))
    quote = value[:1] if value[:1] in "'\"" else ""
    closing = quote if len(value) > 1 and value.endswith(quote) else ""
    return m.group(0)[: m.start("value") - m.start()] + quote + REDACTED + closing


def _url_token(m: re.Match[str], secrets: set[str]) -> str:
    token = m.group("pw")
    if not _needs_masking(token):
        return m.group(0)
    secrets.add(token)
    return m.group(0)[: m.start("pw") - m.start()] + REDACTED + "@"


def _url(m: re.Match[str], secrets: set[str]) -> str:
    password = m.group("pw")
    if not _needs_masking(password):
        return m.group(0)
    secrets.add(password)
    start = m.start("pw") - m.start()
    return m.group(0)[:start] + REDACTED + "@"


def _element(m: re.Match[str], secrets: set[str]) -> str:
    if not is_secret_name(m.group("tag")) or not _needs_masking(m.group("value")):
        return m.group(0)
    secrets.add(m.group("value").strip())
    return f"<{m.group('tag')}>{REDACTED}</"


def _environment(body: str, secrets: set[str]) -> str:
    """systemd ``Environment=`` (unit files and ``systemctl show``): mask secret-named assignments."""
    at = body.find("Environment=") + len("Environment=")
    rest = body[at:]

    def mask(m: re.Match[str]) -> str:
        if not is_secret_env_name(m.group("name")) or not _needs_masking(m.group("value")):
            return m.group(0)
        secrets.add(m.group("value"))
        whole = m.group(0)
        return whole[: m.start("value") - m.start()] + REDACTED + whole[m.end("value") - m.start():]

    rest = _ENV_QUOTED.sub(mask, rest)
    return body[:at] + _ENV_BARE.sub(mask, rest)


def _mask_group(pattern: re.Pattern[str], body: str, secrets: set[str]) -> str:
    def mask(m: re.Match[str]) -> str:
        value = m.group("value")
        if not _needs_masking(value):
            return m.group(0)
        secrets.add(_unquoted(value))
        whole = m.group(0)
        quote = value[:1] if value[:1] in "'\"" else ""
        closing = quote if len(value) > 1 and value.endswith(quote) else ""
        return whole[: m.start("value") - m.start()] + quote + REDACTED + closing + whole[m.end("value") - m.start():]

    return pattern.sub(mask, body)


def _mask_value(m: re.Match[str], secrets: set[str]) -> str:
    value = m.group("value")
    if not _needs_masking(value):
        return m.group(0)
    secrets.add(value)
    whole = m.group(0)
    return whole[: m.start("value") - m.start()] + REDACTED + whole[m.end("value") - m.start():]


def _cookies(m: re.Match[str], secrets: set[str]) -> str:
    whole = m.group(0)
    start = m.start("value") - m.start()

    def mask(pair: re.Match[str]) -> str:
        if not _needs_masking(pair.group("value")):
            return pair.group(0)
        secrets.add(pair.group("value"))
        return pair.group("name") + "=" + REDACTED

    return whole[:start] + _COOKIE_PAIR.sub(mask, whole[start:])


def _acl(m: re.Match[str], secrets: set[str]) -> str:
    whole = m.group(0)
    start = m.start("value") - m.start()

    def mask(rule: re.Match[str]) -> str:
        if rule.group("value").startswith("[redacted"):
            return rule.group(0)
        secrets.add(rule.group("value"))
        return rule.group("op") + REDACTED

    return whole[:start] + _ACL_RULE.sub(mask, whole[start:])


def _positional(body: str, secrets: set[str]) -> str:
    """Secrets a line's words place, not a key name: HTTP credentials, cookies, SQL, sshpass, Redis ACLs,
    command-line options."""
    low = body.lower()
    if "authorization" in low:
        body = _mask_group(_AUTHZ, body, secrets)
    if "bearer" in low:
        body = _mask_group(_BEARER, body, secrets)
    if "cookie" in low:
        body = _COOKIE.sub(lambda m: _cookies(m, secrets), body)
    if "password" in low:
        body = _mask_group(_SQL_PASSWORD, body, secrets)
    if "sshpass" in low:
        body = _mask_group(_SSHPASS, body, secrets)
    if "user" in low:
        body = _ACL.sub(lambda m: _acl(m, secrets), body)
    if "--" in body:
        body = _OPTION.sub(lambda m: _option(m, secrets), body)
    if "-u" in body:
        body = _USER_PW.sub(lambda m: m.group(0) if m.group("value").isdigit() else _mask_value(m, secrets), body)
    if "hammer" in low or "redis-cli" in low or "curl" in low or "mysql" in low:
        body = _COMMAND.sub(lambda m: _command(m, secrets), body)
    if "header" in low:
        body = _HEADER_SET.sub(lambda m: _header_set(m, secrets), body)
    return body


def redact_line(body: str, secrets: set[str] | None = None) -> tuple[str, _Block | _Quote | _Backslash | _Pem | None]:
    """One line (no newline) redacted, and the multi-line state it opens, if any."""
    found: set[str] = set() if secrets is None else secrets
    if len(body) > LONG_LINE:
        return f"[redacted: line of {len(body)} characters]", None
    pem = _PEM.search(body) if "PRIVATE KEY-----" in body else None
    if pem:  # a private key: its body masked here (``\n`` escapes) or on the lines up to its END line
        end = body.find(_PEM_END, pem.end())
        if end >= 0:
            return body[:pem.end()] + REDACTED + body[end:], None
        return body[:pem.end()] + (REDACTED if body[pem.end():].strip() else ""), _Pem()
    new, state = _head(body, found)
    if isinstance(state, _Block) and new == body:  # ``key:``, ``key: |``, ``key: &anchor``: the value follows
        return body, state
    if new.endswith(REDACTED) and new != body:  # the whole rest of the line was the secret
        return new, state
    body = new
    if body.lstrip().startswith("Environment="):
        body = _environment(body, found)
    if "://" in body:
        body = _URL.sub(lambda m: _url(m, found), body)
        body = _URL_TOKEN.sub(lambda m: _url_token(m, found), body)
    if "</" in body:
        body = _ELEMENT.sub(lambda m: _element(m, found), body)
    body = _positional(body, found)
    body, more = _pairs(body, found)
    return body, state or more


class _Hints:
    """Where the next line that may hold a secret starts: ``str.find`` per word, each word's next hit cached."""

    def __init__(self, text: str) -> None:
        low = text.lower()
        self.text = text
        self.low = low if len(low) == len(text) else None  # a few non-ASCII letters change length when lowered
        self.next = {word: low.find(word) for word in _HINT_WORDS} if self.low is not None else {}

    def search(self, pos: int) -> int:
        if self.low is None:
            found = _HINT.search(self.text, pos)
            return found.start() if found else -1
        best = -1
        for word, at in self.next.items():
            if 0 <= at < pos:
                at = self.next[word] = self.low.find(word, pos)
            if at >= 0 and (best < 0 or at < best):
                best = at
        return best


def redact_text(text: str) -> str:
    """``text`` with secrets masked by key name and position (YAML, ini, shell, Python, XML, systemd,
    Java options, connection strings, URLs); lines keep their number and indentation."""
    hints = _Hints(text)
    if hints.search(0) < 0:
        return text
    secrets: set[str] = set()
    out: list[str] = []
    pos = 0
    size = len(text)
    while pos < size:
        hint = hints.search(pos)
        if hint < 0:
            break
        start = text.rfind("\n", pos, hint) + 1 or pos
        start = max(start, pos)
        out.append(text[pos:start])
        pos = start
        state: _Block | _Quote | _Backslash | _Pem | None = None
        while pos < size:
            end = text.find("\n", pos)
            end = size if end < 0 else end + 1
            line = text[pos:end]
            newline = "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""
            body = line[: len(line) - len(newline)]
            if state is not None:
                fed = state.feed(body)
                if fed is None:
                    break  # the block ended: this line is looked at like any other
                out.append(fed + newline)
                pos = end
                continue
            new, state = redact_line(body, secrets)
            out.append(new + newline)
            pos = end
            if state is None:
                break
    out.append(text[pos:])
    return _scrub("".join(out), secrets)
