"""fio: command lines, JSON from several fio versions, and a real run."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from foretune.bench import fio
from foretune.bench.fio import FioJob
from foretune.errors import InputError
from tests.conftest import REPO

FIXTURES = REPO / "tests" / "fixtures" / "fio"


def _load(name: str) -> fio.FioRun:
    return fio.parse((FIXTURES / name).read_text(encoding="utf-8"))


def test_quick_job_is_foreman_maintains_command() -> None:
    job = FioJob("quick-seq-read", "job1", "read", 1024**3, direct=True, unlink=True)
    args = fio.job_args(job, "/var/lib/pulp/x")
    # foreman-maintain: fio --name=job1 --rw=read --size=1g --output-format=json --directory=DIR --direct=1 --unlink=1
    assert args == ["--name=job1", "--rw=read", "--size=1g", "--output-format=json", "--directory=/var/lib/pulp/x",
                    "--direct=1", "--unlink=1"]


def test_size_arg_units() -> None:
    assert fio.size_arg(3 * 1024**3) == "3g"
    assert fio.size_arg(64 * 1024**2) == "64m"
    assert fio.size_arg(12 * 1024) == "12k"
    assert fio.size_arg(1000) == "1000"


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("fio-3.33-quick-read.json", "fio-3.33"),
        ("fio-3.33-randrw.json", "fio-3.33"),
        ("fio-3.33-fdatasync.json", "fio-3.33"),
        ("fio-3.33-randread-qd16.json", "fio-3.33"),
        ("fio-3.33-note-before-json.json", "fio-3.33"),
        ("fio-2.2.10-quick-read.json", "fio-2.2.10"),
        ("fio-2.1.11-randrw.json", "fio-2.1.11"),
    ],
)
def test_every_recording_parses(name: str, version: str) -> None:
    run = _load(name)
    assert run.version == version
    assert run.read.ios or run.write.ios
    busy = run.read if run.read.ios else run.write
    assert busy.mb_s is not None and busy.mb_s > 0
    assert busy.lat_p50_ms is not None and busy.lat_p99_ms is not None
    assert 0 < busy.lat_p50_ms <= busy.lat_p99_ms < 1000  # milliseconds, not ns or us


def test_fio3_figures_match_the_raw_json() -> None:
    raw = json.loads((FIXTURES / "fio-3.33-quick-read.json").read_text())["jobs"][0]["read"]
    run = _load("fio-3.33-quick-read.json")
    assert run.read.ios == raw["total_ios"]
    assert run.read.mb_s == pytest.approx(raw["bw"] / 1024, rel=1e-3)  # foreman-maintain's MB/sec
    assert run.read.lat_p99_ms == pytest.approx(raw["clat_ns"]["percentile"]["99.000000"] / 1e6)
    assert run.write.ios == 0 and run.write.mb_s is None and run.write.lat_p99_ms is None


@pytest.mark.parametrize(("old", "new"), [("fio-2.2.10-quick-read.json", "fio-3.33-quick-read.json"),
                                          ("fio-2.1.11-randrw.json", "fio-3.33-randrw.json")])
def test_fio2_and_fio3_layouts_of_the_same_run_agree(old: str, new: str) -> None:
    a, b = _load(old), _load(new)
    for left, right in ((a.read, b.read), (a.write, b.write)):
        assert (left.mb_s is None) == (right.mb_s is None)
        if right.mb_s is not None:
            assert left.mb_s == pytest.approx(right.mb_s, rel=1e-3)
            assert left.iops == pytest.approx(right.iops, rel=1e-3)
            # fio 2 prints whole microseconds
            assert left.lat_p99_ms == pytest.approx(right.lat_p99_ms, abs=1e-3)
            assert left.lat_p50_ms == pytest.approx(right.lat_p50_ms, abs=1e-3)


def test_fio21_without_total_ios_estimates_the_count_from_iops_and_runtime() -> None:
    run = _load("fio-2.1.11-randrw.json")
    raw = json.loads((FIXTURES / "fio-2.1.11-randrw.json").read_text())["jobs"][0]["read"]
    assert "total_ios" not in raw
    # by hand: "iops": 8428.76 over "runtime": 772 (ms) is 6506.999 I/Os; "io_bytes": 26028 (KiB) / 4 KiB blocks = 6507
    assert (raw["iops"], raw["runtime"], raw["io_bytes"]) == (8428.76, 772, 26028)
    assert run.read.ios == 6507


def test_idle_direction_with_zero_percentiles_in_fio2_reports_nothing() -> None:
    raw = json.loads((FIXTURES / "fio-2.2.10-quick-read.json").read_text())["jobs"][0]["write"]
    assert raw["clat"]["percentile"]["99.000000"] == 0  # fio 2.x prints the table anyway
    run = _load("fio-2.2.10-quick-read.json")
    assert run.write.lat_p99_ms is None and run.write.mb_s is None


def test_flush_latency_comes_from_the_sync_block() -> None:
    raw = json.loads((FIXTURES / "fio-3.33-fdatasync.json").read_text())["jobs"][0]["sync"]["lat_ns"]["percentile"]
    run = _load("fio-3.33-fdatasync.json")
    assert run.sync_p99_ms == pytest.approx(raw["99.000000"] / 1e6)
    assert _load("fio-3.33-quick-read.json").sync_p99_ms is None


def test_warning_line_before_the_json_is_skipped() -> None:
    text = (FIXTURES / "fio-3.33-note-before-json.json").read_text()
    assert text.startswith("note:")
    assert _load("fio-3.33-note-before-json.json").read.ios == 2048


def test_garbage_and_failed_jobs_are_one_line_errors() -> None:
    with pytest.raises(InputError, match="no JSON result"):
        fio.parse("fio: pid=1, err=2/file:filesetup.c:100, func=open, error=No such file or directory\n")
    doc = json.loads((FIXTURES / "fio-3.33-quick-read.json").read_text())
    doc["jobs"][0]["error"] = 22
    with pytest.raises(InputError, match="job1 failed with error 22"):
        fio.parse(json.dumps(doc))


def test_eta_lines() -> None:
    assert fio.parse_eta("Jobs: 1 (f=1): [R(1)][45.5%][r=1MiB/s][eta 1d:02h:00m:05s]") == (45.5, 93605)
    assert fio.parse_eta("Jobs: 1 (f=1)") is None


def test_missing_fio_names_the_packages() -> None:
    with pytest.raises(InputError) as info:
        fio.fio_path({"PATH": "/nonexistent"})
    assert "RHEL: dnf install fio" in str(info.value) and "apt-get install fio" in str(info.value)


def test_real_fio_run_reports_progress_and_figures(tmp_path: Path) -> None:
    job = FioJob("lat-qd1", "lat-qd1", "randread", 8 * 1024**2, bs="4k", direct=True, ioengine="psync", runtime=1,
                 filename="data")
    seen: list[tuple[float, int]] = []
    run = fio.run(fio.fio_path(), job, str(tmp_path), str(tmp_path / "out.json"), on_status=lambda p, e: seen.append((p, e)))
    assert run.version.startswith("fio-")
    assert run.read.ios > 0 and run.read.mb_s and run.read.mb_s > 0
    assert run.write.ios == 0
    assert run.read.lat_p99_ms is not None and not math.isnan(run.read.lat_p99_ms)
    assert (tmp_path / "data").stat().st_size == 8 * 1024**2
    assert all(0 <= p <= 100 for p, _ in seen)
