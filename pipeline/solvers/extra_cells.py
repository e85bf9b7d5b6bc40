"""The digits of a puzzle's extra cells that go with a given grid (:mod:`pipeline.core.extracells`).

A grid alone does not say what the extra cells hold, and the rules over them (a cage with a cell
outside the grid, ISS's ``Var`` cells in value-indexing lines) hold of a grid only for some
digits of those cells. ``verify`` and ``import`` are given a grid and, often, no digits for them:
judged with the extra cells empty, such rules went unchecked and a wrong grid was called valid.
:func:`extra_cells_for` decides them instead: the puzzle with every grid cell given, solved by
``auto``; digits that meet every rule with the grid, or a one-line reason that none do.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError
from pipeline.core.extracells import extra_digits, extra_names
from pipeline.core.puzzle import Puzzle
from pipeline.core.verify import Verdict, verify_grid
from pipeline.solvers.base import get_solver

__all__ = ["EXTRA_CELLS_SECONDS", "extra_cells_for", "judged_with_extra_cells"]

#: Seconds the search for the extra cells' digits may take: with every grid cell given it is a
#: handful of cells (Bates Motel's eight: milliseconds).
EXTRA_CELLS_SECONDS = 30.0


def extra_cells_for(grid: np.ndarray, puzzle: Puzzle,
                    time_limit: float = EXTRA_CELLS_SECONDS) -> tuple[np.ndarray | None, str | None]:
    """Digits (1-based) of ``puzzle``'s extra cells that meet every rule together with ``grid``.

    Parameters
    ----------
    grid : numpy.ndarray
        A complete grid (digits ``1..V``, the puzzle's canvas shape) that passed the rules over
        grid cells alone.
    puzzle : Puzzle
        The puzzle, with extra cells.
    time_limit : float
        Seconds for the search.

    Returns
    -------
    (numpy.ndarray or None, str or None)
        ``(digits, None)``; ``(None, reason)`` when no digits go with ``grid`` or the search did
        not decide; ``(None, None)`` for a puzzle without extra cells.
    """
    if not puzzle.extra:
        return None, None
    names = ", ".join(extra_names(puzzle.extra))
    try:
        filled = dataclasses.replace(puzzle, grid=np.asarray(grid, dtype=np.int64).reshape(puzzle.grid.shape))
        model = build_model(filled)
        result = get_solver("auto").solve(model, time_limit=time_limit)
    except PipelineError as e:
        return None, f"the extra cells ({names}) could not be decided with this grid: {e}"
    if result.grid is None:
        if result.status == "infeasible":
            return None, f"no digits of the extra cells ({names}) meet the rules with this grid"
        return None, (f"the extra cells ({names}) were not decided within {time_limit:g} s "
                      f"({result.status}): the grid is not verified")
    digits = extra_digits(model, result.x)
    if digits is None:
        return None, f"{result.solver or 'the engine'} gave no digits of the extra cells ({names})"
    return digits, None


def judged_with_extra_cells(grid: np.ndarray, puzzle: Puzzle, verdict: Verdict,
                            extra: np.ndarray | None) -> tuple[Verdict, np.ndarray | None]:
    """``verdict`` on ``grid`` (:func:`~pipeline.core.verify.verify_grid`'s, with ``extra``), judged
    again with digits of the puzzle's extra cells that go with the grid when none were given (a
    grid answer says nothing of them): ``import``, ``verify`` and :func:`pipeline.verify`.

    Parameters
    ----------
    grid : numpy.ndarray
        The claimed solution.
    puzzle : Puzzle
        Its puzzle.
    verdict : Verdict
        The grid's verdict so far.
    extra : numpy.ndarray or None
        The extra cells' digits the answer gave, if any.

    Returns
    -------
    (Verdict, numpy.ndarray or None)
        The verdict and the extra cells' digits (None when none go with the grid).
    """
    if not verdict or not puzzle.extra or extra is not None:
        return verdict, extra
    found, problem = extra_cells_for(grid, puzzle)
    if problem is not None:
        return Verdict(False, problem), None
    return verify_grid(grid, puzzle, found), found
