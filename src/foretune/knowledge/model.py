"""Typed views of the bundled knowledge: releases, their features, citations (named tuples, like the plan's
records: see foretune.plan.model)."""

from __future__ import annotations

from typing import NamedTuple

PROFILES = ("development", "default", "medium", "large", "extra-large", "extra-extra-large")
SIZES = ("default", "medium", "large", "extra-large", "extra-extra-large")  # ordered by host count


class Features(NamedTuple):
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
    custom_hiera: bool = True  # the installer reads custom-hiera.yaml (foreman-installer 1.14+); else edit config files
    mongodb_engine: str = "none"  # "mmapv1" (MongoDB 2.6, mmap(): no cache setting) | "wiredtiger" (cacheSizeGB)
    pulp_api_formula: str = "min4+1"  # pulpcore API gunicorn workers: "one" | "min4+1" (min(4, CPUs) + 1)
    hosts_queue: bool = False  # Katello runs a dynflow-sidekiq@worker-hosts-queue worker beside the default pool
    pulp_content_formula: str = "2x+1"  # pulpcore content gunicorn workers: "two" | "2x+1" (2 x min(8, CPUs) + 1)
    puppet_passenger: bool = False  # the installer's puppet module can run the Puppet server under Passenger (puppet-puppet < 11)
    dynflow_worker_options: bool = True  # foreman::dynflow_worker_instances/_concurrency exist (puppet-foreman >= 17)
    foreman_vhost_keepalive: bool = False  # the Foreman vhost carries its own KeepAlive settings (foreman::keepalive*, 1.12-1.24)
    qpid_open_file_limit_option: bool = True  # qpid::open_file_limit exists (puppet-qpid >= 2.2, Katello 3.5)
    qpid_mgmt_pub_interval_option: bool = True  # qpid::mgmt_pub_interval exists (puppet-qpid >= 4.1, Katello 3.7)
    apache_event_maxclients: int = 0  # MaxClients puppetlabs-apache renders for the event MPM when maxrequestworkers is unset (7.0-8.x: 150); 0: none
    capsule_qpidd: bool = False  # a Capsule runs its own qpidd broker (foreman_proxy_content::broker, before 15.0.0)
    mqtt_rate_limit_option: bool = True  # the installer can set the pull-REX MQTT rate limit (puppet-foreman_proxy >= 24.1)
    capsule_router_opt_in: bool = True  # a Capsule runs qdrouterd only with enable_katello_agent (puppet-foreman_proxy_content >= 18)
    server_qpid_opt_in: bool = True  # a server runs qpidd and qdrouterd only with enable_katello_agent (puppet-katello >= 20)
    pulpcore_worker_count_option: bool = True  # --foreman-proxy-content-pulpcore-worker-count (fpc >= 12, pulpcore >= 1.2)
    pulpcore_gunicorn_options: bool = True  # pulpcore::{api,content}_service_worker_count (puppet-pulpcore >= 3.1)
    hammer_timeout_option: bool = True  # foreman::cli::request_timeout reaches /etc/hammer (puppet-foreman >= 16.1, installer 2.4)


class Release(NamedTuple):
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


CITATION_KINDS = ("guide", "doc", "upstream", "estimate")


class Quote(NamedTuple):
    """A verbatim sentence of a source and the figure it supports."""

    text: str
    figure: str


class Citation(NamedTuple):
    """A source a number comes from: a guide section, an upstream file, or a foretune estimate.

    ``kind`` says how it is proven: ``guide`` (a vendor tuning guide, quoted verbatim), ``doc``
    (another public document, quoted verbatim), ``upstream`` (a file of an upstream repository at a
    release tag or commit) or ``estimate`` (foretune's own reasoning, given next to the number).
    """

    id: str
    title: str
    where: str  # URL-free locator: guide + section, or repo + path @ tag
    kind: str = ""
    guide: str = ""  # kind "guide": which vendor guide (see citations.yaml)
    quotes: tuple[Quote, ...] = ()  # the first one is the citation's main quote
    url: str = ""  # public address, "" where none is known
    repo: str = ""  # kind "upstream": owner/name on GitHub
    path: str = ""  # kind "upstream": file inside repo
    ref: str = ""  # kind "upstream": release tag or commit the file was read at
    excerpt: str = ""  # kind "upstream": a line of that file, as read at ref

    @property
    def quote(self) -> str:
        """The main verbatim quote ("" for upstream files and estimates)."""
        return self.quotes[0].text if self.quotes else ""

    @property
    def figure(self) -> str:
        """The figure the main quote supports."""
        return self.quotes[0].figure if self.quotes else ""

    def as_dict(self) -> dict[str, object]:
        """Plain data for JSON and HTML reports (empty fields left out)."""
        data: dict[str, object] = {"id": self.id, "kind": self.kind, "title": self.title, "where": self.where}
        for key in ("guide", "url", "repo", "path", "ref", "excerpt"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        if self.quotes:
            data["quote"], data["figure"] = self.quote, self.figure
            data["quotes"] = [{"quote": q.text, "figure": q.figure} for q in self.quotes]
        return data
