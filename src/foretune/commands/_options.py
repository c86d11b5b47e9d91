"""Options shared by commands: sizes and counts that fail with one clear line, the output convention, --version."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Callable

from foretune import __version__
from foretune.errors import UsageError
from foretune.units import parse_size

if TYPE_CHECKING:
    from foretune.env import Environment

MAX_COUNT = 10_000_000  # foretune estimate: far beyond the largest documented deployments (60,001+ hosts profile)
MIN_RAM = 256 * 1024**2  # no Foreman component starts in less
MAX_RAM = 1024**5  # 1 PiB


def rule_names(text: str) -> list[str]:
    """argparse type for --select/--ignore: a comma list of rule ids or components."""
    return [part.strip() for part in text.split(",") if part.strip()]


def size(text: str) -> int:
    """argparse type for RAM: ``64G``, ``64GiB``, ``65536M``; plain numbers are GiB."""
    try:
        value = parse_size(text, default_unit="G")
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not MIN_RAM <= value <= MAX_RAM:
        raise argparse.ArgumentTypeError(f"{text!r} is not a plausible amount of RAM (256M to 1024T)")
    return value


def _whole(text: str) -> int:
    digits = text.replace("_", "")
    if not (digits.isascii() and digits.lstrip("-").isdigit()) or len(digits) > 12:
        if digits.isascii() and digits.isdigit():
            raise argparse.ArgumentTypeError(f"{text[:40]} is not plausible: at most {MAX_COUNT}")
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}")
    value = int(digits)
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text} is not plausible: at most {MAX_COUNT}")
    return value


def _whole_from(text: str, low: int, wording: str) -> int:
    value = _whole(text)
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {wording}: {text}")
    return value


def count(text: str) -> int:
    """argparse type for a whole number >= 0 (ASCII digits, at most MAX_COUNT)."""
    return _whole_from(text, 0, "0 or more")


def number(what: str, most: float, bound: str, *, below: bool = False) -> Callable[[str], float]:
    """argparse type for a number more than 0 and at most ``most`` (less than it with ``below``); ``what`` names
    the number and ``bound`` words the limit in the one-line error.

    >>> seconds = number("a number of seconds", 7 * 86400, "at most a week")
    >>> seconds("90"), seconds("0.5")
    (90.0, 0.5)
    >>> seconds("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be more than 0 and at most a week: 0
    """

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text[:40]!r}") from None
        if not (0 < value < most if below else 0 < value <= most):
            raise argparse.ArgumentTypeError(f"must be more than 0 and {bound}: {text[:40]}")
        return value

    return parse


MAX_CPUS = 8192  # foretune estimate: RHEL 8 and 9 x86_64 kernels are built for at most 8192 CPUs (CONFIG_NR_CPUS)


def cpus(text: str) -> int:
    """argparse type for a CPU count: a whole number from 1 to MAX_CPUS."""
    value = _whole_from(text, 1, "at least 1")
    if value > MAX_CPUS:
        raise argparse.ArgumentTypeError(f"{text} is not a plausible CPU count: at most {MAX_CPUS}")
    return value


def positive(text: str) -> int:
    """argparse type for a whole number >= 1 (ASCII digits, at most MAX_COUNT)."""
    return _whole_from(text, 1, "at least 1")


SUFFIX_FORMATS = {".json": "json", ".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown",
                  ".yaml": "yaml", ".yml": "yaml", ".txt": "text", ".sh": "installer"}


def add_output(parser: argparse._ActionsContainer, formats: tuple[str, ...], default: str, help: str = "") -> None:
    """The one output convention: ``--format`` (one of ``formats``) and ``--output FILE`` (format from its extension)."""
    parser.add_argument("--format", choices=formats, metavar="{" + ",".join(formats) + "}",
                        help=help or f"output format (default: {default}, or what --output's extension says)")
    parser.add_argument("--output", "-o", metavar="FILE", type=output_file,
                        help="write to FILE instead of standard output ('-' is standard output); without --format, the "
                             f"extension ({', '.join(_suffixes(formats))}) picks the format")
    parser.set_defaults(default_format=default, formats=formats)


def output_file(value: str) -> str | None:
    """``--output``'s value; ``-`` is standard output, as for every Unix tool (None: no file)."""
    return None if value == "-" else value


def _suffixes(formats: tuple[str, ...]) -> list[str]:
    return [suffix for suffix, fmt in SUFFIX_FORMATS.items() if _accepted(fmt, formats) and suffix != ".htm"]


def _accepted(fmt: str, formats: tuple[str, ...]) -> str | None:
    """``fmt`` as this command names it (yaml output is ``hiera`` for plan, text is ``table``)."""
    aliases = {"yaml": ("yaml", "hiera"), "text": ("text", "table")}
    return next((name for name in aliases.get(fmt, (fmt,)) if name in formats), None)


def output_format(args: argparse.Namespace) -> str:
    """``--format`` if given, else the format ``--output``'s extension names, else the command's default.

    An extension that names no format of this command is refused: writing text into ``report.pdf`` or
    ``plan.html`` would put one format under another's name.

    >>> ns = argparse.Namespace(format=None, output="audit.HTML", default_format="text", formats=("text", "html"))
    >>> output_format(ns)
    'html'
    >>> output_format(argparse.Namespace(format=None, output="x.yml", default_format="table", formats=("table", "hiera")))
    'hiera'
    >>> output_format(argparse.Namespace(format=None, output="/dev/stdout", default_format="text", formats=("text",)))
    'text'
    >>> output_format(argparse.Namespace(format=None, output="x.pdf", default_format="text", formats=("text", "json")))
    Traceback (most recent call last):
    foretune.errors.UsageError: --output x.pdf: no format of this command writes .pdf (.json, .txt); name one with --format
    """
    if args.format:
        return str(args.format)
    if args.output:

        suffix = os.path.splitext(os.path.basename(args.output).lower())[1]
        if suffix:
            fmt = _accepted(SUFFIX_FORMATS.get(suffix, ""), args.formats)
            if not fmt:
                raise UsageError(f"--output {args.output}: no format of this command writes {suffix} "
                                 f"({', '.join(sorted(_suffixes(args.formats)))}); name one with --format")
            return fmt
    return str(args.default_format)


OUTPUT_DESTS = ("output", "output_dir")
INPUT_DIRS = ("source", "sources", "root")  # options naming a directory read as a whole (sosreport, logs, a copied root)


def _same(a: str, b: str) -> bool:
    import os  # start-up: only when _same runs

    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _inside(path: str, directory: str, *, existing: bool) -> bool:
    """``path`` (an existing file, unless not ``existing``) lies below ``directory``."""
    import os  # start-up: only when _inside runs

    try:
        if not os.path.isdir(directory) or (existing and not os.path.lexists(path)):
            return False
        top = os.path.realpath(directory)
        if top == "/":  # the live host itself (collect --root /): every path is below it
            return False
        return os.path.realpath(path).startswith(top.rstrip("/") + "/")
    except (OSError, ValueError):
        return False


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse ``--output``/``--output-dir`` when it is one of the command's inputs (the same file or directory,
    whatever the name: symbolic and hard links too) or lies in an input directory (a file of a sosreport, a
    directory of logs), before anything is read or written.

    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> snap = os.path.join(folder, "s.json")
    >>> open(snap, "w").close()
    >>> check_outputs(argparse.Namespace(source=snap, output=os.path.join(folder, ".", "s.json")))
    Traceback (most recent call last):
    ...
    foretune.errors.UsageError: --output ....json: is the input ....json; refusing to overwrite an input
    """
    values = vars(args)
    for dest in OUTPUT_DESTS:
        out = values.get(dest)
        if not isinstance(out, str) or not out:
            continue
        for name, value in values.items():
            if name in OUTPUT_DESTS:
                continue
            for item in value if isinstance(value, list) else [value]:
                if not isinstance(item, str) or not item:
                    continue
                flag = f"--{dest.replace('_', '-')} {out}"
                if _same(out, item):
                    from foretune.errors import UsageError  # start-up: only when check_outputs runs

                    raise UsageError(f"{flag}: is the input {item}; refusing to overwrite an input")
                if name in INPUT_DIRS and _inside(out, item, existing=dest == "output"):
                    from foretune.errors import UsageError  # start-up: only when check_outputs runs

                    raise UsageError(f"{flag}: is inside the input {item}; refusing to overwrite an input")


def emit(args: argparse.Namespace, env: Environment, text: str, summary: str = "") -> None:
    """Write ``text`` to ``--output`` (one status line on stderr) or to standard output."""
    if args.output:
        from pathlib import Path  # start-up: pathlib loads only when output goes to a file

        from foretune.render.files import write_text  # start-up: the file writer loads only when output goes to a file

        write_text(Path(args.output), text)
        env.note(f"wrote {args.output}" + (f": {summary}" if summary else ""))
    else:
        env.stdout.write(text)


class ProductVersion(argparse.Action):
    """``--version X`` names the product version; a bare ``--version`` prints foretune's own, as everywhere else."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if values is None:


            sys.stdout.write(f"foretune {__version__}\n")
            parser.exit(0)
        setattr(namespace, self.dest, values)


def add_product_version(parser: argparse._ActionsContainer, *, required: bool = False,
                        help: str = "product version, e.g. 6.15 (Satellite/orcharhino) or 3.9 (Foreman)") -> None:
    parser.add_argument("--version", action=ProductVersion, nargs="?", required=required, metavar="VERSION",
                        help=f"{help}; alone, print foretune's version")
