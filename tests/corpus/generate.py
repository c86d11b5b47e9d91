"""Deterministic generator of malformed inputs: the regression corpus of hostile and damaged input.

    python3 tests/corpus/generate.py            print the number of cases per class
    python3 tests/corpus/generate.py --out DIR  write every case to DIR/<id>/ (its files and argv.json)

Everything comes from small seeds: the fixture sosreports, the payload templates below and one
fixed random seed, so every run produces the same cases. ``tests/corpus/test_corpus.py`` replays
them. Classes:

- ``text``: one file of a minimal sosreport replaced by hostile text (huge lines, YAML bombs,
  odd encodings, absurd numbers, control characters, ...);
- ``tar-damage``: fixture tarballs truncated or corrupted at many points, each with a reference
  archive that holds only the members left intact;
- ``tar-evil``: hand-made members (path traversal, symlink escapes, devices, huge headers, bombs,
  stray top-level members, several sosreports);
- ``snapshot``: collect snapshots with wrong types, absurd numbers, deep nesting, gzip damage;
- ``argv``: command lines with absurd or malformed values, FIFO/device/odd paths;
- ``secrets``: secrets placed by protocol words (HTTP credentials, cookies, Ruby hashes, SQL, sshpass,
  Redis ACLs, URL userinfo) in the logs and files foretune reads, through every logs format;
- ``files``: outputs naming an input, a symbolic link as ``--output-dir``, ``/dev/null`` as a merge
  target, snapshot modes;
- ``values``: odd values where a number is expected (custom-hiera, answers file), huge durations and
  invalid timestamps, terminal escape sequences in logs.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import json
import lzma
import random
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "sosreports"
FIXTURE_NAMES = ("satellite-6.2", "satellite-6.9", "satellite-6.15", "orcharhino-6.9", "capsule-6.15-pull-rex")
SEED = 13
TOP = "sosreport-corpus-2024-02-12-abcdef"
MEMINFO = b"MemTotal:       33554432 kB\nSwapTotal:       4194304 kB\nSwapFree:        4194304 kB\n"
RPMS = b"satellite-6.15.3-1.el8sat.noarch    Mon Feb 12 2024\nforeman-3.9.1.6-1.el8sat.noarch    Mon Feb 12 2024\n"
SCENARIO = (b"---\n:name: Satellite\n:answer_file: /etc/foreman-installer/scenarios.d/satellite-answers.yaml\n"
            b":facts:\n  :tuning: medium\n")
EXIT_CODES = (0, 1, 2)  # 3 means an internal error: documented, but for any of these inputs it is a bug


@dataclass(frozen=True)
class Big:
    """Content generated when written: ``prefix + unit * n + suffix`` (keeps the corpus small in memory)."""

    unit: bytes
    count: int
    prefix: bytes = b""
    suffix: bytes = b""

    def render(self) -> bytes:
        return self.prefix + self.unit * self.count + self.suffix


Payload = "bytes | Big | str"  # str: "fifo" or "symlink:TARGET" or "dir"


@dataclass(frozen=True)
class Case:
    """One malformed input and the command line that reads it (``{dir}`` is the case directory)."""

    id: str
    kind: str
    argv: tuple[str, ...]
    files: tuple[tuple[str, object], ...] = ()
    canary: str | None = None
    reference: str | None = None  # damaged archive: an archive of its intact members only
    damaged: bool = False  # the decompressor or tar can tell (must be reported)
    expect_known: tuple[str, ...] = ()  # facts that must stay known (read from intact files)
    outputs: tuple[str, ...] = ()  # files the command may create (relative to the case directory)
    tags: tuple[str, ...] = field(default=())
    unchanged: tuple[str, ...] = ()  # inputs that must be byte for byte the same afterwards
    statuses: tuple[int, ...] = ()  # the exit statuses this case may end with (default: EXIT_CODES)
    modes: tuple[tuple[str, int], ...] = ()  # files and the permission bits they must have afterwards
    plain_text: bool = False  # standard output must hold no control character (escape sequences, bells)
    fixture: str | None = None  # damaged archive: the fixture it was cut from (partial facts must be named)


def canary(case_id: str) -> str:
    return "CANARY" + "".join(ch for ch in case_id.upper() if ch.isalnum())[-24:] + "X"


# --- class text -------------------------------------------------------------------------------------

def _targets() -> list[str]:
    """One archive path per spec foretune reads from a sosreport (glob specs get a matching name)."""
    sys.path.insert(0, str(ROOT / "src"))
    from foretune.host.specs import SPECS, sos_candidates, sos_patterns

    paths: list[str] = []
    for spec in SPECS:
        if spec.glob:
            found = sos_patterns(spec)
            if found:
                paths.append(found[0].replace("*", "x7"))
        else:
            found = sos_candidates(spec)
            if found:
                paths.append(found[0])
    paths += ["etc/foreman-installer/scenarios.d/satellite-answers.yaml", "sos_reports/manifest.json", "proc/4242/limits"]
    return list(dict.fromkeys(p for p in paths if p != "proc/meminfo"))


def _payloads(rng: random.Random) -> list[tuple[str, object]]:
    deep_yaml = "".join("  " * i + f"k{i}:\n" for i in range(150)) + "  " * 150 + "v: 1\n"
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(8))
    out: list[tuple[str, object]] = [
        ("empty", b""), ("blank", b"\n \n\t\n"), ("comments", b"# nothing\n; nothing\n"),
        ("nul", b"\x00" * 64 + b"pool: 5\n"), ("random", bytes(rng.randrange(256) for _ in range(4096))),
        ("latin1", "pool: 5\nnom: caf\u00e9 \u00e0 la cr\u00e8me\n".encode("latin-1")),
        ("utf16", "\ufeffpool: 5\nMemTotal: 1 kB\n".encode("utf-16-le")),
        ("utf8-bom", b"\xef\xbb\xbfpool: 5\nworkers: 3\n"), ("bad-utf8", b"pool: \xc3\x28 \xa0\xa1 \xf0\x28\x8c\xbc\n"),
        ("crlf", b"pool: 5\r\nMemTotal: 1024 kB\r\nCPU(s): 4\r\n"), ("lone-cr", b"pool: 5\rworkers: 2\rx=1\r"),
        ("ansi", b"\x1b[31mred\x1b[0m: \x1b]0;title\x07\x9b2J\nLimitNOFILE=\x1b[2J\n"),
        ("long-line", Big(b"a=b ", 64 * 1024)), ("spaces", Big(b" ", 256 * 1024, b"x", b"y\n")),
        ("newlines", Big(b"\n", 256 * 1024)), ("many-lines", Big(b"key = value # comment\n", 12_000)),
        ("yaml-laughs", laughs.encode()), ("yaml-deep-flow", b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n"),
        ("yaml-deep-block", deep_yaml.encode()), ("yaml-aliases-many", ("x: &x 1\n" + "".join(f"y{i}: *x\n" for i in range(500))).encode()),
        ("yaml-tags", b"a: !!binary aGVsbG8=\nb: !!set {x, y}\nc: 2024-02-12 10:00:00\nd: !!omap [{x: 1}]\ne: !!python/object:os.system {}\n"),
        ("yaml-ruby", b"--- !ruby/object:Foo\n:pool: 5\n:bar: !ruby/sym baz\n"),
        ("yaml-bigint", b"pool: " + b"9" * 5000 + b"\nworkers: 100000000000000000000000000000\n"),
        ("yaml-odd-numbers", "pool: \u0663\nworkers: \uff11\uff12\nthreads: 6.1e5\nx: .nan\ny: -.inf\nz: 0x_ff\nw: 190:20:30\n".encode()),
        ("yaml-keys", b"? [a, b]\n: 1\n? {c: d}\n: 2\n"), ("yaml-merge", b"base: &b {pool: 5}\nproduction:\n  <<: *b\n  <<: [*b, *b]\n"),
        ("yaml-multi", b"---\na: 1\n---\nb: 2\n"), ("yaml-scalar-root", b"just a string\n"), ("yaml-list-root", b"- 1\n- 2\n"),
        ("yaml-tabs", b"production:\n\tpool: 5\n"), ("yaml-unclosed", b"a: 'unclosed\nb: [1, 2\n"),
        ("json-deep", b"Command stats sent\n" + b"[" * 100_000 + b"]" * 100_000),
        ("json-bigint", b'{"workers": ' + b"9" * 5000 + b', "booted_workers": 1}'),
        ("json-types", b'{"workers": "many", "booted_workers": null, "worker_status": "x", "components": [1], "max_threads": []}'),
        ("json-nan", b'{"workers": NaN, "booted_workers": Infinity, "backlog": -1e999}'),
        ("json-status-types", b'{"workers": 2, "booted_workers": 2, "worker_status": [1, "a", {"last_status": 5}, {"last_status": {"backlog": "x"}}]}'),
        ("kv-odd-numbers", "PULP_CONCURRENCY=\u0663\nEXECUTORS_COUNT=99999999999999999999999999999\nJAVA_OPTS=\"-Xmx0\"\nLimitNOFILE=-1\n".encode()),
        ("kv-xmx", b'JAVA_OPTS="-Xms1g -Xmx99999999999999999999g -Xmx1B"\n'),
        ("absurd-numbers", ("MemTotal: " + "9" * 300 + " kB\nCPU(s): " + "1" * 300 + "\nSocket(s): 0\nMainPID=" + "7" * 300
                            + "\nmaxmemory " + "9" * 40 + "gb\nmax_connections = 1e400\n").encode()),
        ("non-ascii-digits", "CPU(s): \u0663\nMemTotal: \u0661\u0662 kB\nMainPID=\u0663\u0664\nmaxmemory \u0663gb\nSocket(s): \u00b2\n".encode()),
        ("systemd-absurd", ("Id=foreman.service\nMainPID=" + "9" * 300 + "\nLimitNOFILE=" + "9" * 50 + "\nActiveState=active\n\n"
                            "Id=httpd.service\nMainPID=\u0663\nLimitNOFILE=\u0663\n").encode()),
        ("xml-connectors", b"<Connector " * 20_000 + b'<Connector port="23443" maxThreads="' + b"9" * 50 + b'"/>'),
        ("xml-unclosed", b'<Server><Connector port="23443" maxThreads="\xd9\xa3"'),
        ("httpd-odd", b"</IfModule>\n<IfModule>\nServerLimit \xd9\xa3\nMaxRequestWorkers 99999999999999999999999999\nKeepAlive\n<\n>\n"),
        ("pg-odd", b"max_connections = '\nshared_buffers = 1e400\nwork_mem = '" + b"x" * 1000 + b"\n= 5\n"),
        ("mounts-odd", b"/dev/sda1 / xfs rw 0 0 extra\n\\777 \\0 \\ \n" + b"a " * 1000 + b"\n"),
        ("df-odd", b"Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/sda1 " + b"9" * 300 + b" 1 1 1% /\n\xd9\xa3 1 1 1 1% /x\n"),
        ("lsblk-odd", b'NAME="sda" ' + b'A' * 100_000 + b'\nNAME="' + b'A="' * 1000 + b"\n"),
        ("csv-odd", b'id,state,started_at\n1,paused,' + b"9" * 300 + b'\n"unclosed,paused\n2,paused,2024-13-45 99:99:99\n'),
        ("tuned-long", b"Current active profile: " + b" " * 200_000 + b"x\n" + b"Current active profile:\n"),
        ("limits-long", b"Limit  Soft Limit  Hard Limit  Units\nMax open files " + b" " * 100_000 + b"x\n"),
        ("rpm-odd", b"-" * 10_000 + b"\n" + b"a-1-" * 5000 + b"\nsatellite-6.1e5-1.el8.noarch\nforeman-\xd9\xa3.9-1\n"),
        ("date-odd", b"Mon Feb 99 99:99:99 UTC 99999\n"),
        ("only-nul", b"\x00" * 10), ("json-in-yaml", b'{"pool": 5, "workers": [' + b"1," * 10_000 + b'1]}'),
    ]
    return out


def _secret_line(path: str, secret: str) -> tuple[str, bytes]:
    """A key-name secret (redacted today) planted in a file that is read, other than the target."""
    if path != "etc/foreman/database.yml":
        return "etc/foreman/database.yml", f"production:\n  adapter: postgresql\n  password: {secret}\n  pool: 9\n".encode()
    return "etc/foreman-installer/custom-hiera.yaml", f"foreman::db_password: {secret}\n".encode()


TEXT_COMMANDS = (("facts", "{src}", "--format", "json"), ("audit", "{src}", "--format", "json"), ("audit", "{src}"),
                 ("facts", "{src}", "--unknown"), ("plan", "--from", "{src}", "--hosts", "500", "--format", "json"),
                 ("audit", "{src}", "--format", "markdown", "--hosts", "2000"))


def text_cases(rng: random.Random) -> Iterator[Case]:
    targets = _targets()
    payloads = _payloads(rng)
    for t_index, target in enumerate(targets):
        for p_index, (name, payload) in enumerate(payloads):
            case_id = f"text-{t_index:02d}-{name}"
            secret = canary(case_id)
            secret_path, secret_text = _secret_line(target, secret)
            files: dict[str, object] = {
                f"sos/{TOP}/version.txt": b"sosreport: 4.6.1\n", f"sos/{TOP}/proc/meminfo": MEMINFO,
                f"sos/{TOP}/installed-rpms": RPMS, f"sos/{TOP}/etc/foreman-installer/scenarios.d/last_scenario.yaml": SCENARIO,
                f"sos/{TOP}/{secret_path}": secret_text,
            }
            files[f"sos/{TOP}/{target}"] = payload
            argv = TEXT_COMMANDS[(t_index * 7 + p_index) % len(TEXT_COMMANDS)]
            yield Case(case_id, "text", tuple(a.replace("{src}", f"{{dir}}/sos/{TOP}") for a in argv),
                       tuple(files.items()), canary=secret, expect_known=("ram_bytes",))
    for index, target in enumerate(["etc/foreman/database.yml", "sos_commands/tuned/tuned-adm_active", "installed-rpms",
                                    "sos_commands/systemd/systemctl_show_service_--all", "sos_commands/block/lsblk_-O_-P",
                                    "etc/foreman-installer/custom-hiera.yaml"]):
        # a 10 MB line, in the two shapes that make backtracking patterns quadratic
        for shape, payload in (("x", Big(b"x", 10 * 1024 * 1024, b"password: ", b"\n")),
                               ("space", Big(b" ", 10 * 1024 * 1024, b"Current active profile: a", b"b\n"))):
            case_id = f"text-huge-{index}-{shape}"
            files = {f"sos/{TOP}/version.txt": b"sosreport: 4.6.1\n", f"sos/{TOP}/proc/meminfo": MEMINFO, f"sos/{TOP}/{target}": payload}
            yield Case(case_id, "text", ("facts", f"{{dir}}/sos/{TOP}", "--format", "json"), tuple(files.items()),
                       expect_known=("ram_bytes",), tags=("huge",))


# --- tarballs ----------------------------------------------------------------------------------------

@functools.cache
def _tar_bytes(tree: Path) -> bytes:
    """The fixture as an uncompressed tar under one top-level folder, deterministic (fixed mtimes, sorted)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        entries = sorted(tree.rglob("*"), key=lambda p: str(p.relative_to(tree)))
        # sos writes etc/ before sos_commands/: keep that order, as a truncated download depends on it
        entries.sort(key=lambda p: (not str(p.relative_to(tree)).startswith(("etc", "proc", "sys", "installed")), str(p)))
        for path in entries:
            info = archive.gettarinfo(str(path), arcname=f"{TOP}/{path.relative_to(tree)}")
            info.mtime, info.uid, info.gid, info.uname, info.gname = 1707730000, 0, 0, "root", "root"
            if info.isfile():
                with path.open("rb") as handle:
                    archive.addfile(info, handle)
            else:
                archive.addfile(info)
    return buffer.getvalue()


