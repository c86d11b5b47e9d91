"""One problem, one finding: failures of one root cause are one finding with its symptoms under it.

Which rule's failure is a symptom of which is rule metadata (``symptom_of``); a symptom joins only a failing root
cause that quotes the same log lines. Expected groups written by hand from each fixture's files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from foretune.rules.base import Basis
from foretune.rules.registry import all_rules
from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"
HTTPD_LINE = "Jun  7 02:58:31 sat69 httpd[29810]: (24)Too many open files: AH00015: Unable to open logs"


def failing(source: Path, *extra: str) -> dict[str, dict[str, Any]]:
    result = run_cli("audit", str(source), *extra, "--format", "json", "--fail-on", "critical")
    return {f["rule"]: f for f in json.loads(result.stdout)["findings"] if f["status"] == "fail"}


def systemd_runs_the_dropin(source: Path, tree: Path, stats: bool = True) -> Path:
    """A copy of ``source`` whose running Foreman has loaded override.conf's 16 threads (by hand: systemctl show and
    pumactl stats say 16, where the fixture's say 5: systemd had not loaded the file when the sosreport ran);
    without pumactl stats when not ``stats`` (satellite-6.15's show a backlog, which joins a pool short of them)."""
    shutil.copytree(source, tree, symlinks=True)
    show = tree / "sos_commands/systemd/systemctl_show_service_--all"
    text = show.read_text(encoding="utf-8")
    assert "FOREMAN_PUMA_THREADS_MIN=5 FOREMAN_PUMA_THREADS_MAX=5" in text
    show.write_text(text.replace("FOREMAN_PUMA_THREADS_MIN=5 FOREMAN_PUMA_THREADS_MAX=5",
                                 "FOREMAN_PUMA_THREADS_MIN=16 FOREMAN_PUMA_THREADS_MAX=16"), encoding="utf-8")
    pumactl = tree / "sos_commands/foreman/pumactl_stats"
    if pumactl.exists() and not stats:
        pumactl.unlink()
    elif pumactl.exists():
        pumactl.write_text(pumactl.read_text(encoding="utf-8").replace('"running": 5', '"running": 16')
                           .replace('"max_threads": 5', '"max_threads": 16'), encoding="utf-8")
    return tree


def test_httpd_descriptors_and_their_log_lines_are_one_finding() -> None:
    # satellite-6.9: httpd LimitNOFILE 1024 in force, and var/log/messages-20210613 shows httpd failing with
    # "(24)Too many open files": the limit is the cause, the log lines its symptom
    for extra in ((), ("--hosts", "7000")):
        found = failing(SOS / "satellite-6.9", *extra)
        assert "open-files-exhausted" not in found
        root = found["httpd-nofile-low"]
        assert (root["severity"], root["basis"], root["current"]) == ("critical", "measured", 1024)
        assert [s["rule"] for s in root["symptoms"]] == ["open-files-exhausted"]
        assert HTTPD_LINE in root["symptoms"][0]["message"]


def test_every_format_shows_the_symptom_under_its_cause() -> None:
    source = str(SOS / "satellite-6.9")
    text = run_cli("audit", source, "--fail-on", "critical").stdout
    assert text.index("httpd-nofile-low (apache):") < text.index("symptom: open-files-exhausted (critical)")
    assert text.count("open-files-exhausted") == 1
    markdown = run_cli("audit", source, "--format", "markdown", "--fail-on", "critical").stdout
    section = markdown.split("### httpd-nofile-low", 1)[1].split("\n### ", 1)[0]
    assert "- symptom: `open-files-exhausted` (critical)" in section
    html = run_cli("audit", source, "--format", "html", "--fail-on", "critical").stdout
    block = html.split('<details id="httpd-nofile-low"', 1)[1].split("</details>", 1)[0]
    assert "Symptoms of the same cause" in block and "<code>open-files-exhausted</code>" in block


def test_a_symptom_of_another_service_stays_its_own_finding() -> None:
    # capsule-6.15-measured-failure: mosquitto ran out of sockets, but its limit is the installer's 65536
    # (mosquitto-nofile-low passes) and httpd's limit fails with nothing measured: no root cause quotes the line
    found = failing(SOS / "capsule-6.15-measured-failure")
    assert found["open-files-exhausted"]["severity"] == "critical" and not found["open-files-exhausted"]["symptoms"]
    assert all(not f["symptoms"] for f in found.values())


PG_LOG = """2024-02-12 08:01:02 UTC FATAL:  sorry, too many clients already
2024-02-12 08:01:05 UTC FATAL:  sorry, too many clients already
"""
PRODUCTION_LOG = """2024-02-12T08:01:01 [I|app|cccc0003] Processing by HostsController#index as HTML
2024-02-12T08:01:01 [W|app|cccc0003] Action failed
 cccc0003 | ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool within 5.000 seconds
2024-02-12T08:01:06 [I|app|cccc0003] Completed 500 Internal Server Error in 5003ms (ActiveRecord: 0.0ms | Allocations: 800)
"""


def test_postgresql_exhaustion_is_one_finding_per_cause(tmp_path: Path) -> None:
    # satellite-6.15: postgresql.auto.conf's max_connections '200' under the services' 299, and override.conf's
    # FOREMAN_PUMA_THREADS_MAX=16 over database.yml's pool 9 (16 + 4 = 20 needed); the logs then show PostgreSQL
    # refusing clients and Rails' pool timing out. Two root causes, each with its symptoms, never four criticals:
    # the server's limit (ALTER SYSTEM) with "too many clients" under it, and the hand-made drop-in with the pool it
    # leaves behind and the pool's ConnectionTimeoutError under it. Each says why the other is a separate problem.
    # systemd runs override.conf's 16 threads (systemctl show, pumactl stats: by hand, systemd_runs_the_dropin)
    tree = systemd_runs_the_dropin(SOS / "satellite-6.15", tmp_path / "sos", stats=False)
    (tree / "var/lib/pgsql/data/log").mkdir()
    (tree / "var/lib/pgsql/data/log/postgresql-Mon.log").write_text(PG_LOG, encoding="utf-8")
    (tree / "var/log/foreman").mkdir(parents=True)
    (tree / "var/log/foreman/production.log").write_text(PRODUCTION_LOG, encoding="utf-8")
    found = failing(tree)
    assert not {"pg-connection-exhaustion", "foreman-db-pool-timeout", "foreman-db-pool-too-small"} & set(found)
    limit, dropin = found["pg-max-connections-below-budget"], found["puma-dropin-override"]
    assert (limit["severity"], limit["current"]) == ("critical", 200)
    assert [s["rule"] for s in limit["symptoms"]] == ["pg-connection-exhaustion"]
    assert "sorry, too many clients already" in limit["symptoms"][0]["message"]
    assert dropin["severity"] == "critical"
    assert sorted(s["rule"] for s in dropin["symptoms"]) == ["foreman-db-pool-timeout", "foreman-db-pool-too-small"]
    pool = next(s for s in dropin["symptoms"] if s["rule"] == "foreman-db-pool-too-small")
    assert (pool["current"], pool["recommended"]) == (9, 20)
    criticals = sorted(r for r, f in found.items() if f["severity"] == "critical")
    assert criticals == ["pg-max-connections-below-budget", "puma-dropin-override"]
    # genuinely separate causes say why, naming each other
    assert ("a separate problem from puma-dropin-override (foreman-db-pool-too-small under it): PostgreSQL refuses a "
            "new connection once max_connections are open") in limit["message"]
    assert "a separate problem from pg-max-connections-below-budget: a Puma thread waits for a slot" in dropin["message"]


def test_refused_clients_the_budget_explains_are_one_finding_with_the_limit(tmp_path: Path) -> None:
    # satellite-6.15-tuned (max_connections 1000 in postgresql.conf, pool 9 for 5 threads) with an ALTER SYSTEM
    # max_connections '100' (by hand) and PostgreSQL logging "too many clients": one exhaustion, one critical finding
    # (the limit, with the refusals under it), fixed by the reset; no pool finding, so nothing to say is separate
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15-tuned", tree, symlinks=True)
    auto = tree / "var/lib/pgsql/data/postgresql.auto.conf"
    auto.write_text(auto.read_text(encoding="utf-8") + "max_connections = '100'\n", encoding="utf-8")
    (tree / "var/lib/pgsql/data/log").mkdir()
    (tree / "var/lib/pgsql/data/log/postgresql-Mon.log").write_text(PG_LOG, encoding="utf-8")
    found = failing(tree)
    criticals = sorted(r for r, f in found.items() if f["severity"] in ("high", "critical"))
    assert criticals == ["pg-max-connections-below-budget"]
    limit = found["pg-max-connections-below-budget"]
    assert [s["rule"] for s in limit["symptoms"]] == ["pg-connection-exhaustion"]
    assert "sudo -u postgres psql -c 'ALTER SYSTEM RESET max_connections;'" in limit["fixes"][0]["text"]
    assert "a separate problem" not in limit["message"]


# roots whose symptoms join them by quoting the same configuration file's lines (the drop-in that sets them)
BY_FILE = {"puma-dropin-override"}


def test_root_cause_relations_are_rule_metadata() -> None:
    rules = {r.id: r for r in all_rules()}
    for rule in rules.values():
        for root in rule.symptom_of:
            assert root in rules and root != rule.id, (rule.id, root)
            # a root shares log lines with its symptoms, or (a hand-made drop-in) the lines of the file it names
            assert rules[root].failing_when or rules[root].basis == Basis.MEASURED or root in BY_FILE, \
                f"{root} quotes no log lines a symptom could share"
            assert root not in BY_FILE or dict(rule.symptom_facts).get(root) == ("puma",), (rule.id, root)
    # no cycle: following symptom_of from any rule never leads back to it (audit.combine lists every symptom under the
    # root that is no symptom itself, one level in the report)
    for rule in rules.values():
        seen: set[str] = set()
        todo = list(rule.symptom_of)
        while todo:
            root = todo.pop()
            assert root != rule.id, (rule.id, root)
            if root not in seen:
                seen.add(root)
                todo += list(rules[root].symptom_of)
    assert "httpd-nofile-low" in rules["open-files-exhausted"].symptom_of
    assert rules["pg-connection-exhaustion"].symptom_of == ("pg-max-connections-below-budget",)


OOM_RUBY = ("May 13 08:40:01 sat615b kernel: Out of memory: Killed process 5117 (ruby) total-vm:3321448kB, "
            "anon-rss:1612432kB, file-rss:0kB, shmem-rss:0kB, UID:989 pgtables:4312kB oom_score_adj:0")


def test_puma_workers_over_the_ram_are_one_problem_with_their_symptoms() -> None:
    # satellite-6.15-overcommitted, by hand: custom-hiera pins 24 Puma workers (medium's guide range is 8-12) on
    # MemTotal 32652268 kB with MemAvailable 1183120 kB, 6.0 GiB of 8.0 GiB swap in use (SwapFree 2120316 kB), and the
    # kernel killed one ruby (var/log/messages). One cause: the Puma workers the RAM cannot hold. The memory budget,
    # the OOM kill, swap and the worker count outside the guide's range are listed under it, never beside it.
    found = failing(SOS / "satellite-6.15-overcommitted")
    root = found["puma-workers-over-ram-budget"]
    assert (root["severity"], root["current"], root["recommended"]) == ("critical", 24, 12)
    assert sorted(s["rule"] for s in root["symptoms"]) == [
        "memory-budget-over-ram", "oom-kills", "puma-workers-outside-range", "swap-in-use"]
    assert not {"memory-budget-over-ram", "oom-kills", "puma-workers-outside-range", "swap-in-use"} & set(found)
    quoting = [rule for rule, f in found.items() if any(e["excerpt"] == OOM_RUBY for e in f["evidence"])]
    assert quoting == ["puma-workers-over-ram-budget"]  # the OOM line is quoted by one finding of the report


def test_puma_backlog_is_a_symptom_of_the_database_pool(tmp_path: Path) -> None:
    # satellite-6.15 with pumactl_stats showing 16 threads running per worker (max_threads 16, as override.conf's
    # FOREMAN_PUMA_THREADS_MAX=16 sets), by hand: etc/foreman/database.yml pool 9, so up to 7 threads per worker wait
    # for a connection; 24 workers, each backlog 2 and pool_capacity 0 (48 waiting). Threads that wait for a
    # connection hold their request: the backlog is the pool's symptom, and the pool override.conf's (the threads it
    # sets leave the pool behind): one finding, the drop-in's (high: the backlog is measured), never a HIGH beside it.
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15", tree, symlinks=True)
    stats = tree / "sos_commands/foreman/pumactl_stats"
    stats.write_text(stats.read_text(encoding="utf-8").replace('"running": 5', '"running": 16')
                     .replace('"max_threads": 5', '"max_threads": 16'), encoding="utf-8")
    for extra in ((), ("--hosts", "4200")):
        found = failing(tree, *extra)
        assert not {"puma-pool-saturated", "foreman-db-pool-too-small"} & set(found)
        root = found["puma-dropin-override"]
        assert (root["severity"], root["basis"]) == ("high", "measured")
        pool = next(s for s in root["symptoms"] if s["rule"] == "foreman-db-pool-too-small")
        assert (pool["current"], pool["recommended"]) == (9, 20)
        backlog = [s for s in root["symptoms"] if s["rule"] == "puma-pool-saturated"]
        assert len(backlog) == 1 and backlog[0]["current"] == 48
        assert "the pool comes first (foreman-db-pool-too-small)" in backlog[0]["message"]


def test_puma_backlog_the_pool_does_not_cause_stays_its_own_finding() -> None:
    # plain satellite-6.15: pumactl_stats shows 5 threads running per worker on the pool of 9 (the override's 16 are
    # not running yet): no thread waits for a connection, so the backlog is not the pool's, though both findings quote
    # the same foreman.service drop-ins. The pool covers the 5 threads that run: no pool finding (it was listed under
    # the drop-in for the file's 16 before); the drop-in's finding says its 16 would leave the pool behind once loaded
    found = failing(SOS / "satellite-6.15")
    assert (found["puma-pool-saturated"]["severity"], found["puma-pool-saturated"]["current"]) == ("high", 48)
    assert "foreman-db-pool-too-small" not in found
    dropin = found["puma-dropin-override"]
    assert [s["rule"] for s in dropin["symptoms"]] == []
    assert ("systemd does not run its threads yet (pumactl stats: 5 per worker), but once it loads the file (a "
            "daemon-reload, a reboot) the Rails pool the installer sized for its own threads stays behind: database.yml "
            "pool 9 for the 16 threads this file sets + 4 = 20 connections each worker needs") in dropin["message"]
    assert dropin["severity"] == "medium"


def test_a_profile_too_small_is_one_finding_with_its_consequences(tmp_path: Path) -> None:
    # satellite-6.15-profile-too-small on hardware the extra-large profile accepts (by hand: lscpu 32 CPUs, MemTotal
    # 131808964 kB = 125.7 GiB >= 90 % of 128 GiB), medium declared, 28000 hosts counted (extra-large: 30000+ hosts
    # is the guide's; 28000 > large's range). The medium profile's Candlepin -Xmx4096m and work_mem 4MB are what
    # --tuning extra-large replaces (-Xmx8192m, work_mem 8MB): consequences listed under the profile finding, not
    # findings of their own. sidekiq-too-few-instances (its own installer option) and hammer's timeout stay apart.
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15-profile-too-small", tree, symlinks=True)
    lscpu = tree / "sos_commands/processor/lscpu"
    lscpu.write_text(lscpu.read_text(encoding="utf-8").replace("CPU(s):              16", "CPU(s):              32")
                     .replace("Core(s) per socket:  8", "Core(s) per socket:  16"), encoding="utf-8")
    meminfo = tree / "proc/meminfo"
    lines = meminfo.read_text(encoding="utf-8").splitlines()
    lines = ["MemTotal:       131808964 kB" if x.startswith("MemTotal:") else
             "MemAvailable:   98000000 kB" if x.startswith("MemAvailable:") else x for x in lines]
    meminfo.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for extra in ((), ("--hosts", "28000")):
        found = failing(tree, *extra)
        root = found["profile-too-small-for-hosts"]
        assert (root["current"], root["recommended"]) == ("medium", "extra-large")
        assert sorted(s["rule"] for s in root["symptoms"]) == ["candlepin-heap-low", "pg-work-mem-low"]
        assert not {"candlepin-heap-low", "pg-work-mem-low"} & set(found)
        # the root's medium (the heap -Xmx4096m is the declared medium profile's own value: low, as every installer value)
        assert root["severity"] == "medium"
        assert {"sidekiq-too-few-instances", "hammer-timeout-at-scale"} <= set(found)
        text = run_cli("audit", str(tree), *extra, "--fail-on", "critical").stdout
        assert text.count("candlepin-heap-low") == 1 and "symptom: candlepin-heap-low (low)" in text


def test_one_full_passenger_queue_is_one_finding(tmp_path: Path) -> None:
    # satellite-6.2 with PassengerMaxRequestQueueSize 100 (the brief's 6.2 plan gives 200 here) and passenger-status
    # showing "Requests in queue: 100" for Foreman: the queue is at its limit, so requests get 503 now. One
    # saturation, one critical: passenger-queue-too-small with passenger-queue-saturated listed under it.
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.2", tree, symlinks=True)
    conf = tree / "etc/httpd/conf.d/passenger.conf"
    conf.write_text(conf.read_text(encoding="utf-8").replace("PassengerMaxRequestQueueSize 250",
                                                             "PassengerMaxRequestQueueSize 100"), encoding="utf-8")
    pool = tree / "sos_commands/foreman/foreman-debug/passenger_status_pool"
    pool.write_text(pool.read_text(encoding="utf-8").replace("Requests in queue: 250", "Requests in queue: 100"),
                    encoding="utf-8")
    found = failing(tree)
    criticals = sorted(r for r, f in found.items() if f["severity"] == "critical")
    assert criticals == ["passenger-queue-too-small"]
    root = found["passenger-queue-too-small"]
    assert (root["current"], root["recommended"]) == (100, 200)
    assert [s["rule"] for s in root["symptoms"]] == ["passenger-queue-saturated"]
    assert "passenger-queue-saturated" not in found


def test_oom_kills_counted_only_by_vmstat_join_the_memory_root(tmp_path: Path) -> None:
    # satellite-6.15-overcommitted with its OOM-kill lines taken out of var/log/messages and proc/vmstat added by hand
    # ("pswpin 912345", "pswpout 1823456", "oom_kill 1"): the kernel's counter is the same measured failure as the
    # logged kill, so oom-kills is listed under the Puma workers the RAM cannot hold (whose evidence quotes the
    # counter among vmstat's lines), and that root is critical, as with the log line
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15-overcommitted", tree, symlinks=True)
    messages = tree / "var/log/messages"
    kept = [x for x in messages.read_text(encoding="utf-8").splitlines() if "Killed process" not in x and "Out of memory" not in x]
    messages.write_text("\n".join(kept) + "\n", encoding="utf-8")
    (tree / "proc/vmstat").write_text("pswpin 912345\npswpout 1823456\noom_kill 1\n", encoding="utf-8")
    found = failing(tree)
    assert "oom-kills" not in found
    root = found["puma-workers-over-ram-budget"]
    assert root["severity"] == "critical" and "oom-kills" in [s["rule"] for s in root["symptoms"]]
    assert {"location": "proc/vmstat", "excerpt": "pswpin 912345 | pswpout 1823456 | oom_kill 1", "fact": "memory_pressure"} \
        in root["evidence"]


def test_puma_workers_that_did_not_boot_on_a_box_short_of_ram_join_the_memory_root(tmp_path: Path) -> None:
    # satellite-6.15-overcommitted (24 Puma workers pinned on 31.1 GiB, a ruby OOM-killed) with pumactl_stats saying
    # "booted_workers": 22 of 24 (by hand): workers that crash on a box whose kernel kills rails are the RAM root
    # cause's symptom, one finding; the old 24 workers' connection budget is no finding of its own either
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15-overcommitted", tree, symlinks=True)
    stats = tree / "sos_commands/foreman/pumactl_stats"
    stats.write_text(stats.read_text(encoding="utf-8").replace('"booted_workers": 24', '"booted_workers": 22', 1),
                     encoding="utf-8")
    found = failing(tree)
    assert "puma-pool-saturated" not in found
    root = found["puma-workers-over-ram-budget"]
    assert "puma-pool-saturated" in [s["rule"] for s in root["symptoms"]]


DROPIN = "etc/systemd/system/foreman.service.d/override.conf"
DROPIN_LINES = "Environment=FOREMAN_PUMA_THREADS_MIN=16 | Environment=FOREMAN_PUMA_THREADS_MAX=16"


def test_a_hand_made_dropin_that_leaves_the_pool_behind_is_one_finding(tmp_path: Path) -> None:
    # satellite-6.15-dropin: satellite-6.15-tuned (installer.conf FOREMAN_PUMA_THREADS_MIN/MAX=5, WORKERS=12;
    # database.yml pool 9 = 5 + 4) with override.conf, written by hand as `systemctl edit foreman` leaves it:
    # "Environment=FOREMAN_PUMA_THREADS_MIN=16" and "...MAX=16". systemd reads override.conf after installer.conf, so
    # 16 threads run on a pool of 9 (16 + 4 = 20 needed). One finding names the file as the root cause, with the
    # pool shortfall listed under it, and one fix that takes effect: remove the file, daemon-reload, the installer
    # with the threads and the pool (16, 16, 20), then restart foreman (the installer restarts it only when
    # installer.conf changes). Medium: configuration, nothing measured.
    source = systemd_runs_the_dropin(SOS / "satellite-6.15-dropin", tmp_path / "sos")  # 16 threads run
    for extra in ((), ("--hosts", "9000")):
        found = failing(source, *extra)
        assert "foreman-db-pool-too-small" not in found
        root = found["puma-dropin-override"]
        assert (root["severity"], root["basis"]) == ("medium", "config")
        assert f"{DROPIN} is a hand-made drop-in read after the installer's installer.conf" in root["message"]
        assert "This file is the root cause" in root["message"]
        assert {"location": DROPIN, "excerpt": DROPIN_LINES, "fact": "puma"} in root["evidence"]
        assert [s["rule"] for s in root["symptoms"]] == ["foreman-db-pool-too-small"]
        pool = root["symptoms"][0]
        assert (pool["current"], pool["recommended"]) == (9, 20)
        assert "the cause is" not in pool["message"]  # the root names the file, once
        assert not pool["fixes"]  # every fix line is the root's
        commands = [line for fix in root["fixes"] if fix["command"] for line in fix["command"].splitlines()]
        assert commands[0].startswith("cp -p /etc/systemd/system/foreman.service.d/override.conf "
                                      "/root/foreman.service.d-override.conf && sed -i ")
        assert commands[-1] == "systemctl restart foreman"
        assert [f"{o['option']} {o['value']}" for fix in root["fixes"] for o in fix["options"]] == [
            "--foreman-foreman-service-puma-threads-min 16", "--foreman-foreman-service-puma-threads-max 16",
            "--foreman-db-pool 20"]
        medium_up = sorted(r for r, f in found.items() if f["severity"] in ("medium", "high", "critical"))
        assert medium_up == ["puma-dropin-override"]
    text = run_cli("audit", str(source), "--fail-on", "critical").stdout
    assert text.count("symptom: foreman-db-pool-too-small (medium)") == 1 and "  foreman-db-pool-too-small (" not in text
    assert ("satellite-installer --foreman-foreman-service-puma-threads-min 16 --foreman-foreman-service-puma-threads-max 16 "
            "--foreman-db-pool 20") in text


def test_a_dropin_whose_pool_times_out_is_critical_with_the_timeouts_under_it(tmp_path: Path) -> None:
    # satellite-6.15-dropin with production.log showing the pool timing out twice (by hand): measured failure, so the
    # drop-in's finding is critical, and the timeouts are listed under it with the pool, not beside it
    tree = systemd_runs_the_dropin(SOS / "satellite-6.15-dropin", tmp_path / "sos")  # 16 threads run
    (tree / "var/log/foreman").mkdir(parents=True)
    (tree / "var/log/foreman/production.log").write_text(PRODUCTION_LOG + PRODUCTION_LOG.replace("08:01:0", "08:02:0"),
                                                         encoding="utf-8")
    found = failing(tree)
    assert not {"foreman-db-pool-too-small", "foreman-db-pool-timeout"} & set(found)
    root = found["puma-dropin-override"]
    assert (root["severity"], root["basis"]) == ("critical", "measured")
    assert sorted(s["rule"] for s in root["symptoms"]) == ["foreman-db-pool-timeout", "foreman-db-pool-too-small"]


def test_a_dropin_that_sets_only_the_threads_is_not_the_cause_of_the_worker_count(tmp_path: Path) -> None:
    # satellite-6.15: installer.conf FOREMAN_PUMA_WORKERS=24 (outside medium's 8-12) and override.conf setting only
    # the threads: the worker count is not the drop-in's doing, so puma-workers-outside-range stays its own finding
    # and neither quotes override.conf nor names it as its cause
    found = failing(systemd_runs_the_dropin(SOS / "satellite-6.15", tmp_path / "sos", stats=False))  # 16 threads run
    workers = found["puma-workers-outside-range"]
    assert "override.conf" not in workers["message"]
    assert all("override.conf" not in e["location"] for e in workers["evidence"])
    assert [s["rule"] for s in found["puma-dropin-override"]["symptoms"]] == ["foreman-db-pool-too-small"]


def test_a_dropin_that_sets_the_workers_takes_the_worker_finding(tmp_path: Path) -> None:
    # satellite-6.15-dropin with override.conf also setting FOREMAN_PUMA_WORKERS=24 (by hand; medium's guide range
    # is 8-12): the worker count outside the range is the file's doing too, listed under it
    # systemd runs the file's 16 threads and 24 workers (systemctl show; pumactl stats of 12 x 5 removed)
    tree = systemd_runs_the_dropin(SOS / "satellite-6.15-dropin", tmp_path / "sos", stats=False)
    dropin = tree / DROPIN
    dropin.write_text(dropin.read_text(encoding="utf-8") + "Environment=FOREMAN_PUMA_WORKERS=24\n", encoding="utf-8")
    found = failing(tree)
    assert "puma-workers-outside-range" not in found
    root = found["puma-dropin-override"]
    assert sorted(s["rule"] for s in root["symptoms"]) == ["foreman-db-pool-too-small", "puma-workers-outside-range"]
    assert "--foreman-foreman-service-puma-workers 12" in " ".join(fix["text"] for fix in root["fixes"])


def test_pool_timeouts_with_a_pool_that_covers_its_threads_join_postgresql_refusing_clients(tmp_path: Path) -> None:
    # satellite-6.15-tuned (Puma 5 threads, database.yml pool 9 = 5 + 4, the installer's own value) with, by hand,
    # ALTER SYSTEM max_connections '200' in postgresql.auto.conf, PostgreSQL logging "sorry, too many clients already"
    # and production.log two ConnectionTimeoutError lines in the same minutes. The pool covers its threads, so the
    # timeouts are PostgreSQL's limit running out: one critical finding (the limit, fixed by ALTER SYSTEM RESET) with
    # the timeouts under it, never a pool raise (20 for 5 threads would open more connections).
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15-tuned", tree, symlinks=True)
    auto = tree / "var/lib/pgsql/data/postgresql.auto.conf"
    auto.write_text(auto.read_text(encoding="utf-8") + "max_connections = '200'\n", encoding="utf-8")
    (tree / "var/lib/pgsql/data/log").mkdir()
    (tree / "var/lib/pgsql/data/log/postgresql-Mon.log").write_text(PG_LOG, encoding="utf-8")
    (tree / "var/log/foreman").mkdir(parents=True)
    (tree / "var/log/foreman/production.log").write_text(PRODUCTION_LOG + PRODUCTION_LOG.replace("08:01:0", "08:02:0"),
                                                         encoding="utf-8")
    found = failing(tree)
    # the 12 workers x pool 9 and the other services fit 200 (pg-max-connections-below-budget passes), so the refusals
    # are the root: max_connections 200 below the 1000 the medium profile writes
    loud = sorted(r for r, f in found.items() if f["severity"] in ("medium", "high", "critical"))
    assert loud == ["pg-connection-exhaustion"]
    assert "foreman-db-pool-timeout" not in found
    limit = found["pg-connection-exhaustion"]
    assert (limit["current"], limit["recommended"]) == (200, 1000)
    assert [s["rule"] for s in limit["symptoms"]] == ["foreman-db-pool-timeout"]
    timeout = next(s for s in limit["symptoms"] if s["rule"] == "foreman-db-pool-timeout")
    assert timeout["recommended"] == "no pool change: 9 covers the threads"
    assert "pool 9 covers the 5 Puma threads in force + 4" in timeout["message"]
    assert "sudo -u postgres psql -c 'ALTER SYSTEM RESET max_connections;'" in limit["fixes"][0]["text"]
    assert not [pair for f in (limit, *limit["symptoms"]) for pair in f["recommends"] if pair["tunable"] == "foreman::db_pool"]


def test_two_connection_findings_with_nothing_measured_say_nothing_of_log_lines() -> None:
    # plain satellite-6.15: no PostgreSQL or production.log in the source; the ALTER SYSTEM limit and the drop-in's
    # pool are configuration risks only, so neither explains itself by 'too many clients' or ConnectionTimeoutError
    found = failing(SOS / "satellite-6.15")
    for rule in ("pg-max-connections-below-budget", "puma-dropin-override"):
        assert "a separate problem from" not in found[rule]["message"]
