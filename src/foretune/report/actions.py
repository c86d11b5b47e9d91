"""What every audit format shows around the findings: the identity header, the verdict by severity, each
finding's fixes combined per file, and the closing "what next" list.

Presentation only: everything is worded from the report's own fields and the findings' rendered fixes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from foretune.audit.model import Finding, Report
from foretune.plan.choose import HOSTS_GIVEN
from foretune.report.data import needed_profile, ordered
from foretune.rules.base import Severity, Status
from foretune.term import plural

HIERA_FILE = "/etc/foreman-installer/custom-hiera.yaml"
_HIERA_LINE = re.compile(r"^[a-z0-9_]+(?:::[a-z0-9_]+)+:(?: |$)")
_FILE_HEADER = re.compile(r"^# (/\S+)$")
_PLAIN_ARG = re.compile(r"[A-Za-z0-9._/:@+=,-]+")
_DROPIN = re.compile(r"^/etc/systemd/system/([^/]+?)(?:\.service)?\.d/")


@dataclass(frozen=True)
class Identity:
    """The header: which box, when, by which foretune, which product, and the profile it needs."""

    host: str
    collected: str
    product: str
    sizing: str  # "15120 hosts (counted in ...)"
    profile: str  # "default (declared: ...); 15120 hosts need large"


def product_line(release: str | None, role: str | None, found: str | None = None) -> str:
    """Product, release and role as every report's header names them; with no release foretune knows, what the
    source's packages name (``found``), else a Capsule is named as one with its version unknown.

    >>> product_line("Satellite 6.15 (Foreman 3.9)", "server"), product_line(None, None)
    ('Satellite 6.15 (Foreman 3.9), server', 'product unknown, role unknown')
    >>> product_line(None, "capsule", "Satellite 6.16.1"), product_line(None, "capsule")
    ('Satellite 6.16.1, capsule', 'Capsule (version unknown)')
    """
    if not release and not found and role == "capsule":
        return "Capsule (version unknown)"
    return f"{release or found or 'product unknown'}, {role or 'role unknown'}"


def identity(report: Report) -> Identity:
    """The header's fields, worded for people (no planner terms).

    >>> r = Report("sosreport-x", "sosreport", "Satellite 6.15 (Foreman 3.9)", "server", 15120, "default",
    ...            hosts_basis="counted in satellite_metrics.yml", profile_basis="declared: the installer's tuning fact")
    >>> identity(r).profile
    "default (declared: the installer's tuning fact); 15120 hosts need the large profile"
    """
    hosts = (plural(report.hosts, "managed host") if report.hosts is not None else "managed hosts unknown") + (
        f" ({report.hosts_basis})" if report.hosts_basis else "")
    profile = "none" if not report.profile else report.profile + (f" ({report.profile_basis})" if report.profile_basis else "")
    if report.role == "capsule":  # the planner's "default" is the settings every box gets, no profile of the Capsule's
        profile = f"none ({report.profile_basis})" if report.profile_basis else "none (Capsules have no tuning profiles)"
    needed = needed_profile(report)
    if needed and needed != report.profile:
        profile += f"; {plural(report.hosts or 0, 'host')} {'needs' if report.hosts == 1 else 'need'} the {needed} profile"
    elif needed:
        profile += f", which fits {plural(report.hosts or 0, 'host')}"
    collected = report.collected_at or ("when the report was made" if report.source_kind == "live" else "unknown")
    return Identity(host=report.hostname or "unknown", collected=collected,
                    product=product_line(report.release, report.role),
                    sizing=hosts, profile=profile)


def waiver_text(f: Finding) -> str:
    """How a waived finding is labelled in every format: the waiver's reason and when it expires.

    >>> waiver_text(Finding("x", "x", "os", Severity.LOW, Status.FAIL, "m", waived="window", waived_until="2026-12-31"))
    'waived until 2026-12-31: window'
    >>> waiver_text(Finding("x", "x", "os", Severity.LOW, Status.FAIL, "m", waived="accepted"))
    'waived, no expiry date: accepted'
    """
    when = f"until {f.waived_until}" if f.waived_until else ", no expiry date"
    return f"waived{' ' if f.waived_until else ''}{when}: {f.waived}"


def severity_label(f: Finding) -> str:
    return "error" if f.status == Status.ERROR else f.severity.label


def by_severity(report: Report) -> list[tuple[str, list[Finding]]]:
    """The failing findings (waived ones last, as their own group), worst severity first, in report order."""
    failing = [f for f in ordered(report) if f.status in (Status.FAIL, Status.ERROR)]
    groups: list[tuple[str, list[Finding]]] = []
    labels = ["error", *(s.label for s in sorted(Severity, reverse=True))]
    for label in labels:
        found = [f for f in failing if not f.waived and severity_label(f) == label]
        if found:
            groups.append((label, found))
    waived = [f for f in failing if f.waived]
    if waived:
        groups.append(("waived", waived))
    return groups


def verdict(report: Report) -> str:
    """One line: how many problems, the worst severity, the count of each.

    >>> verdict(Report("x", "live", None, None, None, None))
    'no problems found'
    """
    failing = report.failing()
    if report.damaged and report.judged_nothing():
        return "incomplete: the archive is damaged and nothing could be judged (every rule skipped)"
    if not failing:
        return ("incomplete: no problems found in what the damage left; rules that need the rest were not judged"
                if report.damaged else "no problems found")
    counts = [f"{sum(1 for f in failing if f.severity == s)} {s.label}" for s in sorted(Severity, reverse=True)
              if any(f.severity == s for f in failing)]
    worst = report.worst()
    incomplete = "; incomplete: the archive is damaged, rules that need what it lost were not judged" if report.damaged else ""
    return (f"{plural(len(failing), 'problem')} to fix, the worst {worst.label if worst else 'unknown'} ({', '.join(counts)})"
            f"{incomplete}")


MERGE_NOTE = "# merge, do not append: a key the file has takes these lines under it"
AUDIT_MERGE = "# (foretune audit live --output-dir fixes/ on the box writes fixes/custom-hiera.yaml: the file with them merged)"


def combined_fixes(fixes: tuple[str, ...] | list[str], merged_by: str | None = AUDIT_MERGE) -> list[str]:
    """A finding's fixes as one snippet per file: custom-hiera lines together under the file's name and the line that
    says to merge them (appended, a key the file has already would be a second one), the same PostgreSQL hash once,
    other snippets naming the same file merged; commands and advice as they are. ``merged_by``: the comment line that
    names what writes the merged file (None: no such line).

    >>> combined_fixes(["a::b: 1", "postgresql::server::config_entries:\\n  x: 1", "c::d: 2",
    ...                 "postgresql::server::config_entries:\\n  y: 2", "tuned-adm profile x"])[0].splitlines()[3:]
    ['a::b: 1', 'postgresql::server::config_entries:', '  x: 1', '  y: 2', 'c::d: 2']
    """
    hiera: dict[str, list[str]] = {}
    files: dict[str, list[str]] = {}
    out: list[str] = []
    slots: list[str] = []  # the order of first appearance: "hiera", a file path, or an index into ``out``
    for fix in dict.fromkeys(fixes):
        lines = fix.splitlines() or [""]
        if _HIERA_LINE.match(lines[0]):
            if "hiera" not in slots:
                slots.append("hiera")
            key = lines[0].rstrip().removesuffix(":").split(": ", 1)[0]
            entry = hiera.setdefault(key, [])
            entry += [line for line in lines if line not in entry]
            continue
        header = _FILE_HEADER.match(lines[0])
        if header and len(lines) > 1:
            path = header.group(1)
            if path not in files:
                slots.append("hiera" if path == HIERA_FILE else path)
                files[path] = [lines[0]]
            files[path] += [line for line in lines[1:] if line not in files[path] or not line.strip()]
            continue
        slots.append(str(len(out)))
        out.append(fix)
    result = []
    for slot in dict.fromkeys(slots):
        if slot == "hiera":
            body = [line for lines in hiera.values() for line in lines]
            notes = files.get(HIERA_FILE, [])[1:]  # what to delete from the file, as comments
            merge = [MERGE_NOTE, *([merged_by] if merged_by else [])] if body else []
            result.append("\n".join([f"# {HIERA_FILE}", *merge, *notes, *body]))
        elif slot in files:
            result.append("\n".join(files[slot]))
        else:
            result.append(out[int(slot)])
    return result


@dataclass(frozen=True)
class FixBlock:
    """One fix as every format shows it: a snippet to paste (``code``), or advice to read (prose, no copy button)."""

    text: str
    code: bool = True


def fix_blocks(report: Report, f: Finding) -> list[FixBlock]:
    """``f``'s fixes as the reports show them: one snippet per file (:func:`combined_fixes`), the installer options of
    all its fixes as one runnable command for the report's product (the command What next runs), every command in one
    block (one copy button), advice as text.

    >>> r = Report("s", "sosreport", "Satellite 6.15 (Foreman 3.9)", "server", 100, "default")
    >>> f = Finding("x", "x", "dynflow", Severity.MEDIUM, Status.FAIL, "m", fixes=("--a-b 5", "--c-d 3"))
    >>> fix_blocks(r, f)
    [FixBlock(text='satellite-installer --a-b 5 --c-d 3', code=True)]
    """
    advice = {str(fix.value) for fix in f.fix_records if fix.kind == "advice"}
    installer = _installer(report)
    blocks: list[FixBlock] = []
    at: int | None = None  # where the installer command goes: the place of the finding's first installer option
    comments: list[str] = []
    options: list[str] = []
    for snippet in combined_fixes(f.fixes):
        found = _installer_options(snippet, installer)
        if found:
            if at is None:
                at = len(blocks)
            comments += [line for line in snippet.splitlines() if line.startswith("#") and line not in comments]
            options += [o for o in found if o not in options]
            continue
        blocks.append(FixBlock(snippet, code=not (snippet in advice and not snippet.startswith("#"))))
    if at is not None:
        blocks.insert(at, FixBlock("\n".join([*comments, installer_command(report, options)])))
    # shell: one block, run in order, on each side of the installer command (what must follow its run stays after it)
    split = at if at is not None else len(blocks)
    for part in (blocks[split + 1:], blocks[:split]) if at is not None else (blocks,):
        commands = [b for b in part if b.code and not b.text.startswith("# /")]
        if len(commands) > 1:
            first = blocks.index(commands[0])
            blocks = [b for b in blocks if b not in commands]
            blocks.insert(first, FixBlock("\n".join(b.text for b in commands)))
    return blocks


# what a fix is in the JSON report, one shape for every fix (docs/audit-json.md)
FIX_KINDS = ("installer", "command", "file", "advice")


def fix_json(report: Report, block: FixBlock) -> dict[str, Any]:
    """A fix block as the JSON report gives it: ``kind``, the ``text`` every other format shows, and the parts to act on
    (``command``: complete and runnable, the installer program included; ``file`` and ``content``: what to merge into
    which file; ``options``: the installer options of the command, each with its value).

    >>> r = Report("s", "sosreport", "Satellite 6.15 (Foreman 3.9)", "server", 100, "default")
    >>> fix_json(r, FixBlock("satellite-installer --a-b 5 --c-d"))["options"]
    [{'option': '--a-b', 'value': '5'}, {'option': '--c-d', 'value': None}]
    >>> fix_json(r, FixBlock("# /etc/sysctl.d/90-foretune.conf\\nfs.aio-max-nr = 1048576"))["content"]
    'fs.aio-max-nr = 1048576'
    >>> fix_json(r, FixBlock("add RAM", code=False))["command"] is None
    True
    """
    text = block.text
    body = "\n".join(line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))
    header = _FILE_HEADER.match(text.split("\n", 1)[0])
    out: dict[str, Any] = {"kind": "advice", "text": text, "command": None, "file": None, "content": None, "options": []}
    if not block.code:
        return out
    if header and "\n" in text:  # the file's name, then its lines: what every format draws as a file, not as commands
        return {**out, "kind": "file", "file": header.group(1), "content": body}
    options = _installer_options(text, _installer(report))
    if options is not None and body.startswith(_installer(report)):
        parts = [option.split(" ", 1) for option in options]
        return {**out, "kind": "installer", "command": body,
                "options": [{"option": part[0], "value": part[1] if len(part) > 1 else None} for part in parts]}
    return {**out, "kind": "command", "command": body}


def _installer(report: Report) -> str:
    return "satellite-installer" if (report.release or "").startswith("Satellite") else "foreman-installer"


def installer_command(report: Report, options: list[str]) -> str:
    """The installer command of the report's product with ``options`` (the fix blocks' and What next's)."""
    return " ".join([_installer(report), *options])


