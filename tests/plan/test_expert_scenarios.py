"""What an expert sets for each generation, written by hand from the guides (never from the planner's output).

Sources: 000 = Satellite 6.2 performance brief, 001 = Satellite 6.9 tuning guide, 002 = Foreman tuning guide,
003 = Satellite 6.9 Puma blog post, 004 = orcharhino tuning guide (all under ../shared/seeds/).
"""

from __future__ import annotations

from foretune.knowledge import citation
from foretune.plan import PlanInput, make_plan
from foretune.plan.model import Plan
from tests.conftest import run_cli

GIB = 1024**3
SEVERE = ("medium", "high", "critical")


def plan(**kwargs: object) -> Plan:
    return make_plan(PlanInput(**kwargs))  # type: ignore[arg-type]


def value(p: Plan, tid: str) -> object:
    return p.tunables[tid].foretune.value


def installer(p: Plan, tid: str) -> object:
    return p.tunables[tid].installer.value


def severe(p: Plan) -> list[str]:
    return [f"{x.severity} {x.code}: {x.message}" for x in p.problems if x.severity in SEVERE]


def fits(p: Plan) -> bool:
    return sum(m.bytes for m in p.memory) <= p.input.ram_bytes and not any(
        x.code in ("memory-over-ram", "memory-tight") for x in p.problems)


# --- current Foreman 3.x / Satellite 6.15+ --------------------------------------------------------

def test_satellite_615_default_reference_box() -> None:
    # 002 2. / 5.2.4: default = 0-5000 hosts, 20 GiB, 4 cores; 16 threads for both min & max; 4-6 workers
    p = plan(product="satellite", version="6.15", hosts=4000, cpus=4, ram_bytes=20 * GIB, virtual=True)
    assert value(p, "puma.threads_min") == 16 and value(p, "puma.threads_max") == 16
    assert 4 <= value(p, "puma.workers") <= 6  # type: ignore[operator]
    assert value(p, "foreman.db_pool") == 20  # threads_max 16 + 4 (puppet-foreman config.pp)
    assert value(p, "postgresql.shared_buffers") == "2GB"  # 002 5.6: 2 GiB .. 25 % of RAM
    assert value(p, "postgresql.autovacuum_vacuum_cost_limit") == 2000
    assert value(p, "httpd.limit_nofile") == 640000  # 002 5.3.1
    assert value(p, "apache.mpm") == "event"
    assert value(p, "dynflow.sidekiq_concurrency") == 5  # 002 5.4
    budget = sum(n for _, n in p.connection_budget)
    assert value(p, "postgresql.max_connections") >= budget  # type: ignore[operator]
    assert value(p, "postgresql.max_connections") == 500  # the default profile's value carries the 16-thread budget
    for gone in ("passenger.max_pool_size", "mongodb.cache_size_gb", "qpidd.limit_nofile", "apache.max_clients",
                 "dynflow.executors", "postgresql.checkpoint_segments"):
        assert gone not in p.tunables, gone
    assert fits(p), p.memory
    assert severe(p) == []


def test_satellite_615_medium_reference_box() -> None:
    # 002: medium = 5000-10000 hosts, 32 GiB, 8 cores; 8-12 workers; 5.3.2: serverlimit 64, maxrequestworkers 1024
    p = plan(product="satellite", version="6.15", hosts=8000, cpus=8, ram_bytes=32 * GIB, virtual=True)
    assert p.profile == "medium"
    assert value(p, "puma.threads_max") == 16
    assert 8 <= value(p, "puma.workers") <= 12  # type: ignore[operator]
    assert value(p, "apache.server_limit") == 64 and value(p, "apache.max_request_workers") == 1024
    assert value(p, "postgresql.max_connections") == 1000
    assert value(p, "postgresql.shared_buffers") == "4GB"  # the medium profile's, inside 2 GiB .. 8 GiB
    assert fits(p)
    assert severe(p) == []


