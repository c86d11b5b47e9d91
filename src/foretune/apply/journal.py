"""Writing a change set with backups and a run journal, and rolling a run back byte for byte.

A run lives in ``/var/lib/foretune/runs/<RUN>/`` on the host (under ``--root`` for a tree), mode 0700:
``journal.json`` (0600) says what was changed, how and where the backup of each file lies; ``backup/`` holds each
replaced or removed file as it was (0600), under its host path. The journal never holds a file's content, only
its hash, so secrets stay in the files they were in.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foretune.apply.host import RUNS_DIR, split_password
from foretune.errors import InputError
from foretune.safeio import make_dirs, read_bytes, write_file

if TYPE_CHECKING:
    from foretune.apply.edits import Edits
    from foretune.apply.host import Host
    from foretune.changes.model import Change

JOURNAL = "journal.json"
JOURNAL_MODE = 0o600
RUN_ID = re.compile(r"[0-9]{8}T[0-9]{6}Z(?:-[0-9]{1,3})?")
FORMAT = 1


def sha256(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def change_to_dict(change: Change) -> dict[str, Any]:
    """A change as JSON data (the journal's and ``--changes FILE``'s form); values pass redaction."""
    from foretune.host.redact import redact_data  # start-up: only when a journal is written

    data = change._asdict()
    for key in ("units", "overrides", "overridden_by", "citations"):
        data[key] = list(data[key])
    data["value"] = redact_data(data["value"])
    data["site_value"] = redact_data(data["site_value"])
    return {key: value for key, value in data.items() if value not in (None, "", [])}


def change_from_dict(data: Any, where: str) -> Change:
    from foretune.changes.model import CHANNELS, EFFECTS, OPS, Change  # start-up: only when a set is read

    if not isinstance(data, dict):
        raise InputError(f"{where}: each change must be a mapping")
    fields = set(Change._fields)
    unknown = sorted(set(data) - fields)
    if unknown:
        raise InputError(f"{where}: unknown field {unknown[0]!r}")
    for name in ("tunable", "channel", "target"):
        if not isinstance(data.get(name), str) or not data[name]:
            raise InputError(f"{where}: {name} must be a non-empty string")
    values = dict(data)
    for name in ("units", "overrides", "overridden_by", "citations"):
        values[name] = tuple(str(v) for v in values.get(name) or ())
    change = Change(**values)
    if change.channel not in CHANNELS:
        raise InputError(f"{where}: unknown channel {change.channel!r} (one of {', '.join(CHANNELS)})")
    if change.op not in OPS:
        raise InputError(f"{where}: unknown op {change.op!r} (one of {', '.join(OPS)})")
    if change.effect not in EFFECTS:
        raise InputError(f"{where}: unknown effect {change.effect!r} (one of {', '.join(EFFECTS)})")
    return change


def runs_dir(host: Host) -> Path:
    return host.path(RUNS_DIR)


def _new_run(host: Host) -> tuple[str, Path]:
    parent = make_dirs(host.root, RUNS_DIR.lstrip("/"))
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for n in range(1000):
        run = stamp if n == 0 else f"{stamp}-{n}"
        try:
            os.mkdir(parent / run, 0o700)
        except FileExistsError:
            continue
        os.chmod(parent / run, 0o700)
        return run, parent / run
    raise InputError(f"{parent}: no free run name")


def save(directory: Path, journal: dict[str, Any]) -> None:
    write_file(directory / JOURNAL, json.dumps(journal, indent=1, sort_keys=False) + "\n", mode=JOURNAL_MODE)


def _backup(directory: Path, host_path: str, data: bytes) -> str:
    rel = "backup" + host_path
    parent = make_dirs(directory, os.path.dirname(rel))
    target = parent / os.path.basename(rel)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    return rel


def _write(host: Host, host_path: str, data: bytes | None) -> None:
    """Put ``data`` at ``host_path`` (atomic, never through a link), or remove the file when ``data`` is None."""
    path = host.path(host_path)
    if data is None:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: not a regular file: refusing to remove it")
        os.unlink(path)
        return
    rel_parent = os.path.dirname(host_path).lstrip("/")
    if rel_parent:
        make_dirs(host.root, rel_parent)
    write_file(path, data)


def _missing_dirs(host: Host, host_path: str) -> list[str]:
    """The parent directories of ``host_path`` that do not exist yet (outermost first): rollback removes them."""
    missing: list[str] = []
    parent = os.path.dirname(host_path)
    while parent not in ("/", "") and not os.path.lexists(host.path(parent)):
        missing.insert(0, parent)
        parent = os.path.dirname(parent)
    return missing


def apply(host: Host, found: Edits, release: str, *, source: str, by_hand: tuple[str, ...] = ()) -> tuple[str, dict[str, Any]]:
    """Make ``found``'s edits on ``host``: backups first, the journal, then the files and statements. Returns the run.
    ``by_hand``: the set's commands apply prints for the admin (THP): journalled, so that verify reads back what they set."""
    run, directory = _new_run(host)
    files = []
    for edit in found.files:
        path = host.path(edit.path)
        entry: dict[str, Any] = {"path": edit.path, "existed": edit.old is not None, "backup": None,
                                 "sha256_before": sha256(edit.old), "sha256_after": sha256(edit.new),
                                 "tunables": [c.tunable for c in edit.changes], "done": False}
        if edit.old is not None:
            st = os.lstat(path)
            entry.update(backup=_backup(directory, edit.path, edit.old), mode=stat.S_IMODE(st.st_mode), uid=st.st_uid, gid=st.st_gid)
        files.append(entry)
    journal: dict[str, Any] = {
        "format": FORMAT, "run": run, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "epoch": int(time.time()),
        "host": host.label, "release": release, "source": source,
        "changes": [change_to_dict(c) for c in found.applied],
        "skipped": [{"change": change_to_dict(s.change), "why": s.why} for s in found.skipped],
        "files": files,
        "statements": [{"tunable": s.change.tunable, "sql": s.sql, "before": s.before, "undo": s.undo, "done": False,
                        "target": pg_target(host)} for s in found.statements],
        "installer": {"command": found.installer} if found.installer else None,
        "by_hand": list(by_hand),
        "rolled_back": None,
    }
    save(directory, journal)
    try:
        for edit, entry in zip(found.files, files):
            entry["created_dirs"] = _missing_dirs(host, edit.path)
            _write(host, edit.path, edit.new)
            entry["done"] = True
        for statement, entry in zip(found.statements, journal["statements"]):
            host.psql(statement.sql)
            entry["done"] = True
        if found.statements:
            host.psql("SELECT pg_reload_conf()")
    except (OSError, InputError) as exc:
        save(directory, journal)
        what = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) and exc.filename else str(exc)
        raise InputError(f"{what}; run {run} is partly applied: `foretune apply --rollback {run}{root_option(host)}` "
                         "restores what it changed") from None
    save(directory, journal)
    return run, journal


