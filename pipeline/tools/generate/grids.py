"""Full grids for large boxed and Latin shapes without a solver: the closed-form pattern, mixed.

A random-phase SAT model (:meth:`~pipeline.tools.generate.engine.ShapeEngine.random_full_grid`)
makes a 25x25 grid in about a second, but at 49x49 it took from 47 s to more than 4 minutes, and
a 64x64 did not come in 15 minutes: ``generate --size 49`` or ``--size 64`` never reached its clue
removal. From :data:`PATTERN_MIN_SIDE` on, :func:`mixed_pattern_grid` makes the full grid instead:

1. the closed-form solved grid (:func:`pipeline.solvers.pattern.base_grid`), given the seed-004
   transformations (rows within bands, columns within stacks, bands, stacks, digits);
2. :data:`MIXING_ROUNDS` rounds of three exchanges, each keeping every unit whole:

   * *row pairs* (:func:`line_pair_round`): the rows of each band are paired at random; for a
     pair, the cells where the two rows' digits form a closed cycle trade places within their
     columns;
   * *column pairs*: the same on the columns of each stack;
   * *digit pairs* (:func:`digit_pair_round`): the digits are paired at random; for a pair
     ``(a, b)`` every cell holding ``a`` is linked to the cell holding ``b`` in its row, its
     column and its box (rows and columns only for a Latin square), and a connected set of
     linked cells holds ``a`` and ``b`` exactly once in every unit it meets, so ``a`` and ``b``
     trade places on it.

   Each closed set (cycle, connected set) is exchanged with probability 1/2. The pairs of a round
   are disjoint, so each exchange is one connected-components pass over all cells at once.

The transformations alone leave every grid in the pattern's small class, and so do digit-pair
exchanges (not one 4-cell unavoidable rectangle in 300 9x9 grids after 64 rounds, nor in one grid
after 2,000); the row and column exchanges leave it. Each exchange given its pairs is its own inverse with the same
probability, so the chain's stationary distribution is uniform over the grids it reaches; no
uniformity is claimed all the same, as for the SAT path. Measured on 300 9x9 grids, the mean count
of unavoidable rectangles (two rows, two columns, two boxes, digits ``a b / b a``) is 11.9 +- 0.2
from the pattern after 64 rounds, 10.9 +- 0.2 for random-phase SAT grids, and 11.7 +- 0.2 for those
SAT grids after 64 rounds: the chain forgets its start, and the SAT sampler has a bias of its own.
A 64x64 takes about 80 ms.
"""
from __future__ import annotations

import numpy as np

from pipeline.solvers.pattern import base_grid
from pipeline.tools.generate.regions import transform_grid

__all__ = ["MIXING_ROUNDS", "PATTERN_MIN_SIDE", "digit_pair_round", "line_pair_round", "mixed_pattern_grid",
           "pattern_grid_fits"]

#: From this side on, classic grids with boxes and Latin squares get their full grid from
#: :func:`mixed_pattern_grid`. Below it the SAT model makes the grid as before (a 25x25 in about a
#: second, and every smaller seed's puzzle stays what it was); at 36x36 it took 3 s on a quiet
#: machine and did not come within 150 s with the other core busy.
PATTERN_MIN_SIDE = 36
#: Digit-pair swap rounds after the transformations (a 64x64 takes about 0.1 s).
MIXING_ROUNDS = 64


def pattern_grid_fits(n: int, variant: str, has_regions: bool) -> bool:
    """Whether ``generate``'s full grid of this shape comes from :func:`mixed_pattern_grid`.

    Parameters
    ----------
    n : int
        Grid side.
    variant : str
        ``classic`` (boxes) and ``latin`` qualify; diagonals and jigsaw regions do not (the
        pattern breaks them).
    has_regions : bool
        The shape has jigsaw regions.

    Returns
    -------
    bool
    """
    return n >= PATTERN_MIN_SIDE and variant in ("classic", "latin") and not has_regions


def _unit_links(grid: np.ndarray, partner: np.ndarray, h: int, w: int, boxes: bool) -> tuple[np.ndarray, np.ndarray]:
    """Edges (cell, cell) from each cell to the cells of its units holding its digit's partner."""
    n = grid.shape[0]
    rows, cols = np.indices((n, n))
    want = partner[grid]
    col_of = np.empty((n, n), dtype=np.int64)     # col_of[r, d]: the column of digit d in row r
    col_of[rows, grid] = cols
    row_of = np.empty((n, n), dtype=np.int64)     # row_of[c, d]: the row of digit d in column c
    row_of[cols, grid] = rows
    cell = (rows * n + cols).ravel()
    targets = [rows * n + col_of[rows, want], row_of[cols, want] * n + cols]
    if boxes:
        box = (rows // h) * (n // w) + cols // w
        cell_of = np.empty((n, n), dtype=np.int64)  # cell_of[b, d]: the cell of digit d in box b
        cell_of[box, grid] = rows * n + cols
        targets.append(cell_of[box, want])
    return np.tile(cell, len(targets)), np.concatenate([t.ravel() for t in targets])


def _components(src: np.ndarray, dst: np.ndarray, nodes: int) -> tuple[int, np.ndarray]:
    """Connected components of the undirected graph with edges ``src[i] -- dst[i]``."""
    from scipy import sparse   # only large full grids need it: kept off every command's start-up
    from scipy.sparse.csgraph import connected_components

    links = sparse.coo_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(nodes, nodes))
    return connected_components(links, directed=False)


