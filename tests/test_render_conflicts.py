"""`render --merge-into` never lowers (or otherwise changes) a site value without being asked, and says so.

The site's values are read as the installer's YAML reads them: anchors, aliases and ``<<`` merge keys resolved.
Expected values are the site file's own, written here by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from foretune.render.merge import PG, kept_header, load_mapping, merge_values, owned_comments
from tests.conftest import run_cli
from tests.support.hiera_oracle import owned_by_removed, yaml12

PLAN = ["--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]
SITE = """\
# platform team tuning
---
pg_common: &pg_common
  max_connections: 1500
  shared_buffers: 16GB

postgresql::server::config_entries:
  <<: *pg_common
  work_mem: 16MB
  autovacuum_vacuum_cost_limit: 3000

candlepin::java_opts: "-Xms1024m -Xmx6g"
# keep at 10
foreman::foreman_service_puma_workers: 10
"""


def render(tmp_path: Path, *extra: str) -> tuple[Path, Any]:
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(SITE, encoding="utf-8")
    return target, run_cli("render", *PLAN, "--merge-into", str(target), *extra)


def test_site_values_are_kept_and_each_difference_is_a_conflict_with_both_values(tmp_path: Path) -> None:
    target, result = render(tmp_path, "--write")
    assert result.status == 0, result.stderr
    data = yaml.safe_load(target.read_text(encoding="utf-8"))
    assert data[PG]["max_connections"] == 1500  # from the << merge key: no explicit 1000 beating it
    assert data[PG]["shared_buffers"] == "16GB"
    assert data[PG]["work_mem"] == "16MB"
    assert data[PG]["autovacuum_vacuum_cost_limit"] == 3000
    assert data["candlepin::java_opts"] == "-Xms1024m -Xmx6g"
    assert data["foreman::foreman_service_puma_workers"] == 10
    # a key the site does not set that has an installer option is given to the installer (16 threads + 4 listeners):
    # in custom-hiera it would win over every later --foreman-db-pool
    assert "foreman::db_pool" not in data
    err = result.stderr
    assert "--foreman-db-pool 20" in err
    # The plan starts from the file's values: none of these is lower than the guide asks, so none is a conflict.
    # The guide: max_connections 1000 in its example ("never below the profile": large's 1000), "Setting [work_mem]
    # to 8 MB should be more than enough", autovacuum_vacuum_cost_limit 2000, shared_buffers "between 2 GiB to a
    # maximum of 25%" (16GB is 25 % of 64 GiB); no guide sizes Candlepin's heap, so the site's 6 GiB is no excess.
    for key in (f"{PG}/max_connections", f"{PG}/work_mem", f"{PG}/autovacuum_vacuum_cost_limit", f"{PG}/shared_buffers",
                "candlepin::java_opts"):
        assert f"{key}: kept the site's" not in err, key
    # foreman-installer 3.9 large profile: Puma 12-18 workers in the guide's table; the file's 10 is below it. The
    # key has an installer option the file's value wins over: kept, and the option left off the command
    assert ("foreman::foreman_service_puma_workers: kept the site's 10; --foreman-foreman-service-puma-workers 18 is "
            "left off the installer command: custom-hiera's value wins over it") in err
    assert "add --prefer foretune" in err and "--prefer-key NAME=foretune" in err
    # the kept key is not also on the installer command: custom-hiera would win over it
    assert "--foreman-foreman-service-puma-workers" not in err.split("run: ", 1)[1].split("\n", 1)[0]


def test_prefer_foretune_replaces_and_says_so_beside_a_contradicting_comment(tmp_path: Path) -> None:
    target, result = render(tmp_path, "--write", "--prefer", "foretune", "--prefer-key", "work_mem=site")
    assert result.status == 0, result.stderr
    text = target.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert data[PG]["max_connections"] == 1500  # foretune's own value is the site's: nothing beats the << merge key
    assert "max_connections" not in text.split("<<: *pg_common", 1)[1]
    assert data[PG]["work_mem"] == "16MB"
    assert data[PG]["autovacuum_vacuum_cost_limit"] == 3000
    # Puma workers has an installer option: foretune's 18 goes on the installer command and the site's key is
    # removed (in custom-hiera it would win over every later --tuning or option), never written as 18 into the file
    assert "foreman::foreman_service_puma_workers" not in data
    assert data["pg_common"] == {"max_connections": 1500, "shared_buffers": "16GB"}  # the anchor itself is untouched
    assert ("foreman::foreman_service_puma_workers: removed the site's 10, which would win over "
            "--foreman-foreman-service-puma-workers 18") in result.stderr
    assert "--foreman-foreman-service-puma-workers 18" in result.stderr.split("run: ", 1)[1]


def test_the_comment_of_a_removed_key_goes_with_it_and_is_named(tmp_path: Path) -> None:
    target, result = render(tmp_path, "--write", "--prefer", "foretune")
    assert result.status == 0, result.stderr
    text = target.read_text(encoding="utf-8")
    assert "keep at 10" not in text  # not left alone at the end of the file, speaking for nothing
    assert text.endswith('\ncandlepin::java_opts: "-Xms1024m -Xmx6g"\n')
    assert "foreman::foreman_service_puma_workers: the site's comment \"keep at 10\" went with it" in result.stderr


HEADED = """\
# Site tuning, owned by ops
# keep at 10
foreman::foreman_service_puma_workers: 10
candlepin::java_opts: "-Xmx6g"
"""


def test_the_files_header_stays_when_the_first_key_goes() -> None:
    # the rule: the comment lines directly above a removed key go with it, unless they are the file's first lines:
    # those are its header and stay (here the two lines cannot be told apart, so both stay)
    puma = ["foreman::foreman_service_puma_workers"]
    merged, _ = merge_values(HEADED, {}, {}, {"*": "foretune"}, remove=puma)
    assert merged == '# Site tuning, owned by ops\n# keep at 10\ncandlepin::java_opts: "-Xmx6g"\n'
    assert owned_comments(HEADED, puma)[2] == {}  # nothing is said to have gone with it
    assert kept_header(HEADED, puma) == {puma[0]: ["# Site tuning, owned by ops", "# keep at 10"]}
    # after a --- line the comments are the document's, written for the key below them (as in the stale-key test)
    merged, _ = merge_values("---\n" + HEADED, {}, {}, {"*": "foretune"}, remove=puma)
    assert merged == '---\ncandlepin::java_opts: "-Xmx6g"\n'
    # a header of its own (before ---, or set apart by a blank line) stays, and the key's comment goes with the key
    for text in ("# Site tuning, owned by ops\n---\n# keep at 10\nforeman::foreman_service_puma_workers: 10\nb: 1\n",
                 "# Site tuning, owned by ops\n\n# keep at 10\nforeman::foreman_service_puma_workers: 10\nb: 1\n"):
        merged, _ = merge_values(text, {}, {}, {"*": "foretune"}, remove=puma)
        assert merged == text.replace("# keep at 10\nforeman::foreman_service_puma_workers: 10\n", ""), text
        assert kept_header(text, puma) == {}
    # a key that is not the first one takes the comment directly above it, as before
    second = 'candlepin::java_opts: "-Xmx6g"\n# keep at 10\nforeman::foreman_service_puma_workers: 10\n'
    merged, _ = merge_values("# Site tuning, owned by ops\n" + second, {}, {}, {"*": "foretune"}, remove=puma)
    assert merged == '# Site tuning, owned by ops\ncandlepin::java_opts: "-Xmx6g"\n'


def test_render_prefer_foretune_keeps_the_header_and_says_so(tmp_path: Path) -> None:
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(HEADED, encoding="utf-8")
    result = run_cli("render", *PLAN, "--merge-into", str(target), "--prefer", "foretune", "--write")
    assert result.status == 0, result.stderr
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Site tuning, owned by ops\n# keep at 10\n")
    assert "foreman::foreman_service_puma_workers" not in yaml.safe_load(text)
    assert ('foreman::foreman_service_puma_workers: the comment "Site tuning, owned by ops" / "keep at 10" above it '
            "opens the file, so it stays as the file's header") in result.stderr
    assert "went with it" not in result.stderr


ANCHORED = """\
pg_common: &pg_common
  max_connections: 1500
  shared_buffers: 16GB
