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


START = "<!-- validation table: tools/calibrate_model.py --table writes it; tests/model/test_validation.py checks it -->"
END = "<!-- end of validation table -->"


def write_table(path: str = "docs/model.md") -> None:
    """Evaluate every row with the calibration in model.yaml and write the table between the markers."""
    outcomes = [validation.evaluate(row) for row in validation.ROWS]
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(head + START + "\n" + validation.table(outcomes) + END + tail)


def main(argv: list[str]) -> int:
    if "--table" in argv:
        write_table()
        return 0
    grid = {
        "ruby_share": (0.12,),
        "backend_cpu_share": (0.05,),
        "serial_s": (0.2, 0.22),
        "cpu_penalty": (0.1, 0.2),
        "gvl_penalty": (0.005, 0.015),
    }
    if "--quick" in argv:
        grid = {k: v[:1] for k, v in grid.items()}
    best = None
    for values in itertools.product(*grid.values()):
        params = dict(zip(grid, values))
        cal = demands.Calibration(speed=1.0, **params)
        total, seen = score(cal)
        print(f"{total:10.1f} {params} {seen}", flush=True)
        if best is None or total < best[0]:
            best = (total, params)
    print("best", best)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
