"""Mounts and disks: /proc/mounts, ``df -al``, ``lsblk -P``.

>>> parse_mounts("/dev/sda1 /boot xfs rw,relatime 0 0\\n")
[{'device': '/dev/sda1', 'mountpoint': '/boot', 'fstype': 'xfs', 'options': 'rw,relatime'}]
>>> parse_mounts("")
[]
>>> parse_mounts("half a line")
Traceback (most recent call last):
...
foretune.facts.parsers.ParseError: mounts line 1 has 3 fields, expected 6: 'half a line'
>>> parse_df("Filesystem 1K-blocks Used Available Use% Mounted on\\n/dev/sda1 1000 250 750 25% /boot\\n")["/boot"]
{'device': '/dev/sda1', 'size_bytes': 1024000, 'used_bytes': 256000, 'free_bytes': 768000}
>>> parse_lsblk_pairs('NAME="sda" ROTA="1" MOUNTPOINT=""\\n')
[{'NAME': 'sda', 'ROTA': '1', 'MOUNTPOINT': ''}]
"""

from __future__ import annotations

import re

from foretune.facts.parsers import ParseError


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def parse_mounts(text: str) -> list[dict[str, str]]:
    """/proc/mounts rows (octal escapes such as ``\\040`` decoded)."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 6:
            raise ParseError(f"mounts line {number} has {len(fields)} fields, expected 6: {line[:60]!r}")
        rows.append({"device": _unescape(fields[0]), "mountpoint": _unescape(fields[1]), "fstype": fields[2],
                     "options": fields[3]})
    return rows


def parse_df(text: str) -> dict[str, dict[str, object]]:
    """``df -al`` (1K blocks) by mount point; pseudo filesystems with '-' sizes are skipped."""
    result: dict[str, dict[str, object]] = {}
    lines = text.splitlines()
    if not lines:
        return result
    if not lines[0].startswith("Filesystem"):
        raise ParseError("df output does not start with a 'Filesystem' header")
    pending = ""
    for line in lines[1:]:
        fields = (pending + " " + line).split() if pending else line.split()
        if len(fields) == 1:  # long device names wrap onto the next line
            pending = fields[0]
            continue
        pending = ""
        if len(fields) < 6 or not all(f.isascii() and f.isdigit() and len(f) <= 18 for f in fields[1:4]):
            continue
        mountpoint = " ".join(fields[5:])
        result[mountpoint] = {"device": fields[0], "size_bytes": int(fields[1]) * 1024,
                              "used_bytes": int(fields[2]) * 1024, "free_bytes": int(fields[3]) * 1024}
    return result


_PAIR = re.compile(r'(?<![A-Z:\-])([A-Z:\-]+)="([^"]*)"')  # starts only at the beginning of a name: linear
MAX_LSBLK_LINE = 64 * 1024


def parse_lsblk_pairs(text: str) -> list[dict[str, str]]:
    """``lsblk -P`` / ``lsblk -O -P`` rows as dicts of the keys present."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(line) > MAX_LSBLK_LINE:
            raise ParseError(f"lsblk line {number} is longer than {MAX_LSBLK_LINE // 1024} KiB: ignored")
        pairs = dict(_PAIR.findall(line))
        if not pairs:
            raise ParseError(f"lsblk line {number} has no KEY=\"value\" pairs: {line[:60]!r}")
        rows.append(pairs)
    return rows
