"""Installed packages: sosreport ``installed-rpms``, ``rpm -qa`` or ``dpkg-query`` output.

>>> pkgs = parse_packages("satellite-6.15.3-1.el8sat.noarch          Mon Feb 12 2024\\nfoo\\n")
>>> pkgs["satellite"]
'6.15.3'
>>> parse_packages("") == {}
True
>>> split_nvra("python3.11-pulpcore-3.39.11-1.el8pc.noarch")
('python3.11-pulpcore', '3.39.11')
>>> split_nvra("foreman 3.9.1-1") # dpkg-query "name version" rows
('foreman', '3.9.1')
"""

from __future__ import annotations

import re

_NVRA = re.compile(r"^(?P<name>.+)-(?P<version>\d[^-]*)-(?P<release>[^-]+?)(?:\.(?P<arch>noarch|x86_64|i686|aarch64|ppc64le|s390x|src))?$")


def split_nvra(word: str) -> tuple[str, str] | None:
    """``name-version-release.arch`` (or ``name version`` from dpkg) -> (name, version)."""
    if " " in word:
        name, version = word.split(None, 1)
        version = version.split(":")[-1].split("-")[0].split("+")[0]
        return name, version
    match = _NVRA.match(word)
    return (match.group("name"), match.group("version")) if match else None


def parse_packages(text: str) -> dict[str, str]:
    """Package name -> version; lines that are not packages are ignored."""
    packages: dict[str, str] = {}
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        parsed = split_nvra(words[0])
        if parsed is None and len(words) >= 2 and words[1][:1].isdigit():
            parsed = split_nvra(f"{words[0]} {words[1]}")
        if parsed:
            packages[parsed[0]] = parsed[1]
    return packages
