"""Replay the corpus of malformed inputs (tests/corpus/generate.py) through the CLI.

Each case runs in-process through ``foretune.cli.main`` with captured streams; a sample also runs
as a subprocess under a memory limit and a timeout. Every case must give: no traceback, an exit
status in the documented set, no file written outside its target, no planted secret in any
output, bounded time and memory; damaged archives must report the damage and still give every
fact their intact members hold.
"""

from __future__ import annotations

import io
import json
import os
import re
import resource
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from foretune.cli import main
from foretune.env import Environment
from tests.conftest import REPO
from tests.corpus.generate import EXIT_CODES, FIXTURES, GENERATORS, Case, _tar_bytes, cases, materialize

CASE_SECONDS = 20.0  # generous: the machine running CI is shared; real cases take milliseconds
MEMORY_BYTES = 2 * 1024**3
SAMPLE_EVERY = 97  # every 97th case also runs as a subprocess
WORKERS = max(1, min(2, os.cpu_count() or 1))


class Run:
    def __init__(self, status: int | None, stdout: str, stderr: str, seconds: float, raised: str | None) -> None:
        self.status, self.stdout, self.stderr, self.seconds, self.raised = status, stdout, stderr, seconds, raised


def run(argv: list[str]) -> Run:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, stdin=io.StringIO(""), environ={"TERM": "dumb"})
    start = time.perf_counter()
    try:
        status: int | None = main(argv, env)
        raised = None
    except BaseException as exc:
        status, raised = None, f"{type(exc).__name__}: {str(exc)[:200]}"
    return Run(status, out.getvalue(), err.getvalue(), time.perf_counter() - start, raised)


def _tree(directory: Path) -> set[str]:
    return {str(p.relative_to(directory)) for p in directory.rglob("*")}


def _facts(text: str) -> dict[str, object] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) and "facts" in data else None


def _outputs(directory: Path, case: Case) -> str:
    texts = []
    for rel in case.outputs:
        for path in (directory / rel).rglob("*"):
            if path.is_file():
                texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts)


_WHOLE: dict[str, dict[str, object]] = {}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def whole_facts(fixture: str, directory: Path) -> dict[str, object]:
    """Facts of a fixture's whole (undamaged) tarball, once per process."""
    if fixture not in _WHOLE:
        path = directory.parent / f"whole-{os.getpid()}.tar"
        path.write_bytes(_tar_bytes(FIXTURES / fixture))
        result = run(["facts", str(path), "--format", "json"])
        path.unlink()
        _WHOLE[fixture] = _facts(result.stdout) or {"facts": {}}
    return _WHOLE[fixture]


def _partial_unnamed(case: Case, directory: Path, facts: dict[str, object], stderr: str) -> list[str]:
    """Facts that differ from the whole archive's yet go unnamed by the damage warning."""
    assert case.fixture is not None
    warning = next((line for line in stderr.splitlines() if "facts lost to the damage: " in line), None)
    whole = whole_facts(case.fixture, directory)["facts"]
    differ = [name for name, entry in whole.items()  # type: ignore[union-attr]
              if "value" in entry and facts["facts"].get(name, {}).get("value") != entry["value"]]  # type: ignore[index]
    if not differ:
        return []
    if warning is None:
        return [f"facts differ from the whole archive with no warning: {', '.join(differ[:6])}"]
    named = set(re.findall(r"[a-z_0-9]+", warning.split("facts lost to the damage: ", 1)[1]))
    unnamed = [name for name in differ if name not in named]
    return [f"partial facts not named in the warning: {', '.join(unnamed[:6])}"] if unnamed else []


def check(case: Case, directory: Path, reference_facts: dict[str, object] | None = None) -> list[str]:
    """Run one case; the list of broken promises (empty when all hold)."""
    before = _tree(directory)
    argv = materialize(case, directory)
    after_write = _tree(directory)
    kept = {rel: (directory / rel).read_bytes() for rel in case.unchanged}
    result = run(argv)
    problems = []
    if result.raised:
        problems.append(f"raised {result.raised}")
    if "Traceback" in result.stdout + result.stderr:
        problems.append("traceback in output")
    if result.status not in (case.statuses or EXIT_CODES):
        problems.append(f"exit status {result.status}: {result.stderr.strip()[-160:]}")
    for rel, data in kept.items():
        if (directory / rel).read_bytes() != data:
            problems.append(f"input {rel} was modified")
    for rel, mode in case.modes:
        path = directory / rel
        if not path.is_file() or stat.S_IMODE(path.stat().st_mode) != mode:
            problems.append(f"{rel}: mode {oct(stat.S_IMODE(path.stat().st_mode)) if path.exists() else 'missing'}, not {oct(mode)}")
    if case.plain_text and _CONTROL.search(result.stdout):
        problems.append(f"control character in the output: {_CONTROL.search(result.stdout)!r}")
    if result.seconds > CASE_SECONDS:
        problems.append(f"took {result.seconds:.1f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if peak > MEMORY_BYTES:
        problems.append(f"peak memory {peak // 1048576} MiB")
    created = _tree(directory) - after_write - before
    stray = [p for p in created if not any(p == o or p.startswith(o + "/") for o in case.outputs)]
    if stray:
        problems.append(f"wrote outside its target: {sorted(stray)[:3]}")
    if case.canary and case.canary in result.stdout + result.stderr + _outputs(directory, case):
        problems.append("planted secret in the output")
    facts = _facts(result.stdout) if case.argv[:1] == ("facts",) and "json" in case.argv else None
    if facts is not None:
        for name in case.expect_known:
            entry = facts["facts"].get(name, {})  # type: ignore[union-attr]
            if entry.get("unknown"):
                problems.append(f"fact {name} from an intact file is unknown: {entry.get('reason')}")
    if case.damaged:
        reported = any(w in result.stderr for w in ("truncated", "corrupt", "not a readable tar archive", "not a sosreport"))
        if not reported:
            problems.append("damage not reported")
        if "empty file" in result.stderr:
            problems.append("damaged data reported as an empty file")
    if case.fixture is not None and facts is not None:
        problems += _partial_unnamed(case, directory, facts, result.stderr)
    if reference_facts is not None:
        if facts is None:
            problems.append(f"no facts from a damaged archive whose intact members hold some (exit {result.status}: "
                            f"{result.stderr.strip()[:160]})")
        else:
            for name, entry in reference_facts["facts"].items():  # type: ignore[union-attr]
                if "value" in entry and facts["facts"].get(name, {}).get("value") != entry["value"]:  # type: ignore[union-attr]
                    problems.append(f"fact {name} readable from the intact members is missing or differs")
    return problems


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="foretune-corpus-") as folder:
        yield Path(folder)


