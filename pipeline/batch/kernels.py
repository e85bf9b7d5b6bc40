"""Vectorised steps over many puzzles of one shape: parsing, propagation, verification, rendering.

At 81x9 numpy's per-call cost would rival a solver's time per puzzle, so each step works on a
whole chunk at once. Rule checks are core's (:func:`pipeline.core.verify.rule_conflicts`,
:func:`pipeline.core.verify.verify_solutions`) and compact-line decoding is
:func:`pipeline.core.parse.compact_values`; only candidate propagation is batch's own.
"""
from __future__ import annotations

import re

import numpy as np

from pipeline.core.errors import PipelineError
from pipeline.core.parse import COMPACT_DIGITS, compact_values
from pipeline.core.puzzle import Puzzle, grid_to_string
from pipeline.core.verify import rule_conflicts, verify_grid
from pipeline.core.verify import verify_solutions as verify_flat_solutions

__all__ = ["MAX_BITS_N", "clue_conflicts", "verify_solutions", "propagate", "grid_strings", "fast_grids",
           "shape_key", "with_clues"]

MAX_BITS_N = 63  # candidate sets are uint64 bitmasks: grids up to 63x63
#: A record the bulk parser may take: the compact alphabet only (anything else goes one by one).
COMPACT_RECORD = re.compile(r"[0-9A-Za-z.]+")


def shape_key(puzzle: Puzzle) -> tuple:
    """What puzzles sharing one set of rules have in common: box shape, variant, regions."""
    return (puzzle.h, puzzle.w, puzzle.variant, puzzle.regions_string())


def with_clues(template: Puzzle, grid: np.ndarray) -> Puzzle:
    """The puzzle of ``template``'s shape (box, variant, regions) with the clues ``grid`` (flat or N x N)."""
    n = template.n
    return Puzzle(grid.reshape(n, n), template.h, template.w, template.variant, template.regions)


def clue_conflicts(grids: np.ndarray, template: Puzzle) -> np.ndarray:
    """``(P,)`` True where a digit appears twice in a unit (grids ``(P, N*N)``, 0 = empty)."""
    return rule_conflicts(grids, template.unit_families())


def verify_solutions(solutions: np.ndarray, clues: np.ndarray, template: Puzzle) -> np.ndarray:
    """``(P,)`` True where ``solutions[p]`` completes ``clues[p]``: the checks of verify_grid.

    Examples
    --------
    >>> import numpy as np
    >>> template = Puzzle(np.zeros((4, 4), int), 2, 2)
    >>> good = np.array([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1])
    >>> verify_solutions(np.stack([good, good[::-1]]), np.zeros((2, 16), int), template).tolist()
    [True, True]
    """
    n = template.n
    if n > MAX_BITS_N:  # beyond the bitmasks: one by one
        return np.array([verify_grid(s.reshape(n, n), with_clues(template, c)).ok
                         for s, c in zip(solutions, clues)], dtype=bool)
    return verify_flat_solutions(solutions, clues, template.unit_families())


def _digit_bits(n: int) -> np.ndarray:
    """``table[v]`` = bit of digit ``v`` (1..N), ``table[0] = 0`` (empty cell), in the smallest
    unsigned type that holds N bits (less memory traffic for every bulk step)."""
    dtype = np.uint16 if n <= 16 else np.uint32 if n <= 32 else np.uint64
    return np.concatenate([[0], np.left_shift(1, np.arange(n, dtype=np.uint64))]).astype(dtype)


