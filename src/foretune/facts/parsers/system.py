"""Kernel and OS outputs: /proc/meminfo, lscpu, THP, tuned-adm, sysctl -a, /proc/<pid>/limits.

>>> parse_meminfo("MemTotal:  1024 kB\\nSwapTotal: 0 kB\\n")
{'MemTotal': 1048576, 'SwapTotal': 0}
>>> parse_meminfo("")
{}
>>> parse_meminfo("MemTotal: lots")
Traceback (most recent call last):
...
foretune.errors.ParseError: meminfo line 1 is not 'Name: number [kB]': 'MemTotal: lots'
>>> parse_lscpu("CPU(s): 4\\nThread(s) per core: 2\\nCore(s) per socket: 2\\nSocket(s): 1\\n")["CPU(s)"]
'4'
>>> parse_thp_selected("always [madvise] never")
'madvise'
>>> parse_thp_selected("always madvise never") is None
True
>>> parse_tuned_active("Current active profile: virtual-guest\\n")
'virtual-guest'
>>> parse_tuned_active("No current active profile.\\n") is None
True
>>> parse_sysctl("vm.swappiness = 30\\n# c\\nkernel.sem = 250\\t32000\\n")
{'vm.swappiness': '30', 'kernel.sem': '250 32000'}
>>> parse_proc_limits("Limit  Soft Limit  Hard Limit  Units\\nMax open files  1024  4096  files\\n")["Max open files"]
{'soft': '1024', 'hard': '4096'}
"""

from __future__ import annotations

import re

from foretune.facts.parsers import ParseError

_MEMLINE = re.compile(r"^([\w()]+):\s+(\d{1,20})(?:\s+(kB))?$", re.ASCII)


MAX_LIMITS_LINE = 200


def parse_meminfo(text: str) -> dict[str, int]:
    """/proc/meminfo as bytes (``kB`` lines are converted; HugePages counts stay counts)."""
    values: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        match = _MEMLINE.match(line.strip()) if len(line) <= MAX_LIMITS_LINE else None
        if not match:
            raise ParseError(f"meminfo line {number} is not 'Name: number [kB]': {line[:60]!r}")
        name, amount, unit = match.groups()
        values[name] = int(amount) * (1024 if unit else 1)
    return values


def parse_lscpu(text: str) -> dict[str, str]:
    """``lscpu`` as ``field -> value``."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        if ":" in line:
            key, _, value = line.partition(":")
            values[key.strip()] = value.strip()
    if text.strip() and not values:
        raise ParseError("lscpu output has no 'Field: value' lines")
    return values


def parse_thp_selected(text: str) -> str | None:
    """The bracketed choice of a /sys/kernel/mm/transparent_hugepage file."""
    match = re.search(r"\[([\w+]+)\]", text[:4096])  # the file is one short line
    return match.group(1) if match else None


def parse_tuned_active(text: str) -> str | None:
    """The profile named by ``tuned-adm active``, or None when no profile is active (linear on any input)."""
    for line in text.splitlines():
        if line.startswith("Current active profile:"):
            return line[len("Current active profile:"):].strip()[:200] or None
    return None


def parse_sysctl(text: str) -> dict[str, str]:
    """``sysctl -a`` lines ``name = value`` (tabs inside values become single spaces)."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = " ".join(value.split())
    if text.strip() and not values and any(not ln.strip().startswith("#") for ln in text.splitlines() if ln.strip()):
        raise ParseError("sysctl output has no 'name = value' lines")
    return values


def parse_proc_limits(text: str) -> dict[str, dict[str, str]]:
    """/proc/<pid>/limits: ``Max open files -> {soft, hard}``."""
    limits: dict[str, dict[str, str]] = {}
    for line in text.splitlines()[1:]:
        if len(line) > MAX_LIMITS_LINE:  # real lines are about 80 characters; the pattern backtracks on long runs
            continue
        match = re.match(r"^(Max [a-z ]+?)\s{2,}(\S+)\s+(\S+)", line)
        if match:
            limits[match.group(1)] = {"soft": match.group(2), "hard": match.group(3)}
    return limits