@functools.lru_cache(maxsize=64)
def compress(data: bytes, kind: str) -> bytes:
    if kind == "gz":
        return gzip.compress(data, mtime=0)
    if kind == "xz":
        return lzma.compress(data, preset=0)
    if kind == "bz2":
        return bz2.compress(data)
    return data


def _available(data: bytes, kind: str) -> bytes:
    """The decompressed prefix a truncated or damaged compressed file still yields."""
    import zlib

    if kind == "":
        return data
    dec = {"gz": lambda: zlib.decompressobj(31), "xz": lzma.LZMADecompressor, "bz2": bz2.BZ2Decompressor}[kind]()
    out = []
    for start in range(0, len(data), 4096):
        try:
            out.append(dec.decompress(data[start:start + 4096]))
        except (zlib.error, lzma.LZMAError, OSError, EOFError, ValueError):
            break
    return b"".join(out)


def intact_reference(tar: bytes, kind: str, damaged: bytes) -> tuple[bytes, int, int]:
    """(uncompressed tar of the members wholly present in ``damaged``, their count, count in the whole archive)."""
    prefix = _available(damaged, kind)
    whole = tarfile.open(fileobj=io.BytesIO(tar), mode="r:")  # noqa: SIM115
    members = whole.getmembers()
    out = io.BytesIO()
    kept = 0
    with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as ref:
        for member in members:
            end = member.offset_data + (member.size if member.isfile() else 0)
            if end > len(prefix) or prefix[member.offset:member.offset_data] != tar[member.offset:member.offset_data]:
                break
            if member.isfile():
                data = tar[member.offset_data:member.offset_data + member.size]
                if prefix[member.offset_data:end] != data:
                    break
                ref.addfile(member, io.BytesIO(data))
            else:
                ref.addfile(member)
            kept += 1
    return out.getvalue(), kept, len(members)