postgresql::server::config_entries:
  <<: *pg_common
  work_mem: 16MB
# keep at 10
foreman::foreman_service_puma_workers: 10
# candlepin heap: measured
candlepin::java_opts: "-Xmx6g"
"""


def test_comments_stay_above_the_key_they_were_written_above_with_merge_keys() -> None:
    # foretune's max_connections is written as an explicit key after the << merge key; the site's comments above
    # the next top-level keys stay above them, never inside config_entries
    merged, _ = merge_values(ANCHORED, {PG: {"max_connections": 1000}}, {}, {"*": "foretune"})
    assert merged == """\
pg_common: &pg_common
  max_connections: 1500
  shared_buffers: 16GB
postgresql::server::config_entries:
  <<: *pg_common
  work_mem: 16MB
  # foretune: replaced the site's 1500 as asked (--prefer)
  max_connections: 1000
# keep at 10
foreman::foreman_service_puma_workers: 10
# candlepin heap: measured
candlepin::java_opts: "-Xmx6g"
"""
    removed, _ = merge_values(ANCHORED, {PG: {"max_connections": 1000}}, {}, {"*": "foretune"},
                              remove=["foreman::foreman_service_puma_workers"])
    assert removed == merged.replace("# keep at 10\nforeman::foreman_service_puma_workers: 10\n", "")
    only = ANCHORED.replace("  work_mem: 16MB\n", "")  # config_entries holds nothing but the << merge key
    merged, _ = merge_values(only, {PG: {"work_mem": "8MB"}}, {}, {"*": "site"}, remove=["foreman::foreman_service_puma_workers"])
    assert merged == """\
