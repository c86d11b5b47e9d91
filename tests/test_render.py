"""`foretune render --merge-into`: comments, order and unrelated keys survive; writes only with --write."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from foretune.render.merge import merge_text
from tests.conftest import run_cli
from tests.support.hiera_oracle import check_merge

PLAN = ["--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]
EXISTING = """\
# Site tuning — owned by the platform team
---
# database
postgresql::server::config_entries:
  max_connections: 500 # raised in 2023
  checkpoint_segments: 32

foreman::foreman_service_puma_workers: 40  # too many?
# unrelated
foreman::logging_level: debug
"""


def render(tmp_path: Path, *extra: str, text: str = EXISTING) -> tuple[Path, object]:
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(text, encoding="utf-8")
    return target, run_cli("render", *PLAN, "--merge-into", str(target), *extra)


def test_dry_run_prints_diff_and_writes_nothing(tmp_path: Path) -> None:
    target, result = render(tmp_path)
    assert result.status == 0  # type: ignore[attr-defined]
    assert "-foreman::foreman_service_puma_workers: 40" not in result.stdout  # type: ignore[attr-defined]  # kept
    # one channel per value: the site's key over an installer option stays, and the option is left off the command
    assert ("foreman::foreman_service_puma_workers: kept the site's 40; --foreman-foreman-service-puma-workers 18 is "
            "left off the installer command" in result.stderr)  # type: ignore[attr-defined]
    # a key the site does not set that has an installer option goes on the installer command, not into custom-hiera
    # (custom-hiera would win over every later --foreman-db-pool): 16 threads + 4 Katello listeners
    assert "foreman::db_pool" not in result.stdout  # type: ignore[attr-defined]
    assert "--foreman-db-pool 20" in result.stderr  # type: ignore[attr-defined]
    assert target.read_text(encoding="utf-8") == EXISTING
    assert not list(tmp_path.glob("*.bak"))


def test_write_keeps_comments_order_unrelated_keys_and_a_backup(tmp_path: Path) -> None:
    target, result = render(tmp_path, "--write", "--prefer", "foretune")
    assert result.status == 0  # type: ignore[attr-defined]
    new = target.read_text(encoding="utf-8")
    old_lines = [line for line in EXISTING.splitlines() if line.lstrip().startswith("#")]
    assert all(line in new.splitlines() for line in old_lines)
    data = yaml.safe_load(new)
    assert data["foreman::logging_level"] == "debug"
    # the key goes and --foreman-foreman-service-puma-workers 18 is passed instead: 18 in custom-hiera would win
    # over every later installer flag
    assert "foreman::foreman_service_puma_workers" not in data
    assert "--foreman-foreman-service-puma-workers 18" in result.stderr.split("run: ", 1)[1]  # type: ignore[attr-defined]
    assert data["postgresql::server::config_entries"]["max_connections"] == 1000  # the file's 500, replaced as asked
    assert data["postgresql::server::config_entries"]["work_mem"] == "8MB"
    assert new.index("postgresql::server") < new.index("# unrelated") < new.index("logging_level")
    backups = list(tmp_path.glob("custom-hiera.yaml.foretune-*.bak"))
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == EXISTING


def test_second_run_has_nothing_to_change(tmp_path: Path) -> None:
    target, _ = render(tmp_path, "--write")
    result = run_cli("render", *PLAN, "--merge-into", str(target))
    assert "nothing to change" in result.stdout  # the site's differing values stay, listed on stderr
    assert "kept the site's 40" in result.stderr
    target, _ = render(tmp_path, "--write", "--prefer", "foretune")
    result = run_cli("render", *PLAN, "--merge-into", str(target))
    assert "already matches" in result.stdout


def test_warns_about_stale_and_locking_keys(tmp_path: Path) -> None:
    _, result = render(tmp_path)
    err = result.stderr  # type: ignore[attr-defined]
    assert "stale key postgresql::server::config_entries/checkpoint_segments" in err
    locking = [line for line in err.splitlines() if "out later --tuning changes" in line]
    assert len(locking) == 1  # one line, every key listed
    # the file's max_connections, a key of the installer's tuning profiles (puma workers are not); the plan derives
    # from the site's 40 Puma workers, which stay: no RAM is left to raise work_mem, so the merge adds no work_mem
    assert locking[0].endswith(": 1 key is also set by the tuning profiles and locks out later --tuning changes: "
                               "postgresql::server::config_entries/max_connections")
    # with the site's 40 workers kept: 40 x (16 threads + 4) = 800, Sidekiq 3 x (5 + 2) + (1 + 2) = 24, hosts queue 3,
    # Candlepin 25, pulpcore 38, container gateway 4, superuser reserved 3: 897; + 20 % = 1076.4, rounded up to 1100
    assert "max_connections: kept the site's 500; foretune recommends 1100 — connection budget 897 + 20 % headroom" in err


def test_passenger_keys_are_stale_on_puma_versions(tmp_path: Path) -> None:
    _, result = render(tmp_path, text="apache::mod::passenger::passenger_max_pool_size: 30\n")
    assert "stale key apache::mod::passenger::passenger_max_pool_size" in result.stderr  # type: ignore[attr-defined]


def test_broken_yaml_is_one_line(tmp_path: Path) -> None:
    _, result = render(tmp_path, text="a: [1, 2\n")
    assert result.status == 2  # type: ignore[attr-defined]
    assert "is not valid YAML" in result.stderr and "Traceback" not in result.stderr  # type: ignore[attr-defined]


def test_missing_file_starts_empty(tmp_path: Path) -> None:
    target = tmp_path / "new.yaml"
    dry = run_cli("render", *PLAN, "--merge-into", str(target))
    assert dry.status == 0 and f"{target}: does not exist: the merge starts from an empty file (--write would create it)" in dry.stderr
    result = run_cli("render", *PLAN, "--merge-into", str(target), "--write")
    assert result.status == 0
    assert "does not exist: the merge starts from an empty file and creates it" in result.stderr
    # the guides' 16 threads + 4 Katello listeners, as the installer option: custom-hiera would win over it
    assert "foreman::db_pool" not in yaml.safe_load(target.read_text())
    assert "--foreman-db-pool 20" in result.stderr
    assert yaml.safe_load(target.read_text())["postgresql::server::config_entries"]["work_mem"] == "8MB"  # no installer option


keys = st.sampled_from(["foreman::a", "foreman::b", "apache::c", "qpid::d", "postgresql::server::config_entries"])
scalars = st.one_of(st.integers(-5, 10_000), st.sampled_from(["4GB", "on", "%t ", "yes", "x y"]), st.booleans())
pg_entries = st.dictionaries(st.sampled_from(["max_connections", "work_mem", "shared_buffers"]), scalars, min_size=1)


@st.composite
def hiera_files(draw: st.DrawFn) -> tuple[str, dict[str, object]]:
    lines = ["# header comment"]
    data: dict[str, object] = {}
    for key in draw(st.lists(keys, unique=True)):
        if draw(st.booleans()):
            lines.append(f"# about {key}")
        if key.startswith("postgresql"):
            entries = draw(pg_entries)
            lines.append(f"{key}:")
            lines += [f"  {k}: {yaml.safe_dump(v, default_flow_style=True).splitlines()[0]}  # was" for k, v in entries.items()]
            data[key] = entries
        else:
            value = draw(scalars)
            lines.append(f"{key}: {yaml.safe_dump(value, default_flow_style=True).splitlines()[0]}")
            data[key] = value
    return "\n".join(lines) + "\n", data


@settings(max_examples=200, deadline=None)
@given(hiera_files(), st.dictionaries(keys.filter(lambda k: not k.startswith("postgresql")), scalars),
       st.one_of(st.none(), pg_entries))
def test_merge_round_trip(existing: tuple[str, dict[str, object]], updates: dict[str, object], pg: dict[str, object] | None) -> None:
    text, data = existing
    assert yaml.safe_load(text) == (data or None)
    values: dict[str, object] = dict(updates)
    if pg:
        values["postgresql::server::config_entries"] = pg
    merged = merge_text(text, values)
    check_merge(text, merged, values)  # an oracle of its own, not merge.py's expected_after
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert all(c in merged.splitlines() for c in comments)
    assert merge_text(merged, values) == merged  # idempotent


@pytest.mark.parametrize("prefer", ["site", "foretune"])
def test_an_alias_equal_to_the_recommendation_stays_an_alias(tmp_path: Path, prefer: str) -> None:
    text = ("---\nthreads: &threads 16\nforeman::foreman_service_puma_threads_max: *threads\n"
            "foreman::foreman_service_puma_threads_min: *threads\n")
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(text, encoding="utf-8")
    # 16/16 threads is the plan's value for this box (the guides' 16 threads with every profile)
    result = run_cli("render", *PLAN, "--merge-into", str(target), "--prefer", prefer, "--write")
    assert result.status == 0, result.stderr
    merged = target.read_text(encoding="utf-8")
    assert merged.startswith(text)  # the anchor and both aliases as they were, the new keys after them
    assert "foreman_service_puma_threads_max: 16" not in merged
    # work_mem is foretune's own addition, not the site's: said so, with what a later profile change needs
    assert not [line for line in result.stderr.splitlines() if "out later --tuning changes" in line]
    one = [line for line in result.stderr.splitlines() if "foretune adds" in line]
    assert one and one[0].endswith(": foretune adds 1 key the tuning profiles also set: postgresql::server::config_entries/"
                                   "work_mem; remove it before a later --tuning change, which it would otherwise lock out")


DB_POOL_LOCK = """\
---
postgresql::server::config_entries:
  work_mem: 8MB
