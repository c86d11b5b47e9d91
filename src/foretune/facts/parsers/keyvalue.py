"""``KEY=value`` files: /etc/sysconfig/*, /etc/default/*, tomcat.conf, qpidd.conf, systemd ``Environment=``.

>>> parse_env('# comment\\nA=1\\nexport B="two words"\\n  C = \\'x\\'\\n')
{'A': '1', 'B': 'two words', 'C': 'x'}
>>> parse_env("")
{}
>>> parse_env("# only comments\\n#A=1\\n")
{}
>>> parse_env("this is not a key value line")
Traceback (most recent call last):
...
foretune.errors.ParseError: line 1 is not KEY=value: 'this is not a key value line'
>>> parse_environment_words('FOREMAN_ENV=production "A=b c" D=e')
{'FOREMAN_ENV': 'production', 'A': 'b c', 'D': 'e'}
"""

from __future__ import annotations

import re
import shlex

from foretune.facts.parsers import ParseError

MAX_SHLEX_CHARS = 64 * 1024
MAX_WORDS_CHARS = 1024 * 1024
_NAME = re.compile(r"[A-Za-z_][\w.\-]*")


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_env(text: str, *, strict: bool = True) -> dict[str, str]:
    """Assignments of a shell-style or ``name=value`` file; comments and blank lines are skipped."""
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        name, sep, value = line.partition("=")  # no backtracking pattern: linear on any line
        name = name.strip()
        if name.startswith("export") and name[6:7].isspace():
            name = name[6:].strip()
        if not sep or not _NAME.fullmatch(name):
            if strict:
                raise ParseError(f"line {number} is not KEY=value: {line[:60]!r}")
            continue
        values[name] = _unquote(value)
    return values


def parse_environment_words(text: str) -> dict[str, str]:
    """The words of a systemd ``Environment=`` value (or ``systemctl show`` output) as a dict."""
    text = text[:MAX_WORDS_CHARS]  # real Environment= values are a few hundred characters
    try:
        # shlex reads one character at a time in Python: only for values of a plausible size
        words = shlex.split(text) if len(text) <= MAX_SHLEX_CHARS else text.split()
    except ValueError:
        words = text.split()
    result: dict[str, str] = {}
    for word in words:
        if "=" in word:
            key, _, value = word.partition("=")
            result[key] = value
    return result
