"""Shapes and patterns of generated puzzles: jigsaw regions, the seed-004 grid transformations,
the cell orbits of a clue pattern's symmetry.

Jigsaw regions start from the boxes and take random boundary swaps that keep every region
connected and of N cells; given a full grid, the swaps also keep its digits distinct in every
region (a layout that grid solves, never an infeasible one).
"""
from __future__ import annotations

import time

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import default_box
from pipeline.tools.generate.clock import OutOfTime

__all__ = ["SWAPS_PER_CELL", "SYMMETRIES", "random_regions", "symmetry_orbits", "transform_grid"]

SYMMETRIES = ("none", "rot180", "rot90", "mirror", "diagonal")
#: boundary swaps tried per cell when making jigsaw regions (enough to leave the box shapes).
SWAPS_PER_CELL = 6


def _is_connected(mask: np.ndarray) -> bool:
    from scipy import ndimage  # only jigsaw generation needs it: kept off every command's start-up

    return ndimage.label(mask)[1] == 1


def _neighbours(mask: np.ndarray) -> np.ndarray:
    """Cells orthogonally adjacent to ``mask`` (outside it)."""
    nb = np.zeros_like(mask)
    nb[1:] |= mask[:-1]
    nb[:-1] |= mask[1:]
    nb[:, 1:] |= mask[:, :-1]
    nb[:, :-1] |= mask[:, 1:]
    return nb & ~mask


def random_regions(n: int, rng: np.random.Generator, moves_per_cell: int = SWAPS_PER_CELL,
                   grid: np.ndarray | None = None, start: np.ndarray | None = None,
                   deadline: float | None = None) -> np.ndarray:
    """N connected regions of N cells: the boxes of :func:`default_box` after random exchanges.

    An exchange moves a cell ``a`` of region A into an adjacent region B and a cell ``b`` of B,
    adjacent to what is left of A, into A; it is kept only when both regions stay connected, so
    sizes and connectivity hold throughout. (Swapping two adjacent cells alone never keeps a
    rectangle connected, which is why ``b`` is chosen separately.) With ``grid``, ``b`` must
    hold ``a``'s digit, so each region keeps the digits it had: boxes of a valid boxed grid stay
    regions that grid fills.

    Parameters
    ----------
    n : int
        Grid side.
    rng : numpy.random.Generator
        The only source of randomness (same generator state, same regions).
    moves_per_cell : int
        Exchange attempts per cell.
    grid : numpy.ndarray, optional
        A full ``(n, n)`` grid whose starting regions hold distinct digits; the regions returned
        then hold distinct digits of it too.
    start : numpy.ndarray, optional
        ``(n, n)`` connected regions of ``n`` cells to start from instead of the boxes.
    deadline : float, optional
        A ``time.perf_counter()`` value looked at before each exchange: a 64x64's 24,576 took
        0.6-2.2 s, past ``generate --time-limit``.

    Returns
    -------
    numpy.ndarray
        ``(n, n)`` region numbers ``0..n-1``.

    Raises
    ------
    OutOfTime
        ``deadline`` passed before the exchanges were done.

    Examples
    --------
    >>> r = random_regions(9, np.random.default_rng(0))
    >>> sorted(np.bincount(r.ravel()).tolist()) == [9] * 9
    True
    >>> g = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    >>> r = random_regions(4, np.random.default_rng(0), grid=g)
    >>> all(sorted(g[r == k].tolist()) == [1, 2, 3, 4] for k in range(4))
    True
    """
    h, w = default_box(n)
    if start is None:
        regions = (np.arange(n)[:, None] // h) * (n // w) + np.arange(n)[None, :] // w
    else:
        regions = np.array(start, dtype=np.int64)
    if n < 3:
        return regions
    cells = np.arange(n * n).reshape(n, n)
    pairs = np.concatenate([np.stack([cells[:, :-1].ravel(), cells[:, 1:].ravel()], 1),
                            np.stack([cells[:-1].ravel(), cells[1:].ravel()], 1)])
    pairs = np.concatenate([pairs, pairs[:, ::-1]])
    flat = regions.ravel()  # a view: writes go to ``regions``
    same_digit = None if grid is None else np.asarray(grid).ravel()
    for a, other in pairs[rng.integers(0, len(pairs), size=moves_per_cell * n * n)]:
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfTime("the time limit was reached while jigsaw regions were drawn")
        ra, rb = flat[a], flat[other]
        if ra == rb:
            continue
        flat[a] = rb
        allowed = (_neighbours(regions == ra) & (regions == rb)).ravel() & (cells.ravel() != a)
        if same_digit is not None:
            allowed &= same_digit == same_digit[a]
        options = np.flatnonzero(allowed)
        if options.size:
            b = options[rng.integers(options.size)]
            flat[b] = ra
            if _is_connected(regions == ra) and _is_connected(regions == rb):
                continue
            flat[b] = rb
        flat[a] = ra
    return regions


def transform_grid(grid: np.ndarray, h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Seed-004 transformations: rows within bands, columns within stacks, bands, stacks, digits.

    Parameters
    ----------
    grid : numpy.ndarray
        A full ``(N, N)`` grid.
    h, w : int
        Box shape (1, 1 for a Latin square).
    rng : numpy.random.Generator
        The only source of randomness.

    Examples
    --------
    >>> g = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    >>> t = transform_grid(g, 2, 2, np.random.default_rng(1))
    >>> sorted(set(map(tuple, np.sort(t, axis=1).tolist())))
    [(1, 2, 3, 4)]
    """
    n = grid.shape[0]
    bands = rng.permutation(n // h)
    rows = np.concatenate([b * h + rng.permutation(h) for b in bands])
    stacks = rng.permutation(n // w)
    cols = np.concatenate([s * w + rng.permutation(w) for s in stacks])
    relabel = np.concatenate([[0], rng.permutation(n) + 1])
    return relabel[grid[np.ix_(rows, cols)]]


def symmetry_orbits(n: int, symmetry: str) -> list[np.ndarray]:
    """Cell orbits (row-major cell numbers) under ``symmetry``; clues go orbit by orbit.

    Parameters
    ----------
    n : int
        Grid side.
    symmetry : str
        One of :data:`SYMMETRIES`.

    Returns
    -------
    list of numpy.ndarray
        A partition of ``0..n*n-1``.

    Raises
    ------
    PuzzleError
        Unknown symmetry.
    """
    idx = np.arange(n * n).reshape(n, n)
    images = {"none": [], "rot180": [idx[::-1, ::-1]], "rot90": [np.rot90(idx, k) for k in (1, 2, 3)],
              "mirror": [idx[:, ::-1]], "diagonal": [idx.T]}
    if symmetry not in images:
        raise PuzzleError(f"symmetry: unknown {symmetry!r}; expected one of {', '.join(SYMMETRIES)}")
    stacked = np.sort(np.stack([idx.ravel()] + [im.ravel() for im in images[symmetry]], axis=1), axis=1)
    return [np.unique(row) for row in np.unique(stacked, axis=0)]