def test_orcharhino_default_reads_like_its_guide() -> None:
    # 004 5.2.4 repeats the Foreman guide: 16 threads with all tuning profiles
    p = plan(product="orcharhino", version="6.9", hosts=2000, cpus=4, ram_bytes=20 * GIB, virtual=True)
    assert value(p, "puma.threads_min") == value(p, "puma.threads_max") == 16
    assert installer(p, "puma.threads_max") == 5  # "installer uses 5 min/max threads by default"
    assert "alternative" in p.tunables["puma.threads_max"].foretune.reason  # 5 stays the cited alternative
    assert fits(p)
    assert severe(p) == []


def test_96_cpu_box_installer_values_exceed_max_connections() -> None:
    # puppet-foreman on Satellite 6.16 (Foreman 3.12, before the cap of 100): workers = floor(min(96 x 1.5, 256 - 1.5)) = 144,
    # db_pool = threads_max 5 + 4 = 9 -> Puma alone opens 144 x 9 = 1296 connections; the profile's max_connections is 1000
    p = plan(product="satellite", version="6.16", hosts=70000, cpus=96, ram_bytes=256 * GIB, virtual=False)
    assert installer(p, "puma.workers") == 144 and installer(p, "foreman.db_pool") == 9
    assert installer(p, "postgresql.max_connections") == 1000
    assert any(x.code == "installer-connections-over-max" for x in p.problems)
    assert dict(p.installer_connection_budget)["Puma 144 workers x 9 pool (threads 5)"] == 1296
    assert value(p, "puma.workers") == 26  # the extra-extra-large range 20-26
    assert value(p, "postgresql.max_connections") >= sum(n for _, n in p.connection_budget)  # type: ignore[operator]


# --- Satellite 6.9 (Puma, prefork, Pulp 2 + pulpcore, MongoDB) --------------------------------------

def test_satellite_69_keeps_16_threads_and_its_release_defaults() -> None:
    # 003: "Puma has two workers by default and each worker is configured with max of 16 threads" (min 0)
    p = plan(product="satellite", version="6.9", hosts=3000, cpus=4, ram_bytes=20 * GIB, virtual=True)
    assert installer(p, "puma.workers") == 2
    assert installer(p, "puma.threads_min") == 0 and installer(p, "puma.threads_max") == 16
    assert value(p, "puma.threads_min") == value(p, "puma.threads_max") == 16  # never cut to 5
    assert installer(p, "foreman.db_pool") == 16  # max(db_pool 5, threads_max 16) before puppet-foreman 25
    assert value(p, "apache.mpm") == "prefork"
    assert value(p, "mongodb.cache_size_gb") == 4.0  # 001: 20 % of the physical RAM
    assert installer(p, "pulp.api_workers") == 1 and installer(p, "pulp.content_workers") == 2
    assert severe(p) == []


# --- Satellite 6.2 (Passenger, Pulp 2 + MongoDB 2.6, no custom-hiera) ------------------------------

