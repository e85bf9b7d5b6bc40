"""Clue removal: from a full grid to a puzzle that stays unique, and minimality.

Clues are removed orbit by orbit (``--symmetry``) in a random order, each kept only if its removal
would lose uniqueness. Removal is monotone (fewer clues, more solutions), so one pass leaves no
removable orbit. Runs of orbits are tried together and split on failure, which gives the same
puzzle as one-by-one removal with fewer engine calls.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle
from pipeline.core.verify import verify_grid
from pipeline.tools.generate.clock import RunClock
from pipeline.tools.generate.engine import engine_for

__all__ = ["EXACT_REMOVAL_MAX_CELLS", "MINIMALITY_STEP", "PROOF_REMOVAL_STEP", "REMOVAL_STEP",
           "SINGLES_FIRST_MIN_CELLS", "is_minimal", "removal_by_singles", "remove_clues", "removable_clues",
           "witnessed_clues"]

#: How the progress reports name the two long steps of a puzzle.
REMOVAL_STEP = "clue removal (orbits tried)"
#: the exact pass of ``--minimal`` over the orbits a singles pass left (above 16x16)
PROOF_REMOVAL_STEP = "clue removal by proof (orbits singles left)"
MINIMALITY_STEP = "minimality proof (clues checked)"

#: up to this many cells (16x16) clues are removed by exact SAT uniqueness checks (minimal
#: puzzles); above it by singles (unique, fewer clues removed) unless --minimal is asked.
EXACT_REMOVAL_MAX_CELLS = 256
#: from this many cells (above 16x16, where removal is by singles unless --minimal is asked), the
#: exact removal of ``--minimal`` starts where removal by singles ends instead of at the full grid:
#: a minimal 25x25 of seed 5 in 40 s instead of over 400 s, a 20x20 in 4.1 s instead of 11.1 s.
#: Up to 16x16 the singles pass costs more than it saves (16x16 x3: 1.89 s against 1.39 s).
SINGLES_FIRST_MIN_CELLS = EXACT_REMOVAL_MAX_CELLS + 1


def removal_by_singles(n: int, minimal: bool, rules: bool) -> bool:
    """Whether generate removes an ``n x n`` puzzle's clues only while singles solve it (above
    16x16 without ``--minimal``, no rules): it then stops where singles stop, and every such
    puzzle rates easy.

    Parameters
    ----------
    n : int
        Grid side.
    minimal : bool
        ``--minimal`` asked.
    rules : bool
        Rules beyond units (their removal is the rule shapes' own).

    Returns
    -------
    bool

    Examples
    --------
    >>> removal_by_singles(25, False, False), removal_by_singles(25, True, False), removal_by_singles(16, False, False)
    (True, False, False)
    """
    return not minimal and not rules and n * n > EXACT_REMOVAL_MAX_CELLS


def remove_clues(start: np.ndarray, orbits: list[np.ndarray], order: np.ndarray, target: int,
                 keeps_unique: Callable[[np.ndarray], bool], clock: RunClock | None = None,
                 step: str = REMOVAL_STEP) -> tuple[np.ndarray, bool]:
    """One pass of orbit removal in ``order`` while ``keeps_unique(grid)`` proves uniqueness.

    Parameters
    ----------
    start : numpy.ndarray
        The grid ``(N, N)`` to remove clues from: the full grid, or what an earlier pass left.
    orbits : list of numpy.ndarray
        Cell orbits (:func:`~pipeline.tools.generate.regions.symmetry_orbits`): removed together.
    order : numpy.ndarray
        The order in which the orbits are tried (a permutation of their indices).
    target : int
        Never fewer clues than this.
    keeps_unique : callable
        ``keeps_unique(clue_grid) -> bool``: True when the clues are proved unique.
    clock : RunClock, optional
        Told the orbits tried so far before each trial; raises :class:`OutOfTime` at its deadline.
    step : str
        The name its progress reports give this pass.

    Returns
    -------
    (numpy.ndarray, bool)
        The clue grid, and whether every orbit was tried (False: stopped at ``target``, or an
        orbit was passed by because removing it would go below ``target``).
    """
    grid = start.copy()
    i, run = 0, 1
    whole = True
    while i < len(order):
        if clock is not None:
            clock.step(step, i, len(order))
        left = np.count_nonzero(grid) - target
        if left <= 0:
            return grid, False
        # a run of orbits removed together; never below the target (the clues an orbit still
        # holds: a symmetric orbit is 2 or 4 cells, and rot180 from 27 clues to a target of 26 went to 25)
        sizes = np.cumsum([np.count_nonzero(grid.flat[orbits[k]]) for k in order[i:i + run]])
        if sizes[0] > left:   # this orbit alone goes below the target: passed by, not tried
            i, run, whole = i + 1, 1, False
            continue
        run = max(1, int(np.searchsorted(sizes, left, side="right")))
        cells = np.concatenate([orbits[k] for k in order[i:i + run]])
        trial = grid.copy()
        trial.flat[cells] = 0
        if keeps_unique(trial):
            grid, i, run = trial, i + run, run * 2
        elif run == 1:
            i += 1
        else:
            run //= 2
    return grid, whole


def witnessed_clues(puzzle: Puzzle, solution: np.ndarray, others: Sequence[np.ndarray]) -> np.ndarray:
    """The clues of ``puzzle`` that a verified other solution shows needed (flat cell indices).

    An other solution ``W`` (a full grid unlike ``solution``) that agrees with every clue of
    ``puzzle`` but one, ``c``, solves the puzzle without ``c``: removing ``c`` leaves two
    solutions, so ``c`` is needed. Removal keeps the grids the engine found when a removal lost
    uniqueness: the clues then held are a superset of the final ones, so each such grid still
    agrees with every final clue but the ones it was found without. Each grid used is checked by
    :func:`~pipeline.core.verify.verify_grid` against the puzzle without its clue, so the answer
    does not rest on the engine that found it.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle (unique, with solution ``solution``).
    solution : numpy.ndarray
        Its solution ``(N, N)``.
    others : sequence of numpy.ndarray
        Candidate witnesses ``(N, N)``, e.g. the engine's ``last_other`` grids of a removal pass.

    Returns
    -------
    numpy.ndarray
        Sorted flat indices of the clues shown needed.
    """
    grid = np.asarray(puzzle.grid)
    if not len(others):
        return np.zeros(0, dtype=np.int64)
    stack = np.asarray(others).reshape(len(others), -1)
    off_clue = (stack != np.asarray(solution).ravel()) & (grid.ravel() != 0)
    single = np.flatnonzero(off_clue.sum(axis=1) == 1)
    cells, first = np.unique(off_clue[single].argmax(axis=1), return_index=True)
    needed = []
    for cell, row in zip(cells.tolist(), single[first].tolist()):   # one check per clue, not per grid
        without = grid.copy()
        without.flat[cell] = 0
        if verify_grid(stack[row].reshape(grid.shape), dataclasses.replace(puzzle, grid=without)).ok:
            needed.append(cell)
    return np.asarray(needed, dtype=np.int64)


def removable_clues(puzzle: Puzzle, solution: np.ndarray | None = None,
                    clock: RunClock | None = None, others: Sequence[np.ndarray] = ()) -> list[tuple[int, int]]:
    """Cells whose clue can be removed with the puzzle staying unique (empty: minimal).

    One engine call per clue: with the solution excluded, the clues minus one are SAT exactly
    when that clue is needed. ``solution`` is found by the engine when not given. A clue that
    one of ``others`` shows needed (:func:`witnessed_clues`) costs no engine call.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle with exactly one solution.
    solution : numpy.ndarray, optional
        Its solution, if known.
    clock : RunClock, optional
        Told the clues checked so far; its deadline stops the check (:class:`OutOfTime`).
    others : sequence of numpy.ndarray
        Other solutions of the puzzle with some clues removed (the removal pass's), each
        checked before it stands for an engine call.

    Returns
    -------
    list of (int, int)
        0-based (row, column) of the removable clues.

    Raises
    ------
    PuzzleError
        ``puzzle`` does not have exactly one solution.
    OutOfTime
        ``clock``'s deadline passed first.
    """
    eng = engine_for(puzzle)
    grid = np.asarray(puzzle.grid)
    deadline = clock.deadline if clock is not None else None
    if solution is None:
        count, grids = eng.count(grid, 2, keep=True, deadline=deadline)
        if count != 1:
            raise PuzzleError(f"minimal: the puzzle has {count if count < 2 else 'several'} solutions, not one")
        solution = grids[0]
    act = eng.exclude(solution)
    try:
        out = []
        clues = np.flatnonzero(grid)
        shown = np.isin(clues, witnessed_clues(puzzle, solution, others))
        for k, cell in enumerate(clues):
            if clock is not None:
                clock.step(MINIMALITY_STEP, k, len(clues))
            if shown[k]:
                continue
            trial = grid.copy()
            trial.flat[cell] = 0
            if eng.determines(trial, act, deadline=deadline):
                out.append((int(cell) // puzzle.n, int(cell) % puzzle.n))
        return out
    finally:
        eng.retire(act)


def is_minimal(puzzle: Puzzle, solution: np.ndarray | None = None, clock: RunClock | None = None,
               others: Sequence[np.ndarray] = ()) -> bool:
    """True when removing any single clue of the (unique) ``puzzle`` gives more than one solution.

    Parameters
    ----------
    puzzle : Puzzle
    solution : numpy.ndarray, optional
        Its solution, if known (saves a count).
    clock : RunClock, optional
        Progress and deadline (:func:`removable_clues`).
    others : sequence of numpy.ndarray
        Witnesses that spare engine calls (:func:`removable_clues`).

    Returns
    -------
    bool

    Raises
    ------
    PuzzleError
        ``puzzle`` does not have exactly one solution.
    OutOfTime
        ``clock``'s deadline passed first.
    """
    return not removable_clues(puzzle, solution, clock, others)