def what_next(report: Report, source_arg: str | None = None) -> list[str]:
    """The closing list: how to apply the fixes, what restarts, what to check again afterwards."""
    failing = [f for f in report.failing() if f.status == Status.FAIL]
    if not failing and report.damaged:
        return ["Nothing to apply from what could be read: the archive is damaged. Copy the sosreport again (or run "
                "`sos report` again) and audit the whole archive."]
    if not failing:
        return ["Nothing to apply. Audit again after upgrades, a change of profile or a large change in host count."]
    source = source_arg or ("live" if report.source_kind == "live" else report.source)
    if not _PLAIN_ARG.fullmatch(source):  # never paste an odd name into a command line: name it instead
        source = "SOURCE"
    snippets = [fix for f in failing for fix in combined_fixes(f.fixes)]
    steps: list[str] = []
    hiera = [s for s in snippets if s.startswith(f"# {HIERA_FILE}") or _deletes_keys(s)]
    units = sorted({m.group(1) for s in snippets for m in [_DROPIN.match(s[2:].split("\n", 1)[0])] if m})
    sysctl = any(s.startswith("# /etc/sysctl.d/") for s in snippets)
    installer = _installer(report)
    if report.hosts is not None and report.hosts_basis == HOSTS_GIVEN:  # the same set as this report's
        source += f" --hosts {report.hosts}"
    options = list(dict.fromkeys(o for s in snippets for o in _installer_options(s, installer) or ()))
    # the profile change first, as the change set (installer.sh, APPLY.md) runs it: the options after it adjust it
    options = sorted(options, key=lambda o: not o.startswith("--tuning "))
    command = installer_command(report, options)
    if hiera:
        steps.append(f"Make the custom-hiera changes in {HIERA_FILE} (the set's custom-hiera.yaml is that file with them "
                     f"made), then run `{command}`: it restarts the services it reconfigures.")
    elif options:
        steps.append(f"Run `{command}`: it restarts the services it reconfigures.")
    if units:
        steps.append(f"After the systemd drop-ins: `systemctl daemon-reload`, then restart {', '.join(units)}.")
    if sysctl:
        steps.append("After the sysctl file: `sysctl --system` (no restart needed).")
    edits = list(dict.fromkeys(m.group(1) for s in snippets for m in [_FILE_HEADER.match(s.split("\n", 1)[0])]
                               if m and edited_service(m.group(1))))
    if edits:
        services = list(dict.fromkeys(str(edited_service(path)) for path in edits))
        steps.append(f"After the installer run (it rewrites {'this file' if len(edits) == 1 else 'these files'}, so an edit "
                     f"made before it is lost): edit {', '.join(edits)}, then `systemctl restart {' '.join(services)}`.")
    by_hand = [f for f in failing if f.fixes and not all(
        _applies_by_file(s) or _installer_options(s, installer) is not None or activation_command(s)
        for s in combined_fixes(f.fixes))]
    run = [f.rule_id for f in by_hand if any(fix.kind == "command" for fix in f.fix_records)]
    if run:
        steps.append(f"Run the commands in the fixes of {', '.join(run)} (fixes/APPLY.md puts them in order).")
    if hiera or options or units or sysctl or edits or run:  # only when the set holds a file or command to apply
        steps.insert(0, f"Write every fix as one set: `foretune audit {source} --output-dir fixes/`, then follow "
                     "fixes/APPLY.md (it orders the steps below).")
    advice = [f.rule_id for f in by_hand if f.rule_id not in run]
    if advice:
        steps.append(f"Follow the advice in the fixes of {', '.join(advice)}: no file carries it.")
    unfixed = [f.rule_id for f in failing if not f.fixes and not f.fix_records]  # not those whose fix another gives
    if unfixed:
        steps.append(f"Look into {', '.join(unfixed)}: foretune has no fix to apply for {'it' if len(unfixed) == 1 else 'them'}.")
    fixed = len(failing) - len(unfixed)
    steps.append("Audit again once the changes are in (`foretune audit live` on the box, or a new sosreport): "
                 + (f"the {plural(fixed, 'problem')} with a fix above should be gone; "
                    + ("the one to look into stays until you act on it." if len(unfixed) == 1 else
                       f"the {len(unfixed)} to look into stay until you act on them.") if unfixed else f"the {plural(fixed, 'problem')} above should be gone."))
    measured = [f.rule_id for f in failing if f.basis == "measured"]
    if measured:
        steps.append(f"{', '.join(measured)} came from what the box measured (logs, memory, pools): check "
                     f"{'it' if len(measured) == 1 else 'them'} again after a day of normal load, not right after the restart.")
    return steps


