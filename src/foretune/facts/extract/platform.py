"""Hardware and OS facts: CPUs, RAM, swap, virtualisation, THP, tuned, sysctls, governor, storage, limits."""

from __future__ import annotations

import re
from typing import Any

from foretune.facts.extract.core import Extractor, excerpt
from foretune.facts.numbers import whole
from foretune.facts.parsers.keyvalue import parse_environment_words
from foretune.facts.parsers.storage import parse_df, parse_lsblk_pairs, parse_lsblk_tree_and_topology, parse_mounts
from foretune.facts.parsers.system import (
    parse_lscpu,
    parse_meminfo,
    parse_proc_limits,
    parse_sysctl,
    parse_thp_selected,
    parse_tuned_active,
)
from foretune.facts.parsers.systemd import parse_list_units, parse_show, parse_unit_file

MAX_CPUS = 65536  # foretune estimate: above any single Linux host (the kernel's NR_CPUS maximum is 8192)
SYSCTL_PREFIXES = ("fs.aio-max-nr", "fs.aio-nr", "fs.file-max", "vm.", "kernel.sem", "kernel.shmmax", "kernel.shmall",
                   "kernel.pid_max", "net.core.somaxconn", "net.ipv4.tcp_max_syn_backlog")
HYPERVISORS = {"kvm": "kvm", "vmware": "vmware", "microsoft": "microsoft", "xen": "xen", "qemu": "qemu", "oracle": "oracle",
               "bochs": "bochs", "parallels": "parallels", "amazon": "amazon", "powervm": "powervm"}
UNIT_PREFIXES = ("foreman.service", "foreman-proxy", "httpd", "apache2", "postgresql", "rh-postgresql", "redis", "rh-redis",
                 "pulpcore", "dynflow-sidekiq", "qpidd", "qdrouterd", "mosquitto", "tomcat", "mongod", "rh-mongodb",
                 "smart_proxy_dynflow_core", "foreman-tasks", "dynflowd", "pulp_", "puppetserver", "tuned")
PSEUDO_FS = {"proc", "sysfs", "devtmpfs", "devpts", "tmpfs", "cgroup", "cgroup2", "securityfs", "pstore", "bpf", "debugfs",
             "tracefs", "configfs", "mqueue", "hugetlbfs", "autofs", "rpc_pipefs", "selinuxfs", "fusectl", "binfmt_misc",
             "efivarfs", "nsfs", "overlay", "squashfs", "ramfs"}
# key directory -> packages that make it relevant (None: always reported)
KEY_DIRS: dict[str, tuple[str, ...] | None] = {
    "/": None, "/var": None,
    "/var/lib/pulp": ("pulp-server", "python3-pulpcore", "python3.11-pulpcore", "python39-pulpcore", "python3.12-pulpcore"),
    "/var/lib/pgsql": ("postgresql-server",),
    "/var/opt/rh/rh-postgresql12/lib/pgsql": ("rh-postgresql12-postgresql-server",),
    "/var/lib/mongodb": ("mongodb-server", "rh-mongodb34-mongodb-server"),
    "/var/lib/qpidd": ("qpid-cpp-server",),
    "/var/lib/candlepin": ("candlepin",),
    "/var/lib/redis": ("redis", "rh-redis5-redis"),
}


def identity(x: Extractor) -> None:
    """Host name and when the data was taken (for report headers)."""
    raw = x.raw("hostname")
    name = raw.text.strip().splitlines()[0].strip() if raw is not None and raw.text.strip() else ""
    if raw is not None and name:
        x.known("hostname", name, x.prov(raw))
    else:
        x.unknown("hostname", x.why("hostname") if raw is None else f"{raw.location} is empty")
    date = x.raw("sos_date")
    when = x.src.now() if date is not None else None
    if date is None or when is None:
        x.unknown("collected_at", x.why("sos_date") if date is None else f"{date.location}: not a date")
        return
    x.known("collected_at", f"{when.strftime('%Y-%m-%d %H:%M')} {_zone(date.text, x.src.kind)}".rstrip(), x.prov(date))


