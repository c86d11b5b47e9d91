"""Fuzz on demand: N generated hostile inputs through the CLI, counted by what went wrong.

    python3 dev.py fuzz 10000 [--seed S] [--workers W]

Each case is made from (seed, index) alone by one of the mutators below — damaged bytes in a file a
sosreport holds, secrets placed by protocol words, odd values where a number is expected, terminal
escape sequences, damaged snapshots and archives, odd command-line values — and replayed in-process
with the promises of the regression corpus (``tests/corpus/test_corpus.check``): no traceback, an
exit status of 0, 1 or 2, bounded time and memory, no planted secret in any output, inputs untouched.

It prints counts: cases, crashes (a traceback, an exception, exit status 3), hangs (over the time
cap, or stopped by the alarm), memory blowups (over the cap) and the peak resident memory, secret
leaks, and other broken promises, with the first examples of each. Exit status 1 when any is not 0.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.corpus import generate as g
from tests.corpus.generate import Big, Case

HANG_SECONDS = 60  # the alarm: a case still running then is a hang (the time promise is g.CASE_SECONDS-like, 20 s)
MEMORY_CAP = 2 * 1024**3
TOKENS = (b"\x1b[2J", b"\x1b]0;t\x07", b"\x9b", b"\x00", b"\xff\xfe", b"9" * 400, b"1e400", b"-1", b"NaN", b"!!timestamp 2024-13-45",
          b"&a", b"*a", b"|\n  x\n", b"{", b"[", b"'", b'"', b"\\", b"\n" * 3, b"\r", b"\t", b"::", b"=>", b": ", b"=", b" " * 300,
          "\u0663".encode(), b"password: ", b"Authorization: Bearer ", b"Cookie: _session_id=", b"user default on >",
          b"%(x)s", b"${x}", b"<x>", b"</x>", b"---\n", b"...\n")


def _mutate(data: bytes, rng: random.Random) -> bytes:
    """``data`` with a few random edits: bit flips, cuts, duplicated runs, hostile tokens."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(5)
        at = rng.randrange(len(out) + 1)
        if op == 0 and out:
            out[min(at, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            del out[at:at + rng.randint(1, 200)]
        elif op == 2 and out:
            run = out[at:at + rng.randint(1, 100)]
            out[at:at] = run * rng.randint(1, 20)
        else:
            out[at:at] = rng.choice(TOKENS)
    return bytes(out[: 4 * 1024 * 1024])


def _fixture_file(rng: random.Random) -> tuple[str, bytes]:
    """A random file of a random fixture sosreport that foretune reads."""
    tree = g.FIXTURES / rng.choice(g.FIXTURE_NAMES)
    files = sorted(p for p in tree.rglob("*") if p.is_file() and not p.is_symlink())
    path = rng.choice(files)
    return str(path.relative_to(tree)), path.read_bytes()


def text_case(case_id: str, rng: random.Random) -> Case:
    if rng.random() < 0.5:
        rel, data = _fixture_file(rng)
    else:
        rel = rng.choice(_targets())
        data = rng.choice(_payloads())[1]
        data = data.render()[:65536] if isinstance(data, Big) else data if isinstance(data, bytes) else b""
    secret = g.canary(case_id)
    secret_rel, secret_text = g._secret_line(rel, secret)
    files = g._sosreport({secret_rel: secret_text})
    files[f"sos/{g.TOP}/{rel}"] = _mutate(data, rng)
    command = rng.choice((*g.TEXT_COMMANDS, ("logs", "{src}"), ("logs", "{src}", "--format", "json")))
    return Case(case_id, "fuzz-text", tuple(a.replace("{src}", f"{{dir}}/sos/{g.TOP}") for a in command), tuple(files.items()),
                canary=secret)


def secret_case(case_id: str, rng: random.Random) -> Case:
    rel, form = rng.choice(g.LOG_FORMS)
    secret = g.canary(case_id)
    noise = bytes(rng.choice(b"abc =:;,\"'{}") for _ in range(rng.randrange(40))).decode()
    text = noise + form.replace("{s}", secret) + noise + "\n"
    files = g._sosreport({rel: text.encode()})
    command = rng.choice(g.SECRET_COMMANDS)
    return Case(case_id, "fuzz-secrets", tuple(a.replace("{src}", f"{{dir}}/sos/{g.TOP}") for a in command), tuple(files.items()),
                canary=secret)


def value_case(case_id: str, rng: random.Random) -> Case:
    key = rng.choice(g.COUNT_KEYS)
    value = rng.choice(g.ODD_VALUES) if rng.random() < 0.6 else _mutate(rng.choice(g.ODD_VALUES).encode(), rng).decode("utf-8", "replace")
    text = f"{key}: {value}\n".encode()
    sos = f"{{dir}}/sos/{g.TOP}"
    if rng.random() < 0.7:
        files = g._sosreport({"etc/foreman-installer/custom-hiera.yaml": text})
    else:
        module, _, param = key.rpartition("::")
        files = g._sosreport({"etc/foreman-installer/scenarios.d/satellite-answers.yaml": f"{module}:\n  {param}: {value}\n".encode()})
    files["h.yaml"] = text
    command = rng.choice((("plan", "--from", sos, "--hosts", "500"), ("audit", sos, "--hosts", "500"),
                          ("render", "--from", sos, "--hosts", "500", "--merge-into", "{dir}/h.yaml")))
    return Case(case_id, "fuzz-values", command, tuple(files.items()), outputs=("h.yaml",))


def log_case(case_id: str, rng: random.Random) -> Case:
    """A log of random, partly valid lines (durations, escapes, secrets) through ``logs`` in any format."""
    secret = g.canary(case_id)
    number = rng.choice(("1e400", "9" * rng.randint(1, 500), "inf", "nan", "-5", "0", str(rng.random() * 10**rng.randint(0, 300))))
    lines = [f"{g.STAMP} [I|app|a1b2c3d4] Processing by HostsController#index as JSON",
             f"{g.STAMP} [I|app|a1b2c3d4] Completed 200 OK in {number}ms (Views: {number}ms | ActiveRecord: {number}ms)",
             f'10.0.0.1 - - [12/Feb/2024:10:00:00 +0000] "GET https://u:{secret}@h/x HTTP/1.1" 200 {number}',
             f"2024-02-12 10:00:00 UTC LOG:  duration: {number} ms  statement: ALTER USER x PASSWORD '{secret}'",
             rng.choice(("\x1b[2J", "\x9b31m", "\x07", "\x1b]0;x\x07")) + "escape",
             f"Authorization: Bearer {secret}"]
    rng.shuffle(lines)
    name = rng.choice(("production.log", "foreman-ssl_access_ssl.log", "postgresql-Mon.log", "messages", "candlepin.log"))
    fmt = rng.choice(("text", "json", "html", "markdown"))
    return Case(case_id, "fuzz-logs", ("logs", "{dir}/" + name, "--format", fmt), ((name, "\n".join(lines).encode() + b"\n"),),
                canary=secret, plain_text=fmt == "text")


def snapshot_case(case_id: str, rng: random.Random) -> Case:
    doc = json.loads(json.dumps(_base()))
    for _ in range(rng.randint(1, 3)):
        name = rng.choice(sorted(doc["facts"]))
        doc["facts"][name] = {"value": _odd(rng, 3), "provenance": [{"source": "x", "location": "y", "excerpt": "z"}]}
    data = json.dumps(doc).encode()
    if rng.random() < 0.3:
        data = _mutate(data, rng)
    if rng.random() < 0.3:
        data = gzip.compress(data, mtime=0)
        name = "s.json.gz"
    else:
        name = "s.json"
    command = rng.choice(g.SNAPSHOT_COMMANDS)
    return Case(case_id, "fuzz-snapshot", tuple(a.replace("{src}", "{dir}/" + name) for a in command), ((name, data),))


def _odd(rng: random.Random, depth: int) -> object:
    pick = rng.randrange(8)
    if depth <= 0 or pick < 4:
        return rng.choice(g.BAD_VALUES)
    if pick < 6:
        return [_odd(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(("workers", "value", "x", "LimitNOFILE", "max_connections")): _odd(rng, depth - 1) for _ in range(rng.randint(0, 3))}


def archive_case(case_id: str, rng: random.Random) -> Case:
    fixture = rng.choice(g.FIXTURE_NAMES)
    kind = rng.choice(("", "gz", "xz", "bz2"))
    whole = g.compress(g._tar_bytes(g.FIXTURES / fixture), kind)
    data = bytearray(whole[: rng.randint(1, len(whole))] if rng.random() < 0.5 else whole)
    flips = rng.randint(0, 3)
    for _ in range(flips):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    name = "d" + g.SUFFIX[kind]
    # a cut alone: every fact that differs from the whole archive's must be named; a flip before a cut changes data
    # that no checksum covers any more, so no reader can tell
    return Case(case_id, "fuzz-archive", ("facts", "{dir}/" + name, "--format", "json"), ((name, bytes(data)),),
                damaged=bytes(data) != whole and kind != "", fixture=fixture if len(data) < len(whole) and not flips else None)


def argv_case(case_id: str, rng: random.Random) -> Case:
    base, option = rng.choice(g.NUMERIC_OPTIONS)
    value = rng.choice(g.ODD_NUMBERS)
    if rng.random() < 0.3:
        value = _mutate(value.encode(), rng).decode("utf-8", "replace").replace("\x00", "")
    argv = tuple(a.replace("{fixture}", str(g.FIXTURES / "satellite-6.15")) for a in base)
    return Case(case_id, "fuzz-argv", (*argv, option, value))


MUTATORS = ((text_case, 30), (secret_case, 15), (value_case, 15), (log_case, 15), (snapshot_case, 10), (archive_case, 8),
            (argv_case, 7))
_CACHE: dict[str, object] = {}


def _targets() -> list[str]:
    if "targets" not in _CACHE:
        _CACHE["targets"] = g._targets()
    return _CACHE["targets"]  # type: ignore[return-value]


def _payloads() -> list[tuple[str, object]]:
    if "payloads" not in _CACHE:
        _CACHE["payloads"] = g._payloads(random.Random(g.SEED))
    return _CACHE["payloads"]  # type: ignore[return-value]


def _base() -> dict[str, object]:
    if "base" not in _CACHE:
        _CACHE["base"] = g._base_snapshot()
    return _CACHE["base"]  # type: ignore[return-value]


def make_case(seed: int, index: int) -> Case:
    """Case ``index`` of the run with ``seed``: the same every time."""
    rng = random.Random(f"fuzz-{seed}-{index}")
    mutators, weights = zip(*MUTATORS)
    mutator = rng.choices(mutators, weights=weights)[0]
    return mutator(f"fuzz-{index:06d}", rng)


class _Alarm(Exception):
    pass


def _on_alarm(signum: int, frame: object) -> None:
    raise _Alarm()


def _run_one(job: tuple[int, int, str]) -> tuple[int, str, list[str], float, int]:
    """(index, kind, broken promises, seconds, peak RSS in bytes) of one case."""
    from tests.corpus.test_corpus import check

    seed, index, folder = job
    case = make_case(seed, index)
    directory = Path(folder) / case.id
    directory.mkdir()
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(HANG_SECONDS)
    start = time.perf_counter()
    try:
        problems = check(case, directory)
    except _Alarm:
        problems = [f"hang: still running after {HANG_SECONDS} s"]
    except BaseException as exc:  # the harness itself must survive any case
        problems = [f"raised {type(exc).__name__} in the harness: {str(exc)[:120]}"]
    finally:
        signal.alarm(0)
    seconds = time.perf_counter() - start
    shutil.rmtree(directory, ignore_errors=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return index, case.kind, problems, seconds, peak


def classify(problem: str) -> str:
    if problem.startswith(("raised", "traceback", "exit status 3", "exit status None")):
        return "crashes"
    if problem.startswith(("hang", "took")):
        return "hangs"
    if problem.startswith("peak memory"):
        return "memory blowups"
    if "planted secret" in problem:
        return "secret leaks"
    return "other broken promises"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dev.py fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, nargs="?", default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    args = parser.parse_args(argv)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _targets(), _payloads(), _base()  # computed once, before the workers fork
    counts: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    peak = slowest = 0.0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="foretune-fuzz-") as folder:
        jobs = [(args.seed, index, folder) for index in range(args.count)]
        with ProcessPoolExecutor(max_workers=args.workers, mp_context=multiprocessing.get_context("fork"),
                                 initializer=_limit_memory) as pool:
            for done, (index, kind, problems, seconds, rss) in enumerate(pool.map(_run_one, jobs, chunksize=20), 1):
                kinds[kind] += 1
                peak, slowest = max(peak, rss), max(slowest, seconds)
                for group in {classify(p) for p in problems}:
                    counts[group] += 1
                    examples.setdefault(group, []).extend(f"fuzz-{index:06d} ({kind}): {p}" for p in problems
                                                          if classify(p) == group)
                if done % 1000 == 0:
                    print(f"  {done:,} cases, {sum(counts.values())} with a broken promise", file=sys.stderr, flush=True)
    print(f"foretune fuzz: {args.count:,} generated cases (seed {args.seed}, {args.workers} workers, "
          f"{time.monotonic() - started:,.0f} s)")
    print("  by mutator: " + ", ".join(f"{k} {n:,}" for k, n in sorted(kinds.items())))
    for group in ("crashes", "hangs", "memory blowups", "secret leaks", "other broken promises"):
        print(f"  {group + ':':<23}{counts[group]:>6}")
    print(f"  {'peak memory:':<23}{peak / 1048576:>6.0f} MiB per worker (cap {MEMORY_CAP // 1048576} MiB)")
    print(f"  {'slowest case:':<23}{slowest:>6.1f} s (hang after {HANG_SECONDS} s)")
    for group, lines in sorted(examples.items()):
        print(f"{group}, first examples:")
        for line in lines[:8]:
            print("  " + line)
    return 1 if sum(counts.values()) else 0


def _limit_memory() -> None:
    """Each worker may use at most the cap (address space): a blowup fails that case, not the machine."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = MEMORY_CAP + 1024**3  # the interpreter and its libraries besides the case
    if hard == resource.RLIM_INFINITY or hard > limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


if __name__ == "__main__":
    sys.exit(main())