pg_common: &pg_common
  max_connections: 1500
  shared_buffers: 16GB
postgresql::server::config_entries:
  <<: *pg_common
  work_mem: 8MB
# candlepin heap: measured
candlepin::java_opts: "-Xmx6g"
"""


def test_a_shared_mapping_copied_for_a_change_does_not_copy_the_next_keys_comment() -> None:
    text = "postgresql::server::config_entries: &pg\n  work_mem: 16MB\n# keep at 10\nforeman::a: 10\nother: *pg\n"
    merged, _ = merge_values(text, {PG: {"work_mem": "8MB"}}, {}, {"*": "foretune"})
    assert merged.count("# keep at 10") == 1
    assert merged.splitlines()[merged.splitlines().index("# keep at 10") + 1] == "foreman::a: 10"


STALE = """\
---
# OLD 6.9 prefork tuning, for 150 concurrent registrations
apache::mod::prefork::serverlimit: 582
apache::mod::prefork::maxclients: 582
postgresql::server::config_entries:
  max_connections: 1000
  # checkpoint tuning from 6.3 -- keep
  checkpoint_segments: 32
  # work_mem raised for reports (keep)
  work_mem: 16MB
"""


def test_stale_keys_take_their_comments_and_the_next_entrys_comment_keeps_its_column(tmp_path: Path) -> None:
    # PostgreSQL 12 refuses checkpoint_segments (removed in 9.5), the event MPM ignores prefork keys: with
    # --remove-stale all three go, each with the comment written above it; the heading of the two prefork keys was
    # not written for the PostgreSQL hash that follows them
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(STALE, encoding="utf-8")
    result = run_cli("render", *PLAN, "--merge-into", str(target), "--remove-stale", "--write")
    assert result.status == 0, result.stderr
    assert target.read_text(encoding="utf-8") == """\
---
postgresql::server::config_entries:
  max_connections: 1000
  # work_mem raised for reports (keep)
  work_mem: 16MB