def _zone(text: str, kind: str) -> str:
    """The time zone the collection time is written in: date(1)'s zone word (``Mon Feb 12 10:14:56 UTC 2024``), the
    local zone of a live host; "" when the text names none.

    >>> _zone("Mon Feb 12 10:14:56 CET 2024", "sosreport"), _zone("Mon Feb 12 10:14:56 2024", "sosreport")
    ('CET', '')
    """
    if kind == "live":
        import time  # start-up: only for a live host's header

        return time.strftime("%Z")
    words = text.split()
    return words[4] if len(words) >= 6 and re.fullmatch(r"[A-Z]{2,6}|[+-]\d{2}:?\d{2}", words[4]) else ""


def memory(x: Extractor) -> None:
    raw = x.raw("meminfo")
    info = x.parse(raw, parse_meminfo)
    if raw is None or not info or "MemTotal" not in info:
        reason = x.why("meminfo") if raw is None else f"{raw.location} has no MemTotal"
        x.unknown("ram_bytes", reason)
        x.unknown("swap", reason)
        return
    x.known("ram_bytes", info["MemTotal"], x.prov(raw, r"^MemTotal"))
    if "SwapTotal" in info:
        total, free = info["SwapTotal"], info.get("SwapFree", info["SwapTotal"])
        x.known("swap", {"total_bytes": total, "used_bytes": max(0, total - free)}, x.prov(raw, r"^Swap(Total|Free)"))
    else:
        x.unknown("swap", f"{raw.location} has no SwapTotal")


def cpus(x: Extractor) -> None:
    raw = x.raw("lscpu")
    info = x.parse(raw, parse_lscpu) or {}
    logical = whole(info.get("CPU(s)", ""), limit=MAX_CPUS)
    if raw is None or logical is None:
        reason = x.why("lscpu") if raw is None else (
            f"{raw.location}: CPU(s) {info['CPU(s)'][:40]!r} is not a plausible count: ignored" if info.get("CPU(s)")
            else f"{raw.location} has no 'CPU(s):' line")
        for name in ("cpu_logical", "cpu_physical_cores"):
            x.unknown(name, reason)
    else:
        x.known("cpu_logical", logical, x.prov(raw, r"^CPU\(s\):"))
        sockets = whole(info.get("Socket(s)", ""), limit=MAX_CPUS)
        cores = whole(info.get("Core(s) per socket", ""), limit=MAX_CPUS)
        if sockets is not None and cores is not None and sockets * cores <= MAX_CPUS:
            x.known("cpu_physical_cores", sockets * cores, x.prov(raw, r"^(Socket\(s\)|Core\(s\) per socket)"))
        else:
            x.unknown("cpu_physical_cores", f"{raw.location} lacks Socket(s)/Core(s) per socket")
    virt = x.raw("detect_virt")
    if virt is not None and virt.text.strip():
        x.known("virtualization", virt.text.strip().splitlines()[0].strip(), x.prov(virt))
    elif raw is not None and info:
        vendor = info.get("Hypervisor vendor", "")
        value = HYPERVISORS.get(vendor.lower().split()[0], vendor.lower()) if vendor else "none"
        x.known("virtualization", value, x.prov(raw, r"^Hypervisor vendor") if vendor else
                x.absent(raw.location, "no 'Hypervisor vendor' line: bare metal"))
    else:
        x.unknown("virtualization", x.why("lscpu"))
    governor = x.raw("cpu_governor")
    if governor is not None and governor.text.strip():
        x.known("cpu_governor", governor.text.strip(), x.prov(governor))
    elif x.value("virtualization") not in (None, "none"):
        x.known("cpu_governor", None, x.note("/sys/devices/system/cpu/cpu0/cpufreq", "no cpufreq in this virtual machine"))
    else:
        x.unknown("cpu_governor", x.why("cpu_governor"))


