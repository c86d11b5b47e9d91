"""Typed views of the bundled knowledge: releases, their features, citations."""

from __future__ import annotations

from dataclasses import dataclass

PROFILES = ("development", "default", "medium", "large", "extra-large", "extra-extra-large")
SIZES = ("default", "medium", "large", "extra-large", "extra-extra-large")  # ordered by host count


@dataclass(frozen=True)
class Features:
    """What a release runs; rules and the planner gate on these, never on version numbers."""

    passenger: bool  # Foreman served by Passenger (Satellite <= 6.8)
    puma: bool  # Foreman served by Puma (Satellite >= 6.9)
    mpm: str  # Apache MPM the installer configures: "prefork" | "event"
    pulp2: bool  # Pulp 2 (celery workers, PULP_CONCURRENCY)
    pulpcore: bool  # Pulp 3 (pulpcore workers, gunicorn api/content)
    mongodb: bool  # MongoDB for Pulp 2
    qpid: bool  # qpidd/qdrouterd (katello-agent/goferd)
    sidekiq: bool  # Dynflow on Sidekiq (else dynflowd executors)
    redis: bool
    pull_rex: bool  # pull-based remote execution over MQTT available
    size_profiles: bool  # installer has --tuning size profiles
    puma_formula: str  # "none" | "fixed" (2 workers, 0-16 threads) | "auto" | "auto-capped" (cap 100)
    db_pool_formula: str  # "max(5,threads)" | "threads+4"
    tasks_sysconfig: str  # environment file of the Dynflow executor service (foreman-tasks, later dynflowd)


@dataclass(frozen=True)
class Release:
    """One product release resolved to its Foreman/installer version and features."""

    product: str  # foreman | satellite | orcharhino
    version: str  # as the user wrote it, e.g. "6.15"
    foreman_version: str  # x.y
    generation: str  # "passenger" | "puma-prefork" | "puma-event"
    epoch: str  # installer tuning epoch: "none" | "tuning.yaml" | "A" | "B" | "C" | "D"
    features: Features
    citations: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        names = {"foreman": "Foreman", "satellite": "Satellite", "orcharhino": "orcharhino"}
        suffix = "" if self.product == "foreman" else f" (Foreman {self.foreman_version})"
        return f"{names.get(self.product, self.product)} {self.version}{suffix}"


@dataclass(frozen=True)
class Citation:
    """A source a number comes from: a guide section, an upstream file, or a foretune estimate."""

    id: str
    title: str
    where: str  # URL-free locator: guide + section, or repo + path @ commit
    url: str | None = None  # a public address, when there is one (``url:`` in the data, or a GitHub repository's)