# files an installer run writes from its own values (puppet-apache's passenger.conf, puppet-qpid's qpidd.conf): an edit
# made before the run is reverted by it, so it is made after the run, then the service restarted to read it
_INSTALLER_WRITES = (("/etc/httpd/", "httpd"), ("/etc/qpid/qpidd.conf", "qpidd"), ("/etc/qpid-dispatch/", "qdrouterd"))
EDIT_AFTER = "# edit this after the installer run: the run rewrites this file"


def edited_service(path: str) -> str | None:
    """The service that reads ``path``, a file an installer run rewrites (None: another file).

    >>> edited_service("/etc/httpd/conf.d/passenger.conf"), edited_service("/etc/sysctl.d/x.conf")
    ('httpd', None)
    """
    return next((service for prefix, service in _INSTALLER_WRITES if path.startswith(prefix)), None)


def with_activation(fixes: list[str]) -> list[str]:
    """A finding's fix lines made to take effect when pasted alone: a systemd drop-in followed by ``systemctl
    daemon-reload`` and the unit's restart, a file the installer rewrites marked to be edited after its run and
    followed by its service's restart (one command for all, after the other lines).

    >>> with_activation(["# /etc/systemd/system/mosquitto.service.d/limits.conf\\n[Service]\\nLimitNOFILE=2000"])[1]
    'systemctl daemon-reload && systemctl restart mosquitto'
    >>> with_activation(["# /etc/httpd/conf.d/passenger.conf\\nPassengerMaxPoolSize 24"])
    ['# /etc/httpd/conf.d/passenger.conf\\n# edit this after the installer run: the run rewrites this file\\nPassengerMaxPoolSize 24', 'systemctl restart httpd']
    """
    units: list[str] = []
    edited: list[str] = []
    out: list[str] = []
    for fix in fixes:
        lines = fix.splitlines()
        header = _FILE_HEADER.match(lines[0]) if lines else None
        path = header.group(1) if header and len(lines) > 1 else ""
        dropin = _DROPIN.match(path)
        service = edited_service(path) if path else None
        if dropin and dropin.group(1) not in units:
            units.append(dropin.group(1))
        elif service:
            edited += [service] if service not in edited else []
            if EDIT_AFTER not in lines:
                fix = "\n".join([lines[0], EDIT_AFTER, *lines[1:]])
        out.append(fix)
    if units:
        command = f"systemctl daemon-reload && systemctl restart {' '.join(units)}"
        out += [command] if command not in out else []
    if edited:
        command = f"systemctl restart {' '.join(edited)}"
        out += [command] if command not in out else []
    return out


def activation_command(snippet: str) -> bool:
    """``snippet`` is a restart :func:`with_activation` added (What next says it in its own step)."""
    text = snippet.strip()
    return not re.fullmatch(r"systemctl restart (?:rh-postgresql\d+-)?postgresql", text) and bool(
        re.fullmatch(r"(?:systemctl daemon-reload && )?systemctl restart [a-z0-9@_. -]+", text))


def _installer_options(snippet: str, installer: str) -> list[str] | None:
    """The installer options a fix snippet passes (an option line, or the installer command under comments); None
    when the snippet is something else.

    >>> _installer_options("# the large profile writes a::b: 1:\\nsatellite-installer --tuning large", "satellite-installer")
    ['--tuning large']
    >>> _installer_options("--foreman-db-pool 20", "satellite-installer"), _installer_options("echo x", "satellite-installer")
    (['--foreman-db-pool 20'], None)
    """
    body = [line for line in snippet.splitlines() if line.strip() and not line.startswith("#")]
    if len(body) != 1:
        return None
    line = body[0].strip()
    if line == installer or line.startswith(installer + " "):
        line = line[len(installer):].strip()
        return [f"--{o.strip()}" for o in (" " + line).split(" --") if o.strip()] if line.startswith("--") or not line else None
    if re.fullmatch(r"--[a-z0-9-]+(?: \S+)?", line):
        return [line]
    return None


def _deletes_keys(snippet: str) -> bool:
    """``snippet`` deletes custom-hiera keys (by sed, or by render --remove-stale), then perhaps runs the installer."""
    body = [line for line in snippet.splitlines() if line.strip() and not line.startswith("#")]
    return bool(body) and HIERA_FILE in snippet and body[0].startswith(("sed -i.foretune-bak.", "foretune render ")) and all(
        line.startswith(("sed -i.foretune-bak.", "foretune render ")) or line in ("satellite-installer", "foreman-installer")
        for line in body)


def _applies_by_file(snippet: str) -> bool:
    first = snippet.split("\n", 1)[0]
    return bool(_FILE_HEADER.match(first) or _HIERA_LINE.match(first)) or _deletes_keys(snippet)