def thp_and_tuned(x: Extractor) -> None:
    enabled, defrag = x.raw("thp_enabled"), x.raw("thp_defrag")
    if enabled is not None and parse_thp_selected(enabled.text):
        value = {"enabled": parse_thp_selected(enabled.text),
                 "defrag": parse_thp_selected(defrag.text) if defrag is not None else None}
        x.known("thp", value, *[x.prov(r) for r in (enabled, defrag) if r is not None])
    else:
        x.unknown("thp", x.why("thp_enabled") if enabled is None else f"{enabled.location} has no [selected] value")
    raw = x.raw("tuned_active")
    units = service_units(x)
    unit = units.get("tuned.service")
    running = None if unit is None else unit.get("ActiveState") == "active"
    if raw is not None:
        active = parse_tuned_active(raw.text)
        if running is None and ("Cannot talk" in raw.text or "not running" in raw.text.lower()):
            running = False
        elif running is None and active:
            running = True
        x.known("tuned", {"active": active, "running": running}, x.prov(raw, r"profile|daemon"))
    elif unit is not None:
        x.known("tuned", {"active": None, "running": running},
                x.note("systemctl show tuned.service", f"ActiveState={unit.get('ActiveState')}"))
    else:
        x.unknown("tuned", x.why("tuned_active"))


def tuned_profiles(x: Extractor) -> None:
    """Each tuned profile's includes and the THP value its [vm] section sets (None: not set there), by name; a profile
    of /etc/tuned replaces the package's of the same name, as tuned reads them."""
    profiles: dict[str, dict[str, Any]] = {}
    provs = []
    for raw in sorted(x.raws("tuned_profiles"), key=lambda r: "/etc/tuned/" in "/" + r.location.lstrip("/")):
        name = raw.location.rstrip("/").split("/")[-2]
        section, includes, thp = "", [], None
        for line in raw.text.splitlines():
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1].strip()
            elif "=" in line and not line.startswith("#"):
                key, _, value = (part.strip() for part in line.partition("="))
                if section == "main" and key == "include":
                    includes = [v.strip() for v in value.split(",") if v.strip()]
                elif section == "vm" and key in ("transparent_hugepages", "transparent_hugepage"):
                    thp = value
        profiles[name] = {"include": includes, "transparent_hugepages": thp, "file": raw.location}
        if thp is not None:
            provs.append(x.prov(raw, r"^\s*transparent_hugepages?\s*="))
    if profiles:
        x.known("tuned_profiles", profiles, *provs[:4])
    else:
        x.unknown("tuned_profiles", x.why("tuned_profiles"))


def tuned_thp(profiles: dict[str, Any], name: str, depth: int = 0) -> tuple[str | None, str]:
    """(THP value, the file that sets it) that tuned profile ``name`` applies: its own [vm] value, else the last of its
    includes that sets one (tuned merges included profiles first, then the profile's own sections).

    >>> p = {"virtual-guest": {"include": ["throughput-performance"], "transparent_hugepages": None, "file": "v"},
    ...      "throughput-performance": {"include": [], "transparent_hugepages": "always", "file": "t"}}
    >>> tuned_thp(p, "virtual-guest")
    ('always', 't')
    """
    entry = profiles.get(name)
    if not isinstance(entry, dict) or depth > 10:
        return None, ""
    if entry.get("transparent_hugepages"):
        return str(entry["transparent_hugepages"]), str(entry.get("file", ""))
    found: tuple[str | None, str] = (None, "")
    for parent in entry.get("include") or ():
        value = tuned_thp(profiles, str(parent), depth + 1)
        if value[0] is not None:
            found = value
    return found


def sysctls(x: Extractor) -> None:
    raw = x.raw("sysctl")
    values = x.parse(raw, parse_sysctl)
    if raw is None or not values:
        x.unknown("sysctl", x.why("sysctl") if raw is None else f"{raw.location} is empty")
        return
    picked = {k: v for k, v in sorted(values.items()) if k.startswith(SYSCTL_PREFIXES)}
    x.known("sysctl", picked, x.prov(raw, r"^(fs\.aio-max-nr|vm\.swappiness|vm\.overcommit_memory|kernel\.shmmax|kernel\.shmall)\b"))