SUFFIX = {"": ".tar", "gz": ".tar.gz", "xz": ".tar.xz", "bz2": ".tar.bz2"}
DAMAGE_COMMANDS = (("facts", "{src}", "--format", "json"),)


def tar_damage_cases(rng: random.Random) -> Iterator[Case]:
    for fixture in FIXTURE_NAMES:
        tar = _tar_bytes(FIXTURES / fixture)
        for kind in ("", "gz", "xz", "bz2"):
            whole = compress(tar, kind)
            cuts = sorted({int(len(whole) * f / 24) for f in range(1, 24)} | {len(whole) - 1, len(whole) - 30, 1, 300})
            for cut in cuts:
                damaged = whole[:cut]
                reference, kept, total = intact_reference(tar, kind, damaged)
                case_id = f"tar-cut-{fixture}-{kind or 'tar'}-{cut}"
                yield Case(case_id, "tar-damage", ("facts", "{dir}/d" + SUFFIX[kind], "--format", "json"),
                           (("d" + SUFFIX[kind], damaged), ("ref.tar", reference)),
                           reference="ref.tar", damaged=kept < total or kind != "", fixture=fixture)
            for _flip in range(6):
                low = 12 if kind == "gz" else 0  # the gzip header (mtime, OS) carries no checksum
                position = rng.randrange(low, len(whole))
                damaged = bytearray(whole)
                damaged[position] ^= 1 << rng.randrange(8)
                case_id = f"tar-flip-{fixture}-{kind or 'tar'}-{position}"
                # a plain tar checksums its headers only: a bit flipped in a member's data cannot be told, so
                # only the compressed kinds (whose checksums cover the data) carry the partial-facts promise
                yield Case(case_id, "tar-damage", ("facts", "{dir}/d" + SUFFIX[kind], "--format", "json"),
                           (("d" + SUFFIX[kind], bytes(damaged)),), damaged=kind != "", fixture=fixture if kind else None)
            # a header whose checksum no longer matches (uncompressed layer damaged, then compressed)
            members = tarfile.open(fileobj=io.BytesIO(tar), mode="r:").getmembers()  # noqa: SIM115
            for pick in (len(members) // 3, 2 * len(members) // 3):
                bad = bytearray(tar)
                bad[members[pick].offset + 1] ^= 0x20  # a name byte: the header checksum now fails
                data = compress(bytes(bad), kind)
                reference = io.BytesIO()
                with tarfile.open(fileobj=reference, mode="w", format=tarfile.GNU_FORMAT) as ref:
                    for member in members[:pick]:
                        ref.addfile(member, io.BytesIO(tar[member.offset_data:member.offset_data + member.size])
                                    if member.isfile() else None)
                case_id = f"tar-checksum-{fixture}-{kind or 'tar'}-{pick}"
                yield Case(case_id, "tar-damage", ("facts", "{dir}/d" + SUFFIX[kind], "--format", "json"),
                           (("d" + SUFFIX[kind], data), ("ref.tar", reference.getvalue())), reference="ref.tar", damaged=True)


def _member(archive: tarfile.TarFile, name: str, data: bytes = b"", **fields: object) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 1707730000
    for key, value in fields.items():
        setattr(info, key, value)
    archive.addfile(info, io.BytesIO(data) if data and info.isfile() else None)


def _evil_members(secret: str) -> list[tuple[str, list[tuple[str, bytes, dict[str, object]]]]]:
    t = TOP
    sym, lnk, fifo, chr_, blk = tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.FIFOTYPE, tarfile.CHRTYPE, tarfile.BLKTYPE
    return [
        ("traversal", [(f"{t}/../../etc/cron.d/evil", b"* * * * * root id\n", {}), ("../escape", b"x", {})]),
        ("absolute", [("/etc/passwd", b"root:x:0:0\n", {}), (f"/{t}/etc/sysctl.conf", b"x", {})]),
        ("symlink-out", [(f"{t}/sos_commands/kernel/sysctl_-a", b"", {"type": sym, "linkname": "../../../../../etc/shadow"})]),
        ("symlink-abs", [(f"{t}/etc/foreman/database.yml", b"", {"type": sym, "linkname": "/etc/shadow"})]),
        ("symlink-loop", [(f"{t}/etc/a", b"", {"type": sym, "linkname": "b"}), (f"{t}/etc/b", b"", {"type": sym, "linkname": "a"}),
                          (f"{t}/sos_commands/kernel/sysctl_-a", b"", {"type": sym, "linkname": "../../etc/a"})]),
        ("symlink-dir-out", [(f"{t}/etc/foreman", b"", {"type": sym, "linkname": "../../../../../../etc"})]),
        ("symlink-chain", [(f"{t}/l{i}", b"", {"type": sym, "linkname": f"l{i + 1}"}) for i in range(60)]
         + [(f"{t}/sos_commands/kernel/sysctl_-a", b"", {"type": sym, "linkname": "../../l0"})]),
        ("hardlink-out", [(f"{t}/etc/foreman/database.yml", b"", {"type": lnk, "linkname": "etc/shadow"})]),
        ("devices", [(f"{t}/sos_commands/kernel/sysctl_-a", b"", {"type": chr_, "devmajor": 1, "devminor": 5}),
                     (f"{t}/proc/cpuinfo", b"", {"type": blk, "devmajor": 8, "devminor": 0}),
                     (f"{t}/etc/foreman/database.yml", b"", {"type": fifo})]),
        ("long-name", [(f"{t}/" + "d" * 200 + "/" + "f" * 200, b"x", {}), (f"{t}/etc/" + "\u00e9" * 300, b"x", {})]),
        ("odd-names", [(f"{t}/etc/\x1b[31mred\n", b"x", {}), (f"{t}/etc/\udcff", b"x", {}), (f"{t}//etc//./x", b"x", {})]),
        ("duplicates", [(f"{t}/proc/meminfo", b"MemTotal: lots\n", {}), (f"{t}/proc/meminfo", MEMINFO, {})]),
        ("file-then-dir", [(f"{t}/etc/foreman", b"not a directory", {})]),
        ("stray-top", [("README.txt", b"attached by the customer\n", {}), ("notes/x.log", b"x", {})]),
        ("second-sosreport", [("sosreport-other-2024/version.txt", b"sosreport: 4.6.1\n", {}),
                              ("sosreport-other-2024/proc/meminfo", b"MemTotal: 1 kB\n", {})]),
        ("secret-files", [(f"{t}/etc/foreman-installer/custom-hiera.yaml", f"foreman::db_password: {secret}\napache::mod::prefork::serverlimit: 512\n".encode(), {}),
                          (f"{t}/etc/foreman/database.yml", f"production:\n  password: {secret}\n  pool: 30\n".encode(), {})]),
        ("zero-size-huge-claim", [(f"{t}/etc/sysctl.conf", b"", {"size": 0})]),
        ("many-members", [(f"{t}/sos_commands/many/f{i}", b"", {}) for i in range(5_000)]),
    ]


def _raw_header_archive(kind: str, claim: int, typeflag: bytes) -> bytes:
    """A tar whose second header (pax ``x`` or GNU ``L``) claims ``claim`` bytes but holds few."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        _member(archive, f"{TOP}/version.txt", b"sosreport: 4.6.1\n")
        _member(archive, f"{TOP}/proc/meminfo", MEMINFO)
    data = bytearray(buffer.getvalue().rstrip(b"\x00"))
    data += b"\x00" * (-len(data) % 512)
    header = bytearray(tarfile.TarInfo("././@LongLink").tobuf(format=tarfile.GNU_FORMAT)[:512])
    header[156:157] = typeflag
    header[124:136] = f"{claim:011o}\x00".encode()
    header[148:156] = b"        "
    header[148:156] = f"{sum(header):06o}\x00 ".encode()
    data += header + b"A" * 4096 + b"\x00" * 1024
    return compress(bytes(data), kind)


def tar_evil_cases(rng: random.Random) -> Iterator[Case]:
    for kind in ("", "gz", "xz"):
        for name, members in _evil_members("{secret}"):
            for fixture in (FIXTURE_NAMES if name != "many-members" else ("satellite-6.15",)):
                case_id = f"tar-evil-{name}-{fixture}-{kind or 'tar'}"
                secret = canary(case_id)
                buffer = io.BytesIO()
                with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
                    base = tarfile.open(fileobj=io.BytesIO(_tar_bytes(FIXTURES / fixture)), mode="r:")  # noqa: SIM115
                    for member in base.getmembers():
                        archive.addfile(member, base.extractfile(member) if member.isfile() else None)
                    for member_name, data, fields in members:
                        _member(archive, member_name, data.replace(b"{secret}", secret.encode()), **fields)
                argv = ("audit", "{dir}/e" + SUFFIX[kind], "--format", "json") if len(case_id) % 2 else \
                       ("facts", "{dir}/e" + SUFFIX[kind], "--format", "json")
                yield Case(case_id, "tar-evil", argv, (("e" + SUFFIX[kind], compress(buffer.getvalue(), kind)),),
                           canary=secret, expect_known=("ram_bytes",) if name != "duplicates" else ())
        for claim in (10**6, 10**9, 8**11 - 1):
            for flag in (b"L", b"x", b"K"):
                case_id = f"tar-header-{flag.decode()}-{claim}-{kind or 'tar'}"
                yield Case(case_id, "tar-evil", ("facts", "{dir}/h" + SUFFIX[kind], "--format", "json"),
                           (("h" + SUFFIX[kind], _raw_header_archive(kind, claim, flag)),), expect_known=("ram_bytes",))
    # highly compressible members: skipping them must stay linear (and never be kept in memory)
    for size_mb, where in ((100, "var/log/huge.log"), (70, "sos_commands/logs/journalctl_--no-pager"),
                           (65, "etc/foreman/database.yml")):
        yield Case(f"tar-bomb-{size_mb}", "tar-evil", ("facts", "{dir}/b.tar.gz", "--format", "json"),
                   (("b.tar.gz", _bomb(size_mb, where)),), expect_known=("ram_bytes",), tags=("bomb",))


@functools.cache
def _bomb(size_mb: int, where: str) -> bytes:
    """A gzip tarball with one member of ``size_mb`` MiB of zeros (compressed about 1000:1)."""
    import zlib

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        _member(archive, f"{TOP}/version.txt", b"sosreport: 4.6.1\n")
        _member(archive, f"{TOP}/proc/meminfo", MEMINFO)
        info = tarfile.TarInfo(f"{TOP}/{where}")
        info.size = size_mb * 1024 * 1024
        head = info.tobuf(format=tarfile.GNU_FORMAT)
        end = archive.offset  # before the end-of-archive blocks written on close
    start = buffer.getvalue()[:end]
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    parts = [compressor.compress(start + head)]
    zeros = b"\x00" * (1024 * 1024)
    for _ in range(size_mb):
        parts.append(compressor.compress(zeros))
    parts.append(compressor.compress(b"\x00" * 1024))
    parts.append(compressor.flush())
    return b"".join(parts)


# --- snapshots ---------------------------------------------------------------------------------------

def _base_snapshot() -> dict[str, object]:
    sys.path.insert(0, str(ROOT / "src"))
    from foretune.facts import read_source
    from foretune.facts.serialize import facts_to_dict

    facts = facts_to_dict(read_source(str(FIXTURES / "satellite-6.15")))
    return {"format": "foretune-snapshot", "format_version": 1,
            "metadata": {"host": "corpus.example.com", "time": "2024-02-12T10:00:00Z", "foretune_version": "0",
                         "source": facts["source"]},
            "facts": facts["facts"], "problems": facts["problems"], "raw": {}}


BAD_VALUES: tuple[object, ...] = ("many", -1, 10**29, True, [1, 2], {"a": {"b": [None]}}, 1.5e308, None, "\u0663",
                                  "", {"workers": "x", "threads_max": -5, "LimitNOFILE": 10**40}, [[[[[]]]]], 2**63, "6.1e5")
SNAPSHOT_COMMANDS = (("audit", "{src}", "--format", "json"), ("facts", "{src}", "--format", "json"),
                     ("plan", "--from", "{src}", "--format", "json"), ("audit", "{src}"))


def snapshot_cases(rng: random.Random) -> Iterator[Case]:
    base = _base_snapshot()
    names = sorted(base["facts"])  # type: ignore[arg-type]
    for f_index, name in enumerate(names):
        for v_index, value in enumerate(BAD_VALUES):
            doc = json.loads(json.dumps(base))
            doc["facts"][name] = {"value": value, "provenance": [{"source": "x", "location": "y", "excerpt": "z"}]}
            argv = SNAPSHOT_COMMANDS[(f_index + v_index) % len(SNAPSHOT_COMMANDS)]
            case_id = f"snap-{name}-{v_index}"
            yield Case(case_id, "snapshot", tuple(a.replace("{src}", "{dir}/s.json") for a in argv),
                       (("s.json", json.dumps(doc).encode()),))
    whole = json.dumps(base).encode()
    structural: list[tuple[str, object]] = [
        ("deep", b'{"format": "foretune-snapshot", "facts": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"),
        ("bigint", b'{"format": "foretune-snapshot", "facts": {"managed_hosts": {"value": ' + b"9" * 5000 + b"}}}"),
        ("not-object", b"[1, 2, 3]"), ("facts-list", b'{"format": "foretune-snapshot", "facts": [1], "problems": 5}'),
        ("entries-odd", b'{"format": "foretune-snapshot", "facts": {"ram_bytes": 5, "cpu_logical": [1], "product": {"unknown": true}}}'),
        ("bad-utf8", whole[:100] + b"\xff\xfe" + whole[100:]), ("bom", b"\xef\xbb\xbf" + whole), ("empty", b""),
        ("nan", b'{"format": "foretune-snapshot", "facts": {"ram_bytes": {"value": NaN}}}'),
        ("truncated", whole[: len(whole) // 2]), ("utf16", json.dumps(base).encode("utf-16")),
        ("provenance-odd", b'{"format": "foretune-snapshot", "facts": {"ram_bytes": {"value": 1073741824, "provenance": [1, "x", {"location": []}]}}}'),
    ]
    for name, data in structural:
        for command in SNAPSHOT_COMMANDS[:2]:
            yield Case(f"snap-{name}-{command[0]}", "snapshot", tuple(a.replace("{src}", "{dir}/s.json") for a in command),
                       (("s.json", data),))
    gz = gzip.compress(whole, mtime=0)
    gz_cases: list[tuple[str, object]] = [
        ("gz-truncated", gz[: len(gz) // 2]), ("gz-crc", gz[:-8] + bytes([gz[-8] ^ 1]) + gz[-7:]), ("gz-garbage", b"\x1f\x8b" + b"x" * 100),
        ("gz-bomb", gzip.compress(b'{"format": "foretune-snapshot", "x": "' + b"0" * (100 * 1024 * 1024) + b'"}', compresslevel=1, mtime=0)),
    ]
    for name, data in gz_cases:
        yield Case(f"snap-{name}", "snapshot", ("audit", "{dir}/s.json.gz"), (("s.json.gz", data),), tags=("bomb",) if "bomb" in name else ())


# --- command lines -----------------------------------------------------------------------------------

ODD_NUMBERS = ("0", "-1", "1e3", "6.1e5", "0x10", "1_000", "NaN", "inf", "\u0663", "\uff11\uff12", "\u00b2", "1" + "0" * 29,
               "9" * 300, "", " ", "1.5", "+5", "--", "-", "1B", "0B", "99999999999999999999P", "1e400", "-Xmx0", "5\x00",
               "\x1b[31m5", "x" * 100_000, "12 34", "3\n4")
NUMERIC_OPTIONS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("plan", "--product", "satellite", "--version", "6.15", "--cpus", "8", "--ram", "32G"), "--hosts"),
    (("plan", "--product", "satellite", "--version", "6.15", "--hosts", "500", "--ram", "32G"), "--cpus"),
    (("plan", "--product", "satellite", "--version", "6.15", "--hosts", "500", "--cpus", "8"), "--ram"),
    (("plan", "--product", "satellite", "--hosts", "500", "--cpus", "8", "--ram", "32G"), "--version"),
    (("plan", "--product", "foreman", "--hosts", "500", "--cpus", "8", "--ram", "32G"), "--version"),
    (("plan", "--product", "satellite", "--version", "6.15", "--hosts", "500", "--cpus", "8", "--ram", "32G"), "--physical-cores"),
    (("plan", "--product", "satellite", "--version", "6.15", "--hosts", "500", "--cpus", "8", "--ram", "32G"), "--rex-hosts"),
    (("plan", "--product", "satellite", "--version", "6.9", "--hosts", "500", "--cpus", "8", "--ram", "32G"), "--katello-agent-hosts"),
    (("plan", "--product", "satellite", "--version", "6.15", "--hosts", "500", "--cpus", "8", "--ram", "32G"), "--puppet-hosts"),
    (("plan", "--product", "satellite", "--version", "6.15", "--hosts", "500", "--cpus", "8", "--ram", "32G", "--puppet-hosts", "10"),
     "--puppet-runinterval"),
    (("profiles", "show", "large", "--product", "satellite"), "--version"),
    (("profiles", "list", "--product", "orcharhino"), "--version"),
    (("audit", "{fixture}"), "--hosts"),
    (("facts", "{fixture}"), "--hosts"),
    (("audit", "{fixture}"), "--fail-on"),
    (("audit", "{fixture}"), "--select"),
    (("facts", "{fixture}"), "--only"),
)
ODD_PATHS = ("{dir}/fifo.tar.gz", "{dir}/fifo", "/dev/null", "/dev/zero", "/dev/urandom", "{dir}/missing.tar.xz", "{dir}/loop.tar.gz",
             "{dir}", "{dir}/dir.tar.gz", "{dir}/empty.json", "{dir}/empty.tar", "{dir}/zero.tar.gz", "", " ", "-", "\x1b[2J",
             "{dir}/" + "n" * 5000, "{dir}/caf\u00e9.tar.gz", "/proc/self/mem", "/etc/shadow.tar.gz")


def argv_cases(rng: random.Random) -> Iterator[Case]:
    fixture = str(FIXTURES / "satellite-6.15")
    for o_index, (base, option) in enumerate(NUMERIC_OPTIONS):
        for v_index, value in enumerate(ODD_NUMBERS):
            argv = tuple(a.replace("{fixture}", fixture) for a in base)
            for form in ((option, value), (f"{option}={value}",)):
                case_id = f"argv-{o_index:02d}-{v_index:02d}-{len(form)}"
                yield Case(case_id, "argv", (*argv, *form))
    odd_files: tuple[tuple[str, object], ...] = (("fifo.tar.gz", "fifo"), ("fifo", "fifo"), ("loop.tar.gz", "symlink:loop.tar.gz"),
                                                 ("dir.tar.gz", "dir"), ("empty.json", b""), ("empty.tar", b""),
                                                 ("zero.tar.gz", b"\x00" * 4096))
    commands = (("audit", "{path}"), ("facts", "{path}"), ("plan", "--from", "{path}"), ("audit", "{path}", "--format", "html"),
                ("facts", "{path}", "--format", "json"))
    for p_index, path in enumerate(ODD_PATHS):
        for c_index, command in enumerate(commands):
            yield Case(f"argv-path-{p_index:02d}-{c_index}", "argv", tuple(a.replace("{path}", path) for a in command), odd_files)
    writes = (("audit", fixture, "--output", "{dir}/out/report.txt"), ("plan", "--from", fixture, "--hosts", "500", "--out", "{dir}/out/plan"),
              ("audit", fixture, "--format", "html", "--output", "{dir}/out/r.html"))
    for index, argv in enumerate(writes):
        yield Case(f"argv-write-{index}", "argv", argv, (("out", "dir"),), outputs=("out",))
    junk = ("--", "-", "--help=x", "--version=1", "plan --format", "audit --format xml", "facts --only", "rules explain \x1b[2J",
            "rules explain " + "x" * 10_000, "profiles diff a b", "profiles show", "render", "audit --select nothing,at,all",
            "plan --rex carrier-pigeon", "plan --profile huge", "plan --role database", "nonsense", "audit --waivers /dev/null " + fixture,
            "audit --bench /dev/null " + fixture, "render --merge-into /dev/null --product satellite --version 6.15 --hosts 5 --cpus 8 --ram 32G")
    for index, line in enumerate(junk):
        yield Case(f"argv-junk-{index:02d}", "argv", tuple(line.split(" ")) if " " in line else (line,))


# --- round 2: secrets by position, files, odd values ------------------------------------------------

STAMP = "2024-02-12T10:00:00"
LOG_FORMS: tuple[tuple[str, str], ...] = (
    ("var/log/foreman/production.log", f'{STAMP} [I|app|a1b2c3d4] Started GET "https://admin:{{s}}@sat.example.com/api/v2/hosts/7" '
                                       "for 10.0.0.1 at 2024-02-12 10:00:00 +0000\n"
                                       f"{STAMP} [I|app|a1b2c3d4] Completed 200 OK in 12ms (Views: 1.0ms | ActiveRecord: 2.0ms)\n"),
    ("var/log/foreman/production.log", f"{STAMP} [D|app|a1b2c3d4]   Authorization: Bearer {{s}}\n"),
    ("var/log/foreman/production.log", f"{STAMP} [D|app|a1b2c3d4]   Authorization: Basic {{s}}\n"),
    ("var/log/foreman/production.log", f"{STAMP} [D|app|a1b2c3d4]   Cookie: locale=en; _session_id={{s}}\n"),
    ("var/log/foreman/production.log", f'{STAMP} [I|app|a1b2c3d4]   Parameters: {{{{"login"=>"admin", "password"=>"{{s}}"}}}}\n'),
    ("var/log/foreman/production.log", f'{STAMP} [D|app|a1b2c3d4]   {{{{"HTTP_AUTHORIZATION"=>"Bearer {{s}}"}}}}\n'),
    ("var/log/foreman/production.log", "Authorization: Bearer {s}\n"),  # a line no analyzer understands: quoted as an example
    ("var/log/candlepin/candlepin.log", "2024-02-12 10:00:00,000 [thread=x] [req=1, org=, user=] INFO  org.candlepin.Foo - "
                                        "Request: verb=GET, uri=/candlepin/status headers: {{authorization=Bearer {s}}}\n"),
    ("var/log/candlepin/candlepin.log", "junk Authorization: Basic {s}\n"),
    ("var/log/httpd/foreman-ssl_access_ssl.log", '10.0.0.1 - - [12/Feb/2024:10:00:00 +0000] "GET https://user:{s}@sat.example.com'
                                                 '/pub/x HTTP/1.1" 200 10 "-" "curl/7.61.1"\n'),
    ("var/log/httpd/foreman-ssl_access_ssl.log", '10.0.0.1 - - [12/Feb/2024:10:00:00 +0000] "GET https://user:{s}@h HTTP/1.1 x" 200\n'),
    ("var/lib/pgsql/data/log/postgresql-Mon.log", "2024-02-12 10:00:00 UTC LOG:  statement: ALTER USER foreman WITH PASSWORD '{s}';\n"),
    ("var/lib/pgsql/data/log/postgresql-Mon.log", "2024-02-12 10:00:00 UTC LOG:  statement: CREATE ROLE r ENCRYPTED PASSWORD '{s}';\n"),
    ("var/log/messages", "Feb 12 10:00:00 sat backup[1]: sshpass -p {s} ssh root@capsule\n"),
    ("var/log/messages", "Feb 12 10:00:00 sat redis[2]: ACL SETUSER alice on >{s} ~*\n"),
    ("etc/redis.conf", "user default on >{s} ~* &* +@all\n"),
    ("etc/redis.conf", "user worker on #{s} ~* -@all\n"),
    ("etc/httpd/conf.d/05-foreman-ssl.conf", 'RequestHeader set Authorization "Basic {s}"\n'),
)
SECRET_COMMANDS = (("logs", "{src}"), ("logs", "{src}", "--format", "json"), ("logs", "{src}", "--format", "html"),
                   ("logs", "{src}", "--format", "markdown"), ("facts", "{src}", "--format", "json"), ("audit", "{src}", "--format", "json"))


def _sosreport(extra: dict[str, object]) -> dict[str, object]:
    files: dict[str, object] = {f"sos/{TOP}/version.txt": b"sosreport: 4.6.1\n", f"sos/{TOP}/proc/meminfo": MEMINFO,
                                f"sos/{TOP}/installed-rpms": RPMS,
                                f"sos/{TOP}/etc/foreman-installer/scenarios.d/last_scenario.yaml": SCENARIO}
    files.update({f"sos/{TOP}/{rel}": data for rel, data in extra.items()})
    return files


def secret_cases(rng: random.Random) -> Iterator[Case]:
    for f_index, (rel, form) in enumerate(LOG_FORMS):
        for c_index, command in enumerate(SECRET_COMMANDS):
            case_id = f"secret-{f_index:02d}-{c_index}"
            secret = canary(case_id)
            files = _sosreport({rel: form.replace("{s}", secret).encode()})
            yield Case(case_id, "secrets", tuple(a.replace("{src}", f"{{dir}}/sos/{TOP}") for a in command), tuple(files.items()),
                       canary=secret)


def file_cases(rng: random.Random) -> Iterator[Case]:
    snapshot = json.dumps(_base_snapshot()).encode()
    for command in (("facts",), ("audit",), ("logs",), ("facts", "--format", "json"), ("audit", "--format", "html")):
        for form, given, output in (("same", "s.json", "s.json"), ("link", "l.json", "s.json"), ("dot", "s.json", "./s.json"),
                                    ("hard", "h.json", "s.json")):
            files: list[tuple[str, object]] = [("s.json", snapshot)]
            if form == "link":
                files.append(("l.json", "symlink:s.json"))
            if form == "hard":
                files.append(("h.json", "hardlink:s.json"))
            yield Case(f"files-input-{'-'.join(command).replace('--', '')}-{form}", "files",
                       (command[0], f"{{dir}}/{given}", *command[1:], "--output", f"{{dir}}/{output}"), tuple(files),
                       unchanged=("s.json",), statuses=(2,))
    fixture = str(FIXTURES / "satellite-6.15")
    plan = ("--product", "satellite", "--version", "6.15", "--hosts", "500", "--cpus", "8", "--ram", "32G")
    for index, argv in enumerate((("plan", *plan), ("audit", fixture, "--hosts", "500"), ("plan", "--from", fixture, "--hosts", "500"))):
        for flag in ("--output-dir", "--out"):
            yield Case(f"files-outdir-link-{index}-{flag.strip('-')}", "files", (*argv, flag, "{dir}/link"),
                       (("real", "dir"), ("link", "symlink:real")), statuses=(2,))
    sos = f"{{dir}}/sos/{TOP}"
    for index, argv in enumerate((("plan", "--from", sos, "--hosts", "500"), ("audit", sos, "--hosts", "500"),
                                  ("logs", sos, "--output", sos), ("facts", sos, "--output", sos + "/version.txt"))):
        files = _sosreport({})
        yield Case(f"files-outdir-input-{index}", "files", argv + (() if "--output" in argv else ("--output-dir", sos)),
                   tuple(files.items()), statuses=(2,), unchanged=tuple(files))
    for extra in ((), ("--remove-stale",)):
        yield Case(f"files-render-devnull{'-'.join(extra)}", "files", ("render", *plan, "--write", "--merge-into", "/dev/null", *extra),
                   statuses=(2,))
    for name in ("s.json", "s.json.gz"):
        yield Case(f"files-collect-mode-{name}", "files", ("collect", "--root", fixture, "--output", "{dir}/" + name),
                   outputs=(name,), modes=((name, 0o600),))
        yield Case(f"files-collect-mode-existing-{name}", "files", ("collect", "--root", fixture, "--output", "{dir}/" + name),
                   ((name, b"old"),), modes=((name, 0o600),))


COUNT_KEYS = ("foreman::db_pool", "foreman::foreman_service_puma_workers", "foreman::foreman_service_puma_threads_max",
              "foreman::dynflow_worker_instances", "foreman::dynflow_worker_concurrency",
              "foreman_proxy_content::pulpcore_worker_count", "foreman_proxy_content::pulpcore_api_service_worker_count",
              "foreman_proxy_content::pulpcore_content_service_worker_count", "apache::mod::event::serverlimit",
              "apache::mod::passenger::passenger_max_pool_size")
ODD_VALUES = ("|\n  twenty\n  more", ">-\n  folded text", "many", "[1, 2]", "{a: 1}", "true", "1.5", "!!timestamp 2024-13-45",
              "2024-02-12", "1e400", "-1", "99999999999999999999999999999", "'\x1b[2J'", "~", "!!binary aGVsbG8=")


def value_cases(rng: random.Random) -> Iterator[Case]:
    sos = f"{{dir}}/sos/{TOP}"
    hiera_rel = "etc/foreman-installer/custom-hiera.yaml"
    commands = (("plan", "--from", sos, "--hosts", "500"), ("audit", sos, "--hosts", "500"),
                ("render", "--from", sos, "--hosts", "500", "--merge-into", "{dir}/h.yaml"))
    for k_index, key in enumerate(COUNT_KEYS):
        for v_index, value in enumerate(ODD_VALUES):
            text = f"{key}: {value}\n".encode()
            command = commands[(k_index + v_index) % len(commands)]
            files = dict(_sosreport({hiera_rel: text}))
            files["h.yaml"] = text
            yield Case(f"values-hiera-{k_index}-{v_index:02d}", "values", command, tuple(files.items()), outputs=("h.yaml",))
        module, _, param = key.rpartition("::")
        answers = f"---\n{module}:\n  {param}: {ODD_VALUES[k_index % 4]}\n".encode()
        files = dict(_sosreport({"etc/foreman-installer/scenarios.d/satellite-answers.yaml": answers}))
        yield Case(f"values-answers-{k_index}", "values", commands[k_index % 2], tuple(files.items()))
    render = ("render", "--product", "satellite", "--version", "6.15", "--hosts", "500", "--cpus", "8", "--ram", "32G",
              "--merge-into", "{dir}/h.yaml")
    for index, text in enumerate(("a: !!timestamp 2024-13-45\n", "a: 2024-02-30\n", "a: !!timestamp x\n", "a: !!float abc\n",
                                  "a: !!int 0x\n", "a: 1e999\n", "a: !!timestamp 2024-02-12T25:61:61Z\n")):
        for extra in ((), ("--write",)):
            yield Case(f"values-render-{index}{'-write' if extra else ''}", "values", (*render, *extra), (("h.yaml", text.encode()),),
                       outputs=("h.yaml",))
    durations = ("1e400", "9" * 400, "inf", "nan", "-5", "1" + "0" * 308, "0.0000001")
    for index, duration in enumerate(durations):
        log = (f"{STAMP} [I|app|a1b2c3d4] Processing by HostsController#index as JSON\n"
               f"{STAMP} [I|app|a1b2c3d4] Completed 200 OK in {duration}ms (Views: {duration}ms | ActiveRecord: {duration}ms)\n")
        for fmt in ("text", "json", "html", "markdown"):
            yield Case(f"values-duration-{index}-{fmt}", "values", ("logs", "{dir}/production.log", "--format", fmt),
                       (("production.log", log.encode()),))
    escapes = ("\x1b[2J\x1b]0;owned\x07", "\x9b31m", "\x1bP+q\x1b\\", "\x1b[6n", "\r\x1b[K", "\x08\x08\x7f")
    targets = ("sos_commands/foreman/foreman_tasks_tasks", "var/log/foreman/production.log", "var/log/messages",
               "var/log/httpd/foreman-ssl_access_ssl.log", "var/lib/pgsql/data/log/postgresql-Mon.log", "var/log/candlepin/candlepin.log")
    for t_index, target in enumerate(targets):
        for e_index, escape in enumerate(escapes):
            text = f"{escape}not understood {escape}\nid,label\n{escape},x\n".encode()
            fmt = ("text", "markdown")[(t_index + e_index) % 2]
            yield Case(f"values-escape-{t_index}-{e_index}", "values", ("logs", sos, "--format", fmt),
                       tuple(_sosreport({target: text}).items()), plain_text=True)


GENERATORS = {"text": text_cases, "tar-damage": tar_damage_cases, "tar-evil": tar_evil_cases, "snapshot": snapshot_cases,
              "argv": argv_cases, "secrets": secret_cases, "files": file_cases, "values": value_cases}


@functools.cache
def _cases(kind: str | None) -> tuple[Case, ...]:
    out: list[Case] = []
    for name, generator in GENERATORS.items():
        if kind is None or kind == name:
            out += list(generator(random.Random(f"{SEED}-{name}")))
    return tuple(out)


def cases(kind: str | None = None) -> list[Case]:
    """Every case of ``kind`` (all classes when None), in a fixed order (generated once per process)."""
    if kind is None:
        return [case for name in GENERATORS for case in _cases(name)]
    return list(_cases(kind))


def materialize(case: Case, directory: Path) -> list[str]:
    """Write the case's files under ``directory``; returns its argv with ``{dir}`` filled in."""
    import os

    for rel, payload in case.files:
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if payload == "fifo":
            os.mkfifo(path)
        elif payload == "dir":
            path.mkdir(exist_ok=True)
        elif isinstance(payload, str) and payload.startswith("symlink:"):
            path.symlink_to(payload[len("symlink:"):])
        elif isinstance(payload, str) and payload.startswith("hardlink:"):
            os.link(directory / payload[len("hardlink:"):], path)
        elif isinstance(payload, Big):
            with path.open("wb") as handle:
                handle.write(payload.prefix)
                left = payload.count
                while left:
                    n = min(left, max(1, (1 << 20) // max(1, len(payload.unit))))
                    handle.write(payload.unit * n)
                    left -= n
                handle.write(payload.suffix)
        else:
            assert isinstance(payload, bytes)
            path.write_bytes(payload)
    return [a.replace("{dir}", str(directory)) for a in case.argv]


def main() -> int:
    if "--out" in sys.argv[1:]:
        out = Path(sys.argv[sys.argv.index("--out") + 1])
        for case in cases():
            folder = out / case.id
            folder.mkdir(parents=True, exist_ok=True)
            argv = materialize(case, folder)
            (folder / "argv.json").write_text(json.dumps(argv) + "\n")
        return 0
    total = 0
    for name in GENERATORS:
        count = len(cases(name))
        total += count
        print(f"{name:<12} {count:6d}")
    print(f"{'total':<12} {total:6d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
