"""``pattern``: a constructive fill for plain Sudoku grids with few clues (issue 34: large grids).

Every box shape has a solved grid in closed form, ``base[r, c] = (w * (r mod h) + r div h + c) mod N``
(each row a shift of the one above; a band's rows step by ``w``, so every box and column holds each
digit once). The rows of a band, the bands, the columns of a stack and the stacks can be permuted,
and the digits relabelled, without breaking a unit. The engine looks for such a transform under
which the clues agree with a relabelling of the base grid (a clue is a partial bijection from base
values to digits): the identity first, then seeded random transforms, each checked with numpy over
all clues at once. One clue always fits; a few usually do. What it finds is a solution, verified
like any engine's; it proves nothing about uniqueness and it cannot count, so ``auto`` picks it
only for ``solve --no-unique-check`` (the ``solve`` question), and only when a fit exists:
:func:`fit_problem` is the entry's ``model_problem``, so a puzzle it does not fit goes to the next
engine of the row (the SAT engine), never to a failed answer.

It takes classic puzzles with boxes (any ``h x w``) and no rows beyond units: no diagonals,
jigsaw regions, rules or layouts.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from pipeline.core.build import Model
from pipeline.core.decode import vector_from_grid
from pipeline.core.options import time_limit_bound
from pipeline.core.puzzle import Puzzle
from pipeline.solvers.base import Solver, SolveResult, register_solver

__all__ = ["TRIES", "base_grid", "fit", "fit_problem", "solve"]

#: Random transforms tried after the identity before giving up (each is a few numpy operations
#: over the clues).
TRIES = 400
#: Above this many clues per digit a fit is rare and the search is left to the other engines.
MAX_CLUES_PER_DIGIT = 2


def base_grid(n: int, h: int, w: int) -> np.ndarray:
    """The closed-form solved grid of an ``n x n`` Sudoku with ``h x w`` boxes, values ``0..n-1``.

    Parameters
    ----------
    n : int
        Side (``h * w``).
    h, w : int
        Box rows and columns.

    Returns
    -------
    ndarray of int, shape (n, n)

    Examples
    --------
    >>> base_grid(4, 2, 2).tolist()
    [[0, 1, 2, 3], [2, 3, 0, 1], [1, 2, 3, 0], [3, 0, 1, 2]]
    """
    r = np.arange(n)[:, None]
    c = np.arange(n)[None, :]
    return (w * (r % h) + r // h + c) % n


def _band_permutation(rng: np.random.Generator, bands: int, size: int) -> np.ndarray:
    """A permutation of ``bands * size`` lines that keeps each band's lines together."""
    order = rng.permutation(bands)
    inner = np.stack([rng.permutation(size) for _ in range(bands)])
    return (order[:, None] * size + inner[order]).ravel()


def _relabel(values: np.ndarray, digits: np.ndarray, n: int) -> np.ndarray | None:
    """The digit of each base value (``(n,)``, 1-based) when ``values -> digits`` is a partial
    bijection, else None."""
    target = np.full(n, -1)
    target[values] = digits
    if (target[values] != digits).any():          # one base value asked to be two digits
        return None
    used = target[target >= 0]
    if np.unique(used).size != used.size:         # two base values asked to be one digit
        return None
    free_digits = np.setdiff1d(np.arange(1, n + 1), used)
    target[target < 0] = free_digits
    return target


def fit(puzzle: Puzzle, *, tries: int = TRIES, seed: int = 0) -> np.ndarray | None:
    """A solved grid of ``puzzle`` built from the closed-form pattern, or None when no transform
    tried fits its clues.

    Parameters
    ----------
    puzzle : Puzzle
        A classic puzzle with boxes (the caller checks).
    tries : int
        Random transforms after the identity.
    seed : int
        Seeds the transforms (the answer is the same on every run).

    Returns
    -------
    ndarray of int, shape (N, N), or None
    """
    n, h, w = puzzle.n, puzzle.h, puzzle.w
    if puzzle.n_clues == n * n:   # every cell given: its own answer (a Puzzle with a unit repeat is refused)
        return np.array(puzzle.grid)
    base = base_grid(n, h, w)
    rows, cols = np.nonzero(puzzle.grid)
    digits = puzzle.grid[rows, cols]
    rng = np.random.default_rng(seed)
    for attempt in range(tries + 1):
        if attempt == 0:
            row_map, col_map = np.arange(n), np.arange(n)
        else:   # bands are h rows (w of them); stacks are w columns (h of them)
            row_map, col_map = _band_permutation(rng, w, h), _band_permutation(rng, h, w)
        relabel = _relabel(base[row_map[rows], col_map[cols]], digits, n)
        if relabel is not None:
            return relabel[base[np.ix_(row_map, col_map)]]
    return None


def _shape_problem(puzzle: Puzzle) -> str | None:
    if puzzle.layout is not None or puzzle.rules or not puzzle.has_boxes or puzzle.has_diagonals \
            or puzzle.regions is not None or puzzle.variant != "classic":
        return "it takes classic puzzles with boxes only (no rules, diagonals, regions or layouts)"
    if MAX_CLUES_PER_DIGIT * puzzle.n < puzzle.n_clues < puzzle.n * puzzle.n:   # a full grid is checked instead
        return f"more than {MAX_CLUES_PER_DIGIT} clues per digit: a relabelled pattern rarely fits"
    return None


#: ``id(model) -> grid`` of the last fit (``model_problem`` finds it; ``solve`` reuses it).
_FOUND: dict[int, tuple[Model, np.ndarray]] = {}


def fit_problem(model: Any) -> str | None:
    """Why the pattern engine cannot solve ``model`` (its shape, or no transform fits its clues),
    or None: the fit is kept for :func:`solve`.

    Parameters
    ----------
    model : Model
        The model auto considers.

    Returns
    -------
    str or None
    """
    puzzle = model.puzzle
    problem = _shape_problem(puzzle)
    if problem:
        return problem
    grid = fit(puzzle)
    if grid is None:
        return f"no relabelled pattern fits the {puzzle.n_clues} clues (tried {TRIES + 1} transforms)"
    _FOUND.clear()
    _FOUND[id(model)] = (model, grid)
    return None


def solve(model: Model, *, time_limit: float | None = None) -> SolveResult:
    """A solution of ``model`` by construction (``infeasible`` is never claimed: no fit is
    ``no_solution`` with the reason, and ``auto`` never gets there).

    Parameters
    ----------
    model : Model
        A classic puzzle with boxes.
    time_limit : float, optional
        Accepted for the common interface; a fit takes milliseconds.

    Returns
    -------
    SolveResult
    """
    started = time.perf_counter()
    kept = _FOUND.pop(id(model), None)
    grid = kept[1] if kept is not None and kept[0] is model else None
    if grid is None:
        problem = _shape_problem(model.puzzle)
        grid = None if problem else fit(model.puzzle)
        if grid is None:
            return SolveResult("no_solution", None, None, time.perf_counter() - started, 0, solver="pattern",
                               message=problem or "no relabelled pattern fits the clues")
    x = vector_from_grid(grid, model.convention)[model.columns]
    return SolveResult("optimal", x, 0.0, time.perf_counter() - started, 0, grid=grid, solver="pattern")


register_solver(Solver(
    name="pattern", description="constructive fill: a relabelled closed-form grid that fits the clues (few-clue "
    "classic grids of any size; no uniqueness, no counting)", solve=solve, model_problem=fit_problem,
    timed_call="the fit", needs_model=True,
    bounds={"time_limit": time_limit_bound(why="a fit takes milliseconds; the limit is not used")}))