"""
    assert ("apache::mod::prefork::serverlimit: the site's comment \"OLD 6.9 prefork tuning, for 150 concurrent "
            "registrations\" went with it") in result.stderr
    assert f"{PG}/checkpoint_segments: the site's comment \"checkpoint tuning from 6.3 -- keep\" went with it" in result.stderr


def test_merge_keys_read_as_the_installers_yaml_reads_them(tmp_path: Path) -> None:
    # Ruby's Psych (hiera's YAML): of a << list the first mapping wins; a << overwrites the keys written before it
    listed = ("_site: &site\n  work_mem: 16MB   # reports need big sorts: keep\n  max_connections: 1500\n"
              "_vendor: &vendor\n  work_mem: 4MB\n  max_connections: 500\n"
              f"{PG}:\n  <<: [*site, *vendor]\n")
    assert load_mapping(listed, "x")[PG] == {"work_mem": "16MB", "max_connections": 1500}
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(listed, encoding="utf-8")
    result = run_cli("render", *PLAN, "--merge-into", str(target), "--prefer", "foretune", "--write")
    # 16MB and 1500 are above the guide's 8MB and the large profile's 1000: kept, nothing written, nothing "replaced"
    assert result.status == 0 and "replaced" not in result.stderr, result.stderr
    assert target.read_text(encoding="utf-8") == listed
    before = (f"_a: &a\n  max_connections: 300\n  work_mem: 16MB\n{PG}:\n  max_connections: 400\n  <<: *a\n"
              "  shared_buffers: 8GB\n")
    assert load_mapping(before, "x")[PG] == {"max_connections": 300, "work_mem": "16MB", "shared_buffers": "8GB"}
    target.write_text(before, encoding="utf-8")
    result = run_cli("render", *PLAN, "--merge-into", str(target), "--prefer-key", "max_connections=foretune", "--write")
    assert result.status == 0, result.stderr
    assert f"{PG}/max_connections: replaced the site's 300 with foretune's 1000" in result.stderr
    text = target.read_text(encoding="utf-8")
    assert text.index("<<: *a") < text.index("max_connections: 1000")  # after the << it takes effect
    assert load_mapping(text, "x")[PG]["max_connections"] == 1000


def test_a_kept_max_connections_below_what_the_plan_opens_is_said_plainly(tmp_path: Path) -> None:
    # the large profile on 16 CPUs: 18 Puma workers x pool 20 = 360 connections alone, above the site's 300
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(f"---\n{PG}:\n  max_connections: 300   # DBA: pgbouncer limit\n", encoding="utf-8")
    result = run_cli("render", *PLAN, "--merge-into", str(target))
    assert result.status == 0, result.stderr
    assert "with the site's max_connections 300 kept, the services as planned" in result.stderr
    assert "Puma 18 workers x 20 pool (threads 16) 360" in result.stderr
    assert "--prefer-key max_connections=foretune" in result.stderr
    enough = run_cli("render", *PLAN, "--merge-into", str(target), "--prefer-key", "max_connections=foretune")
    assert "with the site's max_connections" not in enough.stderr


HIGHER = """\
---
# 24 workers: load-tested 2025-06, keep
foreman::foreman_service_puma_workers: 24
postgresql::server::config_entries:
  work_mem: 32MB   # keep
"""


def test_a_kept_site_threads_max_sets_what_depends_on_it(tmp_path: Path) -> None:
    # Satellite 6.15 = foreman-installer 3.9: the site keeps threads_max 5. Puma refuses threads_min above threads_max
    # ("The minimum (16) number of threads must be less than or equal to the max (5)", puma/dsl.rb), so the command must
    # not raise threads_min to 16; the installer's own follows threads_max (puppet-foreman 3.x: "Optional[Integer[0]]
    # $foreman_service_puma_threads_min = undef", "$foreman_service_puma_threads_max = 5"). The pool is threads_max + 4 (pf-db-pool / gf-db-pool): 5 + 4 = 9, not 16 + 4 = 20.
    target = tmp_path / "custom-hiera.yaml"
    target.write_text("# Site custom-hiera\nforeman::foreman_service_puma_threads_max: 5\n", encoding="utf-8")
    result = run_cli("render", *PLAN, "--merge-into", str(target))
    assert result.status == 0, result.stderr
    command = result.stderr.split("run: ", 1)[1].split("\n", 1)[0]
    assert "--foreman-db-pool 9 " in command + " "
    assert "threads-min" not in command and "threads-max" not in command
    assert ("with the site's foreman::foreman_service_puma_threads_max kept, the values that depend on it follow: "
            "--foreman-foreman-service-puma-threads-min left off (was 16: the installer's own value is now foretune's), "
            "--foreman-db-pool 9 (was 20)") in result.stderr
    # taking foretune's value: the key goes and the command carries 16 threads and a pool of 16 + 4 = 20
    result = run_cli("render", *PLAN, "--merge-into", str(target), "--prefer", "foretune")
    command = result.stderr.split("run: ", 1)[1].split("\n", 1)[0]
    for option in ("--foreman-foreman-service-puma-threads-max 16", "--foreman-foreman-service-puma-threads-min 16",
                   "--foreman-db-pool 20"):
        assert option in command, option


SMALL_PUMA = """\
# Puma kept small on purpose: keep at 4 workers
foreman::foreman_service_puma_workers: 4
foreman::foreman_service_puma_threads_min: 16
foreman::foreman_service_puma_threads_max: 16
postgresql::server::config_entries:
  max_connections: {}   # do not raise: shared PG cluster
