"""Naked and hidden singles: the one propagation kernel (batch, generate, rate; presolve later).

Two rules, applied over the unit families of the puzzle's variant
(:meth:`pipeline.core.puzzle.Puzzle.unit_families`, so a variant with its own units needs nothing
here):

* naked single: a cell with one candidate left holds it, and that digit leaves every other cell of
  the cell's units;
* hidden single: a digit with one place left in a unit goes there.

:func:`propagate` runs them to a fixed point on many puzzles of one shape at once, every single of
a round placed together, with candidate sets as bitmasks (``uint16`` up to 16x16, ``uint64`` up
to :data:`MAX_BITS_N`): batch calls it on a chunk before its solvers. :func:`propagate_puzzle` is
the same kernel on one :class:`~pipeline.core.puzzle.Puzzle` (candidates, the cells it fixes,
whether it found a contradiction): generate's fast uniqueness test for big grids
(:func:`solved_by_singles`) and the presolve of a model.

:func:`naked_single_cells` and :func:`hidden_single_places` are the same two rules as one look
at the boolean candidates of one puzzle, without placing anything: ``rate`` lists its steps one
deduction at a time in a fixed order (the order is its explanation), so it asks these where the
singles are and places the first one itself. ``tests/core/test_propagate.py`` checks that
applying them one at a time reaches the kernel's fixed point.

Only sound eliminations are made, so every solution survives; a contradiction that singles
cannot see is left for the solver.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import PipelineError
from pipeline.core.puzzle import Puzzle
from pipeline.core.verify import MAX_BITMASK_N, _digit_bits

__all__ = ["MAX_BITS_N", "Singles", "hidden_single_places", "naked_single_cells", "propagate",
           "propagate_puzzle", "solved_by_singles"]

#: Candidate sets are unsigned bitmasks of N bits (``uint64`` from 33x33): grids up to 64x64,
#: the digit bits verify's kernel uses.
MAX_BITS_N = MAX_BITMASK_N


def _once_twice_leading(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OR of the bitmasks along the first axis, and the bits seen at least twice (contiguous
    slices: about twice as fast as along the last axis)."""
    if values.shape[-1] == 1:
        # one puzzle (presolve, generate's removal by singles): a running OR is 3x faster than the
        # loop over the unit's cells (64x64: 23 against 67 us); with many puzzles it is 15-20x
        # slower, so batches keep the loop
        running = np.bitwise_or.accumulate(values, axis=0)
        return running[-1], np.bitwise_or.reduce(values[1:] & running[:-1], axis=0)
    ones = values[0].copy()
    twice = np.zeros_like(ones)
    for k in range(1, values.shape[0]):
        v = values[k]
        twice |= ones & v
        ones |= v
    return ones, twice


_UNIT_TABLES: dict[bytes, tuple] = {}
_MAX_UNIT_TABLES = 64  # jigsaw inputs have one shape per region layout


def unit_tables(template: Puzzle) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, bytes]:
    """For :func:`propagate` (and the dfs engine): each family as ``(N, units)`` (position in
    unit first), all units as ``(N, U)``, every cell's units as ``(width, N*N)``, padded with
    ``U`` (a zero row), and the digest of the families (a cache key for tables built on these).

    Cached by the unit families themselves (a digest of their cells), so any variant, with any
    units of its own, gets its tables without this module knowing its shape. A puzzle of
    more values than the side (its units need not hold every value) is refused: singles and the
    dfs search over these tables assume they do."""
    if template.units_at_most:
        raise PipelineError(f"unit tables: {template.n_values} values on a {template.rows}x{template.cols} grid (a "
                            "unit need not hold every value): singles and the dfs search do not apply")
    families = [np.asarray(units, dtype=np.intp) for _, units in template.unit_families()]
    digest = hashlib.blake2b(digest_size=16)
    digest.update(np.asarray([template.n], dtype=np.int64).tobytes())   # no families (raw): the side alone tells
    for units in families:
        digest.update(np.asarray(units.shape, dtype=np.int64).tobytes())
        digest.update(units.tobytes())
    key = digest.digest()
    tables = _UNIT_TABLES.get(key)
    if tables is not None:
        return tables
    # no families at all (the raw variant): no units, every cell's list the padding alone
    units_all = np.concatenate(families) if families else np.zeros((0, template.n), dtype=np.intp)
    n_cells = template.n * template.n
    # every cell's units, gathered without a loop per cell: sort the unit members by cell
    unit_of = np.repeat(np.arange(units_all.shape[0]), units_all.shape[1])
    order = np.argsort(units_all.ravel(), kind="stable")
    cell_sorted, unit_sorted = units_all.ravel()[order], unit_of[order]
    per_cell = np.bincount(cell_sorted, minlength=n_cells)
    slot = np.arange(order.size) - np.repeat(np.cumsum(per_cell) - per_cell, per_cell)
    cell_units = np.full((max(int(per_cell.max(initial=0)), 1), n_cells), units_all.shape[0], dtype=np.intp)
    cell_units[slot, cell_sorted] = unit_sorted
    tables = ([np.ascontiguousarray(f.T) for f in families], np.ascontiguousarray(units_all.T), cell_units, key)
    if len(_UNIT_TABLES) >= _MAX_UNIT_TABLES:
        _UNIT_TABLES.clear()
    _UNIT_TABLES[key] = tables
    return tables