def test_satellite_62_server_follows_the_brief() -> None:
    p = plan(product="satellite", version="6.2", hosts=2000, cpus=8, physical_cores=4, ram_bytes=24 * GIB, virtual=False,
             katello_agent_hosts=1000)
    assert value(p, "passenger.max_pool_size") == 6  # 1.5 x 4 physical cores = 6 (5.4)
    assert value(p, "passenger.max_request_queue_size") == 200  # the tuned passenger.conf
    assert value(p, "passenger.max_requests") == 10000 and value(p, "passenger.stat_throttle_rate") == 120
    assert value(p, "passenger.start_timeout") == 600  # puppet-foreman 5.1.0 params.pp 600; the brief's 500 is an example
    assert value(p, "passenger.min_instances") == 3  # the brief's 6 would fill the pool of 6: half of it, floor(6 / 2) = 3
    assert value(p, "apache.keepalive") is True and value(p, "apache.keepalive_timeout") == 5
    assert value(p, "apache.max_keepalive_requests") == 0
    assert installer(p, "apache.keepalive") is False and installer(p, "apache.keepalive_timeout") == 15  # puppet-foreman 5.1
    assert value(p, "apache.server_limit") == 256  # prefork untouched while pool + queue < MaxClients
    assert value(p, "httpd.limit_nofile") == 1000000  # 5.3 limits.conf
    assert value(p, "qpidd.limit_nofile") == value(p, "qdrouterd.limit_nofile") == 1000000  # 5.12
    assert value(p, "sysctl.fs_aio_max_nr") == 1000000
    assert value(p, "smart_proxy_dynflow.limit_nofile") == 1000000  # 5.19
    assert value(p, "smart_proxy_dynflow.database") == "in-memory"
    assert installer(p, "smart_proxy_dynflow.limit_nofile") == 1024  # no installer default on 6.2
    assert value(p, "postgresql.shared_buffers") == "3712MB"  # 15 % of 24 GiB = 3686.4 MB -> next 128 MB
    assert value(p, "sysctl.kernel_shmmax") == 4 * GIB  # 3712 MB x 1.1 = 3.99 GiB -> 4 GiB, one byte above RHEL 7's default
    assert value(p, "postgresql.max_connections") == 200  # 5.13: 200 for 200 parallel registrations
    assert "mongodb.cache_size_gb" not in p.tunables  # MMAPv1: the key would stop mongod
    assert value(p, "mongodb.storage_engine") == "mmapv1"
    assert "candlepin.heap_max" not in p.tunables  # -Xmx4096m arrived after 6.2; the brief sets no heap
    assert "postgresql.work_mem" not in p.tunables and "postgresql.effective_cache_size" not in p.tunables
    fixes = [f for t in p.tunables.values() for f in t.fixes]
    assert not any(f.kind == "hiera" for f in fixes)  # no custom-hiera before foreman-installer 1.14
    assert any(f.kind == "file" and f.target == "/etc/httpd/conf.d/passenger.conf" and f.value == "PassengerMaxRequestQueueSize 200"
               for f in fixes)
    assert fits(p)
    assert severe(p) == []


def test_satellite_62_minimum_is_the_briefs() -> None:
    # 5.17: "2 CPUs, 12GB RAM, 4GB swap"
    p = plan(product="satellite", version="6.2", hosts=500, cpus=2, ram_bytes=12 * GIB, virtual=True)
    assert p.hardware.ok and p.hardware.required_cores == 2 and p.hardware.required_ram_bytes == 12 * GIB
    assert value(p, "postgresql.shared_buffers") == "1920MB"  # 15 % of 12 GiB = 1843.2 MB -> 1920 MB
    assert severe(p) == []
    # 6.2 had no size profiles: 8000 hosts on 8 CPUs / 16 GiB is checked against the same 2 CPUs / 12 GB, not against
    # a later release's medium table (8 cores, 32 GiB); the memory budget speaks for the workload
    big = plan(product="satellite", version="6.2", hosts=8000, cpus=8, ram_bytes=16 * GIB)
    assert big.hardware.ok and (big.hardware.required_cores, big.hardware.required_ram_bytes) == (2, 12 * GIB)
    assert not [q for q in big.problems if q.code == "hardware-below-profile"]
    assert plan(product="satellite", version="6.2", hosts=500, cpus=1, ram_bytes=12 * GIB).hardware.ok is False
    table = run_cli("plan", "--product", "satellite", "--version", "6.2", "--hosts", "8000", "--cpus", "8", "--ram", "16G").stdout
    assert "meets the Satellite 6.2 (Foreman 1.11) minimum: 2 cores and 12 GiB RAM" in table
    assert "largest profile this hardware supports" not in table  # no --tuning on 6.2


