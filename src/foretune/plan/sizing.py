"""What every component planner reads and writes: the sizing inputs, the tunables so far, the problems.

A component module (``plan/components/``) receives one :class:`Sizing`, reads the box, the release's features and
the installer's values from it, and adds its tunables with :meth:`Sizing.add`. The budgets that span components
(memory, PostgreSQL connections) are summed here from every component's own share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from foretune.errors import DataError
from foretune.knowledge import hardware, postgresql_default
from foretune.knowledge.model import Release
from foretune.knowledge.profiles import PG
from foretune.plan.constants import cite, const, memory_range
from foretune.plan.direct_edits import direct_edit
from foretune.plan.model import Fix, Input, MemoryItem, PlanInput, Problem, Setting, Tunable
from foretune.units import format_bytes, pg_size

GIB = 1024**3
# Foreman guide sections the orcharhino tuning guide repeats for orcharhino with the same figures (its 2 quick start,
# 4 hardware, 5.2 Puma, 5.3 httpd, 5.4 Dynflow, 5.5 pull REX, 5.6 PostgreSQL, 5.7 Redis, 5.8 proxy timeout)
ORCHARHINO_GUIDE = {f"gf-{section}": f"go-{section}" for section in (
    "quickstart", "hardware", "puma-autotuning", "puma-recommendations", "puma-threads", "db-pool", "httpd-nofile",
    "httpd-children", "dynflow", "pull-rex", "postgresql", "redis", "proxy-timeout")}


def orcharhino_cites(citations: tuple[str, ...]) -> tuple[str, ...]:
    """``citations`` with each Foreman guide section the orcharhino guide repeats replaced by the orcharhino guide's."""
    return tuple(dict.fromkeys(ORCHARHINO_GUIDE.get(c, c) for c in citations))


def orcharhino_setting(setting: Setting) -> Setting:
    """``setting`` citing the orcharhino guide where it says the same (its inputs too)."""
    return setting._replace(citations=orcharhino_cites(setting.citations),
                            inputs=tuple(i._replace(citation=ORCHARHINO_GUIDE.get(i.citation, i.citation)) for i in setting.inputs))
MIB = 1024**2


class Component(NamedTuple):
    """One service's share of the budgets that span components (its tunables come from the steps it exports)."""

    name: str
    memory: Callable[[Sizing], list[MemoryItem]] | None = None  # resident memory items, in report order
    connections: Callable[[Sizing, bool], list[tuple[str, int]]] | None = None  # (consumer, PostgreSQL connections)


def C(key: str) -> Input:
    """A planner constant as a cited formula input."""
    return Input(key, const(key), cite(key))


def box(name: str, value: Any) -> Input:
    """A fact about the box or workload (given by the user or read from the box)."""
    return Input(name, value, "box")


def given(setting: Setting, name: str = "installer value") -> Input:
    """The installer's value as an input: cited by where the installer takes it from."""
    return Input(name, setting.value, setting.citations[0] if setting.citations else "foretune-estimate")


def num(value: float) -> str:
    """A figure from the data as explanation text: ``1.5``, ``100``, ``0.2``."""
    return format(value, "g") if isinstance(value, float) else str(value)


def percent(fraction: float) -> str:
    """A fraction from the data as a percentage: 0.25 -> ``25 %``."""
    return f"{round(fraction * 100, 6):g} %"


def memory_size(item: str, *, high: bool = False) -> str:
    """The resident size of one memory item as the data gives it: ``2.7-3.1 MiB``, ``37.4 MiB``; ``high``: its high end."""
    low, top, _ = memory_range(item)
    high_text = format_bytes(top * GIB)
    if low == top or high:
        return high_text
    return f"{format_bytes(low * GIB, high_text.split()[-1], show_unit=False)}-{high_text}"


