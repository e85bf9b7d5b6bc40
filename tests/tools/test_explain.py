"""explain: minimal conflict sets really are infeasible and minimal (brute removal); the fewest
removals make the puzzle solvable; counts of the tdoku test file agree."""
import csv

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.explain import explain
from pipeline.generate import count_up_to, generate
from pipeline.puzzle import Puzzle
from pipeline.errors import PuzzleError
from tests.conftest import data_missing_reason, DATA_DIR


def only(p, clues):
    grid = np.zeros_like(np.asarray(p.grid))
    for r, c, d in clues:
        grid[r, c] = d
    return Puzzle(grid, p.h, p.w, p.variant, p.regions)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), shape=st.sampled_from([(None, 9, "classic"), ("2x3", None, "classic"),
                                                          (None, 6, "jigsaw")]))
def test_conflict_set_is_infeasible_and_minimal(seed, shape):
    box, size, variant = shape
    g = next(generate(box=box, size=size, variant=variant, seed=seed))
    p, rng = g.puzzle, np.random.default_rng(seed)
    for cell in rng.permutation(np.flatnonzero(p.grid)):
        for d in rng.permutation(p.n) + 1:
            grid = np.array(p.grid)
            grid.flat[cell] = d
            try:
                q = Puzzle(grid, p.h, p.w, p.variant, p.regions)
            except PuzzleError:
                continue
            if count_up_to(q, 1) == 0:
                break
        else:
            continue
        break
    else:
        pytest.skip("no single change made it infeasible without breaking a rule directly")
    e = explain(q)
    assert e.status == "infeasible" and e.conflict
    assert count_up_to(only(q, e.conflict), 1) == 0
    for i in range(len(e.conflict)):
        assert count_up_to(only(q, e.conflict[:i] + e.conflict[i + 1:]), 1) == 1
    assert len(e.remove) == 1  # one changed clue: removing one clue suffices and is optimal
    kept = [x for x in zip(*np.nonzero(q.grid), q.grid[np.nonzero(q.grid)])]
    kept = [(int(r), int(c), int(d)) for r, c, d in kept if (r, c, d) not in set(e.remove)]
    assert count_up_to(only(q, kept), 1) == 1


def test_invalid_and_multiple_and_unique():
    e = explain("11" + "." * 79)
    assert e.status == "invalid" and "twice" in e.message
    g = next(generate(size=9, seed=9))
    assert explain(g.puzzle).status == "unique"
    grid = np.array(g.puzzle.grid)
    grid.flat[np.flatnonzero(grid)[:3]] = 0
    p = Puzzle(grid, 3, 3)
    e = explain(p)
    assert e.status == "multiple" and e.count >= 2 and e.differing_cells
    added = np.array(grid)
    for r, c, d in e.add:
        added[r, c] = d
    assert count_up_to(Puzzle(added, 3, 3), 2) == 1


@pytest.mark.skipif(data_missing_reason() is not None, reason=str(data_missing_reason()))
def test_tdoku_counts():
    with open(DATA_DIR / "sets" / "9x9_tdoku_test_counts.csv") as f:
        rows = list(csv.DictReader(f))
    zero = 0
    for row in rows:
        want = int(row["n_solutions"])
        e = explain(row["puzzle"], cap=max(want, 1) + 1)
        if want == 0:
            zero += 1
            assert e.status in ("invalid", "infeasible")
        else:
            assert e.count == want
            assert e.status == ("unique" if want == 1 else "multiple")
    assert zero == 10
