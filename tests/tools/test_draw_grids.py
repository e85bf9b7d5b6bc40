"""pipeline/tools/draw.py: the grids candidates and violations take (split from test_draw.py,
which is at the module-size limit)."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.tools.draw import candidates, violations


@pytest.mark.parametrize("grid, match", [
    (np.full((4, 4), 2.5), r"grid: an array of digit indices 1\.\.V, rows x columns .* found 2-d float64$"),
    (np.ones((3, 3), int), r"grid is 3x3, the puzzle's canvas is 4x4$"),
    ([[1, 2], [3]], r"grid: not a rectangular array"),
])
@pytest.mark.parametrize("function", [candidates, violations])
def test_candidates_and_violations_refuse_a_grid_that_is_no_digit_array(function, grid, match):
    """An outside probe: a grid of 2.5s was an IndexError in both; a 3x3 grid on a 4x4 puzzle
    an IndexError in candidates and an all-False mask (nothing broken) from violations."""
    with pytest.raises(PuzzleError, match=rf"^{function.__name__}: {match}"):
        function(parse_puzzle("1" + "0" * 15), grid)


def test_whole_floats_are_digits():
    """A grid of whole floats (as a CSV reads) was an IndexError too."""
    puzzle = parse_puzzle("1" + "0" * 15)
    assert int(candidates(puzzle, puzzle.grid.astype(float)).sum()) == 53
    assert int(violations(puzzle, np.ones((4, 4))).sum()) == 16
