"""The per-shape HiGHS solver of batch (pipeline.batch.highs_shape)."""
from __future__ import annotations

import numpy as np

from oracles import shuffled_sudoku
from pipeline.batch.config import SolveOptions
from pipeline.batch.highs_shape import ShapeSolver
from pipeline.core.puzzle import Puzzle


def test_decode_flags_fractional_and_ambiguous_vectors():
    template = Puzzle(np.zeros((4, 4), dtype=int), 2, 2)
    solver = ShapeSolver(template, SolveOptions())
    grid = shuffled_sudoku(2, 2, np.random.default_rng(1))
    good = np.zeros(solver.n_vars)
    good[solver.pos[np.arange(16), grid.ravel() - 1]] = 1.0
    fractional = good.copy()
    fractional[solver.pos[0, 0]] = 0.5
    two_digits = good.copy()
    two_digits[solver.pos[5, grid.ravel()[5] % 4]] = 1.0  # cell (2, 2) also gets a second digit
    grids, why = solver.decode(np.stack([good, fractional, two_digits]))
    assert np.array_equal(grids[0], grid.ravel()) and why[0] is None
    assert why[1].startswith("x is not integral")
    assert why[2] == "decode: cell (2, 2) holds 2 digits"


