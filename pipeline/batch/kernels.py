"""Vectorised steps over many puzzles of one shape: parsing, propagation, verification, rendering.

At 81x9 numpy's per-call cost would rival a solver's time per puzzle, so each step works on a
whole chunk at once. The steps themselves are core's: rule checks
(:func:`pipeline.core.verify.rule_conflicts`, :func:`pipeline.core.verify.verify_solutions`),
naked/hidden singles (:func:`pipeline.core.propagate.propagate`) and compact-line decoding
(:func:`pipeline.core.parse.compact_values`); this module fits them to batch's chunks.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from pipeline.core.hexadoku import ONE_TO_G, ZERO_BASED_SIDE, zero_based_kinds
from pipeline.core.parse import COMPACT_DIGITS, compact_values
from pipeline.core.propagate import MAX_BITS_N
from pipeline.core.puzzle import Puzzle, grid_to_string
from pipeline.core.verify import rule_conflicts, verify_grid
from pipeline.core.verify import verify_solutions as verify_flat_solutions

__all__ = ["clue_conflicts", "verify_solutions", "grid_strings", "fast_grids", "shape_key", "with_clues"]

#: ``record(template, members, rows, clues, solutions, has)``: verify the grids a kernel found in
#: bulk and write each row's solution (:func:`pipeline.batch.worker.record_solutions`).
Record = Callable[[Puzzle, list, list[dict], np.ndarray, np.ndarray, np.ndarray], None]

#: A record the bulk parser may take: the compact alphabet only (anything else goes one by one).
COMPACT_RECORD = re.compile(r"[0-9A-Za-z.]+")


def shape_key(puzzle: Puzzle) -> tuple:
    """What puzzles sharing one set of rules have in common: box shape, variant, regions."""
    return (puzzle.h, puzzle.w, puzzle.variant, puzzle.regions_string())


def with_clues(template: Puzzle, grid: np.ndarray) -> Puzzle:
    """The puzzle of ``template``'s shape (box, variant, regions) with the clues ``grid`` (flat or N x N).

    Parameters
    ----------
    template : Puzzle
        The shape.
    grid : numpy.ndarray
        The clues, flat or ``(N, N)``.
    """
    n = template.n
    return Puzzle(grid.reshape(n, n), template.h, template.w, template.variant, template.regions)


def clue_conflicts(grids: np.ndarray, template: Puzzle) -> np.ndarray:
    """``(P,)`` True where a digit appears twice in a unit (grids ``(P, N*N)``, 0 = empty).

    Parameters
    ----------
    grids : numpy.ndarray
        ``(P, N*N)`` clue grids, 0 = empty.
    template : Puzzle
        Any puzzle of the shape.
    """
    return rule_conflicts(grids, template.unit_families())


def verify_solutions(solutions: np.ndarray, clues: np.ndarray, template: Puzzle) -> np.ndarray:
    """``(P,)`` True where ``solutions[p]`` completes ``clues[p]``: the checks of verify_grid.

    Parameters
    ----------
    solutions, clues : numpy.ndarray
        ``(P, N*N)`` found grids and the puzzles' clues.
    template : Puzzle
        Any puzzle of the shape.

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


def grid_strings(grids: np.ndarray, n: int) -> list[str]:
    """Flat grids ``(P, N*N)`` -> their compact strings (as grid_to_string), all at once.

    Parameters
    ----------
    grids : numpy.ndarray
        ``(P, N*N)``, 0 = empty.
    n : int
        Grid side.

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
    zeros in ``grids``, so that later bulk steps can index tables with it safely. So is a 16x16
    record that is not ``1-G`` by :func:`pipeline.core.hexadoku.zero_based_kinds` (``0-F``, or
    either reading), found for all records at once: the general parser reads it as ``solve``
    does, in the values 0..15, or refuses it by name (bulk would take its ``0`` for empty).

    Parameters
    ----------
    texts : list of str
        Records of N*N compact characters.
    n : int
        Grid side.

    Examples
    --------
    >>> grids, ok = fast_grids(["1.2.", "1.5."], 2)
    >>> grids.tolist(), ok.tolist()
    ([[1, 0, 2, 0], [0, 0, 0, 0]], [True, False])
    """
    values = compact_values(texts, n)
    ok = np.asarray(((values >= 0) & (values <= n)).all(axis=1))
    if n == ZERO_BASED_SIDE and len(texts):   # the lengths were checked: one byte a cell
        raw = np.frombuffer("".join(texts).encode("ascii", "replace"), dtype=np.uint8).reshape(len(texts), n * n)
        ok &= zero_based_kinds(raw, values) == ONE_TO_G
    return np.where(ok[:, None], values, 0), ok
