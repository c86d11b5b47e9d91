"""Could a compiled wheel take `foretune logs` on production.log to 50x `wc -l` CPU? Measured side by side.

Runs, interleaved for --rounds rounds on the same file: ``wc -l``, ``foretune logs FILE --jobs 1
--format json`` (the pure-Python reader), and the heavy part of production.log's analysis written
for each candidate wheel (polars, pyarrow.compute, duckdb). Prints CPU seconds (user + sys of the
process and all its threads, from ``os.wait4``), wall seconds, the ratio to ``wc -l``'s CPU and peak
RSS, with the load average before and after each round.

A candidate here computes less than ``logs`` does, so its figure is a floor for an accelerator:
per ``Controller#action`` latency buckets (the sketch's keys), sums and status classes, requests
and 5xx per minute, requests open at once per minute (log order), and the registration
``Started`` lines handed back to Python. It leaves out what an accelerator would still need to
match the pure reader's output exactly: the other line shapes (old layouts, journald, multi-line
entries, lines not understood), stale requests, orphans and the limits, the minutes' evidence
lines, incidents, the flows' joins, the report and its JSON, and the start-up of ``foretune``
itself. It takes request ids to be the 8 characters before ``] `` (Foreman >= 1.16's tag), which
favours it.

    python3 bench/logs_accel.py [--size-mb 256] [--dir /var/tmp/foretune-logs-bench] [--rounds 3]
        [--python VENV/bin/python] [--only polars,pyarrow,duckdb] [--block-mb 32]

Two pure-Python floors run beside them (they need no wheel): ``lines`` cuts the blocks into lines with
``bytes.split`` and does nothing else (the least a reader that looks at each line does), and ``stdlib-re``
computes the heavy part without any per-line Python: ``re.findall`` over each block for the ``Processing by``,
``Completed`` and registration ``Started`` lines, the join and the counting done by ``dict``, ``map``,
``zip``, ``Counter`` and ``itertools.accumulate`` in C, and Python only per distinct key (bucket, minute).

``--python`` is an interpreter with the candidates installed (``pip install polars pyarrow duckdb``);
the default is this one. ``candidate NAME FILE [BLOCK_MB]`` runs one candidate alone and prints what it found.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOG_GAMMA = math.log(1.02)  # foretune.logs.sketch.GAMMA: the bucket of a duration d is ceil(log(d) / LOG_GAMMA)
BLOCK = 32 << 20  # bytes of whole lines per block: memory stays bounded whatever the file size
FLOORS = ("lines", "stdlib-re")  # pure Python, no wheel
CANDIDATES = (*FLOORS, "polars", "pyarrow", "duckdb")


def blocks(path: str, size: int) -> Iterator[bytes]:
    """The file in blocks of whole lines (the last may lack its line end)."""
    with open(path, "rb") as stream:
        rest = b""
        while True:
            chunk = stream.read(size)
            if not chunk:
                if rest:
                    yield rest
                return
            chunk = rest + chunk
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                rest = chunk
                continue
            rest = chunk[cut:]
            yield chunk[:cut]


def with_lines(path: str, block_size: int) -> dict[str, int]:
    """The floor of a per-line reader: the blocks cut into lines, nothing else."""
    lines = 0
    for block in blocks(path, block_size):
        lines += len(block.split(b"\n"))
    return {"lines": lines}


def with_stdlib_re(path: str, block_size: int) -> dict[str, int]:
    """The heavy part with the standard library's regexes over whole blocks; no Python code runs per line."""
    import re  # start-up: only this candidate needs it
    from collections import Counter  # start-up: only this candidate needs it
    from itertools import accumulate  # start-up: only this candidate needs it

    processing = re.compile(rb"\|(\w{8})\] Processing by (\S+)")
    completed = re.compile(rb"^(\S{16}):\d\d \[\w\|\w+\|(\w{8})\] Completed (\d)\d\d [^\n]*? in (\d+)ms"
                           rb"(?:[^\n]*?ActiveRecord: ([\d.]+)ms)?", re.M)
    events = re.compile(rb"^(\S{16}):\d\d \[\w\|\w+\|\w{8}\] (P|C)(?:rocessing by |ompleted )", re.M)
    started = re.compile(rb"\] Started (?:POST|GET|PUT) \"/(?:register|rhsm/consumers)")
    names: dict[bytes, bytes] = {}
    per_ms: Counter[tuple[bytes | None, bytes]] = Counter()
    statuses: Counter[tuple[bytes | None, bytes]] = Counter()
    minutes: Counter[bytes] = Counter()
    peaks: dict[bytes, int] = {}
    registration = 0
    level = 0
    for block in blocks(path, block_size):
        names.update(processing.findall(block))
        done = completed.findall(block)
        actions = list(map(names.get, [c[1] for c in done]))
        per_ms.update(zip(actions, [c[3] for c in done]))
        statuses.update(zip(actions, [c[2] for c in done]))
        minutes.update([c[0] for c in done])
        shapes = events.findall(block)
        levels = list(accumulate([1 if shape == b"P" else -1 for _, shape in shapes], initial=level))
        level = levels[-1]
        peaks.update(zip([m for m, _ in shapes], levels[1:]))  # each minute's last level, not its highest: a floor
        registration += len(started.findall(block))
        if len(names) > 200_000:
            names.clear()
    buckets: Counter[tuple[bytes | None, int]] = Counter()
    for (action, ms), n in per_ms.items():
        value = int(ms)
        buckets[action, math.ceil(math.log(value) / LOG_GAMMA) if value > 0 else 0] += n
    return {"buckets": len(buckets), "requests": sum(buckets.values()), "minutes": len(minutes),
            "registration_started": registration}


