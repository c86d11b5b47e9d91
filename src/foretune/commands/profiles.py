"""``foretune profiles``: the installer's --tuning profiles per version (list, show, diff)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from foretune.cli import add_color_option, new_parser
from foretune.commands._options import add_output, add_product_version, emit, output_format

if TYPE_CHECKING:
    from foretune.env import Environment

PRODUCTS = ("foreman", "satellite", "orcharhino")


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "List, show and compare what `foreman-installer --tuning PROFILE` applies on a version.",
                        "foretune profiles show large --product satellite --version 6.15")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    lst = sub.add_parser("list", help="profiles with host ranges and hardware (and which a version accepts)")
    _release_options(lst, required=False)
    show = sub.add_parser("show", help="the hiera a profile applies on a version (common + size merged)")
    show.add_argument("profile")
    _release_options(show, required=True)
    add_output(show, ("yaml", "json"), "yaml")
    diff = sub.add_parser("diff", help="keys that differ between two profiles on a version")
    diff.add_argument("profile_a", metavar="A")
    diff.add_argument("profile_b", metavar="B")
    _release_options(diff, required=True)
    add_color_option(lst, sub=True)
    add_color_option(show, sub=True)
    add_color_option(diff, sub=True)
    return parser


def _release_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--product", choices=PRODUCTS, default="foreman" if not required else None,
                        help="product (default: foreman)")
    add_product_version(parser, required=required, help="product version, e.g. 6.15 or 3.9")


def run(args: argparse.Namespace, env: Environment) -> int:
    from foretune.knowledge.releases import resolve_release  # start-up: only for a `profiles` run, not --help

    if args.action == "list":
        release = resolve_release(args.product, args.version) if args.version else None
        _list(env, release)
        return 0
    product = args.product or "foreman"
    release = resolve_release(product, args.version)
    if args.action == "show":
        emit(args, env, _show(release, args.profile, output_format(args)))
    else:
        _diff(env, release, args.profile_a, args.profile_b)
    return 0


def _list(env: Environment, release: Any) -> None:
    from foretune.knowledge import hardware  # start-up: only for a `profiles` run, not --help
    from foretune.knowledge.model import PROFILES  # start-up: only for a `profiles` run, not --help
    from foretune.knowledge.profiles import profiles_for  # start-up: only for a `profiles` run, not --help

    accepted = profiles_for(release) if release else PROFILES
    if release:
        env.stdout.write(f"{release.label}: " + (f"--tuning accepts {', '.join(accepted)}\n" if accepted
                                                  else "no --tuning profiles on this version\n"))
    env.stdout.write(f"{'profile':<19} {'hosts':>13} {'cores':>5} {'RAM':>8}  puma workers (guide)\n")
    for name in PROFILES:
        need = hardware.recommended(name)
        if name == "development":
            hosts, puma = "testing only", "-"
        else:
            low, high = hardware.host_range(name)
            hosts = f"{low}-{high}" if high else f"{low}+"
            puma = "{}-{}".format(*hardware.puma_worker_range(name))
        mark = "" if name in accepted else "  (not on this version)"
        env.stdout.write(f"{name:<19} {hosts:>13} {need.cores:>5} {need.ram_gib:>5g} GiB  {puma}{mark}\n")


def _show(release: Any, profile: str, fmt: str) -> str:
    from foretune.knowledge.profiles import (  # start-up: only for a `profiles` run, not --help
        installer_hiera,
        tuning_files,
    )

    hiera = installer_hiera(release, profile)
    if fmt == "json":
        import json  # start-up: json loads only for JSON input or output

        return json.dumps(hiera, indent=2) + "\n"
    import yaml  # start-up: PyYAML loads only when YAML is read or written

    return (f"# --tuning {profile} on {release.label} ({tuning_files(release, profile)})\n"
            + (yaml.safe_dump(hiera, sort_keys=False, default_flow_style=False) if hiera else "{}\n"))


def _diff(env: Environment, release: Any, a: str, b: str) -> None:
    from foretune.knowledge.profiles import flatten, installer_hiera  # start-up: only for a `profiles` run, not --help

    left, right = flatten(installer_hiera(release, a)), flatten(installer_hiera(release, b))
    keys = [k for k in dict.fromkeys([*left, *right]) if left.get(k) != right.get(k)]
    if not keys:
        env.stdout.write(f"{a} and {b} are identical on {release.label}\n")
        return
    width = max(len(k) for k in keys)
    env.stdout.write(f"{'key':<{width}}  {a:>14}  {b:>14}\n")
    for key in keys:
        env.stdout.write(f"{key:<{width}}  {_fmt(left.get(key)):>14}  {_fmt(right.get(key)):>14}\n")


def _fmt(value: Any) -> str:
    return "-" if value is None else str(value)
