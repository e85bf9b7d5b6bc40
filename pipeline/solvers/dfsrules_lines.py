"""The outside lines the ``dfsrules`` kernel propagates with handlers of their own (sandwich and
skyscraper clues, :data:`pipeline.solvers.dfsrules.HANDLED_KINDS`): each line's cells from the
clue inwards, its clue, and each cell's lines; and a skyscraper solution's auxiliary columns
(each cell seen or not), which the search does not hold but the solver view's vector does; and,
for every handled kind, which puzzles its handler does not take and the answer's auxiliary columns.
"""
from __future__ import annotations

from typing import Protocol, cast

import numpy as np

from pipeline.core.puzzle import Puzzle
from pipeline.solvers.dfsrules_automaton_rows import automaton_aux_values, automaton_problem
from pipeline.solvers.dfsrules_counttables import COUNTING_KINDS, standard_values
from pipeline.solvers.dfsrules_counttables import aux_values as counting_aux_values
from pipeline.solvers.dfsrules_lunchbox_rows import lunchbox_aux_values, lunchbox_problem
from pipeline.solvers.dfsrules_rows import by_cell
from pipeline.solvers.dfsrules_sumline_rows import sumline_aux_values, sumline_problem

__all__ = ["handled_aux_values", "handled_problem", "line_tables", "skyscraper_problem", "skyscraper_seen"]


class _Line(Protocol):
    """An outside clue over a whole row or column (its cells from the clue inwards, its value)."""

    kind: str
    cell_list: tuple[int, ...]
    value: int


