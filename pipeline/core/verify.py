"""Check grids against the rules and the clues, and vectors against ``Aeq x = beq``.

One rule-check kernel, :func:`unit_repeats`, works over a puzzle's unit tables
(``Puzzle.unit_families()``: each family an ``(n_units, N)`` array of row-major cell numbers) on
one flat grid or on a stack of them. The puzzle validator (two equal clues in a unit),
:func:`verify_grid` (one verdict with its message), :func:`grid_violations` (every broken rule,
for ``verify`` and ``draw``) and the bulk checks :func:`rule_conflicts` and
:func:`verify_solutions` (one boolean per grid, for batch) all use it.

This module imports no other project module but the variant table and the errors, so that
:mod:`pipeline.core.puzzle` can use the kernel for its own validation.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.errors import PuzzleError, clip
from pipeline.core.extracells import extra_name, with_extra
from pipeline.core.variants import FAMILIES

if TYPE_CHECKING:  # annotations only: puzzle (and through it build) imports this module
    from pipeline.core.build import Model
    from pipeline.core.puzzle import Puzzle

#: The unit families of a puzzle (:meth:`Puzzle.unit_families`): ``[(family, cells (U, N))]``.
Families = Sequence[tuple[str, np.ndarray]]

__all__ = ["RESIDUAL_TOL", "Verdict", "unit_repeats", "first_duplicate", "rule_conflicts",
           "verify_solutions", "verify_grid", "digit_array", "grid_violations", "residual", "worst_violation", "times",
           "cells_text"]

#: Largest ``|Aeq x - beq|`` (and bound violation) a solver's vector may show and still count as
#: feasible: the same magnitude as :data:`pipeline.core.decode.INTEGRALITY_TOL`, HiGHS' and CBC's
#: default primal feasibility tolerance.
RESIDUAL_TOL = 1e-6


@dataclass(frozen=True)
class Verdict:
    """Outcome of :func:`verify_grid`: ``ok`` and a one-line ``message``; truthy exactly when ``ok``."""

    ok: bool
    message: str

    def __bool__(self):
        return self.ok


#: Grids up to this size are checked through one bit per digit in a machine word.
MAX_BITMASK_N = 64


@lru_cache(maxsize=None)
def _digit_bits(n: int) -> np.ndarray:
    """``table[d]`` = the bit of digit ``d`` (``table[0] = 0``: an empty cell sets no bit)."""
    dtype = np.uint16 if n <= 16 else np.uint32 if n <= 32 else np.uint64
    table = np.zeros(n + 1, dtype=dtype)
    table[1:] = np.left_shift(np.ones(n, dtype=dtype), np.arange(n, dtype=dtype))
    table.setflags(write=False)
    return table


def _cell_codes(grids: np.ndarray, n: int) -> tuple[np.ndarray, bool]:
    """The kernel's cell codes: digit bits when every value is ``0..N <= MAX_BITMASK_N``
    (``bitwise``), else the values themselves."""
    grids = np.asarray(grids)
    if n <= MAX_BITMASK_N and (grids.size == 0 or (grids.min() >= 0 and grids.max() <= n)):
        return _digit_bits(n)[grids], True
    return grids, False


def _repeats(codes: np.ndarray, units: np.ndarray, bitwise: bool) -> np.ndarray:
    """``(..., U)`` True where a unit holds a nonzero value twice: fewer distinct digit bits
    than filled cells, or (beyond the bitmasks) equal neighbours after sorting."""
    cells = codes[..., units]                                      # (..., U, N)
    if bitwise:
        return np.bitwise_count(np.bitwise_or.reduce(cells, axis=-1)) < np.count_nonzero(cells, axis=-1)
    values = np.sort(cells, axis=-1)
    return ((values[..., 1:] == values[..., :-1]) & (values[..., 1:] != 0)).any(axis=-1)


def unit_repeats(grids: np.ndarray, units: np.ndarray) -> np.ndarray:
    """Which units hold a digit twice: the rule-check kernel, on one grid or a stack of grids.

    Parameters
    ----------
    grids : ndarray of int, shape (N*N,) or (P, N*N)
        Flat row-major grids, ``0`` for an empty cell (empty cells never count as repeats).
    units : ndarray of int, shape (U, N)
        Cell numbers of ``U`` units of one family (one entry of ``Puzzle.unit_families()``).

    Returns
    -------
    ndarray of bool, shape (U,) or (P, U)

    Examples
    --------
    >>> import numpy as np
    >>> rows = np.arange(4).reshape(2, 2)            # a 2x2 grid's two rows
    >>> unit_repeats(np.array([1, 1, 2, 0]), rows).tolist()
    [True, False]
    >>> unit_repeats(np.array([[1, 2, 2, 1], [2, 2, 0, 0]]), rows).tolist()
    [[False, False], [True, False]]
    """
    codes, bitwise = _cell_codes(grids, units.shape[-1])
    return _repeats(codes, units, bitwise)


def first_duplicate(grid: np.ndarray, families: Families, n: int | None = None) -> tuple[str, int, int, np.ndarray] | None:
    """The first unit (in family order, then unit order) holding a digit twice, or None.

    Parameters
    ----------
    grid : ndarray of int, shape (N, N) or (N*N,)
        One grid, ``0`` for empty.
    families : list of (str, ndarray)
        ``Puzzle.unit_families()``.
    n : int, optional
        Number of digits (default: the side of a square grid).

    Returns
    -------
    tuple or None
        ``(family, unit index, digit, cells)``: the smallest digit the unit repeats and every
        cell of the unit holding it (in the unit's order); None when no unit repeats.
    """
    flat = np.asarray(grid).ravel()
    n = math.isqrt(flat.size) if n is None else n
    codes, bitwise = _cell_codes(flat, n)
    if len(families) > 1 and len({units.shape[-1] for _, units in families}) == 1 and \
            not _repeats(codes, np.concatenate([units for _, units in families]), bitwise).any():
        return None   # every family at once (a grid that keeps them, as nearly all do): 38 -> 9 us a 9x9
    for family, units in families:
        broken = np.flatnonzero(_repeats(codes, units, bitwise))
        if broken.size:
            u = int(broken[0])
            values = flat[units[u]]
            filled = values[values != 0]
            kinds, counts = np.unique(filled, return_counts=True)
            digit = int(kinds[np.argmax(counts > 1)])
            return family, u, digit, units[u][values == digit]
    return None


def unit_name(family: str, unit: int, *, article: bool = False) -> str:
    """``row 3``, ``box 7``; a single-unit family by its word (``the main diagonal``).

    Parameters
    ----------
    family : str
        A family of :data:`pipeline.core.variants.FAMILIES`.
    unit : int
        0-based unit number.
    article : bool
        ``the main diagonal`` rather than ``main diagonal``.
    """
    fam = FAMILIES[family]
    if fam.single:
        return f"the {fam.word}" if article else fam.word
    return f"{fam.word} {unit + 1}"


def rule_conflicts(grids: np.ndarray, families: Families) -> np.ndarray:
    """``(P,)`` True where some unit holds a digit twice (flat grids ``(P, N*N)``, 0 = empty).

    Parameters
    ----------
    grids : ndarray of int, shape (P, N*N)
        Partial or complete grids of one shape and variant.
    families : list of (str, ndarray)
        ``Puzzle.unit_families()`` of a puzzle of that shape (the template).

    Returns
    -------
    ndarray of bool, shape (P,)
    """
    grids = np.atleast_2d(grids)
    codes, bitwise = _cell_codes(grids, math.isqrt(grids.shape[1]))
    bad = np.zeros(grids.shape[0], dtype=bool)
    for _, units in families:
        bad |= _repeats(codes, units, bitwise).any(axis=-1)
    return bad


def verify_solutions(solutions: np.ndarray, clues: np.ndarray, families: Families) -> np.ndarray:
    """``(P,)`` True where ``solutions[p]`` completes ``clues[p]``: :func:`verify_grid`'s checks.

    Every cell holds ``1..N``, no unit holds a digit twice (with every cell filled: each unit
    holds every digit once), every clue is kept.

    Parameters
    ----------
    solutions, clues : ndarray of int, shape (P, N*N)
        Flat candidate solutions and the puzzles' clue grids (0 = empty).
    families : list of (str, ndarray)
        ``Puzzle.unit_families()`` of the template puzzle.

    Returns
    -------
    ndarray of bool, shape (P,)

    Examples
    --------
    >>> import numpy as np
    >>> from pipeline.core.puzzle import Puzzle
    >>> template = Puzzle(np.zeros((4, 4), int), 2, 2)
    >>> good = np.array([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1])
    >>> verify_solutions(np.stack([good, good[::-1]]), np.zeros((2, 16), int), template.unit_families()).tolist()
    [True, True]
    >>> verify_solutions(good[None], np.eye(4, dtype=int).ravel()[None] * 4, template.unit_families()).tolist()
    [False]
    """
    solutions, clues = np.atleast_2d(solutions), np.atleast_2d(clues)
    n = math.isqrt(solutions.shape[1])
    ok = ((solutions >= 1) & (solutions <= n)).all(axis=1)
    ok &= ((solutions == clues) | (clues == 0)).all(axis=1)
    ok &= ~rule_conflicts(np.where(ok[:, None], solutions, 0), families)
    return ok


#: Largest whole float taken as a digit index: every integer up to it is exact in a float64, and it
#: casts to int64 without wrapping (1e30 became -9223372036854775808 in a verdict's message).
MAX_FLOAT_DIGIT = float(2 ** 53)


def digit_array(grid: object, where: str = "grid") -> np.ndarray:
    """``grid`` as a 2-d integer array of digit indices, or one :class:`PuzzleError` line.

    Whole floats (``2.0``, as a CSV or a solver's vector reads) become integers; anything else
    that is not an integer array (text, booleans, ``2.5``, NaN, a ragged list, a 0-d or 3-d
    array) is refused, and so is a whole float too large to be an integer exactly.

    Parameters
    ----------
    grid : array_like
        The claimed grid, rows x columns.
    where : str
        How the message names it (``grid``, ``solution``).

    Returns
    -------
    numpy.ndarray
        An integer array, ``(rows, cols)``; values are not range-checked (:func:`verify_grid` does).

    Raises
    ------
    PuzzleError
        Not a 2-d array of integers.

    Examples
    --------
    >>> digit_array([[1.0, 2.0], [2.0, 1.0]]).dtype.kind
    'i'
    """
    try:
        array = np.asarray(grid)
    except (ValueError, TypeError) as e:   # ragged lists
        raise PuzzleError(f"{where}: not a rectangular array ({clip(e, 80)})") from None
    if array.dtype.kind == "f" and np.isfinite(array).all() and (array == np.rint(array)).all():
        huge = np.argwhere(np.abs(array) > MAX_FLOAT_DIGIT) if array.ndim == 2 else np.empty((0, 2), int)
        if huge.size:
            r, c = huge[0]
            raise PuzzleError(f"{where}: cell ({r + 1}, {c + 1}) is {array[r, c]:g}, not a digit index")
        array = array.astype(np.int64)
    if array.dtype.kind not in "iu" or array.ndim != 2:
        raise PuzzleError(f"{where}: an array of digit indices 1..V, rows x columns (as solve's result.grid), found "
                          f"{array.ndim}-d {array.dtype}")
    return array


def verify_grid(grid: np.ndarray, puzzle: Puzzle, extra: np.ndarray | None = None) -> Verdict:
    """Is ``grid`` a completed solution of ``puzzle``? Names the first broken unit or clue.

    Checks, in this order: the shape, every cell holding a digit ``1..N``, every unit of the
    variant (rows, columns, then boxes or regions, then diagonals: ``Puzzle.unit_families()``)
    holding each digit once, every clue kept.

    Parameters
    ----------
    grid : array_like of int, shape (N, N)
        The claimed solution.
    puzzle : Puzzle
        The puzzle it should solve (its clues, box shape, variant and regions).
    extra : ndarray of int, optional
        The digits (``1..V``) of the puzzle's extra cells (:mod:`pipeline.core.extracells`);
        None: the rules are judged on the grid alone (extra cells empty).

    Returns
    -------
    Verdict
        ``ok`` and a one-line ``message``: the first broken rule, or what was checked. A
        verdict is truthy exactly when ``ok``.

    Raises
    ------
    Nothing for a wrong grid: a broken rule is a verdict, not an error.

    Examples
    --------
    >>> import numpy as np
    >>> from pipeline.core.puzzle import Puzzle
    >>> puzzle = Puzzle(np.array([[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]]), 2, 2)
    >>> grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    >>> verify_grid(grid, puzzle).message
    'clue at (4, 4) is 2 but the grid has 1'
    >>> grid[3] = [4, 3, 1, 2]
    >>> verify_grid(grid, puzzle).message
    'column 3 has digit 1 twice: cells (2, 3) and (4, 3)'
    """
    grid = np.asarray(grid)
    n, cols = puzzle.n, puzzle.cols
    if grid.shape != puzzle.grid.shape:
        return Verdict(False, f"grid is {'x'.join(map(str, grid.shape))}, puzzle is {'x'.join(map(str, puzzle.grid.shape))}")
    present = puzzle.present.reshape(grid.shape)
    v = puzzle.n_values      # digits 1..V (V > N: a value set larger than the side)
    bad = np.argwhere(((grid < 1) | (grid > v)) & present)
    if bad.size:
        r, c = bad[0]
        what = "empty" if grid[r, c] == 0 else f"{grid[r, c]}, not a digit 1..{v}"
        return Verdict(False, f"cell ({r + 1}, {c + 1}) is {what}")
    outside = np.argwhere((grid != 0) & ~present)
    if outside.size:
        r, c = outside[0]
        return Verdict(False, f"cell ({r + 1}, {c + 1}) holds {grid[r, c]} but is outside every grid of the layout")
    found = first_duplicate(grid, puzzle.unit_families(), v)
    if found is not None:
        family, unit, digit, cells = found
        return Verdict(False, f"{unit_name(family, unit)} has {_named(puzzle, digit)} {times(cells.size)}: cells "
                              f"{cells_text(cells, cols)}")
    n_extra = puzzle.board.n_extra
    if extra is not None and n_extra and ((np.asarray(extra) < 1) | (np.asarray(extra) > v)).any():
        k = int(np.flatnonzero((np.asarray(extra) < 1) | (np.asarray(extra) > v))[0])
        return Verdict(False, f"extra cell {extra_name(k, puzzle.extra)} holds {int(extra[k])}, not a digit 1..{v}")
    flat = with_extra(grid.ravel(), n_extra, extra if n_extra else None)
    broken = _first_broken_rule(puzzle, flat)
    if broken:
        return Verdict(False, broken)
    clue_r, clue_c = np.nonzero(puzzle.grid)
    wrong = np.flatnonzero(grid[clue_r, clue_c] != puzzle.grid[clue_r, clue_c])
    if wrong.size:
        r, c = clue_r[wrong[0]], clue_c[wrong[0]]
        return Verdict(False, f"clue at ({r + 1}, {c + 1}) is {_shown(puzzle, puzzle.grid[r, c])} but the grid has "
                              f"{_shown(puzzle, grid[r, c])}")
    size = f"{puzzle.rows}x{puzzle.cols}" if puzzle.layout is None else f"{puzzle.layout.name} ({puzzle.layout.n_grids} grids of {n}x{n})"
    rules = f", {len(puzzle.rules)} rule{'s' if len(puzzle.rules) != 1 else ''} beyond units" if puzzle.rules else ""
    kept = {0: "no clues to keep", 1: "the 1 clue kept"}.get(puzzle.n_clues, f"all {puzzle.n_clues} clues kept")
    return Verdict(True, f"valid {puzzle.variant} {size} solution{rules}, {kept}")


def _shown(puzzle: Puzzle, digit: int) -> str:
    """A digit ``1..V`` as the puzzle shows it: its value (``0`` for digit 1 of ``0-8``). With a
    value set an empty cell shows ``nothing`` (0 is a value there) and a digit past ``V`` itself."""
    values = puzzle.values
    if values is None:
        return str(int(digit))
    return str(values[int(digit) - 1]) if 1 <= digit <= len(values) else "nothing" if digit == 0 else f"digit {int(digit)}"


def _named(puzzle: Puzzle, digit: int) -> str:
    """``digit 5``, or ``value 0`` in a puzzle with a value set (messages speak as grids are shown)."""
    return f"digit {digit}" if puzzle.values is None else f"value {_shown(puzzle, digit)}"


def _first_broken_rule(puzzle: Puzzle, flat: np.ndarray) -> str:
    """The message of the first rule (in the puzzle's order) ``flat`` breaks, or ``""``. The rules
    of a kind stand together: a rule class may have a quick check, the classmethod
    ``all_kept(rules, grid, board)`` (True only when none of ``rules`` is broken: cages have one),
    and a kind it clears is not asked rule by rule."""
    board = puzzle.board
    for kind, of_kind in itertools.groupby(puzzle.rules, key=type):
        group = list(of_kind)
        quick = getattr(kind, "all_kept", None)
        if quick is None or not quick(group, flat, board):
            for rule in group:
                broken = rule.violations(flat, board)
                if broken:
                    return str(broken[0]["message"])
    return ""


def times(count: int) -> str:
    """How often a digit repeats, in words: ``twice``, ``3 times``.

    Parameters
    ----------
    count : int
        At least 2.
    """
    return "twice" if count == 2 else f"{count} times"


def cells_text(cells: np.ndarray, n: int) -> str:
    """``(r, c) and (r, c)`` of canvas cells (flat indices), ``n`` the canvas width.

    Parameters
    ----------
    cells : ndarray of int
        Flat cell indices, in the order they are named.
    n : int
        The canvas width.
    """
    names = [f"({c // n + 1}, {c % n + 1})" for c in cells.tolist()]
    return " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]


def grid_violations(grid: np.ndarray, puzzle: Puzzle, extra: np.ndarray | None = None) -> list[dict]:
    """Every rule ``grid`` breaks as a completed solution of ``puzzle``, not just the first.

    In :func:`verify_grid`'s order: the shape (then nothing else is checked),
    the empty cells (one entry), each cell that is not a digit ``1..N``, each digit a unit holds more than once
    (units of every family of the variant, found by the rule kernel
    :func:`unit_repeats`), each clue the grid changes.

    Parameters
    ----------
    grid : ndarray of int, shape (N, N)
    puzzle : Puzzle
        Its clues (none: the rules alone), box shape, variant and regions.
    extra : ndarray of int, optional
        The digits of the puzzle's extra cells (None: empty), as for :func:`verify_grid`.

    Returns
    -------
    list of dict
        ``{"kind": "shape" | "empty" | "cell" | "unit" | "rule" | "clue", "message": ..., "cells": [[row, col], ...]}``
        (1-based), units also with ``family``, ``unit`` (1-based) and ``digit``, a rule over extra
        cells also with ``extra_cells`` (their names, ``["S1"]``). Empty when
        the grid solves the puzzle.

    Examples
    --------
    >>> from pipeline.core.puzzle import Puzzle
    >>> grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 2]])
    >>> for v in grid_violations(grid, Puzzle(np.zeros((4, 4), int), 2, 2)):
    ...     print(v["message"])
    row 4 has digit 2 twice: cells (4, 3) and (4, 4)
    column 4 has digit 2 twice: cells (2, 4) and (4, 4)
    box 4 has digit 2 twice: cells (4, 3) and (4, 4)
    """
    grid = np.asarray(grid)
    cols = puzzle.cols
    if grid.shape != puzzle.grid.shape:
        return [{"kind": "shape", "message": f"grid is {'x'.join(map(str, grid.shape))}, puzzle is "
                                             f"{'x'.join(map(str, puzzle.grid.shape))}", "cells": []}]
    found = []
    flat = grid.ravel()
    present = puzzle.present
    empty = np.flatnonzero((flat == 0) & present)
    if empty.size:  # one entry for all of them: a partly filled grid is one problem, not 58
        message = (f"cell {cells_text(empty, cols)} is empty" if empty.size == 1
                   else f"{empty.size} cells are empty: {cells_text(empty, cols)}")
        found.append({"kind": "empty", "message": message, "cells": [[x // cols + 1, x % cols + 1] for x in empty.tolist()]})
    v = puzzle.n_values      # digits 1..V, as verify_grid
    for x in np.flatnonzero(((flat < 0) | (flat > v)) & present).tolist():
        r, c = divmod(x, cols)
        found.append({"kind": "cell", "message": f"cell ({r + 1}, {c + 1}) is {flat[x]}, not a digit 1..{v}",
                      "cells": [[r + 1, c + 1]]})
    for x in np.flatnonzero((flat != 0) & ~present).tolist():
        r, c = divmod(x, cols)
        found.append({"kind": "cell", "message": f"cell ({r + 1}, {c + 1}) holds {flat[x]} but is outside every grid "
                                                 "of the layout", "cells": [[r + 1, c + 1]]})
    for family, units in puzzle.unit_families():
        for u in np.flatnonzero(unit_repeats(flat, units)).tolist():   # only the broken units
            values = flat[units[u]]
            digits, counts = np.unique(values[values != 0], return_counts=True)
            for digit, count in zip(digits[counts > 1].tolist(), counts[counts > 1].tolist()):
                cells = units[u][values == digit]
                how = times(count)
                found.append({"kind": "unit", "family": family, "unit": u + 1, "digit": digit,
                              "message": f"{unit_name(family, u)} has {_named(puzzle, digit)} {how}: cells "
                                         f"{cells_text(cells, cols)}",
                              "cells": [[x // cols + 1, x % cols + 1] for x in cells.tolist()]})
    for rule in puzzle.rules:
        for broken in rule.violations(with_extra(flat, puzzle.board.n_extra, extra), puzzle.board):
            found.append({"kind": "rule", "rule": rule.kind, "message": broken["message"],
                          **_rule_cells(broken["cells"], puzzle)})
    clue_r, clue_c = np.nonzero(puzzle.grid)
    wrong = np.flatnonzero(grid[clue_r, clue_c] != puzzle.grid[clue_r, clue_c])
    for r, c in zip(clue_r[wrong].tolist(), clue_c[wrong].tolist()):
        found.append({"kind": "clue", "message": f"clue at ({r + 1}, {c + 1}) is {_shown(puzzle, puzzle.grid[r, c])} "
                                                 f"but the grid has {_shown(puzzle, grid[r, c])}", "cells": [[r + 1, c + 1]]})
    return found


def _rule_cells(cells: Sequence[int], puzzle: Puzzle) -> dict:
    """A broken rule's cells as a violation names them: grid cells as ``[row, col]`` (1-based),
    extra cells apart by name (``extra_cells: ["S1"]``): their numbers are past the canvas, and
    as a row and column they named cells outside the grid."""
    canvas = puzzle.rows * puzzle.cols
    named = {"cells": [[x // puzzle.cols + 1, x % puzzle.cols + 1] for x in cells if x < canvas]}
    extra = [extra_name(x - canvas, puzzle.extra) for x in cells if x >= canvas]
    return {**named, "extra_cells": extra} if extra else named


def residual(model: Model, x: np.ndarray) -> float:
    """Largest violation of ``Aeq x = beq``, ``Aineq x <= bineq`` and of the bounds for a
    solver-view vector.

    A vector is feasible when this is at most :data:`RESIDUAL_TOL`.

    Parameters
    ----------
    model : Model
        Its ``Aeq``, ``beq`` and bounds.
    x : numpy.ndarray
        A vector over the solver view's columns.
    """
    return max(float(v.max(initial=0.0)) for v in _violations(model, x, cells_only=False))


def residual_without_aux(model: Model, x: np.ndarray) -> float:
    """:func:`residual` over the rows without auxiliary columns (docs/conventions.md): what an
    imported answer that names only cell variables can be held to (its grid is judged by
    :func:`verify_grid`); the auxiliary columns of ``x`` are not read.

    Parameters
    ----------
    model : Model
        Its ``Aeq``, ``Aineq`` and bounds.
    x : numpy.ndarray
        A vector over the solver view's columns.

    Returns
    -------
    float
    """
    return max(float(v.max(initial=0.0)) for v in _violations(model, x, cells_only=True))


def worst_violation(model: Model, x: np.ndarray, cells_only: bool = False) -> str:
    """What :func:`residual` (``cells_only``: :func:`residual_without_aux`) measured, in words: the
    row or bound ``x`` breaks most, by its label (``row skyscraper_2 (Aineq x <= bineq): 3 > 2``).

    Parameters
    ----------
    model : Model
        Its rows, bounds and labels.
    x : numpy.ndarray
        A vector over the solver view's columns.
    cells_only : bool
        Judge only the rows without auxiliary columns, as :func:`residual_without_aux` does.

    Returns
    -------
    str
        Empty when nothing is violated.
    """
    eq, le, bounds = _violations(model, x, cells_only)
    worst = [float(v.max(initial=0.0)) for v in (eq, le, bounds)]
    if max(worst) <= 0.0:
        return ""
    x = np.asarray(x, dtype=float)
    kind = int(np.argmax(worst))
    if kind == 0:
        i = int(np.argmax(eq))
        return f"row {model.row_labels[i]} (Aeq x = beq): {float((model.Aeq[i] @ x)[0]):g} where {model.beq[i]:g}"
    if kind == 1:
        i = int(np.argmax(le))
        return f"row {model.ineq_labels[i]} (Aineq x <= bineq): {float((model.Aineq[i] @ x)[0]):g} > {model.bineq[i]:g}"
    j = int(np.argmax(bounds))
    return f"the bounds of {model.col_names[j]}: {x[j]:g} outside [{model.lb[j]:g}, {model.ub[j]:g}]"


def _violations(model: Model, x: np.ndarray, cells_only: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each ``Aeq`` row's ``|Aeq x - beq|``, each ``Aineq`` row's excess over ``bineq`` and each
    column's distance outside its bounds (0 where held); ``cells_only``: rows over auxiliary
    columns and those columns count 0, their values unread."""
    x = np.asarray(x, dtype=float)
    cells = model.columns < model.convention.n_vars if cells_only else np.ones(model.n_cols, dtype=bool)
    if cells_only:
        x = np.where(cells, x, 0.0)
    eq = np.abs(model.Aeq @ x - model.beq)
    le = np.maximum(model.Aineq @ x - model.bineq, 0.0) if model.n_ineq else np.zeros(0)
    if cells_only and not cells.all():
        eq[np.diff(model.Aeq[:, ~cells].tocsr().indptr) > 0] = 0.0
        if model.n_ineq:
            le[np.diff(model.Aineq[:, ~cells].tocsr().indptr) > 0] = 0.0
    bounds = np.where(cells, np.maximum(np.maximum(model.lb - x, x - model.ub), 0.0), 0.0)
    return eq, le, bounds