def propagate(grids: np.ndarray, template: Puzzle, hidden: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Candidates after naked and hidden singles for puzzles of ``template``'s shape at once.

    Parameters
    ----------
    grids : ndarray of int, shape (P, N*N)
        Clue grids, 0 = empty, values ``0..N``.
    template : Puzzle
        Any puzzle of the shape (its clues are not used): its unit families are the rules.
    hidden : bool
        Also place hidden singles (a digit with one place left in a unit).

    Returns
    -------
    cand : ndarray of bool, shape (P, N*N, N)
        Digit ``d`` is still possible in a cell. Only sound eliminations are made, so every
        solution survives; a contradiction that singles cannot see is left for the solver.
    dead : ndarray of bool, shape (P,)
        A cell or a unit-digit lost every candidate: no solution.

    Raises
    ------
    PipelineError
        For grids larger than ``MAX_BITS_N``.

    Examples
    --------
    >>> p = Puzzle(np.zeros((4, 4), int), 2, 2)
    >>> cand, dead = propagate(np.array([[1, 2, 3, 0] + [0] * 12]), p)
    >>> cand[0, 3].nonzero()[0].tolist(), dead.tolist()
    ([3], [False])
    """
    grids = np.asarray(grids)
    n = template.n
    if n > MAX_BITS_N:
        raise PipelineError(f"propagate: grids up to {MAX_BITS_N}x{MAX_BITS_N} (bitmasks), found {n}x{n}")
    if template.n_values > n:   # singles assume every unit holds every value
        raise PipelineError(f"propagate: {template.n_values} values on a {n}x{n} grid (a unit need not hold "
                            "every value): singles do not apply")
    bits = _digit_bits(n)
    full, zero, one = (bits.dtype.type(v) for v in ((1 << n) - 1, 0, 1))
    cand = np.where(grids > 0, bits[grids], full)
    dead = np.zeros(grids.shape[0], dtype=bool)
    families, units_all, cell_units, _ = unit_tables(template)
    n_units = units_all.shape[1]
    active = np.arange(grids.shape[0])
    work = np.ascontiguousarray(cand.T)   # (cells, active puzzles): gathers run over contiguous rows
    while active.size:  # candidates only shrink, so this ends
        before = work.copy()
        placed_value = work * ((work & (work - one)) == zero)  # singles (and empties)
        # naked singles: a placed digit leaves every other cell of its units (all families at
        # once: each cell keeps its own value and loses what its units' placed cells hold)
        placed = np.zeros((n_units + 1, work.shape[1]), dtype=work.dtype)
        # a digit placed twice in one unit (two hidden singles of one round, found in different
        # units) is a contradiction: each of the two cells keeps its own value, so no cell empties
        placed[:n_units], placed_twice = _once_twice_leading(placed_value[units_all])
        work &= ~np.bitwise_or.reduce(placed[cell_units], axis=0) | placed_value
        stuck = (placed_twice != zero).any(axis=0)
        if hidden:
            for units in families:
                # hidden singles: a digit with one place left in a unit goes there
                sub = work[units]
                ones, twice = _once_twice_leading(sub)
                stuck |= (ones != full).any(axis=0)
                only = sub & (ones & ~twice)
                # one cell the only place of two digits of a unit: a contradiction, also when
                # they are all the cell has (placing `only` would then change nothing)
                stuck |= ((only & (only - one)) != zero).any(axis=(0, 1))
                work[units] = only | sub * (only == zero)   # `only` where not empty, else sub
        stuck |= (work == zero).any(axis=0)
        changed = (work != before).any(axis=0) & ~stuck
        if not changed.all():   # finished puzzles leave the working set
            done = ~changed
            cand[active[done]] = work[:, done].T
            dead[active[stuck]] = True
            active, work = active[changed], work[:, changed]
    return (cand[:, :, None] & bits[1:]) != zero, dead


@dataclass(frozen=True)
class Singles:
    """What singles decide about one puzzle (:func:`propagate_puzzle`).

    ``candidates[r, c, d]``: digit ``d + 1`` still possible in cell ``(r, c)``; ``grid``: the
    digit of every cell left with one candidate (clues included), 0 elsewhere;
    ``contradiction``: a cell or a unit-digit lost every candidate, so the puzzle has no
    solution (``grid`` then means nothing).
    """

    candidates: np.ndarray
    grid: np.ndarray
    contradiction: bool

    @property
    def solved(self) -> bool:
        """Every cell decided without a contradiction: the puzzle has exactly this one solution."""
        return not self.contradiction and bool((self.grid > 0).all())


def propagate_puzzle(puzzle: Puzzle, hidden: bool = True) -> Singles:
    """Naked (and hidden) singles on one puzzle, to a fixed point.

    Parameters
    ----------
    puzzle : Puzzle
        Any size up to :data:`MAX_BITS_N`, box shape or variant; its clues are the start.
    hidden : bool
        Also place hidden singles.

    Returns
    -------
    Singles
        The candidate mask ``(N, N, N)``, the fixed grid and whether a contradiction was found.

    Raises
    ------
    PipelineError
        For grids larger than ``MAX_BITS_N``.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> s = propagate_puzzle(parse_puzzle("1234" "3412" "2143" "43..", box="2x2"))
    >>> s.solved, s.grid[3].tolist()
    (True, [4, 3, 2, 1])
    """
    n = puzzle.n
    cand, dead = propagate(np.asarray(puzzle.grid).reshape(1, n * n), puzzle, hidden)
    cand = cand[0].reshape(n, n, n)
    decided = cand.sum(axis=2) == 1
    grid = np.where(decided, cand.argmax(axis=2) + 1, 0)
    return Singles(cand, grid, bool(dead[0]))


def solved_by_singles(puzzle: Puzzle) -> bool:
    """True when naked and hidden singles alone fill every cell: then the clues have exactly one
    solution (generate removes clues from big grids with this instead of a SAT call).

    Parameters
    ----------
    puzzle : Puzzle
        Any size up to :data:`MAX_BITS_N`, box shape or variant.

    Returns
    -------
    bool

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> solved_by_singles(parse_puzzle("1234" "3412" "2143" "43..", box="2x2"))
    True
    >>> solved_by_singles(parse_puzzle("." * 16, box="2x2"))
    False
    """
    return propagate_puzzle(puzzle).solved


def naked_single_cells(cand: np.ndarray) -> np.ndarray:
    """Cells with exactly one candidate (the naked single rule, looked at without placing).

    Parameters
    ----------
    cand : ndarray of bool, shape (N*N, N)
        One puzzle's candidates.

    Returns
    -------
    ndarray of int
        The cells, in increasing order.
    """
    return np.flatnonzero(cand.sum(axis=1) == 1)


def hidden_single_places(cand: np.ndarray, units: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Digits with exactly one place left in a unit (the hidden single rule, without placing).

    Parameters
    ----------
    cand : ndarray of bool, shape (N*N, N)
        One puzzle's candidates.
    units : ndarray of int, shape (U, N)
        The cells of every unit (all families of :meth:`Puzzle.unit_families`, concatenated).

    Returns
    -------
    (unit, digit, cell) : three ndarrays of int
        One entry per (unit, 0-based digit) with a single place, in order of unit then digit,
        and that place.
    """
    per_unit = cand[units]  # (U, N cells, N digits)
    unit, digit = np.nonzero(per_unit.sum(axis=1) == 1)
    cell = units[unit, per_unit[unit, :, digit].argmax(axis=1)]
    return unit, digit, cell
