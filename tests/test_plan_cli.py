"""`foretune plan` on the command line: formats, --out, and one clear line for bad input."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.conftest import REPO, run_cli

BASE = ["plan", "--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--product", "suse"], "invalid choice"),
        (["--version", "6.99"], "unknown satellite version 6.99"),
        (["--version", "banana"], "not of the form X.Y"),
        (["--hosts", "-5"], "must be at least 1"),
        (["--hosts", "0"], "must be at least 1"),
        (["--katello-agent-hosts", "10"], "has no katello-agent"),
        (["--hosts", "lots"], "not a whole number"),
        (["--cpus", "0"], "must be at least 1"),
        (["--ram", "garbage"], "garbage"),
        (["--ram", "512M"], "below 1 GiB"),
        (["--rex-hosts", "20000"], "cannot exceed --hosts"),
        (["--rex", "ssh", "--rex-hosts", "100"], "needs --rex pull-mqtt"),
        (["--virtual", "--bare-metal"], "not allowed with"),
        (["--role", "capsule", "--profile", "large"], "servers only"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str) -> None:
    result = run_cli(*BASE, *argv)
    assert result.status == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_missing_box_options_are_named() -> None:
    result = run_cli("plan", "--product", "satellite", "--version", "6.15")
    assert result.status == 2
    assert "--hosts, --cpus, --ram" in result.stderr


@pytest.mark.parametrize("ram", ["64G", "64GiB", "65536M", "64"])
def test_ram_spellings_agree(ram: str) -> None:
    argv = [*BASE[:-1], ram]
    assert run_cli(*argv, "--format", "json").stdout == run_cli(*BASE, "--format", "json").stdout


def test_table_names_profile_budget_and_problems() -> None:
    result = run_cli(*BASE[:-1], "32G")
    assert result.status == 0
    # 15,000 hosts call for large (16 cores, 64 GiB); the installer refuses it on 32 GiB, so the plan is medium's
    # (8 cores, 32 GiB: 28.8 GiB with the 90 % rule), the one its installer command and files apply
    assert "profile: medium — the largest profile the installer's hardware check accepts on this box; it refuses large" \
        in result.stdout
    assert "is below large" in result.stdout
    assert "refuses --tuning large here" in result.stdout
    assert "--tuning medium" in run_cli(*BASE[:-1], "32G", "--format", "installer").stdout
    assert "PostgreSQL connection budget" in result.stdout
    assert "Memory budget" in result.stdout
    assert "CRITICAL" in result.stdout
    assert "\033[" not in result.stdout  # no colour without a terminal


def test_hiera_format_holds_only_changed_keys_with_reasons() -> None:
    text = run_cli(*BASE, "--format", "hiera").stdout
    data = yaml.safe_load(text)
    # one channel per value: Puma workers have an installer option, so they go to the installer command, not here
    assert "foreman::foreman_service_puma_workers" not in data
    assert "--foreman-foreman-service-puma-workers 18" in run_cli(*BASE, "--format", "installer").stdout
    assert data["postgresql::server::config_entries"]["work_mem"] == "8MB"
    assert "max_connections" not in data["postgresql::server::config_entries"]  # profile already gives 1000
    assert "apache::mod::event::serverlimit" not in data
    assert "# work_mem: the guide's 8MB" in text


def test_installer_format_uses_options_only_for_installer_modules() -> None:
    text = run_cli(*BASE, "--format", "installer").stdout
    # the override rule first, as a comment (the output still runs as a script), then the command
    assert text.startswith("# a key set in custom-hiera.yaml overrides the installer option for it (and the tuning profile)")
    assert next(line for line in text.splitlines() if not line.startswith("#")) == "satellite-installer \\"
    assert "--tuning large" in text
    assert "--foreman-foreman-service-puma-workers 18" in text
    assert "--foreman-dynflow-worker-instances 3" in text
    assert "postgresql" not in text


def test_out_writes_everything_to_apply(tmp_path: Path) -> None:
    out = tmp_path / "apply"
    result = run_cli(*BASE, "--out", str(out))
    assert result.status == 0
    names = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert names == [".foretune-bundle.json", "APPLY.md", "changes.json", "custom-hiera.yaml", "installer.sh", "os-commands.sh",
                     "systemd/httpd.service.d/limits.conf"]  # the first: what this bundle wrote, for the next one there
    assert "LimitNOFILE=640000" in (out / "systemd/httpd.service.d/limits.conf").read_text()
    assert "tuned-adm profile throughput-performance" in (out / "os-commands.sh").read_text()
    assert (out / "installer.sh").stat().st_mode & 0o100
    apply_md = (out / "APPLY.md").read_text()
    assert apply_md.index("custom-hiera") < apply_md.index("installer.sh") < apply_md.index("daemon-reload")


def test_apply_md_restarts_what_reads_each_hand_edited_file(tmp_path: Path) -> None:
    # Satellite 6.6 runs the Dynflow executor as dynflowd, configured in /etc/sysconfig/dynflowd; hammer is a client
    box = ["--hosts", "8000", "--cpus", "16", "--ram", "64G"]
    assert run_cli("plan", "--product", "satellite", "--version", "6.6", *box, "--out", str(tmp_path / "66")).status == 0
    text = (tmp_path / "66" / "APPLY.md").read_text()
    # 64 GB: satellite-support custom-hiera-large-64G.yaml "# 32-64G RAM: 2"
    assert "In `/etc/sysconfig/dynflowd` set `EXECUTORS_COUNT=2`, then `systemctl restart dynflowd`." in text
    assert "In `/etc/hammer/cli.modules.d/foreman.yml` set `:request_timeout: -1` (read by the next hammer command)." in text
    # Satellite 6.2: foreman-tasks 0.7 reads no EXECUTORS_COUNT (it came with foreman-tasks 0.9): no edit of
    # /etc/sysconfig/foreman-tasks, so foreman-tasks is not among the services restarted at the end
    assert run_cli("plan", "--product", "satellite", "--version", "6.2", *box, "--puppet-hosts", "5000",
                   "--out", str(tmp_path / "62")).status == 0
    text = (tmp_path / "62" / "APPLY.md").read_text()
    assert "EXECUTORS_COUNT" not in text
    restart = next(line for line in text.splitlines() if ". Restart " in line)
    assert "foreman-tasks" not in restart and "httpd" in restart and "postgresql" in restart
    # the agents' puppet.conf is advice for the managed hosts, restarted there, not by katello-service on this server
    assert "splay = true in the [agent] section of /etc/puppet/puppet.conf on each managed host and restart its agent" in text
    assert "puppet" not in restart


def test_out_keeps_a_backup_of_changed_files(tmp_path: Path) -> None:
    # a file an admin edited after the earlier bundle wrote it is backed up before it is replaced; one left as the
    # earlier bundle wrote it is replaced without a copy (the bundle can be written again)
    run_cli(*BASE, "--out", str(tmp_path))
    bigger = [*BASE[:5], "--hosts", "30000", "--cpus", "32", "--ram", "128G"]
    assert run_cli(*bigger, "--out", str(tmp_path)).status == 0
    assert not list(tmp_path.glob("custom-hiera.yaml.foretune-*.bak"))
    hiera = tmp_path / "custom-hiera.yaml"
    hiera.write_text(hiera.read_text(encoding="utf-8") + "# reviewed by the DBA\n", encoding="utf-8")
    assert run_cli(*BASE, "--out", str(tmp_path)).status == 0
    [backup] = list(tmp_path.glob("custom-hiera.yaml.foretune-*.bak"))
    assert backup.read_text(encoding="utf-8").endswith("# reviewed by the DBA\n")


def test_katello_agent_era_emits_sysctl_and_qpid_limits(tmp_path: Path) -> None:
    argv = ["plan", "--product", "satellite", "--version", "6.9", "--hosts", "20000", "--cpus", "16", "--ram", "64G",
            "--katello-agent-hosts", "20000", "--out", str(tmp_path)]
    assert run_cli(*argv).status == 0
    assert "fs.aio-max-nr = 660001" in (tmp_path / "sysctl.d/90-foretune.conf").read_text()
    hiera = yaml.safe_load((tmp_path / "custom-hiera.yaml").read_text())
    assert hiera["qpid::open_file_limit"] == 4 * 20000 + 500
    assert "qpid::router::open_file_limit" not in hiera  # 3 x 20000 + 100 is below the profile's 150100
    assert hiera["qpid::mgmt_pub_interval"] == 5


def test_pull_rex_on_a_release_without_it_is_one_line() -> None:
    result = run_cli("plan", "--product", "satellite", "--version", "6.9", "--hosts", "100", "--cpus", "4", "--ram", "20G",
                     "--rex", "pull-mqtt")
    assert result.status == 2 and "has no pull-based remote execution" in result.stderr


def test_render_write_into_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "custom-hiera.yaml"
    result = run_cli("render", "--merge-into", str(target), "--write", "--product", "satellite", "--version", "6.15",
                     "--hosts", "100", "--cpus", "4", "--ram", "20G")
    assert result.status == 2
    assert result.stderr.strip().splitlines()[-1] == f"foretune: error: {target}: directory {target.parent} does not exist"
    assert not target.parent.exists()


def test_ram_below_the_smallest_plannable_box_is_one_line() -> None:
    result = run_cli(*BASE[:-1], "512M")
    assert result.status == 2 and result.stdout == ""
    assert result.stderr == "foretune: error: --ram 0.5 GiB is below 1 GiB; give a size such as 64G\n"


def test_json_fixes_name_the_channel_the_outputs_use() -> None:
    # foreman-installer 3.9 (Satellite 6.15) has kafo options for puppet-foreman's class parameters; custom-hiera.yaml
    # would win over them, so the value goes on the installer command, and the JSON says so. The guide's large profile:
    # Puma 12-18 workers (18 with 16 CPUs), 16 threads, db_pool threads + 4 = 20.
    argv = ["--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]
    data = json.loads(run_cli("plan", *argv, "--format", "json").stdout)
    fixes = {t["id"]: t["fixes"] for t in data["tunables"]}
    assert fixes["puma.workers"] == [{"kind": "installer", "target": "--foreman-foreman-service-puma-workers", "value": 18}]
    assert fixes["foreman.db_pool"] == [{"kind": "installer", "target": "--foreman-db-pool", "value": 20}]
    command = run_cli("plan", *argv, "--format", "installer").stdout
    assert "--foreman-foreman-service-puma-workers 18" in command and "--foreman-db-pool 20" in command


def test_json_gives_no_fix_for_a_value_that_does_not_differ() -> None:
    # Satellite 6.15 (foreman-installer 3.9), large profile on 16 CPUs: the installer already gives ServerLimit 64 (the
    # large tuning profile) and 8 pulpcore workers (its default, min(CPUs, 8)); the guide's 18 Puma workers differ
    # from the installer's 24 (puppet-foreman's formula)
    argv = ["--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]
    data = json.loads(run_cli("plan", *argv, "--format", "json").stdout)
    tunables = {t["id"]: t for t in data["tunables"]}
    for same in ("apache.server_limit", "pulp.workers"):
        assert tunables[same]["installer"]["value"] == tunables[same]["foretune"]["value"]
        assert tunables[same]["differs"] is False and tunables[same]["fixes"] == [], same
    assert tunables["puma.workers"]["differs"] is True and tunables["puma.workers"]["fixes"] != []
    assert not [t["id"] for t in data["tunables"] if not t["differs"] and t["fixes"]]
    # the schema says so too: a fix on a tunable that does not differ is invalid
    schema = json.loads(resources.files("foretune.render").joinpath("schema/plan-v1.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
    tunables["apache.server_limit"]["fixes"] = [{"kind": "hiera", "target": "apache::mod::event::serverlimit", "value": 64}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)


def test_a_cpu_count_no_rhel_kernel_runs_is_one_line_exit_2() -> None:
    # RHEL 8 and 9 x86_64 kernels: CONFIG_NR_CPUS=8192; 100000 CPUs is an input error, not an INFO note
    result = run_cli("plan", "--product", "satellite", "--version", "6.15", "--cpus", "100000", "--ram", "1P", "--hosts", "1000")
    assert result.status == 2 and "Traceback" not in result.stderr
    assert "100000 is not a plausible CPU count: at most 8192" in result.stderr
    ok = run_cli("plan", "--product", "satellite", "--version", "6.15", "--cpus", "8192", "--ram", "20T", "--hosts", "1000")
    assert ok.status == 0, ok.stderr


def test_a_qpid_release_without_a_katello_agent_count_assumes_every_content_host() -> None:
    # the 6.9 guide: fs.aio-max-nr "should be bigger than 33 multiplied by the maximum number of the content hosts";
    # without --katello-agent-hosts all 12000 count, as with --from: 33 x 12000 + 1 = 396001, and the note says so
    result = run_cli("plan", "--product", "satellite", "--version", "6.7", "--hosts", "12000", "--cpus", "16", "--ram", "64G",
                     "--format", "json")
    assert result.status == 0, result.stderr
    tunables = {t["id"]: t for t in json.loads(result.stdout)["tunables"]}
    assert tunables["sysctl.fs_aio_max_nr"]["foretune"]["value"] == 396001
    assert "every one of the 12000 content hosts is assumed to run katello-agent" in result.stderr
    # a count given is used as given, with no note
    given = run_cli("plan", "--product", "satellite", "--version", "6.7", "--hosts", "12000", "--cpus", "16", "--ram", "64G",
                    "--katello-agent-hosts", "0", "--format", "json")
    assert {t["id"]: t for t in json.loads(given.stdout)["tunables"]}["sysctl.fs_aio_max_nr"]["foretune"]["value"] == 65536
    assert "assumed to run katello-agent" not in given.stderr


def test_the_plan_s_formats_say_that_a_custom_hiera_key_overrides_its_installer_option() -> None:
    """satellite-6.15-overcommitted's custom-hiera.yaml pins foreman::foreman_service_puma_workers: 24, which wins over
    --foreman-foreman-service-puma-workers (the installer's hiera is below custom-hiera): the table, installer, hiera,
    Markdown and HTML formats say so, naming the key and the option."""
    source = str(REPO / "tests" / "fixtures" / "sosreports" / "satellite-6.15-overcommitted")
    line = ("custom-hiera.yaml sets foreman::foreman_service_puma_workers: 24, which overrides "
            "--foreman-foreman-service-puma-workers")
    for fmt in ("table", "installer", "hiera"):
        assert line in run_cli("plan", "--from", source, "--format", fmt).stdout, fmt
    markdown = run_cli("plan", "--from", source, "--format", "markdown").stdout
    assert line.replace("_", "\\_") in markdown
    # something to copy: the merge snippet and the installer command, in fenced blocks
    assert "\n```yaml\n# foretune plan for Satellite 6.15" in markdown
    # (tuning medium is declared in the source: the set does not pass it again)
    assert "\n```sh\nsatellite-installer \\\n  --foreman-dynflow-worker-instances 2" in markdown
    html = run_cli("plan", "--from", source, "--format", "html").stdout
    assert html.count('class="copy"') == 2 and "<script>" in html


def test_a_missing_option_is_named_in_the_singular() -> None:
    one = run_cli("plan", "--product", "satellite", "--version", "6.15", "--hosts", "100", "--cpus", "4")
    assert one.status == 2 and one.stderr.strip().endswith("missing --ram (or read it from a source with --from)")
    two = run_cli("plan", "--product", "satellite", "--version", "6.15", "--hosts", "100")
    assert two.stderr.strip().endswith("missing --cpus, --ram (or read them from a source with --from)")