def _reference(case: Case, directory: Path, cache: dict[bytes, dict[str, object] | None]) -> dict[str, object] | None:
    """Facts of the archive holding only the intact members (None when it is no sosreport on its own)."""
    data = dict(case.files)[case.reference]
    assert isinstance(data, bytes)
    if data not in cache:
        path = directory.parent / f"reference-{os.getpid()}.tar"
        path.write_bytes(data)
        result = run(["facts", str(path), "--format", "json"])
        path.unlink()
        facts = _facts(result.stdout) if result.status == 0 else None
        known = [e for e in (facts or {}).get("facts", {}).values() if "value" in e]  # type: ignore[union-attr]
        cache[data] = facts if known else None
    return cache[data]


def _replay(job: tuple[str, int, int, str]) -> list[str]:
    """Failures of every ``step``-th case of ``kind`` from ``start`` (one worker's share)."""
    kind, start, step, folder = job
    workdir = Path(folder)
    failures: list[str] = []
    cache: dict[bytes, dict[str, object] | None] = {}
    for case in cases(kind)[start::step]:
        directory = workdir / case.id
        directory.mkdir()
        reference = _reference(case, directory, cache) if case.reference else None
        for problem in check(case, directory, reference):
            failures.append(f"{case.id}: {problem}")
        _remove(directory)
    return failures


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(GENERATORS))
def test_corpus_class(kind: str, workdir: Path) -> None:
    """Every case of one class keeps every promise (cases shared between worker processes)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    cases(kind)  # generate once, before forking
    cwd_before = set(os.listdir(REPO))
    jobs = [(kind, start, WORKERS * 4, str(workdir)) for start in range(WORKERS * 4)]
    with ProcessPoolExecutor(max_workers=WORKERS, mp_context=multiprocessing.get_context("fork")) as pool:
        failures = [f for result in pool.map(_replay, jobs) for f in result]
    assert set(os.listdir(REPO)) == cwd_before, "files appeared in the working directory"
    assert not failures, f"{len(failures)} failures, e.g.:\n" + "\n".join(sorted(failures)[:15])


def test_corpus_is_large_and_deterministic() -> None:
    first = cases()
    assert len(first) >= 5000
    assert len({c.id for c in first}) == len(first)
    again = cases("argv")
    assert [c.argv for c in again] == [c.argv for c in first if c.kind == "argv"]


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


@pytest.mark.slow
def test_sample_as_subprocesses(workdir: Path) -> None:
    """A sample of the corpus as real processes: memory-limited, time-limited, no traceback."""
    failures = []
    sample = [c for i, c in enumerate(cases()) if i % SAMPLE_EVERY == 0 and "bomb" not in c.tags
              and not any("\x00" in a for a in c.argv)]  # a process argument cannot hold NUL
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(REPO / "src"), "TERM": "dumb"}
    for case in sample:
        directory = workdir / f"sub-{case.id}"
        directory.mkdir()
        argv = materialize(case, directory)
        try:
            done = subprocess.run([sys.executable, "-m", "foretune", *argv], capture_output=True, text=True, errors="replace",
                                  env=env, timeout=60, preexec_fn=_limit_memory, stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            failures.append(f"{case.id}: timed out")
            continue
        if "Traceback" in done.stdout + done.stderr:
            failures.append(f"{case.id}: traceback")
        if done.returncode not in EXIT_CODES:
            failures.append(f"{case.id}: exit status {done.returncode}: {done.stderr.strip()[:120]}")
        if case.canary and case.canary in done.stdout + done.stderr:
            failures.append(f"{case.id}: planted secret in the output")
        _remove(directory)
    assert len(sample) >= 40
    assert not failures, "\n".join(failures[:15])


def _remove(directory: Path) -> None:
    import shutil

    shutil.rmtree(directory, ignore_errors=True)
