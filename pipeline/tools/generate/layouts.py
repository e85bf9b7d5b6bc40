"""Jigsaw layouts made around a full grid, for shapes whose random layouts are almost all empty.

:func:`~pipeline.tools.generate.regions.random_regions` draws a layout first and asks the solver
for a grid after; for most shapes most layouts have one (jigsaw 4x4-12x12: 94-100%; jigsaw_x 8x8
and up: 88-100%), but only about 8% of 6x6 ``jigsaw_x`` layouts do, and one seed met 100 empty
layouts in a row (``generate --variant jigsaw_x --size 6 --seed 1156`` said "no full grid").
:func:`grid_first_shape` turns the order round: a grid of the box layout, then exchanges that keep
that grid's digits distinct in every region, so the layout has at least that grid; then
:data:`GRID_FIRST_ROUNDS` - 1 more rounds of a fresh grid of the layout and exchanges that keep
it (one round leaves about 7 of 36 cells out of their box, one layout in 40 the boxes
themselves; four rounds about 11, as many as a layout drawn first, and rounds go on, up to
:data:`GRID_FIRST_MOST_ROUNDS`, while the layout is still the boxes). The grid ``generate`` goes
on with is the last round's fresh grid.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pipeline.core.puzzle import Puzzle
from pipeline.tools.generate.engine import CountingEngine, engine_for
from pipeline.tools.generate.regions import random_regions

__all__ = ["GRID_FIRST_MOST_ROUNDS", "GRID_FIRST_ROUNDS", "GRID_FIRST_SWAPS_PER_CELL", "grid_first_shape"]

#: exchange attempts per cell when regions are made around a grid: most are refused (the cell
#: taken back must hold the digit given away), so more are tried than the layout-first default.
GRID_FIRST_SWAPS_PER_CELL = 24
#: rounds of (a fresh grid of the layout, exchanges that keep it).
GRID_FIRST_ROUNDS = 4
#: rounds at most while the layout is still the boxes.
GRID_FIRST_MOST_ROUNDS = 16


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two region maps of ``n`` regions each cut the grid alike (ids may differ)."""
    n = int(a.max()) + 1
    return np.unique(a.ravel() * n + b.ravel()).size == n


def grid_first_shape(make_shape: Callable[[np.ndarray], Puzzle], n: int, rng: np.random.Generator,
                     deadline: float | None = None) -> tuple[Puzzle, CountingEngine, np.ndarray] | None:
    """A shape with random regions that has a grid, its counting engine and a full grid of it.

    Parameters
    ----------
    make_shape : callable
        ``regions -> Puzzle``: the clue-less shape (variant, rules) with these ``(n, n)`` regions.
    n : int
        Grid side.
    rng : numpy.random.Generator
        The only source of randomness.
    deadline : float, optional
        A ``time.perf_counter()`` value for the solver calls and the exchanges (:class:`OutOfTime`
        past it).

    Returns
    -------
    tuple of (Puzzle, CountingEngine, numpy.ndarray), or None
        None when the box layout itself has no grid (the regions start from the boxes).
    """
    boxes = random_regions(n, rng, 0)
    shape = make_shape(boxes)
    engine = engine_for(shape, deadline=deadline)
    grid = engine.random_full_grid(rng, deadline=deadline)
    regions = boxes
    for done in range(1, GRID_FIRST_MOST_ROUNDS + 1):
        if grid is None:   # the boxes have no grid (a layout with ``grid`` always has one)
            return None
        regions = random_regions(n, rng, GRID_FIRST_SWAPS_PER_CELL, grid=grid, start=regions, deadline=deadline)
        shape = make_shape(regions)
        engine = engine_for(shape, deadline=deadline)
        grid = engine.random_full_grid(rng, deadline=deadline)
        if done >= GRID_FIRST_ROUNDS and not _same_partition(regions, boxes):
            break
    return None if grid is None else (shape, engine, grid)
