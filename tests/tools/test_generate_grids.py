"""generate's full grids for large shapes (pipeline/tools/generate/grids.py): every exchange keeps
every unit whole on any box shape, the row and column exchanges leave the pattern's class (which
digit exchanges alone never do), seeds reproduce, and generate takes this path from
PATTERN_MIN_SIDE on without the SAT engine's search."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.core.puzzle import Puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers.pattern import base_grid
from pipeline.tools.generate import grids, puzzles
from pipeline.tools.generate.engine import ShapeEngine
from pipeline.tools.generate.grids import (PATTERN_MIN_SIDE, digit_pair_round, line_pair_round, mixed_pattern_grid,
                                           pattern_grid_fits)

BOXES = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 5), (4, 3), (4, 4), (3, 5), (5, 5), (6, 6), (4, 9)]


def _empty(n, h, w, variant="classic"):
    return Puzzle(np.zeros((n, n), dtype=np.int64), h, w, variant)


@settings(max_examples=40, deadline=None)
@given(box=st.sampled_from(BOXES), seed=st.integers(0, 2**32), rounds=st.integers(0, 6))
def test_a_mixed_grid_keeps_every_row_column_and_box_whole(box, seed, rounds):
    h, w = box
    n = h * w
    grid = mixed_pattern_grid(n, h, w, np.random.default_rng(seed), rounds=rounds)
    verdict = verify_grid(grid, _empty(n, h, w))
    assert verdict.ok, verdict.message


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 40), seed=st.integers(0, 2**32))
def test_a_mixed_latin_square_keeps_every_row_and_column_whole(n, seed):
    grid = mixed_pattern_grid(n, 1, n, np.random.default_rng(seed), latin=True, rounds=8)
    assert (np.sort(grid, axis=0) == np.arange(1, n + 1)[:, None]).all()
    assert (np.sort(grid, axis=1) == np.arange(1, n + 1)[None, :]).all()


@pytest.mark.parametrize("h, w", [(2, 3), (3, 3), (3, 4)])
def test_each_exchange_alone_keeps_the_grid_valid_and_changes_it(h, w):
    n = h * w
    rng = np.random.default_rng(7)
    start = base_grid(n, h, w)
    moves = {"rows": lambda g: line_pair_round(g, h, rng), "columns": lambda g: line_pair_round(g.T, w, rng).T,
             "digits": lambda g: digit_pair_round(g, h, w, rng)}
    for name, move in moves.items():
        grid = start
        for _ in range(10):
            grid = move(grid)
            assert verify_grid(grid + 1, _empty(n, h, w)).ok, name
        assert (grid != start).any(), f"ten rounds of {name} exchanges changed nothing"


def _unavoidable_rectangles(grid, h, w):
    """Cells (r1, c1), (r1, c2), (r2, c1), (r2, c2) in two boxes holding a b / b a."""
    n = grid.shape[0]
    found = 0
    for r1, r2 in itertools.combinations(range(n), 2):
        for c1, c2 in itertools.combinations(range(n), 2):
            if grid[r1, c1] == grid[r2, c2] and grid[r1, c2] == grid[r2, c1]:
                found += len({(r // h, c // w) for r in (r1, r2) for c in (c1, c2)}) == 2
    return found


def test_row_and_column_exchanges_leave_the_pattern_class_digit_exchanges_alone_do_not():
    # the transformed pattern has no unavoidable rectangle and digit exchanges keep it so; random
    # grids have about 11 (SAT grids 10.9 on average, mixed grids 11.9: grids.py's docstring)
    digits_only, mixed = [], []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        grid = base_grid(9, 3, 3)
        for _ in range(20):
            grid = digit_pair_round(grid, 3, 3, rng)
        digits_only.append(_unavoidable_rectangles(grid, 3, 3))
        mixed.append(_unavoidable_rectangles(mixed_pattern_grid(9, 3, 3, rng) - 1, 3, 3))
    assert sum(digits_only) == 0
    assert min(mixed) > 0 and 8 <= np.mean(mixed) <= 16, mixed


def test_the_seed_decides_the_grid():
    one = mixed_pattern_grid(16, 4, 4, np.random.default_rng(5))
    assert (one == mixed_pattern_grid(16, 4, 4, np.random.default_rng(5))).all()
    assert (one != mixed_pattern_grid(16, 4, 4, np.random.default_rng(6))).any()


def test_which_shapes_take_the_mixed_pattern():
    assert pattern_grid_fits(PATTERN_MIN_SIDE, "classic", False)
    assert pattern_grid_fits(64, "latin", False)
    assert not pattern_grid_fits(PATTERN_MIN_SIDE - 1, "classic", False)
    assert not pattern_grid_fits(49, "x", False)            # the pattern breaks the diagonals
    assert not pattern_grid_fits(49, "jigsaw", True)


def test_generate_s_large_full_grid_comes_from_the_pattern_without_a_search(monkeypatch):
    def no_search(self, rng, deadline=None):
        raise AssertionError("the SAT search ran for a large grid")
    monkeypatch.setattr(ShapeEngine, "random_full_grid", no_search)
    monkeypatch.setattr(grids, "PATTERN_MIN_SIDE", 12)      # a 12x12 stands in for 49x49 here
    shape, _, solution = puzzles._full_grid(12, 3, 4, "classic", np.random.default_rng(3))
    assert verify_grid(solution, shape).ok
    monkeypatch.setattr(grids, "PATTERN_MIN_SIDE", 13)
    with pytest.raises(AssertionError, match="SAT search ran"):
        puzzles._full_grid(12, 3, 4, "classic", np.random.default_rng(3))


def test_a_large_puzzle_by_singles_needs_no_counting_engine(monkeypatch):
    # a 64x64's SAT engine took 1.5 GB to re-prove what singles had already proved
    from pipeline.core.propagate import solved_by_singles

    monkeypatch.setattr(grids, "PATTERN_MIN_SIDE", 12)

    def no_engine(*args, **kwargs):
        raise AssertionError("a counting engine was built")
    monkeypatch.setattr(puzzles, "engine_for", no_engine)
    made = puzzles.generate_one(12, 3, 4, "classic", np.random.default_rng(8), singles=True)
    assert solved_by_singles(made.puzzle) and verify_grid(made.solution, made.puzzle).ok
    assert 0 < made.puzzle.n_clues < 144


def test_a_large_minimal_puzzle_builds_its_engine_when_the_proofs_start(monkeypatch):
    from pipeline.tools.generate import count_up_to

    monkeypatch.setattr(grids, "PATTERN_MIN_SIDE", 12)
    made = puzzles.generate_one(12, 3, 4, "classic", np.random.default_rng(8), minimal=True)
    assert count_up_to(made.puzzle, 2) == 1 and made.minimal is True
    assert verify_grid(made.solution, made.puzzle).ok


def test_the_check_without_an_engine_refuses_clues_singles_do_not_solve():
    from pipeline.core.errors import PuzzleError

    solution = mixed_pattern_grid(9, 3, 3, np.random.default_rng(2))
    few = solution.copy()
    few.flat[np.random.default_rng(2).permutation(81)[:70]] = 0
    with pytest.raises(PuzzleError, match="internal error: 9x9 clue set not unique"):
        puzzles._check_singles_proof(Puzzle(few, 3, 3), solution, None, None)
    puzzles._check_singles_proof(Puzzle(solution, 3, 3), solution, None, None)   # a full grid passes
