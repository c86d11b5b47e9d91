"""Plan cases covering every generation and role; reviewed outputs live in golden/<name>/."""

from __future__ import annotations

CASES: dict[str, list[str]] = {
    "satellite-6.2-passenger": ["--product", "satellite", "--version", "6.2", "--hosts", "8000", "--cpus", "16",
                                "--physical-cores", "8", "--ram", "48G", "--bare-metal", "--katello-agent-hosts", "6000",
                                "--puppet-hosts", "2000"],
    "satellite-6.9-puma-prefork": ["--product", "satellite", "--version", "6.9", "--hosts", "7000", "--cpus", "8",
                                   "--ram", "32G", "--virtual", "--katello-agent-hosts", "3000"],
    "satellite-6.15-large": ["--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16",
                             "--ram", "64G", "--virtual"],
    "orcharhino-6.9-default": ["--product", "orcharhino", "--version", "6.9", "--hosts", "2000", "--cpus", "4",
                               "--ram", "20G", "--virtual"],
    "foreman-3.16-xxl": ["--product", "foreman", "--version", "3.16", "--hosts", "80000", "--cpus", "64",
                         "--ram", "256G", "--bare-metal"],
    "capsule-6.15-pull-rex": ["--product", "satellite", "--version", "6.15", "--role", "capsule", "--hosts", "6000",
                              "--cpus", "8", "--ram", "24G", "--rex", "pull-mqtt", "--puppet-hosts", "1500"],
    "capsule-6.2-puppet": ["--product", "satellite", "--version", "6.2", "--role", "capsule", "--hosts", "600", "--cpus", "8",
                           "--physical-cores", "4", "--ram", "16G", "--virtual", "--puppet-hosts", "600"],
}
