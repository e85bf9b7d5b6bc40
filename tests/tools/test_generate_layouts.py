"""Jigsaw layouts made around a grid (pipeline/tools/generate/layouts.py) and the exchanges that
keep a grid's digits distinct (``random_regions(grid=...)``)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import ndimage

from oracles import is_valid_solution
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle, default_box
from pipeline.core.verify import verify_grid
from pipeline.tools.generate import generate, puzzles, random_regions, ruled
from pipeline.tools.generate.layouts import _same_partition, grid_first_shape
from pipeline.solvers.highs import count_solutions as highs_count
from pipeline.core.build import build_model


def _solves(puzzle: Puzzle, grid: np.ndarray) -> bool:
    """The oracle's units and clues, and the project's verifier for the rules."""
    return (is_valid_solution(grid, puzzle.h, puzzle.w, puzzle.variant, puzzle.regions, puzzle.grid)
            and bool(verify_grid(grid, puzzle)))


def _connected_partition(regions: np.ndarray) -> bool:
    n = regions.shape[0]
    return (sorted(np.bincount(regions.ravel(), minlength=n).tolist()) == [n] * n
            and all(ndimage.label(regions == r)[1] == 1 for r in range(n)))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([4, 6, 8, 9]))
def test_exchanges_keep_the_grids_digits_distinct(seed, n):
    h, w = default_box(n)
    rng = np.random.default_rng(seed)
    # a boxed grid: the closed-form pattern, rows shifted within the bands
    r, c = np.indices((n, n))
    grid = (w * (r % h) + r // h + c) % n + 1
    assert all(len(set(grid[random_regions(n, rng, 0) == k].tolist())) == n for k in range(n))
    regions = random_regions(n, rng, 24, grid=grid)
    assert _connected_partition(regions)
    assert all(sorted(grid[regions == k].tolist()) == list(range(1, n + 1)) for k in range(n))
    again = random_regions(n, rng, 24, grid=grid, start=regions)
    assert _connected_partition(again)
    assert all(len(set(grid[again == k].tolist())) == n for k in range(n))


def test_same_partition_ignores_the_ids():
    a = np.array([[0, 0], [1, 1]])
    assert _same_partition(a, 1 - a)
    assert not _same_partition(a, a.T)


@pytest.mark.parametrize("seed", [0, 7])
def test_grid_first_shape_has_the_grid_it_returns(seed):
    def shape(regions):
        return Puzzle(np.zeros((6, 6), dtype=np.int64), 2, 3, "jigsaw_x", regions)

    made, engine, grid = grid_first_shape(shape, 6, np.random.default_rng(seed))
    assert _connected_partition(made.regions)
    assert not _same_partition(made.regions, random_regions(6, np.random.default_rng(0), 0))
    assert _solves(made, grid)
    assert engine.count(grid, 2) == 1


def test_the_seed_whose_random_layouts_were_all_empty():
    """``generate --variant jigsaw_x --size 6 --seed 1156`` met 100 layouts without a grid and
    said "no full grid"; its puzzle now comes from a layout made around a grid."""
    g = next(generate(size=6, variant="jigsaw_x", seed=1156))
    assert _connected_partition(g.puzzle.regions)
    assert _solves(g.puzzle, g.solution)
    assert highs_count(build_model(g.puzzle), 2).count == 1


def test_every_layout_empty_goes_grid_first(monkeypatch):
    monkeypatch.setattr(puzzles, "LAYOUT_FIRST_TRIES", 0)
    g = next(generate(size=6, variant="jigsaw", seed=3))
    assert _connected_partition(g.puzzle.regions)
    assert highs_count(build_model(g.puzzle), 2).count == 1
    monkeypatch.setattr(ruled, "FULL_GRID_TRIES", 0)
    g = next(generate(size=6, variant="jigsaw", seed=3, rules=[{"rule": "antiking"}]))
    assert _connected_partition(g.puzzle.regions) and g.puzzle.rules[0].kind == "antiking"
    assert _solves(g.puzzle, g.solution)
    assert highs_count(build_model(g.puzzle), 2).count == 1
    # a 6x6 X grid of boxes with anti-king has no grid: the error stays
    with pytest.raises(PuzzleError, match="no full grid of jigsaw_x 6x6 with antiking"):
        next(generate(size=6, variant="jigsaw_x", seed=3, rules=[{"rule": "antiking"}]))


def test_drawing_the_regions_stops_at_the_deadline(monkeypatch):
    """A 64x64's 24,576 exchanges took 0.6-2.2 s without a look at ``generate --time-limit``;
    they now end in OutOfTime once the deadline passed, and generate hands its deadline to them
    (layout first and grid first)."""
    import time

    from pipeline.tools.generate.clock import OutOfTime
    from pipeline.tools.generate import layouts

    with pytest.raises(OutOfTime, match="jigsaw regions"):
        random_regions(16, np.random.default_rng(1), deadline=time.perf_counter())
    later = random_regions(16, np.random.default_rng(1), deadline=time.perf_counter() + 600)
    assert (later == random_regions(16, np.random.default_rng(1))).all()   # a deadline met changes nothing
    seen = []

    def noting(*args, deadline=None, **kw):
        seen.append(deadline)
        return random_regions(*args, **kw)
    monkeypatch.setattr(puzzles, "random_regions", noting)
    monkeypatch.setattr(layouts, "random_regions", noting)
    assert len(list(generate(size=6, variant="jigsaw", seed=3, time_limit=600))) == 1
    assert seen and all(d is not None for d in seen)
    monkeypatch.setattr(puzzles, "LAYOUT_FIRST_TRIES", 0)   # grid first: its exchanges around a grid
    seen.clear()
    assert len(list(generate(size=6, variant="jigsaw", seed=3, time_limit=600))) == 1
    assert seen[1:] and all(d is not None for d in seen[1:])   # the first is the boxes (no exchange)


def test_a_ruled_jigsaw_draws_its_regions_within_the_deadline(monkeypatch):
    """ruled.py drew a jigsaw's regions with no deadline (puzzles.py passes its own): 'generate
    --rule ... --variant jigsaw --time-limit T' finished the exchanges past T."""
    import time

    from pipeline.tools.generate.clock import OutOfTime

    with pytest.raises(OutOfTime, match="jigsaw regions"):
        ruled.rule_shape(16, 4, 4, "jigsaw", [{"rule": "antiknight"}], np.random.default_rng(1),
                         deadline=time.perf_counter())
    seen = []

    def noting(*args, deadline=None, **kw):
        seen.append(deadline)
        return random_regions(*args, **kw)
    monkeypatch.setattr(ruled, "random_regions", noting)
    assert len(list(generate(size=6, variant="jigsaw", seed=3, rules=[{"rule": "antiknight"}], time_limit=600))) == 1
    assert seen and all(d is not None for d in seen)
