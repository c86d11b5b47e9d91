"""A fix must take effect: a value set where something of higher precedence sets the same key also removes it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from foretune.knowledge import citation
from foretune.knowledge.precedence import installer_order, postgresql_shadow, systemd_shadow
from tests.conftest import REPO, include_conf_d, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"


def finding(name: str, rule: str, *extra: str) -> dict[str, Any]:
    data = json.loads(run_cli("audit", str(SOS / name), *extra, "--format", "json", "--fail-on", "critical").stdout)
    return next(f for f in data["findings"] if f["rule"] == rule)


def texts(f: dict[str, Any]) -> list[str]:
    """A JSON finding's fixes as the other formats show them."""
    return [fix["text"] for fix in f["fixes"]]


def options(f: dict[str, Any]) -> list[str]:
    """Every installer option a JSON finding's fixes pass, with its value: ``--foreman-db-pool 20``."""
    return [f"{o['option']} {o['value']}" for fix in f["fixes"] for o in fix["options"]]


def commands(f: dict[str, Any]) -> list[str]:
    """Every command line of a JSON finding's fixes, in order (comments left out)."""
    return [line for fix in f["fixes"] if fix["command"] for line in fix["command"].splitlines()]


def test_a_limit_set_by_alter_system_is_reset_before_the_hiera_value() -> None:
    """satellite-6.15: postgresql.conf says max_connections = 1000 (the installer's), postgresql.auto.conf says
    max_connections = '200' (ALTER SYSTEM). PostgreSQL 12 docs: "Settings in postgresql.auto.conf override those in
    postgresql.conf", so custom-hiera alone changes nothing; ALTER SYSTEM RESET removes the entry."""
    f = finding("satellite-6.15", "pg-max-connections-below-budget")
    assert (f["status"], f["severity"], f["current"]) == ("fail", "medium", 200)  # a setting with nothing measured: at most medium
    assert commands(f)[0] == "sudo -u postgres psql -c 'ALTER SYSTEM RESET max_connections;'"
    # PostgreSQL docs: max_connections "can only be set at server start"; postgresql.conf already says 1000, so the
    # installer changes nothing and does not restart it: the finding's own fix ends with the restart
    assert commands(f)[-1] == "systemctl restart postgresql"
    assert "ALTER SYSTEM RESET max_connections;" in f["message"]
    # max_connections is read only at start ("(change requires restart)", postgresql.conf.sample), and postgresql.conf
    # already holds 1000, so the installer run restarts nothing: the finding's own fix says to restart (feedback A5)
    assert "systemctl restart postgresql" in commands(f)
    assert "then `systemctl restart postgresql`: max_connections is read only at start" in f["message"]
    assert {"fact": "postgresql", "location": "var/lib/pgsql/data/postgresql.auto.conf",
            "excerpt": "max_connections = '200'"} in f["evidence"]
    assert {"pg-auto-conf-wins", "pg-alter-system-reset"} <= {c["id"] for c in f["citations"]}


def test_a_setting_only_postgresql_conf_sets_gets_no_reset() -> None:
    f = finding("satellite-6.15", "pg-work-mem-low")
    assert f["status"] == "fail" and not any("ALTER SYSTEM" in fix for fix in texts(f))


