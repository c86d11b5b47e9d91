"""The plan as JSON (schema ``foretune-plan/1``, shipped as ``render/schema/plan-v1.json``)."""

from __future__ import annotations

import json
from typing import Any

from foretune import __version__
from foretune.changes import build
from foretune.changes.model import Change
from foretune.knowledge import citation
from foretune.plan.model import Fix, Plan, Setting
from foretune.render.plan_summary import SAME_OPTIONS, verdict, what_next

SCHEMA = "foretune-plan/1"


def _setting(setting: Setting) -> dict[str, Any]:
    data: dict[str, Any] = {"value": setting.value, "reason": setting.reason, "citations": list(setting.citations)}
    if setting.origin:
        data["origin"] = setting.origin
    if setting.formula or setting.inputs:
        data["formula"] = setting.formula
        data["inputs"] = [i._asdict() for i in setting.inputs]
    return data


def _fix(fix: Fix, change: Change | None) -> dict[str, Any]:
    """A fix as the outputs apply it: a hiera value the change set gives the installer option for is that option."""
    if fix.kind == "hiera" and change is not None and change.channel == "installer" and change.op == "set":
        return {"kind": "installer", "target": change.target, "value": change.value}
    return dict(fix._asdict())


def as_dict(plan: Plan) -> dict[str, Any]:
    changes = build.from_plan(plan)
    used = sorted({c for t in plan.tunables.values() for c in (*t.installer.citations, *t.foretune.citations)}
                  | {i.citation for t in plan.tunables.values() for i in t.foretune.inputs if i.citation != "box"}
                  | {c for m in plan.memory for c in m.citations}
                  | {c for p in plan.problems for c in p.citations} | set(plan.release.citations))
    return {
        "schema": SCHEMA,
        "foretune_version": __version__,
        "input": {**{k: v for k, v in plan.input._asdict().items() if k not in ("kept", "httpd_includes", "httpd_keepalive")}, "configured": dict(plan.input.configured)},
        "release": {"product": plan.release.product, "version": plan.release.version,
                    "foreman_version": plan.release.foreman_version, "generation": plan.release.generation,
                    "installer_epoch": plan.release.epoch, "features": plan.release.features._asdict(),
                    "version_citation": plan.release.citations[0]},  # where the product -> Foreman pair comes from
        "profile": {"name": plan.profile, "reason": plan.profile_reason,
                    "largest_supported": plan.largest_supported_profile},
        "hardware": plan.hardware._asdict(),
        "tunables": [{"id": t.id, "component": t.component, "title": t.title, "unit": t.unit,
                      "installer": _setting(t.installer), "foretune": _setting(t.foretune), "differs": t.differs,
                      # a value that does not differ has nothing to change: no fix, whatever key would hold it
                      "fixes": [_fix(f, changes.for_tunable(t.id)) for f in t.fixes] if t.differs else []}
                     for t in plan.tunables.values()],
        "connection_budget": [{"consumer": c, "connections": n} for c, n in plan.connection_budget],
        "installer_connection_budget": [{"consumer": c, "connections": n} for c, n in plan.installer_connection_budget],
        "memory_budget": {"items": [m._asdict() for m in plan.memory],
                          "total_bytes": sum(m.bytes for m in plan.memory),
                          "low_bytes": sum(m.low_bytes for m in plan.memory), "high_bytes": sum(m.high_bytes for m in plan.memory),
                          "ram_bytes": plan.input.ram_bytes},
        "problems": [p._asdict() for p in plan.problems],
        "citations": {cid: {"title": citation(cid).title, "where": citation(cid).where} for cid in used},
    }


def dumps(plan: Plan, about: dict[str, Any] | None = None, command: str = SAME_OPTIONS) -> str:
    """The plan as JSON; ``about`` adds who and when (host, collected_at, generated_at) at the top, then the verdict;
    ``next_steps`` (What next, with ``command``, the command that writes everything to apply) closes it."""
    data = as_dict(plan)
    if about is not None:
        data = {**{k: v for k, v in data.items() if k in ("schema", "foretune_version")}, **about, **data}
    head = [k for k in data if k in ("schema", "foretune_version", "host", "collected_at", "generated_at")]
    data = {**{k: data[k] for k in head}, "verdict": verdict(plan), **{k: v for k, v in data.items() if k not in head},
            "next_steps": what_next(plan, command)}
    return json.dumps(data, indent=2, default=list) + "\n"
