"""systemd: ``systemctl show`` blocks, ``systemctl list-units`` and unit files / drop-ins.

>>> units = parse_show("Id=a.service\\nLimitNOFILE=1024\\n\\nId=b.service\\nActiveState=inactive\\n")
>>> units["a.service"]["LimitNOFILE"], units["b.service"]["ActiveState"]
('1024', 'inactive')
>>> parse_show("")
{}
>>> parse_show("garbage without equals")
Traceback (most recent call last):
...
foretune.errors.ParseError: systemctl show output has no Id= lines
>>> parse_unit_file("[Service]\\nLimitNOFILE=65536\\nEnvironment=A=1 B=2\\nEnvironment=C=3\\n")["Service"]["Environment"]
['A=1 B=2', 'C=3']
>>> parse_unit_file("# nothing\\n")
{}
>>> [u["unit"] for u in parse_list_units("  a.service loaded active running A\\n\\u25cf b.service loaded failed failed B\\n")]
['a.service', 'b.service']
"""

from __future__ import annotations

from foretune.facts.parsers import ParseError


def parse_show(text: str) -> dict[str, dict[str, str]]:
    """``systemctl show`` output for many units (blank-line separated) keyed by ``Id``."""
    units: dict[str, dict[str, str]] = {}
    block: dict[str, str] = {}
    seen_any = False
    for line in [*text.splitlines(), ""]:
        if not line.strip():
            if block.get("Id"):
                units[block["Id"]] = block
            block = {}
            continue
        if "=" not in line:
            continue
        seen_any = True
        key, _, value = line.partition("=")
        block[key.strip()] = value.strip()
    if seen_any and not units:
        raise ParseError("systemctl show output has no Id= lines")
    if not seen_any and text.strip():
        raise ParseError("systemctl show output has no Id= lines")
    return units


def parse_list_units(text: str) -> list[dict[str, str]]:
    """Rows of ``systemctl list-units``: unit, load, active, sub."""
    rows = []
    for line in text.splitlines():
        words = line.replace("\u25cf", " ").replace("*", " ").split()
        if len(words) >= 4 and "." in words[0] and words[1] in ("loaded", "not-found", "masked", "error", "bad-setting"):
            rows.append({"unit": words[0], "load": words[1], "active": words[2], "sub": words[3]})
    return rows


def parse_unit_file(text: str) -> dict[str, dict[str, list[str]]]:
    """Sections of a unit file or drop-in; every key maps to its values in order (continuations joined)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    logical: list[str] = []
    lines: list[str] = []
    for raw in text.splitlines():
        if raw.rstrip().endswith("\\"):
            logical.append(raw.rstrip()[:-1].strip())
            continue
        logical.append(raw.strip())
        lines.append(" ".join(part for part in logical if part))
        logical = []
    if logical:
        lines.append(" ".join(logical))
    for line in lines:
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        if current is None or "=" not in line:
            raise ParseError(f"not a systemd unit line: {line[:60]!r}")
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections
