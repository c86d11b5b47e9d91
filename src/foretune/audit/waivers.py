"""Waivers: accepted findings (rule id, reason, optional expiry) that do not count towards --fail-on."""

from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass

from foretune.audit.model import Finding
from foretune.errors import InputError, ParseError
from foretune.safeio import read_text


@dataclass(frozen=True)
class Waiver:
    rule: str
    reason: str
    expires: datetime.date | None = None


def load_waivers(path: str) -> list[Waiver]:
    """Read a YAML list of ``{rule, reason, expires?: YYYY-MM-DD}``; one clear line on bad input."""
    from foretune.facts.parsers.yamlfile import load_yaml  # start-up: only when load_waivers runs

    try:
        data = load_yaml(read_text(path))
    except OSError as exc:
        raise InputError(f"waivers {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"waivers {path}: not valid YAML") from None
    except ParseError as exc:
        raise InputError(f"waivers {path}: {exc}") from None
    if data is None:
        return []
    if not isinstance(data, list):
        raise InputError(f"waivers {path}: expected a list of {{rule, reason, expires}} entries")
    waivers = []
    for i, entry in enumerate(data, 1):
        if not isinstance(entry, dict) or not entry.get("rule") or not entry.get("reason"):
            raise InputError(f"waivers {path}: entry {i} needs 'rule' and 'reason'")
        expires = entry.get("expires")
        if isinstance(expires, str):
            try:
                expires = datetime.date.fromisoformat(expires)
            except ValueError:
                raise InputError(f"waivers {path}: entry {i}: expires {expires!r} is not YYYY-MM-DD") from None
        if expires is not None and not isinstance(expires, datetime.date):
            raise InputError(f"waivers {path}: entry {i}: expires must be a date")
        waivers.append(Waiver(str(entry["rule"]), str(entry["reason"]), expires))
    return waivers


def apply_waivers(findings: list[Finding], waivers: list[Waiver], today: datetime.date) -> tuple[list[Finding], list[str]]:
    """Findings with matching, unexpired waivers marked; warnings for expired or unused waivers. A waived root cause
    keeps its configuration-only symptoms under it (accepted with it); its measured symptoms are findings again, each
    naming the waiver, since a waiver must not hide a failure the box measured."""
    warnings = []
    active = {}
    for w in waivers:
        if w.expires is not None and w.expires < today:
            warnings.append(f"waiver for {w.rule} expired on {w.expires.isoformat()}; it no longer applies")
        else:
            active[w.rule] = w
    ids = {f.rule_id for f in findings}
    under = {s.rule_id: f.rule_id for f in findings for s in f.symptoms}  # a symptom is judged with its root cause
    warnings += [f"waiver for {rule}: it is a symptom listed under {under[rule]}; waive {under[rule]} to accept it"
                 if rule in under else f"waiver for unknown or unselected rule {rule}" for rule in active
                 if rule not in ids and not (rule in under and under[rule] in active)]  # with its root: used below
    out: list[Finding] = []
    for f in findings:
        if f.rule_id not in active or f.status.value not in ("fail", "error"):
            out.append(f)
            continue
        reason = active[f.rule_id].reason
        # a waiver accepts its rule's finding and the configuration consequences under it, never a measured failure:
        # a measured symptom stands on its own again, naming the waiver (docs/rules/index.md, "Waivers")
        measured = [s for s in f.symptoms if s.basis == "measured"]
        out.append(dataclasses.replace(f, waived=reason, waived_until=_date(active[f.rule_id].expires),
                                       symptoms=tuple(s for s in f.symptoms if s.basis != "measured")))
        for s in measured:
            note = (f" (measured, so reported although its root cause {f.rule_id} is waived: \"{reason}\"; a waiver accepts "
                    "a setting, not a failure the box shows)")
            out.append(dataclasses.replace(s, message=s.message + note,
                                           waived=active[s.rule_id].reason if s.rule_id in active else None,
                                           waived_until=_date(active[s.rule_id].expires) if s.rule_id in active else None))
    return out, warnings


def _date(day: datetime.date | None) -> str | None:
    return day.isoformat() if day is not None else None