def default_profile_hosts() -> int:
    """The most managed hosts the default --tuning profile is meant for (hardware.yaml): larger settings start above it."""
    high = hardware.host_range("default")[1]
    if high is None:
        raise DataError("hardware.yaml: the default profile has no max_hosts")
    return high


def memory_item(component: str, count: float, item: str, reason: str) -> MemoryItem:
    """``count`` x memory item ``item``: a measured or guide-stated size plans at its high end, an estimate at its middle."""
    low, high, source = memory_range(item)
    plan = low + (high - low) * (0.5 if source == "foretune-estimate" else 1.0)
    return MemoryItem(component, int(count * plan * GIB), reason, int(count * low * GIB), int(count * high * GIB), (source,))


def _magnitude(value: Any) -> float | None:
    """A value as a number to compare (a count, seconds, or a size such as ``16MB``), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    size = pg_size(str(value), unit_bytes=1)
    return float(size) if size is not None else None


class Sizing:
    """The box, its release and installer values, and the plan being built (tunables and problems)."""

    def __init__(self, inp: PlanInput, release: Release, profile: str, base: dict[str, Any],
                 components: Sequence[Component] = (), problems: list[Problem] | None = None) -> None:
        self.inp = inp
        self.release = release
        self.f = release.features
        self.fv = release.foreman_version
        self.server = inp.role == "server"
        self.katello = inp.katello
        self.era62 = not self.f.custom_hiera  # Satellite 6.2 era: no custom-hiera, edit the config files
        self.cores = inp.physical_cores or inp.cpus
        self.ram_gib = inp.ram_bytes / GIB
        self.profile = profile
        self.base = base
        self.base_pg: dict[str, Any] = dict(base.get(PG, {}))
        self.rex_hosts = (inp.rex_hosts if inp.rex_hosts is not None else inp.hosts) if inp.rex == "pull-mqtt" else 0
        self.components = tuple(components)
        self.tunables: dict[str, Tunable] = {}
        self.problems: list[Problem] = [] if problems is None else problems  # the orchestrator's list: one order of problems

    # -- tunables ------------------------------------------------------------------------------
    def add(self, tid: str, title: str, unit: str, installer: Setting, foretune: Setting, *fixes: Fix,
            configured: Callable[[Any], Any] | None = None) -> None:
        """Add tunable ``tid``; ``configured`` turns a hiera value the box sets into the tunable's unit."""
        component = tid.split(".", 1)[0]
        if self.era62:
            fixes = tuple(direct_edit(fix, capsule=not self.server, includes=self.inp.httpd_includes) for fix in fixes)
        in_force = self.in_force(fixes, installer, configured)
        kept = next((fix.target for fix in fixes if fix.kind == "hiera" and fix.target in self.inp.kept), None)
        if in_force.origin and kept is not None and kept in self.inp.configured:
            # the site's value stays (render keeps it unless asked): what depends on it is derived from it
            foretune = Setting(in_force.value, f"the site's value, kept (foretune's: {foretune.value}, {foretune.reason})",
                               foretune.citations)
            fixes = tuple(fix._replace(value=self.inp.configured[kept][0]) if fix.kind in ("hiera", "installer") else fix
                          for fix in fixes)
        site, ours = _magnitude(in_force.value), _magnitude(foretune.value)
        same_kind = isinstance(in_force.value, str) == isinstance(foretune.value, str)  # "16MB" and 16384 (kB) do not compare
        if in_force.origin and same_kind and site is not None and ours is not None and ours < site:
            # never lower a site value silently: the reason says first that foretune's value is below the site's
            shown = format_bytes(in_force.value) if unit == "bytes" and isinstance(in_force.value, int) else in_force.value
            foretune = foretune._replace(reason=f"below the {shown} the {in_force.origin} sets: {foretune.reason}")
        if self.inp.product == "orcharhino":  # the orcharhino guide's own sections where it has them
            in_force, foretune = orcharhino_setting(in_force), orcharhino_setting(foretune)
        self.tunables[tid] = Tunable(tid, component, title, unit, in_force, foretune, tuple(fixes))

    def in_force(self, fixes: tuple[Fix, ...], installer: Setting, configured: Callable[[Any], Any] | None = None) -> Setting:
        """The installer column: a value the answers file or custom-hiera sets wins over the profile or module default."""
        if installer.origin:
            return installer  # already the site's value (base_setting read it)
        for fix in fixes:
            if fix.kind == "hiera" and fix.target in self.inp.configured:
                value, where = self.inp.configured[fix.target]
                if configured is not None:
                    value = configured(value)
                return Setting(value, f"set in the {where} (wins over {installer.reason})", ("fi-hiera-precedence",), origin=where)
        return installer

    def value(self, tid: str, installer: bool = False) -> Any:
        """The plan's value of tunable ``tid`` (``installer``: the installer's)."""
        tunable = self.tunables[tid]
        return tunable.installer.value if installer else tunable.foretune.value

    def base_setting(self, key: str, fallback: Any, fallback_reason: str, fallback_cite: str) -> Setting:
        """What the box runs for hiera ``key``: the site's value (answers file, custom-hiera), else the profile's, else the
        module default; a component computes its recommendation from it, so a site's deliberate value is its start."""
        if key in self.inp.configured:
            value, where = self.inp.configured[key]
            return Setting(value, f"set in the {where}", ("fi-hiera-precedence",), origin=where)
        return self.profile_setting(key) or Setting(fallback, fallback_reason, (fallback_cite,))

    def profile_setting(self, key: str) -> Setting | None:
        """What the profile (or the installer's tuning file) gives for hiera ``key``, whatever the site set; None when
        it gives nothing."""
        value = self.base_pg.get(key.split("/", 1)[1]) if key.startswith(PG + "/") else self.base.get(key)
        if value is None:
            return None
        source = f"--tuning {self.profile}" if self.f.size_profiles and self.katello else "the installer's tuning file"
        return Setting(value, f"set by {source}", ("fi-tuning-profiles" if self.f.size_profiles else "fi-tuning-yaml",))

    def pg_setting(self, name: str, builtin: str | None = None) -> Setting:
        """What the installer gives for PostgreSQL ``name``: the profile's value, else PostgreSQL's built-in default.

        The built-in default is 9.2's on a release without custom-hiera (the Satellite 6.2 era, PostgreSQL 9.2 on RHEL 7),
        else the newest; ``builtin`` names PostgreSQL's own setting when it differs (vacuum_cost_limit).
        """
        server = "9.2" if self.era62 else None
        step = postgresql_default(builtin or name, server)
        why = f"PostgreSQL {server} default" if server else "PostgreSQL default"
        return self.base_setting(PG + "/" + name, step["value"], why + (f" ({builtin})" if builtin else ""), str(step["citation"]))

    def same(self, installer: Setting, reason: str, *citations: str) -> Setting:
        """foretune keeps the installer's value."""
        return Setting(installer.value, reason, citations or installer.citations, inputs=(given(installer),))

    # -- budgets that span components ---------------------------------------------------------
    def memory_items(self) -> list[MemoryItem]:
        """Every component's resident memory with the tunables planned so far."""
        return [item for c in self.components if c.memory for item in c.memory(self)]

    def connection_budget(self, *, installer: bool = False) -> list[tuple[str, int]]:
        """PostgreSQL connections per consumer with the plan's values (or, ``installer``, the installer's).

        Every budget ends with the connections PostgreSQL keeps for superusers; a box whose services use no PostgreSQL
        has none.
        """
        budget = [entry for c in self.components if c.connections for entry in c.connections(self, installer)]
        if not budget:
            return []  # nothing here uses PostgreSQL (a Pulp 2 Capsule): no budget, not 3 reserved slots of no server
        return [*budget, ("superuser reserved", const("pg_reserved_connections"))]
