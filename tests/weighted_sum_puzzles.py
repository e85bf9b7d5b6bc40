"""Random 9x9 puzzles with weighted sums and extra cells for the weighted running sums' tests
(tests/core/test_clauses_weighted.py): ISS ``Sum`` rows with weights of either sign over grid
cells and extra cells (``V1..V3``), and an arrow whose circle is an extra cell, drawn on a random
solution with some of its givens."""
from __future__ import annotations

import numpy as np

from little_killer_puzzles import _solution

#: The weights drawn (ISS writes ``10 A + C`` as -10 and -1 against a line of 1s).
WEIGHTS = np.array([-10, -3, -2, -1, 1, 1, 1, 2, 5])


def weighted_sum_puzzle(seed: int) -> tuple[dict, np.ndarray, np.ndarray]:
    """A 9x9 with three extra cells ``V1..V3``, 2-4 weighted sums over 2-6 grid cells and 1-2
    extra cells, an arrow from ``V1`` over two grid cells, and 24-35 givens, all of a random
    solution and random extra digits (one total off by one now and then: often no solution);
    the document, the grid and the extra cells' digits."""
    rng = np.random.default_rng(seed)
    grid = _solution(rng)
    flat = grid.ravel()
    pair = rng.choice(81, size=2, replace=False)
    while flat[pair].sum() > 9:
        pair = rng.choice(81, size=2, replace=False)
    extra = np.concatenate([[flat[pair].sum()], rng.integers(1, 10, size=2)])
    names = [f"r{c // 9 + 1}c{c % 9 + 1}" for c in range(81)] + ["V1", "V2", "V3"]
    values = np.concatenate([flat, extra])
    rules: list[dict] = [{"rule": "arrow", "cells": ["V1", names[pair[0]], names[pair[1]]]}]
    for _ in range(int(rng.integers(2, 5))):
        cells = np.concatenate([rng.choice(81, size=int(rng.integers(2, 7)), replace=False),
                                81 + rng.choice(3, size=int(rng.integers(1, 3)), replace=False)])
        weights = rng.choice(WEIGHTS, size=cells.size)
        total = int((weights * values[cells]).sum())
        rules.append({"rule": "sum", "sum": total, "cells": [names[c] for c in cells], "weights": weights.tolist()})
    if rng.random() < 0.25:
        rules[-1]["sum"] += 1 if rng.random() < 0.5 else -1
    givens = np.zeros(81, dtype=int)
    shown = rng.choice(81, size=int(rng.integers(24, 36)), replace=False)
    givens[shown] = flat[shown]
    doc = {"size": 9, "givens": "".join(str(v) if v else "." for v in givens), "extra": [{"name": "V", "size": 3}],
           "rules": rules}
    return doc, grid, extra