def service_units(x: Extractor) -> dict[str, dict[str, str]]:
    return x.parse(x.raw("systemctl_show"), parse_show) or {}


DROPIN_DIRS = ("etc/systemd/system/", "run/systemd/system/", "usr/lib/systemd/system/")  # a same-named file: the first wins


def dropin_order(locations: list[str]) -> list[str]:
    """Unit files and drop-ins of one unit in the order systemd reads them: the unit file, then the drop-ins of every
    directory by file name, a drop-in of /etc hiding the same-named one of /run, which hides that of /usr/lib.

    >>> dropin_order(["usr/lib/systemd/system/a.service.d/50-x.conf", "etc/systemd/system/a.service.d/10-y.conf",
    ...               "run/systemd/system/a.service.d/10-y.conf", "etc/systemd/system/a.service"])
    ['etc/systemd/system/a.service', 'etc/systemd/system/a.service.d/10-y.conf', 'usr/lib/systemd/system/a.service.d/50-x.conf']
    """
    def rank(location: str) -> int:
        return next((n for n, d in enumerate(DROPIN_DIRS) if d in "/" + location.lstrip("/") or
                     location.lstrip("/").startswith(d)), len(DROPIN_DIRS))

    units = [loc for loc in locations if not loc.rsplit("/", 2)[-2].endswith(".d")]
    chosen: dict[str, str] = {}
    for location in sorted((loc for loc in locations if loc not in units), key=rank):
        chosen.setdefault(location.rsplit("/", 1)[-1], location)
    return units + [chosen[name] for name in sorted(chosen, key=lambda n: n.encode())]


def unit_files(x: Extractor) -> dict[str, list[tuple[str, dict[str, dict[str, list[str]]]]]]:
    """Unit files under /etc/systemd/system and drop-ins of /etc, /run and /usr/lib, by unit name, in the order
    systemd reads them (:func:`dropin_order`)."""
    out: dict[str, list[tuple[str, dict[str, dict[str, list[str]]]]]] = {}
    for raw in x.raws("unit_files"):
        parts = raw.location.split("/")
        unit = parts[-2][:-2] if parts[-2].endswith(".d") else parts[-1]
        parsed = x.parse(raw, parse_unit_file)
        if parsed:
            out.setdefault(unit, []).append((raw.location, parsed))
    for unit, entries in out.items():
        order = dropin_order([loc for loc, _ in entries])
        by_location = dict(entries)
        out[unit] = [(loc, by_location[loc]) for loc in order]
    return out


def _limit(value: str | None) -> int | None:
    if value is None or value in ("infinity", ""):
        return None
    return whole(value)


