"""Which place wins when two set one tunable, per release: PostgreSQL's files, systemd's unit and drop-ins, the
installer's layers, Apache's server-wide directives and the Foreman vhost (``knowledge/data/precedence.yaml``: one
table per mechanism and release, each order with its citation).

The one place this knowledge lives: a change that lands below a higher place that sets the same key cannot take
effect, so the change set (``foretune.changes``) and the audit (``foretune.audit.effect``) check every change here.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from foretune.knowledge import load_data
from foretune.knowledge.releases import version_key


class Shadow(NamedTuple):
    """A place of higher precedence that sets the key a fix changes, and what removes it."""

    location: str  # the file, as the source names it
    line: str  # its line that sets the key, verbatim
    reset: str  # what takes it away, in short ("ALTER SYSTEM RESET max_connections;", "remove <file>")
    undo: str  # the command that does it
    citations: tuple[str, ...]  # where the order (and the reset) is stated


MECHANISMS = ("postgresql", "systemd", "installer", "apache")

# what makes PostgreSQL read a setting it reads only at start (restart_settings), after an ALTER SYSTEM RESET: the
# installer restarts it only when it changes postgresql.conf (APPLY.md gives the same command); an SCL PostgreSQL
# (Satellite 6.8-6.10 on EL7: /var/opt/rh/rh-postgresql12/lib/pgsql/data) runs as rh-postgresql12-postgresql
PG_RESTART = "systemctl restart postgresql"


def pg_restart(unit: str = "postgresql") -> str:
    """The restart of PostgreSQL's unit (``rh-postgresql12-postgresql`` for the SCL's on RHEL 7, Satellite 6.8-6.10)."""
    return f"systemctl restart {unit}"


def table(mechanism: str, version: str | None = None) -> dict[str, Any]:
    """The precedence table of ``mechanism`` (postgresql, systemd, installer, apache) at ``version``: a PostgreSQL
    major for postgresql, a Foreman x.y otherwise; the newest table when ``version`` is None (unknown).

    >>> table("postgresql", "9.2")["order"], table("postgresql", "12")["highest_file"]
    (['postgresql.conf', 'include'], 'postgresql.auto.conf')
    >>> table("installer", "1.11")["order"], table("installer", "3.9")["order"]
    (['answers'], ['profile', 'answers', 'custom-hiera'])
    """
    steps = list(load_data("precedence.yaml")[mechanism])
    if version is not None:
        steps = [s for s in steps if version_key(str(s["since"])) <= version_key(version)] or steps[:1]
    return dict(steps[-1])


def tables(foreman_version: str | None, postgresql_version: str | None = None) -> dict[str, dict[str, Any]]:
    """Every mechanism's table for one release: what a change set of that release is checked against."""
    return {m: table(m, postgresql_version if m == "postgresql" else foreman_version) for m in MECHANISMS}


def _sets(line: str, key: str) -> bool:
    return re.match(rf"\s*{re.escape(key)}\s*(=|\s)", line, re.IGNORECASE) is not None


def postgresql_shadow(setting: str, files: Iterable[tuple[str, str]], version: str | None = None) -> Shadow | None:
    """The postgresql.auto.conf line that sets ``setting``, when ``files`` (location, text: what was read, in the
    order PostgreSQL reads it) has one: ALTER SYSTEM's value wins over every postgresql.conf the installer writes.

    >>> postgresql_shadow("max_connections", [("var/lib/pgsql/data/postgresql.conf", "max_connections = 500"),
    ...     ("var/lib/pgsql/data/postgresql.auto.conf", "# Do not edit\\nmax_connections = '200'")]).line
    "max_connections = '200'"
    >>> postgresql_shadow("work_mem", [("var/lib/pgsql/data/postgresql.auto.conf", "max_connections = '200'")]) is None
    True
    """
    entry = table("postgresql", version)
    if not entry.get("highest_file"):
        return None
    found: Shadow | None = None
    for location, text in files:
        if posixpath.basename(location) != entry["highest_file"]:
            continue
        for line in text.replace(" | ", "\n").splitlines():
            if _sets(line, setting):
                reset = str(entry["reset"]).format(setting=setting)
                found = Shadow(location, line.strip(), reset, str(entry["undo"]).format(reset=reset),
                               (str(entry["citation"]), str(entry["undo_citation"])))
    return found