def test_a_hand_made_override_that_sets_puma_threads_is_named_and_removed() -> None:
    """satellite-6.15: installer.conf (puppet-foreman's drop-in) has FOREMAN_PUMA_THREADS_MIN/MAX=5 and 24 workers,
    database.yml pool 9; a hand-made override.conf sets threads 16/16. systemd.unit(5) reads drop-ins in
    alphanumeric order, so override.conf wins once loaded and the pool stays at the installer's 9 for 5 threads.
    systemd has not loaded it yet (pumactl stats: 5 threads run), so the pool covers what runs and is no finding; the
    drop-in's finding says so. The fix removes override.conf and gives the installer the threads and the pool together."""
    f = finding("satellite-6.15", "puma-dropin-override")  # the file is the root cause, the pool its symptom
    assert (f["status"], f["severity"]) == ("fail", "medium")  # a setting with nothing measured: at most medium
    assert "etc/systemd/system/foreman.service.d/override.conf is a hand-made drop-in" in f["message"]
    # only the Puma lines go, with a copy kept in /root; the file goes when no setting is left in it
    assert commands(f)[0] == (
        "cp -p /etc/systemd/system/foreman.service.d/override.conf /root/foreman.service.d-override.conf && sed -i "
        "-e '\\|^[[:space:]]*Environment=FOREMAN_PUMA_THREADS_MIN=16[[:space:]]*$|d' "
        "-e '\\|^[[:space:]]*Environment=FOREMAN_PUMA_THREADS_MAX=16[[:space:]]*$|d' "
        "/etc/systemd/system/foreman.service.d/override.conf && { grep -q '^[[:space:]]*[^#;[:space:][]' "
        "/etc/systemd/system/foreman.service.d/override.conf || rm /etc/systemd/system/foreman.service.d/override.conf; } "
        "&& systemctl daemon-reload")
    assert "--foreman-foreman-service-puma-threads-max 16" in options(f) and "--foreman-db-pool 20" in options(f)
    assert commands(f)[-1] == "systemctl restart foreman"
    assert {"fact": "puma", "location": "etc/systemd/system/foreman.service.d/override.conf",
            "excerpt": "Environment=FOREMAN_PUMA_THREADS_MIN=16 | Environment=FOREMAN_PUMA_THREADS_MAX=16"} in f["evidence"]
    assert "systemd-dropin-order" in {c["id"] for c in f["citations"]}
    assert "systemd does not run its threads yet (pumactl stats: 5 per worker)" in f["message"]
    assert not f["symptoms"]  # the pool 9 covers the 5 threads that run (foreman-db-pool-too-small passes)
    assert finding("satellite-6.15", "foreman-db-pool-too-small")["status"] == "pass"


def test_the_installer_drop_in_alone_is_no_cause() -> None:
    f = finding("satellite-6.9", "foreman-db-pool-too-small", "--hosts", "7000")  # installer.conf only
    assert f["status"] == "fail" and "the cause is" not in f["message"] and not texts(f)[0].startswith("rm ")


def test_the_precedence_table_is_cited_data() -> None:
    shadow = postgresql_shadow("shared_buffers", [("data/postgresql.conf", "shared_buffers = 4GB"),
                                                  ("data/postgresql.auto.conf", "shared_buffers = '1GB'")])
    assert shadow is not None and shadow.reset == "ALTER SYSTEM RESET shared_buffers;"
    assert all(citation(c).quote for c in shadow.citations)
    later = systemd_shadow("foreman.service", "Environment", [
        ("etc/systemd/system/foreman.service.d/override.conf", "[Service]\nEnvironment=FOREMAN_PUMA_THREADS_MAX=16")],
        owned="installer.conf")
    assert later is not None and later.reset == ("take `Environment=FOREMAN_PUMA_THREADS_MAX=16` out of "
                                                 "/etc/systemd/system/foreman.service.d/override.conf (its other settings stay)")
    assert systemd_shadow("foreman.service", "Environment", [
        ("etc/systemd/system/foreman.service.d/10-mine.conf", "Environment=FOREMAN_PUMA_THREADS_MAX=16")],
        owned="installer.conf") is None  # sorts before installer.conf: the installer's value wins
    assert installer_order() == ["profile", "answers", "custom-hiera"]


def test_an_extra_large_profile_the_installer_refuses_asks_for_hardware_first() -> None:
    """satellite-6.15: 16 CPUs, MemTotal 66924544 kB (63.8 GiB), Foreman 3.9. 30,000 hosts are extra-large's
    (gf-quickstart: large up to 20,000), whose installer check (hooks/pre_commit/13-tuning.rb) needs 32 CPUs and
    128 GiB; large's 16 CPUs and 64 GiB x 0.9 = 57.6 GiB pass here."""
    f = finding("satellite-6.15", "profile-too-small-for-hosts", "--hosts", "30000")
    assert (f["current"], f["recommended"]) == ("medium", "extra-large")
    assert "add hardware first" in f["message"] and "large is the largest profile it accepts here" in f["message"]
    assert texts(f) == ["add hardware to 32 CPUs and 128 GiB, then satellite-installer --tuning extra-large",
                        "satellite-installer --tuning large"]
    assert [fix["kind"] for fix in f["fixes"]] == ["advice", "installer"] and options(f) == ["--tuning large"]