def test_satellite_62_capsule_with_puppet_gets_the_same_apache_and_passenger_advice() -> None:
    # 5.9: capsule KeepAlive On / 0 / 5; Passenger pool 6, queue 200; Puppet app MinInstances 2, StartTimeout 90
    p = plan(product="satellite", version="6.2", role="capsule", hosts=600, cpus=8, physical_cores=4, ram_bytes=16 * GIB,
             virtual=True, puppet_hosts=600)
    assert value(p, "apache.keepalive") is True and value(p, "apache.max_keepalive_requests") == 0
    assert value(p, "passenger.max_pool_size") == 6 and value(p, "passenger.max_request_queue_size") == 200
    assert value(p, "passenger.puppet_min_instances") == 2 and value(p, "passenger.puppet_start_timeout") == 90
    assert value(p, "puppet.hosts_per_capsule") == 600  # 6.10: 600 hosts with 16GB RAM, 8 vCPUs (measured, not scaled)
    assert "puma.workers" not in p.tunables
    assert severe(p) == []


# --- Capsules of the current generation -------------------------------------------------------------

def test_capsule_with_pull_rex() -> None:
    # 002 5.5.1: LimitNOFILE=5000 lets mosquitto "handle 5000 hosts": one descriptor per host
    p = plan(product="satellite", version="6.15", role="capsule", hosts=4500, cpus=4, ram_bytes=12 * GIB, virtual=True,
             rex="pull-mqtt")
    assert value(p, "mosquitto.limit_nofile") >= 4500  # type: ignore[operator]
    assert value(p, "mosquitto.limit_nofile") == 5000  # 4500 + 10 % = 4950, rounded up to 1000
    assert p.hardware.ok  # 002 5.8.1 minimal: 4 CPUs, 12 GiB
    for gone in ("puma.workers", "postgresql.max_connections", "candlepin.heap_max", "qpidd.limit_nofile"):
        assert gone not in p.tunables
    assert severe(p) == []


def test_capsule_with_puppet() -> None:
    # Installing Capsule Server, Appendix A: 1250-1600 clients on 4 CPUs at 10 classes
    p = plan(product="satellite", version="6.15", role="capsule", hosts=1200, cpus=4, ram_bytes=12 * GIB, virtual=True,
             puppet_hosts=1200)
    assert value(p, "puppet.hosts_per_capsule") == 1250
    assert value(p, "puppet.splay") is True  # for the managed agents (advice), not this box's puppet::splay
    assert severe(p) == []
    busy = plan(product="satellite", version="6.15", role="capsule", hosts=1500, cpus=4, ram_bytes=12 * GIB, virtual=True,
                puppet_hosts=1500)
    assert any(x.code == "puppet-hosts-per-capsule" for x in busy.problems)


def test_satellite_69_reference_boxes_fit() -> None:
    # 001 uses the same profile table: default 4 CPUs / 20 GiB, medium 8 CPUs / 32 GiB
    for hosts, cpus, ram in ((4000, 4, 20), (8000, 8, 32)):
        p = plan(product="satellite", version="6.9", hosts=hosts, cpus=cpus, ram_bytes=ram * GIB, virtual=True)
        assert fits(p), (hosts, [(m.component, m.bytes / GIB) for m in p.memory])
        assert not any(x.code == "memory-over-ram" for x in p.problems)
        assert severe(p) == []


def test_above_the_minimum_current_generation() -> None:
    # 002: extra-large = 20000-60000 hosts, 128 GiB, 32 cores, 16-24 workers; profiles: shared_buffers 16GB,
    # effective_cache_size 32GB, work_mem 8MB (sizes/extra-large.yaml); Candlepin -Xmx8192m
    p = plan(product="satellite", version="6.16", hosts=30000, cpus=32, ram_bytes=128 * GIB, virtual=False)
    assert 16 <= value(p, "puma.workers") <= 24 and value(p, "puma.threads_max") == 16  # type: ignore[operator]
    assert value(p, "postgresql.shared_buffers") == "16GB"
    assert value(p, "postgresql.effective_cache_size") == "32GB"
    assert value(p, "postgresql.work_mem") == "8MB"
    assert value(p, "candlepin.heap_max") == 8 * GIB
    assert value(p, "dynflow.sidekiq_instances") == 3  # 002 5.4: "from one worker to three"
    assert fits(p) and severe(p) == []
    o = plan(product="orcharhino", version="6.10", hosts=15000, cpus=16, ram_bytes=64 * GIB, virtual=True)
    assert 12 <= value(o, "puma.workers") <= 18 and value(o, "puma.threads_min") == 16  # type: ignore[operator]
    assert value(o, "apache.server_limit") == 64 and value(o, "postgresql.max_connections") == 1000
    assert fits(o) and severe(o) == []


