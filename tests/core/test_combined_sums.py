"""Combined little-killer sums (pipeline/core/combined_sums.py): the rows ISS's optimizer
would add, that they hold on every solution, and that ``dfsrules`` with them counts as the SAT
engine does."""
from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers.dfs import shape_tables
from pipeline.solvers.dfsrules import search_model
from pipeline.core import combined_sums as combined
from pipeline.core.combined_sums import combined_sum_rows
from little_killer_puzzles import ZERO_SOLUTION, little_killer_puzzle as _puzzle

if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)


def _rows(puzzle) -> list[tuple[np.ndarray, int]]:
    """The combined rows as (cells, total)."""
    made = combined_sum_rows(puzzle, shape_tables(puzzle))
    if made is None:
        return []
    row, cell, digit, coef, rhs, eq = made
    assert eq.all() and np.array_equal(coef, np.asarray(puzzle.board.value_of)[digit])
    return [(np.unique(cell[row == k]), int(rhs[k])) for k in range(rhs.size)]


def test_the_zero_solution_diagonals_combine_four_at_a_time_as_iss_s_do():
    # ISS's optimizer log on this puzzle: two combined sums of 196 over 32 and 31 cells
    rows = _rows(parse_puzzle(ZERO_SOLUTION))
    assert sorted((cells.size, total) for cells, total in rows) == [(31, 196), (32, 196)]
    top_right = {8 * k + 8 for k in range(9)}   # r1c9's diagonal: r1c9, r2c8, ..., r9c1
    assert any(top_right <= set(cells.tolist()) for cells, _ in rows)


def test_the_zero_solution_puzzle_is_proved_impossible():
    # without the combined rows the search passed a million nodes in 20 s without an answer
    found = search_model(build_model(parse_puzzle(ZERO_SOLUTION)), 2, time_limit=30)
    assert (found.count, found.status) == (0, "complete")
    assert found.nodes < 100_000


@pytest.fixture
def every_merge(monkeypatch):
    """Keep every merged sum, whatever its score: random diagonals' totals are rarely extreme, so
    the rows kept by default are few; kept or not, a row is a sum of the clues' own."""
    monkeypatch.setattr(combined, "MIN_SCORE", -10 ** 9)


@pytest.mark.parametrize("seed", range(30))
def test_combined_rows_hold_on_the_solution_and_dfsrules_counts_as_sat(seed, every_merge):
    doc, grid, held = _puzzle(seed)
    puzzle = parse_puzzle(json.dumps(doc))
    rows = _rows(puzzle)
    if held:   # sums of the clues' own rows: each holds on the grid the clues came from
        for cells, total in rows:
            assert int(grid.ravel()[cells].sum()) == total
    model = build_model(puzzle)
    ours = get_solver("dfsrules").count(model, 2, time_limit=60)
    theirs = get_solver("sat").count(model, 2, time_limit=60)
    assert ours.status != "time_limit" and theirs.status != "time_limit"
    assert ours.count == theirs.count
    if ours.count == 1:
        assert np.array_equal(np.asarray(ours.grids[0]), np.asarray(theirs.grids[0]))


def test_the_seeds_reach_merges_and_every_count(every_merge):
    # the parametrised seeds exercise the rows: merges made, and no, one and several solutions
    merged, counts = 0, set()
    for seed in range(30):
        doc, _, _ = _puzzle(seed)
        puzzle = parse_puzzle(json.dumps(doc))
        merged += bool(_rows(puzzle))
        counts.add(min(get_solver("sat").count(build_model(puzzle), 2).count, 2))
    assert merged >= 10 and counts == {0, 1, 2}


def test_a_merge_with_more_slack_than_its_groups_hold_is_dropped(monkeypatch):
    # three diagonals side by side of middling totals merge, but the merged sum's total is far from
    # both of its bounds: such rows cost their propagation at every node and prune little (ISS's
    # LITTLE_KILLER_SNIPES#9: 11.8 million nodes in 27 s without them, 9.8 million in 43 s with)
    middling = {"size": 9, "rules": [
        {"rule": "littlekiller", "sum": 40, "cells": [f"r{k}c{k - 1}" for k in range(2, 10)]},
        {"rule": "littlekiller", "sum": 40, "cells": [f"r{k - 1}c{k}" for k in range(2, 10)]},
        {"rule": "littlekiller", "sum": 40, "cells": [f"r{k}c{k - 2}" for k in range(3, 10)]}]}
    puzzle = parse_puzzle(json.dumps(middling))
    assert _rows(puzzle) == []
    monkeypatch.setattr(combined, "MIN_SCORE", -10 ** 9)
    assert len(_rows(puzzle)) >= 1


def test_no_rows_without_two_related_diagonals():
    # one clue has nothing to merge with; two in opposite corners share too few houses
    one = {"size": 9, "rules": [{"rule": "littlekiller", "sum": 45, "cells": [f"r{k}c{k}" for k in range(1, 10)]}]}
    apart = {"size": 9, "rules": [
        {"rule": "littlekiller", "sum": 20, "cells": ["r1c4", "r2c3", "r3c2", "r4c1"]},
        {"rule": "littlekiller", "sum": 20, "cells": ["r6c9", "r7c8", "r8c7", "r9c6"]}]}
    for doc in (one, apart):
        puzzle = parse_puzzle(json.dumps(doc))
        assert combined_sum_rows(puzzle, shape_tables(puzzle)) is None
