"""Search the model's calibration (knowledge/data/model.yaml ``calibration``) on the calibration rows only.

    .venv/bin/python tools/calibrate_model.py [--quick]

Prints every candidate's error against the calibration rows of foretune.model.validation (the 4 CPU and
8 CPU worker tables and the threads table) and the best one; the validation rows are never evaluated here.
Copy the best values into model.yaml by hand and review docs/model.md.
"""

from __future__ import annotations

import itertools
import sys

from foretune.model import demands, validation


def score(cal: demands.Calibration) -> tuple[float, list[tuple[str, tuple[float, ...]]]]:
    dem = demands.build(cal)
    total = 0.0
    seen = []
    for row in validation.ROWS:
        if row.use != "calibration":
            continue
        out = validation.evaluate(row, dem)
        total += sum(e * e for e in out.errors_pp)
        seen.append((row.id, tuple(round(p, 1) for p in out.predicted)))
    return total, seen


def main(argv: list[str]) -> int:
    grid = {
        "ruby_share": (0.08, 0.1),
        "backend_cpu_share": (0.03, 0.06),
        "serial_s": (0.2, 0.3),
        "cpu_penalty": (0.2,),
        "gvl_penalty": (0.005,),
    }
    if "--quick" in argv:
        grid = {k: v[:1] for k, v in grid.items()}
    best = None
    for values in itertools.product(*grid.values()):
        params = dict(zip(grid, values))
        cal = demands.Calibration(speed=1.0, **params)
        total, seen = score(cal)
        print(f"{total:10.1f} {params} {seen}", flush=True)  # noqa: T201
        if best is None or total < best[0]:
            best = (total, params)
    print("best", best)  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