def service_limits(x: Extractor) -> None:
    """Per unit: the hard limit (``LimitNOFILE``), the soft one in force and where each was read.

    Provenance is one entry per unit, quoting only that unit's lines, so evidence never shows
    another service's limits.
    """
    show_raw = x.raw("systemctl_show")
    units = service_units(x)
    files = unit_files(x)
    limits: dict[str, dict[str, Any]] = {}
    provenance = []
    for unit, props in sorted(units.items()):
        if not unit.startswith(UNIT_PREFIXES):
            continue
        entry: dict[str, Any] = {"LimitNOFILE": _limit(props.get("LimitNOFILE")), "LimitNPROC": _limit(props.get("LimitNPROC")),
                                 "active": props.get("ActiveState") == "active" if "ActiveState" in props else None}
        if "LimitNOFILESoft" in props and _limit(props["LimitNOFILESoft"]) != entry["LimitNOFILE"]:
            entry["soft_nofile"] = _limit(props["LimitNOFILESoft"])
        lines = [f"Id={unit}", *(f"{k}={props[k]}" for k in ("LimitNOFILE", "LimitNOFILESoft", "MainPID") if k in props)]
        pid = props.get("MainPID", "0")
        if whole(pid, limit=2**22) not in (None, 0):  # the kernel's pid_max is at most 2^22
            proc = x.src.read_path(f"/proc/{pid}/limits")
            parsed = parse_proc_limits(proc.text) if proc is not None else {}
            if proc is not None and "Max open files" in parsed:
                entry["process_nofile"] = _limit(parsed["Max open files"]["soft"])
                entry["process_nofile_hard"] = _limit(parsed["Max open files"]["hard"])
                # the unit is named by MainPID in its systemctl block; the excerpt is the line as the file has it
                provenance.append(x.note(proc.location, excerpt(proc.text, r"^Max open files")))
        limits[unit] = entry
        if show_raw is not None:
            provenance.append(x.note(show_raw.location, "\n".join(lines)))
    raws = {r.location: r for r in x.raws("unit_files")}
    for unit, entries in sorted(files.items()):
        for location, unit_file in entries:
            value = unit_file.get("Service", {}).get("LimitNOFILE")
            if value:
                entry = limits.setdefault(unit, {"LimitNOFILE": None, "LimitNPROC": None, "active": None})
                # systemd.exec(5): one value sets soft and hard alike; "soft:hard" sets them apart
                soft_text, _, hard_text = value[-1].rpartition(":")
                entry["dropin_nofile"] = _limit(hard_text)
                if entry.get("LimitNOFILE") is None and show_raw is None:
                    entry["LimitNOFILE"] = _limit(hard_text)
                    if soft_text and _limit(soft_text) != entry["LimitNOFILE"]:
                        entry["soft_nofile"] = _limit(soft_text)
                raw = raws.get(location)  # the line as the file has it; the unit is in the path
                provenance.append(x.prov(raw, r"^\s*LimitNOFILE\s*=") if raw is not None else x.note(location, f"LimitNOFILE={value[-1]}"))
    if limits:
        x.known("service_limits", limits, *provenance)
    else:
        x.unknown("service_limits", x.why("systemctl_show"))


def list_units(x: Extractor) -> list[str]:
    names = [row["unit"] for row in x.parse(x.raw("systemctl_units"), parse_list_units) or []]
    return names or sorted(service_units(x))


def units_location(x: Extractor) -> str:
    """Where :func:`list_units` got its names."""
    for spec in ("systemctl_units", "systemctl_show"):
        raw = x.raw(spec)
        if raw is not None:
            return raw.location
    return "systemctl"


def environment_files(x: Extractor, unit: str) -> list[tuple[str, str, dict[str, str]]]:
    """The files ``unit``'s EnvironmentFile= lines name (a leading ``-``: may be missing), as (location, text,
    variables), in the order systemd reads them; their variables win over every Environment= line
    (systemd-environment-file)."""
    found: list[tuple[str, str, dict[str, str]]] = []
    for _, parsed in unit_files(x).get(unit, []):
        for value in parsed.get("Service", {}).get("EnvironmentFile", []):
            path = value.strip().lstrip("-").strip()
            raw = x.src.read_path(path) if path.startswith("/") else None
            if raw is None:
                continue
            variables: dict[str, str] = {}
            for line in raw.text.splitlines():
                line = line.strip()
                if line and not line.startswith(("#", ";")) and "=" in line:
                    variables.update(parse_environment_words(line))
            found.append((raw.location, raw.text, variables))
    return found


def unit_environment(x: Extractor, unit: str) -> tuple[dict[str, str], str | None]:
    """Environment of ``unit`` from its drop-ins (later files win) and the files its EnvironmentFile= lines name (which
    win over Environment=), else from ``systemctl show``."""
    env: dict[str, str] = {}
    where = None
    for location, parsed in unit_files(x).get(unit, []):
        for value in parsed.get("Service", {}).get("Environment", []):
            env.update(parse_environment_words(value))
            where = location
    for location, _, variables in environment_files(x, unit):
        if variables:
            env.update(variables)
            where = location
    if env:
        return env, where
    props = service_units(x).get(unit)
    if props and props.get("Environment"):
        return parse_environment_words(props["Environment"]), f"systemctl show {unit}"
    return {}, None


