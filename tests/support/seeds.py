"""The vendor tuning guides foretune is built from, as plain text beside the repository.

They live in ``<repository>/../shared/seeds`` (a git worktree looks beside its main checkout too);
``FORETUNE_SEEDS`` names another directory. Quotes are compared after :func:`normalise`.
Tests that read them carry the ``needs_guides`` marker: without the texts (a plain clone) they are
not collected and the run ends with one line saying so (tests/conftest.py); with ``FORETUNE_SEEDS``
set they always run, and fail when the directory holds no texts.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# guide name used in citations*.yaml -> file-name prefix of its text in the seeds directory
GUIDE_SEEDS = {
    "sat62-brief": "000_",  # Red Hat performance brief: Satellite 6.2 and Capsule
    "sat69-guide": "001_",  # Satellite 6.9 Performance Tuning Guide
    "foreman-guide": "002_",  # Tuning Foreman (Katello) guide
    "puma-blog": "003_",  # Red Hat blog: Satellite 6.9 Puma web server
    "orcharhino-guide": "004_",  # Tuning orcharhino guide
}


def candidates() -> list[Path]:
    """Where the seeds may be, most specific first."""
    found = [Path(os.environ["FORETUNE_SEEDS"])] if os.environ.get("FORETUNE_SEEDS") else []
    found.append(REPO.parent / "shared" / "seeds")
    dot_git = REPO / ".git"
    if dot_git.is_file():  # a worktree: .git names <main>/.git/worktrees/<name>
        gitdir = Path(dot_git.read_text(encoding="utf-8").split(":", 1)[1].strip())
        found.append(gitdir.parent.parent.parent.parent / "shared" / "seeds")
    return found


def present() -> bool:
    """Whether a directory of guide texts is where :func:`candidates` looks."""
    return any(path.is_dir() and any(path.glob("*.txt")) for path in candidates())


def required() -> bool:
    """Whether the guide-quote checks run: the texts are present, or ``FORETUNE_SEEDS`` names them (then they must be there)."""
    return bool(os.environ.get("FORETUNE_SEEDS")) or present()


def seed_dir() -> Path:
    """The seeds directory; a clear error when it is missing."""
    for path in candidates():
        if path.is_dir() and any(path.glob("*.txt")):
            return path
    tried = ", ".join(str(p) for p in candidates())
    raise FileNotFoundError(f"guide texts not found (tried {tried}); check out shared/ beside the repository "
                            "or set FORETUNE_SEEDS")


def normalise(text: str) -> str:
    """Collapse whitespace and drop the markup the text conversion left (emphasis, code, TeX)."""
    text = re.sub(r"\\text\{([^}]*)\}", r"\1", text)
    text = re.sub(r"[*`$]", "", text)
    return " ".join(text.split())


@functools.cache
def guide_text(guide: str) -> str:
    """The normalised text of one guide by its name in :data:`GUIDE_SEEDS`."""
    matches = sorted(seed_dir().glob(GUIDE_SEEDS[guide] + "*.txt"))
    if not matches:
        raise FileNotFoundError(f"no text for guide {guide!r} in {seed_dir()}")
    return normalise(matches[0].read_text(encoding="utf-8"))


def all_guides_text() -> str:
    """Every guide's normalised text, separated so no quote spans two guides."""
    return "\n\n".join(guide_text(name) for name in GUIDE_SEEDS)
