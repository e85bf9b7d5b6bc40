"""The vectorised kernels (pipeline.batch.kernels) agree with the definitions."""
from __future__ import annotations

import numpy as np
from batch_helpers import DUPLICATE
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles import shuffled_sudoku
from pipeline.batch import kernels
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle, parse_puzzle
from pipeline.core.verify import verify_grid

SHAPES = [(2, 2), (2, 3), (3, 3), (3, 4), (4, 4)]


@settings(max_examples=60, deadline=None)
@given(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**32 - 1), damage=st.sampled_from(["none", "swap", "set"]))
def test_verify_solutions_agrees_with_verify_grid(shape, seed, damage):
    h, w = shape
    n = h * w
    rng = np.random.default_rng(seed)
    grid = shuffled_sudoku(h, w, rng)
    clues = np.where(rng.random(grid.shape) < 0.3, grid, 0)
    candidate = grid.copy()
    if damage == "swap":
        (r1, c1), (r2, c2) = rng.integers(0, n, (2, 2))
        candidate[r1, c1], candidate[r2, c2] = candidate[r2, c2], candidate[r1, c1]
    elif damage == "set":
        r, c = rng.integers(0, n, 2)
        candidate[r, c] = rng.integers(0, n + 1)
    puzzle = Puzzle(clues, h, w)
    template = Puzzle(np.zeros_like(clues), h, w)
    ok = kernels.verify_solutions(candidate.ravel()[None], clues.ravel()[None], template)[0]
    assert ok == verify_grid(candidate, puzzle).ok


def test_clue_conflicts_match_the_parser():
    template = Puzzle(np.zeros((9, 9), dtype=int), 3, 3)
    texts = [DUPLICATE, "1" + "." * 8 + "1" + "." * 71, "1" + "." * 9 + "1" + "." * 70, "." * 81]
    grids, ok = kernels.fast_grids(texts, 9)
    assert ok.all()
    conflicts = kernels.clue_conflicts(grids, template)
    for text, conflict in zip(texts, conflicts):
        try:
            parse_puzzle(text)
            assert not conflict
        except PuzzleError:
            assert conflict