def with_polars(path: str, block_size: int) -> dict[str, int]:
    """Blocks read by polars' CSV reader (one column), literal finds and fixed slices, regexes only on short fields."""
    import polars as pl  # start-up: only this candidate needs it

    line = pl.col("l")
    tag_end = line.str.find("] ", literal=True)
    buckets: dict[tuple[str, int], int] = {}
    per_minute: dict[int, int] = {}
    peaks: dict[int, int] = {}
    registration = 0
    level = 0
    base = 0
    opened = pl.DataFrame(schema={"pn": pl.UInt32, "rid": pl.String, "action": pl.String})
    for block in blocks(path, block_size):
        frame = pl.read_csv(block, has_header=False, separator="\x1f", quote_char=None, new_columns=["l"],
                            truncate_ragged_lines=True, schema_overrides={"l": pl.String})
        rows = (frame.lazy().with_row_index("n", offset=base)
                .with_columns(tag_end.alias("i"))
                .with_columns(line.str.slice(pl.col("i") + 2, 4).alias("head"))
                .filter(pl.col("head").is_in(["Comp", "Proc", "Star"]) & (line.str.slice(19, 2) == " ["))
                .with_columns(line.str.slice(0, 19).str.to_datetime("%Y-%m-%dT%H:%M:%S", strict=False, cache=True)
                              .dt.epoch("s").alias("t"),
                              line.str.slice(pl.col("i") - 8, 8).alias("rid"))
                .collect())
        base += frame.height
        done = (rows.lazy().filter(pl.col("head") == "Comp")
                .select("n", "t", "rid", line.str.extract(r"\] Completed (\d\d\d) ", 1).alias("status"),
                        line.str.extract(r" in ([0-9.]+)ms", 1).cast(pl.Float64, strict=False).alias("ms"),
                        line.str.extract(r"ActiveRecord: ([0-9.]+)ms", 1).cast(pl.Float64, strict=False).alias("db"))
                .collect())
        started = (rows.lazy().filter(pl.col("head") == "Proc")
                   .select(pl.col("n").alias("pn"), "rid", line.str.extract(r"\] Processing by (\S+)", 1).alias("action"))
                   .collect())
        opened = pl.concat([opened, started])
        joined = done.join_asof(opened, left_on="n", right_on="pn", by="rid", strategy="backward", check_sortedness=False)
        for action, bucket, count in (joined.group_by("action", pl.when(pl.col("ms") > 0).then((pl.col("ms").log() / LOG_GAMMA).ceil()).cast(pl.Int32).alias("b"))
                                      .agg(pl.len(), pl.col("ms").sum(), pl.col("db").sum(),
                                           (pl.col("status").str.starts_with("5")).sum()).select("action", "b", "len").rows()):
            buckets[(action, bucket)] = buckets.get((action, bucket), 0) + count
        for minute, count in joined.group_by((pl.col("t") - pl.col("t") % 60).alias("m")).agg(pl.len()).rows():
            per_minute[minute] = per_minute.get(minute, 0) + count
        moves = (rows.lazy().filter(pl.col("head") != "Star")
                 .select((pl.col("t") - pl.col("t") % 60).alias("m"),
                         (pl.when(pl.col("head") == "Proc").then(1).otherwise(-1).cum_sum() + level).alias("level"))
                 .collect())
        if moves.height:
            level = int(moves["level"][-1])
        for minute, peak in moves.group_by("m").agg(pl.col("level").max()).rows():
            peaks[minute] = max(peaks.get(minute, peak), peak)
        registration += len(rows.filter((pl.col("head") == "Star") & (line.str.contains("/rhsm/consumers", literal=True)
                                                                      | line.str.contains('"/register', literal=True)))
                            .select("n", "t", "rid", "l").rows())
        # requests still open carry over to the next block; completed ones are forgotten (bounded memory)
        opened = opened.join(done.select("rid"), on="rid", how="anti")
    return {"buckets": len(buckets), "requests": sum(buckets.values()), "minutes": len(per_minute), "peak": max(peaks.values(), default=0),
            "registration_started": registration}


