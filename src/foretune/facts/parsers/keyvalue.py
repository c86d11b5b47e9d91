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
foretune.facts.parsers.ParseError: line 1 is not KEY=value: 'this is not a key value line'
>>> parse_environment_words('FOREMAN_ENV=production "A=b c" D=e')
{'FOREMAN_ENV': 'production', 'A': 'b c', 'D': 'e'}
"""

from __future__ import annotations

import re
import shlex

from foretune.facts.parsers import ParseError

_LINE = re.compile(r"^(?:export\s+)?([A-Za-z_][\w.\-]*)\s*=\s*(.*)$")


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
        match = _LINE.match(line)
        if not match:
            if strict:
                raise ParseError(f"line {number} is not KEY=value: {line[:60]!r}")
            continue
        values[match.group(1)] = _unquote(match.group(2))
    return values


def parse_environment_words(text: str) -> dict[str, str]:
    """The words of a systemd ``Environment=`` value (or ``systemctl show`` output) as a dict."""
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    result: dict[str, str] = {}
    for word in words:
        if "=" in word:
            key, _, value = word.partition("=")
            result[key] = value
    return result