def storage(x: Extractor) -> None:
    raw = x.raw("mounts")
    rows = x.parse(raw, parse_mounts)
    if raw is None or not rows:
        x.unknown("mounts", x.why("mounts") if raw is None else f"{raw.location} is empty")
        x.unknown("key_dirs", x.why("mounts") if raw is None else f"{raw.location} is empty")
        return
    real = [r for r in rows if r["fstype"] not in PSEUDO_FS]
    x.known("mounts", real, x.prov(raw, r" (xfs|ext4|nfs|nfs4|btrfs|cifs|gfs2) "))
    df_raw = x.raw("df")
    df = x.parse(df_raw, parse_df) or {}
    pairs = x.raw("lsblk")
    lsblk = x.parse(pairs, parse_lsblk_pairs) or []
    from_pairs = bool(lsblk)
    tree, topology = (x.raw("lsblk_tree"), x.raw("lsblk_topology")) if not lsblk else (None, None)
    if tree is not None and topology is not None:
        lsblk = parse_lsblk_tree_and_topology(tree.text, topology.text)
    rota = {row.get("MOUNTPOINT"): row.get("ROTA") for row in lsblk if row.get("MOUNTPOINT")}
    names = {row.get("MOUNTPOINT"): row.get("NAME", "") for row in lsblk if row.get("MOUNTPOINT")}
    result: dict[str, dict[str, Any]] = {}
    from foretune.facts.extract.installer import packages  # start-up: only when storage runs

    installed = packages(x)
    for path, needs in KEY_DIRS.items():
        is_mount = any(r["mountpoint"] == path for r in real)
        if needs and installed and not is_mount and not any(p in installed for p in needs):
            continue
        mount = max((r for r in real if path == r["mountpoint"] or path.startswith(r["mountpoint"].rstrip("/") + "/")),
                    key=lambda r: len(r["mountpoint"]), default=None)
        if mount is None:
            continue
        usage = df.get(mount["mountpoint"], {})
        flag = rota.get(mount["mountpoint"])
        result[path] = {"mountpoint": mount["mountpoint"], "fstype": mount["fstype"], "device": mount["device"],
                        "size_bytes": usage.get("size_bytes"), "free_bytes": usage.get("free_bytes"),
                        "rotational": None if flag not in ("0", "1") else flag == "1"}
    provenance = []
    for mountpoint in dict.fromkeys(d["mountpoint"] for d in result.values()):  # one mounts and one df line each
        provenance.append(x.prov(raw, rf"^\S+ {re.escape(mountpoint)} "))
        if df_raw is not None:
            provenance.append(x.prov(df_raw, rf" {re.escape(mountpoint)}$"))
        if rota.get(mountpoint) in ("0", "1"):  # the line that says whether the device under it is rotational
            if from_pairs and pairs is not None:
                provenance.append(x.prov(pairs, text=lsblk_pairs_line(pairs.text, mountpoint)))
            elif topology is not None:
                provenance.append(x.prov(topology, text=rotational_line(topology.text, names[mountpoint])))
    x.known("key_dirs", result, *provenance)


def lsblk_pairs_line(text: str, mountpoint: str) -> str:
    """``lsblk -P``'s line of the device mounted at ``mountpoint``; a long ``lsblk -O -P`` line as its NAME,
    MOUNTPOINT and ROTA pairs (each verbatim)."""
    wanted = f'MOUNTPOINT="{mountpoint}"'
    line = next((ln.strip() for ln in text.splitlines() if wanted in ln), "")
    if len(line) <= 200:
        return line
    return " | ".join(m.group(0) for m in re.finditer(r'\b(?:NAME|MOUNTPOINT|ROTA)="[^"]*"', line))


def rotational_line(topology: str, name: str) -> str:
    """``lsblk -t``'s header and the line of device ``name`` (tree marks left off: the line reads as it ends)."""
    lines = topology.splitlines()
    row = next((ln.strip().lstrip("|`-\u251c\u2514\u2500\u2502 ") for ln in lines[1:]
                if ln.strip().lstrip("|`-\u251c\u2514\u2500\u2502 ").split()[:1] == [name]), name)
    return f"{lines[0].strip() if lines else ''}\n{row}"