def load(host: Host, run: str | None, *, allow_rolled_back: bool = False) -> tuple[Path, dict[str, Any]]:
    """The journal of ``run`` (None: the last run not rolled back); InputError with one line otherwise."""
    parent = runs_dir(host)
    if run is not None and run != "last":
        if not RUN_ID.fullmatch(run):
            raise InputError(f"{run}: not a run name (like 20261126T190102Z); `ls {parent}` lists them")
        candidates = [run]
    else:
        try:
            candidates = sorted((name for name in os.listdir(parent) if RUN_ID.fullmatch(name)), reverse=True)
        except FileNotFoundError:
            candidates = []
        except OSError as exc:
            raise InputError(f"{parent}: {exc.strerror}") from None
        if not candidates:
            raise InputError(f"no applied change set on {host.label}: {parent} holds no run (apply one with `foretune apply --write`)")
    for name in candidates:
        directory = parent / name
        try:
            data = json.loads(read_bytes(directory / JOURNAL, 16 * 1024 * 1024))
        except FileNotFoundError:
            if run is not None and run != "last":
                raise InputError(f"{name}: no such run in {parent}") from None
            continue
        except (OSError, ValueError) as exc:
            raise InputError(f"{directory / JOURNAL}: not a readable journal ({getattr(exc, 'strerror', None) or exc})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError(f"{directory / JOURNAL}: not a foretune journal")
        _check(directory / JOURNAL, name, data)
        if data.get("rolled_back"):
            if run is None or run == "last":
                continue
            if not allow_rolled_back:
                raise InputError(f"run {name} was rolled back at {data['rolled_back']}: nothing of it is applied")
        return directory, data
    raise InputError(f"no applied change set on {host.label}: every run in {parent} was rolled back")


def _check(path: Path, name: str, data: dict[str, Any]) -> None:
    """A journal as apply writes it: its run is its directory's name, its files and statements name what they changed
    and how to undo it, its changes read as changes; InputError with one line otherwise (nothing is restored from a
    damaged journal)."""
    if data.get("run") != name:
        raise InputError(f"{path}: damaged journal: its run {data.get('run')!r} is not its directory's name {name}")
    files, statements = data.get("files"), data.get("statements")
    if not isinstance(files, list) or not all(
            isinstance(f, dict) and isinstance(f.get("path"), str) and f["path"].startswith("/")
            and (not f.get("existed") or isinstance(f.get("backup"), str)) for f in files):
        raise InputError(f"{path}: damaged journal: its list of files changed, with their backups, is not readable")
    if not isinstance(statements, list) or not all(isinstance(s, dict) and isinstance(s.get("undo"), str) for s in statements):
        raise InputError(f"{path}: damaged journal: its list of statements, with their undo, is not readable")
    if not isinstance(data.get("changes"), list):
        raise InputError(f"{path}: damaged journal: no list of changes")
    for n, change in enumerate(data["changes"]):
        change_from_dict(change, f"{path}: change {n + 1}")


def later_runs(host: Host, run: str) -> list[str]:
    """The runs applied after ``run`` and not rolled back (oldest first): rolling ``run`` back under them would undo
    their changes too, silently (its backups are the files as they were before any of them)."""
    parent = runs_dir(host)
    try:
        names = sorted((name for name in os.listdir(parent) if RUN_ID.fullmatch(name) and _run_order(name) > _run_order(run)),
                       key=_run_order)
    except OSError:
        return []
    later = []
    for name in names:
        try:
            data = json.loads(read_bytes(parent / name / JOURNAL, 16 * 1024 * 1024))
        except (OSError, ValueError):
            continue  # no journal: a run that wrote nothing
        if isinstance(data, dict) and not data.get("rolled_back"):
            later.append(name)
    return later


def _run_order(name: str) -> tuple[str, int]:
    """A run name as its order of application (20261126T190102Z-2 after 20261126T190102Z-1 after 20261126T190102Z)."""
    stamp, _, n = name.partition("-")
    return stamp, int(n or 0)


def root_option(host: Host) -> str:
    """`` --root DIR`` for a command that must work on the same tree as printed ("" on this host)."""
    from shlex import quote  # start-up: only when a command is printed

    return "" if host.live else f" --root {quote(str(host.root))}"


def rollback(host: Host, run: str, *, force: bool = False) -> tuple[dict[str, Any], list[str]]:
    """Restore run ``run``'s backups byte for byte and undo its statements; returns the journal and notes. A run
    with later runs still applied is refused unless ``force``: those are rolled back first, newest first."""
    directory, journal = load(host, run, allow_rolled_back=True)
    if journal.get("rolled_back"):
        raise InputError(f"run {journal['run']} was already rolled back at {journal['rolled_back']}")
    later = later_runs(host, str(journal["run"]))
    if later and not force:
        raise InputError(f"run {later[-1]} was applied after run {journal['run']} and is not rolled back: roll back "
                         f"{', then '.join(reversed(later))} first (`foretune apply --rollback {later[-1]}{root_option(host)}`), "
                         f"or add --force to roll {'them' if len(later) > 1 else 'it'} back first, newest first")
    notes: list[str] = []
    for newer in reversed(later):  # --force: the later runs go first, newest first, each recorded as rolled back
        _, theirs = rollback(host, newer)
        notes += [*theirs, f"run {newer}, applied after run {journal['run']}, rolled back first (--force)"]
    undone = [entry for entry in reversed(journal.get("statements", [])) if entry.get("done")]
    _same_server(host, str(journal["run"]), undone)  # before any file is touched: no half-done rollback
    entries = [entry for entry in reversed(journal.get("files", [])) if entry.get("done")]
    backups: dict[str, bytes] = {}
    for entry in entries:  # every file and backup checked before any is touched: no half-done rollback
        host.path(entry["path"])  # a symbolic link on the way: refused here, in one line
        if entry.get("existed"):
            backup = directory / entry["backup"]
            try:
                backups[entry["path"]] = read_bytes(backup)
            except OSError as exc:
                raise InputError(f"{backup}: {exc.strerror or exc}: cannot restore {entry['path']}; nothing restored") from None
            if sha256(backups[entry["path"]]) != entry.get("sha256_before"):
                raise InputError(f"{backup}: differs from the file it backed up (hash): nothing restored")
    for entry in entries:
        path = host.path(entry["path"])
        try:
            now = read_bytes(path)
        except FileNotFoundError:
            now = None
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}") from None
        if sha256(now) != entry.get("sha256_after"):
            if now is None:
                notes.append(f"{entry['path']} was removed after run {journal['run']}: restored anyway")
            else:  # a later edit is kept, never overwritten without a copy
                later = directory / ("later-" + entry["path"].strip("/").replace("/", "_"))
                write_file(later, now, mode=0o600)
                notes.append(f"{entry['path']} changed after run {journal['run']}: restored; its later content is kept "
                             f"in {later}")
        if entry.get("existed"):
            data = backups[entry["path"]]
            make_dirs(host.root, os.path.dirname(entry["path"]).lstrip("/"))
            write_file(path, data, mode=int(entry.get("mode", 0o644)))
            with contextlib.suppress(OSError):  # only root may give a file back to its owner
                if (os.lstat(path).st_uid, os.lstat(path).st_gid) != (entry.get("uid"), entry.get("gid")):
                    os.chown(path, int(entry["uid"]), int(entry["gid"]), follow_symlinks=False)
        elif now is not None:
            _write(host, entry["path"], None)
        for created in reversed(entry.get("created_dirs", [])):  # the directories apply made, when left empty
            with contextlib.suppress(OSError):
                os.rmdir(host.path(created))
    for entry in undone:
        host.psql(str(entry["undo"]))
    if undone:
        host.psql("SELECT pg_reload_conf()")
    journal["rolled_back"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    save(directory, journal)
    return journal, notes


def pg_target(host: Host) -> str:
    """The PostgreSQL server ``host``'s statements go to, as a journal records it: ``--dsn``'s conninfo without its
    password, "local" (this host's, over its socket), or "" (a tree without ``--dsn``: no server is reached)."""
    return " ".join(split_password(host.dsn)[0].split()) if host.dsn is not None else "local" if host.live else ""


def _same_server(host: Host, run: str, statements: list[dict[str, Any]]) -> None:
    """InputError when the statements to undo ran on another server than the one ``host`` reaches (or ``host``
    reaches none): undone elsewhere, they would change a server the run never touched and leave its own as it is."""
    if not statements:
        return
    where = {str(s["target"]) for s in statements if s.get("target") is not None}
    now = pg_target(host)
    said = " and ".join(sorted("this host's PostgreSQL (local socket)" if w == "local" else f"--dsn '{w}'" for w in where))
    if not now:
        raise InputError(f"run {run} ran ALTER SYSTEM statements on {said or 'a PostgreSQL server'}: give the same --dsn "
                         "(with its password) to undo them there; nothing restored")
    if where and where != {now}:
        shown = "this host's PostgreSQL (local socket)" if now == "local" else f"--dsn '{now}'"
        raise InputError(f"run {run} ran its ALTER SYSTEM statements on {said}, not on {shown}: roll back with that "
                         "server (--dsn, with its password; on this host without --dsn for the local one); nothing restored")


def run_installer(command: str, environ: dict[str, str]) -> tuple[int, int | None]:
    """Run the installer with ``--noop`` first, then for real when that succeeded; (noop status, real status or None)."""
    import shlex  # start-up: only when the installer is run

    argv = shlex.split(command)
    noop = subprocess.run([argv[0], "--noop", *argv[1:]], check=False, env=environ).returncode
    if noop != 0:
        return noop, None
    return noop, subprocess.run(argv, check=False, env=environ).returncode