def postgresql_include_shadow(setting: str, sources: Mapping[str, Sequence[str]], value: str | None = None,
                              version: str | None = None) -> Shadow | None:
    """The file ``postgresql.conf`` includes (``include``, ``include_if_exists``, ``include_dir``) that sets ``setting``
    last, when one does: PostgreSQL reads it where its directive stands and the last entry wins, so it wins over the
    value the installer writes to postgresql.conf. ``sources``: setting -> the files that set it, in read order.

    >>> postgresql_include_shadow("work_mem", {"work_mem": ["var/lib/pgsql/data/postgresql.conf",
    ...     "var/lib/pgsql/data/conf.d/90-site.conf"]}, "16MB").line
    'work_mem = 16MB'
    >>> postgresql_include_shadow("work_mem", {"work_mem": ["var/lib/pgsql/data/conf.d/10.conf",
    ...     "var/lib/pgsql/data/postgresql.conf"]}) is None
    True
    """
    files = list(sources.get(setting) or ())
    if not files:
        return None
    last = files[-1]
    entry = table("postgresql", version)
    if posixpath.basename(last) in ("postgresql.conf", entry.get("highest_file") or "postgresql.auto.conf"):
        return None
    path = "/" + last.lstrip("/")
    line = f"{setting} = {value}" if value is not None else setting
    return Shadow(last, line, f"remove the {setting} line from {path}", f"sed -i '/^[[:space:]]*{setting}[[:space:]]*=/d' {path}",
                  (str(entry.get("include_citation") or "pg-config-includes"),))


def removed_settings(version: str | None) -> dict[str, str]:
    """The settings PostgreSQL ``version`` no longer knows (it refuses to start with them), with the citation.

    >>> removed_settings("12"), removed_settings("9.2")
    ({'checkpoint_segments': 'pg-release-95-wal-size'}, {})
    """
    if version is None:
        return {}
    return {str(k): str(v) for k, v in (table("postgresql", version).get("removed_settings") or {}).items()}


def systemd_dropin_dirs() -> list[str]:
    """The directories whose ``<unit>.d/`` drop-ins systemd reads for a system unit (/etc, /run, /usr/lib)."""
    return [str(d) for d in table("systemd").get("dropin_dirs") or ("/etc/systemd/system",)]


def systemd_shadow(unit: str, key: str, dropins: Iterable[tuple[str, str]], owned: str) -> Shadow | None:
    """The drop-in of ``unit`` that sets ``key`` after ``owned`` (the drop-in a fix writes), when one does:
    drop-ins are read in lexical order of their names and the last one to set a key wins.

    >>> systemd_shadow("foreman.service", "Environment", [
    ...     ("etc/systemd/system/foreman.service.d/installer.conf", "Environment=FOREMAN_PUMA_THREADS_MAX=5"),
    ...     ("etc/systemd/system/foreman.service.d/override.conf", "Environment=FOREMAN_PUMA_THREADS_MAX=16")],
    ...     owned="installer.conf").location
    'etc/systemd/system/foreman.service.d/override.conf'
    """
    found = systemd_shadows(unit, key, dropins, owned)
    return found[-1] if found else None


