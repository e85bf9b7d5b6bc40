"""Make the rule puzzles of the format and interop tests (tests/data/rules/*.json), reproducibly.

    python tests/data/rules/make_rules.py

Each puzzle is built from a solution found by CaDiCaL (random phases from a fixed seed), then
given givens of that solution (random order, added in batches) until it is unique: counted by
CaDiCaL on the model's CNF clauses (formats.cnf and pipeline.core.clauses_pb), and the final
puzzle checked once more by HiGHS's count:

* ``killer9.json``   9x9 killer: cages of 2-4 cells tiling the grid, every cage with its sum;
* ``thermo9.json``   9x9 with anti-knight, thermometers, Kropki dots (white and black), greater
                     signs, even/odd cells and a sum-less cage;
* ``samurai.json``   the five-grid samurai layout (21x21 canvas), givens only.

``killer9_cages_only.json`` is not made here: it is the fourth puzzle of ``python -m pipeline generate
--size 9 --cages-only --seed 3 -n 4`` (2026-12-02), 23 cages and no givens, kept as made for the
rater's killer techniques (cage combinations and the 45 rule solve it without a guess).

Not minimal puzzles and not published ones: test fixtures whose rows exercise every family the
formats write (cagesum =, cage/thermo/kropki/greater/parity/antiknight <=, units of a layout).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from pipeline.core.clauses import clause_list, encode  # noqa: E402
from pipeline.core.build import build_model  # noqa: E402
from pipeline.core.clauses_pb import encode_rule_rows  # noqa: E402
from pipeline.core.decode import grid_from_vector  # noqa: E402
from pipeline.core.verify import verify_grid  # noqa: E402
from pipeline.core.puzzle import parse_puzzle  # noqa: E402
from pipeline.solvers.highs import count_solutions  # noqa: E402


def cell(r: int, c: int) -> str:
    return f"r{r + 1}c{c + 1}"


def _clauses(model) -> list[list[int]]:
    enc = encode(model)
    return clause_list(enc) + encode_rule_rows(model, top=enc.n_vars, amo=enc.amo).clauses()


def solution_of(doc: dict, rng) -> np.ndarray:
    """A solution of ``doc`` (no givens): CaDiCaL on the model's clauses with random phases on the
    cell variables, so not always the same one; checked by HiGHS-free verify."""
    from pysat.solvers import Solver

    puzzle = parse_puzzle(json.dumps(doc))
    model = build_model(puzzle)
    cells = model.columns + 1
    with Solver(name="cadical195", bootstrap_with=_clauses(model)) as s:
        s.set_phases((cells * np.where(rng.random(cells.size) < 1 / puzzle.n, 1, -1)).tolist())
        assert s.solve()
        true = np.array([v for v in s.get_model() if 0 < v <= model.convention.n_vars]) - 1
    true = true[np.isin(true, model.columns)]  # absent cells' variables are in no clause
    x = np.zeros(model.convention.n_vars)
    x[true] = 1
    grid = grid_from_vector(x, model.convention)
    assert verify_grid(grid, puzzle).ok
    return grid


def sat_count(model, limit: int = 2) -> int:
    """Solutions of ``model`` up to ``limit``, by CaDiCaL on its CNF clauses (blocking clauses)."""
    from pysat.solvers import Solver

    clauses = _clauses(model)
    cells = (model.columns + 1).tolist()
    found = 0
    with Solver(name="cadical195", bootstrap_with=clauses) as s:
        while found < limit and s.solve():
            found += 1
            model_set = set(s.get_model())
            s.add_clause([-v for v in cells if v in model_set])
    return found


def make_unique(doc: dict, grid: np.ndarray, rng, batch: int) -> dict:
    """``doc`` with givens of ``grid`` added in random order, ``batch`` at a time, until unique."""
    cells = np.argwhere(grid > 0)
    cells = cells[rng.permutation(len(cells))]
    chosen = 0
    while True:
        if "layout" in doc:  # a canvas: one text line per canvas row, '.' for empty and absent cells
            shown = np.zeros_like(grid)
            shown[tuple(cells[:chosen].T)] = grid[tuple(cells[:chosen].T)]
            givens = ["".join(str(v) if v else "." for v in row) for row in shown.tolist()] if chosen else []
        else:
            givens = sorted(f"{cell(r, c)}={grid[r, c]}" for r, c in cells[:chosen])
        trial = dict(doc, givens=givens) if givens else dict(doc)
        if sat_count(build_model(parse_puzzle(json.dumps(trial)))) == 1:
            count = count_solutions(build_model(parse_puzzle(json.dumps(trial))), 2, threads=1)
            assert count.count == 1 and count.status == "complete", (count.count, count.status)
            return trial
        chosen += batch


def cages_tiling(grid: np.ndarray, rng) -> list[list[tuple[int, int]]]:
    """Connected cages of 2-4 cells with distinct digits of ``grid`` covering it (a cell left
    alone joins a neighbouring cage when its digit is new there, else stays a one-cell cage)."""
    n = grid.shape[0]
    owner = -np.ones((n, n), dtype=int)
    cages: list[list[tuple[int, int]]] = []
    for r in range(n):
        for c in range(n):
            if owner[r, c] >= 0:
                continue
            cage = [(r, c)]
            owner[r, c] = len(cages)
            size = int(rng.integers(2, 5))
            while len(cage) < size:
                digits = {grid[p] for p in cage}
                free = [(rr, cc) for (a, b) in cage for rr, cc in ((a + 1, b), (a - 1, b), (a, b + 1), (a, b - 1))
                        if 0 <= rr < n and 0 <= cc < n and owner[rr, cc] < 0 and grid[rr, cc] not in digits]
                if not free:
                    break
                rr, cc = free[int(rng.integers(len(free)))]
                owner[rr, cc] = len(cages)
                cage.append((rr, cc))
            if len(cage) == 1:
                for rr, cc in ((r, c - 1), (r - 1, c)):
                    if rr >= 0 and cc >= 0 and grid[r, c] not in {grid[p] for p in cages[owner[rr, cc]]}:
                        cages[owner[rr, cc]].append((r, c))
                        owner[r, c] = owner[rr, cc]
                        break
                if owner[r, c] != len(cages):
                    continue
            cages.append(cage)
    return cages


def killer(rng) -> dict:
    grid = solution_of({"size": 9}, rng)
    rules = [{"rule": "cage", "cells": [cell(r, c) for r, c in sorted(cage)], "sum": int(sum(grid[r, c] for r, c in cage))}
             for cage in cages_tiling(grid, rng)]
    doc = {"size": 9, "title": "killer fixture", "source": "tests/data/rules/make_rules.py", "rules": rules}
    return make_unique(doc, grid, rng, batch=2)


def thermo(rng) -> dict:
    base = {"size": 9, "rules": [{"rule": "antiknight"}]}
    grid = solution_of(base, rng)
    rules = [{"rule": "antiknight"}]
    for start in ((0, 0), (4, 4), (8, 2)):   # thermometers: walk to ever larger neighbours from a bulb
        path = [start]
        while len(path) < 5:
            r, c = path[-1]
            up = [(rr, cc) for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))
                  if 0 <= rr < 9 and 0 <= cc < 9 and grid[rr, cc] > grid[r, c] and (rr, cc) not in path]
            if not up:
                break
            path.append(up[int(rng.integers(len(up)))])
        if len(path) >= 2:
            rules.append({"rule": "thermo", "cells": [cell(r, c) for r, c in path]})
    pairs = [((r, c), (r, c + 1)) for r in range(9) for c in range(8)] + [((r, c), (r + 1, c)) for r in range(8) for c in range(9)]
    rng.shuffle(pairs)
    white = black = greater = 0
    for a, b in pairs:
        va, vb = grid[a], grid[b]
        if abs(va - vb) == 1 and white < 3:
            rules.append({"rule": "kropki", "color": "white", "cells": [cell(*a), cell(*b)]})
            white += 1
        elif (va == 2 * vb or vb == 2 * va) and black < 3:
            rules.append({"rule": "kropki", "color": "black", "cells": [cell(*a), cell(*b)]})
            black += 1
        elif greater < 3 and abs(va - vb) > 3:
            big, small = (a, b) if va > vb else (b, a)
            rules.append({"rule": "greater", "cells": [cell(*big), cell(*small)]})
            greater += 1
    rules.append({"rule": "even", "cells": [cell(r, c) for r, c in np.argwhere(grid % 2 == 0)[:3].tolist()]})
    rules.append({"rule": "odd", "cells": [cell(r, c) for r, c in np.argwhere(grid % 2 == 1)[-3:].tolist()]})
    rules.append({"rule": "cage", "cells": [cell(6, 0), cell(6, 1), cell(7, 1)]})
    doc = {"size": 9, "title": "anti-knight, thermometers, Kropki, greater, parity fixture",
           "source": "tests/data/rules/make_rules.py", "rules": rules}
    return make_unique(doc, grid, rng, batch=2)


def samurai(rng) -> dict:
    doc = {"layout": "samurai"}
    grid = solution_of(doc, rng)
    out = make_unique(dict(doc, title="samurai fixture", source="tests/data/rules/make_rules.py"), grid, rng, batch=20)
    return out


def main() -> None:
    for name, make, seed in (("killer9", killer, 15), ("thermo9", thermo, 16), ("samurai", samurai, 17)):
        doc = make(np.random.default_rng(seed))
        (HERE / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
        givens = sum(ch.isdigit() for g in doc.get("givens", []) for ch in g.split("=")[-1]) if name == "samurai" \
            else len(doc.get("givens", []))
        print(f"{name}: {givens} givens, {len(doc.get('rules', []))} rules")


if __name__ == "__main__":
    main()
