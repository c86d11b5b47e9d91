"""Rule documentation: each rule's sibling .md, checked for required sections, rendered to docs/rules/."""

from __future__ import annotations

import re
from importlib import resources

from foretune import __version__
from foretune.knowledge import citations
from foretune.rules.base import Rule

SECTIONS = ("What it checks", "Why it matters", "Evidence", "Example", "Fix", "Fix safety", "References")


def doc_text(rule: Rule) -> str:
    """The rule's markdown doc (``<module>.md`` beside the rule module)."""
    from foretune.rules.registry import rule_module_path  # start-up: the registry loads only when a rule's doc is read

    component, name = rule_module_path(rule).split("/")
    return resources.files(f"foretune.rules.{component}").joinpath(f"{name}.md").read_text(encoding="utf-8")


def doc_problems(rule: Rule) -> list[str]:
    """What is wrong with a rule's doc; empty when it is complete."""

    try:
        text = doc_text(rule)
    except FileNotFoundError:
        return [f"{rule.id}: no doc"]
    problems = []
    if not text.startswith(f"# {rule.id}\n"):
        problems.append(f"{rule.id}: doc must start with '# {rule.id}'")
    headings = re.findall(r"^## (.+)$", text, re.M)
    if tuple(headings) != SECTIONS:
        problems.append(f"{rule.id}: sections {headings} should be {list(SECTIONS)}")
    refs = text.split("## References", 1)[-1]
    cited = re.findall(r"`([a-z0-9][a-z0-9.-]*)`", refs)
    if not cited:
        problems.append(f"{rule.id}: References cite nothing")
    problems += [f"{rule.id}: unknown citation {c}" for c in cited if c not in citations()]
    if not rule.citations:
        problems.append(f"{rule.id}: the rule class lists no citations")
    missing = [c for c in rule.citations if c not in cited]
    problems += [f"{rule.id}: citation {c} of the rule is not in its References" for c in missing]
    if f"- Severity: {rule.severity.label}" not in text:
        problems.append(f"{rule.id}: doc must say '- Severity: {rule.severity.label}'")
    if "- Added in:" in text or "- Fix:" in text:
        problems.append(f"{rule.id}: '- Added in' and '- Fix' are generated from the rule class; do not write them")
    return problems + metadata_problems(rule)


def metadata_problems(rule: Rule) -> list[str]:
    """What is wrong with the metadata the docs show: each rule class sets its own ``version_added``, a release so far."""
    if not re.fullmatch(r"\d+\.\d+\.\d+", getattr(rule, "version_added", "") or "") or "version_added" not in type(rule).__dict__:
        return [f"{rule.id}: the rule class must set its own version_added (the foretune release, e.g. 0.1.0)"]
    if _version(rule.version_added) > _version(__version__):
        return [f"{rule.id}: version_added {rule.version_added} is newer than foretune {__version__}"]
    return []


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def fix_safety_line(rule: Rule) -> str:
    """The generated first line of the "Fix safety" section (ruff's wording: a fix is safe or unsafe)."""
    if rule.unsafe_fix:
        return "**This rule's fix is marked unsafe**: it can lose data, lock, stop or move a service, or take away\nsomething an admin may rely on; apply it only after reading what follows."
    return "This rule's fix is marked safe: it loses no data and needs no maintenance window; what it costs\nfollows."


def rendered(rule: Rule) -> str:
    """The rule's doc page: its .md with the metadata the rule class holds (release added, fix safety)."""
    text = doc_text(rule)
    header_end = text.index("\n\n## ")
    fix = "unsafe (see Fix safety)" if rule.unsafe_fix else "safe"
    symptom = (f"\n- Symptom of: {', '.join(f'[{r}]({r}.md)' for r in rule.symptom_of)} (listed under that finding when it "
               "fails quoting the same lines)") if rule.symptom_of else ""
    separate = (f"\n- Separate from: {', '.join(f'[{r}]({r}.md)' for r, _ in rule.distinct_from)} (two findings when "
                "both fail, each saying why when the logs show both)") if rule.distinct_from else ""
    text = text[:header_end] + f"\n- Added in: foretune {rule.version_added}\n- Fix: {fix}{symptom}{separate}" + text[header_end:]
    return text.replace("## Fix safety\n\n", f"## Fix safety\n\n{fix_safety_line(rule)}\n\n", 1)


def render_all() -> dict[str, str]:
    """File name -> markdown for docs/rules/: one page per rule plus index.md."""
    from foretune.rules.registry import all_rules  # start-up: the registry loads only when every rule's doc is rendered

    pages = {}
    index = ["# Audit rules", "", "Generated from the rule docs by `python3 dev.py docs`; a test fails when it drifts.",
             "See also [not-checkable.md](not-checkable.md) for guide recommendations no rule can verify.", "",
             "## How severity is decided", "",
             "A failure's severity is the rule's (or the outcome's), then capped by what it rests on, its basis, in one "
             "place (`audit/runner.py`, `Basis.cap`):", "",
             "- **measured**: the source shows it (a log line such as \"Request queue is full\", \"too many clients\", "
             "`ConnectionTimeoutError`, an OOM kill in messages or dmesg; a kernel counter, MemAvailable, a saturated pool, "
             "a benchmark). Up to critical; a limit the logs show failing is critical and quotes the line.",
             "- **config**: a setting judged against the guide with nothing measured. At most medium.",
             "- **assumed**: the verdict weighs a host count neither given with `--hosts` nor counted in the source (the top "
             "of the profile's range). At most low, and the message says so.", "",
             "**The installer's own values are low, for every component alike.** A value the installer's run writes by "
             "itself, with no site setting behind it (the declared profile's value such as work_mem or shared_buffers, the "
             "installer's formula such as Puma's workers, a default of its Puppet modules such as Apache's KeepAlive) is "
             "hygiene (low) when nothing is measured and the rule does not weigh demand against it (a host count, the "
             "connections the services in force open). A value the installer leaves unset, which the guide asks the admin "
             "to set (httpd's or qpidd's LimitNOFILE, THP, Passenger's pool), and a site setting (answers file, "
             "custom-hiera, a drop-in) judged against the guide are configuration risks, up to medium. One place decides "
             "it (`audit/runner.py`, `installer_writes`). The basis column below is "
             "the rule's default; an outcome may be measured when it quotes a measurement (JSON: `basis` per finding).", "",
             "## Waivers", "",
             "A waiver (`--waivers`) accepts one rule's finding: it stays in the report, marked, and does not count. A "
             "waived root cause keeps its configuration-only symptoms under it, accepted with it. Its measured symptoms "
             "(an OOM kill, swap in use, a log line showing a limit failing) are never hidden by it: each is reported "
             "again as a finding of its own, at its own severity, naming the waived root cause and the waiver's reason "
             "(`audit/waivers.py`). A waiver accepts a setting, not a failure the box shows; to accept that failure too, "
             "waive its own rule.", ""]
    component = None
    for rule in all_rules():
        if rule.component != component:
            component = rule.component
            index += ["", f"## {component}", "", "| rule | severity | basis | checks | added in | fix |",
                      "|---|---|---|---|---|---|"]
        index.append(f"| [{rule.id}]({rule.id}.md) | {rule.severity.label} | {rule.basis.value} | {rule.title} | {rule.version_added} | "
                     f"{'unsafe' if rule.unsafe_fix else 'safe'} |")
        pages[f"{rule.id}.md"] = rendered(rule)
    pages["index.md"] = "\n".join(index) + "\n"
    pages["not-checkable.md"] = resources.files("foretune.rules").joinpath("not-checkable.md").read_text(encoding="utf-8")
    return pages
