"""Little killer puzzles for the combined sums' tests (tests/core/test_combined_sums.py,
tests/core/test_clauses_combined.py): ISS's 'Zero solution: Little Killer' and random 9x9 with
diagonals of a random solution."""
from __future__ import annotations

import numpy as np

from pipeline.core.combined_sums import MIN_RELATED

#: ISS's 'Zero solution: Little Killer' (its collection: no solution; ISS proves it in 832 guesses)
ZERO_SOLUTION = (".LittleKiller~49~R1C9.LittleKiller~49~R1C8.LittleKiller~49~R9C2.LittleKiller~49~R9C3"
                 ".LittleKiller~49~R7C9.LittleKiller~49~R1C1.LittleKiller~49~R2C1.LittleKiller~49~R3C1")


def _diagonals(n: int) -> list[list[tuple[int, int]]]:
    """Every diagonal of at least MIN_RELATED cells, both ways."""
    lines = []
    for start in range(-(n - 1), n):
        down = [(r, r + start) for r in range(n) if 0 <= r + start < n]
        up = [(r, start - r + n - 1) for r in range(n) if 0 <= start - r + n - 1 < n]
        lines += [line for line in (down, up) if len(line) >= MIN_RELATED]
    return lines


def _solution(rng) -> np.ndarray:
    """A shuffled solved 9x9."""
    g = np.array([[(3 * (r % 3) + r // 3 + c) % 9 for c in range(9)] for r in range(9)]) + 1
    rows = np.concatenate([band * 3 + rng.permutation(3) for band in rng.permutation(3)])
    cols = np.concatenate([stack * 3 + rng.permutation(3) for stack in rng.permutation(3)])
    return rng.permutation(np.arange(1, 10))[g[rows][:, cols] - 1]


def little_killer_puzzle(seed: int) -> tuple[dict, np.ndarray, bool]:
    """A 9x9 with 4-9 little killers of a random solution (one total off by one now and then: often
    no solution) and 18-30 of its givens; the document, the solution, and whether it is held."""
    rng = np.random.default_rng(seed)
    grid = _solution(rng)
    lines = _diagonals(9)
    picked = rng.choice(len(lines), size=int(rng.integers(4, 10)), replace=False)
    lie = rng.random() < 0.25
    rules = []
    for k, index in enumerate(picked.tolist()):
        cells = lines[index]
        total = int(sum(grid[r, c] for r, c in cells)) + (1 if lie and k == 0 else 0)
        rules.append({"rule": "littlekiller", "sum": total, "cells": [f"r{r + 1}c{c + 1}" for r, c in cells]})
    givens = np.zeros(81, dtype=int)
    shown = rng.choice(81, size=int(rng.integers(18, 31)), replace=False)
    givens[shown] = grid.ravel()[shown]
    doc = {"size": 9, "givens": "".join(str(v) if v else "." for v in givens), "rules": rules}
    return doc, grid, not lie