def test_keys_absent_where_the_release_has_no_such_thing() -> None:
    p62 = plan(product="satellite", version="6.2", hosts=3000, cpus=8, ram_bytes=24 * GIB)
    for gone in ("puma.workers", "foreman.db_pool", "dynflow.sidekiq_instances", "pulp.workers", "mosquitto.limit_nofile",
                 "apache.threads_per_child", "mongodb.cache_size_gb", "postgresql.autovacuum_vacuum_cost_limit"):
        assert gone not in p62.tunables, gone
    p69 = plan(product="satellite", version="6.9", hosts=3000, cpus=8, ram_bytes=32 * GIB)
    for gone in ("passenger.max_pool_size", "apache.threads_per_child", "apache.max_request_workers", "dynflow.executors",
                 "mosquitto.limit_nofile", "mongodb.storage_engine"):
        assert gone not in p69.tunables, gone
    p615 = plan(product="satellite", version="6.15", hosts=3000, cpus=8, ram_bytes=32 * GIB)
    for gone in ("qpidd.limit_nofile", "sysctl.fs_aio_max_nr", "pulp2.concurrency", "mongodb.cache_size_gb",
                 "katello.content_action_accept_timeout", "sysctl.kernel_shmmax"):
        assert gone not in p615.tunables, gone


def test_62_rows_from_later_sources_say_so() -> None:
    # The 6.2 brief covers neither transparent huge pages nor an executor count: THP "never" is the 6.9 guide's;
    # satellite-support's EXECUTORS_COUNT by RAM (6.4-6.6) does not apply, since foreman-tasks 0.7 has no such setting
    p = plan(product="satellite", version="6.2", hosts=3000, cpus=8, ram_bytes=32 * GIB)
    assert p.tunables["os.thp"].foretune.reason.endswith("(the 6.9 guide's advice; the 6.2 brief does not cover THP)")
    executors = p.tunables["dynflow.executors"].foretune
    assert executors.value == 1 and "has no EXECUTORS_COUNT setting, and the 6.2 brief gives no count" in executors.reason


def test_orcharhino_rows_cite_the_orcharhino_guide_where_it_says_it() -> None:
    # Tuning orcharhino 5.2.4 has the same table as Foreman's ("medium 5000 – 10000 32 GiB 8 16 8 – 12") and "we
    # recommend 16 threads with all the tuning profiles": an orcharhino plan cites its own guide for them
    p = plan(product="orcharhino", version="6.11", hosts=8000, cpus=8, ram_bytes=32 * GIB)
    assert "go-puma-recommendations" in p.tunables["puma.workers"].foretune.citations
    assert p.tunables["puma.threads_max"].foretune.citations == ("go-puma-recommendations",)
    assert not [t.id for t in p.tunables.values() if "gf-puma-recommendations" in t.foretune.citations]
    sat = plan(product="satellite", version="6.15", hosts=8000, cpus=8, ram_bytes=32 * GIB)
    assert sat.tunables["puma.threads_max"].foretune.citations == ("gf-puma-recommendations",)


