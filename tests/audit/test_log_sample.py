"""A long production.log: a sosreport directory reads it as its archive does, and the report says what it counted.

satellite-6.15-overcommitted (Puma 24 workers x 16 threads: capacity 384) with a production.log written here: a
first minute with ``early`` requests open at once, then 20,000 requests one after another (3.4 MB: past a 1 MiB sample),
``late`` requests open at once at 07:50, then one failing request whose ConnectionTimeoutError comes after a line of another request stamped a minute later.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli
from tests.facts.archive import pack

SOS = REPO / "tests" / "fixtures" / "sosreports" / "satellite-6.15-overcommitted"
FILLER = 20_000


def _at_once(minute: int, count: int) -> list[bytes]:
    return [b"2024-05-13T07:%02d:00 [I|app|e%07d] Processing by HostsController#index as JSON\n" % (minute, i) for i in range(count)] \
        + [b"2024-05-13T07:%02d:30 [I|app|e%07d] Completed 200 OK in 5ms (ActiveRecord: 1.0ms)\n" % (minute, i) for i in range(count)]


def production_log(early: int, late: int = 0) -> bytes:
    lines = _at_once(0, early)
    for i in range(FILLER):
        stamp = b"2024-05-13T07:%02d:%02d" % (1 + i // 600, i // 10 % 60)
        lines.append(b"%s [I|app|f%07d] Processing by HostsController#index as JSON\n" % (stamp, i))
        lines.append(b"%s [I|app|f%07d] Completed 200 OK in 5ms (ActiveRecord: 1.0ms)\n" % (stamp, i))
    lines += _at_once(50, late)
    lines += [b"2024-05-13T07:59:00 [I|app|later001] Processing by HostsController#index as JSON\n",
              b"2024-05-13T07:58:05 [W|app|fail0001] Action failed\n",
              b" fail0001 | ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool within 5.000 seconds\n",
              b" fail0001 | /usr/share/gems/gems/activerecord-6.1.7.6/lib/active_record/connection_adapters/abstract/connection_pool.rb:210\n",
              b"2024-05-13T07:59:00 [I|app|later001] Completed 200 OK in 5ms (ActiveRecord: 1.0ms)\n"]
    return b"".join(lines)


def tree(tmp_path: Path, early: int, late: int = 0) -> Path:
    out = tmp_path / "sos"
    shutil.copytree(SOS, out, symlinks=True)
    (out / "var/log/foreman/production.log").write_bytes(production_log(early, late))
    return out


def incidents(source: Path) -> list[dict[str, Any]]:
    result = run_cli("facts", str(source), "--only", "log_incidents", "--format", "json")
    assert result.status == 0, result.stderr
    return json.loads(result.stdout)["facts"]["log_incidents"]["value"]  # type: ignore[no-any-return]


@pytest.fixture(autouse=True)
def small_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("foretune.logs.prefilter.SAMPLE_BYTES", 1024 * 1024)


@pytest.mark.parametrize("early", [400, 2])
def test_a_directory_gives_the_facts_of_its_archive(tmp_path: Path, early: int) -> None:
    """Both count concurrency over the sample: Puma at capacity at 07:50, past it, is seen by neither."""
    sos = tree(tmp_path, early=early, late=400)
    from_dir = incidents(sos)
    assert from_dir == incidents(pack(sos, tmp_path / "sosreport-sat615b-2024-05-13-abcdef.tar.xz"))
    rows = {(r["kind"], r["service"]): r for r in from_dir}
    # the pool timeout at its own request's time, not the later line's before it
    timeout = rows[("db_pool_timeout", "foreman")]
    assert (timeout["count"], timeout["first"], timeout["last"]) == (1, "2024-05-13T07:58:05", "2024-05-13T07:58:05")
    assert timeout["path"] == "var/log/foreman/production.log"
    if early >= 384:
        assert (rows[("queue_at_capacity", "puma")]["first"], rows[("queue_at_capacity", "puma")]["last"]) == \
            ("2024-05-13T07:00:00", "2024-05-13T07:00:59")
    else:
        assert ("queue_at_capacity", "puma") not in rows


@pytest.mark.parametrize("early", [400, 2])
def test_the_report_says_concurrency_was_counted_over_a_sample(tmp_path: Path, early: int) -> None:
    sos = tree(tmp_path, early)
    lines = 2 * early + 2 * FILLER + 5
    result = run_cli("audit", str(sos), "--format", "json")
    notes = [n for n in json.loads(result.stdout)["notes"] if "counted over the first" in n]
    assert len(notes) == 1, result.stdout[-2000:]
    note = notes[0]
    assert note.startswith("var/log/foreman/production.log: requests open at once (Puma concurrency) counted over the first ")
    assert f" of {lines:,} lines (1 MiB) only: " in note
    if early >= 384:  # the sample saw Puma at capacity: the note does not read as if none was found
        assert "Puma at capacity is seen in them (from 2024-05-13T07:00:00)" in note and "not seen" not in note
    else:
        assert "a saturation later in this log is not seen here" in note
    assert note in result.stderr
    for suffix in ("txt", "md", "html"):
        out = tmp_path / f"report.{suffix}"
        run_cli("audit", str(sos), "--output", str(out))
        assert "counted over the first" in out.read_text(encoding="utf-8"), suffix
