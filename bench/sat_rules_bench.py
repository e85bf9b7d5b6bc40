"""Encodings of the rule rows in CNF (issue 15): which cardinality and pseudo-Boolean encodings
make the smallest and fastest files. A section of ``make bench``; ``--quick`` for a smoke run.

    python bench/sat_rules_bench.py [--quick] [--repeat 3] [--results-dir bench/results]

Puzzles (built here from fixed seeds with tests/data/rules/make_rules.py's helpers: a solution
from CaDiCaL with random phases, rules read off it, no givens unless said):

* ``killer-k`` (8 of them): killer cages of 2-4 cells tiling a 9x9, every cage with its sum (cage
  sums are PB rows with weights 1..9, cages not inside one unit add at-most-one rows);
* ``kropki-k`` (3): every white and black Kropki dot of a 9x9 solution, plus 2 thermometers
  (Kropki rows are cardinality rows with bounds up to 4; thermometers PB rows with weights
  -9..9);
* ``miracle``: anti-knight, anti-king and non-consecutive with two givens (all at-most-one rows).

For each puzzle and encoding: the CNF written by :func:`formats.cnf.write` (variables, clauses,
bytes) and the in-process CaDiCaL (python-sat ``cadical195``) asked for two solutions (the
second call, with a blocking clause, is the uniqueness question), best of ``--repeat`` runs
in CPU seconds of this process. The PB encodings are measured with the default card encoding
and the card encodings with the default PB one. Results: the printed table and
``<results-dir>/sat_rules.json``; the defaults of :mod:`pipeline.core.clauses_pb` and the table
in docs/conventions.md come from a full run.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "tests" / "data" / "rules"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import make_rules  # noqa: E402  (tests/data/rules: solution_of, cages_tiling)

from bench.measure import results_dir, write_result  # noqa: E402
from formats import cnf  # noqa: E402
from pipeline.core.build import build_model  # noqa: E402
from pipeline.core.clauses_pb import CARD_ENCODINGS, DEFAULT_CARD, DEFAULT_PB, PB_ENCODINGS  # noqa: E402
from pipeline.core.puzzle import parse_puzzle  # noqa: E402


def _cell(r: int, c: int) -> str:
    return f"r{r + 1}c{c + 1}"


def killer_doc(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    grid = make_rules.solution_of({"size": 9}, rng)
    cages = make_rules.cages_tiling(grid, rng)
    return {"size": 9, "rules": [{"rule": "cage", "cells": [_cell(r, c) for r, c in cage],
                                  "sum": int(sum(grid[r, c] for r, c in cage))} for cage in cages]}


def kropki_doc(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    grid = make_rules.solution_of({"size": 9}, rng)
    rules = []
    for r in range(9):
        for c in range(9):
            for rr, cc in ((r, c + 1), (r + 1, c)):
                if rr < 9 and cc < 9:
                    a, b = int(grid[r, c]), int(grid[rr, cc])
                    if abs(a - b) == 1:
                        rules.append({"rule": "kropki", "color": "white", "cells": [_cell(r, c), _cell(rr, cc)]})
                    elif a == 2 * b or b == 2 * a:
                        rules.append({"rule": "kropki", "color": "black", "cells": [_cell(r, c), _cell(rr, cc)]})
    for start in ((0, 0), (8, 8)):
        path = [start]
        while len(path) < 4:
            r, c = path[-1]
            up = [(rr, cc) for rr in (r - 1, r, r + 1) for cc in (c - 1, c, c + 1)
                  if 0 <= rr < 9 and 0 <= cc < 9 and grid[rr, cc] > grid[r, c] and (rr, cc) not in path]
            if not up:
                break
            path.append(up[0])
        if len(path) > 1:
            rules.append({"rule": "thermo", "cells": [_cell(r, c) for r, c in path]})
    return {"size": 9, "rules": rules}


MIRACLE = {"size": 9, "givens": ["r5c3=1", "r6c7=2"],
           "rules": [{"rule": "antiknight"}, {"rule": "antiking"}, {"rule": "nonconsecutive"}]}


def puzzles(quick: bool) -> dict[str, dict]:
    killers = (1,) if quick else tuple(range(1, 9))
    kropkis = (1,) if quick else (1, 2, 3)
    out = {f"killer-{s}": killer_doc(100 + s) for s in killers}
    out.update({f"kropki-{s}": kropki_doc(200 + s) for s in kropkis})
    out["miracle"] = MIRACLE
    return out


def measure(doc: dict, work: Path, card: str, pb: str, repeat: int) -> dict:
    """CNF size and the best CPU time of CaDiCaL finding two solutions (or proving there is one)."""
    from pysat.solvers import Solver

    model = build_model(parse_puzzle(json.dumps(doc)))
    path = work / "m.cnf"
    start = time.process_time()
    cnf.write(model, path, card=card, pb=pb)
    write_seconds = time.process_time() - start
    parsed = cnf.read_cnf(path)
    clauses = parsed.clauses()
    cells = (model.columns + 1).tolist()
    best, found = None, 0
    for _ in range(repeat):
        start = time.process_time()
        found = 0
        with Solver(name="cadical195", bootstrap_with=clauses) as s:
            while found < 2 and s.solve():
                found += 1
                true = set(s.get_model())
                s.add_clause([-v for v in cells if v in true])
        took = time.process_time() - start
        best = took if best is None else min(best, took)
    return {"variables": parsed.n_vars, "clauses": parsed.n_clauses, "bytes": path.stat().st_size,
            "write_seconds": write_seconds, "solve_seconds": best, "solutions": found}


def run(quick: bool, repeat: int) -> dict:
    docs = puzzles(quick)
    configs = [("pb", pb, DEFAULT_CARD, pb) for pb in PB_ENCODINGS] + \
              [("card", card, card, DEFAULT_PB) for card in CARD_ENCODINGS]
    rows = []
    with tempfile.TemporaryDirectory(prefix="sat-rules-bench-") as tmp:
        for axis, name, card, pb in configs:
            per = {pid: measure(doc, Path(tmp), card, pb, repeat) for pid, doc in docs.items()}
            rows.append({"axis": axis, "encoding": name, "card": card, "pb": pb, "puzzles": per,
                         "variables": sum(p["variables"] for p in per.values()),
                         "clauses": sum(p["clauses"] for p in per.values()),
                         "solve_seconds": sum(p["solve_seconds"] for p in per.values())})
    return {"puzzles": list(docs), "repeat": repeat, "defaults": {"card": DEFAULT_CARD, "pb": DEFAULT_PB},
            "rows": rows}


def print_table(result: dict) -> None:
    names = result["puzzles"]
    print(f"Rule-row encodings in CNF: totals over {', '.join(names)}; CaDiCaL, two solutions, "
          f"best of {result['repeat']} (CPU s)")
    print(f"{'axis':<5} {'encoding':<11} {'variables':>10} {'clauses':>10} {'solve s':>9}  per puzzle (s)")
    for row in result["rows"]:
        mark = " *" if row[row["axis"]] == result["defaults"][row["axis"]] else ""
        per = " ".join(f"{p['solve_seconds']:.3f}" for p in row["puzzles"].values())
        print(f"{row['axis']:<5} {row['encoding'] + mark:<11} {row['variables']:>10,} {row['clauses']:>10,} "
              f"{row['solve_seconds']:>9.3f}  {per}")
    print("* = default (pipeline.core.clauses_pb)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one puzzle of each kind, one run")
    parser.add_argument("--repeat", type=int, default=3, help="solve runs per measurement (best counts)")
    parser.add_argument("--results-dir", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args(argv)
    out = results_dir(parser, args.results_dir)
    result = run(args.quick, 1 if args.quick else args.repeat)
    print_table(result)
    out.mkdir(parents=True, exist_ok=True)
    write_result(out / ("sat_rules_quick.json" if args.quick else "sat_rules.json"), json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