def systemd_shadows(unit: str, key: str, dropins: Iterable[tuple[str, str]], owned: str) -> list[Shadow]:
    """Every drop-in of ``unit`` that sets ``key`` after ``owned``, in the order systemd reads them (the last wins;
    each must go for ``owned``'s value to take effect). ``dropins`` may come from /etc, /run and /usr/lib."""
    entry = table("systemd")
    later = sorted(((posixpath.basename(loc), loc, text) for loc, text in dropins
                    if posixpath.basename(posixpath.dirname(loc)) == f"{unit}.d" and posixpath.basename(loc) > owned),
                   key=lambda t: t[0].encode())
    found = []
    for _, location, text in later:
        lines = [line.strip() for line in text.splitlines() if line.strip().startswith(f"{key}=")]
        if lines:
            path = "/" + location.lstrip("/")
            edits = [(line, after) for line in lines if (after := unshadowed_line(line, unit)) != line]
            gone = " | ".join(line for line, _ in edits) or " | ".join(lines)
            found.append(Shadow(location, " | ".join(lines), f"take `{gone}` out of {path} (its other settings stay)",
                                dropin_unshadow_command(path, edits or [(line, None) for line in lines]),
                                (str(entry["citation"]),)))
    return found


# the FOREMAN_PUMA_* words of an Environment= line: what shadows the installer's installer.conf in foreman.service
_PUMA_WORD = re.compile(r"^\"?FOREMAN_PUMA_\w+=")


def unshadowed_line(line: str, unit: str) -> str | None:
    """A drop-in line as it stays once what shadows a change goes (None: the line goes; ``line``: it stays as it
    is): foreman.service's Environment= loses its FOREMAN_PUMA_* words (the site's other variables stay), another
    unit's LimitNOFILE= goes. The one rule both ``apply`` and the audit's fix command follow.

    >>> unshadowed_line('Environment="FOREMAN_PUMA_WORKERS=8" "FOREMAN_PUMA_THREADS_MAX=5"', "foreman.service")
    >>> unshadowed_line("Environment=MALLOC_ARENA_MAX=2 FOREMAN_PUMA_WORKERS=8", "foreman.service")
    'Environment=MALLOC_ARENA_MAX=2'
    >>> unshadowed_line("LimitNOFILE=65536", "foreman.service"), unshadowed_line("LimitNOFILE=4096", "httpd.service")
    ('LimitNOFILE=65536', None)
    """
    stripped = line.strip()
    puma = unit.split(":", 1)[0].removesuffix(".service") == "foreman"
    if puma and re.match(r"Environment\s*=", stripped):
        words = stripped.split("=", 1)[1].split()
        kept = [w for w in words if not _PUMA_WORD.match(w)]
        return line if len(kept) == len(words) else ("Environment=" + " ".join(kept) if kept else None)
    if not puma and re.match(r"LimitNOFILE\s*=", stripped):
        return None
    return line


def _sed_pattern(line: str) -> str:
    return "^[[:space:]]*" + re.sub(r"([\\.*\[\]^$|])", r"\\\1", line.strip()) + "[[:space:]]*$"


def dropin_unshadow_command(path: str, edits: Sequence[tuple[str, str | None]]) -> str:
    r"""The shell command that takes the shadowing lines out of the drop-in ``path`` as ``apply`` does: a copy kept in
    /root first (:func:`move_aside`'s name), each line deleted or rewritten (``edits``: line, what it becomes or
    None), the file moved away when no setting is left in it, then systemd reloaded. A drop-in of /run or /usr/lib
    stays as it is: the same name in /etc hides it, written without those lines.

    >>> print(dropin_unshadow_command("/etc/systemd/system/foreman.service.d/override.conf",
    ...       [("Environment=FOREMAN_PUMA_WORKERS=8", None)]))
    cp -p /etc/systemd/system/foreman.service.d/override.conf /root/foreman.service.d-override.conf && sed -i -e '\|^[[:space:]]*Environment=FOREMAN_PUMA_WORKERS=8[[:space:]]*$|d' /etc/systemd/system/foreman.service.d/override.conf && { grep -q '^[[:space:]]*[^#;[:space:][]' /etc/systemd/system/foreman.service.d/override.conf || rm /etc/systemd/system/foreman.service.d/override.conf; } && systemctl daemon-reload
    """
    import shlex  # start-up: only when a drop-in shadows a change

    def expr(line: str, after: str | None) -> str:
        if after is None:
            return "\\|" + _sed_pattern(line) + "|d"
        return "s|" + _sed_pattern(line) + "|" + re.sub(r"([&|])", r"\\\1", after.replace("\\", "\\\\")) + "|"

    exprs = " ".join("-e " + shlex.quote(expr(line, after)) for line, after in edits)
    unit_dir = posixpath.dirname(path)
    if not path.startswith("/etc/"):
        hiding = f"/etc/systemd/system/{posixpath.basename(unit_dir)}/{posixpath.basename(path)}"
        return f"mkdir -p {posixpath.dirname(hiding)} && sed {exprs} {path} > {hiding} && systemctl daemon-reload"
    return (f"cp -p {path} {move_aside(path).split()[-1]} && sed -i {exprs} {path} && "
            f"{{ grep -q '^[[:space:]]*[^#;[:space:][]' {path} || rm {path}; }} && systemctl daemon-reload")


