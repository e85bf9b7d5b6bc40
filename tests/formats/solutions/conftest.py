"""Fixtures the solution-reader tests share."""
from __future__ import annotations

import numpy as np
import pytest

from solution_files import manifest_of
from pipeline.core.build import build_model
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers.highs import solve


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A reduce export (so clue variables are absent from every file) and its HiGHS answer."""
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    model = build_model(puzzle, "block", "C", "reduce")
    result = solve(model, threads=1)
    assert result.solved
    x = np.rint(result.x)
    order = np.random.default_rng(7).permutation(model.n_cols)  # files list names out of column order
    return puzzle, model, manifest_of(model), x, order, tmp_path_factory.mktemp("layouts")
