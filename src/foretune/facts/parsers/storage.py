"""Mounts and disks: /proc/mounts, ``df -al``, ``lsblk -P``.

>>> parse_mounts("/dev/sda1 /boot xfs rw,relatime 0 0\\n")
[{'device': '/dev/sda1', 'mountpoint': '/boot', 'fstype': 'xfs', 'options': 'rw,relatime'}]
>>> parse_mounts("")
[]
>>> parse_mounts("half a line")
Traceback (most recent call last):
...
foretune.errors.ParseError: mounts line 1 has 3 fields, expected 6: 'half a line'
>>> parse_df("Filesystem 1K-blocks Used Available Use% Mounted on\\n/dev/sda1 1000 250 750 25% /boot\\n")["/boot"]
{'device': '/dev/sda1', 'size_bytes': 1024000, 'used_bytes': 256000, 'free_bytes': 768000}
>>> parse_lsblk_pairs('NAME="sda" ROTA="1" MOUNTPOINT=""\\n')
[{'NAME': 'sda', 'ROTA': '1', 'MOUNTPOINT': ''}]
"""

from __future__ import annotations

import re

from foretune.facts.parsers import ParseError
from foretune.units import format_bytes


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
            raise ParseError(f"lsblk line {number} is longer than {format_bytes(MAX_LSBLK_LINE)}: ignored")
        pairs = dict(_PAIR.findall(line))
        if not pairs:
            raise ParseError(f"lsblk line {number} has no KEY=\"value\" pairs: {line[:60]!r}")
        rows.append(pairs)
    return rows


_TREE = "|`-\u251c\u2514\u2500\u2502 "  # lsblk's tree marks: ASCII under LC_ALL=C (as sos runs it), else box drawing


def _lsblk_columns(text: str, column: str) -> dict[str, str]:
    """NAME -> ``column`` of lsblk's column output (tree marks stripped; a missing trailing value reads as '')."""
    lines = [line for line in text.splitlines() if line.strip()]
    header = lines[0].split() if lines else []
    if not header or header[0] != "NAME" or column not in header:
        return {}
    index = header.index(column)
    out: dict[str, str] = {}
    for line in lines[1:]:
        words = line.split()
        name = words[0].lstrip(_TREE) if words else ""
        if name:
            out.setdefault(name, words[index] if index < len(words) else "")
    return out


def parse_lsblk_tree_and_topology(tree: str, topology: str) -> list[dict[str, str]]:
    """NAME, MOUNTPOINT and ROTA rows from plain ``lsblk`` and ``lsblk -t``, which sos before 4.3 runs instead of
    ``lsblk -O -P``. Columns before MOUNTPOINT (MAJ:MIN RM SIZE RO TYPE) and before ROTA (ALIGNMENT MIN-IO OPT-IO
    PHY-SEC LOG-SEC) always hold a value, so whitespace splitting finds them.

    >>> tree = "NAME          MAJ:MIN RM SIZE RO TYPE MOUNTPOINT\\nsda             8:0    0  50G  0 disk \\n`-sda2          8:2    0  49G  0 part \\n  `-rhel-root 253:0    0  45G  0 lvm  /\\n"
    >>> topo = "NAME          ALIGNMENT MIN-IO OPT-IO PHY-SEC LOG-SEC ROTA SCHED RQ-SIZE   RA WSAME\\nsda                   0    512      0     512     512    1 deadline  128 4096   32M\\n`-sda2                0    512      0     512     512    1 deadline  128 4096   32M\\n  `-rhel-root         0    512      0     512     512    1           128 4096   32M\\n"
    >>> parse_lsblk_tree_and_topology(tree, topo)[-1]
    {'NAME': 'rhel-root', 'MOUNTPOINT': '/', 'ROTA': '1'}
    """
    mounts = _lsblk_columns(tree, "MOUNTPOINT") or _lsblk_columns(tree, "MOUNTPOINTS")
    rota = _lsblk_columns(topology, "ROTA")
    return [{"NAME": name, "MOUNTPOINT": mount, "ROTA": rota[name]} for name, mount in mounts.items() if name in rota]