OOM = ("Feb 12 08:14:31 satellite kernel: Out of memory: Killed process 2890 (java) total-vm:9876544kB, "
       "anon-rss:4123456kB, file-rss:0kB, shmem-rss:0kB, UID:91 pgtables:9120kB oom_score_adj:0\n")


def test_no_heap_increase_while_the_kernel_kills_that_java(tmp_path: Path) -> None:
    """The example (Candlepin -Xmx2048m; the medium profile gives 4 GiB) with the kernel OOM-killing java on
    12 February 2024 (the sosreport's date): more heap would only be killed sooner."""
    tree = tmp_path / "sos"
    shutil.copytree(REPO / "examples" / "sosreport-satellite-6.15-mistuned", tree, symlinks=True)
    (tree / "var" / "log").mkdir(parents=True, exist_ok=True)
    (tree / "var" / "log" / "messages").write_text("Feb 12 08:14:30 satellite systemd: Started Session 4 of user root.\n"
                                                   + OOM, encoding="utf-8")
    data = json.loads(run_cli("audit", str(tree), "--format", "json", "--fail-on", "critical").stdout)
    f = next(f for f in data["findings"] if f["rule"] == "candlepin-heap-low")
    assert f["current"] == 2 * 1024**3 and f["recommended"] == "free or add memory first"
    assert "no heap increase" in f["message"] and "2024-02-12T08:14:31" in f["message"]
    assert {"fact": "log_incidents", "location": "var/log/messages", "excerpt": OOM.strip()} in f["evidence"]
    # every other fix needs an installer run, which writes the profile's -Xmx4096m into tomcat.conf: the outputs hold
    # the heap in force (tomcat.conf's -Xmx2048m, -Xms1024m as the profiles give it) in custom-hiera, said in the finding
    assert f["fixes"][0]["file"] == "/etc/foreman-installer/custom-hiera.yaml"
    assert f["fixes"][0]["content"] == "candlepin::java_opts: -Xms1024m -Xmx2048m"
    assert "custom-hiera holds -Xmx 2.0 GiB until then" in f["message"]
    # the advice names the finding the report lists the OOM kills under (memory-budget-over-ram fails on this box's
    # meminfo and swap, and oom-kills is its symptom), never a finding the report does not show (feedback D9)
    shown = {g["rule"] for g in data["findings"] if g["status"] == "fail"}
    assert "(see memory-budget-over-ram)" in texts(f)[-1] and "memory-budget-over-ram" in shown
    out = tmp_path / "out"
    run_cli("audit", str(tree), "--output-dir", str(out), "--format", "json")
    assert yaml.safe_load((out / "custom-hiera.yaml").read_text(encoding="utf-8"))["candlepin::java_opts"] == "-Xms1024m -Xmx2048m"
    assert "Xmx4096m" not in (out / "installer.sh").read_text(encoding="utf-8")


