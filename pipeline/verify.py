"""Check completed grids against the rules and the clues, and vectors against ``Aeq x = beq``."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .puzzle import Puzzle
from .variants import FAMILIES


@dataclass(frozen=True)
class Verdict:
    ok: bool
    message: str

    def __bool__(self):
        return self.ok


def verify_grid(grid: np.ndarray, puzzle: Puzzle) -> Verdict:
    """Is ``grid`` a completed solution of ``puzzle``? Names the first broken unit or clue."""
    grid = np.asarray(grid)
    n = puzzle.n
    if grid.shape != (n, n):
        return Verdict(False, f"grid is {'x'.join(map(str, grid.shape))}, puzzle is {n}x{n}")
    bad = np.argwhere((grid < 1) | (grid > n))
    if bad.size:
        r, c = bad[0]
        what = "empty" if grid[r, c] == 0 else f"{grid[r, c]}, not a digit 1..{n}"
        return Verdict(False, f"cell ({r + 1}, {c + 1}) is {what}")
    flat = grid.ravel()
    for family, units in puzzle.unit_families():
        values = np.sort(flat[units], axis=1)
        broken = np.flatnonzero((values != np.arange(1, n + 1)).any(axis=1))
        if broken.size:
            u = broken[0]
            vals = flat[units[u]]
            counts = np.bincount(vals, minlength=n + 1)
            digit = int(np.argmax(counts > 1))
            cells = units[u][vals == digit][:2]
            fam = FAMILIES[family]
            where = fam.word + ("" if fam.single else f" {u + 1}")
            a, b = (f"({x // n + 1}, {x % n + 1})" for x in cells)
            return Verdict(False, f"{where} has digit {digit} twice: cells {a} and {b}")
    clue_r, clue_c = np.nonzero(puzzle.grid)
    wrong = np.flatnonzero(grid[clue_r, clue_c] != puzzle.grid[clue_r, clue_c])
    if wrong.size:
        r, c = clue_r[wrong[0]], clue_c[wrong[0]]
        return Verdict(False, f"clue at ({r + 1}, {c + 1}) is {puzzle.grid[r, c]} but the grid has {grid[r, c]}")
    return Verdict(True, f"valid {puzzle.variant} {n}x{n} solution, all {puzzle.n_clues} clues kept")


def residual(model, x: np.ndarray) -> float:
    """Largest violation of ``Aeq x = beq`` and of the bounds for a solver-view vector."""
    x = np.asarray(x, dtype=float)
    eq = np.abs(model.Aeq @ x - model.beq).max(initial=0.0)
    bounds = max(np.max(model.lb - x, initial=0.0), np.max(x - model.ub, initial=0.0))
    return float(max(eq, bounds))
