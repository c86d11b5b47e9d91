"""Facts: what foretune knows about a host, read through one layer (spec -> source -> parser).

Public API: :func:`read_source`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from foretune.errors import InputError

if TYPE_CHECKING:
    from foretune.facts.model import FactSet


def read_source(spec: str | None, *, hosts: int | None = None, environ: Mapping[str, str] | None = None,
                progress: Callable[[int, int], None] | None = None, tree: bool = False) -> FactSet:
    """Facts from this host (``spec`` None), a sosreport directory or tarball, or a ``collect`` snapshot.

    ``tree``: a directory may be a plain tree laid out like a host (``apply``/``verify --root``), not only a sosreport.
    ``hosts`` fills ``managed_hosts`` when the source lacks it. ``progress(done, total)`` hears how many
    bytes of a tarball have been read. Unreadable parts become
    ``FactSet.problems``; only a path that is no source at all raises InputError.
    """
    from foretune.facts.extract import extract  # start-up: the extractors load only when facts are read

    if spec is None:
        from foretune.host.sources.live import LiveHost  # start-up: a source type loads when read

        return extract(LiveHost(environ), hosts=hosts)
    path = Path(spec)
    if not path.exists() and not path.is_symlink():
        raise InputError(f"{spec}: no such file or directory")
    if not path.is_dir() and not path.is_file():  # a FIFO would block, a device never ends
        from foretune.safeio import kind  # start-up: loads only when a source path is checked

        raise InputError(f"{spec}: is {kind(path.stat().st_mode)}, not a regular file: refusing to read it")
    if path.is_dir():
        from foretune.host.sources.sosreport import SosreportDirectory  # start-up: a source type loads when read

        return extract(SosreportDirectory(path, plain=tree), hosts=hosts)
    name = path.name.lower()
    if name.endswith((".json", ".json.gz")):
        from foretune.facts.model import Fact, Provenance  # start-up: loads only when facts are read
        from foretune.facts.snapshot import load_snapshot  # start-up: a source type loads when read

        facts = load_snapshot(path)
        if hosts is not None and not facts["managed_hosts"].known:
            facts.add(Fact("managed_hosts", hosts, (Provenance("snapshot", "command line", f"--hosts {hosts}"),)))
        return facts
    from foretune.host.sources.tarball import SUFFIXES  # start-up: a source type loads when read
    from foretune.logs.source import open_tarball  # start-up: a source type loads when read

    if name.endswith(SUFFIXES):
        return extract(open_tarball(path, progress=progress), hosts=hosts)
    raise InputError(f"{spec}: not a sosreport directory, sosreport tarball (.tar, .tar.gz, .tar.xz, .tar.bz2) "
                     "or foretune snapshot (.json, .json.gz)")
