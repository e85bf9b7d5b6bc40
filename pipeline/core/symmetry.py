"""Second solutions for free: relabelling digits that no clue uses.

The units of every variant (rows, columns, boxes, regions, diagonals, a samurai's grids) say
only that a unit holds each digit once, whatever the digits are: renaming digits all over a
solution gives another solution, as long as the clues keep their digits. So a puzzle with units
alone whose clues leave two digits unused that its solution holds has a second solution, the
first with those two digits swapped: it is not unique, without a search (a proper puzzle's
clues use at least N - 1 digits). With ``k`` such digits there are at least ``k!`` solutions, one
per permutation of them. ``auto`` uses this to answer "is it unique?" and "count to K" on a
sparse grid at the cost of one solution (an empty 49x49 with the proof took minutes).

Rules beyond units (a cage's sum, a thermometer's order, even/odd cells) and extra cells tell
digits apart, so a puzzle with any of them is left to the search.
"""
from __future__ import annotations

import itertools
from typing import Iterator

import numpy as np

from pipeline.core.puzzle import Puzzle


def digit_symmetric(puzzle: Puzzle | None) -> bool:
    """Whether renaming digits maps every solution of ``puzzle`` to a solution (clues aside):
    units only, no rule and no extra cell.

    Parameters
    ----------
    puzzle : Puzzle or None
        The puzzle (None: a model without one; False).

    Returns
    -------
    bool

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> digit_symmetric(parse_puzzle("1..............."))
    True
    >>> digit_symmetric(parse_puzzle({"size": 4, "rules": [{"rule": "antiknight"}]}))
    False
    """
    return puzzle is not None and not puzzle.rules and not puzzle.extra


def clue_digits(puzzle: Puzzle) -> int:
    """How many distinct digits the clues of ``puzzle`` use.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.

    Returns
    -------
    int

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> clue_digits(parse_puzzle("1.......2.1....."))
    2
    """
    return int(np.unique(puzzle.grid[puzzle.grid > 0]).size)


def free_digits(puzzle: Puzzle, solution: np.ndarray) -> np.ndarray:
    """The digits (1-based, ascending) that ``solution`` holds and no clue of ``puzzle`` uses.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle (its clues: ``puzzle.grid``'s nonzero cells).
    solution : ndarray of int
        A solution of it (same shape; 0 only where a layout has no cell).

    Returns
    -------
    ndarray of int

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> puzzle = parse_puzzle("1..............2")
    >>> free_digits(puzzle, np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])).tolist()
    [3, 4]
    """
    held = np.unique(solution[solution > 0])
    return np.setdiff1d(held, puzzle.grid[puzzle.grid > 0])


def relabelled(solution: np.ndarray, digits: np.ndarray, limit: int) -> Iterator[np.ndarray]:
    """``solution`` with ``digits`` permuted every way, the identity first, up to ``limit`` grids
    (all distinct: each of ``digits`` is held by some cell).

    Parameters
    ----------
    solution : ndarray of int
        A solution.
    digits : ndarray of int
        :func:`free_digits` of it.
    limit : int
        Grids at most.

    Yields
    ------
    ndarray of int
        Grids of ``solution``'s shape.

    Examples
    --------
    >>> [g.tolist() for g in relabelled(np.array([[1, 2], [2, 1]]), np.array([1, 2]), 5)]
    [[[1, 2], [2, 1]], [[2, 1], [1, 2]]]
    """
    table = np.arange(int(solution.max()) + 1, dtype=solution.dtype)
    for order in itertools.islice(itertools.permutations(digits.tolist()), limit):
        table[digits] = order
        yield table[solution]


def solutions_at_least(n_digits: int, limit: int) -> int:
    """``min(n_digits!, limit)`` without computing a huge factorial: the solutions that
    relabelling ``n_digits`` free digits gives, counted up to ``limit``.

    Parameters
    ----------
    n_digits : int
        Free digits (:func:`free_digits`).
    limit : int
        Count no further.

    Returns
    -------
    int

    Examples
    --------
    >>> solutions_at_least(3, 100), solutions_at_least(60, 10**6), solutions_at_least(1, 5)
    (6, 1000000, 1)
    """
    total = 1
    for k in range(2, n_digits + 1):
        total *= k
        if total >= limit:
            return limit
    return min(total, limit)
