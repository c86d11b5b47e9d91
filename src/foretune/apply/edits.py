"""What applying a change set does to a host: the file edits, the SQL statements and the installer command.

Nothing here writes: :func:`edits` compares each change with the host and returns only what differs, so a
change set already in force gives no edits (a repeated apply is a no-op).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from foretune.errors import InputError
from foretune.safeio import read_bytes

if TYPE_CHECKING:
    from foretune.apply.host import Host
    from foretune.changes.model import Change, ChangeSet

CUSTOM_HIERA = "/etc/foreman-installer/custom-hiera.yaml"
SYSCTL_FILE = "/etc/sysctl.d/90-foretune.conf"
TUNED_ACTIVE = "/etc/tuned/active_profile"
AUTO_CONF = "postgresql.auto.conf"
_SETTING = re.compile(r"[a-z_][a-z0-9_.]{0,62}")  # a PostgreSQL setting name (never quoted into SQL otherwise)


class FileEdit(NamedTuple):
    """One file's content before and after; ``new`` None removes it."""

    path: str  # host path
    old: bytes | None
    new: bytes | None
    changes: tuple[Change, ...]


class Statement(NamedTuple):
    """One ALTER SYSTEM statement, with the setting's value in postgresql.auto.conf before it (None: not set there)."""

    change: Change
    sql: str
    before: str | None
    undo: str


class Skipped(NamedTuple):
    change: Change
    why: str


class Edits(NamedTuple):
    files: tuple[FileEdit, ...]
    statements: tuple[Statement, ...]
    installer: str | None  # the installer command that puts installer and custom-hiera changes in force
    applied: tuple[Change, ...]  # the changes that are in force once the edits are made (and their effect run)
    skipped: tuple[Skipped, ...]
    shadowed: tuple[Skipped, ...] = ()  # written, but something the set does not remove wins over it on this host
    lowered: tuple[Skipped, ...] = ()  # a site value lowered as asked (--prefer foretune): said, never silent
    raised: tuple[Skipped, ...] = ()  # a site value a << merge key brings in, raised by an explicit key: said
    unshadowed: tuple[Skipped, ...] = ()  # a line of a later sysctl file that would win over a change, taken out: said

    @property
    def empty(self) -> bool:
        return not self.files and not self.statements


def dropin_file(change: Change) -> str:
    unit = change.target.split(":", 1)[0]
    unit = unit if "." in unit else unit + ".service"
    return change.file or f"/etc/systemd/system/{unit}.d/foretune.conf"


def file_of(change: Change) -> str:
    """The host file a change is written to (custom-hiera, drop-in, sysctl.d, tuned, an edited file)."""
    if change.channel == "custom-hiera":
        return change.file or CUSTOM_HIERA
    if change.channel == "dropin":
        return dropin_file(change)
    if change.channel == "sysctl":
        return change.file or SYSCTL_FILE
    if change.channel == "tuned":
        return change.file or TUNED_ACTIVE
    if change.channel == "file":
        return change.target
    return change.file