def test_orcharhino_rows_cite_every_section_of_the_orcharhino_guide_that_gives_their_figure() -> None:
    # Tuning orcharhino states the same figures as the Foreman guide in its own words: 4.2/4.3 tuned and THP ("ATIX AG
    # recommends to run the virtual-guest profile", "disable Transparent Hugepage"), 5.2.1 threads_min = threads_max,
    # 5.2.2 "Each Puma worker consumes around 1 GiB of RAM", 5.2.7 the db pool, 5.3.1 "LimitNOFILE=640000", 5.3.2
    # "apache::mod::event::serverlimit: 64", 5.4 "five threads/concurrency", 5.5.1 mosquitto "LimitNOFILE=5000", 5.6
    # "work_mem: 8MB" and "autovacuum_vacuum_cost_limit: 2000", 5.7 Redis and THP
    p = plan(product="orcharhino", version="6.9", hosts=8000, cpus=8, ram_bytes=32 * GIB, rex="pull-mqtt", rex_hosts=3000)
    expected = {"os.tuned_profile": "go-hardware", "os.thp": "go-redis", "puma.threads_min": "go-puma-threads",
                "foreman.db_pool": "go-db-pool", "httpd.limit_nofile": "go-httpd-nofile",
                "apache.server_limit": "go-httpd-children", "dynflow.sidekiq_concurrency": "go-dynflow",
                "mosquitto.limit_nofile": "go-pull-rex", "postgresql.work_mem": "go-postgresql",
                "postgresql.autovacuum_vacuum_cost_limit": "go-postgresql"}
    for tid, cid in expected.items():
        assert cid in p.tunables[tid].foretune.citations, (tid, p.tunables[tid].foretune.citations)
    cited = {c for t in p.tunables.values() for c in (*t.installer.citations, *t.foretune.citations,
                                                        *(i.citation for i in t.foretune.inputs))}
    cited |= {c for m in p.memory for c in m.citations} | {c for q in p.problems for c in q.citations}
    assert not sorted(c for c in cited if c.startswith("gf-"))  # no Foreman guide section where its own guide speaks
    assert citation("go-postgresql").guide == "orcharhino-guide"
    sat = plan(product="satellite", version="6.15", hosts=8000, cpus=8, ram_bytes=32 * GIB, rex="pull-mqtt", rex_hosts=3000)
    for tid, cid in expected.items():  # a Satellite plan keeps the Foreman guide's section
        assert cid not in sat.tunables[tid].foretune.citations and cid.replace("go-", "gf-") in sat.tunables[tid].foretune.citations, tid


def test_a_worker_count_the_release_cannot_set_is_neither_a_change_nor_budgeted() -> None:
    # puppet-foreman 16.0.0 (foreman-installer 2.3, Satellite 6.9) declares one Sidekiq worker and no
    # dynflow_worker_instances (17.0.0 added it); foreman-tasks 0.7 (Satellite 6.2) has no EXECUTORS_COUNT: one
    # executor. Neither is a change, and the budgets count the one that runs.
    p69 = plan(product="satellite", version="6.9", hosts=7000, cpus=8, ram_bytes=32 * GIB, katello_agent_hosts=3000)
    t = p69.tunables["dynflow.sidekiq_instances"]
    assert (t.installer.value, t.foretune.value, t.differs, t.fixes) == (1, 1, False, ())
    assert ("Sidekiq 1 worker x (5 + 2) + orchestrator (1 + 2)", 10) in p69.connection_budget
    p62 = plan(product="satellite", version="6.2", hosts=8000, cpus=16, ram_bytes=48 * GIB)
    e = p62.tunables["dynflow.executors"]
    assert (e.installer.value, e.foretune.value, e.differs, e.fixes) == (1, 1, False, ())
    assert ("dynflowd 1 executor x 5", 5) in p62.connection_budget
    p610 = plan(product="satellite", version="6.10", hosts=7000, cpus=8, ram_bytes=32 * GIB)  # foreman-installer 2.5
    assert p610.tunables["dynflow.sidekiq_instances"].foretune.value == 2


