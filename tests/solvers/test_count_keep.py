"""``count(..., keep=K)`` on every in-process engine that declares it: the count goes on to the
limit, only the first K grids are held (the count command keeps one without --list), so a large
``--limit`` does not fill the memory on any engine."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.errors import SolveError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS

KEEPING = [name for name, solver in SOLVERS.items() if solver.count is not None and "keep" in solver.count_options]
#: A 4x4 with one clue: 72 completions (more than HiGHS's split point, so its split parts keep too).
PUZZLE = "1..." "...." "...." "...."


def test_the_counting_engines_that_matter_declare_keep():
    assert {"sat", "highs", "cpsat", "dfs"} <= set(KEEPING)


@pytest.mark.parametrize("name", KEEPING)
def test_a_count_keeps_only_the_grids_asked_for(name):
    solver = SOLVERS[name]
    if solver.available():
        pytest.skip(f"{name}: {solver.available()}")
    model = build_model(parse_puzzle(PUZZLE, box="2x2"))
    every = solver.count(model, 1000)
    assert every.status == "complete" and len(every.grids) == every.count > 1
    one = solver.count(model, 1000, keep=1)
    assert (one.count, one.status, len(one.grids)) == (every.count, "complete", 1)
    assert verify_grid(one.grids[0], model.puzzle)
    assert any(np.array_equal(one.grids[0], g) for g in every.grids)
    none = solver.count(model, 1000, keep=0)
    assert (none.count, none.grids) == (every.count, [])
    capped = solver.count(model, 5, keep=100)
    assert (capped.count, capped.status, len(capped.grids)) == (5, "limit", 5)
    with pytest.raises(SolveError, match=rf"^solver {name}: count: keep must be an integer at least 0, found -1$"):
        solver.count(model, 5, keep=-1)
    for bad in (1.5, True, "1"):   # the registry's one bound for keep, on every engine
        with pytest.raises(SolveError, match=rf"^solver {name}: count: keep must be an integer at least 0, found "):
            solver.count(model, 5, keep=bad)


@pytest.mark.parametrize(("count", "status", "unique"), [(1, "complete", True), (2, "limit", False),
                                                         (0, "complete", False), (1, "time_limit", None)])
def test_a_count_to_2_says_what_it_knows_of_uniqueness(count, status, unique):
    from pipeline.solvers.base import CountResult

    assert CountResult(count, [], status).unique is unique