def _once_twice_leading(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OR of the bitmasks along the first axis, and the bits seen at least twice (contiguous
    slices: about twice as fast as along the last axis)."""
    ones = values[0].copy()
    twice = np.zeros_like(ones)
    for k in range(1, values.shape[0]):
        v = values[k]
        twice |= ones & v
        ones |= v
    return ones, twice


_UNIT_TABLES: dict[tuple, tuple] = {}
_MAX_UNIT_TABLES = 64  # jigsaw inputs have one shape per region layout


def _unit_tables(template: Puzzle) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """For :func:`propagate`: each family as ``(N, units)`` (position in unit first), all units
    as ``(N, U)``, and every cell's units as ``(width, N*N)``, padded with ``U`` (a zero row).
    Cached per shape (built with a loop over cells, once)."""
    key = shape_key(template)
    tables = _UNIT_TABLES.get(key)
    if tables is not None:
        return tables
    families = [units for _, units in template.unit_families()]
    units_all = np.concatenate(families)
    member: list[list[int]] = [[] for _ in range(template.n * template.n)]
    for u, unit in enumerate(units_all):
        for cell in unit:
            member[int(cell)].append(u)
    cell_units = np.full((max(map(len, member)), len(member)), units_all.shape[0], dtype=np.intp)
    for cell, units in enumerate(member):
        cell_units[:len(units), cell] = units
    tables = ([np.ascontiguousarray(f.T) for f in families], np.ascontiguousarray(units_all.T), cell_units)
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
        Any puzzle of the shape (its clues are not used).
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
    """
    grids = np.asarray(grids)
    n = template.n
    if n > MAX_BITS_N:
        raise PipelineError(f"propagate: grids up to {MAX_BITS_N}x{MAX_BITS_N} (bitmasks), found {n}x{n}")
    bits = _digit_bits(n)
    full, zero, one = (bits.dtype.type(v) for v in ((1 << n) - 1, 0, 1))
    cand = np.where(grids > 0, bits[grids], full)
    dead = np.zeros(grids.shape[0], dtype=bool)
    families, units_all, cell_units = _unit_tables(template)
    n_units = units_all.shape[1]
    active = np.arange(grids.shape[0])
    work = np.ascontiguousarray(cand.T)   # (cells, active puzzles): gathers run over contiguous rows
    while active.size:  # candidates only shrink, so this ends
        before = work.copy()
        placed_value = work * ((work & (work - one)) == zero)  # singles (and empties)
        # naked singles: a placed digit leaves every other cell of its units (all families at
        # once: each cell keeps its own value and loses what its units' placed cells hold)
        placed = np.zeros((n_units + 1, work.shape[1]), dtype=work.dtype)
        placed[:n_units] = np.bitwise_or.reduce(placed_value[units_all], axis=0)
        work &= ~np.bitwise_or.reduce(placed[cell_units], axis=0) | placed_value
        stuck = np.zeros(active.size, dtype=bool)
        if hidden:
            for units in families:
                # hidden singles: a digit with one place left in a unit goes there
                sub = work[units]
                ones, twice = _once_twice_leading(sub)
                stuck |= (ones != full).any(axis=0)
                only = sub & (ones & ~twice)
                work[units] = only | sub * (only == zero)   # `only` where not empty, else sub
        stuck |= (work == zero).any(axis=0)
        changed = (work != before).any(axis=0) & ~stuck
        if not changed.all():   # finished puzzles leave the working set
            done = ~changed
            cand[active[done]] = work[:, done].T
            dead[active[stuck]] = True
            active, work = active[changed], work[:, changed]
    return (cand[:, :, None] & bits[1:]) != zero, dead


def grid_strings(grids: np.ndarray, n: int) -> list[str]:
    """Flat grids ``(P, N*N)`` -> their compact strings (as grid_to_string), all at once.

    Examples
    --------
    >>> grid_strings(np.array([[1, 2, 0, 4], [4, 3, 2, 1]]), 2)
    ['12.4', '4321']
    """
    if n > len(COMPACT_DIGITS):
        return [grid_to_string(g.reshape(n, n)) for g in grids]
    codes = np.frombuffer(("." + COMPACT_DIGITS).encode("ascii"), dtype=np.uint8)[grids]
    raw = codes.astype(np.uint8).tobytes().decode("ascii")
    size = n * n
    return [raw[k:k + size] for k in range(0, len(raw), size)]


def fast_grids(texts: list[str], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Compact records of length N*N -> ``(P, N*N)`` grids and a mask of the well-formed ones.

    A row that is not well formed (a character outside the alphabet or a digit above N) is all
    zeros in ``grids``, so that later bulk steps can index tables with it safely.

    Examples
    --------
    >>> grids, ok = fast_grids(["1.2.", "1.5."], 2)
    >>> grids.tolist(), ok.tolist()
    ([[1, 0, 2, 0], [0, 0, 0, 0]], [True, False])
    """
    values = compact_values(texts, n)
    ok = ((values >= 0) & (values <= n)).all(axis=1)
    return np.where(ok[:, None], values, 0), ok