def _flat(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and key == "postgresql::server::config_entries":
            out.update({f"{key}/{k}": v for k, v in value.items()})
        else:
            out[key] = value
    return out


def test_when_the_profile_change_is_the_fix_the_outputs_change_the_profile(tmp_path: Path) -> None:
    """orcharhino-6.9 (Foreman 3.9, declared default, 8 CPUs / 31.8 GiB) with 8000 hosts: the fix is --tuning
    medium (gf-quickstart: default up to 5000; medium's installer check, 8 CPUs and 32 GiB x 0.9, passes). The
    custom-hiera written must not pin what medium gives (tests/profiles_expected/3.9/medium.yaml, read by hand from
    the installer's files): pinned, those keys would win over --tuning medium and every later profile."""
    import yaml

    medium = _flat(yaml.safe_load((REPO / "tests" / "profiles_expected" / "3.9" / "medium.yaml").read_text()))
    result = run_cli("audit", str(SOS / "orcharhino-6.9"), "--hosts", "8000", "--format", "hiera")
    written = _flat(yaml.safe_load(result.stdout) or {})
    assert not {k: v for k, v in written.items() if medium.get(k) == v}
    assert "foreman::foreman_service_puma_workers" not in written
    assert "postgresql::server::config_entries/shared_buffers" not in written
    out = tmp_path / "out"
    run_cli("audit", str(SOS / "orcharhino-6.9"), "--hosts", "8000", "--output-dir", str(out), "--format", "json")
    assert "--tuning medium" in (out / "installer.sh").read_text()


AH00161 = ("[Mon Jun 14 09:01:12.118202 2021] [mpm_prefork:error] [pid 1342] AH00161: server reached MaxRequestWorkers "
           "setting, consider raising the MaxRequestWorkers setting")


def test_a_prefork_pin_below_the_profile_is_removed_and_its_measured_limit_is_critical(tmp_path: Path) -> None:
    """satellite-6.9-prefork (by hand): custom-hiera pins apache::mod::prefork::serverlimit and maxclients at 256
    ("# set by previous admin"); the medium profile of 6.9 gives 1024 for both; httpd's error_log says AH00161 (the
    limit reached). The limit is measured failing: critical, the line quoted. The fix removes the pins, so the
    installer run writes the profile's 1024, instead of pinning 1024 (which would lock out every later --tuning)."""
    source = REPO / "tests" / "fixtures" / "sosreports" / "satellite-6.9-prefork"
    out = tmp_path / "out"
    data = json.loads(run_cli("audit", str(source), "--format", "json", "--output-dir", str(out)).stdout)
    f = next(f for f in data["findings"] if f["rule"] == "apache-prefork-limits-low")
    assert (f["status"], f["severity"], f["basis"], f["current"], f["recommended"]) == ("fail", "critical", "measured", 256, 1024)
    assert {"fact": "log_incidents", "location": "var/log/httpd/error_log", "excerpt": AH00161} in f["evidence"]
    assert texts(f)[0].startswith("# delete apache::mod::prefork::serverlimit, apache::mod::prefork::maxclients from "
                                    "/etc/foreman-installer/custom-hiera.yaml (custom-hiera.yaml pins apache::mod::prefork::serverlimit: 256;")
    # the sed line, then (the same block: one copy button) the installer run that writes the profile's values
    assert commands(f)[0] == ("sed -i.foretune-bak.serverlimit -e '/^apache::mod::prefork::serverlimit:/d' -e '/^apache::mod::prefork::maxclients:/d' "
            "/etc/foreman-installer/custom-hiera.yaml") and commands(f)[-1] == "satellite-installer"
    assert not [x for x in texts(f) if "\napache::mod::prefork::" in x]  # never pinned again
    written = yaml.safe_load((out / "custom-hiera.yaml").read_text(encoding="utf-8")) or {}
    assert not [k for k in written if k.startswith("apache::mod::prefork::")]


def test_candlepin_tomcat_threads_gives_the_server_xml_edit_with_its_caveat() -> None:
    """satellite-6.15: the change set leaves 12 Puma workers (medium's top, down from 24) x 16 threads = 192 against
    puppet-candlepin's literal maxThreads="150" (templates/tomcat/server.xml.erb/.epp at every tag, 0.1.0 to 18.1.0,
    with no parameter for it): no installer option can set it, so the fix is the hand edit of /etc/tomcat/server.xml
    and says that an installer run puts 150 back. The report and APPLY.md give the same 192."""
    f = finding("satellite-6.15", "candlepin-tomcat-threads")
    (fix,) = texts(f)
    assert f["recommended"] == 192 and "Puma's 12 workers x 16 threads the change set leaves = 192 (24 run now)" in f["message"]
    assert 'set maxThreads="192" on the Candlepin HTTPS <Connector> in /etc/tomcat/server.xml' in fix
    assert "systemctl restart tomcat" in fix and "every installer run puts 150 back" in fix
    assert "--" not in fix and "custom-hiera" not in fix  # no installer option or hiera key the module does not have


def test_a_6_2_shared_buffers_raise_raises_kernel_shmmax_first(tmp_path: Path) -> None:
    """satellite-6.2 (PostgreSQL 9.2, 31.8 GiB): shared_buffers 256MB -> 4992MB. PostgreSQL 9.2 asks for shared_buffers
    in one System V segment (mmap came with 9.3), so under kernel.shmmax 4294967295 it would not start: the finding
    raises kernel.shmmax to 6 GiB (4992MB x 1.1 = 5491 MiB, ceil to whole GiB) before the postgresql.conf edit, and
    --output-dir applies the sysctl before the restart. A box whose kernel.shmmax already holds it gets no sysctl."""
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.2", tree, symlinks=True)
    sysctl = tree / "sos_commands/kernel/sysctl_-a"
    sysctl.write_text(sysctl.read_text(encoding="utf-8") + "kernel.shmmax = 4294967295\n", encoding="utf-8")
    data = json.loads(run_cli("audit", str(tree), "--hosts", "8000", "--format", "json", "--fail-on", "critical").stdout)
    f = next(x for x in data["findings"] if x["rule"] == "pg-shared-buffers-out-of-range")
    assert (f["fixes"][0]["file"], f["fixes"][0]["content"]) == ("/etc/sysctl.d/90-foretune.conf", "kernel.shmmax = 6442450944")
    assert "shared_buffers = 4992MB" in texts(f)[1]
    assert "raise kernel.shmmax 4294967295 -> 6442450944 before restarting it" in f["message"]
    assert {"fact": "sysctl", "location": "sos_commands/kernel/sysctl_-a", "excerpt": "kernel.shmmax = 4294967295"} in f["evidence"]
    out = tmp_path / "fixes"
    run_cli("audit", str(tree), "--hosts", "8000", "--output-dir", str(out), "--fail-on", "critical")
    assert "kernel.shmmax = 6442450944" in (out / "sysctl.d" / "90-foretune.conf").read_text(encoding="utf-8")
    steps = (out / "APPLY.md").read_text(encoding="utf-8")
    assert steps.index("sysctl --system") < steps.index("Restart httpd, postgresql")
    sysctl.write_text(sysctl.read_text(encoding="utf-8").replace("kernel.shmmax = 4294967295", "kernel.shmmax = 8589934592"),
                      encoding="utf-8")
    data = json.loads(run_cli("audit", str(tree), "--hosts", "8000", "--format", "json", "--fail-on", "critical").stdout)
    f = next(x for x in data["findings"] if x["rule"] == "pg-shared-buffers-out-of-range")
    assert not any("shmmax" in fix for fix in texts(f)) and "shmmax" not in f["message"]


def test_a_backlog_of_threads_waiting_for_the_pool_points_to_the_pool_not_to_hardware(tmp_path: Path) -> None:
    """satellite-6.15's pumactl stats show 5 threads running per worker on database.yml's pool 9: the backlog is not
    the pool's doing, and the fix is about workers and hardware. With 16 threads running on that pool of 9, up to 7
    per worker wait for a connection: the finding says the pool comes first and does not ask for hardware."""
    assert "pool comes first" not in finding("satellite-6.15", "puma-pool-saturated")["message"]
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15", tree, symlinks=True)
    stats = tree / "sos_commands/foreman/pumactl_stats"
    stats.write_text(stats.read_text(encoding="utf-8").replace('"running": 5', '"running": 16')
                     .replace('"max_threads": 5', '"max_threads": 16'), encoding="utf-8")
    data = json.loads(run_cli("audit", str(tree), "--format", "json", "--fail-on", "critical").stdout)
    f = next(x for x in data["findings"] + [s for x in data["findings"] for s in x["symptoms"]] if x["rule"] == "puma-pool-saturated")
    assert "each worker runs 16 threads on a database pool of 9, so up to 7 of them wait for a connection" in f["message"]
    assert texts(f) == ["fix the database pool first (9 for 16 threads, see foreman-db-pool-too-small); more workers or "
                          "hardware only if the backlog stays after it"]
    assert {"fact": "foreman_db_pool", "location": "etc/foreman/database.yml", "excerpt": "pool: 9"} in f["evidence"]


def test_a_setting_an_included_file_sets_last_is_taken_out_of_that_file_first(tmp_path: Path) -> None:
    """satellite-6.15 plus `include_dir = 'conf.d'` at the end of postgresql.conf and conf.d/90-site.conf with
    work_mem = 2MB: PostgreSQL 12 docs: "If the file contains multiple entries for the same parameter, all but the last
    one are ignored", and an included file is read where its directive stands: the installer's work_mem in
    postgresql.conf never takes effect until that line goes."""
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15", tree, symlinks=True)
    include_conf_d(tree, "90-site.conf", "work_mem = 2MB\n")
    data = json.loads(run_cli("audit", str(tree), "--format", "json", "--fail-on", "critical").stdout)
    f = next(f for f in data["findings"] if f["rule"] == "pg-work-mem-low")
    assert commands(f)[0] == "sed -i '/^[[:space:]]*work_mem[[:space:]]*=/d' /var/lib/pgsql/data/conf.d/90-site.conf"
    assert ("var/lib/pgsql/data/conf.d/90-site.conf, which postgresql.conf includes, sets work_mem = 2MB after "
            "postgresql.conf's own line") in f["message"]
    assert "pg-config-includes" in {c["id"] for c in f["citations"]}


def test_the_reset_of_a_start_only_setting_is_followed_by_the_restart_in_every_format() -> None:
    """The restart comes after the installer run (which restarts PostgreSQL only when it changes postgresql.conf)."""
    text = run_cli("audit", str(SOS / "satellite-6.15-overcommitted"), "--fail-on", "critical").stdout
    block = text[text.index("ALTER SYSTEM RESET max_connections;'"):]
    assert block.index("satellite-installer") < block.index("systemctl restart postgresql") < block.index("see:")
    md = run_cli("audit", str(SOS / "satellite-6.15-overcommitted"), "--format", "markdown", "--fail-on", "critical").stdout
    assert "satellite-installer\nsystemctl restart postgresql\n```" in md


def _sed(command: str, tmp_path: Path, source: Path, backup: str) -> dict[str, Any]:
    """Run ``command`` (a finding's sed line) on a copy of ``source`` and read the result back; the copy of the file
    before is kept as custom-hiera.yaml``backup``."""
    copy = tmp_path / "custom-hiera.yaml"
    shutil.copy(source, copy)
    subprocess.run(command.replace("/etc/foreman-installer/custom-hiera.yaml", str(copy)), shell=True, check=True)
    assert (tmp_path / f"custom-hiera.yaml{backup}").read_text() == source.read_text()
    return yaml.safe_load(copy.read_text()) or {}


def test_a_key_to_delete_is_deleted_by_the_fix_s_command(tmp_path: Path) -> None:
    """The example's custom-hiera.yaml pins foreman::db_pool: 5 (it wins over --foreman-db-pool) and holds the stale
    checkpoint_segments under postgresql::server::config_entries: each fix is a sed line that, run on a copy of the
    file, leaves it without that key and with every other key as it was."""
    source = REPO / "examples" / "sosreport-satellite-6.15-mistuned" / "etc" / "foreman-installer" / "custom-hiera.yaml"
    before = yaml.safe_load(source.read_text())
    data = json.loads(run_cli("audit", str(source.parents[2]), "--format", "json").stdout)
    fixes = {f["rule"]: texts(f) for f in data["findings"]}
    pool = next(x for x in fixes["foreman-db-pool-too-small"] if "sed -i" in x)
    assert pool.splitlines()[0].startswith("# delete foreman::db_pool from /etc/foreman-installer/custom-hiera.yaml")
    after = _sed(pool.splitlines()[-1], tmp_path, source, ".foretune-bak.db_pool")
    assert after == {k: v for k, v in before.items() if k != "foreman::db_pool"}
    stale = fixes["custom-hiera-stale-keys"][0].splitlines()
    assert stale[1].startswith("sed -i.foretune-bak.checkpoint_segments ") and stale[2] == "satellite-installer"
    after = _sed(stale[1], tmp_path, source, ".foretune-bak.checkpoint_segments")
    entries = {k: v for k, v in before["postgresql::server::config_entries"].items() if k != "checkpoint_segments"}
    assert after.get("postgresql::server::config_entries") == (entries or None)
    assert {k: v for k, v in after.items() if k != "postgresql::server::config_entries"} == \
        {k: v for k, v in before.items() if k != "postgresql::server::config_entries"}
def test_puma_threads_go_through_the_installer_option_and_a_value_in_force_is_not_repeated() -> None:
    """examples/sosreport-satellite-6.15-mistuned, by hand: installer.conf has FOREMAN_PUMA_THREADS_MIN=0 and
    FOREMAN_PUMA_THREADS_MAX=16; Satellite 6.15's installer has --foreman-foreman-service-puma-threads-min (and -max).
    The fix raises min through that option; max is already 16, so no line sets it, and none pins
    foreman::foreman_service_puma_threads_max in custom-hiera (which would lock the option out)."""
    data = json.loads(run_cli("audit", str(REPO / "examples/sosreport-satellite-6.15-mistuned"), "--format", "json",
                              "--fail-on", "critical").stdout)
    f = next(s for x in data["findings"] for s in (x, *x["symptoms"]) if s["rule"] == "puma-threads-min-below-max")
    assert texts(f) == ["satellite-installer --foreman-foreman-service-puma-threads-min 16"]
    # satellite-6.9 (installer.conf 0/16, no answers for them): the change set writes both, through the installer's
    # options as on 6.15, never as custom-hiera keys
    g = finding("satellite-6.9", "puma-threads-min-below-max")
    assert options(g) == ["--foreman-foreman-service-puma-threads-min 16", "--foreman-foreman-service-puma-threads-max 16"]


def test_the_pool_and_tomcat_are_sized_for_the_threads_left_once_the_override_is_removed(tmp_path: Path) -> None:
    """satellite-6.15 with the hand-made override.conf at threads 24/24: the fix removes the file and the installer
    writes the plan's 16 threads (guides: "we recommend 16 threads with all the tuning profiles"), so the pool it
    asks for is 16 + 4 = 20 (puppet-foreman 25.0.0's threads + 4 is the plan's), not 24 + 4 = 28, and Tomcat is sized
    for the 12 workers (medium's top) x 16 threads = 192 the change set leaves, not 24 x 24 = 576 (feedback D2/D7)."""
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15", tree, symlinks=True)
    override = tree / "etc/systemd/system/foreman.service.d/override.conf"
    override.write_text(override.read_text().replace("=16", "=24"))
    # systemd runs the file's 24 threads (by hand: systemctl show; no pumactl stats, whose 5 threads predate it)
    show = tree / "sos_commands/systemd/systemctl_show_service_--all"
    show.write_text(show.read_text().replace("FOREMAN_PUMA_THREADS_MIN=5 FOREMAN_PUMA_THREADS_MAX=5",
                                             "FOREMAN_PUMA_THREADS_MIN=24 FOREMAN_PUMA_THREADS_MAX=24"))
    (tree / "sos_commands/foreman/pumactl_stats").unlink()
    data = json.loads(run_cli("audit", str(tree), "--format", "json", "--fail-on", "critical").stdout)
    found = {f["rule"]: f for f in data["findings"]}
    root = found["puma-dropin-override"]
    pool = next(s for s in root["symptoms"] if s["rule"] == "foreman-db-pool-too-small")
    assert pool["recommended"] == 20 and "--foreman-db-pool 20" in options(root)
    assert not any("--foreman-db-pool 28" in fix for fix in (*texts(root), *texts(pool)))
    assert commands(root)[0].startswith("cp -p /etc/systemd/system/foreman.service.d/override.conf "
                                        "/root/foreman.service.d-override.conf && sed -i ")
    tomcat = found["candlepin-tomcat-threads"]
    assert tomcat["recommended"] == 192 and "12 workers x 16 threads the change set leaves = 192" in tomcat["message"]


def test_the_hiera_output_names_the_profile_the_report_moves_to() -> None:
    """satellite-6.15-profile-too-small: 28000 hosts would need extra-large (20001-60000), which the installer's
    hardware check refuses on this box (it asks 32 CPUs and 128 GiB); the report moves to large, the largest it accepts. The hiera output says the
    same profile (an installer option, not a hiera key), never that the declared profile is "kept" (feedback D3)."""
    hiera = run_cli("audit", str(SOS / "satellite-6.15-profile-too-small"), "--format", "hiera").stdout
    assert "# foretune: --tuning large (the installer applies it: installer.sh), not extra-large: " in hiera
    assert "kept --tuning" not in hiera


def test_two_key_deletions_pasted_one_after_the_other_keep_the_file_as_it_was(tmp_path: Path) -> None:
    """The example's two sed fixes (foreman::db_pool, then the stale checkpoint_segments) run on one copy: each keeps
    its own backup, so the first one's still holds the file as it was before either (one shared name would have been
    overwritten by the second with the file already edited once)."""
    source = REPO / "examples" / "sosreport-satellite-6.15-mistuned" / "etc" / "foreman-installer" / "custom-hiera.yaml"
    data = json.loads(run_cli("audit", str(source.parents[2]), "--format", "json").stdout)
    fixes = {f["rule"]: texts(f) for f in data["findings"]}
    pool = next(x for x in fixes["foreman-db-pool-too-small"] if "sed -i" in x).splitlines()[-1]
    stale = fixes["custom-hiera-stale-keys"][0].splitlines()[1]
    copy = tmp_path / "custom-hiera.yaml"
    shutil.copy(source, copy)
    for command in (pool, stale):
        subprocess.run(command.replace("/etc/foreman-installer/custom-hiera.yaml", str(copy)), shell=True, check=True)
    assert (tmp_path / "custom-hiera.yaml.foretune-bak.db_pool").read_text() == source.read_text()
    assert (yaml.safe_load(copy.read_text()) or {}) == {}  # both keys gone, the comments kept


FIXTURES = [*sorted(p for p in SOS.iterdir() if p.is_dir()), REPO / "examples" / "sosreport-satellite-6.15-mistuned"]


@pytest.mark.parametrize("hosts", [None, "2000", "60000"], ids=["no-context", "2000", "60000"])
@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
def test_every_high_or_critical_finding_carries_a_fix(source: Path, hosts: str | None) -> None:
    # a finding that says high or critical tells the admin what to do about it: at least one fix line (its own or,
    # for a symptom, its root cause's), never a verdict alone
    result = run_cli("audit", str(source), *(("--hosts", hosts) if hosts else ()), "--format", "json", "--fail-on", "critical")
    assert result.status in (0, 1), result.stderr
    bare = [(f["rule"], f["severity"]) for f in json.loads(result.stdout)["findings"]
            if f["status"] == "fail" and f["severity"] in ("high", "critical") and not f["fixes"]]
    assert bare == []


def test_postgresql_refusing_clients_the_budget_explains_not_still_has_a_fix(tmp_path: Path) -> None:
    # satellite-6.15-tuned with PostgreSQL logging "sorry, too many clients already" (by hand) while its
    # max_connections 1000 covers what the services may open: critical (measured), and the fix finds who holds the
    # slots (pg_stat_activity) to end or cap them; no max_connections figure is guessed
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15-tuned", tree, symlinks=True)
    (tree / "var/lib/pgsql/data/log").mkdir()
    (tree / "var/lib/pgsql/data/log/postgresql-Mon.log").write_text(
        "2024-02-12 08:01:02 UTC FATAL:  sorry, too many clients already\n"
        "2024-02-12 08:01:05 UTC FATAL:  sorry, too many clients already\n", encoding="utf-8")
    result = run_cli("audit", str(tree), "--format", "json", "--fail-on", "critical")
    found = {f["rule"]: f for f in json.loads(result.stdout)["findings"] if f["status"] == "fail"}
    refused = found["pg-connection-exhaustion"]
    assert refused["severity"] == "critical" and refused["current"] == 1000
    assert len(refused["fixes"]) == 1 and "FROM pg_stat_activity GROUP BY" in refused["fixes"][0]["text"]
    assert not [p for p in refused["recommends"] if p["tunable"].endswith("max_connections")]