"""


def test_the_connection_budget_counts_the_puma_workers_the_site_keeps(tmp_path: Path) -> None:
    # 8 CPUs / 32 GiB / 8000 hosts on 6.15: medium. The site's 4 workers stay, so Puma holds 4 x (16 threads + 4) = 80
    # connections, not the 12 workers foretune would run; with Sidekiq 2 x (5 + 2) + (1 + 2) = 17, the hosts queue 3,
    # Candlepin 25, pulpcore 8 x 2 + 22 = 38, the container gateway 4 and 3 reserved: 170, which 300 holds
    medium = ["--product", "satellite", "--version", "6.15", "--hosts", "8000", "--cpus", "8", "--ram", "32G"]
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(SMALL_PUMA.format(300), encoding="utf-8")
    result = run_cli("render", *medium, "--merge-into", str(target))
    assert result.status == 0, result.stderr
    assert "too many clients" not in result.stderr
    # the conflict is against foretune's own value; the budget counts the kept 4 workers: 170 + 20 % = 204, rounded up to
    # 300, never below the medium profile's 1000
    assert "max_connections: kept the site's 300; foretune recommends 1000 — connection budget 170 + 20 % headroom" in result.stderr
    # work_mem, added, is sized for the 300 connections the file keeps: 300 x (8MB - 4MB) = 1200 MB = 1.2 GiB
    assert "the guide's 8MB: 300 connections x 4MB more = 1.2 GiB fits" in result.stdout
    target.write_text(SMALL_PUMA.format(100), encoding="utf-8")
    result = run_cli("render", *medium, "--merge-into", str(target))
    assert ("with the site's max_connections 100 kept, the services as planned (and the installer command below) open up "
            "to 170 connections (Puma 4 workers x 20 pool (threads 16) 80, ") in result.stderr


def test_a_site_shared_buffers_below_the_profiles_is_a_conflict(tmp_path: Path) -> None:
    # 15000 hosts, 16 CPUs, 64 GiB on 6.15: the large profile, whose foreman-installer 3.9.0 tuning/sizes/large.yaml sets
    # "shared_buffers: 8GB" (inside the guide's "between 2 GiB to a maximum of 25%", 16 GiB here). The site's 2GB and
    # 4GB are below it: each is kept and listed with both values, never adopted as the recommendation
    for site in ("2GB", "4GB"):
        target = tmp_path / "custom-hiera.yaml"
        target.write_text(f"{PG}:\n  shared_buffers: {site}\n", encoding="utf-8")
        result = run_cli("render", *PLAN, "--merge-into", str(target))
        assert result.status == 0, result.stderr
        assert f"{PG}/shared_buffers: kept the site's {site}; foretune recommends 8GB" in result.stderr
    # a larger site value is the start instead, and no conflict (the guide's cap is 25 % of 64 GiB = 16 GiB)
    target.write_text(f"{PG}:\n  shared_buffers: 12GB\n", encoding="utf-8")
    assert "shared_buffers: kept" not in run_cli("render", *PLAN, "--merge-into", str(target)).stderr


def test_a_higher_site_value_over_an_installer_option_is_never_written_as_foretunes_into_the_file(tmp_path: Path) -> None:
    # one channel per value: the guide's large range is 12-18 Puma workers; the site's 24 is kept (the option left
    # off the command), or with --prefer foretune the key goes and --foreman-foreman-service-puma-workers 18 is passed,
    # saying it lowers 24. Either way the reason and the site's comment come with it.
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(HIGHER, encoding="utf-8")
    kept = run_cli("render", *PLAN, "--merge-into", str(target))
    assert kept.status == 0, kept.stderr
    assert ("foreman::foreman_service_puma_workers: kept the site's 24; --foreman-foreman-service-puma-workers 18 is "
            "left off the installer command") in kept.stderr
    assert "guide range 12-18 for large [gf-puma-recommendations" in kept.stderr
    assert "(the site's comment: 24 workers: load-tested 2025-06, keep)" in kept.stderr
    assert "nothing to change" in kept.stdout
    result = run_cli("render", *PLAN, "--merge-into", str(target), "--prefer", "foretune", "--write")
    assert result.status == 0, result.stderr
    assert "foreman::foreman_service_puma_workers" not in yaml.safe_load(target.read_text(encoding="utf-8"))
    assert "(this lowers the site's 24, as asked)" in result.stderr
    assert "--foreman-foreman-service-puma-workers 18" in result.stderr.split("run: ", 1)[1]


def test_a_site_value_above_the_guides_range_is_a_conflict_kept_unless_asked(tmp_path: Path) -> None:
    # The guide: shared_buffers "between 2 GiB to a maximum of 25% of your total system memory": 25 % of 64 GiB = 16GB.
    # The file's 40GB (through the << merge key) is above it: kept, listed with both values and the reason.
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(SITE.replace("shared_buffers: 16GB", "shared_buffers: 40GB"), encoding="utf-8")
    result = run_cli("render", *PLAN, "--merge-into", str(target), "--write")
    assert result.status == 0, result.stderr
    assert yaml.safe_load(target.read_text(encoding="utf-8"))[PG]["shared_buffers"] == "40GB"
    assert (f"{PG}/shared_buffers: kept the site's 40GB; foretune recommends 16GB — below the 40GB the custom-hiera.yaml "
            "sets: at least 2 GiB, at most 25 % of RAM") in result.stderr
    asked = run_cli("render", *PLAN, "--merge-into", str(target), "--write", "--prefer-key", "shared_buffers=foretune")
    text = target.read_text(encoding="utf-8")
    assert yaml.safe_load(text)[PG]["shared_buffers"] == "16GB"  # an explicit key now beats the << merge key, as asked
    assert yaml.safe_load(text)["pg_common"]["shared_buffers"] == "40GB"  # the anchor itself is untouched
    assert f"{PG}/shared_buffers: replaced the site's 40GB with foretune's 16GB" in asked.stderr


def test_prefer_key_for_a_key_foretune_does_not_recommend_is_one_line(tmp_path: Path) -> None:
    _, result = render(tmp_path, "--prefer-key", "no_such_key=foretune")
    assert result.status == 2 and "no_such_key" in result.stderr and "Traceback" not in result.stderr
    _, result = render(tmp_path, "--prefer-key", "work_mem")
    assert result.status == 2 and "KEY=site or KEY=foretune" in result.stderr


def test_help_documents_the_preference() -> None:
    result = run_cli("render", "--help")
    assert "--prefer {site,foretune}" in result.stdout and "--prefer-key KEY=WHO" in result.stdout


# --- property: generated files with anchors, aliases, merge keys and comments ----------------------------------

TOP = ["foreman::a", "foreman::b", "candlepin::c", "apache::d"]
NAMES = ["max_connections", "work_mem", "shared_buffers", "autovacuum_vacuum_cost_limit"]
VALUES = st.one_of(st.integers(1, 5000), st.sampled_from(["8MB", "16MB", "2GB", "16GB", "-Xmx4g", "-Xmx6g"]))


def dump(value: object) -> str:
    return str(yaml.safe_dump(value, default_flow_style=True).splitlines()[0])


@st.composite
def site_files(draw: st.DrawFn) -> str:
    lines = ["# site tuning"]
    anchored = draw(st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=3))
    if anchored:
        lines += ["pg_base: &pg_base", *(f"  {k}: {dump(v)}" for k, v in anchored.items())]
    vendor = draw(st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=3)) if anchored else {}
    if vendor:  # a << list: the first mapping wins (YAML's merge key type, and Ruby's Psych)
        lines += ["pg_vendor: &pg_vendor", *(f"  {k}: {dump(v)}" for k, v in vendor.items())]
    scalar_anchor = None
    for key in draw(st.lists(st.sampled_from(TOP), unique=True)):
        if draw(st.booleans()):
            lines.append("")  # a paragraph of its own
        if draw(st.booleans()):
            lines.append(f"# keep {key} as it is")
        if scalar_anchor and draw(st.booleans()):
            lines.append(f"{key}: *{scalar_anchor}")
            continue
        anchor = "" if scalar_anchor or not draw(st.booleans()) else " &" + (scalar_anchor := "v1")
        eol = "  # tuned by hand" if draw(st.booleans()) else ""
        lines.append(f"{key}:{anchor} {dump(draw(VALUES))}{eol}")
    if draw(st.booleans()):
        lines.append(f"{PG}:")
        if bool(anchored) and draw(st.booleans()):
            lines.append("  <<: [*pg_base, *pg_vendor]" if vendor and draw(st.booleans()) else "  <<: *pg_base")
        for name, value in draw(st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=3)).items():
            lines.append(f"  {name}: {dump(value)}" + ("  # measured" if draw(st.booleans()) else ""))
        if lines[-1] == f"{PG}:":
            lines[-1] += " {}"
    return "\n".join(lines) + "\n"


recommendations = st.fixed_dictionaries({}, optional={
    **dict.fromkeys(TOP, VALUES),
    PG: st.dictionaries(st.sampled_from(NAMES), VALUES, min_size=1, max_size=4)})


def flat(data: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k != PG}
    out.update({f"{PG}/{k}": v for k, v in (data.get(PG) or {}).items()})
    return out


@settings(max_examples=150, deadline=None)
@given(site_files(), recommendations, st.sampled_from(["site", "foretune"]), st.data())
def test_merge_keeps_every_site_value_unless_asked(text: str, values: dict[str, Any], prefer: str, data: st.DataObject) -> None:
    before = flat(yaml12(text) or {})  # ruamel's safe loader resolves anchors, aliases and << lists first-wins, as Psych
    # keys whose value goes to the installer instead (one channel per value) are removed
    removable = sorted(key for key in before if key in TOP and key not in values and f"{key}: &" not in text)
    remove = data.draw(st.lists(st.sampled_from(removable), unique=True)) if removable else []
    merged_text, conflicts = merge_values(text, values, {}, {"*": prefer}, remove=remove)
    after = flat(yaml12(merged_text) or {})
    wanted = flat(values)
    gone = owned_by_removed(text, remove)
    lines = text.splitlines()
    for i in gone:  # no comment of a removed key is left behind, under another key or at the end of the file
        assert lines[i] not in merged_text.splitlines(), lines[i]
    for key in remove:
        assert key not in after
    before = {key: value for key, value in before.items() if key not in remove}
    for key, value in before.items():
        if key in wanted and prefer == "foretune":
            assert after[key] == wanted[key], key
        else:
            assert after[key] == value, key  # the site's value, whatever foretune recommends
    for key, value in wanted.items():
        if key not in before:
            assert after[key] == value, key
    differing = {key for key in wanted if key in before and (before[key] != wanted[key] or type(before[key]) is not type(wanted[key]))}
    assert {c.key for c in conflicts} == differing
    for i, line in enumerate(lines):
        if line.lstrip().startswith("#") and i not in gone:
            assert line in merged_text.splitlines()
    if prefer == "foretune":  # a replaced value that had a comment beside it says the comment was for the old value
        for conflict in conflicts:
            if conflict.comments:
                assert f"was written for {dump(conflict.site)}" in merged_text


def test_a_duplicate_key_is_refused_naming_the_key_and_both_lines(tmp_path: Path) -> None:
    target = tmp_path / "custom-hiera.yaml"
    target.write_text(f"apache::mod::event::serverlimit: 64\n{PG}:\n  work_mem: 4MB\n  work_mem: 8MB\n"
                      "apache::mod::event::serverlimit: 32\n", encoding="utf-8")
    result = run_cli("render", *PLAN, "--merge-into", str(target))
    assert result.status == 2 and "Traceback" not in result.stderr
    assert "duplicate key apache::mod::event::serverlimit (lines 1 and 5)" in result.stderr
    target.write_text(f"{PG}:\n  work_mem: 4MB\n  work_mem: 8MB\n", encoding="utf-8")
    assert "duplicate key work_mem (lines 2 and 3)" in run_cli("render", *PLAN, "--merge-into", str(target)).stderr


def test_a_capsule_is_not_warned_about_locking_out_tuning_profiles_it_has_none_of(tmp_path: Path) -> None:
    # installer --tuning size profiles are for servers; a Capsule reads only tuning/common.yaml
    target = tmp_path / "custom-hiera.yaml"
    target.write_text("apache::mod::event::serverlimit: 32\n", encoding="utf-8")
    capsule = ["--product", "satellite", "--version", "6.15", "--role", "capsule", "--hosts", "6000", "--cpus", "8", "--ram", "24G"]
    result = run_cli("render", *capsule, "--merge-into", str(target))
    assert result.status == 0, result.stderr
    assert "lock out later --tuning" not in result.stderr and "locks out later --tuning" not in result.stderr
    server = run_cli("render", *PLAN, "--merge-into", str(target))
    assert "1 key is also set by the tuning profiles and locks out later --tuning changes: apache::mod::event::serverlimit\n" in server.stderr


def test_a_quoted_top_level_value_keeps_its_inline_comment_when_replaced() -> None:
    site = 'candlepin::java_opts: "-Xms512m -Xmx3g"   # 3g is plenty\n'
    text, conflicts = merge_values(site, {"candlepin::java_opts": "-Xms1024m -Xmx4096m"},
                                   {"candlepin::java_opts": "puppet-candlepin's default"}, {"*": "foretune"})
    assert conflicts[0].comments == ["3g is plenty"]
    assert "the site's comment here (3g is plenty) was written for -Xms512m -Xmx3g" in text
    assert load_mapping(text, "t")["candlepin::java_opts"] == "-Xms1024m -Xmx4096m"


def test_a_pin_a_merge_key_gives_is_written_after_the_merge_key_when_its_removal_is_given() -> None:
    site = ("pgbase: &pgbase\n  max_connections: 400   # DBA: do not raise\n"
            f"{PG}:\n  <<: *pgbase\n  shared_buffers: 1GB\n")
    text, conflicts = merge_values(site, {}, {}, {"*": "site"}, remove=[f"{PG}/max_connections", f"{PG}/shared_buffers"],
                                   asked="", given={f"{PG}/max_connections": 1000})
    assert "pgbase: &pgbase\n" in text and "  <<: *pgbase\n" in text
    assert load_mapping(text, "t") == {"pgbase": {"max_connections": 400}, PG: {"max_connections": 1000}}
    assert [(c.key, c.site, c.foretune, c.comments) for c in conflicts] == [(f"{PG}/max_connections", 400, 1000, ["DBA: do not raise"])]
    assert "the site's comment here (DBA: do not raise) was written for 400" in text


def test_the_work_mem_conflict_counts_the_max_connections_the_site_keeps(tmp_path: Path) -> None:
    # the guide: work_mem 8MB; the site keeps max_connections 250, so 8MB costs 250 x (8MB - 4MB) more, not 1000 x
    target = tmp_path / "custom-hiera.yaml"
    target.write_text("foreman::foreman_service_puma_workers: 3\n"
                      f"{PG}:\n  max_connections: 250\n  work_mem: 4MB\n", encoding="utf-8")
    result = run_cli("render", "--product", "satellite", "--version", "6.15", "--hosts", "8000", "--cpus", "8",
                     "--ram", "32G", "--merge-into", str(target))
    assert result.status == 0, result.stderr
    assert "work_mem: kept the site's 4MB; foretune recommends 8MB — the guide's 8MB: 250 connections x 4MB more" in result.stderr
    assert "1000 connections" not in result.stderr


def test_the_files_document_start_stays_when_its_last_key_goes() -> None:
    # foreman-installer's custom-hiera.yaml opens with --- and its two-line header: removing the only key leaves both
    # (acceptance D2's residue: the --- went with the last key)
    stock = "---\n# This file is for custom hiera overrides, see\n# https://docs.theforeman.org/ for details.\n"
    merged, _ = merge_values(stock + "foreman::db_pool: 5\n", {}, {}, {"*": "foretune"}, remove=["foreman::db_pool"])
    assert merged == stock
    merged, _ = merge_values("---\nforeman::db_pool: 5\n", {}, {}, {"*": "foretune"}, remove=["foreman::db_pool"])
    assert merged == "---\n"


def test_a_short_installer_header_stays_and_the_site_comment_under_it_goes_with_its_key() -> None:
    # a site's custom-hiera.yaml opens with the installer's one-line header, then its own comment on the first key,
    # with no blank line between: when the key goes, the header stays and the key's comment goes with it (acceptance
    # D10); the header of foreman-installer's own stock file (config/custom-hiera.yaml) is recognised too
    text = ('---\n# This file is for custom hiera overrides\n# locked by a colleague in 2023: "threads stay at 5"\n'
            "foreman::foreman_service_puma_threads_max: 5\napache::mod::event::serverlimit: 64\n")
    merged, _ = merge_values(text, {}, {}, {"*": "foretune"}, remove=["foreman::foreman_service_puma_threads_max"])
    assert merged == "---\n# This file is for custom hiera overrides\napache::mod::event::serverlimit: 64\n"
    upstream = ("---\n# This YAML file lets you set your own custom configuration in Hiera for the\n"
                "# installer puppet modules that might not be exposed to users directly through\n# installer arguments.\n")
    merged, _ = merge_values(upstream + "foreman::db_pool: 5\n", {}, {}, {"*": "foretune"}, remove=["foreman::db_pool"])
    assert merged == upstream


def test_a_kept_nested_comment_keeps_its_indentation_when_the_entry_before_it_goes() -> None:
    # the site's comment on work_mem (kept) stays at its 2 spaces when the stale checkpoint_segments entry before it
    # goes with its own comment (acceptance D10: it was re-indented to 4)
    text = ("---\n# Site tuning, ticket OPS-1234\npostgresql::server::config_entries:\n  # copied from the 6.6 box\n"
            "  checkpoint_segments: 32\n  # raised on purpose for reporting queries, DBA sign-off 2021\n  work_mem: 16MB\n")
    merged, _ = merge_values(text, {}, {}, {"*": "site"}, remove=["postgresql::server::config_entries/checkpoint_segments"])
    assert merged == ("---\n# Site tuning, ticket OPS-1234\npostgresql::server::config_entries:\n"
                      "  # raised on purpose for reporting queries, DBA sign-off 2021\n  work_mem: 16MB\n")