def text_value(value: Any) -> str:
    """A value as a config file or SHOW writes it (``True`` as ``on``)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def same(found: Any, wanted: Any) -> bool:
    """The same setting value, however written (``16MB`` and ``16384kB``, ``200`` and ``'200'``, ``on`` and ``true``)."""
    from foretune.render.merge import same_value  # start-up: only when values are compared

    if found is None or wanted is None:
        return found is wanted
    a, b = text_value(found).strip(), text_value(wanted).strip()
    booleans = {"on": "on", "true": "on", "yes": "on", "1": "on", "off": "off", "false": "off", "no": "off", "0": "off"}
    if isinstance(found, bool) or isinstance(wanted, bool) or {a.lower(), b.lower()} <= {"on", "off"}:
        return booleans.get(a.lower()) == booleans.get(b.lower())  # "KeepAlive on" is On
    return a == b or same_value(a, b)


# --- line-oriented files (drop-ins, sysctl.d, hand-edited files) -----------------------------------------------

_KEY = re.compile(r":?[A-Za-z0-9_][A-Za-z0-9_.@/-]*")  # LimitNOFILE, fs.aio-max-nr, PassengerMaxPoolSize, :request_timeout


def _key_of(line: str) -> str:
    """The key a ``key = value`` / ``Key=value`` / ``Directive value`` / ``:key: value`` line sets ('' for comments and blanks)."""
    text = line.strip()
    if not text or text.startswith(("#", ";", "[")):
        return ""
    match = _KEY.match(text)
    return match.group(0) if match else ""


def _commented_key(line: str) -> str:
    """The key of a commented-out setting (``#:request_timeout: 120``, ``# LimitNOFILE=1024``), else ''."""
    text = line.strip()
    return _key_of(text.lstrip("#;").strip()) if text.startswith(("#", ";")) else ""


def set_line(text: str, line: str, section: str | None = None) -> str:
    """``text`` with the line setting ``line``'s key replaced by ``line`` (the last such line), else ``line`` added.

    ``section`` (``[Service]``): the line belongs in that section, which is added when missing. A replaced line
    keeps its indentation; a line the same but for case and spacing stays as it is. A new line of a vhost file goes
    inside its (last) ``<VirtualHost>``, whose directives win over the server-wide ones.
    """
    key = _key_of(line)
    lines = text.splitlines()
    start, end = 0, len(lines)
    if section is not None:
        heads = [n for n, ln in enumerate(lines) if ln.strip() == section]
        if not heads:
            body = text if not text or text.endswith("\n") else text + "\n"
            return body + f"{section}\n{line}\n"
        start = heads[-1] + 1
        end = next((n for n in range(start, len(lines)) if lines[n].strip().startswith("[")), len(lines))
    found = [n for n in range(start, end) if key and _key_of(lines[n]) == key]
    if found:
        indent = lines[found[-1]][:len(lines[found[-1]]) - len(lines[found[-1]].lstrip())]
        if " ".join(lines[found[-1]].split()).lower() != " ".join(line.split()).lower():  # "KeepAlive on" is On already
            lines[found[-1]] = indent + line
        for n in reversed(found[:-1]):  # one value per key: earlier lines would only confuse a reader
            del lines[n]
    elif section is None and (closing := [n for n, ln in enumerate(lines) if ln.strip().lower() == "</virtualhost>"]):
        lines.insert(closing[-1], "  " + line)  # a vhost's directive: inside the vhost, which wins over the server's
    else:
        lines.insert(end, line)
    return "\n".join(lines) + "\n"


def set_yaml_line(text: str, line: str, path: str) -> str:
    """A ``:key: value`` line set in a YAML file (hammer's ``foreman.yml``): the key's line replaced, or its
    commented-out line (the shipped ``#:request_timeout: 120``) taken, or the line added under the file's one
    top-level mapping; the result must load as YAML and hold the value, or InputError."""
    import yaml  # start-up: PyYAML loads only when a YAML file is edited

    key = _key_of(line)
    lines = text.splitlines()
    found = [n for n, ln in enumerate(lines) if key and _key_of(ln) == key] or \
            [n for n, ln in enumerate(lines) if key and _commented_key(ln) == key][-1:]
    if found:
        n = found[-1]
        lines[n] = lines[n][:len(lines[n]) - len(lines[n].lstrip())] + line
    else:
        tops = [n for n, ln in enumerate(lines) if ln and not ln[0].isspace() and _key_of(ln)]
        if len(tops) == 1 and lines[tops[0]].rstrip().endswith(":"):
            children = [n for n in range(tops[0] + 1, len(lines)) if lines[n].strip() and lines[n][0].isspace()]
            indent = lines[children[0]][:len(lines[children[0]]) - len(lines[children[0]].lstrip())] if children else "  "
            lines.insert((children[-1] if children else tops[0]) + 1, indent + line)
        else:
            lines.append(line)
    result = "\n".join(lines) + "\n"
    try:
        wanted = yaml.safe_load(line)
        loaded = yaml.safe_load(result)
    except yaml.YAMLError:
        raise InputError(f"{path}: cannot set {line!r} safely (not YAML after the edit); edit it by hand") from None

    def holds(node: Any) -> bool:
        if isinstance(node, dict):
            return all(node.get(k) == v for k, v in wanted.items()) or any(holds(v) for v in node.values())
        return False

    if not isinstance(wanted, dict) or not holds(loaded):
        raise InputError(f"{path}: cannot set {line!r} safely; edit it by hand")
    return result


def _number(text: Any) -> float | None:
    try:
        return float(str(text).strip())
    except ValueError:
        return None


# keys whose negative value means "no limit" (hammer's request_timeout -1: no timeout, g62-hammer)
NO_LIMIT_BELOW_ZERO = frozenset({":request_timeout"})
# directives whose 0 means no limit: PassengerMaxPreloaderIdleTime 0 never shuts the preloader down (the 6.2 brief's
# value), MaxKeepAliveRequests 0 allows unlimited requests per connection
ZERO_IS_UNLIMITED = frozenset({"PassengerMaxPreloaderIdleTime", "MaxKeepAliveRequests"})


def _site_higher(text: str, change: Change) -> str | None:
    """The value the file already gives the change's key when it is a number above the change's (else None):
    a site value set higher on purpose is never lowered silently."""
    if change.channel == "dropin":
        key, line_text, section = change.target.split(":", 1)[-1], None, "[Service]"
    elif change.channel == "sysctl" and change.target in SYSCTL_MODES:
        return None
    elif change.channel == "sysctl":
        key, line_text, section = change.target, None, None
    elif change.channel == "file":
        line_text = str(change.value)
        key, section = _key_of(line_text), None
    else:
        return None
    current = line_value(text, key, section)
    wanted = _number(line_value(line_text, key) if line_text is not None else change.value)
    found = _number(current) if current is not None else None
    if key in NO_LIMIT_BELOW_ZERO:  # -1: no timeout, above any number of seconds
        wanted, found = (float("inf") if v is not None and v < 0 else v for v in (wanted, found))
    if key in ZERO_IS_UNLIMITED:  # 0: no limit (never shut down, no cap), above any other number
        wanted, found = (float("inf") if v == 0 else v for v in (wanted, found))
    if current is not None and current.strip().lower() == "infinity" and change.channel == "dropin":
        return current
    return current if found is not None and wanted is not None and found > wanted else None


# kernel settings whose number picks a mode, not a limit: a higher one is not "more" to keep (overcommit_memory: 0
# heuristic, 1 always, 2 never; the installer asks for 0)
SYSCTL_MODES = frozenset({"vm.overcommit_memory"})
SYSCTL_DIRS = ("/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d")
SYSCTL_IN_FORCE = ("/proc/sys/{path}", "/sos_commands/kernel/sysctl_-a")  # this host's kernel; a sosreport's record


def sysctl_site_higher(host: Host, change: Change, own: str) -> tuple[str, str] | None:
    """(value, where) of a kernel setting that the kernel in force or another sysctl file gives above the change's
    (a higher limit the site or the kernel already has is never lowered silently); None when none does."""
    import os  # start-up: only when a sysctl change is applied

    wanted = _number(change.value)
    if wanted is None or change.target in SYSCTL_MODES:  # a mode: the set's value is the one asked for
        return None
    found: list[tuple[str, str]] = []
    paths = ["/etc/sysctl.conf"]
    for directory in SYSCTL_DIRS:
        try:
            paths += [f"{directory}/{name}" for name in sorted(os.listdir(host.resolve(directory))) if name.endswith(".conf")]
        except (OSError, InputError):
            continue
    for path in [p for p in paths if p != own]:
        try:
            data = read_bytes(host.resolve(path))
        except (OSError, InputError):
            continue
        value = line_value(data.decode("utf-8", "replace"), change.target)
        if value is not None:
            found.append((value, path))
    for pattern in SYSCTL_IN_FORCE:
        path = pattern.format(path=change.target.replace(".", "/"))
        try:
            data = read_bytes(host.resolve(path))
        except (OSError, InputError):
            continue
        text = data.decode("utf-8", "replace")
        value = text.strip() if "{path}" in pattern else line_value(text, change.target)
        if value is not None:
            found.append((value, "the kernel in force" + ("" if host.live else f" ({path.lstrip('/')})")))
            break
    higher = [(v, where) for v, where in found if (n := _number(v.split()[0] if v.split() else v)) is not None and n > wanted]
    return max(higher, key=lambda f: _number(f[0].split()[0]) or 0) if higher else None


def sysctl_shadows(host: Host, key: str, own: str) -> list[tuple[str, str]]:
    """(path, value) of every sysctl file read after ``own`` (a host path) that sets ``key``, in the order read: the
    files of every sysctl.d directory in one order by name, a name in /etc hiding the same name in /run and /usr/lib,
    then /etc/sysctl.conf (sysctl-d-order). The last one's value is the one in force."""
    import os  # start-up: only when a sysctl change is applied

    name = os.path.basename(own)
    seen: set[str] = set()
    later: dict[str, str] = {}
    for directory in SYSCTL_DIRS:
        try:
            names = os.listdir(host.resolve(directory))
        except (OSError, InputError):
            continue
        for other in names:
            if other.endswith(".conf") and other not in seen and other > name:
                later[other] = f"{directory}/{other}"
        seen |= set(names)
    found: list[tuple[str, str]] = []
    for path in [*(later[n] for n in sorted(later)), "/etc/sysctl.conf"]:
        if path == own:
            continue
        try:
            data = read_bytes(host.resolve(path))
        except (OSError, InputError):
            continue
        value = line_value(data.decode("utf-8", "replace"), key)
        if value is not None:
            found.append((path, value))
    return found


def sysctl_later(host: Host, key: str, own: str) -> tuple[str, str] | None:
    """(path, value) of the sysctl file read after ``own`` (a host path) that sets ``key`` last, None when none does:
    sysctl --system and systemd-sysctl read the files of every sysctl.d directory in one order by name (a name in
    /etc hides the same name further down), the last one wins, and /etc/sysctl.conf comes last (sysctl-d-order)."""
    found = sysctl_shadows(host, key, own)
    return found[-1] if found else None


def sysctl_unshadow(host: Host, c: Change, prefer: str) -> list[tuple[Change, bool]]:
    """The removals that let sysctl change ``c`` take effect: each line of a sysctl file read after the one ``c`` is
    written to that sets the key to another value (the last one read wins, sysctl-d-order). A file of /etc loses the
    line; one of /run or /usr/lib is hidden by a file of the same name in /etc/sysctl.d without it (a name in /etc
    hides it). A line above foretune's value is the site's and stays, unless ``prefer`` is foretune's. Each with
    whether it lowers the site's value."""
    import os  # start-up: only when a sysctl change is applied

    own = file_of(c)
    wanted = _number(c.value)
    out: list[tuple[Change, bool]] = []
    for path, value in sysctl_shadows(host, c.target, own):
        if same(value, c.value):
            continue
        theirs = _number(value.split()[0] if value.split() else value)
        higher = c.target not in SYSCTL_MODES and theirs is not None and wanted is not None and theirs > wanted
        if higher and prefer != "foretune":
            continue
        hides = not path.startswith("/etc/")
        where = f"/etc/sysctl.d/{os.path.basename(path)}" if hides else path
        how = (f"{where}, of the same name, hides it without that line (the package's or runtime file stays as it is)"
               if hides else "the line goes")
        out.append((c._replace(tunable=f"unshadow:{path}:{c.target}", op="remove", value=value, file=where,
                               overrides=(path,) if hides else (), site_value=value,
                               reason=f"{path} sets {c.target} = {value} and is read after {os.path.basename(own)} "
                                      f"(sysctl --system reads the sysctl.d files in one order by name, /etc/sysctl.conf "
                                      f"last; the last wins): {how}, so that {c.target} = {text_value(c.value)} takes effect",
                               citations=("sysctl-d-order",)), higher))
    return out


def tuned_includes(host: Host, profile: str) -> list[str]:
    """``profile`` and the profiles it includes ([main] include=, followed through /etc/tuned then /usr/lib/tuned,
    where tuned looks for a profile first in /etc)."""
    chain: list[str] = []
    todo = [profile]
    while todo and len(chain) < 20:
        name = todo.pop(0)
        if name in chain or not re.fullmatch(r"[\w.-]+", name):
            continue
        chain.append(name)
        for base in ("/etc/tuned", "/usr/lib/tuned"):
            try:
                data = read_bytes(host.resolve(f"{base}/{name}/tuned.conf"))
            except (OSError, InputError):
                continue
            include = line_value(data.decode("utf-8", "replace"), "include", "[main]")
            todo += [part.strip() for part in (include or "").split(",") if part.strip()]
            break
    return chain


def tuned_site_profile(host: Host, active: str, wanted: str) -> tuple[str, bool] | None:
    """(the site's own active profile, whether it includes ``wanted``) when the active profile is one the site made
    (/etc/tuned/NAME/tuned.conf), not ``wanted`` itself; None otherwise."""
    name = active.strip()
    if not name or name == wanted or not re.fullmatch(r"[\w.-]+", name):
        return None
    try:
        own = read_bytes(host.resolve(f"/etc/tuned/{name}/tuned.conf"))
    except (OSError, InputError):
        return None
    return (name, wanted in tuned_includes(host, name)) if own is not None else None


def without_shadowing(text: str, unit: str) -> str:
    """A drop-in's text without the lines that shadow a change: the FOREMAN_PUMA_* words of an Environment= line
    (foreman.service, over the installer's installer.conf), LimitNOFILE= (another unit, over limits.conf); the
    site's other settings stay as they are (:func:`foretune.knowledge.precedence.unshadowed_line`, which the
    audit's fix command follows too)."""
    from foretune.knowledge.precedence import unshadowed_line  # start-up: only when a drop-in shadows a change

    lines = [kept for line in text.splitlines() if (kept := unshadowed_line(line, unit)) is not None]
    return "\n".join(lines) + "\n" if lines else ""


def holds_more(text: str) -> bool:
    """The drop-in sets something besides its section headers and comments."""
    return any(line.strip() and not line.strip().startswith(("#", ";", "[")) for line in text.splitlines())


def unread_include(host: Host, change: Change) -> str:
    """Why httpd would not take an edit of a file in a vhost's include directory (``conf.d/NAME.d/FILE.conf``) from
    there ("" when it would, or when the vhost is not in the tree): the vhost ``conf.d/NAME.conf`` includes no such
    directory, or sets the directive itself after the include (the last one in the vhost wins)."""
    match = re.fullmatch(r"(/etc/httpd/conf\.d/[^/]+)\.d/[^/]+\.conf", change.target)
    if change.channel != "file" or match is None:
        return ""
    vhost = match.group(1) + ".conf"
    try:
        data = host.read(vhost)
    except InputError:
        return ""
    if data is None:
        return ""
    lines = data.decode("utf-8", "replace").splitlines()
    include = next((n for n, line in enumerate(lines) if re.match(rf"\s*Include(Optional)?\s+\"?{re.escape(match.group(1))}\.d/",
                                                                 line)), None)
    if include is None:
        return f"cannot take effect: {vhost} includes no {match.group(1)}.d/, so httpd never reads {change.target}"
    key = _key_of(str(change.value))
    later = next((line.strip() for line in lines[include + 1:] if _key_of(line.strip()).lower() == key.lower()), None)
    if later is not None:
        return f"cannot take effect: {vhost} sets {later!r} after its include of {match.group(1)}.d/, which wins"
    return ""


def drop_line(text: str, key: str) -> str:
    lines = [ln for ln in text.splitlines() if not key or _key_of(ln) != key]
    return "\n".join(lines) + "\n" if lines else ""


def line_value(text: str, key: str, section: str | None = None) -> str | None:
    """The value the last line setting ``key`` gives (in ``section`` when given), else None."""
    current = None
    in_section = section is None
    for raw in text.splitlines():
        stripped = raw.strip()
        if section is not None and stripped.startswith("["):
            in_section = stripped == section
            continue
        if in_section and key and _key_of(raw) == key:
            rest = stripped[len(key):].strip()
            rest = rest[1:].strip() if rest[:1] in ("=", ":") else rest
            current = re.sub(r"\s+#.*$", "", rest)
    return current


# --- PostgreSQL ---------------------------------------------------------------------------------------------------

def postgresql_file(change: Change) -> bool:
    """``change`` edits a PostgreSQL configuration file (postgresql.conf, a file it includes, postgresql.auto.conf)."""
    return (change.channel == "file" and ("/pgsql/" in change.target or "/postgresql/" in change.target)
            and change.target.endswith(".conf"))


def reload_settings(files: Iterable[FileEdit]) -> list[str]:
    """The PostgreSQL settings the file edits change that PostgreSQL takes on a reload (not only at start): written
    into its files (a tree's postgresql.auto.conf, an included file), they are in force after the next reload."""
    return sorted({setting_name(c) if c.channel == "alter-system" else _key_of(str(c.value)) for edit in files
                   for c in edit.changes if (c.channel == "alter-system" or postgresql_file(c)) and c.effect == "immediate"})


def sql_literal(value: Any) -> str:
    return "'" + text_value(value).replace("'", "''") + "'"


def setting_name(change: Change) -> str:
    name = change.target.split("/")[-1].lower()
    if not _SETTING.fullmatch(name):
        raise InputError(f"{change.target}: not a PostgreSQL setting name")
    return name


def auto_conf_values(text: str) -> dict[str, str]:
    """postgresql.auto.conf's settings (the last line of each wins, as PostgreSQL reads it)."""
    values: dict[str, str] = {}
    for raw in text.splitlines():
        match = re.match(r"\s*([A-Za-z_][\w.]*)\s*=?\s*(.*?)\s*$", raw)
        if not match or raw.lstrip().startswith("#"):
            continue
        value = match.group(2)
        value = re.sub(r"\s+#.*$", "", value) if not value.startswith("'") else value
        if value.startswith("'") and value.endswith("'") and len(value) >= 2:
            value = value[1:-1].replace("''", "'")
        values[match.group(1).lower()] = value
    return values


def auto_conf_set(text: str, name: str, value: str | None) -> str:
    """postgresql.auto.conf as ALTER SYSTEM leaves it: ``name = 'value'`` (appended or replaced), or the line gone."""
    kept = [ln for ln in text.splitlines() if not re.match(rf"\s*{re.escape(name)}\s*=", ln, re.IGNORECASE)]
    if not kept:
        kept = ["# Do not edit this file manually!", "# It will be overwritten by the ALTER SYSTEM command."]
    if value is not None:
        kept.append(f"{name} = {sql_literal(value)}")
    return "\n".join(kept) + "\n"


def auto_conf_before(host: Host, name: str) -> str | None:
    """The value postgresql.auto.conf gives ``name`` now (psql's pg_file_settings, or the tree's file)."""
    if host.has_psql:
        rows = host.psql(f"SELECT setting FROM pg_file_settings WHERE name = {sql_literal(name)} "
                         f"AND sourcefile LIKE '%/{AUTO_CONF}' ORDER BY seqno DESC LIMIT 1")
        return rows[0][0] if rows else None
    directory = host.pg_data_dir()
    if directory is None:
        return None
    data = host.read(f"{directory}/{AUTO_CONF}")
    return auto_conf_values(data.decode("utf-8", "replace")).get(name) if data is not None else None


# --- the change set against the host ----------------------------------------------------------------------------

def installer_program(release: str) -> str:
    """satellite-installer for Satellite, foreman-installer for Foreman and orcharhino."""
    return "satellite-installer" if release.lower().startswith("satellite") else "foreman-installer"


def installer_command(changes: Iterable[Change], release: str, program: str | None = None) -> str | None:
    """The installer command that puts the set's installer options, profile and custom-hiera in force."""
    from foretune.render.snippets import yaml_scalar  # start-up: only when the command is written

    changes = list(changes)
    if not any(c.channel in ("installer", "profile", "custom-hiera") for c in changes):
        return None
    parts = [program or installer_program(release)]
    parts += [f"--tuning {c.value}" for c in changes if c.channel == "profile"]
    parts += [f"{c.target} {yaml_scalar(c.value)}" for c in changes if c.channel == "installer" and c.op == "set"]
    return " ".join(parts)


def edits(cs: ChangeSet, host: Host, *, prefer: str = "site", program: str | None = None) -> Edits:
    """Compare the change set with ``host``: the edits that put it in place, and what is kept as the site has it."""
    from foretune.render.merge import FORETUNE, load_mapping, merge_values  # start-up: only when a set is applied

    by_file: dict[str, list[Change]] = {}
    statements: list[Statement] = []
    applied: list[Change] = []
    skipped: list[Skipped] = []
    lowered: list[Skipped] = []
    raised: list[Skipped] = []
    unshadowed: list[Skipped] = []
    extra: list[Change] = []  # what the set does not hold but the host needs for it to take effect (sysctl lines)
    for change in cs.changes:
        if change.channel in ("installer", "profile"):
            applied.append(change)
        elif change.channel == "alter-system":
            name = setting_name(change)
            if not host.has_psql:  # a tree: its postgresql.auto.conf, as ALTER SYSTEM writes it
                directory = host.pg_data_dir()
                if directory is None:
                    skipped.append(Skipped(change, f"no PostgreSQL data directory (with PG_VERSION) under {host.label}: "
                                                   "give --dsn to run ALTER SYSTEM"))
                    continue
                by_file.setdefault(f"{directory}/{AUTO_CONF}", []).append(change)
                continue
            applied.append(change)
            before = auto_conf_before(host, name)
            undo = f"ALTER SYSTEM RESET {name}" if before is None else f"ALTER SYSTEM SET {name} = {sql_literal(before)}"
            if change.op == "reset":
                if before is not None:
                    statements.append(Statement(change, f"ALTER SYSTEM RESET {name}", before, undo))
            elif not same(before, change.value):
                statements.append(Statement(change, f"ALTER SYSTEM SET {name} = {sql_literal(change.value)}", before, undo))
        elif change.channel == "file" and change.op == "set" and (unread := unread_include(host, change)):
            skipped.append(Skipped(change, unread))
        elif change.channel == "sysctl" and change.op == "set":
            kept = prefer != "foretune" and sysctl_site_higher(host, change, file_of(change)) is not None
            for removal, lowers in [] if kept else sysctl_unshadow(host, change, prefer):
                by_file.setdefault(file_of(removal), []).append(removal)
                extra.append(removal)
                unshadowed.append(Skipped(removal, removal.reason + (
                    f" (this lowers the site's {removal.value}, as asked: --prefer foretune)" if lowers else "")))
            by_file.setdefault(file_of(change), []).append(change)
        elif change.channel in ("custom-hiera", "dropin", "sysctl", "tuned", "file"):
            by_file.setdefault(file_of(change), []).append(change)
        else:
            skipped.append(Skipped(change, f"channel {change.channel!r} is not one apply writes"))
    files: list[FileEdit] = []
    for path, changes in by_file.items():
        raw = host.read(path)
        try:
            old = raw.decode("utf-8") if raw is not None else None
        except UnicodeDecodeError:
            raise InputError(f"{host.path(path)}: not UTF-8 text") from None
        text = old or ""
        removed = False
        kept_changes: list[Change] = []
        if changes[0].channel == "custom-hiera":
            values: dict[str, Any] = {}
            remove = [c.target for c in changes if c.op == "remove"]
            for c in changes:
                if c.op == "set":
                    key, _, entry = c.target.partition("/")
                    if entry:
                        values.setdefault(key, {})[entry] = c.value
                    else:
                        values[key] = c.value
            reasons = {c.target: c.reason or "foretune's recommendation" for c in changes}
            comments = {c.target.split("/", 1)[-1]: f"foretune: {c.reason}" + (f" [{', '.join(c.citations)}]" if c.citations else "")
                        for c in changes if c.reason}
            from foretune.changes.build import lowers_site_value  # start-up: only when a set is applied

            given = {key: value for key, value, _ in cs.given if key in remove}
            preferences = {"*": prefer}
            for c in changes:  # a site value below foretune's is replaced, and said ("replaces the site's ...")
                if c.op == "set" and c.site_value is not None and not isinstance(c.value, dict) and not lowers_site_value(c):
                    preferences[c.target] = FORETUNE
            text, conflicts = merge_values(text, values, reasons, preferences, comments, str(host.path(path)), remove,
                                           given=given, **({} if prefer == FORETUNE else {"asked": ""}))
            lost = {conflict.key: conflict for conflict in conflicts if conflict.taken != FORETUNE}
            for conflict in conflicts:  # a pin reached through << is raised by an explicit key after it: named
                if conflict.key in given and conflict.taken == FORETUNE:
                    change = next(c for c in changes if c.target == conflict.key)
                    said = f" (the site's comment, written for the old value: {' / '.join(conflict.comments)})" if conflict.comments else ""
                    raised.append(Skipped(change, f"replaces the site's {text_value(conflict.site)} (through <<): {conflict.key} "
                                                  f"{text_value(conflict.foretune)} in {path} ({change.reason}){said}"))
            for c in changes:
                if c.target in lost:
                    skipped.append(Skipped(c, f"the site sets {lost[c.target].site!r} in {path}: kept (add --prefer foretune "
                                              "to replace it)"))
                else:
                    kept_changes.append(c)
            load_mapping(text, path)
        else:
            for c in changes:
                kept_changes.append(c)
                if c.channel == "alter-system":
                    text = auto_conf_set(text, setting_name(c), None if c.op == "reset" else text_value(c.value))
                elif c.op == "remove":
                    if c.channel == "dropin" and c.file and c.overrides and not c.overrides[0].startswith("/etc/"):
                        # a drop-in of /usr/lib or /run: the same name in /etc hides it, with its other settings kept
                        hidden = host.read(c.overrides[0])
                        rest = without_shadowing(hidden.decode("utf-8", "replace") if hidden is not None else "", c.target)
                        text = f"# foretune: hides {c.overrides[0]} ({c.reason})\n" + rest
                    elif c.channel == "dropin" and c.file:  # a hand-made drop-in (override.conf) that shadows the change
                        rest = without_shadowing(text, c.target)
                        if holds_more(rest):  # the site's other settings in it stay: only the shadowing lines go
                            text = rest
                        else:
                            removed = True
                    elif c.channel == "dropin":
                        text = drop_line(text, c.target.split(":", 1)[-1])
                    elif c.channel == "sysctl" and c.overrides:  # a /run or /usr/lib file: hidden by /etc's
                        hidden = host.read(c.overrides[0])
                        rest = drop_line(hidden.decode("utf-8", "replace") if hidden is not None else "", c.target)
                        text = f"# foretune: hides {c.overrides[0]} ({c.reason})\n" + rest
                    elif c.channel == "sysctl":
                        text = drop_line(text, c.target)
                    elif c.channel == "file" and c.value is not None:
                        text = drop_line(text, _key_of(str(c.value)))
                    else:
                        kept_changes.pop()
                        skipped.append(Skipped(c, f"nothing to remove through channel {c.channel!r}"))
                elif c.op == "set" and prefer != FORETUNE and c.channel == "sysctl" and \
                        (elsewhere := sysctl_site_higher(host, c, path)) is not None:
                    kept_changes.pop()
                    skipped.append(Skipped(c, f"{elsewhere[1]} gives {c.target} = {elsewhere[0]}, more than foretune's "
                                              f"{text_value(c.value)}: kept (add --prefer foretune to lower it)"))
                elif c.op == "set" and prefer != FORETUNE and (higher := _site_higher(text, c)) is not None:
                    kept_changes.pop()
                    ours = line_value(str(c.value), _key_of(str(c.value))) if c.channel == "file" else text_value(c.value)
                    skipped.append(Skipped(c, f"{path} sets {higher}, more than foretune's {ours}: kept "
                                              "(add --prefer foretune to lower it)"))
                if c.op == "set" and c.channel == "tuned" and (site := tuned_site_profile(host, text, str(c.value))):
                    where = f"/etc/tuned/{site[0]}/tuned.conf"
                    if site[1] and prefer != FORETUNE:  # the site's own profile on top of the guide's: a choice
                        kept_changes.pop()
                        skipped.append(Skipped(c, f"the active profile is the site's own {site[0]} ({where}), which "
                                                  f"includes {c.value}: kept (add --prefer foretune to replace it)"))
                    else:  # replaced: said, with what the site's profile was
                        lowered.append(Skipped(c, f"replaces the site's own tuned profile {site[0]} ({where}"
                                                  f"{', which includes ' + str(c.value) if site[1] else ''}) with {c.value}"
                                                  + (" (as asked: --prefer foretune)" if site[1] else "")))
                if c.op == "set" and prefer == FORETUNE and c in kept_changes and c.channel in ("dropin", "sysctl", "file") \
                        and (higher := _site_higher(text, c)) is not None:  # --prefer foretune lowers it: said
                    ours = str(c.value) if c.channel == "file" else f"{c.target.split(':', 1)[-1]}={text_value(c.value)}"
                    lowered.append(Skipped(c, f"lowers the site's {higher} in {path} to {ours} (as asked: --prefer foretune)"))
                if c not in kept_changes or c.op != "set":
                    continue
                if c.channel == "dropin":
                    directive = c.target.split(":", 1)[1]
                    if not text.strip():
                        text = f"# foretune: {c.reason}\n" if c.reason else ""
                    text = set_line(text, f"{directive}={text_value(c.value)}", "[Service]")
                elif c.channel == "sysctl":
                    text = set_line(text, f"{c.target} = {text_value(c.value)}")
                elif c.channel == "tuned":
                    text = f"{text_value(c.value)}\n"
                elif c.channel == "file" and path.endswith((".yml", ".yaml")):
                    text = set_yaml_line(text, str(c.value), path)
                elif c.channel == "file":
                    text = set_line(text, str(c.value))
        applied.extend(kept_changes)
        new = None if removed else text.encode("utf-8")
        if (raw is None and new is None) or raw == new:
            continue
        if kept_changes:
            files.append(FileEdit(path, raw, new, tuple(kept_changes)))
    everything = [*cs.changes, *extra]
    order = {id(c): n for n, c in enumerate(everything)}  # by identity: a value may be a mapping (unhashable)
    applied.sort(key=lambda c: order[id(c)])
    gone = {c.file or c.target for c in everything if c.op in ("remove", "reset")} | \
        {c.overrides[0] for c in everything if c.op == "remove" and c.overrides}
    resets = {c.target for c in cs.changes if c.channel == "alter-system"}
    shadowed = tuple(Skipped(c, why) for c in cs.changes if c.op == "set" and (why := shadowed_on_host(host, c, gone, resets)))
    return Edits(tuple(files), tuple(statements), installer_command(cs.changes, cs.release, program), tuple(applied),
                 tuple(skipped), shadowed, tuple(lowered), tuple(raised), tuple(unshadowed))


def shadowed_on_host(host: Host, c: Change, removed: set[str], resets: set[str]) -> str:
    """What on ``host`` wins over ``c`` and the change set leaves in place ("" when nothing does): a drop-in of the
    unit read after the one ``c`` writes (/etc, /run and /usr/lib, in one order by name) that sets the same directive,
    a postgresql.auto.conf line (ALTER SYSTEM) over a custom-hiera PostgreSQL value. A change set made elsewhere
    (``--changes``, planned without this host's files) is checked against the host it lands on."""
    import os  # start-up: only when a set is applied

    if c.channel == "dropin" and ":" in c.target:
        unit, directive = c.target.split(":", 1)
        unit = unit if "." in unit else unit + ".service"
        own = os.path.basename(dropin_file(c))
        later: tuple[str, str] | None = None
        hidden: set[str] = set()
        for base in ("/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system"):
            try:
                names = sorted(os.listdir(host.resolve(f"{base}/{unit}.d")))
            except (OSError, InputError):
                continue
            for name in names:
                path = f"{base}/{unit}.d/{name}"
                if name in hidden or not name.endswith(".conf") or name <= own or path in removed:
                    continue
                try:
                    text = read_bytes(host.resolve(path)).decode("utf-8", "replace")
                except (OSError, InputError):
                    continue
                value = line_value(text, directive, "[Service]")
                if value is not None and (later is None or name > os.path.basename(later[0])):
                    later = (path, value)
            hidden |= set(names)
        if later is not None and not same(later[1], c.value):
            return (f"{later[0]} sets {directive}={later[1]} and is read after {own}: it wins, so {c.target} stays "
                    f"{later[1]} (plan from this host's files, `foretune apply` without --changes, to remove it)")
    if c.channel == "sysctl":
        own = file_of(c)
        left = [(path, value) for path, value in sysctl_shadows(host, c.target, own)
                if not ((path in removed or f"/etc/sysctl.d/{os.path.basename(path)}" in removed) and not same(value, c.value))]
        shadow = left[-1] if left else None
        if shadow is not None and not same(shadow[1], c.value):
            return (f"{shadow[0]} sets {c.target} = {shadow[1]} and is read after {os.path.basename(own)} (sysctl --system "
                    f"reads the sysctl.d files in one order by name, /etc/sysctl.conf last; the last wins): {c.target} "
                    f"stays {shadow[1]}; take that line out, or keep it on purpose [sysctl-d-order]")
    if c.channel == "custom-hiera" and c.target.startswith("postgresql::server::config_entries/"):
        name = c.target.split("/", 1)[1].lower()
        if name in resets or not _SETTING.fullmatch(name):
            return ""
        try:
            before = auto_conf_before(host, name) if host.pg_data_dir() is not None or host.has_psql else None
        except InputError:
            return ""
        if before is not None and not same(before, c.value):
            return (f"postgresql.auto.conf sets {name} = '{before}' (ALTER SYSTEM), which wins over postgresql.conf: "
                    f"ALTER SYSTEM RESET {name} first, or the installer's value never takes effect")
    return ""
