"""Apache httpd configuration: directives of a file, with ``<IfModule>`` sections remembered.

>>> d = parse_directives("LoadModule mpm_event_module m.so\\n<IfModule mpm_event_module>\\n  ServerLimit 64\\n</IfModule>\\n")
>>> [(x.name, x.args, x.sections) for x in d]
[('LoadModule', 'mpm_event_module m.so', ()), ('ServerLimit', '64', ('IfModule mpm_event_module',))]
>>> parse_directives("") == []
True
>>> parse_directives("# comment only\\n") == []
True
>>> parse_directives("</IfModule>")
Traceback (most recent call last):
...
foretune.errors.ParseError: line 1 closes </IfModule> that was never opened
"""

from __future__ import annotations

from dataclasses import dataclass

from foretune.facts.parsers import ParseError


@dataclass(frozen=True)
class Directive:
    name: str
    args: str
    sections: tuple[str, ...]
    line: int


def parse_directives(text: str) -> list[Directive]:
    """Every directive with the stack of enclosing sections (``VirtualHost *:443``, ``IfModule x``)."""
    out: list[Directive] = []
    stack: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("</"):
            if not stack:
                raise ParseError(f"line {number} closes {line[:40]} that was never opened")
            stack.pop()
            continue
        if line.startswith("<") and line.endswith(">"):
            stack.append(" ".join(line[1:-1].split()))
            continue
        name, *rest = line.split(None, 1)  # any whitespace separates a directive from its arguments, tabs included
        out.append(Directive(name, " ".join("".join(rest).split()).strip('"'), tuple(stack), number))
    return out