def test_an_mqtt_rate_limit_the_installer_cannot_set_is_no_change() -> None:
    # puppet-foreman_proxy got mqtt_rate_limit in 24.1.0; foreman-installer 3.5.0 (Satellite 6.13) pins 24.0.1: the
    # plugin's unlimited default stays, and the row says why instead of counting a change no output makes
    argv: dict[str, object] = {"role": "capsule", "hosts": 4000, "cpus": 8, "ram_bytes": 24 * GIB, "rex": "pull-mqtt",
                               "puppet_hosts": 1500}
    t = plan(product="satellite", version="6.13", **argv).tunables["mqtt.rate_limit"]
    assert t.foretune.value is None and not t.differs and t.fixes == ()
    assert "this installer has no rate-limit option" in t.foretune.reason
    later = plan(product="satellite", version="6.14", **argv).tunables["mqtt.rate_limit"]
    assert later.foretune.value == 200 and later.differs


def test_candlepins_heap_is_named_after_who_sets_it() -> None:
    # foreman-installer's size files set candlepin::java_opts only for extra-large and extra-extra-large
    # ("-Xms1024m -Xmx8192m"); below that the 4 GiB is puppet-candlepin's own default, not the profile's
    medium = plan(product="satellite", version="6.15", hosts=8000, cpus=8, ram_bytes=32 * GIB).tunables["candlepin.heap_max"]
    assert medium.foretune.value == 4 * GIB
    assert medium.foretune.reason == "puppet-candlepin's default (the medium profile sets none)"
    assert "fi-tuning-profiles" not in medium.foretune.citations
    xxl = plan(product="satellite", version="6.15", hosts=70000, cpus=48, ram_bytes=256 * GIB).tunables["candlepin.heap_max"]
    assert xxl.foretune.value == 8 * GIB and xxl.foretune.reason == "the extra-extra-large profile's heap"


def test_the_agents_runinterval_is_kept_and_sizes_the_capacity() -> None:
    # Satellite 6.3 guide: about 1250 agents per 4 CPUs (2500 on 8) at Puppet's default 1800 s; the 6.2 brief:
    # "Raising the run-interval will directly increase the capacity"; "Reducing the run-interval consequently
    # reduces the capacity". At 900 s: about 1250 (foretune scales in proportion); 6000 agents need about
    # 6000 x 4 / (1250 x 8) x 1800 = 4320 s on this box
    p = plan(product="satellite", version="6.15", hosts=8000, cpus=8, ram_bytes=32 * GIB, puppet_hosts=6000,
             puppet_runinterval=900)
    t = p.tunables["puppet.runinterval"]
    assert (t.installer.value, t.foretune.value, t.differs) == (900, 900, False)  # never pushed to the agents
    assert p.tunables["puppet.hosts_per_capsule"].foretune.value == 1250
    problem = next(q for q in p.problems if q.code == "puppet-hosts-per-capsule")
    assert "at a 900 s runinterval" in problem.message and "a runinterval of about 4320 s" in problem.message
    default = plan(product="satellite", version="6.15", hosts=8000, cpus=8, ram_bytes=32 * GIB, puppet_hosts=2000)
    assert default.tunables["puppet.hosts_per_capsule"].foretune.value == 2500
    assert not [q for q in default.problems if q.code == "puppet-hosts-per-capsule"]


def test_gunicorn_worker_counts_go_to_puppet_pulpcores_own_parameters() -> None:
    # puppet-foreman_proxy_content has pulpcore_worker_count but no *_service_worker_count; the gunicorn counts are
    # puppet-pulpcore's class parameters (pulpcore::api_service_worker_count, pulpcore::content_service_worker_count)
    p = plan(product="satellite", version="6.15", hosts=15000, cpus=16, ram_bytes=64 * GIB)
    assert [f.target for f in p.tunables["pulp.api_workers"].fixes] == ["pulpcore::api_service_worker_count"]
    assert [f.target for f in p.tunables["pulp.content_workers"].fixes] == ["pulpcore::content_service_worker_count"]
