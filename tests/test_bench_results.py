"""The foretune-bench/1 document: schema (jsonschema), load() and its validation agree."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from foretune.bench import results
from foretune.errors import InputError
from tests.conftest import run_cli

STORAGE_ITEM: dict[str, Any] = {
    "directory": "/var/lib/pulp", "job": "seq-read", "read_mb_s": 812.3, "write_mb_s": None, "read_iops": 207955.0,
    "write_iops": None, "lat_p50_ms": 0.004, "lat_p99_ms": 0.12, "verdict": "pass",
    "threshold": {"key": "bench-seq-read-expected", "value": 100, "unit": "MB/s", "citation": "bench-fd-benchmark-disk"},
    "message": "812.3 MB/s sequential buffered reads", "device": {"fstype": "xfs", "rotational": False, "nfs": False},
}
DB_ITEM: dict[str, Any] = {"test": "read-write", "clients": 4, "tps": 1500.2, "lat_avg_ms": 2.6, "lat_p95_ms": 4.1}


def _validator() -> jsonschema.protocols.Validator:
    schema = results.schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def _doc(kind: str, item: dict[str, Any]) -> dict[str, Any]:
    return results.document(kind, [copy.deepcopy(item)], tool_version="fio-3.33", mode="direct")


def test_built_documents_match_the_schema() -> None:
    validator = _validator()
    for kind, item in (("storage", STORAGE_ITEM), ("db", DB_ITEM)):
        doc = _doc(kind, item)
        validator.validate(doc)
        assert results.validate(doc) == []


BREAKAGES = [
    ("storage", lambda d: d.pop("host")),
    ("storage", lambda d: d.update(schema="foretune-bench/2")),
    ("storage", lambda d: d.update(kind="network")),
    ("storage", lambda d: d["results"][0].update(job="seq-read-fast")),
    ("storage", lambda d: d["results"][0].update(verdict="ok")),
    ("storage", lambda d: d["results"][0].update(read_mb_s="fast")),
    ("storage", lambda d: d["results"][0].update(read_mb_s=-1)),
    ("storage", lambda d: d["results"][0].pop("device")),
    ("storage", lambda d: d["results"][0]["device"].update(nfs="no")),
    ("storage", lambda d: d["results"][0].update(threshold={"key": "x"})),
    ("db", lambda d: d["results"][0].update(test="write-only")),
    ("db", lambda d: d["results"][0].update(clients=0)),
    ("db", lambda d: d["results"][0].pop("tps")),
    ("db", lambda d: d.update(results={})),
]


@pytest.mark.parametrize(("kind", "breakage"), BREAKAGES)
def test_schema_and_load_reject_the_same_documents(tmp_path: Path, kind: str, breakage: Any) -> None:
    doc = _doc(kind, STORAGE_ITEM if kind == "storage" else DB_ITEM)
    breakage(doc)
    assert list(_validator().iter_errors(doc)), "schema should reject this"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"bad\.json: not a foretune-bench/1 document"):
        results.load(path)


def test_load_round_trip_and_unreadable_files(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    results.write(_doc("storage", STORAGE_ITEM), str(good))
    assert results.load(good)["results"][0]["read_mb_s"] == 812.3
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        results.load(tmp_path / "junk.json")
    with pytest.raises(InputError, match="cannot read"):
        results.load(tmp_path / "missing.json")


def test_a_real_storage_run_validates(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    result = run_cli("bench", "storage", "--direct", "--size", "8m", "--runtime", "1", "--output", str(out), str(tmp_path))
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert result.status == (1 if any(r["verdict"] == "fail" for r in doc["results"]) else 0), result.stderr  # bench --help
    _validator().validate(doc)
    assert results.load(out) == doc
    assert f"foretune: wrote {out}" in result.stderr
    assert "seq-read" in result.stdout and not result.stdout.lstrip().startswith("{")  # the summary is still shown


def test_recorded_documents_validate() -> None:
    from tests.conftest import REPO

    folder = REPO / "tests" / "fixtures" / "bench"
    kinds = set()
    for path in sorted(folder.glob("*.json")):
        doc = results.load(path)
        _validator().validate(doc)
        kinds.add(doc["kind"])
    assert kinds == {"storage", "db"}