def line_tables(puzzle: Puzzle, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The lines of the rules of ``kind`` (``sandwich``, ``skyscraper``) for the kernel's handler:
    each line's ``n`` cells in order (flat), its clue, and each cell's lines (``cell_ptr``,
    ``cell_lines``).

    Parameters
    ----------
    puzzle : Puzzle
        Its rules of ``kind``, each over ``n`` cells (:func:`skyscraper_problem` for skyscrapers;
        a sandwich's line is a unit).
    kind : str
        The rule kind.

    Returns
    -------
    tuple of numpy.ndarray
        ``(cells, clues, cell_ptr, cell_lines)``, ``int64``.
    """
    n_cells = puzzle.n * puzzle.n
    # the rules of pipeline.core.rules.outside and .skyscraper, read by kind: importing those
    # modules here would load them for every rule puzzle
    lines = cast(list[_Line], [rule for rule in puzzle.rules if rule.kind == kind])
    if not lines:
        z = np.zeros(0, dtype=np.int64)
        return z, z, np.zeros(n_cells + 1, dtype=np.int64), z
    cells = np.array([rule.cell_list for rule in lines], dtype=np.int64).reshape(len(lines), puzzle.n)
    clues = np.array([rule.value for rule in lines], dtype=np.int64)
    owner = np.repeat(np.arange(len(lines), dtype=np.int64), puzzle.n)
    ptr, order = by_cell(cells.ravel(), n_cells)
    return cells.ravel(), clues, ptr, owner[order]


def skyscraper_problem(puzzle: Puzzle) -> str | None:
    """Why the kernel's skyscraper handler does not take ``puzzle``'s skyscraper clues (None: it
    does, or there are none): it takes lines of the grid's ``n`` cells on ``n`` values.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.

    Returns
    -------
    str or None
    """
    lines = cast(list[_Line], [rule for rule in puzzle.rules if rule.kind == "skyscraper"])
    if not lines:
        return None
    if puzzle.n_values != puzzle.n:
        return f"dfsrules takes skyscraper clues on {puzzle.n} values, found {puzzle.n_values}"
    if any(len(rule.cell_list) != puzzle.n for rule in lines):
        return f"dfsrules takes skyscraper clues over lines of {puzzle.n} cells, and a clue sees fewer"
    return None


def skyscraper_seen(puzzle: Puzzle, grid: np.ndarray, names: np.ndarray) -> np.ndarray:
    """The values of the skyscraper rule's auxiliary columns ``names`` (``aux_skyscraper_k_i``:
    cell ``i`` of the ``k``-th clue's line is seen, :class:`pipeline.core.rules.skyscraper.Skyscraper`)
    in the solution ``grid``.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle (its skyscraper clues and value set).
    grid : numpy.ndarray
        The solution, ``(n, n)`` digits ``1..n``.
    names : numpy.ndarray
        Auxiliary column names, each ``aux_skyscraper_<k>_<i>``.

    Returns
    -------
    numpy.ndarray
        0.0 or 1.0 per name.
    """
    cells, _, _, _ = line_tables(puzzle, "skyscraper")
    n = puzzle.n
    heights = np.asarray(grid).ravel()[cells].reshape(-1, n)   # digits 1..n: heights by digit index
    before = np.concatenate([np.zeros((heights.shape[0], 1), dtype=heights.dtype),
                             np.maximum.accumulate(heights, axis=1)[:, :-1]], axis=1)
    seen = (heights > before) & (np.asarray(puzzle.board.value_of)[heights - 1] > 0)
    rest = np.char.partition(np.char.replace(np.asarray(names).astype(str), "aux_skyscraper_", ""), "_")
    k, i = rest[:, 0].astype(np.int64), rest[:, 2].astype(np.int64)
    return seen[k - 1, i - 1].astype(float)


def handled_problem(puzzle: Puzzle) -> str | None:
    """Why the kernel's handlers do not take the rules of ``puzzle`` whose rows they replace (None:
    they do): skyscraper clues off the grid's full lines, lunchboxes, counting rules or sum lines
    on values other than ``1..N``, automata too large, and the like (each kind's own check).

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.

    Returns
    -------
    str or None
    """
    sky = skyscraper_problem(puzzle) if any(rule.kind == "skyscraper" for rule in puzzle.rules) else None
    if sky:   # the handler takes the grid's full lines on n values; anything else keeps the rows' columns
        return sky
    lunchbox = lunchbox_problem(puzzle)   # the kernel's handler takes a standard lunchbox's place
    if lunchbox:
        return lunchbox
    counting = sorted({rule.kind for rule in puzzle.rules} & COUNTING_KINDS)
    if counting and not standard_values(puzzle):   # the kernel's handlers count values 1..N
        return (f"dfsrules holds {', '.join(counting)} for the values 1..{puzzle.n} only, and the puzzle's "
                f"values are {', '.join(str(v) for v in puzzle.board.value_of)}")
    return sumline_problem(puzzle) or automaton_problem(puzzle)


def handled_aux_values(puzzle: Puzzle, grid: np.ndarray, names: np.ndarray) -> np.ndarray:
    """The values of the auxiliary columns of the kinds whose rows the kernel's handlers replace
    (skyscraper clues' cells seen, lunchboxes' ends, the digits counting circles and
    count-distinct clues hold, sum lines' automaton states, automaton lines' runs), from the solved ``grid``: the rest of a
    solution vector over every column of the model. Each kind reads its own columns by name, so a
    puzzle with both gets each its own.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle :func:`pipeline.solvers.dfsrules.model_problem` takes.
    grid : numpy.ndarray
        Its solved grid.
    names : numpy.ndarray
        The model's auxiliary column names in order (``Model.aux_names``).

    Returns
    -------
    numpy.ndarray
        0/1 (float) per name.
    """
    names = np.asarray(names).astype(str)
    out = np.zeros(names.size)
    for prefix, values in (("aux_skyscraper_", skyscraper_seen), ("aux_lunchbox_", lunchbox_aux_values),
                           ("aux_sumline_", sumline_aux_values), ("aux_automaton", automaton_aux_values),
                           ("aux_regex", automaton_aux_values)):
        own = np.char.startswith(names, prefix)
        if own.any():
            out[own] = values(puzzle, grid, names[own])
    # counting circles' and count-distinct clues' columns: a digit per rule, in the model's order
    own = np.char.startswith(names, "aux_countingcircles_") | np.char.startswith(names, "aux_countdistinct_")
    if own.any():
        out[own] = counting_aux_values(puzzle, grid)
    return out