foreman::db_pool: 5  # set by hand in 2021
"""


def test_a_site_key_over_an_installer_option_is_one_channel_either_way(tmp_path: Path) -> None:
    # foreman::db_pool has an installer option, --foreman-db-pool; custom-hiera wins over it (fi-hiera-precedence).
    # The plan's pool is threads_max 16 + 4 = 20 (pf-db-pool). Kept (the default): the file keeps 5 and the installer
    # command leaves --foreman-db-pool off, since it could not take effect.
    target, result = render(tmp_path, text=DB_POOL_LOCK)
    assert result.status == 0, result.stderr  # type: ignore[attr-defined]
    assert "--foreman-db-pool" not in result.stderr.split("run: ", 1)[1]  # type: ignore[attr-defined]
    assert "foreman::db_pool: kept the site's 5; --foreman-db-pool 20 is left off the installer command" in result.stderr  # type: ignore[attr-defined]
    assert "or --prefer-key NAME=foretune for one key" in result.stderr  # type: ignore[attr-defined]
    assert "[redacted]" not in result.stderr  # type: ignore[attr-defined]
    assert "foreman::db_pool" not in result.stdout  # type: ignore[attr-defined]  # the file's line stays as it is
    # Asked for foretune's: the key goes and the option is on the command; 20 is never written into custom-hiera.
    _, taken = render(tmp_path, "--prefer-key", "foreman::db_pool=foretune", "--write", text=DB_POOL_LOCK)
    assert taken.status == 0, taken.stderr  # type: ignore[attr-defined]
    assert " --foreman-db-pool 20" in taken.stderr.split("run: ", 1)[1].split("\n", 1)[0]  # type: ignore[attr-defined]
    assert yaml.safe_load(target.read_text(encoding="utf-8")) == {"postgresql::server::config_entries": {"work_mem": "8MB"}}


@pytest.mark.parametrize("text", [
    "---\npg: &pg\n  checkpoint_segments: 32\n  work_mem: 8MB\npostgresql::server::config_entries: *pg\n",
    "---\ndefaults: &d\n  checkpoint_segments: 32\npostgresql::server::config_entries:\n  <<: *d\n  work_mem: 8MB\n",
])
def test_a_stale_key_inside_an_anchor_or_a_merge_key_is_removed(tmp_path: Path, text: str) -> None:
    # checkpoint_segments: PostgreSQL 12 refuses to start with it (fi-checkpoint-segments-removed); given through an
    # alias or a << merge key it must still go from the PostgreSQL entries, the rest as the file had it
    target, result = render(tmp_path, "--write", text=text)
    assert result.status == 0, result.stderr  # type: ignore[attr-defined]
    merged = yaml.safe_load(target.read_text(encoding="utf-8"))
    assert merged["postgresql::server::config_entries"] == {"work_mem": "8MB"}


def test_config_entries_that_are_not_a_mapping_are_one_line_exit_2(tmp_path: Path) -> None:
    # puppetlabs-postgresql's postgresql::server::config_entries is a Hash: a number or a list is the file's error
    for text, found in (("---\npostgresql::server::config_entries: 5\n", "int"),
                        ("---\npostgresql::server::config_entries: [1]\n", "list")):
        _, result = render(tmp_path, text=text)
        assert result.status == 2  # type: ignore[attr-defined]
        err = result.stderr  # type: ignore[attr-defined]
        assert err.strip().endswith(f"postgresql::server::config_entries must be a mapping of PostgreSQL settings, found {found}")
        assert "internal error" not in err and "Traceback" not in err


def test_62_render_names_the_output_dir_option() -> None:
    result = run_cli("render", "--product", "satellite", "--version", "6.2", "--hosts", "3000", "--cpus", "8", "--ram", "32G",
                     "--merge-into", "/dev/null")
    assert result.status == 2
    assert "`foretune plan ... --output-dir DIR` lists in APPLY.md" in result.stderr


def test_a_file_with_a_stale_key_left_in_never_reads_as_matching(tmp_path: Path) -> None:
    # Satellite 6.13 (Foreman 3.5) pins puppet-foreman_proxy 24.0.x, which has no mqtt_rate_limit (first in 24.1.0):
    # the key is inert there. Left in (no --remove-stale), the file does not match the recommendation.
    target = tmp_path / "custom-hiera.yaml"
    target.write_text("---\nforeman_proxy::plugin::remote_execution::script::mqtt_rate_limit: 200\n", encoding="utf-8")
    argv = ("--product", "satellite", "--version", "6.13", "--hosts", "3000", "--cpus", "8", "--ram", "32G")
    assert run_cli("render", *argv, "--merge-into", str(target), "--write").status == 0  # the plan's own values go in
    result = run_cli("render", *argv, "--merge-into", str(target))
    assert result.status == 0, result.stderr
    assert "stale key foreman_proxy::plugin::remote_execution::script::mqtt_rate_limit" in result.stderr
    assert "already matches" not in result.stdout
    assert ("1 stale key (foreman_proxy::plugin::remote_execution::script::mqtt_rate_limit: add --remove-stale)"
            in result.stdout), result.stdout