def with_pyarrow(path: str, block_size: int) -> dict[str, int]:
    """Blocks read by pyarrow's CSV reader; RE2 extracts (pyarrow has no per-row slice offsets)."""
    import pyarrow as pa  # start-up: only this candidate needs it
    import pyarrow.compute as pc  # start-up: only this candidate needs it
    import pyarrow.csv as pcsv  # start-up: only this candidate needs it

    head_re = r"^(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d) \[[^\]]*\|(?P<rid>[0-9a-f]*)\] (?P<head>Comp|Proc|Star)"
    done_re = r"\] Completed (?P<status>\d{3}) .*? in (?P<ms>[0-9.]+)ms"
    db_re = r"ActiveRecord: (?P<db>[0-9.]+)ms"
    action_re = r"\] Processing by (?P<action>\S+)"
    reader = pcsv.open_csv(path, read_options=pcsv.ReadOptions(column_names=["l"], block_size=block_size),
                           parse_options=pcsv.ParseOptions(delimiter="\x1f", quote_char=False, escape_char=False),
                           convert_options=pcsv.ConvertOptions(column_types={"l": pa.string()}))
    requests = registration = 0
    keys: set[int] = set()
    for batch in reader:
        lines = batch.column(0)
        fields = pc.extract_regex(lines, head_re)
        head = fields.field("head")
        stamps = pc.cast(pc.strptime(fields.field("ts"), "%Y-%m-%dT%H:%M:%S", "s", error_is_null=True), pa.int64())
        is_done, is_proc = pc.equal(head, "Comp"), pc.equal(head, "Proc")
        done = pc.extract_regex(pc.filter(lines, is_done), done_re)
        pc.extract_regex(pc.filter(lines, is_done), db_re)
        pc.extract_regex(pc.filter(lines, is_proc), action_re)
        ms = pc.cast(done.field("ms"), pa.float64())
        positive = pc.greater(ms, 0.0)  # zeros are counted apart (the sketch has no bucket for them)
        bucket = pc.cast(pc.ceil(pc.divide(pc.ln(pc.filter(ms, positive)), LOG_GAMMA)), pa.int32())
        grouped = pa.table({"b": bucket, "s": pc.filter(done.field("status"), positive), "ms": pc.filter(ms, positive)}).group_by(["b", "s"]).aggregate([("ms", "sum"), ("ms", "count")])
        keys.update(grouped.column("b").to_pylist())
        moves = pc.filter(pc.if_else(is_proc, 1, -1), pc.or_(is_done, is_proc))
        pc.cumulative_sum(moves)
        minutes = pc.subtract(stamps, pc.divide(stamps, 60))
        pc.value_counts(minutes)
        started = pc.filter(lines, pc.equal(head, "Star"))
        registration += len(pc.filter(started, pc.or_(pc.match_substring(started, "/rhsm/consumers"),
                                                      pc.match_substring(started, '"/register'))).to_pylist())
        requests += len(ms)
    return {"buckets": len(keys), "requests": requests, "registration_started": registration}


