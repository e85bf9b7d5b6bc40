"""Uniqueness and counts of sparse grids from one solution (:mod:`pipeline.core.symmetry`).

A puzzle of units alone whose clues use at most N - 2 of its N digits is never unique: any
solution with two clue-free digits swapped is another. ``auto`` asks its engine for one solution
of such a puzzle and answers "is it unique?" (no) and "count to K" (``min(K, k!)`` for ``k``
free digits) from it, where the search for a second solution had the whole grid to explore (an
empty 81x81 with the proof ran past a minute). An engine named by the user still searches.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from pipeline.core.symmetry import clue_digits, digit_symmetric, free_digits, relabelled, solutions_at_least
from pipeline.core.verify import verify_grid
from pipeline.solvers.base import CountResult, SolveResult

#: At most this many bytes of grids made up front (``count(limit=10**6)`` of a sparse 9x9 keeping
#: them all): beyond it the engine counts them, as without relabelling.
KEEP_BYTES = 1 << 28


def relabelling_settles(model: Any) -> bool:
    """Whether one solution of ``model`` settles its uniqueness: a puzzle of units alone (no
    rule, no extra cell) whose clues leave at least two of its N digits unused (every solution
    holds all N digits, so both are in it), in a model without an objective.

    Parameters
    ----------
    model : Model
        The model (its ``puzzle``).

    Returns
    -------
    bool

    Examples
    --------
    >>> from pipeline.core.build import build_model
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> relabelling_settles(build_model(parse_puzzle("12..............")))
    True
    >>> relabelling_settles(build_model(parse_puzzle("123.............")))
    False
    """
    puzzle = getattr(model, "puzzle", None)
    # costs: the engines that find one solution refuse the model (the count ignores them: left to
    # it); units that hold each digit at most once: a digit may be missing from a solution
    if puzzle is None or not digit_symmetric(puzzle) or getattr(model, "has_objective", False) \
            or puzzle.units_at_most:
        return False
    return puzzle.n - clue_digits(puzzle) >= 2


def relabelled_second(puzzle: Any, grid: np.ndarray) -> np.ndarray | None:
    """A second solution of ``puzzle``: ``grid`` (a verified solution) with its two lowest
    clue-free digits swapped, checked by :func:`~pipeline.core.verify.verify_grid`; None when
    there are not two such digits or (never expected) the swap does not verify.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.
    grid : ndarray of int
        A solution of it.

    Returns
    -------
    ndarray of int or None
    """
    digits = free_digits(puzzle, grid)
    if digits.size < 2:
        return None
    _, second = relabelled(grid, digits[:2], 2)
    return second if verify_grid(second, puzzle) else None


def solve_by_relabelling(solve: Callable[..., SolveResult], name: str, model: Any,
                         time_limit: float | None) -> SolveResult:
    """``solve(model, time_limit=...)``'s answer with ``unique`` False when a second solution
    comes from relabelling (:func:`relabelled_second`), else None (not settled).

    Parameters
    ----------
    solve : callable
        An engine's ``solve``.
    name : str
        The engine's name (for the result's ``solver``).
    model : Model
        A model :func:`relabelling_settles`.
    time_limit : float or None
        Seconds for the engine.

    Returns
    -------
    SolveResult
        Its ``proof_seconds`` is the relabelling's time.
    """
    result = solve(model, time_limit=time_limit)
    result.solver = result.solver or name
    if result.grid is not None:
        started = time.perf_counter()
        result.unique = False if relabelled_second(model.puzzle, result.grid) is not None else None
        result.proof_seconds = time.perf_counter() - started
        result.seconds += result.proof_seconds
    return result


def count_by_relabelling(solve: Callable[..., SolveResult], name: str, model: Any, limit: int,
                         time_limit: float | None, keep: int | None) -> CountResult | None:
    """Solutions of ``model`` up to ``limit`` from one solution and the permutations of its
    clue-free digits; None when those give fewer than ``limit`` (a search must count them).

    Parameters
    ----------
    solve : callable
        An engine's ``solve`` (for the first solution).
    name : str
        The engine's name (the result's ``solver``).
    model : Model
        A model :func:`relabelling_settles`.
    limit : int
        Stop counting here (at least 2).
    time_limit : float or None
        Seconds for the engine.
    keep : int or None
        Grids to keep (None: all, as the engines' ``count``).

    Returns
    -------
    CountResult or None
        ``limit`` solutions, status ``limit``; none, status ``complete``, for an infeasible
        puzzle; the engine's stop (``time_limit``) with no grid.
    """
    started = time.perf_counter()
    result = solve(model, time_limit=time_limit)
    if result.grid is None:
        if result.status == "infeasible":
            return CountResult(0, [], "complete", time.perf_counter() - started, solver=name)
        return CountResult(0, [], result.status, time.perf_counter() - started, message=result.message, solver=name)
    digits = free_digits(model.puzzle, result.grid)
    wanted = limit if keep is None else min(keep, limit)
    if solutions_at_least(digits.size, limit) < limit or relabelled_second(model.puzzle, result.grid) is None \
            or wanted * result.grid.nbytes > KEEP_BYTES:
        return None
    grids = list(relabelled(result.grid, digits, wanted))
    return CountResult(limit, grids, "limit", time.perf_counter() - started, solver=name)