def move_aside(path: str) -> str:
    """The command that takes a drop-in out of systemd's reach and keeps it: moved to /root under its unit's name
    (two units' ``override.conf`` never overwrite each other there).

    >>> move_aside("/etc/systemd/system/foreman.service.d/override.conf")
    'mv /etc/systemd/system/foreman.service.d/override.conf /root/foreman.service.d-override.conf'
    """
    return f"mv {path} /root/{posixpath.basename(posixpath.dirname(path))}-{posixpath.basename(path)}"


def installer_order(foreman_version: str | None = None) -> list[str]:
    """The installer's layers from the lowest precedence to the highest.

    >>> installer_order()
    ['profile', 'answers', 'custom-hiera']
    """
    return [str(layer) for layer in table("installer", foreman_version)["order"]]


def httpd_edit_target(target: str, directive: str, includes: Mapping[str, Sequence[Mapping[str, Any]]]) -> tuple[str, str]:
    """(the file an edit of ``directive`` takes effect from, why it is not ``target``, or ""): a file of a vhost's
    include directory (``conf.d/NAME.d/FILE.conf``) is read only when the vhost ``conf.d/NAME.conf`` includes it, and
    a directive the vhost sets after that include wins (the last one in the vhost). ``includes``: the
    ``httpd_includes`` fact; a vhost it does not know leaves ``target`` as it is.

    >>> vhost = "/etc/httpd/conf.d/05-foreman-ssl.conf"
    >>> httpd_edit_target("/etc/httpd/conf.d/05-foreman-ssl.d/katello.conf", "KeepAlive", {vhost: []})[0]
    '/etc/httpd/conf.d/05-foreman-ssl.conf'
    >>> httpd_edit_target("/etc/httpd/conf.d/05-foreman-ssl.d/katello.conf", "KeepAlive",
    ...                   {vhost: [{"include": "/etc/httpd/conf.d/05-foreman-ssl.d/*.conf", "later": []}]})
    ('/etc/httpd/conf.d/05-foreman-ssl.d/katello.conf', '')
    """
    import fnmatch  # start-up: only when a vhost's include directory is edited

    match = re.fullmatch(r"(/etc/httpd/conf\.d/[^/]+)\.d/[^/]+\.conf", target)
    if match is None or match.group(1) + ".conf" not in includes:
        return target, ""
    vhost = match.group(1) + ".conf"
    reads = [entry for entry in includes[vhost] if fnmatch.fnmatchcase(
        target, posixpath.normpath(posixpath.join("/etc/httpd", str(entry.get("include", "")).strip('"'))))]
    if not reads:
        return vhost, f"{vhost} includes no {match.group(1)}.d/, so httpd never reads {target}: the line goes into the vhost itself"
    if any(directive in (entry.get("later") or ()) for entry in reads):
        return vhost, f"{vhost} sets {directive} after its include of {posixpath.basename(target)}, which wins: its own line changes"
    return target, ""