def with_duckdb(path: str, block_size: int) -> dict[str, int]:
    """One SQL pass per step over the whole file (duckdb spills to disk beyond its memory limit; no blocks)."""
    import duckdb  # start-up: only this candidate needs it

    con = duckdb.connect()
    con.execute("SET memory_limit = '256MB'")
    con.execute(f"""
        create temp table x as
        select n, epoch(strptime(l[1:19], '%Y-%m-%dT%H:%M:%S'))::bigint as t, head, l[i - 8:i - 1] as rid, l[i + 2:] as msg
        from (select row_number() over () as n, l, instr(l, '] ') as i, l[instr(l, '] ') + 2:instr(l, '] ') + 5] as head
              from read_csv('{path}', columns = {{'l': 'VARCHAR'}}, delim = '\\x1f', quote = '', escape = '',
                            header = false, auto_detect = false))
        where head in ('Comp', 'Proc', 'Star') and l[20:21] = ' ['""")
    con.execute("""create temp table done as select n, t, rid, msg[11:13] as status,
                   try_cast(regexp_extract(msg, ' in ([0-9.]+)ms', 1) as double) as ms,
                   try_cast(regexp_extract(msg, 'ActiveRecord: ([0-9.]+)ms', 1) as double) as db from x where head = 'Comp'""")
    con.execute("create temp table proc as select n, rid, regexp_extract(msg, '^Processing by (\\S+)', 1) as action from x where head = 'Proc'")
    registration = len(con.execute("""select n, t, rid, msg from x where head = 'Star'
                                      and (contains(msg, '/rhsm/consumers') or contains(msg, '"/register'))""").fetchall())
    con.execute("create temp table j as select d.*, p.action from done d asof left join proc p on d.rid = p.rid and d.n >= p.n")
    buckets = con.execute("select action, case when ms > 0 then ceil(ln(ms) / ln(1.02))::int end, count(*), sum(ms), sum(db) from j group by all").fetchall()
    con.execute("select action, status[1], count(*) from j group by all").fetchall()
    minutes = con.execute("select t - t % 60, count(*), sum((status[1] = '5')::int) from j group by all").fetchall()
    con.execute("""select m, max(level) from (select t - t % 60 as m, sum(case when head = 'Proc' then 1 else -1 end)
                   over (order by n rows unbounded preceding) as level from x where head != 'Star') group by m""").fetchall()
    return {"buckets": len(buckets), "requests": sum(b[2] for b in buckets), "minutes": len(minutes), "registration_started": registration}


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float, int]:
    """(CPU seconds of the command and its threads, wall seconds, peak RSS MiB, exit status); output discarded."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - started, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def measure(args: argparse.Namespace) -> int:
    path = args.dir / f"production-{args.size_mb}.log"
    if not path.exists():
        args.dir.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_logs.py"), "--kind", "production", "--size-mb", str(args.size_mb),
                        str(path)], check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    tools: dict[str, list[str]] = {"wc -l": ["wc", "-l", str(path)],
                                   "foretune logs --jobs 1": [sys.executable, "-m", "foretune", "logs", str(path), "--jobs", "1",
                                                              "--format", "json"]}
    for name in args.only.split(","):
        tools[f"{name} ({'floor' if name in FLOORS else 'heavy part only'})"] = [args.python, __file__, "candidate", name, str(path), str(args.block_mb)]
    print(f"{path.name}: {path.stat().st_size / 1048576:,.0f} MiB; python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"{args.rounds} interleaved rounds")
    results: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in tools}
    for number in range(1, args.rounds + 1):
        before = os.getloadavg()[0]
        for name, argv in tools.items():
            results[name].append(timed(argv, env if name.startswith("foretune") else None))
        print(f"round {number}: load average {before:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"  {'tool':<32} {'CPU s (each round)':>24} {'x wc -l (each round)':>24} {'wall s':>8} {'peak MiB':>9}")
    for name, runs in results.items():
        cpus = " ".join(f"{cpu:6.2f}" for cpu, *_ in runs)
        ratios = " ".join(f"{cpu / max(base[0], 0.001):6.0f}" for (cpu, *_), base in zip(runs, results["wc -l"]))
        failed = [code for *_, code in runs if code]
        print(f"  {name:<32} {cpus:>24} {ratios:>24} {min(r[1] for r in runs):8.2f} {max(r[2] for r in runs):9.0f}"
              + (f"  (exit {failed[0]})" if failed else ""))
    return 0


def main() -> int:
    if sys.argv[1:2] == ["candidate"]:
        name, path = sys.argv[2], sys.argv[3]
        block_size = int(sys.argv[4]) << 20 if len(sys.argv) > 4 else BLOCK
        run = {"lines": with_lines, "stdlib-re": with_stdlib_re, "polars": with_polars, "pyarrow": with_pyarrow,
               "duckdb": with_duckdb}[name]
        print(run(path, block_size))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=256)
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp/foretune-logs-bench"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python", default=sys.executable, help="an interpreter with the candidate wheels installed")
    parser.add_argument("--only", default=",".join(CANDIDATES))
    parser.add_argument("--block-mb", type=int, default=BLOCK >> 20, help="MiB of lines per block (polars, pyarrow)")
    return measure(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
