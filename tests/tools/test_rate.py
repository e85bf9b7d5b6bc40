"""rate: replaying the steps reaches the unique solution; no step removes a candidate the solution
uses or places a digit it lacks (solution from pipeline.solve.solve, not from the rater)."""
import numpy as np
import pytest

from pipeline.build import build_model
from pipeline.generate import generate
from pipeline.puzzle import parse_puzzle
from pipeline.rate import rate, replay
from pipeline.solve import solve
from tests.conftest import data_missing_reason, DATA_DIR


def check_invariants(puzzle):
    solution = solve(build_model(puzzle)).grid
    rating = rate(puzzle)
    assert rating.solved
    grid, cand = replay(puzzle, rating.steps)
    assert (grid == solution).all()
    for s in rating.steps:
        if s.digit is not None:
            r, c = s.cells[0]
            assert solution[r, c] == s.digit, s.text()
        for r, c, d in s.removed:
            assert solution[r, c] != d, s.text()
    assert rating.counts["guess"] == rating.guesses
    return rating


@pytest.mark.parametrize("shape", [(None, 4, "classic"), ("2x3", None, "classic"), (None, 9, "x"),
                                   (None, 6, "jigsaw"), (None, 7, "latin")])
def test_invariants_on_generated(shape):
    box, size, variant = shape
    for g in generate(box=box, size=size, variant=variant, seed=7, count=3):
        check_invariants(g.puzzle)


@pytest.mark.skipif(data_missing_reason() is not None, reason=str(data_missing_reason()))
def test_invariants_on_norvig_top95():
    lines = (DATA_DIR / "sets" / "9x9_norvig_top95.txt").read_text().split()
    labels = [check_invariants(parse_puzzle(x)).label for x in lines[:40]]
    assert set(labels) <= {"easy", "medium", "hard", "expert"}


def test_techniques_beyond_singles_are_used():
    counts = {}
    for g in generate(size=9, seed=1, count=8):
        for k, v in rate(g.puzzle).counts.items():
            counts[k] = counts.get(k, 0) + v
    assert counts["naked single"] > 0 and counts["hidden single"] > 0


def test_no_solution_is_reported():
    p = parse_puzzle("12.." "..3." "...." "....", box="2x2")
    grid = np.array(p.grid)
    r = rate(parse_puzzle("1234" "...." "...." "2...", box="2x2"))
    assert r.solved or r.label == "no solution"
    assert grid.shape == (4, 4)
