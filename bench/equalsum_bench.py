"""The equal-sum rules' segments (ISS ``EqualSum``) by their pseudo-Boolean rows against their
shared total (:data:`pipeline.core.clauses_running.EQUALSUM_SEGMENTS`).

    python bench/equalsum_bench.py [--random 30]

Puzzles: ISS's entries with ``EqualSum`` (tests/data/iss/collections.jsonl, when present) and
random 9x9s (tests/equalsum_rule_puzzles.py's, the seeds whose rules hold, with 6 more rules of
2-4 segments on the same grid and 10 givens). For each, switch off then on: the rule clauses of
the one-puzzle SAT engine, its CaDiCaL conflicts counting to 2 (deterministic) and the count's
CPU seconds. Prints one line a puzzle (ISS) and the random puzzles' totals.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from equalsum_rule_puzzles import _name, _segment, equalsum_rule_puzzle  # noqa: E402
from pipeline.core import clauses_running  # noqa: E402
from pipeline.core.build import build_model  # noqa: E402
from pipeline.core.puzzle import parse_puzzle  # noqa: E402
from pipeline.solvers import sat  # noqa: E402

ISS = ROOT / "tests" / "data" / "iss" / "collections.jsonl"


def measure(text: str) -> dict[bool, tuple[int, int, float, int]]:
    """Off and on: ``(rule clauses, conflicts, CPU seconds, count)`` of the puzzle ``text``."""
    model = build_model(parse_puzzle(text))
    out = {}
    for on in (False, True):
        clauses_running.EQUALSUM_SEGMENTS = on
        engine = sat.SatEngine(model, fix_clues=True)
        try:
            start = time.process_time()
            got = engine.count(model, 2, time_limit=120)
            out[on] = (len(engine._extra), int(engine.solver.accum_stats()["conflicts"]),
                       time.process_time() - start, got.count)
        finally:
            engine.close()
    return out


def random_doc(seed: int) -> dict | None:
    """A random puzzle of many equal-sum rules and 10 givens (None: the seed's rules do not hold)."""
    doc, grid, held = equalsum_rule_puzzle(1000 + seed)
    if not held:
        return None
    rng = np.random.default_rng(seed)
    for _ in range(6):
        first = _segment(rng, grid, None)
        total = int(grid.flat[first].sum())
        segments = [first] + [s for s in (_segment(rng, grid, total) for _ in range(3)) if s]
        if len(segments) > 1:
            doc["rules"].append({"rule": "equalsum", "segments": [_name(s) for s in segments]})
    givens = np.zeros(81, dtype=int)
    shown = rng.choice(81, 10, replace=False)
    givens[shown] = grid.ravel()[shown]
    doc["givens"] = "".join(str(v) if v else "." for v in givens)
    return doc


def main() -> None:
    """Print the ISS entries' lines and the random puzzles' totals."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", type=int, default=30, help="random seeds (default 30)")
    args = parser.parse_args()
    print("puzzle: rule clauses off/on, conflicts off/on, CPU s off/on, count")
    if ISS.is_file():
        for line in ISS.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if "EqualSum" in entry["input"]:
                m = measure(entry["input"])
                print(f"{entry['name']}: {m[False][0]:,}/{m[True][0]:,}, {m[False][1]:,}/{m[True][1]:,}, "
                      f"{m[False][2]:.2f}/{m[True][2]:.2f}, {m[True][3]}")
    total = {False: np.zeros(3), True: np.zeros(3)}
    held = 0
    for seed in range(args.random):
        doc = random_doc(seed)
        if doc is None:
            continue
        held += 1
        m = measure(json.dumps(doc))
        for on in (False, True):
            total[on] += m[on][:3]
    print(f"{held} random puzzles: {total[False][0]:,.0f}/{total[True][0]:,.0f}, "
          f"{total[False][1]:,.0f}/{total[True][1]:,.0f}, {total[False][2]:.2f}/{total[True][2]:.2f}")


if __name__ == "__main__":
    main()