def line_pair_round(grid: np.ndarray, band: int, rng: np.random.Generator) -> np.ndarray:
    """One round of row-pair swaps (module docstring) over rows in bands of ``band`` rows.

    The rows of each band are paired at random. For a pair ``(r1, r2)``, column ``c`` is linked to
    the column where ``r1`` holds ``r2``'s digit of column ``c``; exchanging the two rows' digits
    on a cycle of links keeps both rows whole, every column as it was (two cells of one column
    trade places) and every box (both rows are in the same band). Columns are done by calling it
    on the transpose with the stack width.

    Parameters
    ----------
    grid : numpy.ndarray
        A valid full grid ``(N, N)``, values ``0..N-1``.
    band : int
        Rows per band (the box height; ``N`` for a Latin square).
    rng : numpy.random.Generator
        Pairs the rows and picks the cycles exchanged.

    Returns
    -------
    numpy.ndarray
        The grid after the round.

    Examples
    --------
    >>> out = line_pair_round(base_grid(4, 2, 2), 2, np.random.default_rng(1))
    >>> sorted(map(sorted, out.T.tolist())) == [[0, 1, 2, 3]] * 4
    True
    """
    n = grid.shape[0]
    bands, half = n // band, band // 2
    order = np.argsort(rng.random((bands, band)), axis=1) + np.arange(bands)[:, None] * band
    first, second = order[:, :half].ravel(), order[:, half:2 * half].ravel()
    pairs = np.arange(first.size)[:, None]
    column_of = np.empty((first.size, n), dtype=np.int64)   # column_of[p, d]: where `first` holds d
    column_of[pairs, grid[first]] = np.arange(n)
    following = column_of[pairs, grid[second]]
    count, label = _components((pairs * n + np.arange(n)).ravel(), (pairs * n + following).ravel(), first.size * n)
    exchanged = (rng.random(count) < 0.5)[label].reshape(first.size, n)
    out = grid.copy()
    out[first] = np.where(exchanged, grid[second], grid[first])
    out[second] = np.where(exchanged, grid[first], grid[second])
    return out


def digit_pair_round(grid: np.ndarray, h: int, w: int, rng: np.random.Generator, boxes: bool = True) -> np.ndarray:
    """One round of digit-pair swaps (module docstring): a new valid grid.

    Parameters
    ----------
    grid : numpy.ndarray
        A valid full grid ``(N, N)``, values ``0..N-1``.
    h, w : int
        Box shape (ignored when ``boxes`` is False).
    rng : numpy.random.Generator
        Pairs the digits and picks the linked sets exchanged.
    boxes : bool
        Link through boxes too (False: a Latin square).

    Returns
    -------
    numpy.ndarray
        The grid after the round (values ``0..N-1``).

    Examples
    --------
    >>> g = base_grid(4, 2, 2)
    >>> out = digit_pair_round(g, 2, 2, np.random.default_rng(3))
    >>> sorted(map(sorted, out.tolist())) == [[0, 1, 2, 3]] * 4
    True
    """
    n = grid.shape[0]
    order = rng.permutation(n)
    partner = np.arange(n)     # an odd N leaves one digit unpaired: it links only to itself
    half = n // 2
    partner[order[:half]] = order[half:2 * half]
    partner[order[half:2 * half]] = order[:half]
    count, label = _components(*_unit_links(grid, partner, h, w, boxes), n * n)
    exchanged = (rng.random(count) < 0.5)[label].reshape(n, n)
    return np.where(exchanged, partner[grid], grid)


def mixed_pattern_grid(n: int, h: int, w: int, rng: np.random.Generator, latin: bool = False,
                       rounds: int = MIXING_ROUNDS) -> np.ndarray:
    """A full grid (digits ``1..N``) from the transformed closed-form pattern and digit-pair swaps.

    Parameters
    ----------
    n, h, w : int
        Side and box shape (``h * w == n``).
    rng : numpy.random.Generator
        The only source of randomness.
    latin : bool
        A Latin square (no boxes): rows and columns only.
    rounds : int
        Digit-pair swap rounds.

    Returns
    -------
    numpy.ndarray
        ``(N, N)`` int64, every row, column (and box) holding ``1..N`` once.

    Examples
    --------
    >>> g = mixed_pattern_grid(9, 3, 3, np.random.default_rng(0))
    >>> bool((np.sort(g, axis=0) == np.arange(1, 10)[:, None]).all())
    True
    """
    if latin:   # one band of N rows, one stack of N columns
        h, w = n, n
        grid = transform_grid(base_grid(n, 1, n) + 1, 1, 1, rng) - 1
    else:
        grid = transform_grid(base_grid(n, h, w) + 1, h, w, rng) - 1
    for _ in range(rounds):
        grid = line_pair_round(grid, h, rng)
        grid = line_pair_round(grid.T, w, rng).T
        grid = digit_pair_round(grid, h, w, rng, boxes=not latin)
    return (grid + 1).astype(np.int64)
